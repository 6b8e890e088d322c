/*
 * want.c - a claim's relation (struct claim_want) decided on an interval,
 * written as text, and read back from text (errata's expect:); estimates
 * carried through ratios, differences and sums; the median's rank and width.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"
#include "want.h"

/* The band of values a numeric relation accepts; strict ends are open. */
struct band {
	double lo, hi;
	int lo_open, hi_open;
};

static int want_band(const struct claim_want *w, struct band *b)
{
	double tol;

	b->lo = -INFINITY, b->hi = INFINITY, b->lo_open = b->hi_open = 0;
	if (!strcmp(w->op, "near")) {
		tol = w->abs_tol + w->rel_tol * fabs(w->a);
		if (!isfinite(tol) || tol < 0)
			return -1;
		b->lo = w->a - tol, b->hi = w->a + tol;
	} else if (!strcmp(w->op, "ge") || !strcmp(w->op, "ratio_ge")) {
		b->lo = w->a;
	} else if (!strcmp(w->op, "gt")) {
		b->lo = w->a, b->lo_open = 1;
	} else if (!strcmp(w->op, "le") || !strcmp(w->op, "ratio_le")) {
		b->hi = w->a;
	} else if (!strcmp(w->op, "lt")) {
		b->hi = w->a, b->hi_open = 1;
	} else if (!strcmp(w->op, "in_range")) {
		if (!isfinite(w->b) || w->b < w->a)
			return -1;
		b->lo = w->a, b->hi = w->b;
	} else {
		return -1;
	}
	return isfinite(w->a) ? 0 : -1;
}

int lab_want_edges(const struct claim_want *w, double *lo, double *hi)
{
	struct band b;

	if (!strcmp(w->op, "eq") && !w->name && isfinite(w->a)) {
		*lo = *hi = w->a;
		return 0;
	}
	if (want_band(w, &b) < 0)
		return -1;
	*lo = b.lo, *hi = b.hi;
	return 0;
}

static int above_lo(const struct band *b, double x)
{
	return b->lo_open ? x > b->lo : x >= b->lo;
}

static int below_hi(const struct band *b, double x)
{
	return b->hi_open ? x < b->hi : x <= b->hi;
}

static int exact_verdict(const struct claim_want *w, struct lab_est got, const char *got_name)
{
	if (!isfinite(got.value))
		return LAB_FAILS;
	if (!strcmp(w->op, "true"))
		return got.value != 0 ? LAB_HOLDS : LAB_FAILS;
	if (w->name && got_name && got_name[0] && isnan(w->a))
		return !strcmp(w->name, got_name) ? LAB_HOLDS : LAB_FAILS;
	return got.value == w->a ? LAB_HOLDS : LAB_FAILS;
}

int lab_relation_verdict(const struct claim_want *w, struct lab_est got, const char *got_name)
{
	struct band b;
	double lo = got.lo, hi = got.hi;

	if (!w || !w->op)
		return LAB_FAILS;
	if (!strcmp(w->op, "eq") || !strcmp(w->op, "true"))
		return exact_verdict(w, got, got_name);
	if (!isfinite(got.value) || want_band(w, &b) < 0)
		return LAB_FAILS;
	/* an interval end that is missing or on the wrong side is unbounded */
	if (!(lo <= got.value))
		lo = -INFINITY;
	if (!(hi >= got.value))
		hi = INFINITY;
	if (above_lo(&b, lo) && below_hi(&b, hi))
		return LAB_HOLDS;
	if (!below_hi(&b, lo) || !above_lo(&b, hi))
		return LAB_FAILS;
	return LAB_STRADDLES;
}

const char *lab_want_text(const struct claim_want *w, char *buf, size_t len)
{
	const char *op = w && w->op ? w->op : "?";

	if (!strcmp(op, "near") && w->rel_tol > 0 && w->abs_tol == 0)
		snprintf(buf, len, "near %g +- %g %%", w->a, 100 * w->rel_tol);
	else if (!strcmp(op, "near") && w->rel_tol == 0)
		snprintf(buf, len, "near %g +- %g", w->a, w->abs_tol);
	else if (!strcmp(op, "near"))
		snprintf(buf, len, "near %g +- (%g + %g %%)", w->a, w->abs_tol, 100 * w->rel_tol);
	else if (!strcmp(op, "ge") || !strcmp(op, "gt") || !strcmp(op, "le") || !strcmp(op, "lt"))
		snprintf(buf, len, "%s %g", op[0] == 'g' ? (op[1] == 'e' ? ">=" : ">") :
			 (op[1] == 'e' ? "<=" : "<"), w->a);
	else if (!strcmp(op, "ratio_ge") || !strcmp(op, "ratio_le"))
		snprintf(buf, len, "ratio %s %g", op[6] == 'g' ? ">=" : "<=", w->a);
	else if (!strcmp(op, "in_range"))
		snprintf(buf, len, "in [%g, %g]", w->a, w->b);
	else if (!strcmp(op, "eq") && w->name)
		snprintf(buf, len, "= %s", w->name);
	else if (!strcmp(op, "eq"))
		snprintf(buf, len, "= %g", w->a);
	else if (!strcmp(op, "true"))
		snprintf(buf, len, "true");
	else
		snprintf(buf, len, "%s", op);
	return buf;
}

