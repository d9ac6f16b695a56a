/* SPDX-License-Identifier: Apache-2.0 */
/* A node's extra block (wf__node_extra in internal/graph/node.h): made
 * the first time a node needs one, by whichever thread needs it first. */
#include <string.h>

#include "internal/graph/mem.h"
#include "internal/graph/node.h"

wf__node_extra *wf__extra_make(wf_node *n)
{
    wf__node_extra *x = wf__extra_if(n);
    if (x)
        return x;
    wf__slabs *s = wf__cold(n)->slabs;
    if ((x = wf__slab_alloc(s, sizeof *x)) == NULL)
        return NULL;
    memset(x, 0, sizeof *x);
    wf__node_extra *none = NULL;
    /* Release publishes the zeroed block to wf__extra_if's acquire;
     * acquire on failure: the winner's block, initialised, is used (G10). */
    if (wf_cas_acqrel(&wf__cold(n)->extra, &none, x))
        return x;
    wf__slab_free(s, x, sizeof *x);
    return none;
}
