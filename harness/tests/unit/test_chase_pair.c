/*
 * test_chase_pair.c - chase_pair_time: two chains in alternation, the same
 * loads a sample on each, their series in ns per load and the per-pair
 * ratio of b's time to a's; a random chain through 64 MiB against a
 * sequential one through the same size is slower in every pair.  And
 * abba_blocks: what a sample inherits from the arm before it cancels.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/08-hugepages/thp.h" /* chase.h, the paired chases, their blocks */
#include "lab_copy.h" /* lab_copy_pair_run: the pairs' order */
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

/* Arms of equal cost whose sample is 20 % dearer right after the other arm:
 * per pair the ratio swings 1.2 / 1 by the order, the blocks are all 1. */
struct carry {
	char *last; /* the arm that ran last, shared */
	char name;
};

static double carry_time(void *arg)
{
	struct carry *c = (struct carry *)arg;
	double t = *c->last && *c->last != c->name ? 1.2 : 1.0;

	*c->last = c->name;
	return t;
}

static void test_pair_blocks_cancel_carry_over(void **state)
{
	char last = 0;
	struct carry a = { &last, 'a' }, b = { &last, 'b' };
	double sa[9], sb[9], ba[4], bb[4];
	int k;

	(void)state;
	lab_copy_pair_run(carry_time, &a, &b, 9, sa, sb);
	assert_true(sb[1] / sa[1] > 1.1 && sb[2] / sa[2] < 0.9); /* a b, then b a */
	assert_int_equal(abba_blocks(sa, sb, 9, ba, bb), 4);
	for (k = 0; k < 4; k++) {
		assert_true(ba[k] == sa[2 * k + 1] + sa[2 * k + 2]);
		assert_true(bb[k] / ba[k] == 1.0);
	}
	assert_int_equal(abba_blocks(sa, sb, 8, ba, bb), 3);
	assert_int_equal(abba_blocks(sa, sb, 2, ba, bb), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_sequential),
		cmocka_unit_test(test_pair_blocks_cancel_carry_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
