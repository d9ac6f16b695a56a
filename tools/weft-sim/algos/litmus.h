/* SPDX-License-Identifier: Apache-2.0 */
/* Litmus tests of the memory machine. */
#ifndef WEFT_SIM_LITMUS_H
#define WEFT_SIM_LITMUS_H

/* Run the suite; 0 when every outcome set is the expected one. */
int litmus_main(int argc, char **argv);

#endif
