/*
 * test_lab_copy.c - lab_copy.h (the plain-C half of the timed copies), without a GPU:
 * how a batch of small copies grows, the spin a queued sample waits
 * behind, the claim pair's order, its stopping rule and statistics,
 * and the PCIe link of a device found in a gpu_topo scan (the gpus fixture
 * tree: run from the repository root, or set DMALAB_FIXTURES).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab_copy.h"
#include "unit_lab.h"

/* ---- batches ---- */

static void test_next_reps_stops(void **state)
{
	(void)state;
	assert_int_equal(lab_copy_next_reps(1, 100e-6, 100e-6, 4096), 0); /* long enough */
	assert_int_equal(lab_copy_next_reps(7, 1e-3, 100e-6, 4096), 0);
	assert_int_equal(lab_copy_next_reps(4096, 1e-6, 100e-6, 4096), 0); /* at the cap */
}

static void test_next_reps_grows_with_margin(void **state)
{
	(void)state;
	/* 5 us a copy: 1.25 x 100 / 5 = 25 times as many, plus one */
	assert_int_equal(lab_copy_next_reps(1, 5e-6, 100e-6, 4096), 26);
	/* 26 copies in 90 us: 26 x 1.389 + 1 = 37.1 */
	assert_int_equal(lab_copy_next_reps(26, 90e-6, 100e-6, 4096), 37);
	/* never past the cap, even for a time of 0 (an event pair 0 ms apart) */
	assert_int_equal(lab_copy_next_reps(100, 1e-9, 100e-6, 4096), 4096);
	assert_int_equal(lab_copy_next_reps(1, 0, 100e-6, 4096), 4096);
}

/* Copies whose launches overlap: a batch of r takes 3 us + r x 1.5 us. */
static double overlapped(int reps)
{
	return 3e-6 + reps * 1.5e-6;
}

static void test_batch_loop_reaches_the_floor(void **state)
{
	int reps = 1, next, tries = 0;

	(void)state;
	while ((next = lab_copy_next_reps(reps, overlapped(reps), LAB_COPY_FLOOR_S,
					  LAB_COPY_MAX_REPS)) > 0) {
		assert_true(next > reps);
		reps = next;
		tries++;
	}
	assert_true(overlapped(reps) >= LAB_COPY_FLOOR_S);
	assert_true(tries <= 3);
	assert_true(LAB_COPY_FLOOR_S >= 100 * LAB_CUDA_EVENT_RES_S); /* lab.h's too_short */
}

/* A lab's sample as lab_copy_batch_size sees it: overlapped(n) of GPU time,
 * 2 us of issuing a copy, and the spin each run was given. */
struct fake_batch {
	struct lab_copy_batch b;
	uint64_t fronts[16];
	int runs;
};

static double fake_batch_sample(void *arg)
{
	struct fake_batch *f = (struct fake_batch *)arg;

	f->fronts[f->runs++ % 16] = f->b.front_ns;
	f->b.issue_s = 2e-6 * f->b.n;
	return overlapped(f->b.n);
}

/* Sized on the sample's own runs: a first single copy without a spin, then
 * spins only when queued, the last sized from the last run's issuing. */
static void test_batch_size_runs_the_sample(void **state)
{
	struct fake_batch f;
	int runs;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.b.sample = fake_batch_sample;
	f.b.ctx = &f;
	runs = lab_copy_batch_size(&f.b, 1);
	assert_int_equal(runs, f.runs);
	assert_true(runs >= 2);
	assert_true(overlapped(f.b.n) >= LAB_COPY_FLOOR_S);
	assert_true(f.fronts[0] == 0);
	assert_true(f.fronts[1] == lab_copy_front_ns(2e-6, 1));
	assert_true(f.b.front_ns == lab_copy_front_ns(2e-6, f.b.n));

	memset(&f, 0, sizeof(f));
	f.b.sample = fake_batch_sample;
	f.b.ctx = &f;
	lab_copy_batch_size(&f.b, 0);
	assert_true(f.fronts[1] == 0 && f.b.front_ns == 0);
}

/* A queued sample's spin: twice the issuing, plus the floor, at most the cap. */
static void test_front_ns(void **state)
{
	(void)state;
	assert_true(lab_copy_front_ns(3e-6, 50) == 320000); /* 2 x 150 us + 20 us */
	assert_true(lab_copy_front_ns(0, 1) == 20000);
	assert_true(lab_copy_front_ns(1.0, 4096) == 50000000);
	assert_true(lab_copy_front_ns(NAN, 8) == 50000000);
}

/* ---- the claim pair ---- */

struct fake_copy {
	char name;        /* 'a' or 'b' */
	double next_s;    /* seconds the next call returns */
	double step_s;    /* added after each call */
	char *log;        /* every call's name, in order */
};

static double fake_time(void *arg)
{
	struct fake_copy *c = (struct fake_copy *)arg;
	double t = c->next_s;
	size_t n = strlen(c->log);

	c->log[n] = c->name;
	c->log[n + 1] = '\0';
	c->next_s += c->step_s;
	return t;
}

