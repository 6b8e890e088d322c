/*
 * test_claim.c - claims decided end to end: small labs run in-process (a
 * forked child, --json) and their records read back.  Pass, fail and
 * inconclusive from the interval; errata predicted, not predicted,
 * straddling and not applicable (when:); the lab's status and exit code;
 * claim_check_true's text in the TAP note.
 *
 * The errata come from a file of this test's own (DMALAB_ERRATA, set before
 * the first lab runs; every lab runs in a child, which reads it afresh).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
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

static const char errata_text[] =
	"# Known errata (test)\n"
	"\n"
	"## 98.1\n"
	"says: pinned is about twice pageable\n"
	"expect: ge 3\n"
	"truth: several times\n"
	"source: https://example.org/1\n"
	"\n"
	"## 98.2\n"
	"says: twice, on any link\n"
	"expect: ge 3\n"
	"when: pcie_gen_max ge 4\n"
	"truth: several times on Gen4 and later\n"
	"source: https://example.org/2\n"
	"\n"
	"## 98.3\n"
	"says: the call succeeds\n"
	"expect: eq cudaErrorInvalidValue\n"
	"truth: it fails with cudaErrorInvalidValue\n"
	"source: https://example.org/3\n"
	"\n"
	"\n"
	"## 97.1\n"
	"says: faster\n"
	"expect: lt 1.1\n"
	"truth: not faster\n"
	"source: https://example.org/5\n"
	"\n"
	"## 97.2\n"
	"says: the importer sees the pattern\n"
	"expect: eq false\n"
	"truth: it does not\n"
	"source: https://example.org/4\n";

static char errata_path[64];

static struct lab_est iv(double lo, double v, double hi)
{
	struct lab_est e = { v, lo, hi, 0 };

	return e;
}

/* ---- a lab whose claims have errata; one run function per scenario ---- */

static const struct claim_spec errata_claims[] = {
	{ "98.1", "t.Q1", "pinned is about twice pageable", "test", "R4",
	  WANT_NEAR(2, 0.25, "x"), "pageable where it should pin" },
	{ "98.2", "t.Q1", "twice on any link", "test", "R4", WANT_NEAR(2, 0.25, "x"), NULL },
	{ "98.3", "t.Q2", "the call succeeds", "test", "R11",
	  WANT_CUDA_ERR(0, "cudaSuccess"), NULL },
	{ "98.4", "t.Q2", "the importer sees the pattern", "test", "R11", WANT_TRUE, NULL },
	{ "98.5", "t.Q3", "no erratum listed", "test", "R10", WANT_GE(3, "x"), NULL },
	{ NULL },
};

static const struct lab_spec errata_spec = {
	.id = "98", .title = "errata unit test", .topic = "contradictions vs errata",
	.timeout_s = 10, .claims = errata_claims, .default_iters = 7,
};

static void rest(struct lab *L)
{
	claim_skip_rest(L, SKIP_UNSUPPORTED, "not in this scenario");
}

static void run_predicted(struct lab *L)
{
	claim_check(L, "98.1", iv(5, 5.5, 6)); /* not near 2; meets ge 3 */
	rest(L);
}

static void run_not_predicted(struct lab *L)
{
	claim_check(L, "98.1", iv(1, 1.1, 1.2)); /* not near 2; not ge 3 either */
	rest(L);
}

static void run_straddling(struct lab *L)
{
	claim_check(L, "98.1", iv(2.6, 3.1, 3.5)); /* not near 2; ge 3 in part */
	rest(L);
}

static void run_passes(struct lab *L)
{
	claim_check(L, "98.1", iv(1.9, 2, 2.1));
	rest(L);
}

static void run_when_gen3(struct lab *L)
{
	lab_fact_num(L, "pcie_gen_max", 3, "");
	claim_check(L, "98.2", iv(5, 5.5, 6));
	rest(L);
}

static void run_when_gen5(struct lab *L)
{
	lab_fact_num(L, "pcie_gen_max", 5, "");
	claim_check(L, "98.2", iv(5, 5.5, 6));
	rest(L);
}

