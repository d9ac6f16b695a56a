/* SPDX-License-Identifier: Apache-2.0 */
/* The interactive simulator: start operations, advance them one memory
 * access at a time, drain store buffers, look at the ring.  The same
 * commands come from a file with `weft-sim run FILE`. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/algos.h"
#include "core/machine.h"
#include "core/threads.h"
#include "ui/describe.h"
#include "ui/html.h"
#include "ui/picture.h"
#include "ui/repl.h"
#include "weft/deque.h"

#define REPL_THREADS SIM_MAX_THREADS /* owner, T1..T4 */

static struct {
    const sim_algo *algo;
    int model, capacity;
    bool color, script, echo;
    char **log; /* the session's step lines since the last reset */
    int nlog, caplog;
    bool fail_shown;
    trace_rec *rec; /* for --html */
} R;

static const char *const help_text =
    "commands:\n"
    "  push [X]           owner starts push of task X (A..Z; default: the "
    "next letter)\n"
    "  pop                owner starts pop\n"
    "  poll [T1..T4]      a thief starts poll (default T1)\n"
    "  step owner|T1..T4  execute that thread's next memory access\n"
    "  run owner|T1..T4   step it until its operation returns (draining its\n"
    "                     own store buffer when it must wait for it)\n"
    "  flush T [LOC]      drain one store from T's buffer to memory (tso: "
    "the oldest;\n"
    "                     pso: the oldest, or the oldest to LOC, e.g. top, "
    "a[1])\n"
    "  show               draw the ring, base and top, the store buffers\n"
    "  log                every step since the last reset\n"
    "  reset [CAPACITY]   empty deque (default capacity 2), idle threads\n"
    "  algo NAME          load another algorithm (see `weft-sim algos`), "
    "then reset\n"
    "  model sc|tso|pso   change the memory model, then reset\n"
    "  help, quit\n";

static void out_err(int line, const char *fmt, const char *arg)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, arg);
    if (R.script)
        printf("error: line %d: %s\n", line, msg);
    else
        printf("error: %s\n", msg);
}

static void log_add(const char *line)
{
    if (R.nlog == R.caplog) {
        R.caplog = R.caplog ? 2 * R.caplog : 64;
        R.log = realloc(R.log, sizeof(char *) * (size_t)R.caplog);
    }
    R.log[R.nlog++] = strdup(line);
}

static void log_clear(void)
{
    for (int i = 0; i < R.nlog; i++)
        free(R.log[i]);
    R.nlog = 0;
}

static void on_step(const sim_step_info *info)
{
    char line[512];
    describe_step(info, S.pos, line, sizeof line);
    log_add(line);
    printf("%s\n", line);
    if (R.rec)
        trace_rec_step(R.rec, line);
}

static void on_skip(int thread, const sim_access *a)
{
    char line[512];
    describe_skip(thread, a, line, sizeof line);
    log_add(line);
    printf("%s\n", line);
    if (R.rec)
        trace_rec_note(R.rec, line);
}

static int do_reset(void)
{
    log_clear();
    R.fail_shown = false;
    S.reuse = false;
    S.on_step = on_step;
    S.on_skip = on_skip;
    if (sim_reset(R.algo, R.model, REPL_THREADS, R.capacity) != 0) {
        printf("error: %s cannot start\n", R.algo->name);
        return -1;
    }
    return 0;
}

/* "owner", "T1".."T4" -> thread index, or -1. */
static int parse_thread(const char *s)
{
    if (!s)
        return -1;
    if (strcmp(s, "owner") == 0 || strcmp(s, "T0") == 0)
        return 0;
    if ((s[0] == 'T' || s[0] == 't') && s[1] >= '1' &&
        s[1] < '0' + REPL_THREADS && !s[2])
        return s[1] - '0';
    return -1;
}

static void report_failure(void)
{
    if (S.fail[0] && !R.fail_shown) {
        printf("CHECK FAILED: %s\n", S.fail);
        R.fail_shown = true;
    }
}

/* After a step of thread t: say so when its operation returned. */
static void report_op(int t, int pc_before)
{
    const sim_thread *th = &S.th[t];
    char vb[24];
    for (int i = pc_before; i < th->pc; i++) {
        const sim_op *op = &th->prog[i];
        if (op->kind == OP_PUSH)
            printf("     %s: push %c returned %d\n", sim_thread_name(t),
                   'A' + op->value, op->status);
        else if (op->kind == OP_POP)
            printf("     %s: pop returned %s\n", sim_thread_name(t),
                   op->got ? sim_value_name(op->got, vb) : "null (empty)");
        else
            printf("     %s: poll returned %s\n", sim_thread_name(t),
                   op->status == WF_POLL_TAKEN   ? sim_value_name(op->got, vb)
                   : op->status == WF_POLL_EMPTY ? "EMPTY"
                                                 : "RETRY");
    }
    report_failure();
}

