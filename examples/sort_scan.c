/* SPDX-License-Identifier: Apache-2.0 */
/* sort_scan: sort a million orders by price, then give each the running
 * total of the quantities up to it, both in parallel.
 *
 * WF_SORT_DEFINE makes a sort for one element type whose comparison is
 * compiled inline (wf_parallel_sort takes a comparison function for any
 * type).  wf_parallel_scan calls the body on blocks twice: a first pass
 * that only adds up, and a final pass that also writes the outputs.
 *
 * Build: cc -O2 sort_scan.c $(pkg-config --cflags --libs weft)
 * Run:   ./sort_scan    prints  sorted 1000000 orders by price ... (ok) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define N 1000000u

typedef struct {
    uint32_t price, qty, id;
} order;

WF_SORT_DEFINE(sort_by_price, order, a.price < b.price)

typedef struct {
    const order *orders;
    uint64_t *running; /* running[i] = qty of orders 0..i */
} totals;

static void add_qty(size_t begin, size_t end, void *acc, bool final, void *ctx)
{
    const totals *t = ctx;
    uint64_t sum = *(uint64_t *)acc;
    for (size_t i = begin; i < end; i++) {
        sum += t->orders[i].qty;
        if (final)
            t->running[i] = sum; /* inclusive: after adding order i */
    }
    *(uint64_t *)acc = sum;
}

static void add(void *left, const void *right, void *ctx)
{
    (void)ctx;
    *(uint64_t *)left += *(const uint64_t *)right;
}

int main(void)
{
    wf_pool *pool = wf_pool_default();
    order *orders = malloc(N * sizeof *orders);
    uint64_t *running = malloc(N * sizeof *running);
    if (pool == NULL || orders == NULL || running == NULL)
        return 1;
    for (uint32_t i = 0; i < N; i++)
        orders[i] = (order){(i * 2654435761u) % 1000, i % 100 + 1, i};

    int err = sort_by_price(pool, orders, N);
    totals t = {orders, running};
    uint64_t total = 0, zero = 0;
    if (err == 0)
        err = wf_parallel_scan(pool, 0, N, 0, &total, sizeof total, &zero,
                               add_qty, add, &t);
    if (err) {
        fprintf(stderr, "sort_scan: %s\n", wf_strerror(err));
        return 1;
    }
    /* Check: prices ascending, equal prices in id order (the sort is
     * stable), running totals as a plain loop computes them. */
    int ok = 1;
    uint64_t sum = 0;
    for (size_t i = 0; i < N; i++) {
        if (i > 0)
            ok &= orders[i - 1].price < orders[i].price ||
                  (orders[i - 1].price == orders[i].price &&
                   orders[i - 1].id < orders[i].id);
        sum += orders[i].qty;
        ok &= running[i] == sum;
    }
    printf("sorted %u orders by price (stable), running total of "
           "quantities %llu (%s)\n",
           N, (unsigned long long)total, ok && total == sum ? "ok" : "WRONG");
    free(orders);
    free(running);
    return !ok;
}
