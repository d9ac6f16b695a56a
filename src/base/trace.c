/* SPDX-License-Identifier: Apache-2.0 */
/* Tracing: a Chrome trace (the JSON "traceEvents" format that Perfetto
 * and chrome://tracing open) of what the threads do: the pool's stolen
 * and submitted tasks, parks and wf_run calls (src/pool: runner.c,
 * park.c, entry.c), pipeline stage calls (src/algo/pipeline.c), and the
 * graphs' node bodies, tasks and message arrows (src/graph/spans.c).  A
 * service of every component, below them all: it knows no pool, and
 * asks the one the pool registers (wf__trace_thread_namer) which of its
 * threads a buffer belongs to.
 *
 * Each thread appends events to its own buffer, a list of chunks, with no
 * lock: the only shared words it touches are its buffer's `busy` flag and
 * the global switch.  wf_trace_stop turns the switch off, waits until no
 * thread is inside a recording (the Dekker handshake below), then writes
 * every buffer out and frees the chunks.  Buffers themselves stay on the
 * global list for their thread's next session.
 *
 * The handshake (internal/base/trace_steps.h, B1): a recorder stores
 * busy = 1, fences (seq_cst), then reads the switch; stop clears the
 * switch, fences, then reads each busy flag.  Of the two reads at least
 * one sees the other side's store, so either the recorder sees the switch
 * off and writes nothing, or stop sees it busy and waits for it. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal/atomic.h"
#include "internal/base/trace_steps.h"
#include "internal/trace.h"
#include "internal/util.h"
#include "weft/pool.h"

_Atomic int wf__tracing;

#define CHUNK_EVENTS 4096
#define NAME_MAX_LEN 39

typedef struct tr_event {
    uint64_t ts; /* ns since the session started */
    uint64_t id; /* flow id ('s', 'f') */
    char ph;     /* 'B', 'E', 's', 'f' */
    char cat;    /* WF__TRACE_BODY, _TASK, _STEAL, _SUBMIT, _PARK, _RUN,
                    _STAGE */
    char name[NAME_MAX_LEN + 1];
} tr_event;

typedef struct tr_chunk {
    struct tr_chunk *next;
    size_t n;
    tr_event ev[CHUNK_EVENTS];
} tr_chunk;

typedef struct tr_buf {
    struct tr_buf *next; /* global list, under tr_lock */
    _Atomic int busy;    /* the owner is recording (see the handshake) */
    unsigned tid;
    int worker;            /* its index if a pool's own thread, else -1 */
    tr_chunk *head, *tail; /* the owner's while busy; stop's after */
    unsigned long dropped; /* events lost for want of memory */
} tr_buf;

static pthread_mutex_t tr_lock = PTHREAD_MUTEX_INITIALIZER;
static tr_buf *tr_bufs;      /* under tr_lock */
static unsigned tr_next_tid; /* under tr_lock */
static char *tr_path;        /* under tr_lock */
static uint64_t tr_t0;       /* written before the switch is set */
static _Atomic uint64_t tr_next_flow;
static _Thread_local tr_buf *tr_self;
/* The pool's answer to "which of its threads is this?" (NULL: no pool
 * registered one yet, so no thread is a pool's). */
static _Atomic(wf__trace_namer) tr_namer;

void wf__trace_thread_namer(wf__trace_namer fn)
{
    /* Relaxed: the function is code, and nothing is published with it.
     * A pool registers it before it starts its threads (pthread_create
     * orders the store before them); a thread that reads NULL is no
     * pool's. */
    wf_store_relaxed(&tr_namer, fn);
}

/* Nanoseconds since the trace started. */
static uint64_t now_ns(void)
{
    return wf__now_ns() - tr_t0;
}

static tr_buf *self_buf(void)
{
    if (tr_self)
        return tr_self;
    tr_buf *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    /* A pool's thread (a background worker or a spare) is named by its
     * index; any other thread, one that takes part while it waits in a
     * caller slot too, by its trace id: it is the user's thread. */
    wf__trace_namer namer = wf_load_relaxed(&tr_namer); /* see there */
    b->worker = namer ? namer() : -1;
    pthread_mutex_lock(&tr_lock);
    b->tid = ++tr_next_tid;
    b->next = tr_bufs;
    tr_bufs = b;
    pthread_mutex_unlock(&tr_lock);
    return tr_self = b;
}

