/*
 * test_errata.c - the answers/errata.md parser: the format of PROTOCOL.md
 * section 5 (expect: and when: relations included), every malformed input
 * rejected with file:line, and errata_builtin (the built-in copy, or the
 * file DMALAB_ERRATA names).
 */
#include <errno.h>
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

#include "errata.h"
#include "record.h"

static const char good[] =
	"# Known errata\n"
	"\n"
	"## 02.2\n"
	"says: pinned is about twice pageable\n"
	"expect: ge 3\n"
	"when: pcie_gen_max ge 4\n"
	"truth: the ratio depends on the link\n"
	"why: the CPU stages pageable data\n"
	"source: https://example.org/a\n"
	"source: https://example.org/b\n"
	"\n"
	"## 10.3\r\n"
	"says: x   \n"
	"expect: eq cudaErrorInvalidValue\t \n"
	"truth: y\n"
	"source: z\n";

/* Parses text that must be rejected; the message must contain `want`. */
static void assert_rejected(const char *text, const char *want)
{
	struct errata e;
	char err[256];

	if (errata_parse(text, "errata.md", &e, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	assert_int_equal(e.n, 0);
	assert_null(e.items);
}

static void test_errata_parse_good(void **state)
{
	struct errata e;
	char err[256];
	const struct erratum *x;

	(void)state;
	assert_int_equal(errata_parse(good, "errata.md", &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 2);
	x = errata_find(&e, "02.2");
	assert_non_null(x);
	assert_string_equal(x->says, "pinned is about twice pageable");
	assert_string_equal(x->truth, "the ratio depends on the link");
	assert_int_equal(x->nsources, 2);
	assert_string_equal(x->source[1], "https://example.org/b");
	assert_int_equal(x->line, 3);
	assert_string_equal(x->why, "the CPU stages pageable data");
	assert_string_equal(x->expect_text, "ge 3");
	assert_string_equal(x->expect.op, "ge");
	assert_true(x->expect.a == 3);
	assert_null(x->expect.name);
	assert_string_equal(x->when_fact, "pcie_gen_max");
	assert_string_equal(x->when_text, "pcie_gen_max ge 4");
	assert_string_equal(x->when.op, "ge");
	assert_true(x->when.a == 4);
	x = errata_find(&e, "10.3");
	assert_string_equal(x->says, "x"); /* trailing blanks and \r dropped */
	assert_null(x->why); /* optional */
	assert_string_equal(x->expect_text, "eq cudaErrorInvalidValue");
	assert_string_equal(x->expect.op, "eq");
	assert_ptr_equal(x->expect.name, x->expect_name);
	assert_string_equal(x->expect.name, "cudaErrorInvalidValue");
	assert_string_equal(x->when_fact, ""); /* no when: applies everywhere */
	assert_null(x->when_text);
	assert_null(errata_find(&e, "02.1"));
	errata_free(&e);
	assert_int_equal(e.n, 0);
}

static void test_errata_parse_header_only(void **state)
{
	struct errata e;
	char err[64];

	(void)state;
	assert_int_equal(errata_parse("# Known errata\n", "f", &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(errata_parse("", "f", &e, err, sizeof(err)), 0);
	assert_null(errata_find(&e, "01.1"));
}

static void test_errata_parse_missing_fields(void **state)
{
	(void)state;
	assert_rejected("## 02.2\nsays: a\nexpect: ge 3\nsource: s\n",
			"errata.md:1: erratum 02.2 has no 'truth:'");
	assert_rejected("## 02.2\nexpect: ge 3\ntruth: a\nsource: s\n",
			"errata.md:1: erratum 02.2 has no 'says:'");
	assert_rejected("# t\n## 02.2\nsays: a\nexpect: ge 3\ntruth: b\n## 02.3\n",
			"errata.md:2: erratum 02.2 has no 'source:'");
	/* an erratum without the relation it predicts cannot be checked */
	assert_rejected("## 02.2\nsays: a\ntruth: b\nsource: c\n",
			"errata.md:1: erratum 02.2 has no 'expect:'");
	assert_rejected("## 02.1\nsays: a\nexpect: ge 3\ntruth: b\nsource: c\n"
			"## 02.2\nsays: a\ntruth: b\nsource: c\n",
			"errata.md:6: erratum 02.2 has no 'expect:'");
}

static void test_errata_parse_bad_lines(void **state)
{
	(void)state;
	assert_rejected("## 02.2\nsays: a\nsay: b\n", "errata.md:3: unknown key 'say'");
	assert_rejected("says: a\n", "errata.md:1: 'says:' before the first");
	assert_rejected("## 02.2\nsays:\n", "errata.md:2: 'says:' has no value");
	assert_rejected("## 02.2\nsays: a\nsays: b\n", "errata.md:3: second 'says:'");
	assert_rejected("## 02.2\nwhy: a\nwhy: b\n", "errata.md:3: second 'why:'");
	assert_rejected("## 02.2\nwhy:\n", "errata.md:2: 'why:' has no value");
	assert_rejected("## two\n", "errata.md:1: 'two' is not a claim id");
	assert_rejected("## 2.\n", "is not a claim id");
	assert_rejected("plain text\n", "errata.md:1: unexpected line");
}

static void test_errata_parse_duplicate_id(void **state)
{
	(void)state;
	assert_rejected("## 02.2\nsays: a\nexpect: ge 3\ntruth: b\nsource: c\n"
			"## 02.2\nsays: a\nexpect: ge 3\ntruth: b\nsource: c\n",
			"errata.md:6: erratum 02.2 is listed twice");
}

static void test_errata_load_missing_file(void **state)
{
	struct errata e;
	char err[256];

	(void)state;
	errno = 0;
	assert_int_equal(errata_load("/nonexistent/errata.md", &e, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "/nonexistent/errata.md"));
}

static void test_errata_load_file(void **state)
{
	char path[] = "/tmp/dmalab-errata-XXXXXX";
	struct errata e;
	char err[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "## 01.1\nsays: a\nwrong\n", 22), 22);
	close(fd);
	assert_int_equal(errata_load(path, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, ":3: unexpected line"));
	unlink(path);
}

/* Writes len bytes to a fresh temporary file; path gets its name. */
static void write_temp(const char *text, size_t len, char *path)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* An empty file is no errata and no error.  getdelim reads nothing then and
 * leaves its buffer as malloc gave it: parsing that buffer read garbage
 * (and past it: found by harness/tests/fuzz/fuzz_errata).  A block of the
 * buffer's size filled and freed first makes the garbage certain. */
static void test_errata_load_empty_file(void **state)
{
	char path[] = "/tmp/dmalab-errata-XXXXXX";
	struct errata e;
	char err[256] = "", *junk = malloc(120);

	(void)state;
	assert_non_null(junk);
	memset(junk, 'x', 120);
	free(junk);
	write_temp("", 0, path);
	if (errata_load(path, &e, err, sizeof(err)) != 0)
		fail_msg("an empty errata file was refused: %s", err);
	assert_int_equal(e.n, 0);
	errata_free(&e);
	unlink(path);
}

/* A NUL byte ends what getdelim reads: the errata after it were dropped
 * without a word.  Such a file is refused. */
static void test_errata_load_nul_byte(void **state)
{
	static const char text[] = "## 01.1\nsays: a\nexpect: ge 3\ntruth: b\nsource: c\n\0"
				   "## 01.1\nbroken\n";
	char path[] = "/tmp/dmalab-errata-XXXXXX";
	struct errata e;
	char err[256] = "";

	(void)state;
	write_temp(text, sizeof(text) - 1, path);
	errno = 0;
	if (errata_load(path, &e, err, sizeof(err)) == 0)
		fail_msg("a file with a NUL byte was read as %d errata", e.n);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "NUL byte at offset 48"));
	assert_int_equal(e.n, 0);
	unlink(path);
}

/* A relation is checked once its entry has every key: complete the entry. */
static void assert_bad_relation(const char *text, const char *want)
{
	char whole[512];

	snprintf(whole, sizeof(whole), "%struth: t\nsource: s\n", text);
	assert_rejected(whole, want);
}

static void test_errata_parse_bad_relations(void **state)
{
	(void)state;
	assert_bad_relation("## 02.2\nsays: a\nexpect: about 3\n",
			"errata.md:3: 'expect: about 3' is not a relation");
	assert_bad_relation("# h\n\n## 02.2\nsays: a\nexpect: ge\n", "errata.md:5: 'expect: ge'");
	assert_bad_relation("## 02.2\nsays: a\nexpect: in_range 1\n", "errata.md:3: 'expect:");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ratio_ge 3\n", "errata.md:3: 'expect:");
	assert_bad_relation("## 02.2\nsays: a\nexpect:\n", "errata.md:3: 'expect:' has no value");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ge 3\nexpect: ge 4\n",
			"errata.md:4: second 'expect:'");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ge 3\nwhen: pcie_gen_max\n",
			"errata.md:4: 'when: pcie_gen_max' is not 'FACT OP NUMBER'");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ge 3\nwhen: ge 4\n", "errata.md:4: 'when:");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ge 3\nwhen: gpu eq H200\n",
			"errata.md:4: 'when:");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ge 3\nwhen: gpu eq NVIDIA_H200_NVL\n",
			"errata.md:4: 'when:");
	assert_bad_relation("## 02.2\nsays: a\nexpect: ge 3\nwhen: pcie_gen_max ge 4\n"
			"when: pcie_gen_max ge 5\n", "errata.md:5: second 'when:'");
	/* a value the run measures is a point with no interval: never a when: */
	assert_bad_relation("## 10.2\nsays: a\nexpect: lt 1.1\nwhen: overlap_gain_bound_x lt 1.1\n",
			"errata.md:4: 'when: overlap_gain_bound_x lt 1.1' names no fact read from "
			"the machine");
}

