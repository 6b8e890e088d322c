/*
 * test_errata.c - the answers/errata.md parser: the format of PROTOCOL.md
 * section 5, and every malformed input rejected with file:line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "errata.h"

static const char good[] =
	"# Known errata\n"
	"\n"
	"## 02.2\n"
	"says: pinned is about twice pageable\n"
	"truth: the ratio depends on the link\n"
	"why: the CPU stages pageable data\n"
	"source: https://example.org/a\n"
	"source: https://example.org/b\n"
	"\n"
	"## 10.3\r\n"
	"says: x   \n"
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
	x = errata_find(&e, "10.3");
	assert_string_equal(x->says, "x"); /* trailing blanks and \r dropped */
	assert_null(x->why); /* optional */
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
	assert_rejected("## 02.2\nsays: a\nsource: s\n", "errata.md:1: erratum 02.2 has no 'truth:'");
	assert_rejected("## 02.2\ntruth: a\nsource: s\n", "errata.md:1: erratum 02.2 has no 'says:'");
	assert_rejected("# t\n## 02.2\nsays: a\ntruth: b\n## 02.3\n",
			"errata.md:2: erratum 02.2 has no 'source:'");
}

static void test_errata_parse_bad_lines(void **state)
{
	(void)state;
	assert_rejected("## 02.2\nsays: a\nsay: b\n", "errata.md:3: unexpected line 'say: b'");
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
	assert_rejected("## 02.2\nsays: a\ntruth: b\nsource: c\n"
			"## 02.2\nsays: a\ntruth: b\nsource: c\n",
			"errata.md:5: erratum 02.2 is listed twice");
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
