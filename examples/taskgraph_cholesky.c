/* SPDX-License-Identifier: Apache-2.0 */
/* taskgraph_cholesky: a blocked Cholesky factorisation whose task graph
 * comes from the data each task reads and writes, as OpenMP's depend
 * clauses give it (weft/taskgraph.h, wf_tg_depend).
 *
 *   taskgraph_cholesky          prints the check of L * L^T against A
 *
 * The loop is the sequential algorithm; each kernel call becomes a task
 * that names its blocks (in: read, inout: read and written), and the
 * edges follow. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define NB 8  /* blocks per side */
#define BS 16 /* doubles per block side */
#define N (NB * BS)

static double A[N][N], L[N][N];

/* Block (i, j)'s element (r, c). */
#define EL(i, j, r, c) L[(i)*BS + (r)][(j)*BS + (c)]

typedef struct {
    char op; /* 'p' potrf, 't' trsm, 's' syrk, 'g' gemm */
    int k, i, j;
} job;

/* Factor the diagonal block (k, k) in place. */
static void potrf(int k)
{
    for (int c = 0; c < BS; c++) {
        double d = EL(k, k, c, c);
        for (int m = 0; m < c; m++)
            d -= EL(k, k, c, m) * EL(k, k, c, m);
        EL(k, k, c, c) = sqrt(d);
        for (int r = c + 1; r < BS; r++) {
            double v = EL(k, k, r, c);
            for (int m = 0; m < c; m++)
                v -= EL(k, k, r, m) * EL(k, k, c, m);
            EL(k, k, r, c) = v / EL(k, k, c, c);
        }
    }
}

/* (i, k) = (i, k) * inverse((k, k)^T). */
static void trsm(int k, int i)
{
    for (int r = 0; r < BS; r++)
        for (int c = 0; c < BS; c++) {
            double v = EL(i, k, r, c);
            for (int m = 0; m < c; m++)
                v -= EL(i, k, r, m) * EL(k, k, c, m);
            EL(i, k, r, c) = v / EL(k, k, c, c);
        }
}

/* (i, j) -= (i, k) * (j, k)^T; syrk is the case i == j. */
static void gemm(int k, int i, int j)
{
    for (int r = 0; r < BS; r++)
        for (int c = 0; c < BS; c++) {
            double v = 0;
            for (int m = 0; m < BS; m++)
                v += EL(i, k, r, m) * EL(j, k, c, m);
            EL(i, j, r, c) -= v;
        }
}

static int run_job(void *ctx)
{
    job *b = ctx;
    switch (b->op) {
    case 'p': potrf(b->k); break;
    case 't': trsm(b->k, b->i); break;
    default: gemm(b->k, b->i, b->j); break;
    }
    return 0;
}

int main(void)
{
    /* A symmetric positive definite matrix; L starts as A's copy. */
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            A[r][c] = L[r][c] = (r == c ? N : 0) + 1.0 / (1 + r + c);

    static job jobs[NB * NB * NB];
    int n = 0;
    wf_taskgraph *g;
    if (wf_taskgraph_create(&g, NULL) != 0)
        return 1;
    for (int k = 0; k < NB; k++) {
        jobs[n] = (job){'p', k, k, k};
        wf_tg_depend(wf_tg_emplace(g, run_job, &jobs[n++]), 1,
                     (wf_tg_dep[]){WF_TG_INOUT(&EL(k, k, 0, 0))});
        for (int i = k + 1; i < NB; i++) {
            jobs[n] = (job){'t', k, i, k};
            wf_tg_depend(wf_tg_emplace(g, run_job, &jobs[n++]), 2,
                         (wf_tg_dep[]){WF_TG_IN(&EL(k, k, 0, 0)),
                                       WF_TG_INOUT(&EL(i, k, 0, 0))});
        }
        for (int i = k + 1; i < NB; i++)
            for (int j = k + 1; j <= i; j++) {
                jobs[n] = (job){i == j ? 's' : 'g', k, i, j};
                wf_tg_depend(wf_tg_emplace(g, run_job, &jobs[n++]), 3,
                             (wf_tg_dep[]){WF_TG_IN(&EL(i, k, 0, 0)),
                                           WF_TG_IN(&EL(j, k, 0, 0)),
                                           WF_TG_INOUT(&EL(i, j, 0, 0))});
            }
    }
    int err = wf_tg_run(g); /* also any error of the building */
    wf_taskgraph_destroy(g);
    if (err != 0) {
        fprintf(stderr, "taskgraph_cholesky: %s\n", wf_strerror(err));
        return 1;
    }
    double worst = 0; /* max |L * L^T - A| over the lower triangle */
    for (int r = 0; r < N; r++)
        for (int c = 0; c <= r; c++) {
            double v = 0;
            for (int m = 0; m <= c; m++)
                v += L[r][m] * L[c][m];
            if (fabs(v - A[r][c]) > worst)
                worst = fabs(v - A[r][c]);
        }
    printf("blocked Cholesky of a %dx%d matrix in %dx%d blocks: %d tasks, "
           "max |L*L^T - A| %s 1e-9\n",
           N, N, NB, NB, n, worst < 1e-9 ? "<" : ">=");
    return worst >= 1e-9;
}
