/*
 * test_chase_pair.c - chase_pair_time: two chains in alternation, the same
 * loads a sample on each, their series in ns per load and the per-pair
 * ratio of b's time to a's; a random chain through 64 MiB against a
 * sequential one through the same size is slower in every pair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/08-hugepages/thp.h" /* chase.h, and the paired chases */
#include "unit_lab.h"

#define BYTES (64 * MiB)

static void test_random_against_sequential(void **state)
{
	char *seq = aligned_alloc(4096, BYTES), *rnd = aligned_alloc(4096, BYTES);
	struct chase_pair p;
	int i;

	memset(&p, 0, sizeof(p));
	p.name_a = "chase_seq";
	p.name_b = "chase_rnd";
	p.name_ratio = "rnd_over_seq";

	assert_non_null(seq);
	assert_non_null(rnd);
	assert_true(chase_build(seq, BYTES, 64, CHASE_SEQUENTIAL, 1) > 0);
	assert_true(chase_build(rnd, BYTES, 64, CHASE_RANDOM, 1) > 0);
	chase_pair_time(seq, rnd, 2e-3, 9, &p);
	assert_int_equal(p.a.n, 9);
	assert_int_equal(p.b.n, 9);
	assert_int_equal(p.ratio.n, 9);
	assert_string_equal(p.a.unit, "ns");
	assert_string_equal(p.ratio.unit, "x");
	assert_string_equal(p.b.name, "chase_rnd");
	assert_true(p.loads >= 16 && p.loads % 16 == 0);
	for (i = 0; i < 9; i++) /* per pair: b's ns / a's ns is b's time / a's */
		assert_true(p.ratio.samples[i] > 1.5);
	assert_true(p.b.median > p.a.median);
	assert_false(p.ratio.too_short);
	free(seq);
	free(rnd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_sequential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
