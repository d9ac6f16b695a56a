/* SPDX-License-Identifier: Apache-2.0 */
/* Error codes: one table (WF_ERRNO_MAP in common.h), two lookups. */
#include "weft/common.h"

const char *wf_strerror(int err)
{
    switch (err) {
    case WF_OK: return "success";
#define WF__ERR_MSG(name, val, msg)                                            \
    case WF_##name: return msg;
        WF_ERRNO_MAP(WF__ERR_MSG)
#undef WF__ERR_MSG
    default: return "unknown error";
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
    default: return "WF_UNKNOWN";
    }
}
