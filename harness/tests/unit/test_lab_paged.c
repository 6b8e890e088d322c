/*
 * test_lab_paged.c - the plain-C half of paged.h (lab-11), without a GPU:
 * the block table is a seeded permutation, and the host and device offsets
 * of a request's blocks neither overlap nor leave their region.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/11-kvcache/paged.h"

/* 1 when slot[0..n) holds each of 0..n-1 once. */
static int is_permutation(const uint32_t *slot, uint32_t n)
{
	unsigned char *seen = calloc(n ? n : 1, 1);
	uint32_t i;
	int ok = seen != NULL;

	for (i = 0; ok && i < n; i++) {
		ok = slot[i] < n && !seen[slot[i]];
		if (ok)
			seen[slot[i]] = 1;
	}
	free(seen);
	return ok;
}

static void test_table_is_a_seeded_permutation(void **state)
{
	uint32_t a[2048], b[2048], c[2048];
	uint32_t i, moved = 0, differ = 0;

	(void)state;
	lab_paged_table(a, 2048, 1);
	lab_paged_table(b, 2048, 1);
	lab_paged_table(c, 2048, 2);
	assert_true(is_permutation(a, 2048));
	assert_true(is_permutation(c, 2048));
	assert_memory_equal(a, b, sizeof(a)); /* the same seed, the same table */
	for (i = 0; i < 2048; i++) {
		moved += a[i] != i;
		differ += a[i] != c[i];
	}
	assert_true(moved > 1900); /* scattered: almost no block keeps its place */
	assert_true(differ > 1900);
}

static void test_table_edges(void **state)
{
	uint32_t one[1] = { 7 }, two[2];

	(void)state;
	lab_paged_table(one, 1, 5);
	assert_int_equal(one[0], 0);
	lab_paged_table(two, 2, 5);
	assert_true(is_permutation(two, 2));
	lab_paged_table(NULL, 0, 5); /* nothing to write */
}

/* Every block of every plane: host offsets tile the request exactly, device
 * offsets land in distinct slots of the pool. */
static void test_offsets_tile_host_and_scatter_in_pool(void **state)
{
	struct lab_paged k;
	uint64_t blocks = 24, p, b, bb = 32768;
	unsigned char *host_seen, *dev_seen;

	(void)state;
	assert_int_equal(lab_paged_init(&k, bb, 6, 40, 3), 0);
	host_seen = calloc(6 * blocks, 1);
	dev_seen = calloc(6 * 40, 1);
	for (p = 0; p < 6; p++)
		for (b = 0; b < blocks; b++) {
			uint64_t h = lab_paged_host_off(&k, p, blocks, b),
				 d = lab_paged_dev_off(&k, p, b);

			assert_int_equal(h % bb, 0);
			assert_int_equal(d % bb, 0);
			assert_true(h / bb < 6 * blocks && !host_seen[h / bb]);
			assert_true(d / bb < 6 * 40 && !dev_seen[d / bb]);
			assert_int_equal(d / bb / 40, p); /* in its own plane */
			host_seen[h / bb] = dev_seen[d / bb] = 1;
		}
	assert_null(memchr(host_seen, 0, 6 * blocks)); /* the request, no gap */
	free(host_seen);
	free(dev_seen);
	free(k.slot);
}

static void test_init_refuses_too_many_slots(void **state)
{
	struct lab_paged k;

	(void)state;
	assert_int_equal(lab_paged_init(&k, 4096, 2, (uint64_t)UINT32_MAX + 1, 1), -1);
	assert_null(k.slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_a_seeded_permutation),
		cmocka_unit_test(test_table_edges),
		cmocka_unit_test(test_offsets_tile_host_and_scatter_in_pool),
		cmocka_unit_test(test_init_refuses_too_many_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
