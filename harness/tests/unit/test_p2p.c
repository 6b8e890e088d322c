/*
 * test_p2p.c - lab-09's plain helpers (labs/09-p2p/p2p.h) without a GPU:
 * which ordered pairs are measured, the one-GPU skip, the sizes, the pattern
 * and the check that finds a planted corruption, the staged-copy rate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/09-p2p/p2p.h"

static struct p2p_plan asked, plan; /* large: off the stack */

static void test_every_ordered_pair(void **state)
{
	char err[128];

	(void)state;
	asked.n = 0;
	assert_int_equal(p2p_pairs_plan(3, &asked, -1, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.n, 6);
	assert_int_equal(plan.pair[0].src, 0); /* (0,1) first: the claims' pair */
	assert_int_equal(plan.pair[0].dst, 1);
	for (int i = 0; i < plan.n; i++)
		assert_int_not_equal(plan.pair[i].src, plan.pair[i].dst);
	assert_int_equal(p2p_pairs_plan(1, &asked, -1, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.n, 0);
	/* --device 2 of 4: the six pairs that involve GPU 2 */
	assert_int_equal(p2p_pairs_plan(4, &asked, 2, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.n, 6);
}

static void test_pairs_option(void **state)
{
	char err[128];

	(void)state;
	assert_int_equal(p2p_pairs_parse("1:0,0:1", &asked, err, sizeof(err)), 0);
	assert_int_equal(asked.n, 2);
	assert_int_equal(asked.pair[0].src, 1);
	assert_int_equal(p2p_pairs_plan(2, &asked, -1, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.pair[1].dst, 1);
	assert_int_equal(p2p_pairs_plan(1, &asked, -1, &plan, err, sizeof(err)), -1);
	assert_string_equal(err, "1:0: CUDA lists 1 device");
	assert_int_equal(p2p_pairs_parse("all", &asked, err, sizeof(err)), 0);
	assert_int_equal(asked.n, 0);
	assert_int_equal(p2p_pairs_parse("0:0", &asked, err, sizeof(err)), -1);
	assert_int_equal(p2p_pairs_parse("0-1", &asked, err, sizeof(err)), -1);
	assert_int_equal(p2p_pairs_parse("0:1,", &asked, err, sizeof(err)), -1);
	assert_int_equal(p2p_pairs_parse("0:1x", &asked, err, sizeof(err)), -1);
	assert_int_equal(p2p_pairs_parse("", &asked, err, sizeof(err)), -1);
	assert_int_equal(p2p_pairs_parse(":1", &asked, err, sizeof(err)), -1);
	assert_int_equal(p2p_pairs_parse("0:", &asked, err, sizeof(err)), -1);
	/* well formed, out of range: said so, not called malformed */
	assert_int_equal(p2p_pairs_parse("0:99999999999", &asked, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "GPUs 0 to 15"));
	assert_int_equal(p2p_pairs_parse("15:14", &asked, err, sizeof(err)), 0);
	assert_int_equal(p2p_pairs_parse("0:1,1:0,0:1", &asked, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "0:1 given twice"));
}

static void test_one_gpu_skips(void **state)
{
	char detail[64];

	(void)state;
	assert_string_equal(p2p_gpu_skip(1, detail, sizeof(detail)), "single-gpu");
	assert_string_equal(detail, "1 CUDA device, need 2");
	assert_string_equal(p2p_gpu_skip(0, detail, sizeof(detail)), SKIP_SINGLE_GPU);
	assert_string_equal(detail, "0 CUDA devices, need 2");
	assert_null(p2p_gpu_skip(2, detail, sizeof(detail)));
}

static void test_sizes(void **state)
{
	uint64_t s[P2P_MAX_SIZES];

	(void)state;
	assert_int_equal(p2p_sizes(1 * MiB, 1 * GiB, s), 6);
	assert_true(s[0] == 1 * MiB && s[1] == 4 * MiB && s[5] == 1 * GiB);
	assert_int_equal(p2p_sizes(64 * MiB, 64 * MiB, s), 1);
	assert_int_equal(p2p_sizes(1 * MiB, 100 * MiB, s), 5); /* 1 4 16 64, then 100 */
	assert_true(s[4] == 100 * MiB);
}

/* A buffer as a peer copy should deliver it. */
static uint32_t *pattern(uint64_t bytes, uint32_t seed)
{
	uint32_t *w = (uint32_t *)malloc(bytes);

	assert_non_null(w);
	for (uint64_t i = 0; i < bytes / 4; i++)
		w[i] = p2p_word(i, seed);
	return w;
}

static void test_planted_corruption_found(void **state)
{
	const uint64_t bytes = 1 * MiB, planted = bytes / 2 + 1;
	uint32_t *w = pattern(bytes, 7);

	(void)state;
	assert_int_equal(p2p_first_bad(w, bytes, 7), -1);
	((unsigned char *)w)[planted] ^= 0x01; /* one bit of one byte */
	assert_int_equal(p2p_first_bad(w, bytes, 7), (int64_t)planted);
	((unsigned char *)w)[planted] ^= 0x01;
	((unsigned char *)w)[bytes - 1] ^= 0xff; /* the last byte */
	assert_int_equal(p2p_first_bad(w, bytes, 7), (int64_t)(bytes - 1));
	/* another sender's data, and a zeroed buffer, fail at byte 0 */
	assert_int_equal(p2p_first_bad(w, bytes, 8), 0);
	memset(w, 0, bytes);
	assert_int_equal(p2p_first_bad(w, bytes, 7), 0);
	free(w);
}

static void test_pattern_moves_every_word(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 4096; i++)
		assert_int_not_equal(p2p_word(i, 1), p2p_word(i + 1, 1));
	assert_int_not_equal(p2p_word(1ull << 32, 1), p2p_word(0, 1));
	assert_int_equal(p2p_byte_in_word(0x11223344u, 0x11223344u), -1);
	assert_int_equal(p2p_byte_in_word(0x11223344u, 0x11993344u), 2);
}

static void test_staged_rate(void **state)
{
	(void)state;
	/* 55.2 each way (lab-02's H200): half of it when the halves do not overlap */
	assert_float_equal(p2p_staged_gbs(55.2, 55.2), 27.6, 1e-9);
	assert_float_equal(p2p_staged_gbs(50, 25), 50.0 / 3, 1e-9);
	assert_float_equal(p2p_staged_gbs(0, 25), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_ordered_pair),
		cmocka_unit_test(test_pairs_option),
		cmocka_unit_test(test_one_gpu_skips),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_planted_corruption_found),
		cmocka_unit_test(test_pattern_moves_every_word),
		cmocka_unit_test(test_staged_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
