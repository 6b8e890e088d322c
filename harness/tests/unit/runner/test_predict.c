/*
 * test_predict.c - the prediction rule (runner.h, predict.c): inside the
 * measured interval 1, outside 1 - |log10(p / m)| from the nearer end, at
 * least 0, "don't know" NaN; which claims are headline figures.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runner.h"

static void test_predict_score_inside(void **state)
{
	(void)state;
	assert_true(predict_score(12, 11, 14) == 1);
	assert_true(predict_score(11, 11, 14) == 1); /* the ends belong to the interval */
	assert_true(predict_score(14, 11, 14) == 1);
	assert_true(predict_score(3, 3, 3) == 1);    /* a figure without an interval */
}

static void test_predict_score_outside(void **state)
{
	(void)state;
	assert_float_equal(predict_score(28, 11, 14), 1 - log10(2), 1e-4);   /* 2x above */
	assert_float_equal(predict_score(5.5, 11, 14), 1 - log10(2), 1e-4);  /* 2x below */
	assert_float_equal(predict_score(30, 3, 3), 0, 1e-12);               /* 10x off */
	assert_float_equal(predict_score(0.3, 3, 3), 0, 1e-12);
	assert_float_equal(predict_score(3000, 3, 3), 0, 1e-12);             /* never < 0 */
	assert_float_equal(predict_score(0, 1, 2), 0, 1e-12);       /* no log of 0 */
	assert_float_equal(predict_score(1, -2, -1), 0, 1e-12);
}

static void test_predict_score_dont_know(void **state)
{
	(void)state;
	assert_true(isnan(predict_score(NAN, 1, 2)));
}

static void test_predict_is_figure(void **state)
{
	(void)state;
	assert_true(predict_is_figure("ratio_ge", "x"));
	assert_true(predict_is_figure("near", "GB/s"));
	assert_true(predict_is_figure("in_range", "us"));
	assert_false(predict_is_figure("eq", "pages"));       /* an exact fact */
	assert_false(predict_is_figure("true", ""));
	assert_false(predict_is_figure("eq", "errno"));
	assert_false(predict_is_figure("ge", ""));            /* no unit: no scale */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predict_score_inside),
		cmocka_unit_test(test_predict_score_outside),
		cmocka_unit_test(test_predict_score_dont_know),
		cmocka_unit_test(test_predict_is_figure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
