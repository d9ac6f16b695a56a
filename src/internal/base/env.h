/* SPDX-License-Identifier: Apache-2.0 */
/* What the environment says (src/base/env.c), for every component.
 * Never installed. */
#ifndef WF_INTERNAL_BASE_ENV_H
#define WF_INTERNAL_BASE_ENV_H

/* An unsigned environment variable: dflt when unset or empty, and (with a
 * warning on stderr, once) when it is not a decimal number from 0 to max. */
unsigned wf__env_uint(const char *name, unsigned dflt, unsigned max);

/* The CPUs this process may use: its affinity, and its cgroup's quota. */
unsigned wf__available_cpus(void);

#endif /* WF_INTERNAL_BASE_ENV_H */
