/* weft — work-stealing fork-join pool for C11.  Umbrella header. */
#ifndef WEFT_H
#define WEFT_H

#include "weft/common.h"
#include "weft/deque.h"
#include "weft/pool.h"
#include "weft/graph.h"

#endif /* WEFT_H */
