/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's state `S`, the first failure of an execution, and the
 * names the log gives threads, models, orders and task values. */
#include <stdarg.h>
#include <string.h>

#include "core/sim.h"

sim_state S;

void sim_failf(const char *fmt, ...)
{
    if (S.fail[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.fail, sizeof S.fail, fmt, ap);
    va_end(ap);
}

const char *sim_thread_name(int t)
{
    static const char *const n[SIM_MAX_THREADS] = {"owner", "T1", "T2", "T3",
                                                   "T4"};
    if (t > 0 && t == S.handoff_thread)
        return "owner2";
    return t >= 0 && t < SIM_MAX_THREADS ? n[t] : "?";
}

static const char *const model_names[MODEL_COUNT] = {
    "sc", "tso", "pso", "arm", "c11", "c20", "c11std"};

const char *sim_model_name(int m)
{
    return m >= 0 && m < MODEL_COUNT ? model_names[m] : "?";
}

int sim_model_parse(const char *s)
{
    for (int m = 0; s && m < MODEL_COUNT; m++)
        if (strcmp(s, model_names[m]) == 0)
            return m;
    return -1;
}

static const char *const order_names[] = {"relaxed", "acquire", "release",
                                          "acq_rel", "seq_cst", "plain"};

const char *sim_order_name(int o)
{
    return o >= 0 && o <= WF_SIM_PLAIN ? order_names[o] : "?";
}

int sim_value_index(const void *v)
{
    uintptr_t x = (uintptr_t)v;
    return x >= 0xA0 && x < 0xA0 + SIM_MAX_VALUES ? (int)(x - 0xA0) : -1;
}

const char *sim_value_name(const void *v, char buf[24])
{
    int i = sim_value_index(v);
    if (v == NULL)
        return "null";
    if (i >= 0)
        snprintf(buf, 24, "%c", 'A' + i);
    else
        snprintf(buf, 24, "#%lx", (unsigned long)(uintptr_t)v);
    return buf;
}

int sim_op_value(const sim_op *op, int i)
{
    return i == 0 ? op->value : op->more[i - 1];
}
