/*
 * test_cupti.c - cupti_counts.h (lab-05) without CUPTI: the record store (thread-safe,
 * reset), counting by kind, cause and window (both ends inside), the
 * narrative line, the reasons the counts are unavailable, and what
 * lab_cupti_collected and lab_cupti_windows_seen say in a lab's TAP.
 *
 * Built as plain C, so LAB_HAVE_CUPTI is 0: lab_cupti_setup and
 * lab_cupti_begin refuse and the store is fed by hand, as CUPTI's buffer
 * callback feeds it.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/05-faults/cupti_counts.h"
#include "unit_lab.h"

static int reset(void **state)
{
	(void)state;
	lab_cupti_reset();
	return 0;
}

/* ---- the store and the counts ---- */

static void test_counts_by_kind(void **state)
{
	struct lab_cupti_counts k;

	(void)state;
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 3, 100);
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 5, 110);
	lab_cupti_record(LAB_CUPTI_BYTES_HTOD, LAB_CUPTI_CAUSE_COHERENCE, 64 * KiB, 120);
	lab_cupti_record(LAB_CUPTI_BYTES_HTOD, LAB_CUPTI_CAUSE_SPECULATIVE, 2 * MiB, 130);
	lab_cupti_record(LAB_CUPTI_BYTES_HTOD, LAB_CUPTI_CAUSE_USER, 1 * MiB, 140);
	lab_cupti_record(LAB_CUPTI_BYTES_DTOH, 0, 4 * KiB, 150);
	lab_cupti_record(LAB_CUPTI_CPU_PAGE_FAULT, 0, 9, 160);
	lab_cupti_record(5 /* THRASHING: not counted */, 0, 1, 170);
	assert_int_equal(lab_cupti_records(), 8);
	assert_int_equal(lab_cupti_count(lab_cupti_all, &k), 7);
	assert_int_equal(k.gpu_faults, 2);
	assert_int_equal(k.gpu_fault_groups, 8);
	assert_int_equal(k.h2d_xfers, 3);
	assert_int_equal(k.h2d_bytes, 64 * KiB + 3 * MiB);
	assert_int_equal(k.h2d_by_cause[LAB_CUPTI_CAUSE_COHERENCE], 64 * KiB);
	assert_int_equal(k.h2d_by_cause[LAB_CUPTI_CAUSE_SPECULATIVE], 2 * MiB);
	assert_int_equal(k.h2d_by_cause[LAB_CUPTI_CAUSE_USER], 1 * MiB);
	assert_int_equal(k.d2h_xfers, 1);
	assert_int_equal(k.d2h_bytes, 4 * KiB);
	assert_int_equal(k.cpu_faults, 1); /* records, not their values */
}

static void test_cause_past_the_table(void **state)
{
	struct lab_cupti_counts k;
	int i;

	(void)state;
	lab_cupti_record(LAB_CUPTI_BYTES_HTOD, LAB_CUPTI_CAUSE_COUNT + 3, 4 * KiB, 1);
	assert_int_equal(lab_cupti_count(lab_cupti_all, &k), 1);
	assert_int_equal(k.h2d_bytes, 4 * KiB);
	for (i = 0; i < LAB_CUPTI_CAUSE_COUNT; i++)
		assert_int_equal(k.h2d_by_cause[i], 0);
}

static void test_windows_hold_both_ends(void **state)
{
	struct lab_cupti_window w1 = { 10, 20 }, gap = { 21, 29 }, w3 = { 30, 30 };
	struct lab_cupti_counts k;

	(void)state;
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 10);
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 20);
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 30);
	assert_int_equal(lab_cupti_count(w1, &k), 2);
	assert_int_equal(k.gpu_faults, 2);
	assert_int_equal(lab_cupti_count(gap, &k), 0);
	assert_int_equal(k.gpu_faults, 0); /* cleared, not left from the last count */
	assert_int_equal(lab_cupti_count(w3, &k), 1);
	assert_int_equal(lab_cupti_count(lab_cupti_all, &k), 3);
}

static void test_reset_forgets(void **state)
{
	struct lab_cupti_counts k;

	(void)state;
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 10);
	lab_cupti_reset();
	assert_int_equal(lab_cupti_records(), 0);
	assert_int_equal(lab_cupti_count(lab_cupti_all, &k), 0);
	assert_int_equal(lab_cupti_dropped(), 0);
}

#define PER_THREAD 50000 /* past the first 65,536: the store grows under the lock */

static void *record_many(void *arg)
{
	uint64_t i, t = (uint64_t)(uintptr_t)arg;

	for (i = 0; i < PER_THREAD; i++)
		lab_cupti_record(LAB_CUPTI_BYTES_DTOH, 0, 1, t);
	return NULL;
}

static void test_store_is_thread_safe(void **state)
{
	pthread_t th[4];
	struct lab_cupti_counts k;
	struct lab_cupti_window only2 = { 2, 2 };
	uintptr_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, record_many, (void *)i), 0);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(lab_cupti_records(), 4 * PER_THREAD);
	lab_cupti_count(lab_cupti_all, &k);
	assert_int_equal(k.d2h_bytes, 4 * PER_THREAD);
	lab_cupti_count(only2, &k);
	assert_int_equal(k.d2h_xfers, PER_THREAD);
}

