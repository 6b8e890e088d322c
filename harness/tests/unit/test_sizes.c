/*
 * test_sizes.c - sizes.h: the sweep ladder with its largest and extra sizes,
 * ascending and without repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sizes.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

static int walk(uint64_t first, uint64_t factor, uint64_t max, const uint64_t *extra,
		int n_extra, uint64_t *out, int cap)
{
	uint64_t b;
	int n = 0;

	for (b = sizes_next(0, first, factor, max, extra, n_extra); b && n < cap;
	     b = sizes_next(b, first, factor, max, extra, n_extra))
		out[n++] = b;
	return n;
}

static void test_lab03_sweep(void **state)
{
	const uint64_t want[] = { 4 * KiB, 64 * KiB, MiB, 16 * MiB, 256 * MiB, 512 * MiB };
	uint64_t extra = 256 * MiB, got[16];
	int i, n = walk(4 * KiB, 16, 512 * MiB, &extra, 1, got, 16);

	(void)state;
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		assert_true(got[i] == want[i]);
}

static void test_extra_above_max_and_repeats(void **state)
{
	const uint64_t extra[] = { 64 * MiB, 16 * MiB, 64 * MiB };
	const uint64_t want[] = { 4 * KiB, 64 * KiB, MiB, 16 * MiB, 64 * MiB };
	uint64_t got[16];
	int i, n = walk(4 * KiB, 16, 16 * MiB, extra, 3, got, 16);

	(void)state;
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_true(got[i] == want[i]);
}

static void test_doubling_and_edges(void **state)
{
	uint64_t got[80];

	(void)state;
	assert_int_equal(walk(4 * KiB, 2, 6 * KiB, NULL, 0, got, 80), 2); /* 4 KiB, 6 KiB */
	assert_true(got[1] == 6 * KiB);
	assert_int_equal(walk(4 * KiB, 2, 2 * KiB, NULL, 0, got, 80), 1); /* max only */
	assert_true(got[0] == 2 * KiB);
	assert_int_equal(walk(0, 2, 8 * KiB, NULL, 0, got, 80), 1);
	assert_int_equal(walk(1, 2, UINT64_MAX, NULL, 0, got, 80), 65); /* 2^0..2^63, max */
	assert_true(got[63] == 1ULL << 63 && got[64] == UINT64_MAX);
	assert_true(sizes_next(UINT64_MAX, 1, 2, UINT64_MAX, NULL, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab03_sweep),
		cmocka_unit_test(test_extra_above_max_and_repeats),
		cmocka_unit_test(test_doubling_and_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
