/*
 * test_relation.c - a claim's relation decided on an interval
 * (lab_relation_verdict: holds / fails / straddles for every op, strict and
 * inclusive ends, NaN and Inf), written as text (lab_want_text) and read
 * back from text (lab_want_parse, the errata's expect: lines).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "errata.h"
#include "lab.h"

static struct lab_est iv(double lo, double v, double hi)
{
	struct lab_est e = { v, lo, hi, 0 };

	return e;
}

static int verdict(struct claim_want w, double lo, double v, double hi)
{
	return lab_relation_verdict(&w, iv(lo, v, hi), NULL);
}

static const struct claim_want ge3 = WANT_GE(3, "x"), gt3 = WANT_GT(3, "x");
static const struct claim_want le3 = WANT_LE(3, "x"), lt3 = WANT_LT(3, "x");

/* ---- ordered bounds ---- */

static void test_verdict_ge(void **state)
{
	(void)state;
	assert_int_equal(verdict(ge3, 3.5, 4, 5), LAB_HOLDS);
	assert_int_equal(verdict(ge3, 3, 4, 5), LAB_HOLDS);      /* inclusive end */
	assert_int_equal(verdict(ge3, 1, 2, 2.9), LAB_FAILS);
	assert_int_equal(verdict(ge3, 2.9, 3.2, 3.5), LAB_STRADDLES);
	assert_int_equal(verdict(ge3, 2, 2.5, 3), LAB_STRADDLES); /* holds at 3 only */
	assert_int_equal(verdict(ge3, 3, 3, 3), LAB_HOLDS);
	assert_int_equal(verdict(ge3, 2.999, 2.999, 2.999), LAB_FAILS);
}

static void test_verdict_gt(void **state)
{
	(void)state;
	assert_int_equal(verdict(gt3, 3.001, 4, 5), LAB_HOLDS);
	assert_int_equal(verdict(gt3, 3, 4, 5), LAB_STRADDLES);   /* open end: 3 fails */
	assert_int_equal(verdict(gt3, 1, 2, 3), LAB_FAILS);       /* none of [1, 3] > 3 */
	assert_int_equal(verdict(gt3, 3, 3, 3), LAB_FAILS);
	assert_int_equal(verdict(gt3, 2, 3, 3.5), LAB_STRADDLES);
}

static void test_verdict_le(void **state)
{
	(void)state;
	assert_int_equal(verdict(le3, 1, 2, 3), LAB_HOLDS);       /* inclusive end */
	assert_int_equal(verdict(le3, 3.1, 4, 5), LAB_FAILS);
	assert_int_equal(verdict(le3, 3, 4, 5), LAB_STRADDLES);   /* holds at 3 only */
	assert_int_equal(verdict(le3, 2, 2.5, 3.5), LAB_STRADDLES);
	assert_int_equal(verdict(le3, -INFINITY, -1, 0), LAB_HOLDS);
}

static void test_verdict_lt(void **state)
{
	(void)state;
	assert_int_equal(verdict(lt3, 1, 2, 2.999), LAB_HOLDS);
	assert_int_equal(verdict(lt3, 1, 2, 3), LAB_STRADDLES);   /* open end: 3 fails */
	assert_int_equal(verdict(lt3, 3, 4, 5), LAB_FAILS);       /* none of [3, 5] < 3 */
	assert_int_equal(verdict(lt3, 3, 3, 3), LAB_FAILS);
}

static void test_verdict_ratio_ge_le(void **state)
{
	struct claim_want rge = WANT_RATIO_GE(3), rle = WANT_RATIO_LE(0.05);

	(void)state;
	assert_int_equal(verdict(rge, 25, 151, 155), LAB_HOLDS);
	assert_int_equal(verdict(rge, 3, 3.2, 3.4), LAB_HOLDS);
	assert_int_equal(verdict(rge, 2.8, 3.1, 3.4), LAB_STRADDLES);
	assert_int_equal(verdict(rge, 1.5, 2, 2.5), LAB_FAILS);
	assert_int_equal(verdict(rle, 0.01, 0.02, 0.05), LAB_HOLDS);
	assert_int_equal(verdict(rle, 0.04, 0.05, 0.06), LAB_STRADDLES);
	assert_int_equal(verdict(rle, 0.06, 0.1, 0.2), LAB_FAILS);
}

