/* SPDX-License-Identifier: Apache-2.0 */
/* The C side of cxx_layout.h: the layout as the C compiler sees it. */
#include "cxx_layout.h"

#define CXX_LAYOUT_SIZE(T) sizeof(T), _Alignof(T),
#define CXX_LAYOUT_OFFSET(T, m) offsetof(T, m),

const size_t cxx_layout_c[] = {CXX_LAYOUT_TYPES(CXX_LAYOUT_SIZE)
                                   CXX_LAYOUT_FIELDS(CXX_LAYOUT_OFFSET)};
const size_t cxx_layout_c_count = sizeof cxx_layout_c / sizeof cxx_layout_c[0];
