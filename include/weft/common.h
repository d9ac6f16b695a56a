/* SPDX-License-Identifier: Apache-2.0 */
/* weft — shared definitions: WF_API, version, errors, allocator, cache line.
 *
 * Every weft function that can fail returns an int: 0 on success or one of
 * the negative WF_E... codes below; a call that reports a body's failure
 * returns the body's code, for which the application has WF_EUSER(n).
 * wf_strerror() and wf_err_name() turn a code into text. */
#ifndef WEFT_COMMON_H
#define WEFT_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Marks the functions the library exports; everything else in it is built
 * with hidden visibility. */
#if defined(WEFT_STATIC_DEFINE) || !defined(__GNUC__)
#define WF_API
#else
#define WF_API __attribute__((visibility("default")))
#endif

/* Private: C11's _Alignas and _Atomic, spelled so that C++ reads the same
 * structs.  In C++ an atomic field is the plain type, aligned to its size as
 * the _Atomic type is in C, so both languages see one layout.  No C++ code
 * touches these fields but the inline fast path of weft/pool.h, which uses
 * the __atomic builtins on them there. */
#ifdef __cplusplus
#define WF__ALIGNAS(n) alignas(n)
#define WF__ATOMIC(T) alignas(sizeof(T)) T
#else
#define WF__ALIGNAS(n) _Alignas(n)
#define WF__ATOMIC(T) _Atomic(T)
#endif

/* Private: defined when ThreadSanitizer instruments this file (gcc says so
 * with __SANITIZE_THREAD__, clang with __has_feature).  The pool's inline
 * counter and the library's seq_cst fences take another form then. */
#if defined(__SANITIZE_THREAD__)
#define WF__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WF__TSAN 1
#endif
#endif

/* Distance that keeps two fields off each other's cache line: 128 bytes,
 * because x86's adjacent-line prefetcher pulls lines in pairs.  Public
 * because the structs of the headers that programs allocate (wf_deque,
 * the pool's fast path) are laid out with it. */
#define WF_CACHE_LINE 128

/* The version of these headers, from the project's version (semantic
 * versioning: while the major version is 0, a minor version may change
 * the API).  wf_version() gives the library's, which may differ from the
 * headers' when a program runs with another libweft.so. */
#define WF_VERSION_MAJOR 0
#define WF_VERSION_MINOR 1
#define WF_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version as "MAJOR.MINOR.PATCH" (the WF_VERSION_* values it
 * was built with).  Any thread; never NULL. */
WF_API const char *wf_version(void);

/* X-macro table of error codes: (NAME, value, message). */
#define WF_ERRNO_MAP(X)                                                        \
    X(EINVAL, -1, "invalid argument")                                          \
    X(ENOMEM, -2, "out of memory")                                             \
    X(EPERM, -3,                                                               \
      "not permitted here: on the default pool, on another "                   \
      "thread's task, or a wait for itself")                                   \
    X(EAGAIN, -4, "resource temporarily unavailable (threads)")                \
    X(ENOTSPAWNED, -5, "task was never spawned")                               \
    X(EJOINED, -6, "task was already joined")                                  \
    X(ERANGE, -7, "value out of range (a configuration field, a size)")        \
    X(EBUSY, -8, "object is busy")                                             \
    X(ECANCELED, -9, "operation canceled")                                     \
    X(ESTATE, -10, "object is not in a state that allows this")                \
    X(ESIZE, -11, "message sizes of the two ports differ")                     \
    X(EEXIST, -12, "it already exists (an edge added twice)")                  \
    X(ENOPORT, -13, "no such port (index out of range, or ambiguous)")         \
    X(ENOENT, -14, "no such object (edge, reservation)")                       \
    X(EDESTROYED, -15, "the node's graph was destroyed")

/* The codes: WF_OK (0, success), and a WF_E... constant for each row of
 * the table above (WF_EINVAL = -1, ...), all above WF_EUSER_FIRST. */
enum {
    WF_OK = 0,
#define WF__ERR_ENUM(name, val, msg) WF_##name = (val),
    WF_ERRNO_MAP(WF__ERR_ENUM)
#undef WF__ERR_ENUM
};

/* Codes reserved for the application, for the errors a program passes
 * through weft: a group task's return, wf_pipeline_fail, a graph node
 * body's return.  WF_EUSER(0) .. WF_EUSER(999) are -1000 (WF_EUSER_FIRST)
 * down to -1999 (WF_EUSER_LAST).  weft's own codes stay above -1000, so a
 * code in this range always came from the program.  Any other negative
 * code a program returns is passed through as well, but may one day mean
 * a weft error. */
#define WF_EUSER_FIRST (-1000)
#define WF_EUSER_LAST (-1999)
#define WF_EUSER(n) (WF_EUSER_FIRST - (n))

/* Human-readable message for an error code: the table's message,
 * "success" for 0, "application error" for WF_EUSER_FIRST ..
 * WF_EUSER_LAST, "unknown error" otherwise.
 * Any thread; never NULL. */
WF_API const char *wf_strerror(int err);

/* Symbolic name of an error code, e.g. "WF_ENOMEM"; "WF_OK" for 0,
 * "WF_EUSER(n)" for an application's code (WF_EUSER(0) = -1000),
 * "WF_UNKNOWN" otherwise.  Any thread; never NULL, a string that lives as
 * long as the program. */
WF_API const char *wf_err_name(int err);

/* Optional allocator for a pool (wf_pool_config) or a graph
 * (wf_graph_config).  alloc returns memory aligned as malloc's is, or
 * NULL; free is given the size that was allocated.  Any function left
 * NULL falls back to malloc/free.  Both may be called from any thread.
 * Tests use it to inject allocation failures. */
typedef struct wf_allocator {
    void *(*alloc)(size_t size, void *ctx);
    void (*free)(void *ptr, size_t size, void *ctx);
    void *ctx;
} wf_allocator;

#ifdef __cplusplus
}
#endif
#endif /* WEFT_COMMON_H */
