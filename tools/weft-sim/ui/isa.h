/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim isa: the instruction each access of src/deque.c becomes. */
#ifndef WEFT_SIM_ISA_H
#define WEFT_SIM_ISA_H

int cmd_isa(void);

#endif
