/* What the environment says: CPUs this process may use, WEFT_* variables. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal/pool.h"

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

/* An unsigned environment variable, or dflt when unset or not a number. */
unsigned wf__env_uint(const char *name, unsigned dflt)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return dflt;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return *end == '\0' && v <= 0xffffffffUL ? (unsigned)v : dflt;
}
