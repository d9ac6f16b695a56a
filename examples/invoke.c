/* SPDX-License-Identifier: Apache-2.0 */
/* invoke: run a few unrelated functions in parallel with
 * wf_parallel_invoke, and wait for all of them.
 *
 * Each function gets its own context pointer; here each fills in one field
 * of a result struct, so no two functions write the same memory.
 *
 * Build: cc -O2 invoke.c $(pkg-config --cflags --libs weft)
 * Run:   ./invoke    prints  fib(27) = 196418, primes below 200000 = 17984,
 *                            longest Collatz chain below 100000 starts at
 *                            77031 (ok) */
#include <stdio.h>
#include <weft.h>

static void fib(void *ctx)
{
    long a = 0, b = 1;
    for (int i = 0; i < 27; i++) {
        long c = a + b;
        a = b;
        b = c;
    }
    *(long *)ctx = a;
}

static void count_primes(void *ctx)
{
    long count = 0;
    for (long n = 2; n < 200000; n++) {
        int prime = 1;
        for (long d = 2; d * d <= n && prime; d++)
            prime = n % d != 0;
        count += prime;
    }
    *(long *)ctx = count;
}

static void longest_collatz(void *ctx)
{
    long best = 1, best_len = 0;
    for (long start = 1; start < 100000; start++) {
        long len = 0;
        for (unsigned long x = (unsigned long)start; x != 1; len++)
            x = x % 2 ? 3 * x + 1 : x / 2;
        if (len > best_len) {
            best_len = len;
            best = start;
        }
    }
    *(long *)ctx = best;
}

int main(void)
{
    wf_pool *pool = wf_pool_default();
    if (pool == NULL) {
        fprintf(stderr, "no default pool\n");
        return 1;
    }
    long fib27 = 0, primes = 0, collatz = 0;
    const wf_invoke_fn fns[] = {fib, count_primes, longest_collatz};
    void *const ctxs[] = {&fib27, &primes, &collatz};
    /* Returns when all three have returned.  ctxs may be NULL when the
     * functions need no argument. */
    int err = wf_parallel_invoke(pool, 3, fns, ctxs);
    if (err) {
        fprintf(stderr, "wf_parallel_invoke: %s\n", wf_strerror(err));
        return 1;
    }
    int ok = fib27 == 196418 && primes == 17984 && collatz == 77031;
    printf("fib(27) = %ld, primes below 200000 = %ld, longest Collatz chain "
           "below 100000 starts at %ld (%s)\n",
           fib27, primes, collatz, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
