/*
 * stats.c - statistics of measured series and the measuring helper.  The
 * samples live in chunks that are only appended to, freed at exit: what
 * makes `struct lab_stats` a small value (lab.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "usage.h"

/* ---- the samples' storage ---- */

#define CHUNK_DOUBLES 8192 /* 64 KiB; a larger request gets a chunk of its own */

struct chunk {
	struct chunk *next;
	size_t cap, used; /* doubles */
	double v[];
};

static struct chunk *chunks; /* the newest first: the one appended to */
static pthread_mutex_t chunks_lock = PTHREAD_MUTEX_INITIALIZER;
static int chunks_armed;     /* atexit done */
static struct lab *chunks_lab; /* the running lab, for lab_error; NULL in tests */

static void chunks_free(void)
{
	struct chunk *next;

	pthread_mutex_lock(&chunks_lock);
	for (struct chunk *c = chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	chunks = NULL;
	pthread_mutex_unlock(&chunks_lock);
}

void stats_storage_owner(struct lab *L)
{
	chunks_lab = L;
}

/*
 * n doubles that stay valid until exit (NULL for n <= 0).  Out of memory is
 * the lab's error (exit 99): a series cannot be made without its samples.
 */
static double *samples_alloc(int n)
{
	struct chunk *c;
	double *p = NULL;
	size_t want = n > 0 ? (size_t)n : 0;

	if (!want)
		return NULL;
	pthread_mutex_lock(&chunks_lock);
	c = chunks;
	if (!c || c->cap - c->used < want) {
		int own = want > CHUNK_DOUBLES / 2;
		size_t cap = own ? want : CHUNK_DOUBLES;

		c = malloc(sizeof(*c) + sizeof(double) * cap);
		if (c) {
			c->cap = cap;
			c->used = 0;
			if (own && chunks) {
				/* a big one is filled at once: keep appending to the head */
				c->next = chunks->next;
				chunks->next = c;
			} else {
				c->next = chunks;
				chunks = c;
			}
			if (!chunks_armed && atexit(chunks_free) == 0)
				chunks_armed = 1;
		}
	}
	if (c) {
		p = c->v + c->used;
		c->used += want;
	}
	pthread_mutex_unlock(&chunks_lock);
	if (!p) {
		if (chunks_lab)
			lab_error(chunks_lab, "out of memory for a series of %d samples", n);
		error("out of memory for a series of %d samples", n);
		exit(99);
	}
	return p;
}

/* 1 if p points into the storage above. */
static int samples_owned(const double *p)
{
	int owned = 0;

	pthread_mutex_lock(&chunks_lock);
	for (const struct chunk *c = chunks; c && !owned; c = c->next)
		owned = p >= c->v && p < c->v + c->used;
	pthread_mutex_unlock(&chunks_lock);
	return owned;
}

struct lab_stats stats_kept(const struct lab_stats *s)
{
	struct lab_stats k = *s;

	if (k.n > 0 && k.samples && !samples_owned(k.samples)) {
		double *v = samples_alloc(k.n);

		memcpy(v, k.samples, sizeof(double) * (size_t)k.n);
		k.samples = v;
	}
	return k;
}

/* ---- statistics ---- */

void lab_stats_compute(struct lab_stats *s)
{
	double sorted[LAB_MAX_SAMPLES], sum = 0, var = 0;
	int n = s->n;

	if (n <= 0 || n > LAB_MAX_SAMPLES || !s->samples) {
		s->n = n < 0 || !s->samples ? 0 : (n > LAB_MAX_SAMPLES ? LAB_MAX_SAMPLES : n);
		if (s->n == 0) {
			s->median = s->min = s->max = s->mean = s->cv = NAN;
			return;
		}
		n = s->n;
	}
	for (int i = 0; i < n; i++) {
		if (!isfinite(s->samples[i])) {
			/* qsort cannot order NaN: a broken series has no statistics */
			s->median = s->min = s->max = s->mean = s->cv = NAN;
			return;
		}
	}
	memcpy(sorted, s->samples, sizeof(double) * (size_t)n);
	s->median = lab_median(sorted, n);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	for (int i = 0; i < n; i++)
		sum += s->samples[i];
	s->mean = sum / n;
	for (int i = 0; i < n; i++)
		var += (s->samples[i] - s->mean) * (s->samples[i] - s->mean);
	var = n > 1 ? var / (n - 1) : 0;
	s->cv = s->mean != 0 ? sqrt(var) / fabs(s->mean) : NAN;
}

void lab_stats_to_rate(const struct lab_stats *secs, uint64_t bytes,
		       struct lab_stats *rate)
{
	int n = secs->n > 0 && secs->samples ? secs->n : 0;
	double *v = samples_alloc(n); /* rate's own: secs and its copies keep theirs */

	for (int i = 0; i < n; i++)
		v[i] = secs->samples[i] > 0 ? (double)bytes / secs->samples[i] / 1e9 : NAN;
	if (rate != secs)
		*rate = *secs;
	rate->n = n;
	rate->samples = v;
	rate->unit = "GB/s";
	lab_stats_compute(rate);
}

void lab_stats_scale(struct lab_stats *s, double k, const char *unit)
{
	int n = s->n > 0 && s->samples ? s->n : 0;
	double *v = samples_alloc(n); /* a new array: copies of s keep the old one */

	for (int i = 0; i < n; i++)
		v[i] = s->samples[i] * k;
	s->n = n;
	s->samples = v;
	s->unit = unit;
	lab_stats_compute(s);
}

void lab_stats_from(struct lab_stats *s, const char *name, const char *unit,
		    const double *samples, int n, double clock_res_s)
{
	double res = clock_res_s > 0 ? clock_res_s : lab_clock_resolution();
	int too_short = 0;
	double *v;

	n = n < 0 || !samples ? 0 : (n > LAB_MAX_SAMPLES ? LAB_MAX_SAMPLES : n);
	v = samples_alloc(n); /* before *s is cleared: samples may be s->samples */
	for (int i = 0; i < n; i++) {
		v[i] = samples[i];
		if (!(samples[i] >= 100 * res) && unit && strcmp(unit, "s") == 0)
			too_short = 1;
	}
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->unit = unit;
	s->clock_res_s = res;
	s->n = n;
	s->samples = v;
	s->too_short = too_short;
	lab_stats_compute(s);
}

void lab_stats_paired_ratio(struct lab *L, struct lab_stats *out, const char *name,
			    const struct lab_stats *num, const struct lab_stats *den)
{
	double ratio[LAB_MAX_SAMPLES];

	if (num->n != den->n || num->n < 0 || num->n > LAB_MAX_SAMPLES)
		lab_error(L, "paired series '%s' and '%s' differ in length (%d, %d)",
			  num->name, den->name, num->n, den->n);
	for (int i = 0; i < num->n; i++)
		ratio[i] = den->samples[i] != 0 ? num->samples[i] / den->samples[i] : NAN;
	lab_stats_from(out, name, "x", ratio, num->n, num->clock_res_s);
	out->too_short = num->too_short || den->too_short;
	out->remeasured = num->remeasured || den->remeasured;
	out->noisy = num->noisy || den->noisy;
}

/*
 * Appends up to `samples` runs of fn to buf[out->n ..) (after `warmup`
 * discarded runs), buf holding `cap`; then out's samples are buf.
 */
static void measure_more(struct lab *L, const char *name, lab_run_fn fn, void *ctx,
			 int warmup, int samples, double *buf, int cap,
			 struct lab_stats *out)
{
	double floor_s = 100 * out->clock_res_s;

	for (int i = 0; i < warmup; i++)
		if (fn(ctx) < 0)
			lab_error(L, "measurement '%s' failed in warm-up run %d", name, i + 1);
	for (int i = 0; i < samples && out->n < cap; i++) {
		double t = fn(ctx);

		if (t < 0 || !isfinite(t))
			lab_error(L, "measurement '%s' failed in sample %d", name, out->n + 1);
		if (t < floor_s)
			out->too_short = 1;
		buf[out->n++] = t;
	}
	out->samples = buf;
	lab_stats_compute(out);
}

/*
 * The stopping rule (lab.h, LAB_STOP_WIDTH): after the minimum, one sample
 * at a time until the median's interval is narrow enough or the cap is
 * reached.  One array of the cap's size, filled in order: nothing else
 * holds it until *out is complete.
 */
/* The stopping rule's note: a series that took more than its minimum of samples,
 * with its interval's width (% of the median) before and after. */
static void note_remeasured(struct lab *L, const char *name, double first_pct, int first_n,
			    double pct, int n, int noisy)
{
	if (noisy)
		lab_note(L, MSG("stats.noisy", "%s: 95 %% interval %.0f %% of the median after %d "
				"samples, still %.0f %% after %d, the most it takes: noisy"), name,
			 first_pct, first_n, pct, n);
	else
		lab_note(L, MSG("stats.narrowed", "%s: 95 %% interval %.0f %% of the median after "
				"%d samples, %.0f %% after %d"), name, first_pct, first_n, pct, n);
}

void lab_measure(struct lab *L, const char *name, lab_run_fn fn, void *ctx,
		 const struct lab_measure_cfg *cfg, struct lab_stats *out)
{
	int warmup = cfg && cfg->warmup > 0 ? cfg->warmup : 2;
	int samples = cfg && cfg->samples > 0 ? cfg->samples : L->opt.iters;
	double cv_max = cfg && cfg->cv_max > 0 ? cfg->cv_max : 0.10;
	int cap;
	double *buf, first_width;

	if (cfg && cfg->warmup < 0)
		warmup = 0;
	if (samples > LAB_MAX_SAMPLES / 2)
		samples = LAB_MAX_SAMPLES / 2;
	cap = cfg && cfg->max_samples > 0 ? cfg->max_samples : 2 * samples;
	cap = cap < samples ? samples : cap > LAB_MAX_SAMPLES ? LAB_MAX_SAMPLES : cap;
	memset(out, 0, sizeof(*out));
	out->name = name;
	out->unit = "s";
	out->warmup = warmup;
	out->cv_max = cv_max;
	out->clock_res_s = cfg && cfg->clock_res_s > 0 ? cfg->clock_res_s : lab_clock_resolution();
	buf = samples_alloc(cap);
	measure_more(L, name, fn, ctx, warmup, samples, buf, cap, out);
	first_width = lab_median_interval_width(buf, out->n);
	while (out->n < cap && !lab_stop_narrow(buf, out->n))
		measure_more(L, name, fn, ctx, 0, 1, buf, cap, out);
	out->remeasured = out->n > samples;
	out->noisy = !lab_stop_narrow(buf, out->n);
	if (out->remeasured)
		note_remeasured(L, name, 100 * first_width, samples,
				100 * lab_median_interval_width(buf, out->n), out->n, out->noisy);
	if (out->too_short)
		lab_note(L, MSG("stats.too-short", "warning: %s: a sample took under 100 clock "
				"steps (%.0f ns); its claims are inconclusive"), name,
			 out->clock_res_s * 1e9);
}

/* ---- a series: its points, each a kept copy of a stats ---- */

static struct lab_series *find_series(struct lab *L, const char *name, const char *x_unit)
{
	struct lab_series *s;

	for (int i = 0; i < L->nseries; i++)
		if (strcmp(L->series[i].name, name) == 0)
			return &L->series[i];
	s = realloc(L->series, sizeof(*s) * (size_t)(L->nseries + 1));
	if (!s)
		lab_error(L, "out of memory");
	L->series = s;
	s = &L->series[L->nseries++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->x_unit, sizeof(s->x_unit), "%s", x_unit ? x_unit : "");
	return s;
}

void lab_series_point(struct lab *L, const char *series, const char *x_unit,
		      double x, const struct lab_stats *y)
{
	struct lab_series *s = find_series(L, series, x_unit);

	if (s->npts == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		struct lab_point *p = realloc(s->pts, sizeof(*p) * (size_t)cap);

		if (!p)
			lab_error(L, "out of memory");
		s->pts = p;
		s->cap = cap;
	}
	s->pts[s->npts].x = x;
	s->pts[s->npts].y = stats_kept(y);
	s->npts++;
}
