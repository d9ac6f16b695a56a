/* SPDX-License-Identifier: Apache-2.0 */
/* version: the headers' WF_VERSION_* macros and wf_version() agree with
 * the version in project() of CMakeLists.txt, which the build passes in as
 * WEFT_PROJECT_VERSION{,_MAJOR,_MINOR,_PATCH}.  A release that changes one
 * and not the others fails here. */
#include "check.h"

int main(void)
{
    CHECK_EQ(WF_VERSION_MAJOR, WEFT_PROJECT_VERSION_MAJOR);
    CHECK_EQ(WF_VERSION_MINOR, WEFT_PROJECT_VERSION_MINOR);
    CHECK_EQ(WF_VERSION_PATCH, WEFT_PROJECT_VERSION_PATCH);

    const char *v = wf_version();
    CHECK(v != NULL);
    CHECK_MSG(strcmp(v, WEFT_PROJECT_VERSION) == 0,
              "wf_version() = \"%s\", "
              "project() says \"%s\"",
              v, WEFT_PROJECT_VERSION);
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", WF_VERSION_MAJOR, WF_VERSION_MINOR,
             WF_VERSION_PATCH);
    CHECK_MSG(strcmp(v, want) == 0,
              "wf_version() = \"%s\", headers say "
              "\"%s\"",
              v, want);
    CHECK_DONE("version");
}
