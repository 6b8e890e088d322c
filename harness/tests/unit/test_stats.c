/*
 * test_stats.c - medians, CV, NaN samples, and the seconds -> GB/s and unit
 * conversions of measured series (harness/lab/stats.c); lab_stats_from;
 * the stopping rule (the median interval's width, and lab_measure taking
 * one sample more at a time until it is met or the cap is reached, on
 * scripted series and on fake ones with known noise), warm-up discarded,
 * too_short against the clock's step (host or CUDA
 * events) making the claims inconclusive; struct lab_stats as a value:
 * copies keep their samples through scale and to_rate, a claim keeps its
 * own, a series of LAB_MAX_SAMPLES.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab.h"
#include "unit_lab.h"

/* A series with the given samples, statistics computed; free() it. */
static struct lab_stats *series(const double *v, int n, const char *unit)
{
	struct lab_stats *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	lab_stats_from(s, "t", unit, v, n, 1e-12);
	return s;
}

static void test_lab_median_odd(void **state)
{
	double v[] = { 9, 1, 5, 3, 7 };

	(void)state;
	assert_true(lab_median(v, 5) == 5);
}

static void test_lab_median_even(void **state)
{
	double v[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(lab_median(v, 4) == 2.5);
}

static void test_lab_median_one_and_none(void **state)
{
	double v[] = { 42 };

	(void)state;
	assert_true(lab_median(v, 1) == 42);
	assert_true(isnan(lab_median(v, 0)));
}

static void test_lab_stats_compute_basic(void **state)
{
	double v[] = { 5, 1, 4, 2, 3 };
	struct lab_stats *s = series(v, 5, "s");

	(void)state;
	assert_int_equal(s->n, 5);
	assert_true(s->median == 3);
	assert_true(s->min == 1);
	assert_true(s->max == 5);
	assert_true(s->mean == 3);
	/* sample standard deviation (n - 1): sqrt(2.5) */
	assert_true(fabs(s->cv - sqrt(2.5) / 3) < 1e-12);
	/* the samples stay in measurement order */
	assert_true(s->samples[0] == 5 && s->samples[4] == 3);
	free(s);
}

static void test_lab_stats_compute_constant_cv_zero(void **state)
{
	double v[] = { 2, 2, 2, 2, 2, 2, 2 };
	struct lab_stats *s = series(v, 7, "s");

	(void)state;
	assert_true(s->cv == 0);
	free(s);
}

static void test_lab_stats_compute_single_sample(void **state)
{
	double v[] = { 0.5 };
	struct lab_stats *s = series(v, 1, "s");

	(void)state;
	assert_true(s->median == 0.5);
	assert_true(s->cv == 0);
	free(s);
}

static void test_lab_stats_compute_empty(void **state)
{
	struct lab_stats *s = series(NULL, 0, "s");

	(void)state;
	assert_int_equal(s->n, 0);
	assert_true(isnan(s->median));
	assert_true(isnan(s->mean));
	assert_true(isnan(s->cv));
	free(s);
}

static void test_lab_stats_compute_zero_mean(void **state)
{
	double v[] = { -1, 1, -1, 1 };
	struct lab_stats *s = series(v, 4, "x");

	(void)state;
	assert_false(isfinite(s->cv)); /* relative spread of a zero mean: undefined */
	free(s);
}

/*
 * A NaN sample (e.g. a zero duration turned into a rate) must not leave a
 * finite median behind: a claim would then be decided on a broken series.
 */
static void test_lab_stats_compute_nan_sample(void **state)
{
	double v[] = { 1, NAN, 3, 2, 5 };
	struct lab_stats *s = series(v, 5, "s");

	(void)state;
	assert_true(isnan(s->mean));
	assert_false(isfinite(s->cv));
	assert_true(isnan(s->median));
	free(s);
}

static void test_lab_stats_compute_nan_first(void **state)
{
	double v[] = { NAN, 1, 2 };
	struct lab_stats *s = series(v, 3, "s");

	(void)state;
	assert_true(isnan(s->median));
	free(s);
}

static void test_lab_stats_to_rate_gbs(void **state)
{
	/* 1 GB (1e9 B) in 0.5, 0.25, 1 s -> 2, 4, 1 GB/s */
	double v[] = { 0.5, 0.25, 1.0 };
	struct lab_stats *secs = series(v, 3, "s");
	struct lab_stats *rate = calloc(1, sizeof(*rate));

	(void)state;
	assert_non_null(rate);
	lab_stats_to_rate(secs, 1000000000ULL, rate);
	assert_string_equal(rate->unit, "GB/s");
	assert_int_equal(rate->n, 3);
	assert_true(fabs(rate->samples[0] - 2) < 1e-12);
	assert_true(fabs(rate->samples[1] - 4) < 1e-12);
	assert_true(fabs(rate->median - 2) < 1e-12);
	assert_true(fabs(rate->max - 4) < 1e-12);
	assert_true(secs->median == 0.5); /* source untouched */
	free(rate);
	free(secs);
}

static void test_lab_stats_to_rate_gib_is_not_gb(void **state)
{
	double v[] = { 1.0 };
	struct lab_stats *secs = series(v, 1, "s");
	struct lab_stats *rate = calloc(1, sizeof(*rate));

	(void)state;
	assert_non_null(rate);
	lab_stats_to_rate(secs, GiB, rate);
	assert_true(fabs(rate->median - 1.073741824) < 1e-12);
	free(rate);
	free(secs);
}

static void test_lab_stats_to_rate_in_place(void **state)
{
	double v[] = { 2.0, 4.0, 1.0 };
	struct lab_stats *s = series(v, 3, "s");

	(void)state;
	lab_stats_to_rate(s, 4000000000ULL, s);
	assert_true(fabs(s->median - 2) < 1e-12);
	assert_true(fabs(s->samples[2] - 4) < 1e-12);
	free(s);
}

static void test_lab_stats_to_rate_zero_duration(void **state)
{
	double v[] = { 0.0, 1.0, 1.0 };
	struct lab_stats *secs = series(v, 3, "s");
	struct lab_stats *rate = calloc(1, sizeof(*rate));

	(void)state;
	assert_non_null(rate);
	lab_stats_to_rate(secs, 1000000000ULL, rate);
	assert_false(isfinite(rate->samples[0])); /* no rate from no time */
	free(rate);
	free(secs);
}

static void test_lab_stats_scale_s_to_ns(void **state)
{
	double v[] = { 1e-6, 2e-6, 3e-6 };
	struct lab_stats *s = series(v, 3, "s");

	(void)state;
	lab_stats_scale(s, 1e9, "ns");
	assert_string_equal(s->unit, "ns");
	assert_true(fabs(s->median - 2000) < 1e-6);
	assert_true(fabs(s->min - 1000) < 1e-6);
	assert_true(fabs(s->cv - 0.5) < 1e-9); /* cv does not change with scale */
	free(s);
}

/* ---- lab_stats_from ---- */

static void test_lab_stats_from_basic(void **state)
{
	double v[] = { 3e-3, 1e-3, 2e-3, 5e-3, 4e-3, 6e-3, 7e-3 };
	struct lab_stats *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	s->noisy = s->remeasured = 1; /* stale fields are cleared */
	lab_stats_from(s, "by_hand", "s", v, 7, 1e-9);
	assert_string_equal(s->name, "by_hand");
	assert_string_equal(s->unit, "s");
	assert_int_equal(s->n, 7);
	assert_true(s->median == 4e-3 && s->min == 1e-3 && s->max == 7e-3);
	assert_true(s->samples[0] == 3e-3); /* measurement order kept */
	assert_true(s->clock_res_s == 1e-9);
	assert_int_equal(s->too_short, 0);
	assert_int_equal(s->noisy, 0);
	assert_int_equal(s->remeasured, 0);
	free(s);
}

static void test_lab_stats_from_too_short(void **state)
{
	double v[] = { 60e-6, 70e-6, 49e-6, 80e-6, 65e-6, 61e-6, 62e-6 };
	double ok[] = { 50e-6, 70e-6, 51e-6, 80e-6, 65e-6, 61e-6, 62e-6 };
	struct lab_stats *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	/* CUDA events step 0.5 us: 100 steps are 50 us; one sample of 49 us */
	lab_stats_from(s, "ev", "s", v, 7, LAB_CUDA_EVENT_RES_S);
	assert_int_equal(s->too_short, 1);
	assert_true(s->clock_res_s == LAB_CUDA_EVENT_RES_S);
	lab_stats_from(s, "ev", "s", ok, 7, LAB_CUDA_EVENT_RES_S);
	assert_int_equal(s->too_short, 0); /* exactly 100 steps is enough */
	/* with the host clock's step the same 49 us are long enough */
	lab_stats_from(s, "host", "s", v, 7, 1e-9);
	assert_int_equal(s->too_short, 0);
	/* clock_res_s 0: lab_now's own step */
	lab_stats_from(s, "host", "s", v, 7, 0);
	assert_true(s->clock_res_s == lab_clock_resolution());
	assert_true(s->clock_res_s > 0);
	free(s);
}

static void test_lab_stats_from_bounds(void **state)
{
	static double v[LAB_MAX_SAMPLES + 10];
	struct lab_stats *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	for (int i = 0; i < LAB_MAX_SAMPLES + 10; i++)
		v[i] = 1 + i;
	lab_stats_from(s, "big", "s", v, LAB_MAX_SAMPLES + 10, 1e-9);
	assert_int_equal(s->n, LAB_MAX_SAMPLES);
	assert_true(s->max == LAB_MAX_SAMPLES);
	lab_stats_from(s, "none", "s", v, -3, 1e-9);
	assert_int_equal(s->n, 0);
	assert_true(isnan(s->median));
	free(s);
}

/* ---- struct lab_stats as a value ---- */

static void assert_samples(const struct lab_stats *s, const double *want, int n)
{
	assert_int_equal(s->n, n);
	for (int i = 0; i < n; i++)
		if (s->samples[i] != want[i])
			fail_msg("%s sample %d: %g, want %g", s->name, i, s->samples[i], want[i]);
}

/* b = a, then b scaled or turned into a rate: a keeps samples and statistics. */
static void test_copies_independent(void **state)
{
	double v[] = { 4e-3, 1e-3, 2e-3, 8e-3, 5e-3 }, ns[5], gbs[5];
	struct lab_stats a, b, c, d, e;

	(void)state;
	for (int i = 0; i < 5; i++) {
		ns[i] = v[i] * 1e9;
		gbs[i] = 1e6 / v[i] / 1e9;
	}
	lab_stats_from(&a, "a", "s", v, 5, 1e-9);
	b = a;
	lab_stats_scale(&b, 1e9, "ns");
	assert_samples(&a, v, 5);
	assert_true(a.median == 4e-3 && a.max == 8e-3);
	assert_string_equal(a.unit, "s");
	assert_samples(&b, ns, 5);
	assert_true(b.median == 4e6);
	assert_ptr_not_equal(a.samples, b.samples);
	/* in place: c was a copy of a */
	c = a;
	lab_stats_to_rate(&c, 1000000, &c);
	assert_samples(&c, gbs, 5);
	assert_string_equal(c.unit, "GB/s");
	assert_samples(&a, v, 5);
	assert_true(a.median == 4e-3);
	/* into a copy of another series: that one's samples stay too */
	d = b;
	e = b;
	lab_stats_to_rate(&a, 1000000, &d);
	assert_samples(&d, gbs, 5);
	assert_samples(&b, ns, 5);
	assert_samples(&e, ns, 5);
	assert_true(e.median == 4e6);
	/* a copy of a result survives the result being scaled again */
	e = c;
	lab_stats_scale(&c, 2, "x");
	assert_samples(&e, gbs, 5);
	assert_true(c.samples[0] == 2 * gbs[0]);
	assert_samples(&a, v, 5);
}

/* lab_stats_from copies: the caller's array may change; it may be s's own. */
static void test_from_copies(void **state)
{
	double v[] = { 3, 1, 2, 5, 4, 7, 6 }, w[7];
	struct lab_stats a, b;

	(void)state;
	memcpy(w, v, sizeof(w));
	lab_stats_from(&a, "a", "x", w, 7, 1e-9);
	w[0] = 100;
	assert_samples(&a, v, 7);
	b = a;
	lab_stats_from(&a, "again", "x", a.samples, a.n, 1e-9); /* its own samples */
	assert_samples(&a, v, 7);
	assert_samples(&b, v, 7);
	assert_true(a.median == 4);
	assert_ptr_not_equal(a.samples, b.samples);
	/* lab_stats_compute only reads */
	lab_stats_compute(&b);
	assert_samples(&b, v, 7);
	assert_true(b.median == 4);
}

/* A series of LAB_MAX_SAMPLES: from, scale, rate, interval, all of it kept. */
static void test_max_samples_series(void **state)
{
	static double v[LAB_MAX_SAMPLES];
	struct lab_stats s, k, r;
	struct lab_est e;

	(void)state;
	for (int i = 0; i < LAB_MAX_SAMPLES; i++)
		v[i] = (double)((i * 37) % LAB_MAX_SAMPLES + 1) * 1e-3; /* 1..1024 ms, shuffled */
	lab_stats_from(&s, "big", "s", v, LAB_MAX_SAMPLES, 1e-9);
	assert_samples(&s, v, LAB_MAX_SAMPLES);
	assert_true(s.min == 1e-3 && s.max == LAB_MAX_SAMPLES * 1e-3);
	assert_true(fabs(s.median - 512.5e-3) < 1e-12);
	e = lab_est_median(&s, 1);
	assert_true(e.lo < s.median && s.median < e.hi);
	assert_true(e.lo > 400e-3 && e.hi < 625e-3);
	k = s;
	lab_stats_scale(&k, 1e3, "ms");
	lab_stats_to_rate(&s, 1000000000ULL, &r);
	assert_int_equal(k.n, LAB_MAX_SAMPLES);
	assert_int_equal(r.n, LAB_MAX_SAMPLES);
	assert_true(fabs(k.samples[LAB_MAX_SAMPLES - 1] - v[LAB_MAX_SAMPLES - 1] * 1e3) < 1e-9);
	assert_true(fabs(r.samples[LAB_MAX_SAMPLES - 1] - 1 / v[LAB_MAX_SAMPLES - 1]) < 1e-9);
	assert_true(fabs(k.max - LAB_MAX_SAMPLES) < 1e-9);
	assert_samples(&s, v, LAB_MAX_SAMPLES);
}

/* Many series: the storage grows past one chunk, earlier series stay put. */
static void test_many_series(void **state)
{
	static struct lab_stats s[400];
	double v[100];

	(void)state;
	for (int j = 0; j < 400; j++) {
		for (int i = 0; i < 100; i++)
			v[i] = j * 1000 + i;
		lab_stats_from(&s[j], "many", "x", v, 100, 1e-9);
	}
	for (int j = 0; j < 400; j++) {
		for (int i = 0; i < 100; i++)
			v[i] = j * 1000 + i;
		assert_samples(&s[j], v, 100);
	}
}

/* ---- lab_measure inside a lab ---- */

/* A run function whose "durations" come from a script, in order. */
struct script {
	const double *v;
	int n, next;
};

static double scripted(void *ctx)
{
	struct script *sc = ctx;

	return sc->next < sc->n ? sc->v[sc->next++] : -1; /* ran off: an error */
}

static const double batch_noisy[] = {
	1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 3e-3,     /* [min, max] spans 200 % */
	1.02e-3,                                       /* 8: still [min, max] */
	1.01e-3,                                       /* 9: [x(2), x(8)] spans 2 % */
	5, 5, 5, 5, 5,                                 /* never taken */
};
static const double batch_clean[] = {
	9, 9,                                          /* warm-up, discarded */
	1e-3, 1.01e-3, 0.99e-3, 1e-3, 1e-3, 1.02e-3, 1e-3,
	5, 5, 5, 5, 5, 5, 5, 5, 5,                     /* never taken */
};
static const double batch_event_short[] = { 20e-6, 21e-6, 20e-6, 21e-6, 20e-6, 21e-6, 20e-6 };
static const double batch_event_long[] = { 60e-6, 61e-6, 60e-6, 62e-6, 60e-6, 61e-6, 60e-6 };
static const double batch_host[] = { 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3 };

static const struct claim_spec measure_claims[] = {
	{ "97.1", "t.Q1", "a wide first batch grows one sample at a time until narrow", NULL,
	  "test", WANT_NEAR(1e-3, 0.25, "s"), NULL },
	{ "97.2", "t.Q1", "a clean first batch is kept alone", NULL, "test",
	  WANT_NEAR(1e-3, 0.25, "s"), NULL },
	{ "97.3", "t.Q2", "event-timed 20 us samples are too short", NULL, "test",
	  WANT_NEAR(20e-6, 0.5, "s"), NULL },
	{ "97.4", "t.Q2", "event-timed 60 us samples are long enough", NULL, "test",
	  WANT_NEAR(60e-6, 0.5, "s"), NULL },
	{ "97.5", "t.Q2", "a ratio on a too-short series is inconclusive", NULL, "test",
	  WANT_RATIO_GE(3), NULL },
	{ "97.6", "t.Q2", "a hand-timed too-short series is inconclusive", NULL, "test",
	  WANT_NEAR(20e-6, 0.5, "s"), NULL },
	{ "97.7", "t.Q1", "remeasured is set for the noisy series only", NULL, "test",
	  WANT_INT(1, "flags"), NULL },
	{ "97.8", "t.Q1", "a noisy series pools to LAB_MAX_SAMPLES", NULL, "test",
	  WANT_INT(LAB_MAX_SAMPLES, "samples"), NULL },
	{ "97.9", "t.Q1", "claims keep their series' samples", NULL, "test",
	  WANT_INT(7, "samples"), NULL },
	{ "97.10", "t.Q3", "+-0.5 % noise: the minimum is enough", NULL, "test",
	  WANT_INT(7, "samples"), NULL },
	{ "97.11", "t.Q3", "+-8 % noise: more samples, stopped once narrow", NULL, "test",
	  WANT_TRUE, NULL },
	{ "97.12", "t.Q3", "+-50 % noise: the cap, noisy", NULL, "test",
	  WANT_INT(20, "samples"), NULL },
	{ "97.13", "t.Q3", "max_samples = samples: a fixed count, however noisy", NULL, "test",
	  WANT_INT(7, "samples"), NULL },
	{ NULL },
};

static const struct lab_spec measure_spec = {
	.id = "97", .title = "lab_measure unit test", .topic = "pooling and too_short",
	.timeout_s = 10, .claims = measure_claims, .default_iters = 7,
};

/* Durations 1 ms and 3 ms in turn: cv 0.5 however many are taken. */
static double alternating(void *ctx)
{
	int *k = ctx;

	return (*k)++ % 2 ? 3e-3 : 1e-3;
}

/*
 * 97.8: the largest series lab_measure makes, attached, then the lab's own
 * copy scaled.  97.9: a series pointing at the lab's stack array, attached
 * and a point of the series "kept", then the array overwritten and the
 * function returned: the claim and the point report the values given.
 */
static void run_measure_values(struct lab *L)
{
	struct lab_measure_cfg big = { -1, LAB_MAX_SAMPLES, 0.10, 1e-9 };
	struct lab_stats s, hand = { 0 };
	double v[7] = { 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3 };
	int k = 0;

	lab_measure(L, "alternating", alternating, &k, &big, &s);
	claim_stats(L, &s);
	lab_stats_scale(&s, 1e3, "ms");
	claim_check_int(L, "97.8", s.n);
	hand.name = "by_pointer";
	hand.unit = "s";
	hand.n = 7;
	hand.samples = v;
	lab_stats_compute(&hand);
	claim_stats(L, &hand);
	lab_series_point(L, "kept", "x", 1, &hand);
	claim_check_int(L, "97.9", hand.n);
	for (int i = 0; i < 7; i++)
		v[i] = -1;
}

/* 1 ms times (1 + spread x u), u uniform in [-1, 1) from a fixed xorshift. */
struct noisy_fake {
	double spread;
	uint64_t x;
};

static double known_noise(void *ctx)
{
	struct noisy_fake *f = ctx;

	f->x ^= f->x << 13;
	f->x ^= f->x >> 7;
	f->x ^= f->x << 17;
	return 1e-3 * (1 + f->spread * ((double)(f->x >> 11) / (double)(1ULL << 52) - 1));
}

/* 97.10-97.13: the stopping rule on series of known noise. */
static void run_known_noise(struct lab *L)
{
	struct lab_measure_cfg dflt = { -1, 7, 0.10, 1e-9, 0 };
	struct lab_measure_cfg cap20 = { -1, 7, 0.10, 1e-9, 20 };
	struct lab_measure_cfg fixed = { -1, 7, 0.10, 1e-9, 7 };
	struct noisy_fake quiet = { 0.005, 88172645463325252ULL }, mid = { 0.08, 7ULL };
	struct noisy_fake wild = { 0.5, 12345ULL }, wild2 = { 0.5, 999ULL };
	struct lab_stats s;

	lab_measure(L, "quiet", known_noise, &quiet, &dflt, &s);
	claim_stats(L, &s);
	claim_check_int(L, "97.10", s.n);
	lab_measure(L, "mid", known_noise, &mid, &cap20, &s);
	claim_stats(L, &s);
	claim_check_true(L, "97.11", s.n > 7 && s.remeasured && !s.noisy &&
			 lab_stop_narrow(s.samples, s.n), "stopped narrow after the minimum");
	lab_measure(L, "wild", known_noise, &wild, &cap20, &s);
	claim_stats(L, &s);
	claim_check_int(L, "97.12", s.noisy && s.remeasured ? s.n : -1);
	lab_measure(L, "wild_fixed", known_noise, &wild2, &fixed, &s);
	claim_stats(L, &s);
	claim_check_int(L, "97.13", !s.remeasured ? s.n : -1);
}

static void run_measure(struct lab *L)
{
	struct lab_stats noisy, clean, ev_short, ev_long, host, by_hand;
	struct script s1 = { batch_noisy, 14, 0 }, s2 = { batch_clean, 18, 0 };
	struct script s3 = { batch_event_short, 7, 0 }, s4 = { batch_event_long, 7, 0 };
	struct script s5 = { batch_host, 7, 0 };
	struct lab_measure_cfg none = { -1, 7, 0.10, 1e-9 };
	struct lab_measure_cfg dflt = { 0, 7, 0.10, 1e-9 };
	struct lab_measure_cfg ev = { -1, 7, 0.10, LAB_CUDA_EVENT_RES_S };

	lab_measure(L, "noisy", scripted, &s1, &none, &noisy);
	claim_check_median(L, "97.1", &noisy);
	lab_measure(L, "clean", scripted, &s2, &dflt, &clean);
	claim_check_median(L, "97.2", &clean);
	lab_measure(L, "ev_short", scripted, &s3, &ev, &ev_short);
	claim_check_median(L, "97.3", &ev_short);
	lab_measure(L, "ev_long", scripted, &s4, &ev, &ev_long);
	claim_check_median(L, "97.4", &ev_long);
	lab_measure(L, "host", scripted, &s5, &none, &host);
	claim_check_ratio(L, "97.5", &host, &ev_short); /* 50x, but too short */
	lab_stats_from(&by_hand, "by_hand", "s", batch_event_short, 7, LAB_CUDA_EVENT_RES_S);
	claim_check_median(L, "97.6", &by_hand);
	claim_check_int(L, "97.7",
			noisy.remeasured + 10 * clean.remeasured + 100 * by_hand.remeasured);
	run_measure_values(L);
	run_known_noise(L);
}

static void test_lab_measure_grows_until_narrow(void **state)
{
	struct unit_lab u;
	const struct json *s, *x;
	int i;

	(void)state;
	unit_run_lab(&measure_spec, run_measure, &u);
	s = unit_stats(&u, "97.1", 0);
	assert_non_null(s);
	assert_string_equal(json_get_str(s, "name", ""), "noisy");
	assert_int_equal((int)json_get_num(s, "n", 0), 9); /* 7, then 2 more, all kept */
	x = json_get(s, "samples");
	assert_non_null(x);
	for (i = 0, x = x->child; x; x = x->next, i++)
		assert_true(fabs(x->num - batch_noisy[i]) < 1e-15);
	assert_int_equal(i, 9);
	assert_true(json_get_num(s, "noisy", -1) == 0); /* narrow before the cap */
	/* an extended series is decided at 1 - 0.05 / 2 (estimate.c, median_level): at n = 9
	 * that is [min, max], which holds the 3 ms sample */
	assert_string_equal(unit_status(&u, "97.1"), "inconclusive");
	assert_string_equal(unit_status(&u, "97.7"), "pass"); /* remeasured: noisy only */
	/* the lab narrates the extra samples */
	assert_non_null(strstr(u.tap, "noisy: 95 % interval 200 % of the median after 7 samples, "
			       "2 % after 9"));
	unit_lab_free(&u);
}

/* 97.10-97.13, and 97.11 stopped at the first count that met the rule. */
static void test_lab_measure_known_noise(void **state)
{
	struct unit_lab u;
	const struct json *s, *x;
	double v[LAB_MAX_SAMPLES];
	int i, n;

	(void)state;
	unit_run_lab(&measure_spec, run_measure, &u);
	assert_string_equal(unit_status(&u, "97.10"), "pass");
	assert_string_equal(unit_status(&u, "97.11"), "pass");
	assert_string_equal(unit_status(&u, "97.12"), "pass");
	assert_string_equal(unit_status(&u, "97.13"), "pass");
	s = unit_stats(&u, "97.11", 0);
	assert_non_null(s);
	n = (int)json_get_num(s, "n", 0);
	x = json_get(s, "samples");
	for (i = 0, x = x ? x->child : NULL; x && i < LAB_MAX_SAMPLES; x = x->next, i++)
		v[i] = x->num;
	assert_int_equal(i, n);
	assert_true(n > 7 && n < 20);
	for (i = 7; i < n; i++)
		assert_false(lab_stop_narrow(v, i)); /* wide at every count before */
	assert_true(lab_stop_narrow(v, n));
	s = unit_stats(&u, "97.13", 0);
	assert_non_null(s);
	assert_true(json_get_num(s, "noisy", -1) == 1); /* +-50 %: wide, and it says so */
	unit_lab_free(&u);
}

/* The width itself: the ranks of lab_est_median's 95 % interval. */
static void test_median_interval_width(void **state)
{
	double five[] = { 1, 2, 3, 4, 5 };
	double six[] = { 6, 1, 5, 2, 4, 3 };
	double nine[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	double edge[] = { 10, 10, 9.5, 10, 10, 10.5, 10 };
	double zero[] = { -1, 0, 1, 0, 0, 0, 2 };
	double nan7[] = { 1, 1, 1, NAN, 1, 1, 1 };

	(void)state;
	assert_true(isinf(lab_median_interval_width(five, 5))); /* 5 cannot give 95 % */
	/* n = 6: [x(1), x(6)] (96.9 %); median 3.5 */
	assert_true(fabs(lab_median_interval_width(six, 6) - 5 / 3.5) < 1e-12);
	/* n = 9: [x(2), x(8)] (96.1 %), not [min, max]: (8 - 2) / 5 */
	assert_true(fabs(lab_median_interval_width(nine, 9) - 6.0 / 5) < 1e-12);
	/* exactly LAB_STOP_WIDTH is narrow enough */
	assert_true(lab_median_interval_width(edge, 7) == 0.1);
	assert_true(lab_stop_narrow(edge, 7));
	edge[5] = 10.51;
	assert_false(lab_stop_narrow(edge, 7));
	assert_true(isinf(lab_median_interval_width(zero, 7)));
	assert_true(isinf(lab_median_interval_width(nan7, 7)));
	assert_false(lab_stop_narrow(nan7, 7));
	assert_true(isinf(lab_median_interval_width(NULL, 7)));
	assert_true(isinf(lab_median_interval_width(nine, LAB_MAX_SAMPLES + 1)));
}

/* The base layer's rank and width, which `dmalab bench` takes for any n: past
 * the labs' cap too, on samples in any order. */
static void test_median_rank_and_width_any_n(void **state)
{
	static double v[2 * LAB_MAX_SAMPLES];
	double nine[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	int n = 2 * LAB_MAX_SAMPLES, j;

	(void)state;
	assert_int_equal(lab_median_rank(5, LAB_CONFIDENCE), 0);
	assert_int_equal(lab_median_rank(6, LAB_CONFIDENCE), 1);
	assert_int_equal(lab_median_rank(9, LAB_CONFIDENCE), 2);
	assert_true(fabs(lab_median_width(nine, 9, 2) - 6.0 / 5) < 1e-12);
	assert_true(isinf(lab_median_width(nine, 9, 0)));
	for (int i = 0; i < n; i++)
		v[i] = n - i; /* n .. 1, descending */
	j = lab_median_rank(n, LAB_CONFIDENCE);
	assert_true(j > 1 && j < n / 2);
	assert_true(fabs(lab_median_width(v, n, j) - (n + 1.0 - 2 * j) / (n / 2 + 0.5)) <
		    1e-12);
}

/* The width is lab_est_median's interval, for every n a series can have. */
static void test_median_interval_width_is_the_estimate(void **state)
{
	static double v[LAB_MAX_SAMPLES];
	struct lab_stats s;
	struct lab_est e;
	uint64_t x = 42;
	int n, i;

	(void)state;
	for (i = 0; i < LAB_MAX_SAMPLES; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		v[i] = 1 + (double)(x >> 11) / (double)(1ULL << 53);
	}
	for (n = 1; n <= LAB_MAX_SAMPLES; n += n < 64 ? 1 : 37) {
		lab_stats_from(&s, "w", "x", v, n, 1e-9);
		e = lab_est_median(&s, 1);
		if (isinf(e.hi))
			assert_true(isinf(lab_median_interval_width(v, n)));
		else
			assert_true(fabs(lab_median_interval_width(v, n) -
					 (e.hi - e.lo) / s.median) < 1e-12);
	}
}

static void test_lab_measure_clean_batch_alone(void **state)
{
	struct unit_lab u;
	const struct json *s, *x;

	(void)state;
	unit_run_lab(&measure_spec, run_measure, &u);
	s = unit_stats(&u, "97.2", 0);
	assert_non_null(s);
	assert_int_equal((int)json_get_num(s, "n", 0), 7);
	assert_int_equal((int)json_get_num(s, "warmup", 0), 2);
	x = json_get(s, "samples");
	assert_true(x && x->child && x->child->num == 1e-3); /* the warm-up runs dropped */
	assert_true(json_get_num(s, "max", 0) < 1); /* no warm-up value, no batch 2 */
	assert_true(json_get_num(s, "noisy", -1) == 0);
	assert_true(json_get_num(s, "too_short", -1) == 0);
	assert_string_equal(unit_status(&u, "97.2"), "pass");
	unit_lab_free(&u);
}

static void test_lab_measure_values_kept(void **state)
{
	struct unit_lab u;
	const struct json *s, *x;
	int i;

	(void)state;
	unit_run_lab(&measure_spec, run_measure, &u);
	assert_string_equal(unit_status(&u, "97.8"), "pass");
	s = unit_stats(&u, "97.8", 0);
	assert_non_null(s);
	/* --iters' bound is half of it: the second batch fills it */
	assert_int_equal((int)json_get_num(s, "n", 0), LAB_MAX_SAMPLES);
	assert_string_equal(json_get_str(s, "unit", ""), "s"); /* attached before the scale */
	assert_true(json_get_num(s, "noisy", -1) == 1);
	x = json_get(s, "samples");
	assert_non_null(x);
	for (i = 0, x = x->child; x; x = x->next, i++)
		assert_true(x->num == (i % 2 ? 3e-3 : 1e-3));
	assert_int_equal(i, LAB_MAX_SAMPLES);
	assert_string_equal(unit_status(&u, "97.9"), "pass");
	s = unit_stats(&u, "97.9", 0);
	assert_non_null(s);
	x = json_get(s, "samples");
	assert_non_null(x);
	for (i = 0, x = x->child; x; x = x->next, i++)
		assert_true(x->num == (i + 1) * 1e-3);
	assert_int_equal(i, 7);
	x = json_get(json_get(json_get(u.rec, "series"), "kept"), "points");
	assert_true(x && x->child);
	x = json_get(json_get(x->child, "stats"), "samples");
	assert_non_null(x);
	for (i = 0, x = x->child; x; x = x->next, i++)
		assert_true(x->num == (i + 1) * 1e-3);
	assert_int_equal(i, 7);
	unit_lab_free(&u);
}

static void test_lab_measure_too_short_is_inconclusive(void **state)
{
	struct unit_lab u;
	const struct json *c;

	(void)state;
	unit_run_lab(&measure_spec, run_measure, &u);
	/* 20 us under a 0.5 us clock: 40 steps; the relation itself would hold */
	assert_true(json_get_num(unit_stats(&u, "97.3", 0), "too_short", -1) == 1);
	assert_string_equal(unit_status(&u, "97.3"), "inconclusive");
	c = unit_claim(&u, "97.3");
	assert_non_null(strstr(json_get_str(c, "detail", ""), "100 steps"));
	assert_true(json_get_num(unit_stats(&u, "97.4", 0), "too_short", -1) == 0);
	assert_string_equal(unit_status(&u, "97.4"), "pass");
	assert_string_equal(unit_status(&u, "97.5"), "inconclusive");
	assert_string_equal(unit_status(&u, "97.6"), "inconclusive");
	assert_non_null(strstr(u.tap, "ev_short: a sample took under 100 clock steps"));
	/* passes and inconclusives only: the lab passes */
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "pass");
	unit_lab_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_median_odd),
		cmocka_unit_test(test_lab_median_even),
		cmocka_unit_test(test_lab_median_one_and_none),
		cmocka_unit_test(test_lab_stats_compute_basic),
		cmocka_unit_test(test_lab_stats_compute_constant_cv_zero),
		cmocka_unit_test(test_lab_stats_compute_single_sample),
		cmocka_unit_test(test_lab_stats_compute_empty),
		cmocka_unit_test(test_lab_stats_compute_zero_mean),
		cmocka_unit_test(test_lab_stats_compute_nan_sample),
		cmocka_unit_test(test_lab_stats_compute_nan_first),
		cmocka_unit_test(test_lab_stats_to_rate_gbs),
		cmocka_unit_test(test_lab_stats_to_rate_gib_is_not_gb),
		cmocka_unit_test(test_lab_stats_to_rate_in_place),
		cmocka_unit_test(test_lab_stats_to_rate_zero_duration),
		cmocka_unit_test(test_lab_stats_scale_s_to_ns),
		cmocka_unit_test(test_lab_stats_from_basic),
		cmocka_unit_test(test_lab_stats_from_too_short),
		cmocka_unit_test(test_lab_stats_from_bounds),
		cmocka_unit_test(test_copies_independent),
		cmocka_unit_test(test_from_copies),
		cmocka_unit_test(test_max_samples_series),
		cmocka_unit_test(test_many_series),
		cmocka_unit_test(test_lab_measure_grows_until_narrow),
		cmocka_unit_test(test_lab_measure_known_noise),
		cmocka_unit_test(test_median_interval_width),
		cmocka_unit_test(test_median_interval_width_is_the_estimate),
		cmocka_unit_test(test_median_rank_and_width_any_n),
		cmocka_unit_test(test_lab_measure_clean_batch_alone),
		cmocka_unit_test(test_lab_measure_values_kept),
		cmocka_unit_test(test_lab_measure_too_short_is_inconclusive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
