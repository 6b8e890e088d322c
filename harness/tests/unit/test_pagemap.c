/*
 * test_pagemap.c - physically contiguous runs from a pagemap file.
 *
 * Pagemap inputs are binary, so each test writes a fake pagemap (entries
 * from pagemap_entry()) to a temporary file with known runs; the live tests
 * read this process's /proc/self/pagemap and check only what holds with
 * and without the privilege to see frame numbers.
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

#include "lab.h"
#include "../../../labs/01-mlock/pagemap.h"

#define PAGE 4096

/* The entry of a present page at frame pfn. */
static uint64_t pagemap_entry(uint64_t pfn)
{
	return PAGEMAP_PRESENT | (pfn & PAGEMAP_PFN_MASK);
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

/* ---- the entry layout ---- */

static void test_pagemap_entry_layout(void **state)
{
	(void)state;
	assert_true(pagemap_entry(0x1234) & PAGEMAP_PRESENT);
	assert_false(pagemap_entry(0x1234) & PAGEMAP_SWAPPED);
	assert_int_equal(pagemap_entry(0x1234) & PAGEMAP_PFN_MASK, 0x1234);
	/* a PFN wider than 55 bits is cut to the field, never into the flags */
	assert_int_equal(pagemap_entry(UINT64_MAX), PAGEMAP_PRESENT | PAGEMAP_PFN_MASK);
}

/* ---- pagemap_count_runs ---- */

/* The n entries scanned as n whole pages: every field as expected. */
static void expect_runs(const uint64_t *e, size_t n, uint64_t present, uint64_t runs,
			uint64_t longest, int visible)
{
	struct pagemap_runs r;

	count_runs(e, n, 0, n * PAGE, &r);
	assert_int_equal(r.pages, n);
	assert_int_equal(r.present, present);
	assert_int_equal(r.runs, runs);
	assert_int_equal(r.longest_run, longest);
	assert_int_equal(r.pfn_visible, visible);
}

static void test_pagemap_count_runs_contiguous(void **state)
{
	uint64_t e[8];

	(void)state;
	for (int i = 0; i < 8; i++)
		e[i] = pagemap_entry(0x1000 + (uint64_t)i);
	expect_runs(e, 8, 8, 1, 8, 1);
}

static void test_pagemap_count_runs_scattered(void **state)
{
	uint64_t e[6];

	(void)state;
	for (int i = 0; i < 6; i++) /* every other frame, and going down */
		e[i] = pagemap_entry(0x9000 - 2 * (uint64_t)i);
	expect_runs(e, 6, 6, 6, 1, 1);
}

static void test_pagemap_count_runs_mixed(void **state)
{
	/* [100,101,102] [500] swapped [200,201]: 3 runs, longest 3; and
	 * 10, 11, hole, 12, 13: the hole ends a run though the frames go on */
	uint64_t mixed[] = { pagemap_entry(100), pagemap_entry(101), pagemap_entry(102),
			     pagemap_entry(500), PAGEMAP_SWAPPED | 501, pagemap_entry(200),
			     pagemap_entry(201) };
	uint64_t hole[] = { pagemap_entry(10), pagemap_entry(11), 0, pagemap_entry(12),
			    pagemap_entry(13) };

	(void)state;
	expect_runs(mixed, 7, 6, 3, 3, 1);
	expect_runs(hole, 5, 4, 2, 2, 1);
}

static void test_pagemap_count_runs_unknown_layout(void **state)
{
	uint64_t none[4] = { 0, 0, 0, 0 };
	uint64_t hidden[4] = { PAGEMAP_PRESENT, PAGEMAP_PRESENT, PAGEMAP_PRESENT, PAGEMAP_PRESENT };

	(void)state;
	expect_runs(none, 4, 0, 0, 0, 0);   /* nothing present */
	expect_runs(hidden, 4, 4, 0, 0, 0); /* present, PFNs hidden: nothing counted */
}

static void test_pagemap_count_runs_offset_range(void **state)
{
	/* A range starting mid-page 2 and ending mid-page 4 covers pages 2-4. */
	uint64_t e[6] = { pagemap_entry(1), pagemap_entry(2), pagemap_entry(50),
			  pagemap_entry(51), pagemap_entry(52), pagemap_entry(53) };
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
		e[i] = pagemap_entry((uint64_t)(i + (i / 1000) * 7 + 1));
	count_runs(e, N, 0, (size_t)N * PAGE, &r);
	free(e);
	assert_int_equal(r.runs, 3);
	assert_int_equal(r.longest_run, 1000);
}

static void test_pagemap_count_runs_empty_range(void **state)
{
	struct pagemap_runs r;

	(void)state;
	memset(&r, 0xff, sizeof(r));
	/* len 0 reads nothing, not even the file */
	assert_int_equal(pagemap_count_runs("/nonexistent/pagemap", 0, 0, PAGE, &r), 0);
	assert_int_equal(r.pages, 0);
	assert_int_equal(r.runs, 0);
	assert_int_equal(r.pfn_visible, 0);
}

static void test_pagemap_count_runs_errors(void **state)
{
	uint64_t e[2] = { pagemap_entry(1), pagemap_entry(2) };
	struct pagemap_runs r;
	char *path = write_pagemap(e, 2);

	(void)state;
	errno = 0;
	assert_int_equal(pagemap_count_runs(path, 0, 4 * PAGE, PAGE, &r), -1); /* short file */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pagemap_count_runs(path, 0, PAGE, 3000, &r), -1); /* not 2^k */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pagemap_count_runs(path, UINTPTR_MAX - 10, 100, PAGE, &r), -1); /* wraps */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pagemap_count_runs("/nonexistent/pagemap", 0, PAGE, PAGE, &r), -1);
	assert_int_equal(errno, ENOENT);
	unlink(path);
	free(path);
}