static void test_errata_parse_relations(void **state)
{
	static const char text[] =
		"## 05.3\nsays: a\nexpect: in_range 1.25 16\ntruth: b\nsource: c\n"
		"## 05.6\nsays: a\nexpect: near 2 0.5\nwhen: pcie_width_max ge 2\ntruth: b\n"
		"source: c\n"
		"## 06.5\nsays: a\nexpect: eq false\ntruth: b\nsource: c\n";
	struct errata e;
	char err[256];
	const struct erratum *x;

	(void)state;
	assert_int_equal(errata_parse(text, "f", &e, err, sizeof(err)), 0);
	x = errata_find(&e, "05.3");
	assert_true(!strcmp(x->expect.op, "in_range") && x->expect.a == 1.25 && x->expect.b == 16);
	x = errata_find(&e, "05.6");
	assert_true(!strcmp(x->expect.op, "near") && x->expect.a == 2 && x->expect.abs_tol == 0.5);
	assert_string_equal(x->when_fact, "pcie_width_max");
	assert_true(x->when.a == 2);
	x = errata_find(&e, "06.5");
	assert_true(!strcmp(x->expect.op, "eq") && x->expect.a == 0 && !x->expect.name);
	errata_free(&e);
}

/* The items array grows by realloc: every name must still point into its
 * own entry after it moved. */