int lab_want_parse(const char *text, struct claim_want *w, char *name, size_t namelen)
{
	char op[16], x[64], y[64], extra[8];
	int k = sscanf(text, "%15s %63s %63s %7s", op, x, y, extra);
	static const char *const ops[] = { "ge", "gt", "le", "lt", "in_range", "near", "eq" };

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (k >= 2 && !strcmp(op, ops[i]))
			w->op = ops[i];
	if (!w->op || k > 3)
		return -1;
	if (!strcmp(w->op, "in_range") || !strcmp(w->op, "near")) {
		if (k != 3 || parse_real(x, &w->a) || parse_real(y, !strcmp(w->op, "near") ?
							       &w->abs_tol : &w->b))
			return -1;
		if (!strcmp(w->op, "near"))
			return w->abs_tol < 0 ? -1 : 0;
		return w->b < w->a ? -1 : 0; /* in_range with lo above hi */
	}
	if (k != 2)
		return -1;
	if (!strcmp(w->op, "eq") && (!strcmp(x, "true") || !strcmp(x, "false"))) {
		w->op = "eq";
		w->a = !strcmp(x, "true");
		return 0;
	}
	if (parse_real(x, &w->a) == 0)
		return 0;
	if (strcmp(w->op, "eq") != 0 || strlen(x) >= namelen)
		return -1;
	snprintf(name, namelen, "%s", x);
	w->name = name;
	w->a = NAN; /* compared by name */
	return 0;
}

struct lab_est lab_est_exact(double v)
{
	struct lab_est e = { v, v, v, 0 };

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

/* sqrt(x^2 + y^2) of two log distances: the MOVER's side of an interval. */
static double log_side(double x_end, double x, double y_end, double y)
{
	return hypot(log(x_end / x), log(y_end / y));
}

struct lab_est lab_est_ratio_indep(struct lab_est num, struct lab_est den)
{
	struct lab_est e = lab_est_ratio(num, den);

	if (!(num.lo > 0) || !(den.lo > 0) || !isfinite(num.hi) || !isfinite(den.hi) ||
	    !(num.value > 0) || !(den.value > 0))
		return e; /* the corners, or an infinite interval */
	e.lo = e.value * exp(-log_side(num.value, num.lo, den.hi, den.value));
	e.hi = e.value * exp(log_side(num.hi, num.value, den.value, den.lo));
	return e;
}

struct lab_est lab_est_diff(struct lab_est a, struct lab_est b)
{
	struct lab_est e = { a.value - b.value, a.lo - b.hi, a.hi - b.lo,
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void lab_sort(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
}

double lab_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	lab_sort(v, n);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * [x(j), x(n+1-j)] covers the median with probability 1 - 2 P(B <= j - 1), B ~
 * Binomial(n, 1/2) (estimate.c).  One running sum of P(B = i), in log space so
 * that n in the thousands does not overflow, serves every candidate j: linear
 * in n, for a stopping rule that asks after every sample.
 */
int lab_median_rank(int n, double level)
{
	double cdf = 0, log_half_n = n * log(0.5);
	int j = 0;

	while (j + 1 <= (n + 1) / 2) {
		cdf += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) + log_half_n);
		if (!(1 - 2 * (cdf < 1 ? cdf : 1) >= level))
			break;
		j++;
	}
	return j;
}

double lab_median_width(double *v, int n, int j)
{
	double mid;

	if (j < 1 || j > (n + 1) / 2)
		return INFINITY;
	for (int i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return INFINITY;
	mid = lab_median(v, n);
	if (mid == 0)
		return INFINITY;
	return (v[n - j] - v[j - 1]) / fabs(mid);
}