/* ---- near and in_range ---- */

static void test_verdict_near_rel(void **state)
{
	struct claim_want w = WANT_NEAR(2, 0.25, "x"); /* [1.5, 2.5] */

	(void)state;
	assert_int_equal(verdict(w, 1.8, 2, 2.2), LAB_HOLDS);
	assert_int_equal(verdict(w, 1.5, 2, 2.5), LAB_HOLDS);     /* both ends inclusive */
	assert_int_equal(verdict(w, 1.4, 2, 2.2), LAB_STRADDLES);
	assert_int_equal(verdict(w, 1.8, 2.2, 2.6), LAB_STRADDLES);
	assert_int_equal(verdict(w, 1, 2, 3), LAB_STRADDLES);      /* covers the band */
	assert_int_equal(verdict(w, 2.6, 3, 4), LAB_FAILS);
	assert_int_equal(verdict(w, 0.5, 1, 1.49), LAB_FAILS);
}

static void test_verdict_near_abs_plus_rel(void **state)
{
	/* tolerance 1 + 0.05 * 100 = 6: [94, 106] */
	struct claim_want w = { "near", 100, 0, 1, 0.05, "x", NULL };
	struct claim_want abs_only = WANT_NEAR_ABS(1, 0.01, "fraction");

	(void)state;
	assert_int_equal(verdict(w, 94, 100, 106), LAB_HOLDS);
	assert_int_equal(verdict(w, 93.99, 100, 106), LAB_STRADDLES);
	assert_int_equal(verdict(w, 106.01, 107, 108), LAB_FAILS);
	assert_int_equal(verdict(w, 105.5, 105.5, 105.5), LAB_HOLDS); /* inside only by abs */
	assert_int_equal(verdict(abs_only, 0.995, 0.995, 0.995), LAB_HOLDS);
	assert_int_equal(verdict(abs_only, 0.98, 0.98, 0.98), LAB_FAILS);
}

static void test_verdict_near_zero_and_negative(void **state)
{
	struct claim_want rel0 = WANT_NEAR(0, 0.5, "x");
	struct claim_want abs0 = WANT_NEAR_ABS(0, 1e-9, "x");
	struct claim_want neg = WANT_NEAR(-10, 0.1, "x"); /* [-11, -9] */

	(void)state;
	assert_int_equal(verdict(rel0, 0, 0, 0), LAB_HOLDS);
	assert_int_equal(verdict(rel0, 1e-12, 1e-12, 1e-12), LAB_FAILS); /* rel of 0 is 0 */
	assert_int_equal(verdict(abs0, -1e-9, 0, 1e-9), LAB_HOLDS);
	assert_int_equal(verdict(neg, -11, -10, -9), LAB_HOLDS);
	assert_int_equal(verdict(neg, 9, 10, 11), LAB_FAILS);             /* sign matters */
	assert_int_equal(verdict(neg, -11.01, -10, -9), LAB_STRADDLES);
}

