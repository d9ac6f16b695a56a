/* SPDX-License-Identifier: Apache-2.0 */
/* The list of algorithms weft-sim can load. */
#include <string.h>

#include "algos/algos.h"

#define MAX_ALGOS 128
static const sim_algo *list[MAX_ALGOS + 1];

static void build(void)
{
    if (list[0])
        return;
    int n = 0;
    list[n++] = &sim_algo_weft;
    list[n++] = &sim_algo_fjp;
    list[n++] = &sim_algo_chaselev;
    for (const sim_algo *m = sim_weft_mutants; m->name && n < MAX_ALGOS; m++)
        list[n++] = m;
    list[n] = NULL;
}

const sim_algo *const *sim_algo_list(void)
{
    build();
    return list;
}

const sim_algo *sim_algo_find(const char *name)
{
    build();
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i]->name, name) == 0)
            return list[i];
    return NULL;
}
