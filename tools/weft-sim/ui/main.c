/* SPDX-License-Identifier: Apache-2.0 */
/* weft-sim: step, draw and model-check the weft deque.
 *
 *   weft-sim                  the REPL (reads commands from stdin)
 *   weft-sim run FILE [--html OUT.html]   play a REPL script
 *   weft-sim explore --algo NAME --model sc|tso|pso|arm|c11|c20|c11std
 *            --owner "push pop ..."
 *            [--thieves N] [--polls N] [--capacity N] [--preemptions K]
 *            [--reuse] [--naive] [--first] [--outcomes] [--max-execs N]
 *            [--spins N] [--html OUT.html] [--scenario FILE]
 *            [--mutate FUNC:KIND:ORDER:TEXT:NEW]
 *   weft-sim test FILE...     scenario files with their expected verdicts
 *   weft-sim crosscheck FILE...  the reduced search against the full one
 *   weft-sim litmus           the litmus suite of the memory machine
 *   weft-sim algos            the algorithms it can load
 *   weft-sim park [-v]        the pool's sleep/wake handshake, every model
 *   weft-sim isa              the instruction of every access of deque.c
 *
 * Exit status: 0 correct, 1 a counterexample (or a failed check), 2 bad
 * usage. */
#include <stdio.h>
#include <string.h>

#include "algos/handshake.h"
#include "algos/litmus.h"
#include "ui/cli.h"
#include "ui/isa.h"
#include "ui/repl.h"

static int usage(void)
{
    fprintf(stderr,
            "usage: weft-sim [run FILE [--html OUT.html]]\n"
            "       weft-sim explore --algo NAME --model "
            "sc|tso|pso|arm|c11|c20|c11std --owner \"push push pop pop\"\n"
            "                [--thieves N] [--polls N] [--capacity N] "
            "[--preemptions K] [--reuse]\n"
            "                [--naive] [--first] [--outcomes] [--max-execs N] "
            "[--spins N] [--lb]\n"
            "                [--html OUT.html] [--scenario FILE] "
            "[--mutate F:KIND:ORDER:TEXT:NEW]\n"
            "       weft-sim test [-v] FILE...\n"
            "       weft-sim crosscheck FILE...\n"
            "       weft-sim litmus [-v] [--model M] [--test NAME]\n"
            "       weft-sim algos\n"
            "       weft-sim park [-v]\n"
            "       weft-sim isa\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return repl_main(NULL, NULL);
    const char *cmd = argv[1];
    if (strcmp(cmd, "explore") == 0)
        return cmd_explore(argc - 2, argv + 2);
    if (strcmp(cmd, "test") == 0)
        return argc > 2 ? cmd_test(argc - 2, argv + 2) : usage();
    if (strcmp(cmd, "crosscheck") == 0)
        return argc > 2 ? cmd_crosscheck(argc - 2, argv + 2) : usage();
    if (strcmp(cmd, "algos") == 0)
        return argc == 2 ? cmd_algos() : usage();
    if (strcmp(cmd, "park") == 0)
        return cmd_park(argc - 2, argv + 2);
    if (strcmp(cmd, "isa") == 0)
        return argc == 2 ? cmd_isa() : usage();
    if (strcmp(cmd, "litmus") == 0)
        return litmus_main(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0) {
        if (argc == 3)
            return repl_main(argv[2], NULL);
        if (argc == 5 && strcmp(argv[3], "--html") == 0)
            return repl_main(argv[2], argv[4]);
        return usage();
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "help") == 0) {
        usage();
        return 0;
    }
    return usage();
}
