/* SPDX-License-Identifier: Apache-2.0 */
/* graph_input_node: a source.  The input_node's body hands out one word
 * per call and says WF_INPUT_DONE after the last; the node broadcasts each
 * word to a serial function_node that counts letters.  Nothing happens
 * until the node is activated.
 *
 * Output:
 *   input_node sent 6 words, 34 letters; before activate: 0 words
 *
 * Build: cc -O2 graph_input_node.c $(pkg-config --cflags --libs weft) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define TRY(call)                                                              \
    do {                                                                       \
        int err_ = (call);                                                     \
        if (err_ < 0) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, wf_strerror(err_));             \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

static const char *words[] = {"messages", "flow",    "along",
                              "edges",    "between", "nodes"};

typedef struct {
    size_t next;
} source;

/* Called serially: one word per call, then done. */
static int next_word(void *out, void *ctx)
{
    source *s = ctx;
    if (s->next == sizeof words / sizeof words[0])
        return WF_INPUT_DONE;
    *(const char **)out = words[s->next++]; /* a pointer is a message */
    return 0;
}

typedef struct {
    int words, letters; /* a serial body: no two calls at once */
} tally;

static int count(const void *in, void *out, void *ctx)
{
    (void)out;
    tally *t = ctx;
    t->words++;
    t->letters += (int)strlen(*(const char *const *)in);
    return 0;
}

int main(void)
{
    wf_graph *g;
    TRY(wf_graph_create(&g, NULL));
    source src = {0};
    wf_input_config ic = WF_INPUT_CONFIG_INIT;
    ic.out_size = sizeof(const char *);
    ic.body = next_word;
    ic.ctx = &src;
    wf_node *in, *counter;
    TRY(wf_input_node_create(&in, g, &ic));
    tally t = {0};
    wf_function_config fc = WF_FUNCTION_CONFIG_INIT;
    fc.in_size = sizeof(const char *);
    fc.concurrency = WF_SERIAL;
    fc.body = count;
    fc.ctx = &t;
    TRY(wf_function_node_create(&counter, g, &fc));
    TRY(wf_make_edge(in, counter));

    TRY(wf_graph_wait_for_all(g));
    int before = t.words; /* created inactive: nothing sent yet */
    TRY(wf_input_node_activate(in));
    TRY(wf_graph_wait_for_all(g));
    printf("input_node sent %d words, %d letters; before activate: %d words\n",
           t.words, t.letters, before);
    TRY(wf_node_destroy(counter));
    TRY(wf_node_destroy(in));
    TRY(wf_graph_destroy(g));
    return 0;
}