static void run_when_no_fact(struct lab *L)
{
	claim_check(L, "98.2", iv(5, 5.5, 6));
	rest(L);
}

static void run_when_string_fact(struct lab *L)
{
	lab_fact_str(L, "pcie_gen_max", "5");
	claim_check(L, "98.2", iv(5, 5.5, 6));
	rest(L);
}

static void run_codes_predicted(struct lab *L)
{
	claim_check_code(L, "98.3", 1, "cudaErrorInvalidValue");
	rest(L);
}

static void run_codes_not_predicted(struct lab *L)
{
	claim_check_code(L, "98.3", 2, "cudaErrorMemoryAllocation");
	rest(L);
}

static void run_no_erratum(struct lab *L)
{
	claim_check(L, "98.5", iv(1, 1.5, 2));
	rest(L);
}

static void run_predicted_and_pass(struct lab *L)
{
	claim_check(L, "98.1", iv(5, 5.5, 6));
	claim_check(L, "98.5", iv(3, 4, 5));
	rest(L);
}

static void test_erratum_predicted(void **state)
{
	struct unit_lab u;
	const struct json *e;

	(void)state;
	unit_run_lab(&errata_spec, run_predicted, &u);
	assert_string_equal(unit_status(&u, "98.1"), "fail");
	assert_string_equal(unit_erratum(&u, "98.1"), "predicted");
	e = json_get(unit_claim(&u, "98.1"), "erratum");
	assert_string_equal(json_get_str(e, "expect", ""), "ge 3");
	assert_string_equal(json_get_str(e, "truth", ""), "several times");
	/* a predicted erratum does not fail the lab */
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "pass");
	assert_non_null(strstr(u.tap, "# TODO known erratum 98.1"));
	unit_lab_free(&u);
	unit_run_lab(&errata_spec, run_predicted_and_pass, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(unit_status(&u, "98.5"), "pass");
	unit_lab_free(&u);
}

static void test_erratum_not_predicted(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&errata_spec, run_not_predicted, &u);
	assert_string_equal(unit_status(&u, "98.1"), "fail");
	assert_string_equal(unit_erratum(&u, "98.1"), "not-predicted");
	assert_int_equal(u.exit_code, 1);
	assert_string_equal(json_get_str(u.rec, "status", ""), "fail");
	assert_null(strstr(u.tap, "# TODO"));
	unit_lab_free(&u);
}

static void test_erratum_straddling(void **state)
{
	struct unit_lab u;
	const struct json *c;

	(void)state;
	unit_run_lab(&errata_spec, run_straddling, &u);
	c = unit_claim(&u, "98.1");
	assert_string_equal(unit_status(&u, "98.1"), "inconclusive");
	assert_string_equal(unit_erratum(&u, "98.1"), "null");
	assert_non_null(strstr(json_get_str(c, "detail", ""), "known erratum"));
	/* nothing decided either way: the lab is inconclusive and exits 0 */
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "inconclusive");
	unit_lab_free(&u);
}

static void test_erratum_not_consulted_on_pass(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&errata_spec, run_passes, &u);
	assert_string_equal(unit_status(&u, "98.1"), "pass");
	assert_string_equal(unit_erratum(&u, "98.1"), "null");
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "pass");
	unit_lab_free(&u);
}

static void test_erratum_when(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&errata_spec, run_when_gen3, &u);
	assert_string_equal(unit_status(&u, "98.2"), "fail");
	assert_string_equal(unit_erratum(&u, "98.2"), "not-applicable");
	assert_string_equal(json_get_str(json_get(unit_claim(&u, "98.2"), "erratum"), "when", ""),
			    "pcie_gen_max ge 4");
	assert_int_equal(u.exit_code, 1);
	unit_lab_free(&u);

	unit_run_lab(&errata_spec, run_when_gen5, &u);
	assert_string_equal(unit_erratum(&u, "98.2"), "predicted");
	assert_int_equal(u.exit_code, 0);
	unit_lab_free(&u);

	/* a when: fact the lab never recorded (or not as a number) is a bug */
	unit_run_lab(&errata_spec, run_when_no_fact, &u);
	assert_string_equal(unit_status(&u, "98.2"), "error");
	assert_int_equal(u.exit_code, 99);
	unit_lab_free(&u);

	unit_run_lab(&errata_spec, run_when_string_fact, &u);
	assert_string_equal(unit_status(&u, "98.2"), "error");
	assert_int_equal(u.exit_code, 99);
	unit_lab_free(&u);
}