static void test_counts_text(void **state)
{
	struct lab_cupti_counts k;
	char buf[400];

	(void)state;
	memset(&k, 0, sizeof(k));
	k.gpu_faults = 4;
	k.gpu_fault_groups = 40;
	k.h2d_bytes = 3 * MiB;
	k.h2d_xfers = 2;
	k.h2d_by_cause[LAB_CUPTI_CAUSE_COHERENCE] = 1 * MiB;
	k.h2d_by_cause[LAB_CUPTI_CAUSE_SPECULATIVE] = 2 * MiB;
	k.d2h_bytes = 64 * KiB;
	k.cpu_faults = 7;
	assert_ptr_equal(lab_cupti_counts_text(&k, 1 * MiB, buf, sizeof(buf)), buf);
	assert_string_equal(buf, "4 GPU fault records (40 fault groups), 0.250 per 64 KiB of "
			    "region; H2D 3 MiB in 2 transfers (on demand 1 MiB, driver "
			    "prefetch 2 MiB, cudaMemPrefetchAsync 0 B); D2H 64 KiB; CPU faults 7");
}

/* ---- unavailable ---- */

static void test_unavailable_without_headers(void **state)
{
	(void)state;
	assert_int_equal(LAB_HAVE_CUPTI, 0);
	assert_string_equal(lab_cupti_why(), "CUPTI headers absent at build time");
	assert_int_equal(lab_cupti_setup(0), -1);
	assert_string_equal(lab_cupti_why(), "CUPTI headers absent at build time");
	assert_true(lab_cupti_now() == 0);
	lab_cupti_unusable("--no-counts %s", "given");
	assert_string_equal(lab_cupti_why(), "--no-counts given");
	lab_cupti_unusable("%s", "");
	assert_string_equal(lab_cupti_why(), "unavailable"); /* never "" (= available) */
}

/* ---- in a lab: the notes ---- */

static const struct claim_spec one_claim[] = {
	{ "97.1", "ch1.Q1", "a claim", "ch1", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_spec cupti_spec = {
	.id = "97", .title = "cupti test", .timeout_s = 10, .claims = one_claim,
	.default_iters = 7,
};

static void run_begin_refused(struct lab *L)
{
	lab_cupti_unusable("--no-counts given");
	claim_check_true(L, "97.1", lab_cupti_begin(L) == -1, "begin refused");
}

static void run_dropped(struct lab *L)
{
	lab_cupti_reset();
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 10);
	lab_cupti_unusable("x");
	lab_cupti_st_.why[0] = '\0'; /* as lab_cupti_setup leaves it */
	lab_cupti_collected(L, 3);
	claim_check_true(L, "97.1", lab_cupti_why() == NULL && lab_cupti_dropped() == 3,
			 "still usable, 3 dropped");
}

static void run_no_records(struct lab *L)
{
	lab_cupti_reset();
	lab_cupti_st_.why[0] = '\0';
	lab_cupti_collected(L, 0);
	claim_check_true(L, "97.1", lab_cupti_why() != NULL, "unusable");
}

static void run_windows(struct lab *L)
{
	struct lab_cupti_window w = { 100, 200 };
	struct lab_cupti_counts k;
	uint64_t seen;

	lab_cupti_reset();
	lab_cupti_st_.why[0] = '\0';
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 10);
	lab_cupti_record(LAB_CUPTI_GPU_PAGE_FAULT, 0, 1, 20);
	lab_cupti_record(LAB_CUPTI_BYTES_HTOD, LAB_CUPTI_CAUSE_COHERENCE, 64 * KiB, 30);
	lab_cupti_record(LAB_CUPTI_CPU_PAGE_FAULT, 0, 1, 150); /* does not count as seen */
	seen = lab_cupti_note_window(L, "case_a", w, 1 * MiB, &k);
	claim_check_true(L, "97.1", seen == 0 && k.cpu_faults == 1 &&
			 lab_cupti_windows_seen(L, seen) == -1 && lab_cupti_why() != NULL,
			 "nothing seen");
}

static void run_and_expect(void (*run)(struct lab *L), const char *const *lines)
{
	struct unit_lab u;

	unit_run_lab(&cupti_spec, run, &u);
	assert_string_equal(unit_status(&u, "97.1"), "pass");
	for (; *lines; lines++)
		if (!strstr(u.tap, *lines))
			fail_msg("no line '%s' in:\n%s", *lines, u.tap);
	unit_lab_free(&u);
}

static void test_notes_in_a_lab(void **state)
{
	static const char *const refused[] = {
		"# fault counts unavailable: --no-counts given\n", NULL };
	static const char *const dropped[] = {
		"# CUPTI dropped 3 Unified Memory records: counts are low\n", NULL };
	static const char *const none[] = {
		"# fault counts unavailable: CUPTI delivered no Unified Memory records\n", NULL };
	static const char *const windows[] = {
		"# case_a counted: 0 GPU fault records (0 fault groups), 0.000 per 64 KiB of "
		"region; H2D 0 B in 0 transfers",
		"; CPU faults 1\n",
		"# fault counts unusable: no record fell inside a timed window (2 GPU faults, "
		"1 H2D transfers in all)\n", NULL };

	(void)state;
	run_and_expect(run_begin_refused, refused);
	run_and_expect(run_dropped, dropped);
	run_and_expect(run_no_records, none);
	run_and_expect(run_windows, windows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_counts_by_kind, reset),
		cmocka_unit_test_setup(test_cause_past_the_table, reset),
		cmocka_unit_test_setup(test_windows_hold_both_ends, reset),
		cmocka_unit_test_setup(test_reset_forgets, reset),
		cmocka_unit_test_setup(test_store_is_thread_safe, reset),
		cmocka_unit_test(test_counts_text),
		cmocka_unit_test(test_unavailable_without_headers),
		cmocka_unit_test(test_notes_in_a_lab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
