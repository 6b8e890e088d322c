/*
 * stats.c - statistics of measured series and the measuring helper.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lab_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

void lab_stats_compute(struct lab_stats *s)
{
	double sorted[LAB_MAX_SAMPLES], sum = 0, var = 0;
	int i, n = s->n;

	if (n <= 0 || n > LAB_MAX_SAMPLES) {
		s->n = n < 0 ? 0 : (n > LAB_MAX_SAMPLES ? LAB_MAX_SAMPLES : n);
		if (s->n == 0) {
			s->median = s->min = s->max = s->mean = s->cv = NAN;
			return;
		}
		n = s->n;
	}
	for (i = 0; i < n; i++) {
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
	for (i = 0; i < n; i++)
		sum += s->samples[i];
	s->mean = sum / n;
	for (i = 0; i < n; i++)
		var += (s->samples[i] - s->mean) * (s->samples[i] - s->mean);
	var = n > 1 ? var / (n - 1) : 0;
	s->cv = s->mean != 0 ? sqrt(var) / fabs(s->mean) : NAN;
}

void lab_stats_to_rate(const struct lab_stats *secs, uint64_t bytes,
		       struct lab_stats *rate)
{
	int i;

	if (rate != secs)
		*rate = *secs;
	for (i = 0; i < rate->n; i++)
		rate->samples[i] = secs->samples[i] > 0 ?
			(double)bytes / secs->samples[i] / 1e9 : NAN;
	rate->unit = "GB/s";
	lab_stats_compute(rate);
}

void lab_stats_scale(struct lab_stats *s, double k, const char *unit)
{
	int i;

	for (i = 0; i < s->n; i++)
		s->samples[i] *= k;
	s->unit = unit;
	lab_stats_compute(s);
}

void lab_stats_from(struct lab_stats *s, const char *name, const char *unit,
		    const double *samples, int n, double clock_res_s)
{
	double res = clock_res_s > 0 ? clock_res_s : lab_clock_resolution();
	int i;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->unit = unit;
	s->clock_res_s = res;
	s->n = n < 0 ? 0 : (n > LAB_MAX_SAMPLES ? LAB_MAX_SAMPLES : n);
	for (i = 0; i < s->n; i++) {
		s->samples[i] = samples[i];
		if (!(samples[i] >= 100 * res) && unit && strcmp(unit, "s") == 0)
			s->too_short = 1;
	}
	lab_stats_compute(s);
}

/* Appends `samples` runs of fn to out (after `warmup` discarded runs). */
static void measure_more(struct lab *L, const char *name, lab_run_fn fn, void *ctx,
			 int warmup, int samples, struct lab_stats *out)
{
	double floor_s = 100 * out->clock_res_s;
	int i;

	for (i = 0; i < warmup; i++)
		if (fn(ctx) < 0)
			lab_error(L, "measurement '%s' failed in warm-up run %d", name, i + 1);
	for (i = 0; i < samples && out->n < LAB_MAX_SAMPLES; i++) {
		double t = fn(ctx);

		if (t < 0 || !isfinite(t))
			lab_error(L, "measurement '%s' failed in sample %d", name, out->n + 1);
		if (t < floor_s)
			out->too_short = 1;
		out->samples[out->n++] = t;
	}
	lab_stats_compute(out);
}

void lab_measure(struct lab *L, const char *name, lab_run_fn fn, void *ctx,
		 const struct lab_measure_cfg *cfg, struct lab_stats *out)
{
	int warmup = cfg && cfg->warmup > 0 ? cfg->warmup : 2;
	int samples = cfg && cfg->samples > 0 ? cfg->samples : L->opt.iters;
	double cv_max = cfg && cfg->cv_max > 0 ? cfg->cv_max : 0.10;

	if (cfg && cfg->warmup < 0)
		warmup = 0;
	if (samples > LAB_MAX_SAMPLES / 2)
		samples = LAB_MAX_SAMPLES / 2;
	memset(out, 0, sizeof(*out));
	out->name = name;
	out->unit = "s";
	out->warmup = warmup;
	out->cv_max = cv_max;
	out->clock_res_s = cfg && cfg->clock_res_s > 0 ? cfg->clock_res_s : lab_clock_resolution();
	measure_more(L, name, fn, ctx, warmup, samples, out);
	if (!(out->cv <= cv_max)) {
		/* more samples narrow the median's interval; a first series that
		 * caught a slow stretch is kept, not thrown away */
		lab_note(L, "%s: cv %.3f > %.2f, taking %d more samples", name, out->cv, cv_max,
			 samples);
		out->remeasured = 1;
		measure_more(L, name, fn, ctx, warmup, samples, out);
		out->noisy = !(out->cv <= cv_max);
	}
	if (out->too_short)
		lab_note(L, "warning: %s: a sample took under 100 clock steps (%.0f ns); "
			 "its claims are inconclusive", name, out->clock_res_s * 1e9);
}
