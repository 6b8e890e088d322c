/*
 * test_lab_kv.c - lab-11's arithmetic (kv.h), without a GPU: the chapter's
 * own sums of ch1 E2 are checked here, as facts, since a claim must be
 * decided on what the machine measured.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../../labs/11-kvcache/kv.h"

/* ch1 E2: 80 layers x 8 heads x 128 dims x 2 (K and V) x 2 bytes. */
static void test_kv_bytes_per_token_chapters_model(void **state)
{
	(void)state;
	assert_int_equal(kv_bytes_per_token(80, 8, 128, 2), 327680);
	assert_int_equal(kv_bytes_per_token(80, 8, 128, 2) * 32768, 10ULL << 30); /* 10 GiB */
	assert_int_equal(kv_bytes_per_token(1, 1, 1, 1), 2);  /* K and V, not K alone */
}

/* The chapter's two times: 10.7 GB at 50 GB/s, 4.6e15 FLOP at 600 TFLOPS. */
static void test_chapters_times(void **state)
{
	double bytes = (double)kv_bytes_per_token(80, 8, 128, 2) * 32768;

	(void)state;
	assert_true(fabs(bytes / 1e9 - 10.74) < 0.01);
	assert_true(fabs(bytes / 50e9 - 0.21) < 0.01);
	assert_true(fabs(kv_prefill_flop(70e9, 32768) - 4.59e15) < 0.01e15);
	assert_true(fabs(kv_prefill_flop(70e9, 32768) / 600e12 - 7.6) < 0.1);
}

static void test_crossover_interpolates_and_ends(void **state)
{
	static const uint64_t n[] = { 16, 32, 64, 128 };
	static const double mid[] = { -3, -1, 1, 2 };     /* turns between 32 and 64 */
	static const double late[] = { -3, 1, -1, 2 };    /* last sign change counts */
	static const double never[] = { -3, -2, -1, -1 };
	static const double at_once[] = { 1, 2, 3, 4 };

	(void)state;
	assert_true(fabs(kv_crossover(n, mid, 4) - 48) < 1e-9);
	assert_true(fabs(kv_crossover(n, late, 4) - (64 + 64.0 / 3)) < 1e-9);
	assert_true(isinf(kv_crossover(n, never, 4)));
	assert_true(kv_crossover(n, at_once, 4) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_bytes_per_token_chapters_model),
		cmocka_unit_test(test_chapters_times),
		cmocka_unit_test(test_crossover_interpolates_and_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