static void say_next(int t)
{
    const sim_thread *th = &S.th[t];
    char java[128], c11[160];
    if (th->state != T_PENDING)
        return;
    describe_access(&th->pend, java, sizeof java, c11, sizeof c11);
    describe_cut_result(java); /* not executed yet */
    printf("     %s next: %s%s\n", sim_thread_name(t), java,
           sim_proc_enabled(t) ? "" : "  (waits for its store buffer)");
}

static int start_op(int line, int t, sim_op op)
{
    if (S.th[t].state == T_PENDING || S.th[t].pc < S.th[t].nprog) {
        out_err(line, "%s is busy with an operation: step or run it first",
                sim_thread_name(t));
        return -1;
    }
    int pc = S.th[t].pc;
    sim_add_op(t, op);
    sim_start_ops();
    report_op(t, pc);
    say_next(t);
    return 0;
}

static int step_thread(int line, int t)
{
    if (S.th[t].state != T_PENDING) {
        out_err(line, "%s has no operation in flight", sim_thread_name(t));
        return -1;
    }
    if (!sim_proc_enabled(t)) {
        out_err(line, "%s waits for its store buffer to drain: flush it first",
                sim_thread_name(t));
        return -1;
    }
    sim_step_info info;
    int pc = S.th[t].pc;
    sim_step(t, &info);
    report_op(t, pc);
    say_next(t);
    return 0;
}

/* Drain one store of thread t's buffer; loc may name the location (PSO). */
static int flush_thread(int line, int t, const char *loc)
{
    const sim_thread *th = &S.th[t];
    if (S.model == MODEL_SC) {
        out_err(line, "%s", "there are no store buffers under sc");
        return -1;
    }
    int i = 0;
    if (loc) {
        char name[32];
        for (i = 0; i < th->nbuf; i++) {
            sim_loc_name(th->buf[i].addr, name, sizeof name);
            if (strcmp(name, loc) == 0)
                break;
        }
        if (i == th->nbuf) {
            out_err(line, "no buffered store to %s", loc);
            return -1;
        }
        if (S.model == MODEL_TSO && i != 0) {
            out_err(line, "%s", "under tso the buffer drains oldest first");
            return -1;
        }
    } else if (th->nbuf == 0) {
        out_err(line, "%s's store buffer is empty", sim_thread_name(t));
        return -1;
    }
    sim_step_info info;
    sim_step(sim_buf_pid(t, th->buf[i].addr), &info);
    report_failure();
    return 0;
}

static int run_thread(int line, int t)
{
    if (S.th[t].state != T_PENDING) {
        out_err(line, "%s has no operation in flight", sim_thread_name(t));
        return -1;
    }
    int pc = S.th[t].pc;
    for (int n = 0; n < 1000 && S.th[t].pc == pc && S.th[t].state == T_PENDING;
         n++) {
        sim_step_info info;
        if (sim_proc_enabled(t)) {
            sim_step(t, &info);
        } else { /* drain what it waits for: its oldest store (to another
                  * location, for a PSO release store) */
            const sim_thread *th = &S.th[t];
            int i = 0;
            if (sim_needs_drain(&th->pend) == 2)
                while (th->buf[i].addr == th->pend.addr)
                    i++;
            sim_step(sim_buf_pid(t, th->buf[i].addr), &info);
        }
    }
    report_op(t, pc);
    say_next(t);
    return 0;
}

static void show(void)
{
    sbuf b = {0};
    picture_draw(&b, R.color);
    printf("%s", b.s ? b.s : "");
    sb_free(&b);
}

/* The commands: each returns 0, or -1 for a bad one. */

static int push_cmd(int line, const char *a)
{
    int v = -1;
    if (a) {
        if (!isupper((unsigned char)a[0]) || a[1] ||
            a[0] - 'A' >= SIM_MAX_VALUES) {
            out_err(line, "push takes a task name A..Z, not '%s'", a);
            return -1;
        }
        v = a[0] - 'A';
    } else {
        v = S.next_value < SIM_MAX_VALUES ? S.next_value : 0;
    }
    if (v >= S.next_value)
        S.next_value = v + 1;
    return start_op(line, 0, (sim_op){.kind = OP_PUSH, .value = v});
}

static int poll_cmd(int line, const char *a)
{
    int t = a ? parse_thread(a) : 1;
    if (t < 1) {
        out_err(line, "poll takes a thief T1..T4, not '%s'", a ? a : "");
        return -1;
    }
    return start_op(line, t, (sim_op){.kind = OP_POLL});
}

/* step, run or flush (c) thread a; flush to location loc. */
static int thread_cmd(int line, const char *c, const char *a, const char *loc)
{
    int t = parse_thread(a);
    if (t < 0) {
        out_err(line, "which thread? owner or T1..T4, not '%s'", a ? a : "");
        return -1;
    }
    return c[0] == 's'   ? step_thread(line, t)
           : c[0] == 'r' ? run_thread(line, t)
                         : flush_thread(line, t, loc);
}

static int log_cmd(void)
{
    for (int i = 0; i < R.nlog; i++)
        printf("%s\n", R.log[i]);
    if (R.nlog == 0)
        printf("(no steps yet)\n");
    return 0;
}

