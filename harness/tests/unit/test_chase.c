/*
 * test_chase.c - chase.h: a random chain is one cycle through every node,
 * the same for the same seed; the sequential (sabotage) order walks the
 * addresses in order; bad arguments are EINVAL; a walk and a timed sample
 * move along the chain.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chase.h"
#include "unit_lab.h"

#define BYTES (1 * MiB)

static char *buffer(void)
{
	char *p = aligned_alloc(4096, BYTES);

	assert_non_null(p);
	memset(p, 0xee, BYTES);
	return p;
}

/* The node index p points at, failing on an address that is no node. */
static uint64_t node_of(const char *base, uint64_t stride, uint64_t n, void *p)
{
	uint64_t off = (uint64_t)((char *)p - base);

	assert_true((char *)p >= base);
	assert_int_equal(off % stride, 0);
	assert_true(off / stride < n);
	return off / stride;
}

/* Walk n hops from node 0: every node once, back at node 0; returns how
 * many hops went to the next node in address order. */
static uint64_t assert_one_cycle(char *base, uint64_t stride, uint64_t n)
{
	unsigned char *seen = calloc(n, 1);
	void **p = (void **)base;
	uint64_t k, i, in_order = 0;

	assert_non_null(seen);
	for (k = 0; k < n; k++) {
		i = node_of(base, stride, n, p);
		assert_false(seen[i]);
		seen[i] = 1;
		p = (void **)*p;
		in_order += node_of(base, stride, n, p) == (i + 1) % n;
	}
	assert_ptr_equal(p, base);
	free(seen);
	return in_order;
}

static void test_random_is_one_cycle_over_every_line(void **state)
{
	char *b = buffer();
	uint64_t n = BYTES / 64;

	(void)state;
	assert_int_equal(chase_build(b, BYTES, 64, CHASE_RANDOM, 1), n);
	/* a random cycle goes to the next line about once: far from always */
	assert_true(assert_one_cycle(b, 64, n) < n / 100);
	free(b);
}

static void test_random_one_node_per_page(void **state)
{
	char *b = buffer();

	(void)state;
	assert_int_equal(chase_build(b, BYTES, 4096, CHASE_RANDOM, 7), BYTES / 4096);
	assert_one_cycle(b, 4096, BYTES / 4096);
	/* only the first word of a node is written */
	assert_int_equal((unsigned char)b[8], 0xee);
	assert_int_equal((unsigned char)b[4095], 0xee);
	free(b);
}

static void test_small_chains_are_cycles(void **state)
{
	char *b = buffer();
	uint64_t n;

	(void)state;
	for (n = 2; n <= 9; n++) {
		assert_int_equal(chase_build(b, n * 64, 64, CHASE_RANDOM, n), n);
		assert_one_cycle(b, 64, n);
	}
	free(b);
}

/* 1 if the chains in a and b link the same nodes (the addresses differ). */
static int same_chain(char *a, char *b, uint64_t stride, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if ((char *)*(void **)(a + i * stride) - a !=
		    (char *)*(void **)(b + i * stride) - b)
			return 0;
	return 1;
}

static void test_seed_decides_the_chain(void **state)
{
	char *a = buffer(), *b = buffer();

	(void)state;
	chase_build(a, BYTES, 64, CHASE_RANDOM, 42);
	chase_build(b, BYTES, 64, CHASE_RANDOM, 42);
	assert_true(same_chain(a, b, 64, BYTES / 64));
	chase_build(b, BYTES, 64, CHASE_RANDOM, 43);
	assert_false(same_chain(a, b, 64, BYTES / 64));
	chase_build(b, BYTES, 64, CHASE_RANDOM, 0); /* seed 0 is a seed too */
	assert_one_cycle(b, 64, BYTES / 64);
	free(a);
	free(b);
}

static void test_sequential_is_address_order(void **state)
{
	char *b = buffer();
	uint64_t n = BYTES / sizeof(void *), i;

	(void)state;
	assert_int_equal(chase_build(b, BYTES, sizeof(void *), CHASE_SEQUENTIAL, 1), n);
	for (i = 0; i < n; i++)
		assert_ptr_equal(((void **)b)[i], b + (i + 1) % n * sizeof(void *));
	assert_int_equal(assert_one_cycle(b, sizeof(void *), n), n);
	free(b);
}

