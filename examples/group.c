/* SPDX-License-Identifier: Apache-2.0 */
/* group: a task group whose tasks can fail.
 *
 * 64 tasks check 1,000,000 records, one chunk each.  One record is
 * corrupt: the task that finds it returns an error code.  That cancels the
 * group: tasks that have not started yet never start, running ones see
 * wf_group_is_cancelled() and stop early, and wf_group_wait() returns the
 * first error a task returned.
 *
 * Build: cc -O2 group.c $(pkg-config --cflags --libs weft)
 * Run:   ./group     prints  record 777777 is corrupt: wf_group_wait
 *                            returned -1000 (ERR_CORRUPT), group
 *                            cancelled: yes */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

#define RECORDS 1000000u
#define CHUNKS 64u
#define CORRUPT 777777u
/* Any non-zero int is an error; weft's own codes are small negatives
 * (WF_EINVAL...), so pick ours apart from them. */
#define ERR_CORRUPT (-1000)

static uint32_t checksum(size_t i)
{
    return (uint32_t)(i * 2654435761u);
}

typedef struct {
    wf_group_task task; /* first member: the body casts back */
    wf_group *group;
    const uint32_t *records;
    size_t begin, end;
    size_t *bad; /* where the failing task reports the record */
} chunk_task;

static int check_chunk(wf_group_task *t)
{
    chunk_task *c = (chunk_task *)t;
    for (size_t i = c->begin; i < c->end; i++) {
        /* Another task failed: our answer no longer matters. */
        if (i % 4096 == 0 && wf_group_is_cancelled(c->group))
            return 0;
        if (c->records[i] != checksum(i)) {
            *c->bad = i; /* read after wf_group_wait: no race */
            return ERR_CORRUPT;
        }
    }
    return 0;
}

int main(void)
{
    uint32_t *records = malloc(RECORDS * sizeof *records);
    if (records == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < RECORDS; i++)
        records[i] = checksum(i);
    records[CORRUPT] ^= 1;

    /* The group's tasks run on the default pool (pool NULL); it has no
     * parent group.  Nothing is allocated: the frames are ours. */
    wf_group group;
    chunk_task tasks[CHUNKS];
    size_t bad = 0;
    wf_group_init(&group, NULL, NULL);
    for (size_t k = 0; k < CHUNKS; k++) {
        tasks[k] = (chunk_task){.group = &group,
                                .records = records,
                                .begin = k * RECORDS / CHUNKS,
                                .end = (k + 1) * RECORDS / CHUNKS,
                                .bad = &bad};
        /* WF_ECANCELED: a task already failed, the rest would not run. */
        if (wf_group_spawn(&group, &tasks[k].task, check_chunk) != 0)
            break;
    }
    int err = wf_group_wait(&group); /* waits for every spawned task */
    printf("record %zu is corrupt: wf_group_wait returned %d (%s), group "
           "cancelled: %s\n",
           bad, err, err == ERR_CORRUPT ? "ERR_CORRUPT" : wf_err_name(err),
           wf_group_is_cancelled(&group) ? "yes" : "no");
    free(records);
    return err == ERR_CORRUPT && bad == CORRUPT ? 0 : 1;
}
