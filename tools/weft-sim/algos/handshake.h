/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim park: the pool's sleep/wake handshake, modelled (handshake.c). */
#ifndef WEFT_SIM_HANDSHAKE_H
#define WEFT_SIM_HANDSHAKE_H

int cmd_park(int argc, char **argv);

#endif
