/* SPDX-License-Identifier: Apache-2.0 */
/* An endpoint table: open addressing on (peer, channel), at most half
 * full.  The context's `lock` guards each. */
#include <stdlib.h>
#include <string.h>

#include "internal/mpi/table.h"
#include "weft/common.h"

/* Keys are (peer, channel), both non-negative ints. */
static uint64_t table_key(int peer, int channel)
{
    return ((uint64_t)(uint32_t)peer << 32 | (uint32_t)channel) +
           1; /* 0: empty */
}

static size_t table_slot(uint64_t key, size_t cap)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9u;
    key ^= key >> 32;
    return (size_t)key & (cap - 1);
}

void *wf__mpi_table_get(const wf__mpi_table *t, int peer, int channel)
{
    if (t->cap == 0)
        return NULL;
    uint64_t key = table_key(peer, channel);
    for (size_t i = table_slot(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (t->keys[i] == key)
            return t->vals[i];
        if (t->keys[i] == 0)
            return NULL;
    }
}

static int table_grow(wf__mpi_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 16;
    uint64_t *keys = calloc(cap, sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return WF_ENOMEM;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->keys[i] == 0)
            continue;
        size_t j = table_slot(t->keys[i], cap);
        while (keys[j] != 0)
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        vals[j] = t->vals[i];
    }
    free(t->keys);
    free(t->vals);
    t->keys = keys;
    t->vals = vals;
    t->cap = cap;
    return 0;
}

int wf__mpi_table_put(wf__mpi_table *t, int peer, int channel, void *v)
{
    if (wf__mpi_table_get(t, peer, channel) != NULL)
        return WF_EEXIST;
    if ((t->n + 1) * 2 > t->cap) { /* at most half full */
        int err = table_grow(t);
        if (err)
            return err;
    }
    uint64_t key = table_key(peer, channel);
    size_t i = table_slot(key, t->cap);
    while (t->keys[i] != 0)
        i = (i + 1) & (t->cap - 1);
    t->keys[i] = key;
    t->vals[i] = v;
    t->n++;
    return 0;
}

void wf__mpi_table_free(wf__mpi_table *t)
{
    free(t->keys);
    free(t->vals);
    memset(t, 0, sizeof *t);
}
