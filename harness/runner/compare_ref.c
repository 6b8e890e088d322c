/*
 * compare_ref.c - the statistics of compare and a reference built from
 * several nodes (compare.h): per figure its median, MAD, min, max and the
 * band outside which a node's value is flagged; per claim the verdicts seen
 * and their majority; per machine fact the values seen and the most common.
 *
 * The fleet's band, median +- 3 x 1.4826 x MAD, is the robust stand-in for
 * mean +- 3 standard deviations: the factor 1.4826 makes the MAD comparable
 * with the standard deviation of normally distributed values (as Praat's
 * manual states for its MAD:
 * http://www.fon.hum.uva.nl/praat/manual/Table__Get_median_absolute_deviation___.html),
 * and one bad node barely moves a median or a MAD, where it would move a
 * mean and a standard deviation enough to hide itself.
 *
 * A baseline's band is a 95 % prediction interval for one new run: the
 * range of n runs covers a new run of the same machine only with
 * probability (n - 1) / (n + 1) (60 % for 4 runs), so a healthy run lands
 * outside it in some of its 117 figures every time.  Rates and times are
 * positive and their noise multiplies (a slow step is slow by a share), so
 * the interval is taken on ln(value) and is not symmetric about the median.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "want.h"

double cmp_mad(const double *v, int n, double median, double *scratch)
{
	for (int i = 0; i < n; i++)
		scratch[i] = fabs(v[i] - median);
	return lab_median(scratch, n);
}

double cmp_pct_off(double value, double median)
{
	if (!isfinite(median) || median == 0 || !isfinite(value))
		return NAN;
	return 100 * (value - median) / fabs(median);
}

enum cmp_bad cmp_bad_dir(const char *unit)
{
	if (cmp_word_in("GB/s GiB/s MB/s MiB/s TFLOP/s GFLOP/s", unit))
		return CMP_BAD_LOW;
	if (cmp_word_in("ns us ms s ms/GiB us/GiB s/GiB", unit))
		return CMP_BAD_HIGH;
	return CMP_BAD_NONE;
}

/*
 * t(0.975, df), the two-sided 95 % critical value of Student's t, for df 1
 * to 30, 40, 60 and 120, to 3 decimals: NIST/SEMATECH e-Handbook of
 * Statistical Methods, 1.3.6.7.2 "Critical Values of the Student's t
 * Distribution" (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm,
 * column 0.975; it lists 100 rather than 120), and the "Critical Values for
 * t-Interval" table of Kozak's Statistics Using Technology
 * (stats.libretexts.org, Statistics_with_Technology_2e_(Kozak), appendix 12.01
 * "Critical Values for t-Interval", 95 % column); each value was also
 * checked by integrating t's density.
 */
static const struct { int df; double t; } t975_rows[] = {
	{ 1, 12.706 }, { 2, 4.303 }, { 3, 3.182 }, { 4, 2.776 }, { 5, 2.571 },
	{ 6, 2.447 }, { 7, 2.365 }, { 8, 2.306 }, { 9, 2.262 }, { 10, 2.228 },
	{ 11, 2.201 }, { 12, 2.179 }, { 13, 2.160 }, { 14, 2.145 }, { 15, 2.131 },
	{ 16, 2.120 }, { 17, 2.110 }, { 18, 2.101 }, { 19, 2.093 }, { 20, 2.086 },
	{ 21, 2.080 }, { 22, 2.074 }, { 23, 2.069 }, { 24, 2.064 }, { 25, 2.060 },
	{ 26, 2.056 }, { 27, 2.052 }, { 28, 2.048 }, { 29, 2.045 }, { 30, 2.042 },
	{ 40, 2.021 }, { 60, 2.000 }, { 120, 1.980 },
};
#define T975_NORMAL 1.960 /* df above the table's last row */

double cmp_t975(int df)
{
	size_t i, n = sizeof(t975_rows) / sizeof(t975_rows[0]);

	if (df < 1)
		return NAN;
	if (df > t975_rows[n - 1].df)
		return T975_NORMAL;
	for (i = n - 1; t975_rows[i].df > df; i--)
		; /* the row of the largest listed df <= df: its t is the larger */
	return t975_rows[i].t;
}

int cmp_prediction(const double *v, int n, double *lo, double *hi)
{
	double sum = 0, sq = 0, mean, half;
	int i, positive = 1;

	*lo = *hi = NAN;
	if (n < 2)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return -1;
		positive &= v[i] > 0;
	}
	for (i = 0; i < n; i++)
		sum += positive ? log(v[i]) : v[i];
	mean = sum / n;
	for (i = 0; i < n; i++) {
		double d = (positive ? log(v[i]) : v[i]) - mean;

		sq += d * d;
	}
	half = cmp_t975(n - 1) * sqrt(sq / (n - 1)) * sqrt(1 + 1.0 / n);
	*lo = positive ? exp(mean - half) : mean - half;
	*hi = positive ? exp(mean + half) : mean + half;
	return 0;
}