static void test_verdict_near_bad_tolerance(void **state)
{
	struct claim_want nan_tol = { "near", 1, 0, NAN, 0, "x", NULL };
	struct claim_want inf_tol = { "near", 1, 0, INFINITY, 0, "x", NULL };
	struct claim_want neg_tol = { "near", 1, 0, -0.5, 0, "x", NULL };
	struct claim_want nan_rel = { "near", 1, 0, 0, NAN, "x", NULL };

	(void)state;
	assert_int_equal(verdict(nan_tol, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(inf_tol, 1, 1, 1), LAB_FAILS); /* would accept anything */
	assert_int_equal(verdict(neg_tol, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(nan_rel, 1, 1, 1), LAB_FAILS);
}

static void test_verdict_in_range(void **state)
{
	struct claim_want w = WANT_RANGE(1, 3, "x");
	struct claim_want backwards = WANT_RANGE(3, 1, "x");
	struct claim_want open = WANT_RANGE(1, NAN, "x");
	struct claim_want inf = WANT_RANGE(-INFINITY, 10, "x");

	(void)state;
	assert_int_equal(verdict(w, 1.5, 2, 2.5), LAB_HOLDS);
	assert_int_equal(verdict(w, 1, 2, 3), LAB_HOLDS);         /* inclusive ends */
	assert_int_equal(verdict(w, 0.5, 2, 2.5), LAB_STRADDLES);
	assert_int_equal(verdict(w, 2, 2.5, 3.5), LAB_STRADDLES);
	assert_int_equal(verdict(w, 0, 2, 10), LAB_STRADDLES);    /* wider than the range */
	assert_int_equal(verdict(w, 3.01, 4, 5), LAB_FAILS);
	assert_int_equal(verdict(w, 0, 0.5, 0.99), LAB_FAILS);
	assert_int_equal(verdict(backwards, 2, 2, 2), LAB_FAILS);
	assert_int_equal(verdict(open, 2, 2, 2), LAB_FAILS);
	assert_int_equal(verdict(inf, 5, 5, 5), LAB_FAILS);
}

/* ---- exact observations ---- */

static void test_verdict_eq_number(void **state)
{
	struct claim_want w = WANT_INT(64, "MiB");

	(void)state;
	assert_int_equal(verdict(w, 64, 64, 64), LAB_HOLDS);
	assert_int_equal(verdict(w, 63, 63, 63), LAB_FAILS);
	/* exact: an interval around the value does not make it straddle */
	assert_int_equal(verdict(w, 60, 64, 70), LAB_HOLDS);
	assert_int_equal(verdict(w, 60, 65, 70), LAB_FAILS);
	assert_int_equal(verdict(w, NAN, NAN, NAN), LAB_FAILS);
}

static void test_verdict_eq_code_by_number(void **state)
{
	struct claim_want w = WANT_ERRNO(12, "ENOMEM");

	(void)state;
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(12), "ENOMEM"), LAB_HOLDS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(12), NULL), LAB_HOLDS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(1), "EPERM"), LAB_FAILS);
}

static void test_verdict_eq_on_names(void **state)
{
	/* an errata's "eq cudaErrorInvalidValue": compared by name (a = NaN) */
	struct claim_want w = { "eq", NAN, 0, 0, 0, "cudaError_t", "cudaErrorInvalidValue" };

	(void)state;
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(1), "cudaErrorInvalidValue"),
			 LAB_HOLDS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(0), "cudaSuccess"), LAB_FAILS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(1), NULL), LAB_FAILS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(1), ""), LAB_FAILS);
}

static void test_verdict_true(void **state)
{
	struct claim_want w = WANT_TRUE;

	(void)state;
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(1), "true"), LAB_HOLDS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(0), "false"), LAB_FAILS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(NAN), NULL), LAB_FAILS);
}

/* ---- NaN, Inf, unknown ops ---- */