/* Room for one more event in b, or NULL (counted as dropped). */
static tr_event *slot(tr_buf *b)
{
    tr_chunk *c = b->tail;
    if (c == NULL || c->n == CHUNK_EVENTS) {
        tr_chunk *fresh = malloc(sizeof *fresh);
        if (fresh == NULL) {
            b->dropped++;
            return NULL;
        }
        fresh->next = NULL;
        fresh->n = 0;
        if (c)
            c->next = fresh;
        else
            b->head = fresh;
        b->tail = c = fresh;
    }
    return &c->ev[c->n++];
}

void wf__trace_record(char ph, char cat, const char *name, uint64_t id)
{
    tr_buf *b = self_buf();
    if (b == NULL)
        return;
    /* The handshake (top of file, B1): busy, the fence, then the switch;
     * its acquire sees a new session's start with the last stop's
     * emptying of our chunks (B2). */
    if (wf__trace_enter(&b->busy, &wf__tracing)) {
        tr_event *e = slot(b);
        if (e) {
            e->ts = now_ns();
            e->id = id;
            e->ph = ph;
            e->cat = cat;
            e->name[0] = '\0';
            if (name) {
                size_t len = strlen(name);
                if (len > NAME_MAX_LEN)
                    len = NAME_MAX_LEN;
                memcpy(e->name, name, len);
                e->name[len] = '\0';
            }
        }
    }
    /* Release: the event is complete before stop reads it (B1). */
    wf__trace_leave(&b->busy);
}

uint64_t wf__trace_flow_id(void)
{
    /* Relaxed: ids need only be unique. */
    return wf_fetch_add_relaxed(&tr_next_flow, 1) + 1;
}

/* ---- start, stop, and the file ------------------------------------------ */

int wf_trace_start(const char *path)
{
    if (path == NULL || *path == '\0')
        return WF_EINVAL;
    size_t len = strlen(path) + 1;
    char *copy = malloc(len);
    if (copy == NULL)
        return WF_ENOMEM;
    memcpy(copy, path, len);
    pthread_mutex_lock(&tr_lock);
    if (tr_path) {
        pthread_mutex_unlock(&tr_lock);
        free(copy);
        return WF_EBUSY;
    }
    tr_path = copy;
    tr_t0 = wf__now_ns();
    /* Release: the recorders see t0 and the emptied buffers of the last
     * stop (B2). */
    wf__trace_switch_on(&wf__tracing);
    pthread_mutex_unlock(&tr_lock);
    return 0;
}

static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *cat_name(char cat)
{
    switch (cat) {
    case WF__TRACE_TASK: return "task";
    case WF__TRACE_STEAL: return "steal";
    case WF__TRACE_SUBMIT: return "submit";
    case WF__TRACE_STAGE: return "stage";
    case WF__TRACE_PARK: return "park";
    case WF__TRACE_RUN: return "run";
    default: return "body";
    }
}

/* The span's name: a graph task's is "task " and its node's. */
static void write_name(FILE *f, const tr_event *e)
{
    char name[NAME_MAX_LEN + 16];
    snprintf(name, sizeof name, "%s%s", e->cat == WF__TRACE_TASK ? "task " : "",
             e->name[0] ? e->name : "graph");
    fprintf(f, ",\"cat\":\"%s\",\"name\":", cat_name(e->cat));
    write_string(f, name);
}

static void write_head(FILE *f, const tr_buf *b, char ph, uint64_t ts)
{
    fprintf(f, ",\n{\"ph\":\"%c\",\"pid\":1,\"tid\":%u,\"ts\":%.3f", ph, b->tid,
            (double)ts / 1000.0);
}

/* A begin and its end as one complete event: half the bytes of two. */
static void write_span(FILE *f, const tr_buf *b, const tr_event *begin,
                       uint64_t end)
{
    write_head(f, b, 'X', begin->ts);
    fprintf(f, ",\"dur\":%.3f", (double)(end - begin->ts) / 1000.0);
    write_name(f, begin);
    fputc('}', f);
}

