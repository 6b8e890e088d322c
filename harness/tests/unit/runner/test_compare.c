/*
 * test_compare.c - the statistics of `dmalab compare` (median, MAD, the
 * spreads: a baseline's 95 % prediction interval and its t table, percent
 * off, the bad direction of a unit, the majority verdict and what a
 * verdict change is), a baseline's values read back or absent (an old
 * file), judging a node against a fleet (bad items
 * flag it, notes do not; the default "both" rule against --either), and the
 * explanation table and its sentences on hand-made results documents.
 *
 * It lives one level below harness/tests/unit/ because it links runner
 * objects (compare*.o, explain.o, resload.o, ...), which mutants.sh's copy
 * of the unit tree does not build; the Makefile adds it to `make unit`.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compare.h"
#include "want.h"

static void test_cmp_median_odd_even_empty(void **state)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	assert_float_equal(lab_median(odd, 3), 2, 1e-12);
	assert_float_equal(lab_median(even, 4), 2.5, 1e-12);
	assert_float_equal(lab_median(one, 1), 7, 1e-12);
	assert_true(isnan(lab_median(one, 0)));
}

static void test_cmp_mad_ignores_one_outlier(void **state)
{
	double v[] = { 1, 2, 3, 4, 100 }, scratch[5];

	/* deviations from 3: 2 1 0 1 97 -> median 1 */
	assert_float_equal(cmp_mad(v, 5, 3, scratch), 1, 1e-12);
}

static void test_cmp_spread_fleet_mad_and_floor(void **state)
{
	struct cmp_ref_fig f = { .median = 100, .mad = 1 };

	cmp_spread(&f, CMP_SPREAD_FLEET);
	assert_float_equal(f.spread_lo, 100 - 3 * 1.4826, 1e-9);
	assert_float_equal(f.spread_hi, 100 + 3 * 1.4826, 1e-9);
	f.mad = 0; /* every node equal: the floor, +-2 % */
	cmp_spread(&f, CMP_SPREAD_FLEET);
	assert_float_equal(f.spread_lo, 98, 1e-9);
	assert_float_equal(f.spread_hi, 102, 1e-9);
}

static void test_cmp_spread_runs_interval_ends(void **state)
{
	struct cmp_ref_fig f = { .median = 100, .lo_min = 90, .hi_max = 101 };

	cmp_spread(&f, CMP_SPREAD_RUNS);
	assert_float_equal(f.spread_lo, 90, 1e-9);  /* the lowest got_lo */
	assert_float_equal(f.spread_hi, 102, 1e-9); /* the floor beats 101 */
}

/*
 * The prediction interval by hand, values 10, 11, 12, 13 (all > 0: logs):
 * ln = 2.302585, 2.397895, 2.484907, 2.564949; mean m = 2.437584;
 * deviations -0.134999, -0.039689, 0.047323, 0.127365, squares summing to
 * 0.038261, / (n - 1 = 3) = 0.012754, s = 0.112933; t(0.975, 3) = 3.182,
 * sqrt(1 + 1/4) = 1.118034, half = 3.182 x 0.112933 x 1.118034 = 0.401767;
 * exp(m - half) = exp(2.035817) = 7.6585, exp(m + half) = exp(2.839351) =
 * 17.1047: not symmetric about 11.5, and far wider than 10..13, the range
 * a fifth run leaves with probability 2/5.
 */
static void test_cmp_prediction_log_scale_by_hand(void **state)
{
	double v[] = { 10, 11, 12, 13 }, lo, hi;

	assert_int_equal(cmp_prediction(v, 4, &lo, &hi), 0);
	assert_float_equal(lo, 7.6585, 1e-3);
	assert_float_equal(hi, 17.1047, 1e-3);
	assert_float_equal(v[0], 10, 0); /* the values are left as they were */
}

/* -1, 0, 1 (not all > 0): plain scale, mean 0, s = 1, half = t(0.975, 2)
 * x 1 x sqrt(1 + 1/3) = 4.303 x 1.154701 = 4.968676. */
