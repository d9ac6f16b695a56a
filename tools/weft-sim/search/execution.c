/* SPDX-License-Identifier: Apache-2.0 */
/* One execution of a job (execution.h). */
#include "search/execution.h"
#include "core/machine.h"
#include "core/threads.h"
#include "search/checks.h"

int explore_start(const explore_job *job)
{
    S.reuse = job->reuse;
    if (sim_reset(job->algo, job->model, job->nthreads, job->capacity) != 0)
        return -1;
    job->setup(job);
    sim_start_ops();
    return 0;
}

int explore_replay(const explore_job *job, const int *sched, int n,
                   bool final_check)
{
    if (explore_start(job) != 0)
        return -1;
    int d = 0;
    sim_step_info info;
    for (; d < n && !S.fail[0]; d++) {
        if (!sim_proc_enabled(sched[d]))
            break;
        sim_step(sched[d], &info);
    }
    if (final_check && !S.fail[0] && sim_all_done() && job->deque_checks)
        explore_final_check();
    return d;
}