static void test_erratum_on_codes_and_true(void **state)
{
	struct unit_lab u;
	const struct json *c;

	(void)state;
	unit_run_lab(&errata_spec, run_codes_predicted, &u);
	c = unit_claim(&u, "98.3");
	assert_string_equal(unit_status(&u, "98.3"), "fail");
	assert_string_equal(json_get_str(c, "got_name", ""), "cudaErrorInvalidValue");
	assert_string_equal(json_get_str(c, "want_name", ""), "cudaSuccess");
	assert_string_equal(unit_erratum(&u, "98.3"), "predicted");
	assert_int_equal(u.exit_code, 0);
	unit_lab_free(&u);

	unit_run_lab(&errata_spec, run_codes_not_predicted, &u);
	assert_string_equal(unit_erratum(&u, "98.3"), "not-predicted");
	assert_int_equal(u.exit_code, 1);
	unit_lab_free(&u);
}

static void test_fail_without_erratum(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&errata_spec, run_no_erratum, &u);
	assert_string_equal(unit_status(&u, "98.5"), "fail");
	assert_string_equal(unit_erratum(&u, "98.5"), "null");
	assert_int_equal(u.exit_code, 1);
	assert_string_equal(json_get_str(u.rec, "status", ""), "fail");
	unit_lab_free(&u);
}

/* Errata that cannot be read are a setup error, never a silent fail. */
static void test_errata_unreadable_is_error(void **state)
{
	int code;

	(void)state;
	/* bad input, told before anything is measured, as the runner does */
	setenv("DMALAB_ERRATA", "/nonexistent/dmalab-errata.md", 1);
	code = unit_run_lab_exit(&errata_spec, run_no_erratum);
	setenv("DMALAB_ERRATA", errata_path, 1);
	assert_int_equal(code, 2);
}

/* Errata that could not be wrong: the plain complement of the want, on one
 * side (97.1) or in full (97.2, a behaviour). */
static const struct claim_spec complement_claims[][2] = {
	{ { "97.1", "t.Q1", "faster", "test", "R6", WANT_RATIO_GE(1.1), NULL }, { NULL } },
	{ { "97.2", "t.Q2", "the importer sees the pattern", "test", "R11", WANT_TRUE, NULL },
	  { NULL } },
};

static void test_errata_complement_refused(void **state)
{
	struct lab_spec spec = errata_spec;
	size_t i;

	(void)state;
	/* refused before anything is measured, as bad input */
	for (i = 0; i < sizeof(complement_claims) / sizeof(complement_claims[0]); i++) {
		spec.claims = complement_claims[i];
		assert_int_equal(unit_run_lab_exit(&spec, run_no_erratum), 2);
	}
}

/* ---- verdicts without errata ---- */

static const struct claim_spec plain_claims[] = {
	{ "99.1", "t.Q1", "ratio over a zero denominator", "test", "R5", WANT_RATIO_GE(1), NULL },
	{ "99.2", "t.Q1", "near with a NaN measurement", "test", "R1",
	  WANT_NEAR(1, 1e300, "x"), NULL },
	{ "99.3", "t.Q1", "ge with an infinite measurement", "test", "R10",
	  WANT_GE(1, "GB/s"), NULL },
	{ "99.4", "t.Q2", "32 KiB loads are several times faster than 256 MiB", "test",
	  "R5", WANT_RATIO_GE(3), NULL },
	{ "99.5", "t.Q2", "a ratio near its boundary", "test", "R5", WANT_RATIO_GE(3), NULL },
	{ "99.6", "t.Q2", "a ratio far from its band", "test", "R4", WANT_NEAR(2, 0.25, "x"),
	  NULL },
	{ "99.7", "t.Q3", "an observation", "test", "R11", WANT_TRUE, NULL },
	{ "99.8", "t.Q3", "a counter", "test", "R11", WANT_INT(64, "MiB"), NULL },
	{ "99.9", "t.Q3", "an errno", "test", "R11", WANT_ERRNO(ENOMEM, "ENOMEM"), NULL },
	{ NULL },
};