static void write_event(FILE *f, const tr_buf *b, const tr_event *e)
{
    write_head(f, b, e->ph, e->ts);
    if (e->ph == 'B') {
        write_name(f, e);
    } else if (e->ph == 's' || e->ph == 'f') {
        fprintf(f, ",\"cat\":\"message\",\"name\":\"message\",\"id\":%llu",
                (unsigned long long)e->id);
        if (e->ph == 'f')
            fputs(",\"bp\":\"e\"", f);
    }
    fputc('}', f);
}

#define MAX_OPEN 64 /* nested spans paired on writing; deeper ones as B/E */

/* b's events: each begin with its end as a complete event; a span still
 * open (the trace stopped inside it) or nested too deep as B / E. */
static void write_buf(FILE *f, const tr_buf *b)
{
    fprintf(f,
            ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
            "\"args\":{\"name\":\"%s %d\"}}",
            b->tid, b->worker >= 0 ? "worker" : "thread",
            b->worker >= 0 ? b->worker : (int)b->tid);
    const tr_event *open[MAX_OPEN];
    size_t depth = 0, deeper = 0;
    for (const tr_chunk *c = b->head; c; c = c->next)
        for (const tr_event *e = c->ev; e < c->ev + c->n; e++) {
            if (e->ph == 'B' && depth < MAX_OPEN)
                open[depth++] = e;
            else if (e->ph == 'E' && deeper == 0 && depth > 0)
                write_span(f, b, open[--depth], e->ts);
            else {
                if (e->ph == 'B')
                    deeper++;
                else if (e->ph == 'E' && deeper > 0)
                    deeper--;
                write_event(f, b, e);
            }
        }
    for (size_t i = 0; i < depth; i++)
        write_event(f, b, open[i]);
}

/* Write every buffer to f; the switch is off and nobody records. */
static int write_all(FILE *f)
{
    unsigned long dropped = 0;
    fputs("{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":1,\"name\":"
          "\"process_name\",\"args\":{\"name\":\"weft\"}}",
          f);
    for (const tr_buf *b = tr_bufs; b; b = b->next) {
        if (b->head)
            write_buf(f, b);
        dropped += b->dropped;
    }
    fprintf(f,
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
            "{\"dropped_events\":%lu}}\n",
            dropped);
    return ferror(f) ? WF_EAGAIN : 0;
}

static void free_chunks(tr_buf *b)
{
    while (b->head) {
        tr_chunk *c = b->head;
        b->head = c->next;
        free(c);
    }
    b->tail = NULL;
    b->dropped = 0;
}

int wf_trace_stop(void)
{
    pthread_mutex_lock(&tr_lock);
    if (tr_path == NULL) {
        pthread_mutex_unlock(&tr_lock);
        return WF_ENOENT;
    }
    /* The handshake (top of file, B1): the switch, the fence, then each
     * buffer's busy, acquired: its recorder's events are complete. */
    wf__trace_switch_off(&wf__tracing);
    for (tr_buf *b = tr_bufs; b; b = b->next) {
        unsigned round = 0;
        while (wf__trace_busy(&b->busy))
            wf__backoff(&round);
    }
    int err = WF_EAGAIN;
    FILE *f = fopen(tr_path, "w");
    if (f) {
        err = write_all(f);
        if (fclose(f) != 0)
            err = WF_EAGAIN;
    }
    for (tr_buf *b = tr_bufs; b; b = b->next)
        free_chunks(b);
    free(tr_path);
    tr_path = NULL;
    pthread_mutex_unlock(&tr_lock);
    return err;
}

static void stop_at_exit(void)
{
    int err = wf_trace_stop();
    if (err && err != WF_ENOENT)
        fprintf(stderr, "weft: WEFT_TRACE: could not write the trace: %s\n",
                strerror(errno));
}

static void read_env(void)
{
    const char *path = getenv("WEFT_TRACE");
    if (path == NULL || *path == '\0')
        return;
    int err = wf_trace_start(path);
    if (err == 0)
        atexit(stop_at_exit);
    else
        fprintf(stderr, "weft: WEFT_TRACE=%s: %s\n", path, wf_strerror(err));
}

void wf__trace_env(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_env);
}