static void test_bad_arguments(void **state)
{
	char *b = buffer();

	(void)state;
	errno = 0;
	assert_int_equal(chase_build(NULL, BYTES, 64, CHASE_RANDOM, 1), 0);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(chase_build(b + 1, 4096, 64, CHASE_RANDOM, 1), 0);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(chase_build(b, BYTES, 0, CHASE_RANDOM, 1), 0);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(chase_build(b, BYTES, 12, CHASE_RANDOM, 1), 0);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(chase_build(b, 127, 64, CHASE_SEQUENTIAL, 1), 0); /* one node */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(chase_build(b, BYTES, 64, (enum chase_order)7, 1), 0);
	assert_int_equal(errno, EINVAL);
	free(b);
}

static void test_walk_rounds_up_to_16(void **state)
{
	char *b = buffer();
	uint64_t n = BYTES / 64;

	(void)state;
	chase_build(b, BYTES, 64, CHASE_RANDOM, 5);
	assert_ptr_equal(chase_walk((void **)b, n), b); /* n is a multiple of 16 */
	assert_ptr_equal(chase_walk((void **)b, 1), chase_walk((void **)b, 16));
	assert_ptr_equal(chase_walk((void **)b, 0), b);
	free(b);
}

static void test_run_and_calibrate(void **state)
{
	char *b = buffer();
	struct chase c = { (void **)b, 0 };
	void **start;
	double t;

	(void)state;
	chase_build(b, BYTES, 64, CHASE_RANDOM, 9);
	chase_calibrate(&c, 1e-3);
	assert_true(c.loads >= 16);
	assert_int_equal(c.loads % 16, 0);
	start = c.p;
	t = chase_run(&c);
	assert_true(t > 0);
	assert_ptr_equal(c.p, chase_walk(start, c.loads)); /* the walk went on from there */
	node_of(b, 64, BYTES / 64, c.p);
	free(b);
}

/* chase_scale: loads in proportion to the time wanted, a multiple of 16, >= 16 */
static void test_scale(void **state)
{
	struct chase c = { NULL, 1600 };

	(void)state;
	chase_scale(&c, 1e-3, 2e-3);
	assert_int_equal(c.loads, 3200);
	c.loads = 1000;
	chase_scale(&c, 1e-3, 1.001e-3); /* 1001 -> 1008 */
	assert_int_equal(c.loads, 1008);
	c.loads = 16;
	chase_scale(&c, 1.0, 1e-6);
	assert_int_equal(c.loads, 16);
}

/* chase_time inside a lab: a series of ns per load, >= --iters samples. */
static const struct claim_spec one_claim[] = {
	{ "99.1", "ch1.Q1", "a claim", "ch1", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_spec one_spec = {
	.id = "99", .title = "chase test", .timeout_s = 10, .claims = one_claim,
	.default_iters = 7,
};

static void run_time(struct lab *L)
{
	char *b = buffer();
	struct lab_stats s;
	uint64_t loads = 0;

	chase_build(b, 64 * KiB, 64, CHASE_RANDOM, 3);
	chase_time(L, "chase_test", b, 2e-4, NULL, &s, &loads);
	claim_check_true(L, "99.1", !strcmp(s.unit, "ns") && s.n >= 7 && s.median > 0 &&
			 s.median < 1e6 && loads >= 16 && loads % 16 == 0, "ns per load");
	free(b);
}

static void test_time_in_a_lab(void **state)
{
	struct unit_lab u;

	(void)state;
	unit_run_lab(&one_spec, run_time, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(unit_status(&u, "99.1"), "pass");
	unit_lab_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_is_one_cycle_over_every_line),
		cmocka_unit_test(test_random_one_node_per_page),
		cmocka_unit_test(test_small_chains_are_cycles),
		cmocka_unit_test(test_seed_decides_the_chain),
		cmocka_unit_test(test_sequential_is_address_order),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_walk_rounds_up_to_16),
		cmocka_unit_test(test_run_and_calibrate),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_time_in_a_lab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
