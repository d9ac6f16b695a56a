/* SPDX-License-Identifier: Apache-2.0 */
/* The explorer's entry point (explore.h): a job runs the search of its
 * model, over interleavings or over execution graphs. */
#include <stdlib.h>

#include "search/dpor.h"
#include "search/explore.h"
#include "search/wmm_search.h"

int explore_run(const explore_job *job, explore_result *res)
{
    if (SIM_GRAPH_MODEL(job->model))
        return wmm_run(job, res);
    return explore_dpor(job, res);
}

void explore_result_free(explore_result *res)
{
    for (int i = 0; i < res->noutcomes; i++)
        free(res->outcomes[i]);
    free(res->outcomes);
    res->outcomes = NULL;
    res->noutcomes = 0;
    free(res->graph);
    res->graph = NULL;
}