static void test_verdict_nan_and_inf_never_pass(void **state)
{
	static const struct claim_want ws[] = {
		WANT_NEAR(1, 1e300, "x"), WANT_NEAR_ABS(1, 1e300, "x"), WANT_GE(-1e300, "x"),
		WANT_GT(-1e300, "x"), WANT_LE(1e300, "x"), WANT_LT(1e300, "x"),
		WANT_RANGE(-1e300, 1e300, "x"), WANT_RATIO_GE(0), WANT_RATIO_LE(1e300),
		WANT_INT(1, "x"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++) {
		assert_int_equal(verdict(ws[i], 0, NAN, 1), LAB_FAILS);
		assert_int_equal(verdict(ws[i], -INFINITY, NAN, INFINITY), LAB_FAILS);
		assert_int_equal(verdict(ws[i], 1, INFINITY, INFINITY), LAB_FAILS);
		assert_int_equal(verdict(ws[i], -INFINITY, -INFINITY, 1), LAB_FAILS);
	}
}

static void test_verdict_nan_want(void **state)
{
	struct claim_want ge_nan = WANT_GE(NAN, "x"), near_nan = WANT_NEAR(NAN, 0.1, "x");
	struct claim_want ge_inf = WANT_GE(-INFINITY, "x"), le_inf = WANT_LE(INFINITY, "x");

	(void)state;
	assert_int_equal(verdict(ge_nan, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(near_nan, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(ge_inf, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(le_inf, 1, 1, 1), LAB_FAILS);
}

/* An interval end that is NaN, missing or on the wrong side of the value
 * counts as unbounded: never a pass it did not earn. */
static void test_verdict_broken_interval_ends(void **state)
{
	(void)state;
	assert_int_equal(verdict(ge3, NAN, 5, 6), LAB_STRADDLES);
	assert_int_equal(verdict(ge3, 6, 5, 7), LAB_STRADDLES);   /* lo above the value */
	assert_int_equal(verdict(le3, 1, 2, NAN), LAB_STRADDLES);
	assert_int_equal(verdict(le3, 1, 2, 1.5), LAB_STRADDLES); /* hi below the value */
	assert_int_equal(verdict(ge3, -INFINITY, 5, INFINITY), LAB_STRADDLES);
	assert_int_equal(verdict(ge3, NAN, 1, 2), LAB_FAILS);     /* still all below */
}

static void test_verdict_unknown_op(void **state)
{
	struct claim_want foo = { "foo", 1, 0, 0, 0, "x", NULL };
	struct claim_want empty = { "", 1, 0, 0, 0, "x", NULL };
	struct claim_want none = { NULL, 1, 0, 0, 0, "x", NULL };

	(void)state;
	assert_int_equal(verdict(foo, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(empty, 1, 1, 1), LAB_FAILS);
	assert_int_equal(verdict(none, 1, 1, 1), LAB_FAILS);
	assert_int_equal(lab_relation_verdict(NULL, lab_est_exact(1), NULL), LAB_FAILS);
}

/* ---- lab_want_text ---- */

static void assert_text(struct claim_want w, const char *want)
{
	char buf[128];

	assert_string_equal(lab_want_text(&w, buf, sizeof(buf)), want);
}

static void test_want_text(void **state)
{
	struct claim_want both = { "near", 100, 0, 1, 0.05, "x", NULL };
	struct claim_want foo = { "foo", 1, 0, 0, 0, "x", NULL };
	char buf[8];

	(void)state;
	assert_text((struct claim_want)WANT_NEAR(2, 0.25, "x"), "near 2 +- 25 %");
	assert_text((struct claim_want)WANT_NEAR_ABS(1, 0.01, "fraction"), "near 1 +- 0.01");
	assert_text(both, "near 100 +- (1 + 5 %)");
	assert_text((struct claim_want)WANT_GE(3, "x"), ">= 3");
	assert_text((struct claim_want)WANT_GT(3, "x"), "> 3");
	assert_text((struct claim_want)WANT_LE(0.2, "fraction"), "<= 0.2");
	assert_text((struct claim_want)WANT_LT(5, "us"), "< 5");
	assert_text((struct claim_want)WANT_RATIO_GE(1.1), "ratio >= 1.1");
	assert_text((struct claim_want)WANT_RATIO_LE(0.05), "ratio <= 0.05");
	assert_text((struct claim_want)WANT_RANGE(1.375, 1.625, "x"), "in [1.375, 1.625]");
	assert_text((struct claim_want)WANT_ERRNO(12, "ENOMEM"), "= ENOMEM");
	assert_text((struct claim_want)WANT_INT(64, "MiB"), "= 64");
	assert_text((struct claim_want)WANT_TRUE, "true");
	assert_text(foo, "foo");
	assert_string_equal(lab_want_text(NULL, buf, sizeof(buf)), "?");
	/* truncated, never overrun */
	assert_string_equal(lab_want_text(&both, buf, sizeof(buf)), "near 10");
}

/* ---- lab_want_parse ---- */

static void test_want_parse_good(void **state)
{
	struct claim_want w;
	char name[64];

	(void)state;
	assert_int_equal(lab_want_parse("ge 3", &w, name, sizeof(name)), 0);
	assert_string_equal(w.op, "ge");
	assert_true(w.a == 3 && w.name == NULL);
	assert_int_equal(lab_want_parse("in_range 1.25 16", &w, name, sizeof(name)), 0);
	assert_string_equal(w.op, "in_range");
	assert_true(w.a == 1.25 && w.b == 16);
	assert_int_equal(lab_want_parse("near 2 0.5", &w, name, sizeof(name)), 0);
	assert_string_equal(w.op, "near");
	assert_true(w.a == 2 && w.abs_tol == 0.5 && w.rel_tol == 0);
	assert_int_equal(lab_want_parse("le 0.25", &w, name, sizeof(name)), 0);
	assert_true(!strcmp(w.op, "le") && w.a == 0.25);
	assert_int_equal(lab_want_parse("lt -1e-3", &w, name, sizeof(name)), 0);
	assert_true(!strcmp(w.op, "lt") && w.a == -1e-3);
	assert_int_equal(lab_want_parse("eq 1", &w, name, sizeof(name)), 0);
	assert_true(!strcmp(w.op, "eq") && w.a == 1 && w.name == NULL);
	assert_int_equal(lab_want_parse("eq cudaErrorInvalidValue", &w, name, sizeof(name)), 0);
	assert_ptr_equal(w.name, name);
	assert_string_equal(name, "cudaErrorInvalidValue");
	assert_true(isnan(w.a));
	assert_int_equal(lab_want_parse("eq true", &w, name, sizeof(name)), 0);
	assert_true(w.a == 1 && w.name == NULL);
	assert_int_equal(lab_want_parse("eq false", &w, name, sizeof(name)), 0);
	assert_true(w.a == 0 && w.name == NULL);
}

static void test_want_parse_bad(void **state)
{
	static const char *const bad[] = {
		"", "ge", "ge x", "foo 3", "ge 3 4", "in_range 1", "in_range 1 2 3",
		"near 2", "near 2 -1", "ge inf", "ge nan", "le 1e999", "ratio_ge 3",
		"true", "ge 3x", "near x 1",
	};
	struct claim_want w;
	char name[8];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lab_want_parse(bad[i], &w, name, sizeof(name)) == 0)
			fail_msg("'%s' parsed as a relation", bad[i]);
	/* a name longer than its buffer is an error, not a truncated name */
	assert_int_equal(lab_want_parse("eq ENOMEMORY", &w, name, sizeof(name)), -1);
	assert_int_equal(lab_want_parse("eq ENOMEM", &w, name, sizeof(name)), 0);
}

/* What lab_want_parse reads, lab_relation_verdict decides like the macro. */
static void test_want_parse_decides_like_spec(void **state)
{
	struct claim_want w;
	char name[64];

	(void)state;
	assert_int_equal(lab_want_parse("in_range 1.25 16", &w, name, sizeof(name)), 0);
	assert_int_equal(lab_relation_verdict(&w, iv(1.9, 2, 2.3), NULL), LAB_HOLDS);
	/* a range written backwards is bad text, not an erratum no value meets */
	assert_int_equal(lab_want_parse("in_range 16 1.25", &w, name, sizeof(name)), -1);
	assert_int_equal(lab_want_parse("in_range 1.25 16", &w, name, sizeof(name)), 0);
	assert_int_equal(lab_relation_verdict(&w, iv(1.1, 1.3, 1.5), NULL), LAB_STRADDLES);
	assert_int_equal(lab_want_parse("near 2 0.5", &w, name, sizeof(name)), 0);
	assert_int_equal(lab_relation_verdict(&w, iv(1.5, 2, 2.5), NULL), LAB_HOLDS);
	assert_int_equal(lab_relation_verdict(&w, iv(2.6, 3, 3.5), NULL), LAB_FAILS);
	assert_int_equal(lab_want_parse("eq false", &w, name, sizeof(name)), 0);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(0), "false"), LAB_HOLDS);
	assert_int_equal(lab_relation_verdict(&w, lab_est_exact(1), "true"), LAB_FAILS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_ge),
		cmocka_unit_test(test_verdict_gt),
		cmocka_unit_test(test_verdict_le),
		cmocka_unit_test(test_verdict_lt),
		cmocka_unit_test(test_verdict_ratio_ge_le),
		cmocka_unit_test(test_verdict_near_rel),
		cmocka_unit_test(test_verdict_near_abs_plus_rel),
		cmocka_unit_test(test_verdict_near_zero_and_negative),
		cmocka_unit_test(test_verdict_near_bad_tolerance),
		cmocka_unit_test(test_verdict_in_range),
		cmocka_unit_test(test_verdict_eq_number),
		cmocka_unit_test(test_verdict_eq_code_by_number),
		cmocka_unit_test(test_verdict_eq_on_names),
		cmocka_unit_test(test_verdict_true),
		cmocka_unit_test(test_verdict_nan_and_inf_never_pass),
		cmocka_unit_test(test_verdict_nan_want),
		cmocka_unit_test(test_verdict_broken_interval_ends),
		cmocka_unit_test(test_verdict_unknown_op),
		cmocka_unit_test(test_want_text),
		cmocka_unit_test(test_want_parse_good),
		cmocka_unit_test(test_want_parse_bad),
		cmocka_unit_test(test_want_parse_decides_like_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
