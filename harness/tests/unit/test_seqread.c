/*
 * test_seqread.c - seqread.h: every kernel sums the same words as a plain
 * loop (whatever the size, the tail past the last whole chunk left out),
 * the kernel named is one that runs here, seqread_rate's series (GB/s of
 * the bytes a pass reads, by lab_measure's rule), and the last-level
 * cache size read from a sysfs tree.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../../labs/04-numa/seqread.h"
#include "unit_lab.h"

static uint64_t plain_sum(const uint64_t *w, uint64_t bytes)
{
	uint64_t s = 0, i;

	for (i = 0; i < bytes / 8; i++)
		s += w[i];
	return s;
}

static uint64_t *random_words(uint64_t bytes)
{
	uint64_t *w = NULL, x = 0x9E3779B97F4A7C15ULL, i;

	assert_int_equal(posix_memalign((void **)&w, SEQREAD_ALIGN, bytes), 0);
	for (i = 0; i < bytes / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
	return w;
}

static void test_kernels_agree(void **state)
{
	static const uint64_t sizes[] = { 256, 512, 4096, 1 << 20, (1 << 20) + 255 };
	static const char *const kernels[] = { "c", "sse2", "avx2" };
	uint64_t *w = random_words((1 << 20) + 256), sum;
	size_t i, k;
	int ran = 0;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t want = plain_sum(w, sizes[i] - sizes[i] % SEQREAD_CHUNK);

		assert_true(seqread_sum(w, sizes[i]) == want);
		for (k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++) {
			if (seqread_sum_kernel(kernels[k], w, sizes[i], &sum) < 0) {
				assert_int_equal(errno, ENOTSUP); /* not this CPU's */
				continue;
			}
			assert_true(sum == want);
			ran++;
		}
	}
	assert_true(ran >= 5); /* "c" always ran */
	assert_true(seqread_sum(w, 0) == 0);
	assert_true(seqread_sum(w, 255) == 0); /* less than one chunk */
	assert_int_equal(seqread_sum_kernel("avx512", w, 256, &sum), -1);
	free(w);
}

static void test_kernel_named_runs_here(void **state)
{
	const char *k = seqread_kernel();
	uint64_t *w = random_words(4096), sum = 0;

	(void)state;
	assert_true(!strcmp(k, "avx2") || !strcmp(k, "sse2") || !strcmp(k, "c"));
	assert_int_equal(seqread_sum_kernel(k, w, 4096, &sum), 0);
	assert_true(sum == plain_sum(w, 4096));
	free(w);
}

static const struct claim_spec rate_claims[] = {
	{ "95.1", "t.Q1", "seqread_rate makes a GB/s series of >= 7 passes", NULL, "test",
	  WANT_TRUE, NULL },
	{ NULL },
};

static const struct lab_spec rate_spec = {
	.id = "95", .title = "seqread_rate unit test", .topic = "a read-rate series",
	.timeout_s = 10, .claims = rate_claims, .default_iters = 7,
};

static void run_rate(struct lab *L)
{
	uint64_t *w = random_words(1 << 20);
	struct lab_stats r;

	seqread_rate(L, "read_local", w, (1 << 20) + 100, NULL, &r); /* the tail left out */
	claim_stats(L, &r);
	claim_check_true(L, "95.1", r.n >= 7 && !strcmp(r.unit, "GB/s") && r.median > 0 &&
			 r.max >= r.median, "a rate series");
	free(w);
}

static void test_rate_series(void **state)
{
	struct unit_lab u;
	const struct json *s;

	(void)state;
	unit_run_lab(&rate_spec, run_rate, &u);
	assert_string_equal(unit_status(&u, "95.1"), "pass");
	s = unit_stats(&u, "95.1", 0);
	assert_non_null(s);
	assert_string_equal(json_get_str(s, "name", ""), "read_local");
	assert_true(json_get_num(s, "n", 0) >= 7);
	unit_lab_free(&u);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* cpu0 with L1d, L1i, L2 and an L3 of 32768K; cpu1 without a cache directory. */
static void test_llc_from_sysfs(void **state)
{
	static const char *const caches[][3] = {
		{ "1", "Data", "32K" }, { "1", "Instruction", "32K" },
		{ "2", "Unified", "1024K" }, { "3", "Unified", "32768K" },
	};
	char root[] = "/tmp/dmalab-seqread-XXXXXX", dir[512], cmd[600];
	size_t k;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (k = 0; k < 4; k++) {
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu0/cache/index%zu", root, k);
		snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
		assert_int_equal(system(cmd), 0);
		put(dir, "level", caches[k][0]);
		put(dir, "type", caches[k][1]);
		put(dir, "size", caches[k][2]);
	}
	assert_true(seqread_llc_bytes(root, 0) == 32ULL << 20);
	assert_true(seqread_llc_bytes(root, 1) == 0);
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu0/cache/index3", root);
	put(dir, "size", "garbage");
	assert_true(seqread_llc_bytes(root, 0) == 0); /* the L3 says nothing usable */
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels_agree),
		cmocka_unit_test(test_kernel_named_runs_here),
		cmocka_unit_test(test_rate_series),
		cmocka_unit_test(test_llc_from_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
