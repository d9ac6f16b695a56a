/* SPDX-License-Identifier: Apache-2.0 */
/* A set of strings (strset.h): outcome sets are small, so a list. */
#include <stdlib.h>
#include <string.h>

#include "search/strset.h"

struct strset {
    char **v;
    int n, cap;
};

strset_t *strset_new(void)
{
    return calloc(1, sizeof(strset_t));
}

void strset_put(strset_t *s, const char *x)
{
    for (int i = 0; i < s->n; i++) /* outcome sets are small */
        if (strcmp(s->v[i], x) == 0)
            return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, sizeof(char *) * (size_t)s->cap);
    }
    s->v[s->n++] = strdup(x);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int strset_take(strset_t *s, char ***out)
{
    int n = s->n;
    if (n)
        qsort(s->v, (size_t)n, sizeof(char *), cmp_str);
    *out = n ? s->v : NULL;
    if (!n)
        free(s->v);
    free(s);
    return n;
}
