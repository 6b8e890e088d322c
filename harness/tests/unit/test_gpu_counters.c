/*
 * test_gpu_counters.c - the error counters of one GPU: the AER totals from a
 * fixture sysfs tree (harness/tests/fixtures/gpus-aer: a device with 3
 * correctable errors, 1 non-fatal, 0 fatal), NVML's from a made-up ops table
 * (a counter it answers, one it refuses, the remapped and retired pages, an XID
 * event, clocks held back or not), and what moved
 * between two readings (a rise, no change, a counter unknown on one side).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_counters.h"
#include "gpu_topo.h"
#include "unit_lab.h"

#define GPU "0000:3b:00.0"

/* A made-up NVML: replays as given, ECC refused (not supported), rows as given. */
struct fake {
	long long replay, rows_corr, rows_unc, pending;
	const char *seen_bdf;
};

static int fake_replay(void *ctx, const char *bdf, long long *v)
{
	struct fake *f = (struct fake *)ctx;

	f->seen_bdf = bdf;
	*v = f->replay;
	return 0;
}

static int fake_ecc(void *ctx, const char *bdf, int uncorrected, long long *v)
{
	*v = 99; /* must not be kept: the call failed */
	return -1;
}

static int fake_rows(void *ctx, const char *bdf, long long *corr, long long *unc,
		     long long *pending)
{
	struct fake *f = (struct fake *)ctx;

	*corr = f->rows_corr;
	*unc = f->rows_unc;
	*pending = f->pending;
	return 0;
}

/* Pages retired: 4 for single-bit errors, double-bit refused (not supported). */
static int fake_retired(void *ctx, const char *bdf, int double_bit, long long *v)
{
	*v = 4;
	return double_bit ? -1 : 0;
}

static int fake_xid(void *ctx, const char *bdf, long long *v)
{
	*v = 1;
	return 0;
}

/* The clocks held back by a hardware slowdown, beside an idle GPU's reason. */
static int fake_clocks(void *ctx, const char *bdf, unsigned long long *reasons)
{
	*reasons = GPU_CLOCKS_GPU_IDLE | GPU_CLOCKS_HW_SLOWDOWN;
	return 0;
}

static int fake_clocks_idle(void *ctx, const char *bdf, unsigned long long *reasons)
{
	*reasons = GPU_CLOCKS_GPU_IDLE | GPU_CLOCKS_APP_SETTING;
	return 0;
}

static void test_aer_from_sysfs(void **state)
{
	char root[256];
	struct gpu_counters c;

	gpu_counters_read(unit_fixture_sys("gpus-aer", root, sizeof(root)), GPU, NULL, &c);
	assert_int_equal(c.v[GPU_C_AER_CORRECTABLE], 3);
	assert_int_equal(c.v[GPU_C_AER_NONFATAL], 1);
	assert_int_equal(c.v[GPU_C_AER_FATAL], 0);
	assert_int_equal(c.v[GPU_C_PCIE_REPLAY], -1); /* no NVML: unknown, not 0 */
	gpu_counters_read(root, "0000:ff:00.0", NULL, &c); /* no such device */
	assert_int_equal(c.v[GPU_C_AER_CORRECTABLE], -1);
}

static void test_nvml_through_ops(void **state)
{
	struct fake f = { 7, 2, 0, 1, NULL };
	struct gpu_counter_ops ops = { fake_replay, fake_ecc, fake_rows, fake_retired, fake_xid,
				       fake_clocks, &f };
	char root[256];
	struct gpu_counters c;

	gpu_counters_read(unit_fixture_sys("gpus-aer", root, sizeof(root)), GPU, &ops, &c);
	assert_string_equal(f.seen_bdf, GPU);
	assert_int_equal(c.v[GPU_C_PCIE_REPLAY], 7);
	assert_int_equal(c.v[GPU_C_ECC_CORRECTED], -1);
	assert_int_equal(c.v[GPU_C_ECC_UNCORRECTED], -1);
	assert_int_equal(c.v[GPU_C_ROWS_CORRECTABLE], 2);
	assert_int_equal(c.v[GPU_C_ROWS_UNCORRECTABLE], 0);
	assert_int_equal(c.v[GPU_C_ROW_REMAP_PENDING], 1);
	assert_int_equal(c.v[GPU_C_AER_CORRECTABLE], 3);
	assert_int_equal(c.v[GPU_C_RETIRED_SBE], 4);
	assert_int_equal(c.v[GPU_C_RETIRED_DBE], -1);
	assert_int_equal(c.v[GPU_C_XID], 1);
	assert_int_equal(c.v[GPU_C_CLOCKS_HELD], 1);
	ops.clocks = fake_clocks_idle; /* idle and application clocks hold nothing back */
	gpu_counters_read(root, GPU, &ops, &c);
	assert_int_equal(c.v[GPU_C_CLOCKS_HELD], 0);
	ops.clocks = NULL;
	gpu_counters_read(root, GPU, &ops, &c);
	assert_int_equal(c.v[GPU_C_CLOCKS_HELD], -1);
}

static void test_moved(void **state)
{
	struct gpu_counters before, after, moved;

	for (int i = 0; i < GPU_NCOUNTERS; i++)
		before.v[i] = after.v[i] = 5;
	after.v[GPU_C_PCIE_REPLAY] = 17;
	after.v[GPU_C_AER_CORRECTABLE] = 6;
	before.v[GPU_C_ECC_CORRECTED] = -1; /* unknown before: no delta */
	assert_int_equal(gpu_counters_moved(&before, &after, &moved), 2);
	assert_int_equal(moved.v[GPU_C_PCIE_REPLAY], 12);
	assert_int_equal(moved.v[GPU_C_AER_CORRECTABLE], 1);
	assert_int_equal(moved.v[GPU_C_AER_FATAL], 0);
	assert_int_equal(moved.v[GPU_C_ECC_CORRECTED], -1);
	assert_string_equal(gpu_counter_names[GPU_C_PCIE_REPLAY], "pcie_replay");
	assert_string_equal(gpu_counter_names[GPU_C_AER_FATAL], "aer_fatal");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aer_from_sysfs),
		cmocka_unit_test(test_nvml_through_ops),
		cmocka_unit_test(test_moved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
