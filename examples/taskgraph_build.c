/* SPDX-License-Identifier: Apache-2.0 */
/* taskgraph_build: a build of 30 targets, each after the targets it
 * depends on, run twice on the default pool (weft/taskgraph.h).
 *
 *   taskgraph_build            prints what it checked
 *
 * Target i > 0 depends on targets i / 2 and i / 3 (a made-up project
 * whose dependencies a build tool would read from its files). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <weft.h>

#define TARGETS 30

static _Atomic int times[TARGETS]; /* how often each target was built */
static _Atomic int early;          /* builds that came before a dep's */

/* Build target i: its dependencies must have been built once more than
 * it has, this run's build of theirs included. */
static int build(void *ctx)
{
    int i = (int)(intptr_t)ctx;
    int mine = atomic_load(&times[i]) + 1;
    if (i > 0 && (atomic_load(&times[i / 2]) < mine ||
                  atomic_load(&times[i / 3]) < mine))
        atomic_fetch_add(&early, 1);
    atomic_store(&times[i], mine);
    return 0;
}

int main(void)
{
    wf_taskgraph *g;
    if (wf_taskgraph_create(&g, NULL) != 0)
        return 1;
    wf_tg_task *t[TARGETS];
    for (int i = 0; i < TARGETS; i++)
        t[i] = wf_tg_emplace(g, build, (void *)(intptr_t)i);
    for (int i = 1; i < TARGETS; i++) {
        wf_tg_precede(t[i / 2], t[i]);
        if (i / 3 != i / 2)
            wf_tg_precede(t[i / 3], t[i]);
    }
    int err = wf_tg_run_n(g, 2); /* also any error of the building */
    wf_taskgraph_destroy(g);
    if (err != 0) {
        fprintf(stderr, "taskgraph_build: %s\n", wf_strerror(err));
        return 1;
    }
    int all_twice = 1;
    for (int i = 0; i < TARGETS; i++)
        all_twice &= atomic_load(&times[i]) == 2;
    printf("%d targets built %s, each after its dependencies: %s\n", TARGETS,
           all_twice ? "twice" : "not twice",
           atomic_load(&early) == 0 ? "yes" : "no");
    return !all_twice || atomic_load(&early) != 0;
}