void cmp_spread(struct cmp_ref_fig *f, enum cmp_spread_rule rule)
{
	double floor = CMP_SPREAD_FLOOR * fabs(f->median);

	f->pred_lo = f->pred_hi = NAN;
	if (rule == CMP_SPREAD_FLEET) {
		double half = fmax(CMP_MAD_K * CMP_MAD_NORMAL * f->mad, floor);

		f->spread_lo = f->median - half;
		f->spread_hi = f->median + half;
		return;
	}
	f->spread_lo = fmin(f->lo_min, f->median - floor);
	f->spread_hi = fmax(f->hi_max, f->median + floor);
	/* one run (or an old file without values): its range is all there is */
	if (cmp_prediction(f->values, f->nvalues, &f->pred_lo, &f->pred_hi))
		return;
	f->spread_lo = fmin(f->spread_lo, f->pred_lo);
	f->spread_hi = fmax(f->spread_hi, f->pred_hi);
}

enum cmp_verdict cmp_majority(const int count[CMP_NVERDICTS])
{
	int v, best = CMP_NVERDICTS;

	for (v = 0; v < CMP_NVERDICTS; v++)
		if (count[v] > 0 && (best == CMP_NVERDICTS || count[v] > count[best]))
			best = v;
	return (enum cmp_verdict)best;
}

static int verdict_broken(enum cmp_verdict v)
{
	return v == CMP_V_FAIL || v == CMP_V_ERROR || v == CMP_V_NOT_RUN;
}

const char *cmp_verdict_change(enum cmp_verdict now, enum cmp_verdict ref)
{
	if (now == ref)
		return NULL;
	/* worse only from a verdict that held: inconclusive or skip -> fail says
	 * less about the node than pass -> fail does */
	if (verdict_broken(now) && (ref == CMP_V_PASS || ref == CMP_V_KNOWN))
		return "worse";
	if ((now == CMP_V_PASS || now == CMP_V_KNOWN) && verdict_broken(ref))
		return "better";
	return "changed";
}

/* ------------------------------------------------------------------------ */
/* Building a reference: every node's entries in one array, sorted by name,
 * then one pass over each run of equal names. */

struct fig_entry {
	const struct cmp_figure *f;
	int node;                /* the node's index: the runs' order within a key */
};

static int fig_entry_cmp(const void *a, const void *b)
{
	const struct fig_entry *x = a, *y = b;
	int c = strcmp(x->f->key, y->f->key);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Figure stats from e[0..k-1] (one key, in run order); scratch holds 2k
 * doubles. */
static void fig_stats(struct cmp_ref_fig *rf, const struct fig_entry *e, int k, double *scratch,
		      enum cmp_spread_rule rule)
{
	double *v = scratch, *dev = scratch + k;

	rf->values = cmp_calloc((size_t)k, sizeof(*rf->values));
	snprintf(rf->key, sizeof(rf->key), "%s", e[0].f->key);
	snprintf(rf->unit, sizeof(rf->unit), "%s", e[0].f->unit);
	rf->n = rf->nvalues = k;
	rf->lo_min = INFINITY;
	rf->hi_max = -INFINITY;
	for (int i = 0; i < k; i++) {
		const struct cmp_figure *f = e[i].f;

		rf->values[i] = v[i] = f->value; /* v: the copy lab_median sorts */
		rf->lo_min = fmin(rf->lo_min, isfinite(f->lo) ? f->lo : f->value);
		rf->hi_max = fmax(rf->hi_max, isfinite(f->hi) ? f->hi : f->value);
		rf->has_interval |= isfinite(f->lo) || isfinite(f->hi);
	}
	rf->median = lab_median(v, k);
	rf->min = v[0];
	rf->max = v[k - 1];
	rf->mad = cmp_mad(v, k, rf->median, dev);
	cmp_spread(rf, rule);
}

static void build_figures(struct cmp_ref *r, struct cmp_node *const *nodes, int n,
			  enum cmp_spread_rule rule)
{
	struct fig_entry *e;
	double *scratch;
	int total = 0, i, k, start;

	for (i = 0; i < n; i++)
		total += nodes[i]->nfig;
	e = cmp_calloc((size_t)total, sizeof(*e));
	scratch = cmp_calloc(2 * (size_t)n, sizeof(*scratch));
	r->fig = cmp_calloc((size_t)total, sizeof(*r->fig));
	for (i = 0, k = 0; i < n; i++)
		for (int j = 0; j < nodes[i]->nfig; j++) {
			e[k].node = i;
			e[k++].f = &nodes[i]->fig[j];
		}
	qsort(e, (size_t)total, sizeof(*e), fig_entry_cmp);
	for (start = 0; start < total; start = k) {
		for (k = start + 1; k < total && !strcmp(e[k].f->key, e[start].f->key); k++)
			;
		/* a node lists a key once, so a run is at most n long */
		fig_stats(&r->fig[r->nfig++], e + start, k - start > n ? n : k - start, scratch,
			  rule);
	}
	free(e);
	free(scratch);
}

static struct cmp_ref_claim *ref_claim_add(struct cmp_ref *r, const char *id)
{
	struct cmp_ref_claim *c = (struct cmp_ref_claim *)cmp_ref_claim_find(r, id);

	if (c)
		return c;
	c = &r->claim[r->nclaim++];
	snprintf(c->id, sizeof(c->id), "%s", id);
	cmp_ref_sort(r); /* keeps the lookup a binary search; claims are few */
	return (struct cmp_ref_claim *)cmp_ref_claim_find(r, id);
}

static void build_claims(struct cmp_ref *r, struct cmp_node *const *nodes, int n)
{
	int total = 0, i, j;

	for (i = 0; i < n; i++)
		total += nodes[i]->nclaim;
	r->claim = cmp_calloc((size_t)total, sizeof(*r->claim));
	for (i = 0; i < n; i++)
		for (j = 0; j < nodes[i]->nclaim; j++)
			ref_claim_add(r, nodes[i]->claim[j].id)
				->count[nodes[i]->claim[j].verdict]++;
	for (i = 0; i < r->nclaim; i++)
		r->claim[i].majority = cmp_majority(r->claim[i].count);
}

static struct cmp_ref_fact *ref_fact_add(struct cmp_ref *r, const char *name)
{
	for (int i = 0; i < r->nfact; i++)
		if (!strcmp(r->fact[i].name, name))
			return &r->fact[i];
	if (r->nfact == CMP_MAX_FACTS)
		return NULL;
	snprintf(r->fact[r->nfact].name, sizeof(r->fact[0].name), "%s", name);
	return &r->fact[r->nfact++];
}

static void ref_fact_count(struct cmp_ref_fact *f, const char *value)
{
	int i;

	for (i = 0; i < f->nvalues && strcmp(f->value[i], value); i++)
		;
	if (i == f->nvalues) {
		if (f->nvalues == CMP_FACT_VALUES)
			return; /* a fact this varied names no reference value anyway */
		snprintf(f->value[f->nvalues++], sizeof(f->value[0]), "%s", value);
	}
	if (++f->count[i] > f->count[f->majority])
		f->majority = i;
}

static void build_facts(struct cmp_ref *r, struct cmp_node *const *nodes, int n)
{
	r->fact = cmp_calloc(CMP_MAX_FACTS, sizeof(*r->fact));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < nodes[i]->nfact; j++) {
			struct cmp_ref_fact *f = ref_fact_add(r, nodes[i]->fact[j].name);

			if (f)
				ref_fact_count(f, nodes[i]->fact[j].value);
		}
}

