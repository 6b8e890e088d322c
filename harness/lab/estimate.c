/*
 * estimate.c - a median with its interval and the stopping rule built on it
 * (lab.h); the median rank and the arithmetic of intervals are want.c's.
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

/*
 * The stopping rule adds samples until this same interval is narrow, so it
 * stops on intervals that came out narrow by chance: at the level asked, an
 * extended series covers 93.9-94.4 % where 95 % is meant (the review's
 * simulation; test_estimate.c's).  An extended series is therefore decided
 * at the level of two series: it then covers at least 95 % (the same test),
 * with no further sample taken.
 */
static double median_level(const struct lab_stats *s, int nseries)
{
	int k = (nseries > 0 ? nseries : 1) * (s->remeasured ? 2 : 1);

	return 1 - (1 - LAB_CONFIDENCE) / k;
}

struct lab_est lab_est_median(const struct lab_stats *s, int nseries)
{
	double *sorted;
	double level = median_level(s, nseries);
	struct lab_est e = { s->median, -INFINITY, INFINITY, s->too_short };
	int j;

	if (s->n <= 0 || !isfinite(s->median))
		return e;
	j = lab_median_rank(s->n, level);
	if (j == 0)
		return e;
	sorted = malloc(sizeof(double) * (size_t)s->n);
	if (!sorted)
		return e;
	memcpy(sorted, s->samples, sizeof(double) * (size_t)s->n);
	lab_sort(sorted, s->n);
	e.lo = sorted[j - 1];
	e.hi = sorted[s->n - j];
	free(sorted);
	return e;
}

/*
 * The rank k of the Hodges-Lehmann interval among the Walsh averages: the
 * largest with P(T <= k - 1) <= (1 - level) / 2 for the Wilcoxon
 * signed-rank statistic T of n values; 0 when none reaches the level.
 * Exact up to HL_EXACT_N, then the normal approximation with a continuity
 * correction (within 1e-4 there).  The last answer is kept: a simulation
 * asks for the same n many times.
 */
#define HL_EXACT_N 300

static long signed_rank_normal_k(int n, double tail)
{
	double mean = n * (n + 1.0) / 4, sd = sqrt(n * (n + 1.0) * (2 * n + 1.0) / 24);
	long k = 0;

	while (k < mean && 0.5 * erfc(-((double)k + 0.5 - mean) / (sd * M_SQRT2)) <= tail)
		k++;
	return k;
}

static long signed_rank_k(int n, double level)
{
	static __thread int last_n = -1; /* per thread: no lock */
	static __thread double last_level;
	static __thread long last_k;
	long top = (long)n * (n + 1) / 2, s;
	double *p, cum = 0, tail = (1 - level) / 2;
	int i;

	if (n == last_n && level == last_level)
		return last_k;
	if (n > HL_EXACT_N)
		s = signed_rank_normal_k(n, tail);
	else if ((p = calloc((size_t)top + 1, sizeof(double)))) {
		p[0] = 1;
		for (i = 1; i <= n; i++) /* rank i in the subset or not, each with 1/2 */
			for (s = (long)i * (i + 1) / 2; s >= 0; s--)
				p[s] = (p[s] + (s >= i ? p[s - i] : 0)) / 2;
		for (s = 0; s <= top / 2 && cum + p[s] <= tail; s++)
			cum += p[s];
		free(p);
	} else
		return 0;
	last_n = n, last_level = level, last_k = s;
	return s;
}

/* Hodges-Lehmann on x[0..n) into *e (value, lo, hi), at lab_est_median's level
 * for s; x is s's samples or their logs.  -1, *e untouched, without memory. */
static int hl_walsh(const double *x, int n, const struct lab_stats *s, int nseries,
		     struct lab_est *e)
{
	long m = (long)n * (n + 1) / 2, k, c = 0;
	double *w = malloc(sizeof(double) * (size_t)m);

	if (!w)
		return -1;
	for (int i = 0; i < n; i++) /* the Walsh averages */
		for (int j = i; j < n; j++)
			w[c++] = (x[i] + x[j]) / 2;
	lab_sort(w, m);
	e->value = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	k = signed_rank_k(n, median_level(s, nseries));
	if (k > 0) {
		e->lo = w[k - 1];
		e->hi = w[m - k];
	}
	free(w);
	return 0;
}

struct lab_est lab_est_hl(const struct lab_stats *s, int nseries)
{
	struct lab_est e = { s->median, -INFINITY, INFINITY, s->too_short };

	if (s->n <= 0 || !isfinite(s->median))
		return e;
	for (int i = 0; i < s->n; i++)
		if (!isfinite(s->samples[i]))
			return e;
	hl_walsh(s->samples, s->n, s, nseries, &e);
	return e;
}

struct lab_est lab_est_hl_ratio(const struct lab_stats *s, int nseries)
{
	struct lab_est e = { s->median, -INFINITY, INFINITY, s->too_short };
	double logs[LAB_MAX_SAMPLES];

	if (s->n <= 0 || s->n > LAB_MAX_SAMPLES || !isfinite(s->median))
		return e;
	for (int i = 0; i < s->n; i++) {
		if (!(s->samples[i] > 0) || !isfinite(s->samples[i]))
			return e;
		logs[i] = log(s->samples[i]);
	}
	if (hl_walsh(logs, s->n, s, nseries, &e) < 0)
		return e;
	e.value = exp(e.value);
	if (isfinite(e.lo))
		e.lo = exp(e.lo), e.hi = exp(e.hi);
	return e;
}

struct lab_est lab_est_median_ratio(const struct lab_stats *num, const struct lab_stats *den)
{
	return lab_est_ratio_indep(lab_est_median(num, 1), lab_est_median(den, 1));
}

/*
 * The rank of lab_est_median's 95 % interval (one series) for n samples,
 * computed once per n: the stopping rule asks after every sample.
 */
static int stop_rank(int n)
{
	static int known[LAB_MAX_SAMPLES + 1]; /* rank + 1; 0: not computed yet */
	int k;

	if (n < 1 || n > LAB_MAX_SAMPLES)
		return 0;
	k = __atomic_load_n(&known[n], __ATOMIC_RELAXED);
	if (!k) {
		k = lab_median_rank(n, LAB_CONFIDENCE) + 1;
		__atomic_store_n(&known[n], k, __ATOMIC_RELAXED);
	}
	return k - 1;
}

double lab_median_interval_width(const double *v, int n)
{
	double sorted[LAB_MAX_SAMPLES];
	int j = stop_rank(n);

	if (j == 0 || !v)
		return INFINITY;
	memcpy(sorted, v, sizeof(*v) * (size_t)n);
	return lab_median_width(sorted, n, j);
}

int lab_stop_narrow(const double *v, int n)
{
	return lab_median_interval_width(v, n) <= LAB_STOP_WIDTH;
}
