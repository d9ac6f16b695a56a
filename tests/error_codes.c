/* SPDX-License-Identifier: Apache-2.0 */
/* error_codes: the range of codes reserved for the application.
 *
 * Proves: WF_EUSER(0) .. WF_EUSER(999) are -1000 .. -1999, the range
 * WF_EUSER_FIRST .. WF_EUSER_LAST; wf_strerror says "application error"
 * and wf_err_name "WF_EUSER(n)" for each of them (the same pointer on every
 * call, so it may be kept), and "unknown error" / "WF_UNKNOWN" just outside
 * it; no code of weft's own table lies in it; and a group task's
 * WF_EUSER(n) comes back unchanged from wf_group_wait. */
#include <stdio.h>
#include <string.h>

#include "check.h"

static void test_range(void)
{
    CHECK_EQ(WF_EUSER_FIRST, -1000);
    CHECK_EQ(WF_EUSER_LAST, -1999);
    CHECK_EQ(WF_EUSER(0), WF_EUSER_FIRST);
    CHECK_EQ(WF_EUSER(999), WF_EUSER_LAST);
    for (int n = 0; n <= 999; n++) {
        char want[32];
        snprintf(want, sizeof want, "WF_EUSER(%d)", n);
        const char *name = wf_err_name(WF_EUSER(n));
        CHECK_MSG(strcmp(name, want) == 0, "%d: %s", WF_EUSER(n), name);
        CHECK(wf_err_name(-1000 - n) == name);
        CHECK_MSG(strcmp(wf_strerror(-1000 - n), "application error") == 0,
                  "%d: %s", -1000 - n, wf_strerror(-1000 - n));
    }
    int outside[] = {-999, -2000, -100000};
    for (int i = 0; i < 3; i++) {
        CHECK(strcmp(wf_strerror(outside[i]), "unknown error") == 0);
        CHECK(strcmp(wf_err_name(outside[i]), "WF_UNKNOWN") == 0);
    }
}

/* weft's own codes lie above the application's range. */
static void test_table_outside(void)
{
#define CHECK_OUTSIDE(name, val, msg)                                          \
    CHECK((val) < 0 && (val) > WF_EUSER_FIRST);                                \
    CHECK(strcmp(wf_strerror(WF_##name), "application error") != 0);
    WF_ERRNO_MAP(CHECK_OUTSIDE)
#undef CHECK_OUTSIDE
}

static int fail_task(wf_group_task *t)
{
    (void)t;
    return WF_EUSER(42);
}

/* A body's code is what the wait returns, unchanged. */
static void test_passed_through(void)
{
    wf_pool *p = check_pool(2);
    wf_group g;
    wf_group_task t = {0};
    CHECK_OK(wf_group_init(&g, p, NULL));
    CHECK_OK(wf_group_spawn(&g, &t, fail_task));
    int err = wf_group_wait(&g);
    CHECK_ERR(err, WF_EUSER(42));
    CHECK(strcmp(wf_err_name(err), "WF_EUSER(42)") == 0);
    CHECK_OK(wf_pool_destroy(p));
}

int main(void)
{
    test_range();
    test_table_outside();
    test_passed_through();
    CHECK_DONE("error_codes");
}
