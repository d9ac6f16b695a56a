/* SPDX-License-Identifier: Apache-2.0 */
/* pipeline: read a file in chunks, transform them in parallel, write them
 * in order (wf_parallel_pipeline, docs/pipeline.md).
 *
 *   read (serial, in order) -> upper (parallel) -> write (serial, in order)
 *
 * `read` fills one of TOKENS chunk buffers from the input file, `upper`
 * uppercases the chunk and hashes it, `write` appends it to the output
 * file and folds the chunk hashes, in file order, into one checksum.  At
 * most TOKENS chunks are in flight and the last stage is in order, so when
 * chunk i is read, chunk i - TOKENS has been written: buffer i % TOKENS
 * is free, and nothing is allocated per chunk.
 *
 *   example_pipeline [INPUT [OUTPUT]]
 *
 * Without INPUT it writes a text of its own to example_pipeline.txt and
 * uses that; OUTPUT defaults to INPUT.upper.  It then checks the output
 * file and the checksum against a plain sequential pass and prints
 *   example_pipeline.txt: 788847 bytes in 49 chunks, uppercased in
 *   parallel, written in order: checksum 107dd85b5ed21ce7 (ok)
 * (one line; exit status 1 if anything differs, 2 on an I/O error).
 * WEFT_NUM_THREADS sets the threads of the default pool it runs on.
 *
 * Build: cc -O2 pipeline.c $(pkg-config --cflags --libs weft) */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define TOKENS 16
#define CHUNK 16384
#define ERR_WRITE (-100) /* our own error code: the output could not grow */

typedef struct {
    char data[CHUNK];
    size_t len;
    uint64_t hash; /* FNV-1a of the uppercased bytes */
} chunk;

typedef struct {
    FILE *in, *out;
    chunk buf[TOKENS];
    size_t chunks, bytes;
    uint64_t checksum;
} job;

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
    return h;
}

static uint64_t fold(uint64_t sum, uint64_t h)
{
    return (sum ^ h) * 0x100000001b3u + 1;
}

static void upper_bytes(char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)toupper((unsigned char)p[i]);
}

/* ---- the three stages ---------------------------------------------------- */

static void *read_chunk(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)item;
    job *j = ctx;
    chunk *c = &j->buf[j->chunks % TOKENS]; /* free: see the top */
    c->len = fread(c->data, 1, CHUNK, j->in);
    if (c->len == 0) {
        wf_pipeline_stop(ctl); /* end of input */
        return NULL;
    }
    j->chunks++;
    return c;
}

static void *upper_chunk(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    (void)ctx, (void)ctl;
    chunk *c = item;
    upper_bytes(c->data, c->len);
    c->hash = fnv1a(0xcbf29ce484222325u, c->data, c->len);
    return c;
}

static void *write_chunk(void *item, void *ctx, wf_pipeline_ctl *ctl)
{
    job *j = ctx;
    chunk *c = item;
    if (fwrite(c->data, 1, c->len, j->out) != c->len)
        wf_pipeline_fail(ctl, ERR_WRITE); /* stop, and say why */
    j->bytes += c->len;
    j->checksum = fold(j->checksum, c->hash);
    return NULL;
}

/* ---- around it: input, and the sequential check -------------------------- */

static int make_input(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    static const char *const words[] = {
        "the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog"};
    for (int line = 0; line < 20000; line++) {
        fprintf(f, "line %d:", line);
        for (int w = 0; w < 1 + line % 11; w++)
            fprintf(f, " %s", words[(line * 7 + w) % 9]);
        fputc('\n', f);
    }
    return fclose(f);
}

/* Read `path` again and compare: the output must be its uppercase copy,
 * and the checksum that of the same chunks hashed one after another. */
static int check(const char *in_path, const char *out_path, const job *j)
{
    FILE *in = fopen(in_path, "rb"), *out = fopen(out_path, "rb");
    static char a[CHUNK], b[CHUNK];
    uint64_t sum = 0;
    size_t n, bytes = 0;
    int ok = in != NULL && out != NULL;
    while (ok && (n = fread(a, 1, CHUNK, in)) > 0) {
        upper_bytes(a, n);
        ok = fread(b, 1, n, out) == n && memcmp(a, b, n) == 0;
        sum = fold(sum, fnv1a(0xcbf29ce484222325u, a, n));
        bytes += n;
    }
    ok = ok && fread(b, 1, 1, out) == 0; /* nothing more in the output */
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    return ok && sum == j->checksum && bytes == j->bytes ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *in_path = argc > 1 ? argv[1] : "example_pipeline.txt";
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s", argc > 2 ? argv[2] : "");
    if (argc <= 2)
        snprintf(out_path, sizeof out_path, "%s.upper", in_path);
    if (argc <= 1 && make_input(in_path) != 0) {
        perror(in_path);
        return 2;
    }
    static job j; /* TOKENS chunk buffers: too big for the stack */
    j.in = fopen(in_path, "rb");
    j.out = fopen(out_path, "wb");
    if (j.in == NULL || j.out == NULL) {
        perror(j.in == NULL ? in_path : out_path);
        return 2;
    }
    wf_stage stages[] = {{WF_STAGE_SERIAL_IN_ORDER, read_chunk, &j},
                         {WF_STAGE_PARALLEL, upper_chunk, NULL},
                         {WF_STAGE_SERIAL_IN_ORDER, write_chunk, &j}};
    int err = wf_parallel_pipeline(wf_pool_default(), TOKENS, stages, 3);
    fclose(j.in);
    if (fclose(j.out) != 0 && err == 0)
        err = ERR_WRITE;
    if (err != 0) {
        fprintf(stderr, "%s: %s\n", err == ERR_WRITE ? out_path : in_path,
                err == ERR_WRITE ? "write error" : wf_strerror(err));
        return 2;
    }
    int ok = check(in_path, out_path, &j) == 0;
    printf("%s: %zu bytes in %zu chunks, uppercased in parallel, written in "
           "order: checksum %016" PRIx64 " (%s)\n",
           in_path, j.bytes, j.chunks, j.checksum, ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}