static const struct lab_spec plain_spec = {
	.id = "99", .title = "claim unit test", .topic = "verdicts on edge inputs",
	.timeout_s = 10, .claims = plain_claims, .default_iters = 7,
};

static void fill(struct lab_stats *s, const char *name, const double *v, int n)
{
	lab_stats_from(s, name, "ns", v, n, 1e-9);
}

static void run_plain(struct lab *L)
{
	struct lab_stats a, zero, small, large, num, den;
	static const double four[] = { 4, 4, 4, 4, 4, 4, 4 }, zeros[] = { 0, 0, 0, 0, 0, 0, 0 };
	static const double small_v[] = { 1.85, 1.84, 11.0, 1.86, 1.85, 1.85, 1.86 };
	static const double large_v[] = { 280, 278, 283, 279, 281, 285, 276 };
	static const double num_v[] = { 2.7, 2.9, 3.0, 3.05, 3.1, 3.2, 3.3 };
	static const double den_v[] = { 0.98, 0.99, 1.0, 1.0, 1.0, 1.01, 1.02 };

	fill(&a, "a", four, 7);
	fill(&zero, "zero", zeros, 7);
	fill(&small, "lat_32k", small_v, 7);
	fill(&large, "lat_256m", large_v, 7);
	fill(&num, "num", num_v, 7);
	fill(&den, "den", den_v, 7);
	claim_check_ratio(L, "99.1", &a, &zero);
	claim_check(L, "99.2", lab_est_exact(NAN));
	claim_check(L, "99.3", iv(1, INFINITY, INFINITY));
	claim_check_ratio(L, "99.4", &large, &small);
	claim_check_ratio(L, "99.5", &num, &den);
	claim_check_ratio(L, "99.6", &large, &small);
	claim_note(L, "checked twice");
	claim_check_true(L, "99.7", 1, "the importer saw the exporter's pattern");
	claim_check_int(L, "99.8", 64);
	claim_check_errno(L, "99.9", ENOMEM);
}

static void test_plain_verdicts(void **state)
{
	struct unit_lab u;
	const struct json *c;

	(void)state;
	unit_run_lab(&plain_spec, run_plain, &u);
	assert_string_equal(unit_status(&u, "99.1"), "fail");
	assert_string_equal(unit_status(&u, "99.2"), "fail");
	assert_string_equal(unit_status(&u, "99.3"), "fail");
	assert_string_equal(unit_status(&u, "99.5"), "inconclusive");
	c = unit_claim(&u, "99.5");
	assert_non_null(strstr(json_get_str(c, "detail", ""), "straddles"));
	assert_string_equal(json_get_str(c, "reason", ""), "inconclusive");
	assert_string_equal(unit_status(&u, "99.6"), "fail");
	assert_string_equal(unit_status(&u, "99.7"), "pass");
	assert_string_equal(unit_status(&u, "99.8"), "pass");
	assert_string_equal(unit_status(&u, "99.9"), "pass");
	assert_string_equal(json_get_str(unit_claim(&u, "99.9"), "got_name", ""), "ENOMEM");
	assert_int_equal(u.exit_code, 1);
	assert_string_equal(json_get_str(u.rec, "status", ""), "fail");
	unit_lab_free(&u);
}

