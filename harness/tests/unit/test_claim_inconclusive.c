/*
 * test_claim_inconclusive.c - claim_inconclusive: the claim is recorded as
 * inconclusive with the lab's reason (TAP and JSON), its relation and
 * attached series kept, whatever the value would have said; the lab's
 * status follows the usual rules; a second decision is a lab bug (99).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "lab.h"
#include "unit_lab.h"

static const struct claim_spec claims[] = {
	{ "97.1", "fq.Q1", "huge pages make it faster", "test", "R6", WANT_RATIO_GE(1.1), NULL },
	{ "97.2", "fq.Q1", "an exact count", "test", "R11", WANT_INT(3, "pages"), NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static const struct lab_spec spec = {
	.id = "97", .title = "inconclusive", .timeout_s = 10, .claims = claims,
	.default_iters = 7,
};

static void run_inconclusive_and_pass(struct lab *L)
{
	static const double v[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct lab_stats s;

	lab_stats_from(&s, "series_a", "s", v, 7, 1e-9);
	claim_stats(L, &s);
	claim_note(L, "ratio 2.0 measured on half-huge memory");
	claim_inconclusive(L, "97.1", "only %d of %d MiB in huge pages", 4, 8);
	claim_check_int(L, "97.2", 3);
}

static void run_only_inconclusive(struct lab *L)
{
	claim_inconclusive(L, "97.1", "no proof");
	claim_inconclusive(L, "97.2", "no proof either");
}

static void run_twice(struct lab *L)
{
	claim_inconclusive(L, "97.1", "first");
	claim_inconclusive(L, "97.1", "again");
}

static void test_recorded_with_reason(void **state)
{
	struct unit_lab u;
	const struct json *c;

	unit_run_lab(&spec, run_inconclusive_and_pass, &u);
	c = unit_claim(&u, "97.1");
	assert_non_null(c);
	assert_string_equal(unit_status(&u, "97.1"), "inconclusive");
	assert_string_equal(json_get_str(c, "reason", ""), "inconclusive");
	assert_string_equal(json_get_str(c, "detail", ""), "only 4 of 8 MiB in huge pages");
	assert_string_equal(json_get_str(c, "note", ""), "ratio 2.0 measured on half-huge memory");
	assert_string_equal(json_get_str(c, "op", ""), "ratio_ge");
	assert_int_equal(json_get(c, "got")->type, JSON_NULL); /* no value decided it */
	assert_string_equal(json_get_str(unit_stats(&u, "97.1", 0), "name", ""), "series_a");
	assert_non_null(strstr(u.tap, "# SKIP inconclusive: only 4 of 8 MiB in huge pages"));
	assert_string_equal(unit_status(&u, "97.2"), "pass");
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "pass");
	unit_lab_free(&u);
}

static void test_lab_decides_nothing(void **state)
{
	struct unit_lab u;

	unit_run_lab(&spec, run_only_inconclusive, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "inconclusive");
	unit_lab_free(&u);
}

static void test_twice_is_a_bug(void **state)
{
	assert_int_equal(unit_run_lab_exit(&spec, run_twice), 99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_with_reason),
		cmocka_unit_test(test_lab_decides_nothing),
		cmocka_unit_test(test_twice_is_a_bug),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
