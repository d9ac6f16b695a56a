/* SPDX-License-Identifier: Apache-2.0 */
/* What the environment says: CPUs this process may use, WEFT_* variables. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/base/env.h"

/* CPUs allowed by the cgroup's CPU quota, or 0 when unlimited/unknown.
 * cgroup v2: "quota period" or "max period" in cpu.max; v1: two files. */
static unsigned cgroup_cpus(void)
{
    long long quota = -1, period = 0;
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char q[32];
        if (fscanf(f, "%31s %lld", q, &period) == 2 && q[0] != 'm')
            quota = atoll(q);
        fclose(f);
    } else if ((f = fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r"))) {
        if (fscanf(f, "%lld", &quota) != 1)
            quota = -1;
        fclose(f);
        if ((f = fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r"))) {
            if (fscanf(f, "%lld", &period) != 1)
                period = 0;
            fclose(f);
        }
    }
    if (quota <= 0 || period <= 0)
        return 0;
    return (unsigned)((quota + period - 1) / period);
}

unsigned wf__available_cpus(void)
{
    unsigned n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = (unsigned)CPU_COUNT(&set);
    if (n == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (unsigned)c : 1;
    }
    unsigned q = cgroup_cpus();
    if (q > 0 && q < n)
        n = q;
    return n;
}

/* Warn once per variable: a process that makes many pools reads the
 * environment for each. */
static void warn_once(const char *name, const char *value, unsigned max)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const char *warned[8];
    pthread_mutex_lock(&lock);
    bool seen = false;
    size_t i = 0;
    for (; i < sizeof warned / sizeof warned[0] && warned[i]; i++)
        seen |= strcmp(warned[i], name) == 0;
    if (!seen && i < sizeof warned / sizeof warned[0])
        warned[i] = name;
    pthread_mutex_unlock(&lock);
    if (!seen)
        fprintf(stderr,
                "weft: %s=%s ignored: not a whole number from 0 to %u\n", name,
                value, max);
}

/* An unsigned environment variable: dflt when unset or empty, and (with a
 * warning on stderr, once) when it is not a decimal number from 0 to max. */
unsigned wf__env_uint(const char *name, unsigned dflt, unsigned max)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return dflt;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    /* strtoul takes "-3" as a huge value, and spaces before it. */
    if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v > max) {
        warn_once(name, s, max);
        return dflt;
    }
    return (unsigned)v;
}
