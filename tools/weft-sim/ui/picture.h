/* SPDX-License-Identifier: Apache-2.0 */
/* The picture `show` draws (and the HTML page replays). */
#ifndef WEFT_SIM_PICTURE_H
#define WEFT_SIM_PICTURE_H

#include <stdbool.h>

#include "core/sim.h"
#include "ui/sbuf.h"

/* Append the picture of the current state; ANSI colours when color. */
void picture_draw(sbuf *b, bool color);

#endif