/* ---- what a scan says ---- */

static void test_pagemap_runs_unknown(void **state)
{
	struct pagemap_runs r = { 8, 0, 0, 0, 0 };
	char detail[200];

	(void)state;
	assert_string_equal(pagemap_runs_unknown(&r, detail, sizeof(detail)), SKIP_UNSUPPORTED);
	assert_non_null(strstr(detail, "none of the 8 pages"));
	r.present = 8; /* present, every PFN 0 */
	assert_string_equal(pagemap_runs_unknown(&r, detail, sizeof(detail)), SKIP_NO_CAPABILITY);
	assert_non_null(strstr(detail, "PFN 0"));
	r.pfn_visible = 1;
	r.runs = 2;
	assert_null(pagemap_runs_unknown(&r, detail, sizeof(detail)));
}

static void test_pagemap_pfns_denied(void **state)
{
	char detail[200] = "";
	const char *why = pagemap_pfns_denied(detail, sizeof(detail));

	(void)state;
	if (geteuid() == 0) {
		assert_null(why);
	} else {
		assert_string_equal(why, SKIP_NOT_ROOT);
		assert_non_null(strstr(detail, "non-root"));
	}
}

/* ---- the live pagemap ---- */

static void test_pagemap_runs_of_live(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 16 * page;
	char *buf = aligned_alloc(page, len);
	struct pagemap_runs r;

	(void)state;
	assert_non_null(buf);
	memset(buf, 1, len); /* first touch: every page present */
	assert_int_equal(pagemap_runs_of(buf, len, &r), 0);
	assert_int_equal(r.pages, 16);
	assert_int_equal(r.present, 16);
	if (r.pfn_visible)
		assert_true(r.runs >= 1 && r.runs <= 16);
	else
		assert_int_equal(r.runs, 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pagemap_entry_layout),
		cmocka_unit_test(test_pagemap_count_runs_contiguous),
		cmocka_unit_test(test_pagemap_count_runs_scattered),
		cmocka_unit_test(test_pagemap_count_runs_mixed),
		cmocka_unit_test(test_pagemap_count_runs_unknown_layout),
		cmocka_unit_test(test_pagemap_count_runs_offset_range),
		cmocka_unit_test(test_pagemap_count_runs_many_chunks),
		cmocka_unit_test(test_pagemap_count_runs_empty_range),
		cmocka_unit_test(test_pagemap_count_runs_errors),
		cmocka_unit_test(test_pagemap_runs_unknown),
		cmocka_unit_test(test_pagemap_pfns_denied),
		cmocka_unit_test(test_pagemap_runs_of_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
