/*
 * test_claim.c - the relation behind every claim (lab_relation_holds), and
 * verdicts of a small in-process lab run with --json for what only the
 * claim functions decide (ratios, noisy series).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "json.h"
#include "lab.h"

static int holds(const char *op, double got, double want)
{
	return lab_relation_holds(op, got, want, NAN, 0, 0);
}

static int near(double got, double want, double abs_tol, double rel_tol)
{
	return lab_relation_holds("near", got, want, NAN, abs_tol, rel_tol);
}

/* ---- lab_relation_holds ---- */

static void test_lab_relation_holds_near_want_zero(void **state)
{
	(void)state;
	assert_true(near(0, 0, 0, 0));
	assert_false(near(1e-12, 0, 0, 0.5)); /* rel of 0 is 0: needs abs */
	assert_true(near(1e-12, 0, 1e-9, 0));
	assert_true(near(-1e-9, 0, 1e-9, 0)); /* edge is inclusive */
}

static void test_lab_relation_holds_near_negative(void **state)
{
	(void)state;
	assert_true(near(-11, -10, 0, 0.1)); /* |-1| <= 0.1 * |-10| */
	assert_true(near(-9, -10, 0, 0.1));
	assert_false(near(-11.01, -10, 0, 0.1));
	assert_false(near(10, -10, 0, 0.5)); /* sign matters */
}

static void test_lab_relation_holds_near_abs_plus_rel(void **state)
{
	(void)state;
	/* tolerance 1 + 0.05 * 100 = 6 */
	assert_true(near(106, 100, 1, 0.05));
	assert_true(near(94, 100, 1, 0.05));
	assert_false(near(106.01, 100, 1, 0.05));
	assert_false(near(93.99, 100, 1, 0.05));
}

static void test_lab_relation_holds_nan(void **state)
{
	static const char *const ops[] = { "near", "ge", "gt", "le", "lt", "in_range" };

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		assert_false(lab_relation_holds(ops[i], NAN, 0, 1e300, 1e300, 1));
		assert_false(lab_relation_holds(ops[i], 0, NAN, 1e300, 1e300, 1));
	}
	assert_false(near(1, 1, NAN, 0));
	assert_false(near(1, 1, 0, NAN));
}

static void test_lab_relation_holds_inf(void **state)
{
	(void)state;
	assert_false(holds("ge", INFINITY, 1)); /* a division by zero is no pass */
	assert_false(holds("le", -INFINITY, 1));
	assert_false(holds("ge", 1, -INFINITY));
	assert_false(near(INFINITY, INFINITY, 0, 0));
	assert_false(near(1, 1, INFINITY, 0)); /* an infinite tolerance accepts anything */
	assert_false(lab_relation_holds("in_range", 5, -INFINITY, 10, 0, 0));
	assert_false(lab_relation_holds("in_range", 5, 0, INFINITY, 0, 0));
}

static void test_lab_relation_holds_order_edges(void **state)
{
	(void)state;
	assert_true(holds("ge", 2, 2));
	assert_false(holds("gt", 2, 2));
	assert_true(holds("le", 2, 2));
	assert_false(holds("lt", 2, 2));
	assert_true(holds("gt", 2.000001, 2));
	assert_true(holds("lt", -3, -2));
}

static void test_lab_relation_holds_in_range(void **state)
{
	(void)state;
	assert_true(lab_relation_holds("in_range", 1, 1, 3, 0, 0));
	assert_true(lab_relation_holds("in_range", 3, 1, 3, 0, 0));
	assert_false(lab_relation_holds("in_range", 3.5, 1, 3, 0, 0));
	assert_false(lab_relation_holds("in_range", 2, 3, 1, 0, 0)); /* lo > hi */
	assert_false(lab_relation_holds("in_range", 2, 1, NAN, 0, 0));
}

static void test_lab_relation_holds_unknown_op(void **state)
{
	(void)state;
	assert_false(holds("eq", 1, 1));
	assert_false(holds("", 1, 1));
}

/* ---- verdicts from a lab run ---- */

