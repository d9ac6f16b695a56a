/* SPDX-License-Identifier: Apache-2.0 */
/* A growing string, for text built in pieces (pictures, HTML). */
#ifndef WEFT_SIM_SBUF_H
#define WEFT_SIM_SBUF_H

#include <stddef.h>

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

void sb_printf(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_free(sbuf *b);

#endif
