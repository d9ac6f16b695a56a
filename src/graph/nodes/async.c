/* SPDX-License-Identifier: Apache-2.0 */
/* async_node: a function node whose body hands its input to work outside
 * the graph (another thread, an I/O completion), which sends the result
 * through the node's gateway.  The gateway's reserve_wait / release_wait
 * keep the graph's work count open until the outside work is done, so
 * wf_graph_wait_for_all waits for it (rule G5).  It runs its bodies as a
 * function node does (function.c). */
#include "internal/graph/edge.h"
#include "internal/graph/function.h"
#include "internal/graph/node.h"
#include "internal/graph/pending.h"
#include "internal/graph/runtime.h"

static void call_async(fn_node *f, runner *r, const void *in)
{
    (void)r;
    bool traced = wf__body_begin(&f->base);
    int rc = f->body.async(in, &f->gw, f->ctx);
    wf__body_end(&f->base, rc, traced);
}

int wf_async_node_create(wf_node **out, wf_graph *g, const wf_async_config *cfg)
{
    if (cfg == NULL || cfg->body == NULL || cfg->out_size == 0)
        return WF_EINVAL;
    fn_spec spec = {&wf__async_ops, cfg->in_size,     0,           1,
                    &cfg->out_size, cfg->concurrency, cfg->policy, call_async,
                    cfg->ctx};
    fn_node *f;
    int err = wf__fn_create(out, g, &spec, &f);
    if (err)
        return err;
    f->body.async = cfg->body;
    return wf__fn_publish(out, f);
}

wf_gateway *wf_async_node_gateway(wf_node *n)
{
    return n && n->ops == &wf__async_ops ? &((fn_node *)n)->gw : NULL;
}

int wf_gateway_reserve_wait(wf_gateway *gw)
{
    if (gw == NULL)
        return WF_EINVAL;
    wf_graph *g = wf__node_graph(&gw->node->base);
    if (g == NULL)
        return WF_EDESTROYED;
    /* Count first, so a release_wait that sees it finds the graph held. */
    wf__graph_hold(g);
    /* pending.h's step, a release add that pairs with the acquire of the
     * take in release_wait: a release that takes this reservation comes
     * after the hold in pending's order, so the count never drops below
     * the work in flight.  The waiter sees the outside work's effects
     * through the graph's own counter (G5). */
    wf__gateway_reserve(&gw->waits);
    return 0;
}

int wf_gateway_release_wait(wf_gateway *gw)
{
    if (gw == NULL)
        return WF_EINVAL;
    /* pending.h's step, a CAS whose acquire pairs with the release add
     * in reserve_wait (G5). */
    if (!wf__gateway_take(&gw->waits))
        return WF_ENOENT;
    wf_graph *g = wf__node_graph(&gw->node->base);
    if (g)
        wf__graph_release(g);
    return 0;
}

int wf_gateway_try_put(wf_gateway *gw, const void *msg)
{
    if (gw == NULL || msg == NULL)
        return WF_EINVAL;
    wf_node *n = &gw->node->base;
    wf_graph *g = wf__node_graph(n);
    if (g == NULL)
        return WF_EDESTROYED;
    if (wf_graph_is_cancelled(g))
        return WF_ECANCELED;
    return wf__push_broadcast(&n->out[0], msg) > 0;
}