static void test_errata_parse_names_survive_growth(void **state)
{
	char *text = malloc(200 * 200), *p = text;
	struct errata e;
	char err[256], id[16], name[64];

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 150; i++)
		p += sprintf(p, "## 07.%d\nsays: s%d\nexpect: eq cudaErrorNumber%d\ntruth: t\n"
			     "source: u%d\n\n", i, i, i, i);
	assert_int_equal(errata_parse(text, "f", &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 150);
	for (int i = 0; i < 150; i++) {
		const struct erratum *x;

		snprintf(id, sizeof(id), "07.%d", i);
		snprintf(name, sizeof(name), "cudaErrorNumber%d", i);
		x = errata_find(&e, id);
		assert_non_null(x);
		assert_ptr_equal(x->expect.name, x->expect_name);
		assert_string_equal(x->expect.name, name);
		assert_int_equal(lab_relation_verdict(&x->expect, lab_est_exact(1), name),
				 LAB_HOLDS);
	}
	errata_free(&e);
	free(text);
}

/* errata_check_want on the erratum of one section's expect: against want. */
static int check_want(const char *expect, struct claim_want want)
{
	char text[200], err[300];
	struct errata e;
	int rc;

	snprintf(text, sizeof(text), "## 01.1\nsays: a\nexpect: %s\ntruth: b\nsource: c\n",
		 expect);
	assert_int_equal(errata_parse(text, "f", &e, err, sizeof(err)), 0);
	rc = errata_check_want(&e.items[0], &want, err, sizeof(err));
	if (rc < 0 && !strstr(err, "erratum 01.1: 'expect: "))
		fail_msg("message '%s'", err);
	errata_free(&e);
	return rc;
}