static int reset_cmd(int line, const char *a)
{
    int cap = 2;
    if (a && ((cap = atoi(a)) < 2 || cap > 64)) {
        out_err(line, "capacity 2..64, not '%s'", a);
        return -1;
    }
    R.capacity = cap;
    return do_reset() == 0
               ? (printf("reset: %s, capacity %d\n", R.algo->name, cap), 0)
               : -1;
}

static int algo_cmd(int line, const char *a)
{
    const sim_algo *al = a ? sim_algo_find(a) : NULL;
    if (!al) {
        out_err(line, "unknown algorithm '%s' (see weft-sim algos)",
                a ? a : "");
        return -1;
    }
    R.algo = al;
    return do_reset() == 0 ? (printf("algo %s: %s\n", al->name, al->desc), 0)
                           : -1;
}

static int model_cmd(int line, const char *a)
{
    int m = sim_model_parse(a);
    if (m >= 0 && !SIM_GRAPH_MODEL(m)) {
        R.model = m;
        return do_reset() == 0 ? (printf("model %s\n", a), 0) : -1;
    }
    out_err(line,
            m >= 0 ? "the REPL steps sc, tso and pso; %s is explored "
                     "as execution graphs (weft-sim explore)"
                   : "model sc, tso or pso, not '%s'",
            a ? a : "");
    return -1;
}

/* One command; returns 0, -1 (bad command) or 1 (quit). */
static int command(int line, char *text)
{
    char *argv[4] = {0};
    int argc = 0;
    for (char *tok = strtok(text, " \t\r\n"); tok && argc < 4;
         tok = strtok(NULL, " \t\r\n"))
        argv[argc++] = tok;
    if (argc == 0)
        return 0;
    const char *c = argv[0], *a = argv[1];
    if (strcmp(c, "push") == 0)
        return push_cmd(line, a);
    if (strcmp(c, "pop") == 0 && !a)
        return start_op(line, 0, (sim_op){.kind = OP_POP});
    if (strcmp(c, "poll") == 0)
        return poll_cmd(line, a);
    if (strcmp(c, "step") == 0 || strcmp(c, "run") == 0 ||
        strcmp(c, "flush") == 0)
        return thread_cmd(line, c, a, argv[2]);
    if (strcmp(c, "show") == 0 && !a) {
        show();
        return 0;
    }
    if (strcmp(c, "log") == 0 && !a)
        return log_cmd();
    if (strcmp(c, "reset") == 0)
        return reset_cmd(line, a);
    if (strcmp(c, "algo") == 0)
        return algo_cmd(line, a);
    if (strcmp(c, "model") == 0)
        return model_cmd(line, a);
    if (strcmp(c, "help") == 0 || strcmp(c, "?") == 0) {
        printf("%s", help_text);
        return 0;
    }
    if (strcmp(c, "quit") == 0 || strcmp(c, "exit") == 0)
        return 1;
    out_err(line, "unknown command '%s' (try help)", c);
    return -1;
}

/* Read and run commands until EOF or quit; returns how many were bad. */
static int read_commands(FILE *in, bool prompt)
{
    char buf[512];
    int line = 0, errors = 0;
    for (;;) {
        if (prompt) {
            printf("weft-sim> ");
            fflush(stdout);
        }
        if (!fgets(buf, sizeof buf, in))
            break;
        line++;
        char *h = strchr(buf, '#');
        if (h)
            *h = 0;
        if (!prompt && strspn(buf, " \t\r\n") != strlen(buf))
            printf("> %s%s", buf, strchr(buf, '\n') ? "" : "\n");
        int rc = command(line, buf);
        if (rc > 0)
            break;
        errors += rc < 0;
        fflush(stdout);
    }
    return errors;
}

int repl_main(const char *path, const char *html)
{
    FILE *in = stdin;
    if (path && !(in = fopen(path, "r"))) {
        fprintf(stderr, "weft-sim: cannot open %s\n", path);
        return 2;
    }
    R.algo = sim_algo_find("weft");
    R.model = MODEL_SC;
    R.capacity = 2;
    R.color = isatty(1);
    R.script = path != NULL;
    bool prompt = !path && isatty(0);
    trace_rec rec;
    if (html) {
        trace_rec_init(&rec, path);
        R.rec = &rec;
    }
    if (do_reset() != 0)
        return 2;
    if (html)
        trace_rec_initial(&rec);
    if (prompt)
        printf("weft-sim: the %s deque under %s; type help\n", R.algo->name,
               "sc");
    int errors = read_commands(in, prompt);
    if (path)
        fclose(in);
    if (html) {
        if (html_write(&rec, html, S.fail[0] ? S.fail : NULL) != 0) {
            fprintf(stderr, "weft-sim: cannot write %s\n", html);
            errors++;
        } else {
            printf("wrote %s\n", html);
        }
        trace_rec_free(&rec);
    }
    log_clear();
    /* a script that made a check fail (a lost or duplicated task) fails */
    return R.script && (errors || R.fail_shown) ? 1 : 0;
}
