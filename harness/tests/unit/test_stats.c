/*
 * test_stats.c - medians, CV, NaN samples, and the seconds -> GB/s and unit
 * conversions of measured series (harness/lib/stats.c).
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

/* A series with the given samples, statistics computed; free() it. */
static struct lab_stats *series(const double *v, int n, const char *unit)
{
	struct lab_stats *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->name = "t";
	s->unit = unit;
	memcpy(s->samples, v, sizeof(*v) * (size_t)n);
	s->n = n;
	lab_stats_compute(s);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
