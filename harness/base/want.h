/*
 * want.h - what a claim is decided by, with no lab around it: the relation
 * (struct claim_want, written with the WANT_* macros), the estimate with its
 * interval (struct lab_est) and the arithmetic of intervals, the verdict of
 * a relation on an interval, the relation as text and parsed back
 * (errata.md's expect: lines), and the median's interval rank and width (the
 * stopping rule's).  The base layer: lab.h, the errata and the runner all use it.
 */
#ifndef DMALAB_WANT_H
#define DMALAB_WANT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The relation a claim is decided by: what the chapter says, by the rule in
 * README.md ("How a verdict is made").  Write it with the WANT_* macros.
 *
 *   op        a (and b)               passes when the got interval [lo, hi]
 *   near      want a, abs/rel tol     lies inside a +- (abs + rel*|a|)
 *   ge gt     bound a                 lies at or above (above) a
 *   le lt     bound a                 lies at or below (below) a
 *   in_range  a = lo, b = hi          lies inside [a, b]
 *   ratio_ge  k = a                   (a ratio of two medians) >= k
 *   ratio_le  k = a                   (a ratio of two medians) <= k
 *   eq        integer a, name         equals a exactly (an errno or CUDA
 *                                     error: name is its symbol)
 *   true      -                       the observation was made (got = 1)
 */
struct claim_want {
	const char *op;
	double a, b;
	double abs_tol, rel_tol;
	const char *unit; /* got's unit: "x", "ms", "GB/s", "fraction", "errno" */
	const char *name; /* eq on a code: "ENOMEM", "cudaSuccess"; else NULL */
};

#define WANT_NEAR(v, rel, unit)         { "near", (v), 0, 0, (rel), (unit), NULL }
#define WANT_NEAR_ABS(v, abs, unit)     { "near", (v), 0, (abs), 0, (unit), NULL }
#define WANT_GE(v, unit)                { "ge", (v), 0, 0, 0, (unit), NULL }
#define WANT_GT(v, unit)                { "gt", (v), 0, 0, 0, (unit), NULL }
#define WANT_LE(v, unit)                { "le", (v), 0, 0, 0, (unit), NULL }
#define WANT_LT(v, unit)                { "lt", (v), 0, 0, 0, (unit), NULL }
#define WANT_RANGE(lo, hi, unit)        { "in_range", (lo), (hi), 0, 0, (unit), NULL }
#define WANT_RATIO_GE(k)                { "ratio_ge", (k), 0, 0, 0, "x", NULL }
#define WANT_RATIO_LE(k)                { "ratio_le", (k), 0, 0, 0, "x", NULL }
#define WANT_INT(n, unit)               { "eq", (double)(n), 0, 0, 0, (unit), NULL }
#define WANT_ERRNO(code, name)          { "eq", (double)(code), 0, 0, 0, "errno", (name) }
#define WANT_CUDA_ERR(code, name)       { "eq", (double)(code), 0, 0, 0, "cudaError_t", (name) }
#define WANT_TRUE                       { "true", 1, 0, 0, 0, "", "true" }

/* What a claim is decided on: a value and its interval [lo, hi] (exact: lo =
 * value = hi); too_short: timed too close to its clock's step. */
struct lab_est {
	double value, lo, hi;
	int too_short;
};

/* Confidence of every claim's interval (all its series together): 95 %. */
#define LAB_CONFIDENCE 0.95

/* An exact value: lo = value = hi. */
struct lab_est lab_est_exact(double v);
/* num / den with [num.lo / den.hi, num.hi / den.lo] (both positive).  When
 * den's interval reaches 0 or num's goes below 0 the interval is infinite
 * (a claim on it is inconclusive); the value is NaN when den.value <= 0 or
 * num.value < 0. */
struct lab_est lab_est_ratio(struct lab_est num, struct lab_est den);
/*
 * num / den of two independently measured positive quantities, each with its
 * own 95 % interval: MOVER in log space (Zou and Donner, Statistics in
 * Medicine 27:1693, 2008), so two 95 % intervals give about 95 %, where
 * lab_est_ratio's corners would give 99.9 %.  Not for dependent quantities.
 */
struct lab_est lab_est_ratio_indep(struct lab_est num, struct lab_est den);
/* a - b with [a.lo - b.hi, a.hi - b.lo]. */
struct lab_est lab_est_diff(struct lab_est a, struct lab_est b);
/* k * a (k may be negative: the ends swap). */
struct lab_est lab_est_scale(struct lab_est a, double k);
/* max(a, b): each end the max of the two ends (max is monotone in both). */
struct lab_est lab_est_max(struct lab_est a, struct lab_est b);
/* x / d for an x of either sign over a positive d (infinite when d's interval
 * reaches 0; NaN when d.value <= 0). */
struct lab_est lab_est_over(struct lab_est x, struct lab_est d);

/* Result of a relation on an interval (lab_relation_verdict). */
#define LAB_HOLDS 1
#define LAB_FAILS 0
#define LAB_STRADDLES (-1)

/* The relation w on got (got_name: for eq on a named code; may be NULL); a
 * non-finite value or an unknown op fails. */
int lab_relation_verdict(const struct claim_want *w, struct lab_est got,
			 const char *got_name);
/* The values a numeric relation accepts, as [lo, hi]; -1 for a name, "true" or
 * a malformed relation. */
int lab_want_edges(const struct claim_want *w, double *lo, double *hi);
/* The relation as text: "near 2 +- 25 %", "ratio >= 3", "= ENOMEM". */
const char *lab_want_text(const struct claim_want *w, char *buf, size_t len);

/* Parse "ge 3", "in_range 1.25 16", "near 2 0.5" (absolute), "eq ENOMEM",
 * "eq true" (a name goes into name); -1 for anything else. */
int lab_want_parse(const char *text, struct claim_want *w, char *name, size_t namelen);

/* v[0..n) in ascending order (no NaN in it). */
void lab_sort(double *v, int n);

/* Median of v[0..n) (v is reordered). NaN for n == 0.  The labs' series
 * and compare's references (runner) both take it. */
double lab_median(double *v, int n);

/*
 * The largest rank j (from 1) such that [x(j), x(n+1-j)] of n samples covers
 * their median with probability >= level; 0 when even [min, max] does not.
 * The labs' intervals (estimate.c) and `dmalab bench` take it.
 */
int lab_median_rank(int n, double level);

/*
 * The stopping rule (README, "How a verdict is made"): a series is measured
 * enough once its median's 95 % interval spans at most LAB_STOP_WIDTH of
 * the median (about +- 5 %), so that a ratio of two is known to about
 * +- 10 %, the tightest tolerance of any rule (R7).  It looks at the spread
 * only, never at a verdict.
 */
#define LAB_STOP_WIDTH 0.10
/* (x(n+1-j) - x(j)) / |median| of v[0..n) (v is sorted in place): the width of
 * the median's interval at rank j (lab_median_rank) as a share of the median;
 * +Inf when j is 0, a value is not finite, or the median is 0. */
double lab_median_width(double *v, int n, int j);

#ifdef __cplusplus
}
#endif
#endif
