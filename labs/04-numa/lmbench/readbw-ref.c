/*
 * readbw-ref.c - one-thread read bandwidth the way lmbench's bw_mem rd
 * measures it, beside lab-04's loops, for a check of lab-04's figure
 * against bw_mem on any machine (labs/04-numa/README.md, "Against
 * lmbench").  Not part of the kit's build; from the repository's root:
 *
 *     cc -O2 -Iharness/base -Iharness/facts -Iharness/lab -o /tmp/readbw-ref \
 *         labs/04-numa/lmbench/readbw-ref.c labs/04-numa/seqread.c \
 *         harness/facts/procfs.c harness/base/sizes.c
 *     /tmp/readbw-ref [MiB (default 1024)] [repetitions (default 11)]
 *
 * bw_mem's method (lmbench 3, src/bw_mem.c and src/lib_timing.c):
 * valloc the buffer and bzero it (4 KiB pages unless THP is "always");
 * rd sums one 4-byte int every 16 bytes, 32 of them per 512-byte chunk in
 * one expression, so it touches every cache line with 4 loads; a timing
 * interval repeats the pass until it lasts ENOUGH microseconds (50000 as
 * peers/side-by-side.sh sets it: one pass at 256 MiB and up); 11
 * repetitions (TRIES); the MB/s (1 MB = 1e6 B) of the median interval
 * (save_median), the whole buffer counted as read.
 *
 * Here the same, with four loops over one buffer, alternated pass by pass
 * (the order reversed every repetition) so that a machine's drift meets
 * them alike, on 4 KiB pages (bw_mem's) and on transparent huge pages
 * (lab-04's):
 *   bwmem-rd  bw_mem's rd loop, the same source expression
 *   plain     s += w[i] over every 8-byte word: the loop one writes first
 *   lab-old   lab-04's loop before seqread.h: four sums of 8-byte words
 *   lab       seqread_sum, lab-04's loop now (its kernel named)
 * Printed per loop: the median and the best GB/s (1e9 B/s) over the
 * repetitions, and the median over repetitions of bwmem-rd's time / the
 * loop's (> 1: faster than bw_mem's loop).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../seqread.h"

#define ENOUGH_S 0.05
#define NLOOPS 4
#define MAX_REPS 101

static volatile uint64_t sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static __attribute__((noinline)) uint64_t bwmem_rd(const void *buf, uint64_t bytes)
{
	const int *p = (const int *)buf, *lastone = (const int *)((const char *)buf + bytes - 512);
	int sum = 0;

	while (p <= lastone) {
#define DOIT(i) p[i] +
		sum += DOIT(0) DOIT(4) DOIT(8) DOIT(12) DOIT(16) DOIT(20) DOIT(24)
		       DOIT(28) DOIT(32) DOIT(36) DOIT(40) DOIT(44) DOIT(48) DOIT(52)
		       DOIT(56) DOIT(60) DOIT(64) DOIT(68) DOIT(72) DOIT(76)
		       DOIT(80) DOIT(84) DOIT(88) DOIT(92) DOIT(96) DOIT(100)
		       DOIT(104) DOIT(108) DOIT(112) DOIT(116) DOIT(120) p[124];
#undef DOIT
		p += 128;
	}
	return (uint64_t)(unsigned)sum;
}

static __attribute__((noinline)) uint64_t plain(const void *buf, uint64_t bytes)
{
	const uint64_t *w = (const uint64_t *)buf;
	uint64_t s = 0, i;

	for (i = 0; i < bytes / 8; i++)
		s += w[i];
	return s;
}

static __attribute__((noinline)) uint64_t lab_old(const void *buf, uint64_t bytes)
{
	const uint64_t *w = (const uint64_t *)buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, i;

	for (i = 0; i < bytes / 8; i += 4) {
		s0 += w[i];
		s1 += w[i + 1];
		s2 += w[i + 2];
		s3 += w[i + 3];
	}
	return s0 + s1 + s2 + s3;
}

static uint64_t (*const loop_fn[NLOOPS])(const void *, uint64_t) = {
	bwmem_rd, plain, lab_old, seqread_sum
};
static const char *const loop_name[NLOOPS] = { "bwmem-rd", "plain", "lab-old", "lab" };

/* One timing interval: passes until ENOUGH_S; seconds per pass. */
static double interval(int k, const void *buf, uint64_t bytes)
{
	double t0 = now(), t;
	int passes = 0;

	do {
		sink += loop_fn[k](buf, bytes);
		passes++;
		t = now() - t0;
	} while (t < ENOUGH_S);
	return t / passes;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *buffer(uint64_t bytes, int huge)
{
	void *p = NULL;

	if (!huge) {
		p = valloc(bytes); /* bw_mem's allocation */
	} else if (posix_memalign(&p, 2 << 20, bytes) == 0) {
		madvise(p, bytes, MADV_HUGEPAGE); /* lab-04's: buffer.h BUF_HUGE */
	}
	if (!p) {
		perror("readbw-ref: allocation");
		exit(1);
	}
	memset(p, 0, bytes);
	return p;
}

static void run(uint64_t bytes, int reps, int huge)
{
	static double t[NLOOPS][MAX_REPS], ratio[NLOOPS][MAX_REPS];
	void *buf = buffer(bytes, huge);
	int r, i, k;

	for (k = 0; k < NLOOPS; k++) /* one warm-up pass each */
		sink += loop_fn[k](buf, bytes);
	for (r = 0; r < reps; r++)
		for (i = 0; i < NLOOPS; i++) {
			k = r % 2 ? NLOOPS - 1 - i : i;
			t[k][r] = interval(k, buf, bytes);
		}
	for (k = 0; k < NLOOPS; k++) {
		double best = t[k][0], gbs[MAX_REPS];

		for (r = 0; r < reps; r++) {
			ratio[k][r] = t[0][r] / t[k][r];
			gbs[r] = (double)bytes / t[k][r] / 1e9;
			best = t[k][r] < best ? t[k][r] : best;
		}
		printf("%-4s %-8s median %6.2f GB/s  best %6.2f GB/s  vs bwmem-rd x%.3f\n",
		       huge ? "thp" : "4k", loop_name[k], median(gbs, reps),
		       (double)bytes / best / 1e9, median(ratio[k], reps));
	}
	free(buf);
}

int main(int argc, char **argv)
{
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
	int reps = argc > 2 ? atoi(argv[2]) : 11;
	uint64_t llc = seqread_llc_bytes("/sys", 0);

	if (mib < 1 || mib > (1 << 20) || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "usage: %s [MiB 1..1048576] [repetitions 1..%d]\n", argv[0],
			MAX_REPS);
		return 2;
	}
	printf("readbw-ref: %llu MiB, %d repetitions of >= %.0f ms, loops alternated; "
	       "lab kernel %s; last-level cache %llu MiB (buffer %.0fx)\n",
	       (unsigned long long)mib, reps, ENOUGH_S * 1e3, seqread_kernel(),
	       (unsigned long long)(llc >> 20), llc ? (double)(mib << 20) / (double)llc : 0.0);
	run(mib << 20, reps, 0);
	run(mib << 20, reps, 1);
	return 0;
}