static void test_errata_check_want_complement(void **state)
{
	struct claim_want ratio = WANT_RATIO_GE(1.1), band = WANT_NEAR(2, 0.25, "x"),
			  abs = WANT_NEAR_ABS(1.05, 0.0125, "x"), one = WANT_INT(1, "runs"),
			  below = WANT_LE(0.25, "x"), is = WANT_TRUE,
			  code = WANT_CUDA_ERR(2, "cudaErrorMemoryAllocation");

	(void)state;
	/* the plain complement, on one side or whole: refused */
	assert_int_equal(check_want("lt 1.1", ratio), -1);      /* the old erratum 10.2 */
	assert_int_equal(check_want("le 1.2", ratio), -1);      /* overlaps the want too */
	assert_int_equal(check_want("lt 1.0375", abs), -1);     /* 08.2 as of issue 27 */
	assert_int_equal(check_want("gt 1", one), -1);          /* the old erratum 01.7 */
	assert_int_equal(check_want("gt 0.25", below), -1);
	assert_int_equal(check_want("ge 1.5", band), -1);       /* adjoins 2 + 25 % */
	assert_int_equal(check_want("eq false", is), -1);       /* the old erratum 06.5 */
	/* a gap to the want, or a bounded relation: a run can refute it */
	assert_int_equal(check_want("ge 3", band), 0);          /* erratum 02.2 */
	assert_int_equal(check_want("le 1.4", band), 0);
	assert_int_equal(check_want("in_range 1.25 16", band), 0);
	assert_int_equal(check_want("in_range 0.97 1.05", ratio), 0);
	assert_int_equal(check_want("in_range 1.0 1.0375", abs), 0);
	assert_int_equal(check_want("in_range 2 4096", one), 0);
	assert_int_equal(check_want("eq cudaSuccess", code), 0); /* another outcome, named */
}

/* errata_builtin caches: each case runs in a child of its own.  The child
 * exits 0 when check(err, errata) holds. */
static int in_child(const char *env, int (*check)(const struct errata *all, const char *err))
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char err[512] = "";
		const struct errata *all;

		if (env)
			setenv("DMALAB_ERRATA", env, 1);
		else
			unsetenv("DMALAB_ERRATA");
		all = errata_builtin(err, sizeof(err));
		_exit(check(all, err));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int from_file(const struct errata *all, const char *err)
{
	const struct erratum *x = all ? errata_find(all, "42.1") : NULL;

	(void)err;
	return all && all->n == 1 && x && !strcmp(x->truth, "from the file") ? 0 : 1;
}

static int missing_file(const struct errata *all, const char *err)
{
	return !all && strstr(err, "/nonexistent/errata.md") ? 0 : 1;
}

static int bad_file(const struct errata *all, const char *err)
{
	return !all && strstr(err, ":2: unexpected line") ? 0 : 1;
}

static int built_in(const struct errata *all, const char *err)
{
	(void)err;
	/* answers/errata.md, as built into the library */
	return all && all->n > 0 && errata_find(all, "02.2") ? 0 : 1;
}

