/* SPDX-License-Identifier: Apache-2.0 */
/* What weft_mpi's ranks send one another: tags, the two communicators,
 * the control messages. */
#ifndef WF_INTERNAL_MPI_WIRE_H
#define WF_INTERNAL_MPI_WIRE_H

#include <stdint.h>

/* MPI tags: control messages share one tag; data of channel c uses
 * WF__MPI_TAG_DATA + c, so no message needs a header.
 *
 * Two duplicates of the user's communicator.  `comm` carries control
 * messages and data messages of at most WF__MPI_SMALL_MAX bytes, which
 * the engine receives with receives posted in advance (landing.c,
 * dispatch.c).  `bulk` carries larger data messages, each announced on
 * `comm` by a WF__CTRL_BULK and received by a receive for its sender and
 * tag. */
#define WF__MPI_TAG_CTRL 1
#define WF__MPI_TAG_DATA 16
#define WF__MPI_SMALL_MAX 4096
#define WF__MPI_RX_DEPTH 16 /* receives the engine keeps posted on comm */

enum {
    WF__CTRL_HELLO_SENDER = 1, /* a: message size                        */
    WF__CTRL_HELLO_RECEIVER,   /* a: message size, b: credits granted    */
    WF__CTRL_CREDIT,           /* a: credits returned                    */
    WF__CTRL_ABORT,            /* a: the failing rank, b: its error code */
    WF__CTRL_BULK              /* a: bytes of the data message on bulk   */
};

/* A control message, sent as 24 bytes. */
typedef struct wf__mpi_ctrl {
    int32_t kind, channel;
    int64_t a, b;
} wf__mpi_ctrl;

#endif /* WF_INTERNAL_MPI_WIRE_H */