static const struct claim_spec run_claims[] = {
	{ "T.1", "t.Q1", "ratio over a zero denominator", NULL },
	{ "T.2", "t.Q1", "ratio_le over a zero denominator", NULL },
	{ "T.3", "t.Q2", "near with a NaN measurement", NULL },
	{ "T.4", "t.Q2", "ge with an infinite measurement", NULL },
	{ "T.5", "t.Q3", "ratio that holds", NULL },
	{ "T.6", "t.Q3", "ratio on a noisy series, verdict inside the spread", NULL },
	{ "T.7", "t.Q3", "ratio on a noisy series, far outside the band", NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct lab_spec run_spec = {
	.id = "99", .title = "claim unit test", .topic = "verdicts on edge inputs",
	.timeout_s = 10, .claims = run_claims, .default_iters = 7,
};

static void fill(struct lab_stats *s, const char *name, double v, int noisy)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->unit = "GB/s";
	s->n = 7;
	for (int i = 0; i < 7; i++)
		s->samples[i] = v;
	lab_stats_compute(s);
	s->noisy = noisy;
}

/* A series that stayed noisy: samples from (1 - h) v to (1 + h) v. */
static void fill_noisy(struct lab_stats *s, const char *name, double v, double h)
{
	fill(s, name, v, 1);
	s->samples[0] = (1 - h) * v;
	s->samples[6] = (1 + h) * v;
	lab_stats_compute(s);
}

static void run_edges(struct lab *L)
{
	static struct lab_stats a, zero, half, noisy, tiny;

	fill(&a, "a", 4, 0);
	fill(&zero, "zero", 0, 0);
	fill(&half, "half", 2, 0);
	fill_noisy(&noisy, "noisy", 2, 0.5);
	fill_noisy(&tiny, "tiny", 0.01, 0.15);
	claim_ratio_ge(L, "T.1", &a, &zero, 1);
	claim_ratio_le(L, "T.2", &a, &zero, 1e300);
	claim_near(L, "T.3", NAN, 1, 1e300, 1, "GB/s");
	claim_ge(L, "T.4", INFINITY, 1, "GB/s");
	claim_ratio_ge(L, "T.5", &a, &half, 1.5);
	claim_ratio_ge(L, "T.6", &a, &noisy, 1.5);
	claim_ratio_le(L, "T.7", &a, &tiny, 1.5);
}

/* Run the lab in a child with --json; returns its exit code, parses the record. */
static int run_lab(struct json **rec)
{
	char path[] = "/tmp/dmalab-claim-XXXXXX", err[256];
	int fd = mkstemp(path), status;
	pid_t pid;

	assert_true(fd >= 0);
	close(fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)"lab-99", (char *)"--json", path, NULL };
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		dup2(devnull, 2);
		_exit(lab_main(&run_spec, run_edges, 3, argv, 0));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*rec = json_parse_file(path, err, sizeof(err));
	unlink(path);
	if (!*rec)
		fail_msg("lab record: %s", err);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static const char *claim_status(const struct json *rec, const char *id)
{
	const struct json *c = json_get(rec, "claims");

	for (c = c ? c->child : NULL; c; c = c->next)
		if (strcmp(json_get_str(c, "id", ""), id) == 0)
			return json_get_str(c, "status", "?");
	return "missing";
}

static void test_claim_ratio_zero_denominator(void **state)
{
	struct json *rec;

	(void)state;
	assert_int_equal(run_lab(&rec), 1);
	assert_string_equal(claim_status(rec, "T.1"), "fail");
	assert_string_equal(claim_status(rec, "T.2"), "fail");
	json_free(rec);
}

static void test_claim_near_nan_and_inf_fail(void **state)
{
	struct json *rec;

	(void)state;
	run_lab(&rec);
	assert_string_equal(claim_status(rec, "T.3"), "fail");
	assert_string_equal(claim_status(rec, "T.4"), "fail");
	json_free(rec);
}

static void test_claim_ratio_pass_and_noisy(void **state)
{
	struct json *rec;

	(void)state;
	run_lab(&rec);
	assert_string_equal(claim_status(rec, "T.5"), "pass");
	assert_string_equal(claim_status(rec, "T.6"), "inconclusive");
	/* 400x where <= 1.5 is wanted, 30 % spread: noise cannot rescue it */
	assert_string_equal(claim_status(rec, "T.7"), "fail");
	assert_string_equal(json_get_str(rec, "status", ""), "fail");
	json_free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_relation_holds_near_want_zero),
		cmocka_unit_test(test_lab_relation_holds_near_negative),
		cmocka_unit_test(test_lab_relation_holds_near_abs_plus_rel),
		cmocka_unit_test(test_lab_relation_holds_nan),
		cmocka_unit_test(test_lab_relation_holds_inf),
		cmocka_unit_test(test_lab_relation_holds_order_edges),
		cmocka_unit_test(test_lab_relation_holds_in_range),
		cmocka_unit_test(test_lab_relation_holds_unknown_op),
		cmocka_unit_test(test_claim_ratio_zero_denominator),
		cmocka_unit_test(test_claim_near_nan_and_inf_fail),
		cmocka_unit_test(test_claim_ratio_pass_and_noisy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
