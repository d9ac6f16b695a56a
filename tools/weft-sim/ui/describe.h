/* SPDX-License-Identifier: Apache-2.0 */
/* Text for the log: each step in the seed's vocabulary, its C11 call, its
 * order and its x86-64 and ARM64 instructions. */
#ifndef WEFT_SIM_DESCRIBE_H
#define WEFT_SIM_DESCRIBE_H

#include <stddef.h>

#include "core/sim.h"

const char *describe_x86(int kind, int order);
const char *describe_arm64(int kind, int order);
/* "owner push A", "T1 poll". */
void describe_op(int thread, int op_index, char *out, size_t n);
/* The Java (VarHandle) and C11 forms of an access, with its result. */
void describe_access(const sim_access *a, char *java, size_t jn, char *c11,
                     size_t cn);
/* Cut the result (" -> value", the last arrow) off the Java form of an
 * access that has not run yet; a CAS keeps "expected -> desired". */
void describe_cut_result(char *java);
/* The line for an access a mutant removed. */
void describe_skip(int thread, const sim_access *a, char *out, size_t n);
/* The whole log line of a step; pos is its number in the execution. */
void describe_step(const sim_step_info *info, int pos, char *out, size_t n);

#endif