static void test_pair_order_alternates(void **state)
{
	char log[64] = "";
	struct fake_copy a = { 'a', 1.0, 1.0, log }, b = { 'b', 100.0, 1.0, log };
	double sa[5], sb[5];
	int i;

	(void)state;
	lab_copy_pair_run(fake_time, &a, &b, 5, sa, sb);
	/* two warm-up pairs b a, then b a / a b / b a / a b / b a */
	assert_string_equal(log, "baba" "ba" "ab" "ba" "ab" "ba");
	/* each sample is its own buffer's, the warm-ups (2 each) discarded */
	for (i = 0; i < 5; i++) {
		assert_true(sa[i] == 3.0 + i);
		assert_true(sb[i] == 102.0 + i);
	}
}

/* Times from a list, one per call; the list ends in its last value. */
struct listed {
	const double *v;
	int n, next;
};

static double listed_time(void *arg)
{
	struct listed *l = (struct listed *)arg;
	double t = l->v[l->next < l->n ? l->next : l->n - 1];

	l->next++;
	return t;
}

/* The pair stops at the minimum when quiet, later when not, at the cap at the latest. */
static void test_pair_until_stops_by_the_rule(void **state)
{
	/* two warm-up calls each, then the samples */
	static const double quiet[] = { 9, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const double slow7[] = { 9, 9, 2, 2, 2, 2, 2, 2, 6, 2.02, 2.01, 2, 2 };
	static const double wild[] = { 9, 9, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3 };
	struct listed a = { quiet, 12, 0 }, b = { quiet, 12, 0 };
	double sa[32], sb[32];

	(void)state;
	assert_int_equal(lab_copy_pair_run_until(listed_time, &a, &b, 7, 20, sa, sb), 7);
	assert_int_equal(a.next, 9); /* 2 warm-ups + 7 */
	a.v = slow7;
	a.n = 13;
	a.next = b.next = 0;
	/* [min, max] spans 200 % at 7; at 9 pairs [x(2), x(8)] spans 1 % */
	assert_int_equal(lab_copy_pair_run_until(listed_time, &a, &b, 7, 20, sa, sb), 9);
	assert_true(sa[6] == 6 && sb[6] == 1);
	a.v = wild;
	a.n = 20;
	a.next = b.next = 0;
	assert_int_equal(lab_copy_pair_run_until(listed_time, &a, &b, 7, 16, sa, sb), 16);
	a.next = b.next = 0;
	assert_int_equal(lab_copy_pair_run_until(listed_time, &a, &b, 7, 7, sa, sb), 7);
}

static void test_pair_stats_rates_and_ratio(void **state)
{
	static struct lab_copy_pair p;
	double sa[9], sb[9];
	int i;

	(void)state;
	for (i = 0; i < 9; i++) {
		sa[i] = 0.010 * (1 + 0.01 * i); /* drift hits both alike */
		sb[i] = 0.025 * (1 + 0.01 * i);
	}
	p.name_a = "h2d_pinned_paired";
	p.name_b = "h2d_pageable_paired";
	p.name_ratio = "h2d_pinned_over_pageable";
	lab_copy_pair_stats(&p, sa, sb, 9, 500000000ULL);
	assert_string_equal(p.a.name, "h2d_pinned_paired");
	assert_string_equal(p.b.name, "h2d_pageable_paired");
	assert_string_equal(p.ratio.name, "h2d_pinned_over_pageable");
	assert_string_equal(p.a.unit, "GB/s");
	assert_string_equal(p.ratio.unit, "x");
	assert_int_equal(p.a.n, 9);
	assert_int_equal(p.ratio.n, 9);
	assert_true(fabs(p.a.median - 500e6 / (0.010 * 1.04) / 1e9) < 1e-9);
	assert_true(fabs(p.b.median - 500e6 / (0.025 * 1.04) / 1e9) < 1e-9);
	/* per pair, the drift cancels: every ratio is 2.5 */
	assert_true(fabs(p.ratio.min - 2.5) < 1e-12 && fabs(p.ratio.max - 2.5) < 1e-12);
	assert_false(p.a.too_short || p.b.too_short || p.ratio.too_short);
}

static void test_pair_ratio_too_short_with_its_timings(void **state)
{
	static struct lab_copy_pair p;
	double sa[7], sb[7];
	int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		sa[i] = 20e-6; /* 40 event steps: too short */
		sb[i] = 1e-3;
	}
	p.name_a = "a";
	p.name_b = "b";
	p.name_ratio = "a_over_b";
	lab_copy_pair_stats(&p, sa, sb, 7, 1 * MiB);
	assert_true(p.a.too_short);
	assert_false(p.b.too_short);
	assert_true(p.ratio.too_short); /* though "x" is never judged on its own */
}

/* ---- the link ---- */

static struct gpu_topo *fixture_scan(void)
{
	const char *dir = getenv("DMALAB_FIXTURES");
	struct gpu_topo *t = (struct gpu_topo *)calloc(1, sizeof(*t));
	char root[512];

