/* SPDX-License-Identifier: Apache-2.0 */
/* Error codes: one table (WF_ERRNO_MAP in common.h), two lookups, and the
 * range reserved for the application (WF_EUSER). */
#include "weft/common.h"

/* weft's own codes must never fall in the application's range: a code
 * there would read as the program's. */
#define WF__ERR_OUTSIDE(name, val, msg)                                        \
    _Static_assert((val) < 0 && (val) > WF_EUSER_FIRST,                        \
                   "WF_" #name " lies in the application's range");
WF_ERRNO_MAP(WF__ERR_OUTSIDE)
#undef WF__ERR_OUTSIDE

/* "WF_EUSER(n)" for n = 0 .. 999, built by the preprocessor so that
 * wf_err_name returns a constant string from any thread: a digit row
 * (WF__EU_D), a hundred (WF__EU_H); 1-digit, 2-digit, 3-digit numbers in
 * that order, so that the row of n is n. */
#define WF__EU_D(p)                                                            \
    p "0)", p "1)", p "2)", p "3)", p "4)", p "5)", p "6)", p "7)", p "8)",    \
        p "9)"
#define WF__EU_H(p)                                                            \
    WF__EU_D(p "0"), WF__EU_D(p "1"), WF__EU_D(p "2"), WF__EU_D(p "3"),        \
        WF__EU_D(p "4"), WF__EU_D(p "5"), WF__EU_D(p "6"), WF__EU_D(p "7"),    \
        WF__EU_D(p "8"), WF__EU_D(p "9")
#define WF__EU_1_TO_9(m, p)                                                    \
    m(p "1"), m(p "2"), m(p "3"), m(p "4"), m(p "5"), m(p "6"), m(p "7"),      \
        m(p "8"), m(p "9")

static const char user_names[][sizeof "WF_EUSER(999)"] = {
    WF__EU_D("WF_EUSER("),
    WF__EU_1_TO_9(WF__EU_D, "WF_EUSER("),
    WF__EU_1_TO_9(WF__EU_H, "WF_EUSER("),
};
_Static_assert(sizeof user_names / sizeof user_names[0] ==
                   WF_EUSER_FIRST - WF_EUSER_LAST + 1,
               "one name per code of the application's range");

static int is_user(int err)
{
    return err <= WF_EUSER_FIRST && err >= WF_EUSER_LAST;
}

const char *wf_strerror(int err)
{
    switch (err) {
    case WF_OK: return "success";
#define WF__ERR_MSG(name, val, msg)                                            \
    case WF_##name: return msg;
        WF_ERRNO_MAP(WF__ERR_MSG)
#undef WF__ERR_MSG
    default: return is_user(err) ? "application error" : "unknown error";
    }
}

const char *wf_err_name(int err)
{
    switch (err) {
    case WF_OK: return "WF_OK";
#define WF__ERR_NAME(name, val, msg)                                           \
    case WF_##name: return "WF_" #name;
        WF_ERRNO_MAP(WF__ERR_NAME)
#undef WF__ERR_NAME
    default:
        return is_user(err) ? user_names[WF_EUSER_FIRST - err] : "WF_UNKNOWN";
    }
}
