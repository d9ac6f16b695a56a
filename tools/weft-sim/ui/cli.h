/* SPDX-License-Identifier: Apache-2.0 */
/* The commands that run scenarios (cli.c): explore, test, crosscheck, and
 * the list of algorithms. */
#ifndef WEFT_SIM_CLI_H
#define WEFT_SIM_CLI_H

int cmd_explore(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_algos(void);
int cmd_crosscheck(int argc, char **argv);

#endif
