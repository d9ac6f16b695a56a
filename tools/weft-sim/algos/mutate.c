/* SPDX-License-Identifier: Apache-2.0 */
/* Ad-hoc mutants (--mutate): an override written as text, and back. */
#include <string.h>

#include "algos/algos.h"

static const char *const kind_names[] = {"load", "store", "cas",
                                         "xchg", "fadd",  "fence"};

static int name_index(const char *s, size_t len, const char *const *names,
                      int n)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0)
            return i;
    return -1;
}

static int order_of(const char *s, size_t len)
{
    for (int o = WF_SIM_RELAXED; o <= WF_SIM_SEQ_CST; o++)
        if (strlen(sim_order_name(o)) == len &&
            strncmp(s, sim_order_name(o), len) == 0)
            return o;
    return -1;
}

void sim_override_text(const sim_override *o, char *out, size_t n)
{
    snprintf(out, n, "%s %s %s \"%s\" -> %s", o->func, kind_names[o->kind],
             sim_order_name(o->order), o->expr ? o->expr : "*",
             o->new_order < 0 ? "removed" : sim_order_name(o->new_order));
}

int sim_override_parse(const char *s, sim_override *o, char *err, size_t n)
{
    const char *f[5];
    size_t len[5];
    for (int i = 0; i < 5; i++) {
        f[i] = s;
        len[i] = strcspn(s, ":");
        if ((i < 4 && s[len[i]] != ':') || (i == 4 && s[len[i]]) ||
            len[i] == 0) {
            snprintf(err, n, "mutate: FUNC:KIND:ORDER:TEXT:NEW, not '%s'",
                     f[0]);
            return -1;
        }
        s += len[i] + 1;
    }
    o->func = strndup(f[0], len[0]);
    o->kind = name_index(f[1], len[1], kind_names, 6);
    o->order = order_of(f[2], len[2]);
    o->expr = len[3] == 1 && f[3][0] == '*' ? NULL : strndup(f[3], len[3]);
    o->new_order = len[4] == 4 && strncmp(f[4], "skip", 4) == 0
                       ? -1
                       : order_of(f[4], len[4]);
    if (o->kind < 0 || o->order < 0 ||
        (o->new_order < 0 && strncmp(f[4], "skip", 4) != 0)) {
        snprintf(err, n,
                 "mutate: kind load|store|cas|xchg|fadd|fence, "
                 "orders relaxed|acquire|release|acq_rel|seq_cst "
                 "(new: also skip)");
        return -1;
    }
    return 0;
}
