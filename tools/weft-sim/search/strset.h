/* SPDX-License-Identifier: Apache-2.0 */
/* A set of strings: the distinct outcomes a search collects. */
#ifndef WEFT_SIM_STRSET_H
#define WEFT_SIM_STRSET_H

typedef struct strset strset_t;
strset_t *strset_new(void);
void strset_put(strset_t *s, const char *x);
/* Hand over the strings, sorted, and free the set; returns how many. */
int strset_take(strset_t *s, char ***out);

#endif
