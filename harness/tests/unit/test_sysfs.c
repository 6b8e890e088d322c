/*
 * test_sysfs.c - sysfs.h, the one reader of small /sys and /proc/sys files,
 * on files written to a temporary directory: trailing newlines and blanks
 * cut, a file that fills the buffer exactly read, one a byte longer refused
 * (never cut), a missing file, and the chosen word of a choice list.
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

#include "sysfs.h"

static char dir[] = "/tmp/dmalab-sysfs-XXXXXX";

/* dir/name holding text; returns its path (static). */
static const char *put(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	return path;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_read_cuts_trailing_newlines_and_blanks(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(sysfs_read_str(put("a", "32.0 GT/s \n\n"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "32.0 GT/s");
	assert_int_equal(sysfs_read_str(put("b", "1\t2\n"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1\t2"); /* a tab inside is the value's */
	assert_int_equal(sysfs_read_str(put("c", ""), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

static void test_read_refuses_a_long_file(void **state)
{
	const char *path = put("long", "1234567\n"); /* 8 bytes */
	char buf[9];

	(void)state;
	assert_int_equal(sysfs_read_str(path, buf, 9), 0); /* 8 bytes and the NUL */
	assert_string_equal(buf, "1234567");
	errno = 0;
	assert_int_equal(sysfs_read_str(path, buf, 8), -1); /* one byte short: never cut */
	assert_int_equal(errno, ERANGE);
	errno = 0;
	assert_int_equal(sysfs_read_str(path, buf, 1), -1);
	assert_int_equal(errno, ERANGE);
}

static void test_read_missing_file_and_bad_arguments(void **state)
{
	char buf[16];

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_read_str("/nonexistent/dmalab/file", buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(sysfs_read_str(NULL, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sysfs_read_str("/dev/null", buf, 0), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_choice_bracketed_word(void **state)
{
	char list[] = "always defer [defer+madvise] madvise never", first[] = "[always] never";
	char empty[] = "a [] b";

	(void)state;
	assert_string_equal(sysfs_choice(list), "defer+madvise");
	assert_string_equal(list, "always defer [defer+madvise"); /* cut at its ']' */
	assert_string_equal(sysfs_choice(first), "always");
	assert_string_equal(sysfs_choice(empty), "");
}

static void test_choice_without_brackets(void **state)
{
	char none[] = "always madvise never", open_only[] = "always [madvise never";
	char close_only[] = "always] madvise";

	(void)state;
	assert_null(sysfs_choice(none));
	assert_string_equal(none, "always madvise never"); /* left as it was */
	assert_null(sysfs_choice(open_only));
	assert_string_equal(open_only, "always [madvise never");
	assert_null(sysfs_choice(close_only));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_cuts_trailing_newlines_and_blanks),
		cmocka_unit_test(test_read_refuses_a_long_file),
		cmocka_unit_test(test_read_missing_file_and_bad_arguments),
		cmocka_unit_test(test_choice_bracketed_word),
		cmocka_unit_test(test_choice_without_brackets),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
