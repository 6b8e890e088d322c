/*
 * estimate.c - a median with its interval, and intervals carried through
 * ratios, differences and sums (lab.h, "Estimates").
 *
 * The interval on a median comes from order statistics: for n samples of
 * any continuous distribution, the number below the true median is
 * Binomial(n, 1/2), so [x(j), x(n+1-j)] covers it with probability
 * 1 - 2 P(B <= j - 1).  No shape is assumed: one outlier moves an end by
 * one rank, never the whole interval.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

struct lab_est lab_est_exact(double v)
{
	struct lab_est e = { v, v, v, 0 };

	return e;
}

/* P(B <= k) for B ~ Binomial(n, 1/2), summed in log space (n up to 2048). */
static double binom_half_cdf(int n, int k)
{
	double sum = 0, log_half_n = n * log(0.5);
	int i;

	for (i = 0; i <= k && i <= n; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) + log_half_n);
	return sum < 1 ? sum : 1;
}

/*
 * The largest j (1-based rank) such that [x(j), x(n+1-j)] covers the median
 * with probability >= level; 0 when even [min, max] does not.
 */
static int median_rank(int n, double level)
{
	int j = 0;

	while (j + 1 <= (n + 1) / 2 && 1 - 2 * binom_half_cdf(n, j) >= level)
		j++;
	return j;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct lab_est lab_est_median(const struct lab_stats *s, int nseries)
{
	double *sorted;
	double level = 1 - (1 - LAB_CONFIDENCE) / (nseries > 0 ? nseries : 1);
	struct lab_est e = { s->median, -INFINITY, INFINITY, s->too_short };
	int j;

	if (s->n <= 0 || !isfinite(s->median))
		return e;
	j = median_rank(s->n, level);
	if (j == 0)
		return e;
	sorted = malloc(sizeof(double) * (size_t)s->n);
	if (!sorted)
		return e;
	memcpy(sorted, s->samples, sizeof(double) * (size_t)s->n);
	qsort(sorted, (size_t)s->n, sizeof(double), cmp_double);
	e.lo = sorted[j - 1];
	e.hi = sorted[s->n - j];
	free(sorted);
	return e;
}

struct lab_est lab_est_ratio(struct lab_est num, struct lab_est den)
{
	struct lab_est e;

	e.too_short = num.too_short || den.too_short;
	e.value = den.value != 0 ? num.value / den.value : NAN;
	if (!(num.lo >= 0) || !(den.lo > 0)) {
		/* a ratio of quantities that may be 0 or negative has no
		 * meaningful interval from its ends */
		e.lo = -INFINITY;
		e.hi = INFINITY;
		if (!(den.value > 0) || !(num.value >= 0))
			e.value = NAN;
		return e;
	}
	e.lo = num.lo / den.hi;
	e.hi = num.hi / den.lo;
	return e;
}

struct lab_est lab_est_diff(struct lab_est a, struct lab_est b)
{
	struct lab_est e = { a.value - b.value, a.lo - b.hi, a.hi - b.lo,
			     a.too_short || b.too_short };

	return e;
}

struct lab_est lab_est_sum(struct lab_est a, struct lab_est b)
{
	struct lab_est e = { a.value + b.value, a.lo + b.lo, a.hi + b.hi,
			     a.too_short || b.too_short };

	return e;
}

struct lab_est lab_est_scale(struct lab_est a, double k)
{
	struct lab_est e = { k * a.value, k * a.lo, k * a.hi, a.too_short };

	if (k < 0) {
		e.lo = k * a.hi;
		e.hi = k * a.lo;
	}
	return e;
}

struct lab_est lab_est_max(struct lab_est a, struct lab_est b)
{
	struct lab_est m = { a.value > b.value ? a.value : b.value, a.lo > b.lo ? a.lo : b.lo,
			     a.hi > b.hi ? a.hi : b.hi, a.too_short || b.too_short };

	return m;
}

struct lab_est lab_est_over(struct lab_est x, struct lab_est d)
{
	struct lab_est q = { d.value > 0 ? x.value / d.value : NAN, -INFINITY, INFINITY,
			     x.too_short || d.too_short };

	if (d.lo > 0) {
		q.lo = x.lo / (x.lo >= 0 ? d.hi : d.lo);
		q.hi = x.hi / (x.hi >= 0 ? d.lo : d.hi);
	}
	return q;
}