void cmp_ref_build(struct cmp_ref *r, struct cmp_node *const *nodes, int n,
		  enum cmp_spread_rule rule)
{
	memset(r, 0, sizeof(*r));
	r->word = rule == CMP_SPREAD_FLEET ? "the fleet" : "the baseline";
	r->min_n = rule == CMP_SPREAD_FLEET ? CMP_MIN_FLEET : 1;
	r->nruns = n;
	if (n > 0) {
		r->key = nodes[0]->key;
		r->quick = nodes[0]->quick;
	}
	build_figures(r, nodes, n, rule);
	build_claims(r, nodes, n);
	build_facts(r, nodes, n);
	cmp_ref_sort(r);
}

void cmp_ref_free(struct cmp_ref *r)
{
	for (int i = 0; r->fig && i < r->nfig; i++)
		free(r->fig[i].values);
	free(r->fig);
	free(r->claim);
	free(r->fact);
	memset(r, 0, sizeof(*r));
}

/* The arrays begin with the name (key, id, name), so one comparison does. */
static int by_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

void cmp_ref_sort(struct cmp_ref *r)
{
	if (r->fig)
		qsort(r->fig, (size_t)r->nfig, sizeof(*r->fig), by_name);
	if (r->claim)
		qsort(r->claim, (size_t)r->nclaim, sizeof(*r->claim), by_name);
	if (r->fact)
		qsort(r->fact, (size_t)r->nfact, sizeof(*r->fact), by_name);
}

const struct cmp_ref_fig *cmp_ref_figure(const struct cmp_ref *r, const char *key)
{
	return r->nfig ? bsearch(key, r->fig, (size_t)r->nfig, sizeof(*r->fig), by_name) : NULL;
}

const struct cmp_ref_claim *cmp_ref_claim_find(const struct cmp_ref *r, const char *id)
{
	return r->nclaim ? bsearch(id, r->claim, (size_t)r->nclaim, sizeof(*r->claim), by_name)
			 : NULL;
}

const char *cmp_ref_fact(const struct cmp_ref *r, const char *name)
{
	const struct cmp_ref_fact *f =
		r && r->nfact ? bsearch(name, r->fact, (size_t)r->nfact, sizeof(*r->fact), by_name)
			      : NULL;

	return f && f->nvalues ? f->value[f->majority] : NULL;
}
