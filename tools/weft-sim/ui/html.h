/* SPDX-License-Identifier: Apache-2.0 */
/* A recorded trace (log lines and the picture after each step) and the
 * self-contained HTML page that replays it. */
#ifndef WEFT_SIM_HTML_H
#define WEFT_SIM_HTML_H

typedef struct trace_rec {
    char *title;
    char *pic0;    /* the picture before the first step */
    char **lines;  /* lines[i]: log line of step i + 1   */
    char **pics;   /* pics[i]: the picture after it      */
    char **notes;  /* notes[i]: printed after lines[i], or NULL */
    char *pending; /* a note waiting for the next step  */
    int n, cap;
} trace_rec;

void trace_rec_init(trace_rec *r, const char *title);
/* Take the current picture as the initial state. */
void trace_rec_initial(trace_rec *r);
/* Record a step: its log line and the picture now. */
void trace_rec_step(trace_rec *r, const char *line);
void trace_rec_free(trace_rec *r);
/* A line that is not a step (an access a mutant removed while the step
 * being recorded ran on): it goes after that step's line. */
void trace_rec_note(trace_rec *r, const char *note);

/* Write the page; verdict may be NULL.  Returns 0 or -1. */
int html_write(const trace_rec *r, const char *path, const char *verdict);

#endif
