/* Tuples and the nodes that take them apart or tag their parts:
 * wf_tuple_layout (the one layout of join and split nodes), wf_tuple_get,
 * split_node and indexer_node.
 *
 * Both nodes keep nothing (discarding, broadcast-push, as the spec has
 * them): a put is broadcast at once on the putting thread and always
 * accepted, like a broadcast_node's.  They have no state, so no
 * aggregator operations either. */
#include "graph/graph_impl.h"

/* ---- layout ------------------------------------------------------------------- */

/* A type's alignment divides its size, so the largest power of two that
 * divides the size (up to 16) is aligned enough for it. */
static size_t align_of_size(size_t size)
{
    size_t a = 1;
    while (a < 16 && size % (a * 2) == 0)
        a *= 2;
    return a;
}

size_t wf_tuple_layout(unsigned n, const size_t *sizes, size_t *offsets)
{
    /* With at most WF_JOIN_MAX_PORTS sizes of at most WF_MAX_MSG_SIZE, the
     * sum and its padding stay far below SIZE_MAX. */
    if (n == 0 || n > WF_JOIN_MAX_PORTS || sizes == NULL)
        return 0;
    size_t end = 0, max_align = 1;
    for (unsigned i = 0; i < n; i++) {
        if (sizes[i] == 0 || sizes[i] > WF_MAX_MSG_SIZE)
            return 0;
        size_t a = align_of_size(sizes[i]);
        size_t at = (end + a - 1) / a * a;
        if (offsets)
            offsets[i] = at;
        end = at + sizes[i];
        max_align = a > max_align ? a : max_align;
    }
    return (end + max_align - 1) / max_align * max_align;
}

/* ---- split_node --------------------------------------------------------------- */

typedef struct split_node {
    wf_node base;
    size_t offset[WF_JOIN_MAX_PORTS];
} split_node;

static int split_put(wf__port *in, const void *msg)
{
    split_node *s = (split_node *)in->node;
    for (unsigned i = 0; i < s->base.n_out; i++)
        wf__push_broadcast(&s->base.out[i], (const char *)msg + s->offset[i]);
    return WF__ACCEPT;
}

static void no_ops(wf_node *n, wf__op *op)
{
    (void)n, (void)op;
    WF_BUG("unknown operation");
}

static const wf__node_ops split_ops = {
    .kind = "split_node",
    .put = split_put,
    .handle = no_ops,
};

/* A split or indexer node's ports: a count in range and no size 0.  Sizes
 * above WF_MAX_MSG_SIZE are wf__node_create's WF_ERANGE. */
static bool bad_ports(unsigned ports, const size_t *sizes)
{
    if (ports == 0 || ports > WF_JOIN_MAX_PORTS || sizes == NULL)
        return true;
    for (unsigned i = 0; i < ports; i++)
        if (sizes[i] == 0)
            return true;
    return false;
}

int wf_split_node_create(wf_node **out, wf_graph *g, unsigned ports,
                         const size_t *msg_sizes)
{
    if (out == NULL || bad_ports(ports, msg_sizes))
        return WF_EINVAL;
    size_t offset[WF_JOIN_MAX_PORTS];
    size_t tuple_size = wf_tuple_layout(ports, msg_sizes, offset);
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(split_node), &split_ops, 1,
                              &tuple_size, ports, msg_sizes);
    if (err)
        return err;
    memcpy(((split_node *)n)->offset, offset, sizeof offset);
    wf__cold(n)->tuple_offset = ((split_node *)n)->offset; /* wf_tuple_get */
    wf__cold(n)->tuple_count = ports;
    wf__node_publish(n);
    *out = n;
    return 0;
}

void *wf_tuple_get(const void *msg, const wf_node *node, unsigned i)
{
    /* Join and split nodes set tuple_offset before they are published;
     * any other node leaves it NULL. */
    if (msg == NULL || node == NULL || i >= wf__cold(node)->tuple_count)
        return NULL;
    return (char *)msg + wf__cold(node)->tuple_offset[i];
}

/* ---- indexer_node ------------------------------------------------------------- */

#define SMALL_TAGGED 256 /* tagged messages built on the stack up to this */

static int indexer_put(wf__port *in, const void *msg)
{
    wf__port *out = &in->node->out[0];
    union {
        wf_tagged_msg m;
        max_align_t align;
        unsigned char bytes[SMALL_TAGGED];
    } small;
    wf_tagged_msg *t = out->size <= sizeof small
                           ? &small.m
                           : wf__mem_alloc(wf__node_mem(in->node), out->size);
    if (t == NULL)
        return WF_ENOMEM;
    memset(t, 0, out->size); /* no stale bytes after a short value */
    t->port = in->index;
    memcpy(t->value, msg, in->size);
    wf__push_broadcast(out, t);
    if (t != &small.m)
        wf__mem_free(wf__node_mem(in->node), t);
    return WF__ACCEPT;
}

static const wf__node_ops indexer_ops = {
    .kind = "indexer_node",
    .put = indexer_put,
    .handle = no_ops,
};

int wf_indexer_node_create(wf_node **out, wf_graph *g, unsigned ports,
                           const size_t *msg_sizes)
{
    if (out == NULL || bad_ports(ports, msg_sizes))
        return WF_EINVAL;
    size_t largest = 0;
    for (unsigned i = 0; i < ports; i++)
        largest = msg_sizes[i] > largest ? msg_sizes[i] : largest;
    size_t size = WF_TAGGED_MSG_SIZE(largest);
    wf_node *n;
    int err = wf__node_create(&n, g, sizeof(wf_node), &indexer_ops, ports,
                              msg_sizes, 1, &size);
    if (err)
        return err;
    wf__node_publish(n);
    *out = n;
    return 0;
}