static void test_cmp_prediction_plain_scale_and_too_few(void **state)
{
	double v[] = { -1, 0, 1 }, one[] = { 5 }, bad[] = { 1, NAN }, lo, hi;

	assert_int_equal(cmp_prediction(v, 3, &lo, &hi), 0);
	assert_float_equal(lo, -4.968676, 1e-5);
	assert_float_equal(hi, 4.968676, 1e-5);
	assert_int_equal(cmp_prediction(one, 1, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(cmp_prediction(bad, 2, &lo, &hi), -1);
	assert_int_equal(cmp_prediction(NULL, 0, &lo, &hi), -1);
}

static void test_cmp_t975_table(void **state)
{
	assert_float_equal(cmp_t975(1), 12.706, 1e-9);
	assert_float_equal(cmp_t975(3), 3.182, 1e-9);
	assert_float_equal(cmp_t975(4), 2.776, 1e-9);
	assert_float_equal(cmp_t975(10), 2.228, 1e-9);
	assert_float_equal(cmp_t975(30), 2.042, 1e-9);
	assert_float_equal(cmp_t975(35), 2.042, 1e-9); /* between rows: the smaller df's */
	assert_float_equal(cmp_t975(40), 2.021, 1e-9);
	assert_float_equal(cmp_t975(59), 2.021, 1e-9);
	assert_float_equal(cmp_t975(60), 2.000, 1e-9);
	assert_float_equal(cmp_t975(120), 1.980, 1e-9);
	assert_float_equal(cmp_t975(121), 1.960, 1e-9);
	assert_true(isnan(cmp_t975(0)));
}

/* Four runs: the union of the prediction interval, the runs' interval
 * ends and the floor. */
static void test_cmp_spread_runs_prediction_union(void **state)
{
	double v[] = { 10, 11, 12, 13 };
	struct cmp_ref_fig f = { .median = 11.5, .lo_min = 9.5, .hi_max = 13,
				 .values = v, .nvalues = 4 };

	cmp_spread(&f, CMP_SPREAD_RUNS);
	assert_float_equal(f.pred_lo, 7.6585, 1e-3);
	assert_float_equal(f.spread_lo, 7.6585, 1e-3);
	assert_float_equal(f.spread_hi, 17.1047, 1e-3);
	f.lo_min = 5; /* a run's got_lo below the interval widens it */
	cmp_spread(&f, CMP_SPREAD_RUNS);
	assert_float_equal(f.spread_lo, 5, 1e-9);
	assert_float_equal(f.spread_hi, 17.1047, 1e-3);
	cmp_spread(&f, CMP_SPREAD_FLEET); /* the fleet's rule has none */
	assert_true(isnan(f.pred_lo));
}

/* One run: no standard deviation, so the range of that run and the floor. */
static void test_cmp_spread_runs_one_run_fallback(void **state)
{
	double v[] = { 100 };
	struct cmp_ref_fig f = { .median = 100, .lo_min = 90, .hi_max = 101,
				 .values = v, .nvalues = 1 };

	cmp_spread(&f, CMP_SPREAD_RUNS);
	assert_true(isnan(f.pred_lo) && isnan(f.pred_hi));
	assert_float_equal(f.spread_lo, 90, 1e-9);
	assert_float_equal(f.spread_hi, 102, 1e-9);
}

static void test_cmp_pct_off(void **state)
{
	assert_float_equal(cmp_pct_off(70, 100), -30, 1e-9);
	assert_float_equal(cmp_pct_off(110, 100), 10, 1e-9);
	assert_float_equal(cmp_pct_off(-60, -50), -20, 1e-9); /* of |median| */
	assert_true(isnan(cmp_pct_off(1, 0)));
	assert_true(isnan(cmp_pct_off(NAN, 1)));
}

static void test_cmp_bad_dir_from_unit(void **state)
{
	assert_int_equal(cmp_bad_dir("GB/s"), CMP_BAD_LOW);
	assert_int_equal(cmp_bad_dir("TFLOP/s"), CMP_BAD_LOW);
	assert_int_equal(cmp_bad_dir("ns"), CMP_BAD_HIGH);
	assert_int_equal(cmp_bad_dir("ms/GiB"), CMP_BAD_HIGH);
	assert_int_equal(cmp_bad_dir("s"), CMP_BAD_HIGH);
	assert_int_equal(cmp_bad_dir("x"), CMP_BAD_NONE);
	assert_int_equal(cmp_bad_dir("%"), CMP_BAD_NONE);
	assert_int_equal(cmp_bad_dir("fraction"), CMP_BAD_NONE);
	assert_int_equal(cmp_bad_dir(NULL), CMP_BAD_NONE);
}

static void test_cmp_majority_and_ties(void **state)
{
	int c[CMP_NVERDICTS] = { 0 };

	assert_int_equal(cmp_majority(c), CMP_NVERDICTS);
	c[CMP_V_PASS] = 2;
	c[CMP_V_FAIL] = 1;
	assert_int_equal(cmp_majority(c), CMP_V_PASS);
	c[CMP_V_FAIL] = 3;
	assert_int_equal(cmp_majority(c), CMP_V_FAIL);
	c[CMP_V_PASS] = 3; /* a tie: the earlier verdict */
	assert_int_equal(cmp_majority(c), CMP_V_PASS);
	memset(c, 0, sizeof(c));
	c[CMP_V_KNOWN] = 1;
	c[CMP_V_FAIL] = 1;
	assert_int_equal(cmp_majority(c), CMP_V_KNOWN);
}

static void test_cmp_verdict_change(void **state)
{
	assert_string_equal(cmp_verdict_change(CMP_V_FAIL, CMP_V_PASS), "worse");
	assert_string_equal(cmp_verdict_change(CMP_V_FAIL, CMP_V_KNOWN), "worse");
	assert_string_equal(cmp_verdict_change(CMP_V_ERROR, CMP_V_PASS), "worse");
	assert_string_equal(cmp_verdict_change(CMP_V_NOT_RUN, CMP_V_KNOWN), "worse");
	/* from a verdict that did not hold: a change, not worse */
	assert_string_equal(cmp_verdict_change(CMP_V_FAIL, CMP_V_INCONCLUSIVE), "changed");
	assert_string_equal(cmp_verdict_change(CMP_V_ERROR, CMP_V_SKIP), "changed");
	assert_string_equal(cmp_verdict_change(CMP_V_PASS, CMP_V_FAIL), "better");
	assert_string_equal(cmp_verdict_change(CMP_V_SKIP, CMP_V_PASS), "changed");
	assert_string_equal(cmp_verdict_change(CMP_V_KNOWN, CMP_V_PASS), "changed");
	assert_null(cmp_verdict_change(CMP_V_PASS, CMP_V_PASS));
	assert_int_equal(cmp_verdict_parse("known_erratum"), CMP_V_KNOWN);
	assert_int_equal(cmp_verdict_parse("maybe"), CMP_NVERDICTS);
}

static void test_cmp_headline_unit_and_lab(void **state)
{
	char lab[8];

	assert_true(cmp_headline_unit("GB/s"));
	assert_true(cmp_headline_unit("ms/GiB"));
	assert_false(cmp_headline_unit("bytes"));
	assert_false(cmp_headline_unit(""));
	cmp_key_lab("02/h2d_pinned_gbs", lab, sizeof(lab));
	assert_string_equal(lab, "02");
	cmp_key_lab("11.3", lab, sizeof(lab));
	assert_string_equal(lab, "11");
}

static void test_cmp_explain_table(void **state)
{
	unsigned copy = cmp_explain_kinds("02", "02/h2d_pinned_gbs");
	unsigned gemm = cmp_explain_kinds("11", "11/gemm_tflops");

	assert_true(copy & CMP_EXPLAIN_PCIE);
	assert_true(copy & CMP_EXPLAIN_NUMA);
	assert_true(copy & CMP_EXPLAIN_IOMMU);
	assert_false(copy & CMP_EXPLAIN_THP);
	assert_true(gemm & CMP_EXPLAIN_CLOCKS);
	assert_false(gemm & CMP_EXPLAIN_PCIE);
	assert_true(cmp_explain_kinds("11", "11/load16_pinned_ms") & CMP_EXPLAIN_PCIE);
	assert_true(cmp_explain_kinds("04", "04/latency_256MiB_ns") & CMP_EXPLAIN_THP);
	assert_false(cmp_explain_kinds("04", "04/latency_256MiB_ns") & CMP_EXPLAIN_PCIE);
	assert_int_equal(cmp_explain_kinds("01", "01.5"), CMP_EXPLAIN_MEMLOCK | CMP_EXPLAIN_SYSTEM);
	assert_int_equal(cmp_explain_kinds("07", "07.4"), CMP_EXPLAIN_PROCS | CMP_EXPLAIN_SYSTEM);
	assert_int_equal(cmp_explain_kinds("99", "99.1"), CMP_EXPLAIN_SYSTEM);
}

/* ------------------------------------------------------------------------ */
/* Hand-made results documents */

struct fake {
	const char *thp, *iommu, *clocks, *driver;
	long long memlock;
	int gen_cur, gpu_numa, procs;
	double h2d, latency, mlock;
	double got023;             /* 02.3's got, in % (no bad direction) */
	const char *v023;          /* 02.3's verdict */
};

static const struct fake good = {
	.thp = "madvise", .iommu = "identity", .clocks = "[\"gpu_idle\"]", .driver = "580.1",
	.memlock = -1, .gen_cur = 5, .gpu_numa = 0, .procs = 0,
	.h2d = 55.4, .latency = 150, .mlock = 400, .got023 = 88, .v023 = "pass",
};

static void write_doc(const char *path, const struct fake *f)
{
	FILE *o = fopen(path, "w");

	assert_non_null(o);
	fprintf(o, "{\"schema\": \"dmalab-results/1\", \"dmalab\": {\"version\": \"0.1.0\"},"
		" \"started\": \"2026-12-01T00:00:00Z\", \"quick\": false,"
		" \"machine\": {\"hostname\": \"n\", \"thp\": \"%s\", \"iommu\": \"%s\","
		" \"cpu_nodes\": [0], \"memlock\": {\"cur\": %lld, \"max\": %lld},"
		" \"cap_ipc_lock\": false, \"numa\": {\"nodes\": 2}, \"driver_version\": \"%s\","
		" \"gpus\": [{\"index\": 0, \"name\": \"NVIDIA H200\", \"bdf\": \"0000:3b:00.0\","
		" \"uuid\": \"GPU-1\", \"pcie_gen_cur\": %d, \"pcie_width_cur\": 16,"
		" \"pcie_gen_max\": 5, \"pcie_width_max\": 16, \"numa_node\": %d,"
		" \"iommu\": \"%s\", \"clocks_event_reasons\": 1, \"clocks_event_names\": %s,"
		" \"compute_procs\": %d}]},"
		" \"labs\": [{\"id\": \"02\", \"status\": \"pass\", \"claims\": [{\"id\": \"02.3\","
		" \"status\": \"%s\", \"got\": %g, \"unit\": \"%%\"}],"
		" \"facts\": {\"h2d_pinned_gbs\": {\"value\": %g, \"unit\": \"GB/s\"},"
		" \"gpu_mem\": {\"value\": 1, \"unit\": \"bytes\"}}},"
		" {\"id\": \"04\", \"status\": \"pass\", \"claims\": [],"
		" \"facts\": {\"latency_256MiB_ns\": {\"value\": %g, \"unit\": \"ns\"}}},"
		" {\"id\": \"01\", \"status\": \"pass\", \"claims\": [],"
		" \"facts\": {\"mlock_ms_per_gib\": {\"value\": %g, \"unit\": \"ms/GiB\"}}}]}\n",
		f->thp, f->iommu, f->memlock, f->memlock, f->driver, f->gen_cur, f->gpu_numa,
		f->iommu, f->clocks, f->procs, f->v023, f->got023, f->h2d, f->latency, f->mlock);
	assert_int_equal(fclose(o), 0);
}

static void load_fake(struct cmp_node *n, const struct fake *f)
{
	char path[] = "/tmp/dmalab-test-compare-XXXXXX", err[600];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_doc(path, f);
	if (cmp_node_load(path, n, err, sizeof(err)))
		fail_msg("%s", err);
	unlink(path);
}

static void test_cmp_node_load_figures_and_facts(void **state)
{
	struct cmp_node n;

	load_fake(&n, &good);
	assert_int_equal(n.key.ngpus, 1);
	assert_string_equal(n.key.gpu, "NVIDIA H200");
	assert_int_equal(n.key.gen, 5);
	/* 02.3's got, and the three rate/time facts; gpu_mem (bytes) is none */
	assert_int_equal(n.nfig, 4);
	assert_non_null(cmp_node_figure(&n, "02/h2d_pinned_gbs"));
	assert_null(cmp_node_figure(&n, "02/gpu_mem"));
	assert_string_equal(cmp_node_fact(&n, "gpu0.pcie_cur"), "Gen5 x16");
	assert_string_equal(cmp_node_fact(&n, "gpu0.clocks_held"), "none");
	assert_string_equal(cmp_node_fact(&n, "memlock"), "unlimited");
	cmp_node_free(&n);
}

/* A baseline of three runs keeps each figure's values in run order and
 * spreads them by the prediction interval. */
static void test_cmp_ref_build_values_in_run_order(void **state)
{
	static const double h2d[] = { 57, 53, 55 };
	struct cmp_node nodes[3], *list[3];
	const struct cmp_ref_fig *f;
	struct fake x = good;
	struct cmp_ref r;
	double lo, hi;
	int i;

	for (i = 0; i < 3; i++) {
		x.h2d = h2d[i];
		load_fake(&nodes[i], &x);
		list[i] = &nodes[i];
	}
	cmp_ref_build(&r, list, 3, CMP_SPREAD_RUNS);
	f = cmp_ref_figure(&r, "02/h2d_pinned_gbs");
	assert_non_null(f);
	assert_int_equal(f->nvalues, 3);
	for (i = 0; i < 3; i++)
		assert_float_equal(f->values[i], h2d[i], 0);
	assert_int_equal(cmp_prediction(h2d, 3, &lo, &hi), 0);
	assert_float_equal(f->spread_lo, lo, 1e-9);
	assert_float_equal(f->spread_hi, hi, 1e-9);
	assert_true(lo < 53 && hi > 57);
	cmp_ref_free(&r);
	for (i = 0; i < 3; i++)
		cmp_node_free(&nodes[i]);
}

/* Writes a dmalab-baseline/1 file with one figure (10..13 GB/s over 4 runs)
 * whose "values" member is `values` ("" for none) and loads it into r. */
static int load_baseline_text(const char *values, struct cmp_ref *r)
{
	char path[] = "/tmp/dmalab-test-baseline-XXXXXX", err[600];
	int fd = mkstemp(path), rc;
	FILE *o;

	assert_true(fd >= 0);
	o = fdopen(fd, "w");
	assert_non_null(o);
	fprintf(o, "{\"schema\": \"dmalab-baseline/1\", \"name\": \"t\", \"key\": {\"gpu\":"
		" \"NVIDIA H200\", \"gpus\": 1, \"pcie_gen_max\": 5, \"pcie_width_max\": 16},"
		" \"quick\": false, \"runs\": [{}, {}, {}, {}], \"machine\": {}, \"claims\": [],"
		" \"figures\": [{\"key\": \"02/h2d_pinned_gbs\", \"unit\": \"GB/s\", \"n\": 4,"
		" \"median\": 11.5, \"min\": 10, \"max\": 13%s}]}\n", values);
	assert_int_equal(fclose(o), 0);
	rc = cmp_baseline_load(path, r, err, sizeof(err));
	unlink(path);
	return rc;
}

static void test_cmp_baseline_load_values_or_old_file(void **state)
{
	const struct cmp_ref_fig *f;
	struct cmp_ref r;

	/* a file written before "values": [min, max] of its runs, as before */
	assert_int_equal(load_baseline_text("", &r), 0);
	f = cmp_ref_figure(&r, "02/h2d_pinned_gbs");
	assert_non_null(f);
	assert_int_equal(f->nvalues, 0);
	assert_true(isnan(f->pred_lo));
	assert_float_equal(f->spread_lo, 10, 1e-9);
	assert_float_equal(f->spread_hi, 13, 1e-9);
	cmp_ref_free(&r);
	/* with them: the prediction interval of the hand test */
	assert_int_equal(load_baseline_text(", \"values\": [10, 11, 12, 13]", &r), 0);
	f = cmp_ref_figure(&r, "02/h2d_pinned_gbs");
	assert_int_equal(f->nvalues, 4);
	assert_float_equal(f->spread_lo, 7.6585, 1e-3);
	assert_float_equal(f->spread_hi, 17.1047, 1e-3);
	cmp_ref_free(&r);
	/* values that are not numbers: not a baseline */
	assert_int_equal(load_baseline_text(", \"values\": [10, \"x\"]", &r), -1);
	assert_int_equal(load_baseline_text(", \"values\": 10", &r), -1);
}

/* A node judged against a fleet: the six nodes, their reference, the result. */
struct judged {
	struct cmp_node nodes[6];
	struct cmp_ref ref;
	struct cmp_result res;
};

/* Five good nodes and `odd` as the sixth: the fleet reference, `odd` judged
 * (either: --either) into j. */
static void judge_rule(const struct fake *odd, int either, struct judged *j)
{
	struct cmp_node *list[6];
	struct fake f = good;
	int i;

	for (i = 0; i < 5; i++) {
		f.h2d = good.h2d * (1 + 0.002 * (i - 2)); /* small noise */
		load_fake(&j->nodes[i], &f);
		list[i] = &j->nodes[i];
	}
	load_fake(&j->nodes[5], odd);
	list[5] = &j->nodes[5];
	cmp_ref_build(&j->ref, list, 6, CMP_SPREAD_FLEET);
	cmp_judge(&j->nodes[5], &j->ref, CMP_PCT_DEFAULT, either, &j->res);
	assert_int_equal(j->res.nbad + j->res.nnotes, j->res.nitem);
}

/* ... under the default rule (outside the spread and beyond P %). */
static void judge_against_fleet(const struct fake *odd, struct judged *j)
{
	judge_rule(odd, 0, j);
}

static void release(struct judged *j)
{
	int i;

	cmp_result_free(&j->res);
	cmp_ref_free(&j->ref);
	for (i = 0; i < 6; i++)
		cmp_node_free(&j->nodes[i]);
}

static const struct cmp_item *item(const struct cmp_result *res, const char *key, int verdict)
{
	int i;

	for (i = 0; i < res->nitem; i++)
		if (!strcmp(res->item[i].key, key) && res->item[i].is_verdict == verdict)
			return &res->item[i];
	return NULL;
}

static int has_cause(const struct cmp_item *it, const char *text)
{
	int c;

	for (c = 0; it && c < it->ncauses; c++)
		if (strstr(it->cause[c], text))
			return 1;
	return 0;
}

static void test_cmp_judge_good_node_ok(void **state)
{
	struct judged j;
	struct fake f = good;

	f.h2d = good.h2d * 1.01; /* inside the 2 % floor */
	judge_against_fleet(&f, &j);
	assert_string_equal(j.res.status, "ok");
	assert_int_equal(j.res.nitem, 0);
	release(&j);
}

static void test_cmp_judge_low_h2d_pcie_cause(void **state)
{
	struct judged j;
	struct fake f = good;
	const struct cmp_item *it;

	f.h2d = good.h2d * 0.7;
	f.gen_cur = 4;
	f.v023 = "fail";
	judge_against_fleet(&f, &j);
	assert_string_equal(j.res.status, "flagged");
	assert_int_equal(j.res.nbad, 2); /* the rate and the verdict */
	it = item(&j.res, "02/h2d_pinned_gbs", 0);
	assert_non_null(it);
	assert_true(it->low && it->bad && it->outside && it->beyond_pct);
	assert_float_equal(it->pct, -30, 0.5);
	assert_true(has_cause(it, "GPU 0's PCIe link was Gen4 x16 at the time sysinfo read it, "
				  "below its Gen5 x16 (the fleet: Gen5 x16"));
	assert_int_equal(j.res.worst, 0);
	assert_string_equal(j.res.item[0].key, "02/h2d_pinned_gbs"); /* the worst */
	it = item(&j.res, "02.3", 1);
	assert_non_null(it);
	assert_string_equal(it->change, "worse");
	assert_null(item(&j.res, "04/latency_256MiB_ns", 0));
	release(&j);
}

/* Node f judged against the fleet has one item, figure `key`, moved low
 * (outside the spread and beyond P %): a note, so the node is ok. */
static void assert_one_low_note(const struct fake *f, const char *key)
{
	struct judged j;
	const struct cmp_item *it;

	judge_against_fleet(f, &j);
	it = item(&j.res, key, 0);
	assert_non_null(it);
	assert_true(it->low && it->outside && it->beyond_pct);
	assert_false(it->bad);
	assert_int_equal(it->ncauses, 0);
	assert_string_equal(j.res.status, "ok");
	assert_int_equal(j.res.nbad, 0);
	assert_int_equal(j.res.nnotes, 1);
	assert_int_equal(j.res.worst, -1); /* a note is nobody's worst */
	release(&j);
}

static void test_cmp_judge_faster_is_a_note(void **state)
{
	struct fake f = good;

	f.latency = good.latency * 0.8; /* a time 20 % lower: better */
	f.thp = "never";                /* a fact that would explain it: not asked */
	assert_one_low_note(&f, "04/latency_256MiB_ns");
}

static void test_cmp_judge_ratio_move_is_a_note(void **state)
{
	struct fake f = good;

	f.got023 = good.got023 * 0.6; /* a claim's %: no bad direction */
	assert_one_low_note(&f, "02.3");
}

static void test_cmp_judge_changed_verdict_is_a_note(void **state)
{
	struct judged j;
	struct fake f = good;
	const struct cmp_item *it;

	f.v023 = "skip"; /* the fleet passed it: changed, not worse */
	judge_against_fleet(&f, &j);
	it = item(&j.res, "02.3", 1);
	assert_non_null(it);
	assert_string_equal(it->change, "changed");
	assert_false(it->bad);
	assert_int_equal(it->ncauses, 0);
	assert_string_equal(j.res.status, "ok");
	release(&j);
}

/* A rate 5 % low: outside the fleet's +-2 % spread, within P = 10 %. */
static void test_cmp_judge_both_rule_and_either(void **state)
{
	struct judged j;
	struct fake f = good;
	const struct cmp_item *it;

	f.h2d = good.h2d * 0.95;
	judge_against_fleet(&f, &j);
	assert_string_equal(j.res.status, "ok");
	assert_int_equal(j.res.nitem, 0);
	release(&j);

	judge_rule(&f, 1, &j);
	assert_string_equal(j.res.status, "flagged");
	it = item(&j.res, "02/h2d_pinned_gbs", 0);
	assert_non_null(it);
	assert_true(it->bad && it->outside && !it->beyond_pct);
	assert_true(it->ncauses >= 1);
	assert_int_equal(j.res.worst, 0);
	release(&j);
}

/* Bad items sort before notes, whatever the notes' size. */
static void test_cmp_judge_bad_before_notes(void **state)
{
	struct judged j;
	struct fake f = good;

	f.got023 = good.got023 * 0.1; /* a huge note */
	f.h2d = good.h2d * 0.85;      /* a modest bad item */
	judge_against_fleet(&f, &j);
	assert_int_equal(j.res.nbad, 1);
	assert_int_equal(j.res.nnotes, 1);
	assert_string_equal(j.res.item[0].key, "02/h2d_pinned_gbs");
	assert_true(j.res.item[0].bad);
	assert_false(j.res.item[1].bad);
	release(&j);
}

/* The causes of a high lab-04 latency for the node f, against the fleet. */
static void latency_causes(struct fake f, struct judged *j, const struct cmp_item **it)
{
	f.latency = good.latency * 1.4;
	judge_against_fleet(&f, j);
	*it = item(&j->res, "04/latency_256MiB_ns", 0);
	assert_non_null(*it);
	assert_true((*it)->bad);
}

static void test_cmp_explain_thp_and_unrelated_facts(void **state)
{
	struct judged j;
	const struct cmp_item *it;
	struct fake f = good;

	f.thp = "never";
	f.gen_cur = 3; /* a link fact: not lab-04's */
	latency_causes(f, &j, &it);
	assert_true(has_cause(it, "THP never (the fleet: madvise)"));
	assert_false(has_cause(it, "PCIe"));
	assert_true(it->explained);
	release(&j);
}

static void test_cmp_explain_none_found(void **state)
{
	struct judged j;
	const struct cmp_item *it;

	latency_causes(good, &j, &it);
	assert_int_equal(it->ncauses, 1);
	assert_string_equal(it->cause[0], CMP_NO_CAUSE);
	assert_false(it->explained);
	release(&j);
}

/* The causes of figure `key` (lab `lab`) of node f against a reference made
 * of the one run `base`: into out, their number into *n. */
static void causes_of(const struct fake *base, const struct fake *f, const char *key,
		      const char *lab, char out[][CMP_CAUSE_LEN], int *n)
{
	struct cmp_node ref_node, node;
	struct cmp_node *list[1] = { &ref_node };
	struct cmp_ref ref;
	struct cmp_item it;

	load_fake(&ref_node, base);
	load_fake(&node, f);
	cmp_ref_build(&ref, list, 1, CMP_SPREAD_RUNS);
	memset(&it, 0, sizeof(it));
	snprintf(it.key, sizeof(it.key), "%s", key);
	snprintf(it.lab, sizeof(it.lab), "%s", lab);
	cmp_explain(&node, &ref, &it);
	memcpy(out, it.cause, sizeof(it.cause));
	*n = it.ncauses;
	assert_int_equal(it.explained, strcmp(it.cause[0], CMP_NO_CAUSE) != 0);
	cmp_ref_free(&ref);
	cmp_node_free(&ref_node);
	cmp_node_free(&node);
}

/* ... of a low H2D figure. */
static void h2d_causes(const struct fake *base, struct fake f, char out[][CMP_CAUSE_LEN],
		       int *n)
{
	f.h2d = good.h2d * 0.7;
	causes_of(base, &f, "02/h2d_pinned_gbs", "02", out, n);
}

static int said(char causes[][CMP_CAUSE_LEN], int n, const char *text)
{
	int i;

	for (i = 0; i < n; i++)
		if (strstr(causes[i], text))
			return 1;
	return 0;
}

static void test_cmp_explain_copy_path_facts(void **state)
{
	char c[CMP_MAX_CAUSES][CMP_CAUSE_LEN];
	struct fake f = good;
	int n;

	f.iommu = "translated";
	f.gpu_numa = 1;
	f.procs = 2;
	f.clocks = "[\"sw_power_cap\", \"gpu_idle\", \"hw_thermal\"]";
	f.driver = "580.2";
	f.thp = "never"; /* not a copy-path fact */
	h2d_causes(&good, f, c, &n);
	assert_true(said(c, n, "IOMMU translated (the baseline: identity)"));
	assert_true(said(c, n, "GPU 0 is on NUMA node 1, the run's CPUs on node 0 "
			       "(the baseline: GPU 0 on node 0)"));
	assert_true(said(c, n, "2 other processes were using GPU 0 when the run started"));
	assert_true(said(c, n, "GPU 0's clocks were held back: sw_power_cap, hw_thermal "
			       "(the baseline: none)"));
	assert_true(said(c, n, "NVIDIA driver 580.2 (the baseline: 580.1)"));
	assert_false(said(c, n, "THP"));
}

static void test_cmp_explain_shared_bad_fact_not_named(void **state)
{
	char c[CMP_MAX_CAUSES][CMP_CAUSE_LEN];
	struct fake f = good;
	int n;

	/* both down-trained alike (idle GPUs): no difference to explain by */
	f.gen_cur = 1;
	h2d_causes(&f, f, c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(c[0], CMP_NO_CAUSE);
}

static void test_cmp_explain_memlock(void **state)
{
	char c[CMP_MAX_CAUSES][CMP_CAUSE_LEN];
	struct fake f = good;
	int n;

	f.memlock = 65536;
	causes_of(&good, &f, "01/mlock_ms_per_gib", "01", c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(c[0], "memlock limit 64 KiB (the baseline: unlimited)");
}

/* One run's lab-05 on a machine of virt `virt`, explained with no reference,
 * as make check's last lines do: the causes of 05.1 into out. */
static int fault_causes(const char *virt, char out[][CMP_CAUSE_LEN])
{
	char path[] = "/tmp/dmalab-test-compare-XXXXXX", err[600];
	struct cmp_item it = { .lab = "05", .key = "05.1" };
	struct cmp_node n;
	FILE *o;
	int fd = mkstemp(path);

	assert_true(fd >= 0 && (o = fdopen(fd, "w")));
	fprintf(o, "{\"schema\": \"dmalab-results/1\", \"machine\": {\"virt\": \"%s\","
		" \"thp\": \"madvise\"}, \"labs\": [{\"id\": \"05\", \"status\": \"fail\","
		" \"claims\": [{\"id\": \"05.1\", \"status\": \"fail\", \"got\": 26.5,"
		" \"unit\": \"us\"}], \"facts\": {\"cpu_thp_us_per_4k\": {\"value\": 0.39,"
		" \"unit\": \"us\"}}}]}\n", virt);
	assert_int_equal(fclose(o), 0);
	if (cmp_node_load(path, &n, err, sizeof(err)))
		fail_msg("%s", err);
	unlink(path);
	cmp_explain(&n, NULL, &it);
	memcpy(out, it.cause, sizeof(it.cause));
	cmp_node_free(&n);
	return it.explained ? it.ncauses : 0;
}

static void test_cmp_explain_fault_in_a_guest(void **state)
{
	char c[CMP_MAX_CAUSES][CMP_CAUSE_LEN];
	int n = fault_causes("firecracker", c);

	assert_true(said(c, n, "a virtual machine (firecracker): the host backs guest memory"));
	assert_true(said(c, n, "0.39 us per 4 KiB here, 68x less than a 4 KiB fault"));
	assert_int_equal(fault_causes("none", c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmp_median_odd_even_empty),
		cmocka_unit_test(test_cmp_mad_ignores_one_outlier),
		cmocka_unit_test(test_cmp_spread_fleet_mad_and_floor),
		cmocka_unit_test(test_cmp_spread_runs_interval_ends),
		cmocka_unit_test(test_cmp_prediction_log_scale_by_hand),
		cmocka_unit_test(test_cmp_prediction_plain_scale_and_too_few),
		cmocka_unit_test(test_cmp_t975_table),
		cmocka_unit_test(test_cmp_spread_runs_prediction_union),
		cmocka_unit_test(test_cmp_spread_runs_one_run_fallback),
		cmocka_unit_test(test_cmp_pct_off),
		cmocka_unit_test(test_cmp_bad_dir_from_unit),
		cmocka_unit_test(test_cmp_majority_and_ties),
		cmocka_unit_test(test_cmp_verdict_change),
		cmocka_unit_test(test_cmp_headline_unit_and_lab),
		cmocka_unit_test(test_cmp_explain_table),
		cmocka_unit_test(test_cmp_explain_fault_in_a_guest),
		cmocka_unit_test(test_cmp_node_load_figures_and_facts),
		cmocka_unit_test(test_cmp_ref_build_values_in_run_order),
		cmocka_unit_test(test_cmp_baseline_load_values_or_old_file),
		cmocka_unit_test(test_cmp_judge_good_node_ok),
		cmocka_unit_test(test_cmp_judge_low_h2d_pcie_cause),
		cmocka_unit_test(test_cmp_judge_faster_is_a_note),
		cmocka_unit_test(test_cmp_judge_ratio_move_is_a_note),
		cmocka_unit_test(test_cmp_judge_changed_verdict_is_a_note),
		cmocka_unit_test(test_cmp_judge_both_rule_and_either),
		cmocka_unit_test(test_cmp_judge_bad_before_notes),
		cmocka_unit_test(test_cmp_explain_thp_and_unrelated_facts),
		cmocka_unit_test(test_cmp_explain_none_found),
		cmocka_unit_test(test_cmp_explain_copy_path_facts),
		cmocka_unit_test(test_cmp_explain_shared_bad_fact_not_named),
		cmocka_unit_test(test_cmp_explain_memlock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
