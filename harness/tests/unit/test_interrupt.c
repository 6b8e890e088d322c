/*
 * test_interrupt.c - a lab run with --json and stopped by a signal leaves a
 * record that says so: status "interrupted", the signal named, the claims
 * decided before it kept, the rest "not_run" (not "running" / "pending"), and
 * the lab still dies by that signal.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json.h"
#include "lab.h"
#include "unit_lab.h"

static const struct claim_spec two_claims[] = {
	{ "97.1", "t.Q1", "decided before the signal", "test", "R11", WANT_TRUE, NULL },
	{ "97.2", "t.Q1", "never reached", "test", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_spec spec = {
	.id = "97", .title = "interrupt test", .timeout_s = 10, .claims = two_claims,
	.default_iters = 7,
};

static int stop_with; /* the signal the lab sends itself after 97.1 */

static void run_then_signal(struct lab *L)
{
	claim_check_true(L, "97.1", 1, "seen");
	raise(stop_with);
	claim_check_true(L, "97.2", 1, "should not get here");
}

static void interrupted_by(int sig, const char *name)
{
	struct unit_lab u;

	stop_with = sig;
	unit_run_lab(&spec, run_then_signal, &u);
	assert_int_equal(u.exit_code, -1); /* it died by the signal */
	assert_string_equal(json_get_str(u.rec, "status", ""), "interrupted");
	assert_string_equal(json_get_str(u.rec, "interrupted_by", ""), name);
	assert_string_equal(unit_status(&u, "97.1"), "pass");
	assert_string_equal(unit_status(&u, "97.2"), "not_run");
	unit_lab_free(&u);
}

static void test_sigterm_leaves_an_interrupted_record(void **state)
{
	(void)state;
	interrupted_by(SIGTERM, "SIGTERM");
}

static void test_sighup_leaves_an_interrupted_record(void **state)
{
	(void)state;
	interrupted_by(SIGHUP, "SIGHUP");
}

/* A lab that ends normally writes its final record; no signal text in it. */
static void run_normally(struct lab *L)
{
	claim_check_true(L, "97.1", 1, "seen");
	claim_check_true(L, "97.2", 1, "seen");
}

static void test_normal_end_is_not_interrupted(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&spec, run_normally, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "pass");
	assert_null(json_get(u.rec, "interrupted_by"));
	unit_lab_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigterm_leaves_an_interrupted_record),
		cmocka_unit_test(test_sighup_leaves_an_interrupted_record),
		cmocka_unit_test(test_normal_end_is_not_interrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
