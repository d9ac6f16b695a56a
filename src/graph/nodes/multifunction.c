/* SPDX-License-Identifier: Apache-2.0 */
/* multifunction_node: a function node whose body sends to any of its
 * output ports itself (wf_output_put), any number of messages per input.
 * It runs its bodies as a function node does (function.c). */
#include "internal/graph/edge.h"
#include "internal/graph/function.h"
#include "internal/graph/node.h"
#include "internal/graph/runtime.h"

static void call_multifunction(fn_node *f, runner *r, const void *in)
{
    (void)r;
    bool traced = wf__body_begin(&f->base);
    int rc = f->body.multi(in, &f->ports, f->ctx);
    wf__body_end(&f->base, rc, traced);
}

int wf_multifunction_node_create(wf_node **out, wf_graph *g,
                                 const wf_multifunction_config *cfg)
{
    if (cfg == NULL || cfg->body == NULL || cfg->out_ports == 0 ||
        cfg->out_sizes == NULL)
        return WF_EINVAL;
    fn_spec spec = {&wf__multifunction_ops,
                    cfg->in_size,
                    0,
                    cfg->out_ports,
                    cfg->out_sizes,
                    cfg->concurrency,
                    cfg->policy,
                    call_multifunction,
                    cfg->ctx};
    fn_node *f;
    int err = wf__fn_create(out, g, &spec, &f);
    if (err)
        return err;
    f->body.multi = cfg->body;
    return wf__fn_publish(out, f);
}

int wf_output_put(wf_output_ports *ports, unsigned i, const void *msg)
{
    if (ports == NULL)
        return WF_EINVAL;
    wf_node *n = &ports->node->base;
    if (i >= n->n_out)
        return WF_ENOPORT;
    if (msg == NULL && n->out[i].size != WF_SIGNAL) /* a signal has no data */
        return WF_EINVAL;
    return wf__push_broadcast(&n->out[i], msg) > 0;
}
