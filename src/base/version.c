/* SPDX-License-Identifier: Apache-2.0 */
/* wf_version: the version the library was built with, from the
 * WF_VERSION_* macros of weft/common.h. */
#include "weft/common.h"

#define WF__STR(x) #x
#define WF__XSTR(x) WF__STR(x)

const char *wf_version(void)
{
    return WF__XSTR(WF_VERSION_MAJOR) "." WF__XSTR(
        WF_VERSION_MINOR) "." WF__XSTR(WF_VERSION_PATCH);
}
