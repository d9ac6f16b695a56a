/* SPDX-License-Identifier: Apache-2.0 */
/* Finding work (src/pool/steal.c): a steal from one victim, a look for
 * work in the order of a worker's loop, and the test a parking thread
 * makes.  Never installed. */
#ifndef WF_INTERNAL_POOL_STEAL_H
#define WF_INTERNAL_POOL_STEAL_H

#include "internal/pool/types.h"

/* Poll victim's deque once; on EMPTY, ask the victim to publish (P2). */
wf_task *wf__steal(wf__worker *w, wf__worker *victim);
/* Any work a parking worker could take?  (After the fence of P3.) */
bool wf__work_visible(wf_pool *pool);
/* One look for work on w, in the order of its loop: own tasks (answering
 * a thief's request first, P2), submissions, then one pass of steals from
 * a random victim.  With `ask`, every victim is polled and one found
 * empty is asked to publish (P2); without, only deques that look
 * non-empty are polled: a look that only reads the victims' lines, for a
 * thread whose victims publish without being asked (pipeline tokens).
 * Returns what it ran: nothing, a task, or a detached task it stole (the
 * worker loop's idle policy tells these apart). */
enum { WF__RAN_NONE, WF__RAN_TASK, WF__RAN_STOLEN_DETACHED };
int wf__find_and_run(wf__worker *w, bool ask);

#endif /* WF_INTERNAL_POOL_STEAL_H */
