/* SPDX-License-Identifier: Apache-2.0 */
/* integrate: adaptive quadrature with typed tasks (weft/task.h) whose
 * frames carry six doubles: the interval, the function's values at its
 * ends and midpoint, and the tolerance.  Each task either accepts
 * Simpson's rule on its interval or spawns its left half and calls its
 * right half with half the tolerance.  The parallel sum adds the same
 * numbers in the same order as the sequential recursion, so the results
 * are equal bit for bit.
 *
 * Build: cc -O2 integrate.c $(pkg-config --cflags --libs weft) -lm
 * Run:   ./integrate    prints  integral of sin(x) exp(-x/5) ... (ok) */
#include <math.h>
#include <stdio.h>
#include <weft.h>
#include <weft/task.h>

static double f(double x)
{
    return sin(x) * exp(-x / 5);
}

/* Simpson's rule on [a, b] from f(a), f((a + b) / 2) and f(b). */
static double simpson(double a, double b, double fa, double fm, double fb)
{
    return (b - a) / 6 * (fa + 4 * fm + fb);
}

/* One step: the estimate if it is good enough (with Richardson's
 * correction), else NAN and the midpoints' values in *flm and *frm. */
static double step(double a, double b, double fa, double fm, double fb,
                   double eps, double *flm, double *frm)
{
    double m = (a + b) / 2;
    *flm = f((a + m) / 2);
    *frm = f((m + b) / 2);
    double whole = simpson(a, b, fa, fm, fb);
    double two = simpson(a, m, fa, *flm, fm) + simpson(m, b, fm, *frm, fb);
    return fabs(two - whole) <= 15 * eps ? two + (two - whole) / 15 : NAN;
}

WF_TASK(double, quad, double, a, double, b, double, fa, double, fm, double, fb,
        double, eps)
{
    double flm, frm, done = step(a, b, fa, fm, fb, eps, &flm, &frm);
    if (!isnan(done))
        return done;
    double m = (a + b) / 2;
    WF_SPAWN(quad, a, m, fa, flm, fm, eps / 2);
    double right = WF_CALL(quad, m, b, fm, frm, fb, eps / 2);
    return WF_SYNC(quad) + right;
}

static double quad_seq(double a, double b, double fa, double fm, double fb,
                       double eps)
{
    double flm, frm, done = step(a, b, fa, fm, fb, eps, &flm, &frm);
    if (!isnan(done))
        return done;
    double m = (a + b) / 2;
    double left = quad_seq(a, m, fa, flm, fm, eps / 2);
    return left + quad_seq(m, b, fm, frm, fb, eps / 2);
}

int main(void)
{
    double a = 0, b = 20, eps = 1e-11;
    double par = 0;
    int err = WF_RUN(wf_pool_default(), quad, &par, a, b, f(a), f((a + b) / 2),
                     f(b), eps);
    if (err) {
        fprintf(stderr, "WF_RUN: %s\n", wf_strerror(err));
        return 1;
    }
    double seq = quad_seq(a, b, f(a), f((a + b) / 2), f(b), eps);
    printf("integral of sin(x) exp(-x/5) over [0, 20]: %.10f, %s\n", par,
           par == seq ? "same as sequential (ok)" : "WRONG");
    return par != seq;
}