	assert_non_null(t);
	snprintf(root, sizeof(root), "%s/gpus/sys", dir ? dir : "harness/tests/fixtures");
	assert_int_equal(gpu_topo_build(root, NULL, t), 0);
	return t;
}

static void test_link_by_its_maximum(void **state)
{
	struct gpu_topo *t = fixture_scan();
	struct lab_copy_link k;

	(void)state;
	/* idle, trained down to 2.5 GT/s; its maximum is Gen5 x16 */
	lab_copy_link_find(t, "0000:07:00.0", &k);
	assert_true(k.known);
	assert_int_equal(k.gen_max, 5);
	assert_int_equal(k.width_max, 16);
	assert_int_equal(k.gen_cur, 1);
	assert_true(fabs(k.theo_gbs - pcie_rate_gbs(5, 16)) < 1e-12);
	assert_true(fabs(k.theo_gbs - 63.0) < 0.1);
	assert_string_equal(k.bdf, "0000:07:00.0");
	assert_non_null(strstr(k.seen, "max gen 5 width 16 (sysfs), now gen 1 width 16 (sysfs)"));
	free(t);
}

static void test_link_unknown(void **state)
{
	struct gpu_topo *t = fixture_scan();
	struct lab_copy_link k;
	char want[160];

	(void)state;
	lab_copy_link_find(t, "0000:3b:00.0", &k); /* not in the tree */
	assert_false(k.known);
	assert_int_equal(k.gen_max, -1);
	assert_int_equal(k.width_cur, -1);
	assert_true(k.theo_gbs == 0);
	snprintf(want, sizeof(want), "no GPU with PCI bus id 0000:3b:00.0 among the %d ", t->n);
	assert_non_null(strstr(k.seen, want));
	/* listed, but its link files are missing: unknown, and seen says what was read */
	lab_copy_link_find(t, "0000:c1:00.0", &k);
	assert_false(k.known);
	assert_int_equal(k.gen_max, 0);
	assert_non_null(strstr(k.seen, "0000:c1:00.0 ("));
	free(t);
}

static struct lab_copy_link report_link;

static const struct claim_spec report_claims[] = {
	{ "96.1", "t.Q1", "the link was reported", NULL, "test", WANT_TRUE, NULL },
	{ NULL },
};

static const struct lab_spec report_spec = {
	.id = "96", .title = "lab_copy_link_report unit test", .topic = "link facts",
	.timeout_s = 10, .claims = report_claims, .default_iters = 7,
};

static void run_report(struct lab *L)
{
	lab_copy_link_report(L, &report_link);
	claim_check_true(L, "96.1", 1, "reported");
}

static void test_link_report_facts(void **state)
{
	struct gpu_topo *t = fixture_scan();
	const struct json *f, *x;
	struct unit_lab u;

	(void)state;
	lab_copy_link_find(t, "0000:07:00.0", &report_link);
	unit_run_lab(&report_spec, run_report, &u);
	f = json_get(u.rec, "facts");
	assert_non_null(f);
	x = json_get(f, "gpu_pci_bus_id");
	assert_non_null(x);
	assert_string_equal(x->str, "0000:07:00.0");
	assert_true(json_get_num(json_get(f, "pcie_gen_max"), "value", 0) == 5);
	assert_true(json_get_num(json_get(f, "pcie_width_max"), "value", 0) == 16);
	assert_true(json_get_num(json_get(f, "pcie_gen_cur"), "value", 0) == 1);
	assert_true(fabs(json_get_num(json_get(f, "pcie_theoretical_gbs"), "value", 0) -
			 report_link.theo_gbs) < 1e-6);
	assert_non_null(strstr(u.tap, "# PCIe link: Gen5 x16, 63.0 GB/s per direction"));
	unit_lab_free(&u);

	/* unknown: the gen and width facts say -1, no theoretical rate */
	lab_copy_link_find(t, "0000:3b:00.0", &report_link);
	unit_run_lab(&report_spec, run_report, &u);
	f = json_get(u.rec, "facts");
	assert_true(json_get_num(json_get(f, "pcie_gen_max"), "value", 0) == -1);
	assert_null(json_get(f, "pcie_theoretical_gbs"));
	assert_non_null(strstr(u.tap, "# PCIe link unknown: no GPU with PCI bus id"));
	unit_lab_free(&u);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_reps_stops),
		cmocka_unit_test(test_next_reps_grows_with_margin),
		cmocka_unit_test(test_batch_loop_reaches_the_floor),
		cmocka_unit_test(test_batch_size_runs_the_sample),
		cmocka_unit_test(test_front_ns),
		cmocka_unit_test(test_pair_order_alternates),
		cmocka_unit_test(test_pair_until_stops_by_the_rule),
		cmocka_unit_test(test_pair_stats_rates_and_ratio),
		cmocka_unit_test(test_pair_ratio_too_short_with_its_timings),
		cmocka_unit_test(test_link_by_its_maximum),
		cmocka_unit_test(test_link_unknown),
		cmocka_unit_test(test_link_report_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