/* The issue: one 11 ns sample in a 1.85 ns series must not sink a 150x ratio. */
static void test_issue_outlier_ratio_passes(void **state)
{
	struct unit_lab u;
	const struct json *c, *s;

	(void)state;
	unit_run_lab(&plain_spec, run_plain, &u);
	c = unit_claim(&u, "99.4");
	assert_string_equal(unit_status(&u, "99.4"), "pass");
	assert_true(fabs(json_get_num(c, "got", 0) - 280 / 1.85) < 1e-6);
	/* each median's 95 % interval is [min, max]; the MOVER joins them in log space */
	assert_true(fabs(json_get_num(c, "got_lo", 0) -
			 280 / 1.85 * exp(-hypot(log(280 / 276.0), log(11 / 1.85)))) < 1e-6);
	assert_true(fabs(json_get_num(c, "got_hi", 0) -
			 280 / 1.85 * exp(hypot(log(285 / 280.0), log(1.85 / 1.84)))) < 1e-6);
	assert_true(json_get_num(c, "got_lo", 0) > 276 / 11.0); /* inside the corners */
	/* both series are attached, numerator first */
	s = unit_stats(&u, "99.4", 0);
	assert_string_equal(json_get_str(s, "name", ""), "lat_256m");
	s = unit_stats(&u, "99.4", 1);
	assert_string_equal(json_get_str(s, "name", ""), "lat_32k");
	unit_lab_free(&u);
}

static void test_check_true_text_in_note(void **state)
{
	struct unit_lab u;
	const struct json *c;

	(void)state;
	unit_run_lab(&plain_spec, run_plain, &u);
	c = unit_claim(&u, "99.7");
	assert_string_equal(json_get_str(c, "note", ""),
			    "the importer saw the exporter's pattern; checked twice");
	assert_non_null(strstr(u.tap, "  note: \"the importer saw the exporter's pattern; "
				      "checked twice\""));
	/* the note went with 99.7 only */
	assert_null(json_get_str(unit_claim(&u, "99.8"), "note", NULL));
	unit_lab_free(&u);
}

static void run_zh_note(struct lab *L)
{
	claim_note(L, MSG("01.note-1", "VmLck %+.0f KiB for %.0f KiB locked"), 64.0, 64.0);
	claim_note_add(L, MSG("01.note-7", "%llu pages, longest run %llu pages; "
			      "guest-physical frames if this is a VM"), 16ULL, 1ULL);
	claim_check_int(L, "99.8", 64);
	claim_skip_rest(L, SKIP_NOT_REQUESTED, "only 99.8 here");
}

/* A note in zh: the learner reads it as a comment before the test line; the
 * record (YAML and JSON) keeps the English, the same in every language. */
static void test_note_in_zh_record_english(void **state)
{
	static const char en[] = "VmLck +64 KiB for 64 KiB locked; 16 pages, longest run 1 "
				 "pages; guest-physical frames if this is a VM";
	struct unit_lab u;

	(void)state;
	dmalab_lang_set(DMALAB_ZH);
	unit_run_lab(&plain_spec, run_zh_note, &u);
	dmalab_lang_set(DMALAB_EN);
	assert_string_equal(json_get_str(unit_claim(&u, "99.8"), "note", ""), en);
	assert_non_null(strstr(u.tap, "  note: \"VmLck +64 KiB for 64 KiB locked; 16 pages"));
	assert_non_null(strstr(u.tap, "# 99.8 注：VmLck 变化 +64 KiB，锁定 64 KiB；16 页"));
	unit_lab_free(&u);
}

/* ---- the lab's status ---- */

static const struct claim_spec two_claims[] = {
	{ "96.1", "t.Q1", "first", "test", "R10", WANT_GE(3, "x"), NULL },
	{ "96.2", "t.Q1", "second", "test", "R10", WANT_GE(3, "x"), NULL },
	{ NULL },
};

static const struct lab_spec two_spec = {
	.id = "96", .title = "status unit test", .topic = "the lab's status",
	.timeout_s = 10, .claims = two_claims, .default_iters = 7,
};

static void run_all_inconclusive(struct lab *L)
{
	claim_check(L, "96.1", iv(2, 3, 4));
	claim_check(L, "96.2", iv(2.9, 3.5, 4));
}

