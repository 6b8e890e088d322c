/*
 * test_lab_gemm.c - the plain-C half of gemm.h (lab-11), without a GPU:
 * how many GEMMs a sample holds, and the dense bf16 peak a device's SM
 * count and clock imply (checked against NVIDIA's published figures).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../../labs/11-kvcache/gemm.h"

static void test_reps_fill_the_floor(void **state)
{
	(void)state;
	assert_int_equal(lab_gemm_reps(5e-3, 2e-3, 512), 1);     /* long enough alone */
	assert_int_equal(lab_gemm_reps(2e-3, 2e-3, 512), 1);
	assert_int_equal(lab_gemm_reps(120e-6, 2e-3, 512), 17);  /* ceil(16.7) */
	assert_int_equal(lab_gemm_reps(1e-3, 2e-3, 512), 2);
	assert_true(lab_gemm_reps(120e-6, 2e-3, 512) * 120e-6 >= 2e-3);
}

static void test_reps_capped(void **state)
{
	(void)state;
	assert_int_equal(lab_gemm_reps(1e-9, 2e-3, 512), 512);
	assert_int_equal(lab_gemm_reps(0, 2e-3, 512), 512);       /* an event pair 0 ms apart */
	assert_int_equal(lab_gemm_reps(-1, 2e-3, 512), 512);
	assert_int_equal(lab_gemm_reps(NAN, 2e-3, 512), 512);
}

static void test_flop_per_clock_known_and_unknown(void **state)
{
	(void)state;
	assert_true(lab_gemm_bf16_flop_per_clk_sm(8, 0) == 2048);  /* 1024 FMA per SM */
	assert_true(lab_gemm_bf16_flop_per_clk_sm(9, 0) == 4096);  /* 2048 FMA per SM */
	assert_true(lab_gemm_bf16_flop_per_clk_sm(8, 6) == 0);     /* not checked: none */
	assert_true(lab_gemm_bf16_flop_per_clk_sm(10, 0) == 0);
	assert_true(lab_gemm_bf16_flop_per_clk_sm(7, 0) == 0);
}

/* NVIDIA's dense bf16 figures at the clocks they were computed with. */
static void test_peak_matches_published_figures(void **state)
{
	(void)state;
	/* A100: 108 SMs at 1410 MHz, 312 TFLOPS */
	assert_true(fabs(lab_gemm_peak_tflops(108, 1410000, 2048) - 311.9) < 0.5);
	/* H100 SXM: 132 SMs at 1830 MHz, 989.4 TFLOPS */
	assert_true(fabs(lab_gemm_peak_tflops(132, 1830000, 4096) - 989.4) < 0.5);
	assert_true(lab_gemm_peak_tflops(132, 1980000, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reps_fill_the_floor),
		cmocka_unit_test(test_reps_capped),
		cmocka_unit_test(test_flop_per_clock_known_and_unknown),
		cmocka_unit_test(test_peak_matches_published_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
