/* SPDX-License-Identifier: Apache-2.0 */
/* weft — work-stealing fork-join pool and flow graph for C11.  Umbrella
 * header; C++ includes it too (weft.hpp adds a C++ layer, docs/cpp.md). */
#ifndef WEFT_H
#define WEFT_H

#include "weft/common.h"
#include "weft/deque.h"
#include "weft/graph.h"
#include "weft/pipeline.h"
#include "weft/pool.h"
#include "weft/task.h"
#include "weft/taskgraph.h"

#endif /* WEFT_H */