static void run_pass_and_inconclusive(struct lab *L)
{
	claim_check(L, "96.1", iv(3, 3.5, 4));
	claim_check(L, "96.2", iv(2.9, 3.5, 4));
}

static void run_inconclusive_and_skip(struct lab *L)
{
	claim_check(L, "96.1", iv(2, 3, 4));
	claim_skip(L, "96.2", SKIP_SINGLE_NUMA_NODE, "1 node");
}

static void run_all_skip(struct lab *L)
{
	lab_skip(L, SKIP_NO_CUDA_DEVICE, "no GPU");
}

/* 60 words of 9 letters: 599 bytes, more than a detail holds */
static void run_long_skip(struct lab *L)
{
	char text[700] = "";
	int i;

	for (i = 0; i < 60; i++)
		strcat(text, i ? " wordword9" : "wordword9");
	claim_skip(L, "96.1", SKIP_UNSUPPORTED, "%s", text);
	claim_skip(L, "96.2", SKIP_UNSUPPORTED, "%.400s", text);
}

/* A long skip detail is cut after a whole word with "..."; one of 400 bytes is whole. */
static void test_long_skip_detail(void **state)
{
	struct unit_lab u;
	const char *d;
	size_t n;

	(void)state;
	unit_run_lab(&two_spec, run_long_skip, &u);
	d = json_get_str(unit_claim(&u, "96.1"), "detail", "");
	n = strlen(d);
	assert_true(n > 400 && n < CLAIM_DETAIL_MAX);
	assert_string_equal(d + n - 12, "wordword9...");
	d = json_get_str(unit_claim(&u, "96.2"), "detail", "");
	assert_int_equal(strlen(d), 400);
	unit_lab_free(&u);
}

static void run_undecided(struct lab *L)
{
	claim_check(L, "96.1", iv(3, 3.5, 4));
}

static void test_lab_status(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&two_spec, run_all_inconclusive, &u);
	assert_string_equal(unit_status(&u, "96.1"), "inconclusive");
	assert_string_equal(unit_status(&u, "96.2"), "inconclusive");
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "inconclusive");
	unit_lab_free(&u);

	unit_run_lab(&two_spec, run_inconclusive_and_skip, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "inconclusive");
	unit_lab_free(&u);

	unit_run_lab(&two_spec, run_pass_and_inconclusive, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(json_get_str(u.rec, "status", ""), "pass");
	unit_lab_free(&u);

	unsetenv("DMALAB_TAP");
	unit_run_lab(&two_spec, run_all_skip, &u);
	assert_int_equal(u.exit_code, 77);
	assert_string_equal(json_get_str(u.rec, "status", ""), "skip");
	unit_lab_free(&u);

	unit_run_lab(&two_spec, run_undecided, &u);
	assert_int_equal(u.exit_code, 99);
	assert_string_equal(json_get_str(u.rec, "status", ""), "error");
	assert_string_equal(unit_status(&u, "96.2"), "error");
	unit_lab_free(&u);
}

static int setup(void **state)
{
	(void)state;
	unit_write_temp(errata_text, errata_path, sizeof(errata_path));
	setenv("DMALAB_ERRATA", errata_path, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(errata_path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_erratum_predicted),
		cmocka_unit_test(test_erratum_not_predicted),
		cmocka_unit_test(test_erratum_straddling),
		cmocka_unit_test(test_erratum_not_consulted_on_pass),
		cmocka_unit_test(test_erratum_when),
		cmocka_unit_test(test_erratum_on_codes_and_true),
		cmocka_unit_test(test_fail_without_erratum),
		cmocka_unit_test(test_errata_unreadable_is_error),
		cmocka_unit_test(test_errata_complement_refused),
		cmocka_unit_test(test_plain_verdicts),
		cmocka_unit_test(test_issue_outlier_ratio_passes),
		cmocka_unit_test(test_check_true_text_in_note),
		cmocka_unit_test(test_note_in_zh_record_english),
		cmocka_unit_test(test_lab_status),
		cmocka_unit_test(test_long_skip_detail),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
