/* SPDX-License-Identifier: Apache-2.0 */
/* Running one task on a worker (src/pool/runner.c): its call, its trace
 * span, its completion and its count.  Never installed. */
#ifndef WF_INTERNAL_POOL_RUNNER_H
#define WF_INTERNAL_POOL_RUNNER_H

#include "internal/pool/types.h"

/* A task of another worker, stolen by w. */
void wf__run_stolen(wf__worker *w, wf_task *t);
/* A submission from outside, taken from the queue by w. */
void wf__run_root(wf__worker *w, wf_task *t);
/* One of w's own tasks. */
void wf__run_own(wf__worker *w, wf_task *t);

#endif /* WF_INTERNAL_POOL_RUNNER_H */
