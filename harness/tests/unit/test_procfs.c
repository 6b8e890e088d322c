/*
 * test_procfs.c - the /proc and /sys readers on fixture files.
 *
 * Fixtures live in harness/tests/fixtures/ (run from the repository root, or
 * set DMALAB_FIXTURES to that directory).  Pagemap inputs are binary, so the
 * tests write them to a temporary file with known runs instead.
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

#include "procfs.h"

#define PAGE 4096
#define PRESENT (1ULL << 63)
#define SWAPPED (1ULL << 62)

static const char *fixture(const char *rel, char *buf, size_t len)
{
	const char *dir = getenv("DMALAB_FIXTURES");

	snprintf(buf, len, "%s/%s", dir ? dir : "harness/tests/fixtures", rel);
	return buf;
}

/* Write n pagemap entries to a fresh temporary file; returns its path. */
static char *write_pagemap(const uint64_t *e, size_t n)
{
	char *path = strdup("/tmp/dmalab-pagemap-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, e, n * sizeof(*e)), (ssize_t)(n * sizeof(*e)));
	close(fd);
	return path;
}

static void count_runs(const uint64_t *e, size_t n, uintptr_t addr, size_t len,
		       struct pagemap_runs *r)
{
	char *path = write_pagemap(e, n);

	assert_int_equal(pagemap_count_runs(path, addr, len, PAGE, r), 0);
	unlink(path);
	free(path);
}

/* ---- procfs_read_kb_field ---- */

static void test_procfs_read_kb_field_status_kb(void **state)
{
	char p[512];
	uint64_t v = 7;

	(void)state;
	assert_int_equal(procfs_read_kb_field(fixture("two-node/proc/self/status", p, sizeof(p)),
					      "VmRSS", &v), 0);
	assert_int_equal(v, 1024 * 1024);
	assert_int_equal(procfs_read_kb_field(p, "VmLck", &v), 0);
	assert_int_equal(v, 0);
}

static void test_procfs_read_kb_field_meminfo_count(void **state)
{
	char p[512];
	uint64_t v = 0;

	(void)state;
	fixture("two-node/proc/meminfo", p, sizeof(p));
	assert_int_equal(procfs_read_kb_field(p, "HugePages_Total", &v), 0);
	assert_int_equal(v, 8); /* a count: no "kB", not scaled */
	assert_int_equal(procfs_read_kb_field(p, "Hugepagesize", &v), 0);
	assert_int_equal(v, 2 * 1024 * 1024);
}

static void test_procfs_read_kb_field_missing_key(void **state)
{
	char p[512];
	uint64_t v = 0;

	(void)state;
	fixture("two-node/proc/self/status", p, sizeof(p));
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmNope", &v), -1);
	assert_int_equal(errno, ENOENT);
	/* A key that is only a prefix of a real one must not match it. */
	assert_int_equal(procfs_read_kb_field(p, "VmRS", &v), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_procfs_read_kb_field_missing_file(void **state)
{
	uint64_t v = 0;

	(void)state;
	errno = 0;
	assert_int_equal(procfs_read_kb_field("/nonexistent/status", "VmRSS", &v), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_procfs_read_kb_field_garbage(void **state)
{
	char p[512];
	uint64_t v = 0;

	(void)state;
	fixture("procfs/status-garbage", p, sizeof(p));
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmLck", &v), -1); /* "abc kB" */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmRSS", &v), -1); /* empty */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmHuge", &v), -1); /* "5 MB" */
	assert_int_equal(errno, EINVAL);
}

static void test_procfs_read_kb_field_live(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(proc_self_status("VmRSS", &v), 0);
	assert_true(v > 0);
	assert_int_equal(proc_meminfo("MemTotal", &v), 0);
	assert_true(v > 0);
}

/* ---- sysfs_read_str / sysfs_read_long ---- */

static void test_sysfs_read_str_strips_newline(void **state)
{
	char p[512], buf[64];

	(void)state;
	assert_int_equal(sysfs_read_str(fixture("two-node/sys/bus/pci/devices/0000:3b:00.0/"
						"current_link_speed", p, sizeof(p)),
					buf, sizeof(buf)), 0);
	assert_string_equal(buf, "32.0 GT/s PCIe");
}

static void test_sysfs_read_str_too_long(void **state)
{
	char p[512], buf[4];

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_read_str(fixture("procfs/thp-always", p, sizeof(p)),
					buf, sizeof(buf)), -1);
	assert_int_equal(errno, ERANGE);
}

static void test_sysfs_read_long_values(void **state)
{
	char p[512];
	long v = 0;

	(void)state;
	assert_int_equal(sysfs_read_long(fixture("procfs/long-42", p, sizeof(p)), &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(sysfs_read_long(fixture("procfs/long-minus1", p, sizeof(p)), &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(sysfs_read_long(fixture("procfs/long-hex", p, sizeof(p)), &v), 0);
	assert_int_equal(v, 0x10de);
}

static void test_sysfs_read_long_garbage(void **state)
{
	char p[512];
	long v = 0;

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_read_long(fixture("procfs/long-garbage", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sysfs_read_long(fixture("procfs/empty", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sysfs_read_long(fixture("procfs/missing", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, ENOENT);
}

/* ---- sysfs_thp_mode ---- */

static void test_sysfs_thp_mode_each(void **state)
{
	char p[512], mode[16];

	(void)state;
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-always", p, sizeof(p)),
					mode, sizeof(mode)), 0);
	assert_string_equal(mode, "always");
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-madvise", p, sizeof(p)),
					mode, sizeof(mode)), 0);
	assert_string_equal(mode, "madvise");
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-never", p, sizeof(p)),
					mode, sizeof(mode)), 0);
	assert_string_equal(mode, "never");
}

static void test_sysfs_thp_mode_no_bracket(void **state)
{
	char p[512], mode[16];

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-no-bracket", p, sizeof(p)),
					mode, sizeof(mode)), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_sysfs_thp_mode_small_buffer(void **state)
{
	char p[512], mode[4];

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-madvise", p, sizeof(p)),
					mode, sizeof(mode)), -1);
	assert_int_equal(errno, ERANGE);
}

/* ---- procfs_cap_effective ---- */

static void test_procfs_cap_effective_set(void **state)
{
	char p[512];
	int has = 0;

	(void)state;
	fixture("two-node/proc/self/status", p, sizeof(p));
	assert_int_equal(procfs_cap_effective(p, 14, &has), 0); /* CAP_IPC_LOCK */
	assert_int_equal(has, 1);
	assert_int_equal(procfs_cap_effective(p, 40, &has), 0); /* last of 0x1ff... */
	assert_int_equal(has, 1);
	assert_int_equal(procfs_cap_effective(p, 41, &has), 0);
	assert_int_equal(has, 0);
}

static void test_procfs_cap_effective_clear(void **state)
{
	char p[512];
	int has = 1;

	(void)state;
	fixture("one-node/proc/self/status", p, sizeof(p));
	assert_int_equal(procfs_cap_effective(p, 14, &has), 0);
	assert_int_equal(has, 0);
}

static void test_procfs_cap_effective_errors(void **state)
{
	char p[512];
	int has = 0;

	(void)state;
	errno = 0;
	assert_int_equal(procfs_cap_effective(fixture("procfs/status-garbage", p, sizeof(p)),
					      14, &has), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(procfs_cap_effective(fixture("two-node/proc/meminfo", p, sizeof(p)),
					      14, &has), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(procfs_cap_effective(p, 64, &has), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(procfs_cap_effective(p, -1, &has), -1);
}

/* ---- pagemap_count_runs ---- */

static void test_pagemap_count_runs_contiguous(void **state)
{
	uint64_t e[8];
	struct pagemap_runs r;

	(void)state;
	for (int i = 0; i < 8; i++)
		e[i] = PRESENT | (0x1000 + (uint64_t)i);
	count_runs(e, 8, 0, 8 * PAGE, &r);
	assert_int_equal(r.pages, 8);
	assert_int_equal(r.present, 8);
	assert_int_equal(r.runs, 1);
	assert_int_equal(r.longest_run, 8);
	assert_int_equal(r.pfn_visible, 1);
}

static void test_pagemap_count_runs_scattered(void **state)
{
	uint64_t e[6];
	struct pagemap_runs r;

	(void)state;
	for (int i = 0; i < 6; i++) /* every other frame, and going down */
		e[i] = PRESENT | (0x9000 - 2 * (uint64_t)i);
	count_runs(e, 6, 0, 6 * PAGE, &r);
	assert_int_equal(r.runs, 6);
	assert_int_equal(r.longest_run, 1);
}

static void test_pagemap_count_runs_mixed(void **state)
{
	/* runs: [100,101,102] [500] hole [200,201] -> 3 runs, longest 3 */
	uint64_t e[] = { PRESENT | 100, PRESENT | 101, PRESENT | 102, PRESENT | 500,
			 SWAPPED | 501, PRESENT | 200, PRESENT | 201 };
	struct pagemap_runs r;

	(void)state;
	count_runs(e, 7, 0, 7 * PAGE, &r);
	assert_int_equal(r.present, 6);
	assert_int_equal(r.runs, 3);
	assert_int_equal(r.longest_run, 3);
}

static void test_pagemap_count_runs_not_present(void **state)
{
	uint64_t e[4] = { 0, 0, 0, 0 };
	struct pagemap_runs r;

	(void)state;
	count_runs(e, 4, 0, 4 * PAGE, &r);
	assert_int_equal(r.pages, 4);
	assert_int_equal(r.present, 0);
	assert_int_equal(r.runs, 0);
	assert_int_equal(r.pfn_visible, 0);
}

static void test_pagemap_count_runs_pfn_hidden(void **state)
{
	uint64_t e[4] = { PRESENT, PRESENT, PRESENT, PRESENT };
	struct pagemap_runs r;

	(void)state;
	count_runs(e, 4, 0, 4 * PAGE, &r);
	assert_int_equal(r.present, 4);
	assert_int_equal(r.pfn_visible, 0);
	assert_int_equal(r.runs, 0); /* layout unknown: nothing counted */
	assert_int_equal(r.longest_run, 0);
}

static void test_pagemap_count_runs_offset_range(void **state)
{
	/* A range starting mid-page 2 and ending mid-page 4 covers pages 2-4. */
	uint64_t e[6] = { PRESENT | 1, PRESENT | 2, PRESENT | 50, PRESENT | 51,
			  PRESENT | 52, PRESENT | 53 };
	struct pagemap_runs r;

	(void)state;
	count_runs(e, 6, 2 * PAGE + 100, 2 * PAGE, &r);
	assert_int_equal(r.pages, 3);
	assert_int_equal(r.runs, 1);
	assert_int_equal(r.longest_run, 3);
}

static void test_pagemap_count_runs_many_chunks(void **state)
{
	/* Longer than one read chunk, a break every 1000 pages. */
	enum { N = 3000 };
	uint64_t *e = malloc(N * sizeof(*e));
	struct pagemap_runs r;

	(void)state;
	assert_non_null(e);
	for (int i = 0; i < N; i++)
		e[i] = PRESENT | (uint64_t)(i + (i / 1000) * 7 + 1);
	count_runs(e, N, 0, (size_t)N * PAGE, &r);
	free(e);
	assert_int_equal(r.runs, 3);
	assert_int_equal(r.longest_run, 1000);
}

static void test_pagemap_count_runs_short_file(void **state)
{
	uint64_t e[2] = { PRESENT | 1, PRESENT | 2 };
	struct pagemap_runs r;
	char *path = write_pagemap(e, 2);

	(void)state;
	errno = 0;
	assert_int_equal(pagemap_count_runs(path, 0, 4 * PAGE, PAGE, &r), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pagemap_count_runs(path, 0, PAGE, 3000, &r), -1); /* not 2^k */
	assert_int_equal(errno, EINVAL);
	unlink(path);
	free(path);
}

static void test_pagemap_count_runs_live(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 16 * page;
	char *buf = aligned_alloc(page, len);
	struct pagemap_runs r;

	(void)state;
	assert_non_null(buf);
	memset(buf, 1, len); /* first touch: every page present */
	assert_int_equal(pagemap_count_runs(NULL, (uintptr_t)buf, len, page, &r), 0);
	assert_int_equal(r.pages, 16);
	assert_int_equal(r.present, 16);
	if (r.pfn_visible)
		assert_true(r.runs >= 1 && r.runs <= 16);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procfs_read_kb_field_status_kb),
		cmocka_unit_test(test_procfs_read_kb_field_meminfo_count),
		cmocka_unit_test(test_procfs_read_kb_field_missing_key),
		cmocka_unit_test(test_procfs_read_kb_field_missing_file),
		cmocka_unit_test(test_procfs_read_kb_field_garbage),
		cmocka_unit_test(test_procfs_read_kb_field_live),
		cmocka_unit_test(test_sysfs_read_str_strips_newline),
		cmocka_unit_test(test_sysfs_read_str_too_long),
		cmocka_unit_test(test_sysfs_read_long_values),
		cmocka_unit_test(test_sysfs_read_long_garbage),
		cmocka_unit_test(test_sysfs_thp_mode_each),
		cmocka_unit_test(test_sysfs_thp_mode_no_bracket),
		cmocka_unit_test(test_sysfs_thp_mode_small_buffer),
		cmocka_unit_test(test_procfs_cap_effective_set),
		cmocka_unit_test(test_procfs_cap_effective_clear),
		cmocka_unit_test(test_procfs_cap_effective_errors),
		cmocka_unit_test(test_pagemap_count_runs_contiguous),
		cmocka_unit_test(test_pagemap_count_runs_scattered),
		cmocka_unit_test(test_pagemap_count_runs_mixed),
		cmocka_unit_test(test_pagemap_count_runs_not_present),
		cmocka_unit_test(test_pagemap_count_runs_pfn_hidden),
		cmocka_unit_test(test_pagemap_count_runs_offset_range),
		cmocka_unit_test(test_pagemap_count_runs_many_chunks),
		cmocka_unit_test(test_pagemap_count_runs_short_file),
		cmocka_unit_test(test_pagemap_count_runs_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