static void test_errata_builtin(void **state)
{
	char good_path[] = "/tmp/dmalab-errata-XXXXXX", bad_path[] = "/tmp/dmalab-errata-XXXXXX";
	static const char one[] = "## 42.1\nsays: a\nexpect: ge 3\ntruth: from the file\n"
				  "source: s\n";
	static const char bad[] = "## 42.1\nnonsense\n";
	int fd;

	(void)state;
	fd = mkstemp(good_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, one, strlen(one)), (ssize_t)strlen(one));
	close(fd);
	fd = mkstemp(bad_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
	close(fd);
	assert_int_equal(in_child(good_path, from_file), 0);
	assert_int_equal(in_child("/nonexistent/errata.md", missing_file), 0);
	assert_int_equal(in_child(bad_path, bad_file), 0);
	assert_int_equal(in_child(NULL, built_in), 0);
	assert_int_equal(in_child("", built_in), 0); /* empty: the built-in copy */
	unlink(good_path);
	unlink(bad_path);
}

/* A file named must exist; a fallback may be missing (the built-in copy). */
static void test_errata_read_order(void **state)
{
	static const char one[] = "## 42.1\nsays: a\nexpect: ge 3\ntruth: t\nsource: s\n";
	char path[] = "/tmp/dmalab-errata-XXXXXX", err[256];
	const char *used = "";
	struct errata e;

	(void)state;
	unsetenv("DMALAB_ERRATA");
	write_temp(one, strlen(one), path);
	assert_int_equal(errata_read(NULL, "/nonexistent/errata.md", &used, &e, err,
				     sizeof(err)), 0);
	assert_null(used);
	assert_non_null(errata_find(&e, "02.2"));
	errata_free(&e);
	assert_int_equal(errata_read("/nonexistent/errata.md", path, &used, &e, err,
				     sizeof(err)), -1);
	assert_int_equal(errata_read(NULL, path, &used, &e, err, sizeof(err)), 0);
	assert_ptr_equal(used, path);
	assert_non_null(errata_find(&e, "42.1"));
	errata_free(&e);
	setenv("DMALAB_ERRATA", "/nonexistent/errata.md", 1);
	assert_int_equal(errata_read(NULL, path, &used, &e, err, sizeof(err)), -1);
	unsetenv("DMALAB_ERRATA");
	unlink(path);
}

/* record.c's claim-id check (errata headings, planned claims) and list check. */
static void test_claim_id_and_lists(void **state)
{
	(void)state;
	assert_true(claim_id_ok("02.1", NULL));
	assert_true(claim_id_ok("10.12", NULL));
	assert_false(claim_id_ok("02", NULL));
	assert_false(claim_id_ok(".1", NULL));
	assert_false(claim_id_ok("02.", NULL));
	assert_false(claim_id_ok("02.1.3", NULL));
	assert_false(claim_id_ok("02.x", NULL));
	assert_false(claim_id_ok("0000000000000000000000000000000.1", NULL));
	assert_true(text_list_has(" 02.1, 02.3 ", "02.3", 4, " ,"));
	assert_false(text_list_has("02.10", "02.1", 4, " ,"));
	assert_false(text_list_has("02.1 ", "", 0, " ,"));
	assert_true(text_list_has("cpu,memory", "memory", 6, ","));
	assert_false(text_list_has("rd wr\n", "w", 1, " \n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errata_parse_good),
		cmocka_unit_test(test_errata_parse_header_only),
		cmocka_unit_test(test_errata_parse_missing_fields),
		cmocka_unit_test(test_errata_parse_bad_lines),
		cmocka_unit_test(test_errata_parse_duplicate_id),
		cmocka_unit_test(test_errata_load_missing_file),
		cmocka_unit_test(test_errata_load_file),
		cmocka_unit_test(test_errata_load_empty_file),
		cmocka_unit_test(test_errata_load_nul_byte),
		cmocka_unit_test(test_errata_parse_bad_relations),
		cmocka_unit_test(test_errata_parse_relations),
		cmocka_unit_test(test_errata_parse_names_survive_growth),
		cmocka_unit_test(test_errata_check_want_complement),
		cmocka_unit_test(test_errata_builtin),
		cmocka_unit_test(test_errata_read_order),
		cmocka_unit_test(test_claim_id_and_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
