/* SPDX-License-Identifier: Apache-2.0 */
/* Tuples: wf_tuple_layout, the one layout of join and split nodes'
 * messages, and wf_tuple_get. */
#include "internal/graph/node.h"

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

/* A split or indexer node's ports: a count in range and no size 0.  Sizes
 * above WF_MAX_MSG_SIZE are wf__node_create's WF_ERANGE. */
bool wf__tuple_ports_bad(unsigned ports, const size_t *sizes)
{
    if (ports == 0 || ports > WF_JOIN_MAX_PORTS || sizes == NULL)
        return true;
    for (unsigned i = 0; i < ports; i++)
        if (sizes[i] == 0)
            return true;
    return false;
}

void *wf_tuple_get(const void *msg, const wf_node *node, unsigned i)
{
    /* Join and split nodes set their offsets before they are published;
     * other kinds have none. */
    if (msg == NULL || node == NULL || node->ops->tuple_offsets == 0 ||
        i >= (node->ops->tuple_in ? node->n_out : node->n_in))
        return NULL;
    const size_t *offset =
        (const size_t *)((const char *)node + node->ops->tuple_offsets);
    return (char *)msg + offset[i];
}
