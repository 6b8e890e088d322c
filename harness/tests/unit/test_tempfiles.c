/*
 * test_tempfiles.c - tempfiles.h in a temporary folder: a path announced
 * under DMALAB_TEMP_LIST is listed, nothing is written without the
 * variable, a relative path or one with "/../" is refused; the sweep
 * removes the listed files still there (each told to its callback), leaves
 * a folder alone, and removes the list.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tempfiles.h"

static char dir[64], list[128];

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* dir/name, made when make_it (an empty file). */
static const char *in_dir(const char *name, char *buf, size_t len, int make_it)
{
	FILE *f;

	snprintf(buf, len, "%s/%s", dir, name);
	if (make_it) {
		assert_non_null(f = fopen(buf, "w"));
		fclose(f);
	}
	return buf;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/dmalab-test-tempfiles.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(list, sizeof(list), "%s/lab-10.tempfiles", dir);
	setenv(TEMPFILES_ENV, list, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[96];

	unsetenv(TEMPFILES_ENV);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void count_told(void *ctx, const char *path, int err)
{
	if (!err)
		(*(int *)ctx)++;
}

static void test_announce_then_sweep(void **state)
{
	char a[128], b[128], gone[128], sub[128];
	int told = 0;

	assert_int_equal(tempfile_announce(in_dir("a.dat", a, sizeof(a), 1)), 0);
	assert_int_equal(tempfile_announce(in_dir("gone.dat", gone, sizeof(gone), 0)), 0);
	assert_int_equal(tempfile_announce(in_dir("b.log", b, sizeof(b), 1)), 0);
	assert_int_equal(mkdir(in_dir("sub", sub, sizeof(sub), 0), 0700), 0);
	assert_int_equal(tempfile_announce(sub), 0);
	assert_true(exists(list));
	assert_int_equal(tempfile_sweep(list, count_told, &told), 2);
	assert_int_equal(told, 2);
	assert_false(exists(a));
	assert_false(exists(b));
	assert_true(exists(sub)); /* a folder is never the runner's to remove */
	assert_false(exists(list));
	assert_int_equal(tempfile_sweep(list, count_told, &told), 0); /* no list: nothing */
}

static void test_announce_refuses_unsafe_paths(void **state)
{
	char path[160];

	assert_int_equal(tempfile_announce("results/lab10-1.dat"), -1);
	assert_int_equal(errno, EINVAL);
	snprintf(path, sizeof(path), "%s/../etc-passwd", dir);
	assert_int_equal(tempfile_announce(path), -1);
	assert_int_equal(errno, EINVAL);
	assert_false(exists(list));
}

static void test_announce_without_a_list(void **state)
{
	char a[128];

	unsetenv(TEMPFILES_ENV);
	assert_int_equal(tempfile_announce(in_dir("a.dat", a, sizeof(a), 1)), 0);
	assert_false(exists(list));
	assert_true(exists(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_announce_then_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_announce_refuses_unsafe_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_announce_without_a_list, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
