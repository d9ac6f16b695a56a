/* SPDX-License-Identifier: Apache-2.0 */
/* The interactive simulator. */
#ifndef WEFT_SIM_REPL_H
#define WEFT_SIM_REPL_H

/* Read commands from path (stdin when NULL) until EOF or quit; write the
 * HTML replay of the session to html when not NULL.  Returns 0, or 1 when
 * a script had a bad command (the REPL itself goes on), 2 on bad usage. */
int repl_main(const char *path, const char *html);

#endif
