/* SPDX-License-Identifier: Apache-2.0 */
/* CHECK for the C++ tests (check.h is C): report the failed condition
 * and where, then exit 1. */
#ifndef WEFT_TEST_CXX_CHECK_H
#define WEFT_TEST_CXX_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,        \
                         __LINE__, #cond);                                     \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

/* expr must throw an E, for which check (which may name it e) holds. */
#define CHECK_THROWS(expr, E, check)                                           \
    do {                                                                       \
        bool thrown_ = false;                                                  \
        try {                                                                  \
            expr;                                                              \
        } catch (const E &e) {                                                 \
            thrown_ = true;                                                    \
            CHECK(check);                                                      \
        }                                                                      \
        CHECK(thrown_);                                                        \
    } while (0)

#endif
