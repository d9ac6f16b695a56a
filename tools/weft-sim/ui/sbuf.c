/* SPDX-License-Identifier: Apache-2.0 */
#include "ui/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0)
            return;
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return;
        b->s = s;
        b->cap = cap;
    }
}

void sb_free(sbuf *b)
{
    free(b->s);
    *b = (sbuf){0};
}
