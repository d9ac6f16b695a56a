/* SPDX-License-Identifier: Apache-2.0 */
/* A counting, failure-injecting wf_allocator for the tests.
 *
 * It counts live blocks and bytes, checks that every free() is given the
 * size that was allocated (the wf_allocator contract passes the size back),
 * catches double and foreign frees with a magic word, and fails allocations
 * on demand:
 *   TA_NEVER   never fails
 *   TA_ONE     only the call with index fail_at (0-based) fails
 *   TA_FROM    every call from index fail_at on fails
 * All fields are atomic: pools allocate from worker threads too. */
#ifndef WEFT_TEST_ALLOC_H
#define WEFT_TEST_ALLOC_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <weft.h>

#include "check.h"

enum { TA_NEVER, TA_ONE, TA_FROM };

typedef struct test_alloc {
    _Atomic long live_blocks, live_bytes;
    _Atomic long calls;    /* allocation attempts so far          */
    _Atomic long failures; /* attempts that returned NULL          */
    _Atomic long bad_frees;
    _Atomic long fail_at;
    _Atomic int mode;
    wf_allocator iface;
} test_alloc;

#define TA_MAGIC 0x77656674u /* "weft" */
#define TA_FREED 0xdeadbeefu

typedef struct {
    size_t size;
    size_t magic;
} ta_header; /* 16 bytes: keeps malloc's 16-byte alignment */

static void *ta_alloc(size_t size, void *ctx)
{
    test_alloc *a = ctx;
    long n = atomic_fetch_add(&a->calls, 1);
    int mode = atomic_load(&a->mode);
    long k = atomic_load(&a->fail_at);
    if ((mode == TA_ONE && n == k) || (mode == TA_FROM && n >= k)) {
        atomic_fetch_add(&a->failures, 1);
        return NULL;
    }
    ta_header *h = malloc(sizeof *h + size);
    if (h == NULL)
        return NULL;
    h->size = size;
    h->magic = TA_MAGIC;
    atomic_fetch_add(&a->live_blocks, 1);
    atomic_fetch_add(&a->live_bytes, (long)size);
    return h + 1;
}

static void ta_free(void *p, size_t size, void *ctx)
{
    test_alloc *a = ctx;
    if (p == NULL)
        return;
    ta_header *h = (ta_header *)p - 1;
    if (h->magic != TA_MAGIC || h->size != size) {
        fprintf(stderr,
                "test_alloc: bad free of %p: size %zu given, %zu "
                "allocated, magic %#zx\n",
                p, size, h->size, h->magic);
        atomic_fetch_add(&a->bad_frees, 1);
        return; /* do not touch what may not be ours */
    }
    h->magic = TA_FREED;
    atomic_fetch_sub(&a->live_blocks, 1);
    atomic_fetch_sub(&a->live_bytes, (long)size);
    free(h);
}

/* Reset counters and set the failure rule. */
static inline void ta_init(test_alloc *a, int mode, long fail_at)
{
    atomic_store(&a->live_blocks, 0);
    atomic_store(&a->live_bytes, 0);
    atomic_store(&a->calls, 0);
    atomic_store(&a->failures, 0);
    atomic_store(&a->bad_frees, 0);
    atomic_store(&a->fail_at, fail_at);
    atomic_store(&a->mode, mode);
    a->iface = (wf_allocator){.alloc = ta_alloc, .free = ta_free, .ctx = a};
}

/* From now on every allocation fails (or, with on == 0, none does). */
static inline void ta_fail_from_now(test_alloc *a, int on)
{
    atomic_store(&a->fail_at, atomic_load(&a->calls));
    atomic_store(&a->mode, on ? TA_FROM : TA_NEVER);
}

/* Nothing allocated through a is still live, and every free matched. */
static inline void ta_check_no_leak(test_alloc *a, const char *when)
{
    CHECK_MSG(atomic_load(&a->live_blocks) == 0 &&
                  atomic_load(&a->live_bytes) == 0,
              "%s: %ld blocks / %ld bytes still allocated", when,
              atomic_load(&a->live_blocks), atomic_load(&a->live_bytes));
    CHECK_MSG(atomic_load(&a->bad_frees) == 0, "%s: bad frees", when);
}

/* A pool with these settings; the test fails if it cannot be created. */
static inline wf_pool *make_pool(unsigned threads, size_t cap,
                                 const wf_allocator *alloc)
{
    wf_pool_config cfg = WF_POOL_CONFIG_INIT;
    cfg.threads = threads;
    cfg.deque_capacity = cap;
    cfg.alloc = alloc;
    wf_pool *p = NULL;
    CHECK_OK(wf_pool_create(&p, &cfg));
    return p;
}

#endif /* WEFT_TEST_ALLOC_H */
