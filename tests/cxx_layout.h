/* SPDX-License-Identifier: Apache-2.0 */
/* The layout of weft's public structs, as C sees it and as C++ sees it.
 *
 * In C++ the headers spell the _Atomic fields as plain types of the same
 * size and alignment (weft/common.h), and a struct that C and C++ lay out
 * differently would break the ABI without a word from either compiler.
 * cxx_layout.c fills cxx_layout_c[] from C; cxx_smoke.cpp computes the same
 * list in C++ and compares them entry by entry. */
#ifndef WEFT_TEST_CXX_LAYOUT_H
#define WEFT_TEST_CXX_LAYOUT_H

#include <stddef.h>

#include <weft.h>

/* Every type: its size and alignment. */
#define CXX_LAYOUT_TYPES(X)                                                    \
    X(wf_allocator)                                                            \
    X(wf_deque)                                                                \
    X(wf_task)                                                                 \
    X(wf_pool_config)                                                          \
    X(wf_group_task)                                                           \
    X(wf_group)                                                                \
    X(wf_worker_stats)                                                         \
    X(struct wf__fast)                                                         \
    X(wf_port)                                                                 \
    X(wf_graph_config)                                                         \
    X(wf_function_config)                                                      \
    X(wf_join_config)                                                          \
    X(wf_continue_config)                                                      \
    X(wf_input_config)                                                         \
    X(wf_multifunction_config)                                                 \
    X(wf_async_config)                                                         \
    X(wf_tagged_msg)

/* Every field that is atomic or aligned in C, and its neighbours. */
#define CXX_LAYOUT_FIELDS(X)                                                   \
    X(wf_deque, base)                                                          \
    X(wf_deque, top)                                                           \
    X(wf_deque, array)                                                         \
    X(wf_deque, base_seen)                                                     \
    X(wf_deque, alloc)                                                         \
    X(wf_task, owner_)                                                         \
    X(wf_task, thief_)                                                         \
    X(wf_task, done_)                                                          \
    X(wf_task, flags_)                                                         \
    X(wf_group, owner_)                                                        \
    X(wf_group, error_)                                                        \
    X(wf_group, cancelled_)                                                    \
    X(wf_group, state_)                                                        \
    X(struct wf__fast, bp)                                                     \
    X(struct wf__fast, limit)                                                  \
    X(struct wf__fast, tlimit)                                                 \
    X(wf_tagged_msg, value)

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes and alignments of CXX_LAYOUT_TYPES, then the offsets of
 * CXX_LAYOUT_FIELDS, in that order, as the C compiler has them. */
extern const size_t cxx_layout_c[];
extern const size_t cxx_layout_c_count;

#ifdef __cplusplus
}
#endif
#endif /* WEFT_TEST_CXX_LAYOUT_H */
