/*
 * seqread.c - one thread reading memory in address order (seqread.h).
 *
 * Each kernel reads SEQREAD_CHUNK bytes (4 cache lines) a loop turn into
 * four independent sums, every load folded into an add: the loop costs
 * about 2 instructions per 64-byte line with AVX2, 4 with SSE2, so the
 * core's window holds loads for many lines ahead.  The buffer is aligned,
 * so the compiler may fold the loads (an aligned SSE load can be an add's
 * memory operand; a VEX one can in any case).  No lab.h function is used
 * here (the cache size comes through the facts layer's sysfs reader), so
 * lmbench/readbw-ref.c builds with this file, procfs.c and sizes.c alone
 * (seqread_rate, which measures, is in seqread_rate.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "sysfs.h"
#include "seqread.h"
#include "sizes.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SEQREAD_X86 1
#else
#define SEQREAD_X86 0
#endif

#if SEQREAD_X86
__attribute__((target("avx2"))) static uint64_t sum_avx2(const void *buf, uint64_t bytes)
{
	const __m256i *v = (const __m256i *)__builtin_assume_aligned(buf, SEQREAD_ALIGN);
	__m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
	uint64_t i, n = bytes / sizeof(__m256i), t[4];

	for (i = 0; i < n; i += 8) {
		a = _mm256_add_epi64(a, _mm256_load_si256(v + i));
		b = _mm256_add_epi64(b, _mm256_load_si256(v + i + 1));
		c = _mm256_add_epi64(c, _mm256_load_si256(v + i + 2));
		d = _mm256_add_epi64(d, _mm256_load_si256(v + i + 3));
		a = _mm256_add_epi64(a, _mm256_load_si256(v + i + 4));
		b = _mm256_add_epi64(b, _mm256_load_si256(v + i + 5));
		c = _mm256_add_epi64(c, _mm256_load_si256(v + i + 6));
		d = _mm256_add_epi64(d, _mm256_load_si256(v + i + 7));
	}
	a = _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d));
	_mm256_storeu_si256((__m256i *)t, a);
	return t[0] + t[1] + t[2] + t[3];
}

static uint64_t sum_sse2(const void *buf, uint64_t bytes)
{
	const __m128i *v = (const __m128i *)__builtin_assume_aligned(buf, SEQREAD_ALIGN);
	__m128i a = _mm_setzero_si128(), b = a, c = a, d = a;
	uint64_t i, n = bytes / sizeof(__m128i), t[2];

/* one cache line: four aligned 16-byte loads, one into each sum */
#define SEQREAD_SSE2_LINE(k)                                     \
	do {                                                     \
		a = _mm_add_epi64(a, _mm_load_si128(v + i + (k)));     \
		b = _mm_add_epi64(b, _mm_load_si128(v + i + (k) + 1)); \
		c = _mm_add_epi64(c, _mm_load_si128(v + i + (k) + 2)); \
		d = _mm_add_epi64(d, _mm_load_si128(v + i + (k) + 3)); \
	} while (0)
	for (i = 0; i < n; i += 16) {
		SEQREAD_SSE2_LINE(0);
		SEQREAD_SSE2_LINE(4);
		SEQREAD_SSE2_LINE(8);
		SEQREAD_SSE2_LINE(12);
	}
#undef SEQREAD_SSE2_LINE
	a = _mm_add_epi64(_mm_add_epi64(a, b), _mm_add_epi64(c, d));
	_mm_storeu_si128((__m128i *)t, a);
	return t[0] + t[1];
}

static int have_avx2(void)
{
	__builtin_cpu_init(); /* needed where this runs before the constructors (static builds) */
	return __builtin_cpu_supports("avx2");
}
#endif

/* Any architecture: four sums of 8-byte words, 32 words a turn. */
static uint64_t sum_c(const void *buf, uint64_t bytes)
{
	const uint64_t *w = (const uint64_t *)buf;
	uint64_t s[4] = { 0, 0, 0, 0 }, i, j, n = bytes / 8;

	for (i = 0; i < n; i += 32)
		for (j = 0; j < 32; j++)
			s[j % 4] += w[i + j];
	return s[0] + s[1] + s[2] + s[3];
}

const char *seqread_kernel(void)
{
#if SEQREAD_X86
	return have_avx2() ? "avx2" : "sse2";
#else
	return "c";
#endif
}

uint64_t seqread_sum(const void *buf, uint64_t bytes)
{
	bytes -= bytes % SEQREAD_CHUNK;
#if SEQREAD_X86
	static int avx2 = -1; /* CPUID once */
	int have = __atomic_load_n(&avx2, __ATOMIC_RELAXED);

	if (have < 0) {
		have = have_avx2();
		__atomic_store_n(&avx2, have, __ATOMIC_RELAXED);
	}
	return have ? sum_avx2(buf, bytes) : sum_sse2(buf, bytes);
#else
	return sum_c(buf, bytes);
#endif
}

uint64_t seqread_llc_bytes(const char *root, int cpu)
{
	char dir[256], path[320], text[32];
	uint64_t best = 0, size;
	long level;
	int k, best_level = 0;

	for (k = 0; k < 16; k++) {
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cache/index%d", root, cpu,
			 k);
		snprintf(path, sizeof(path), "%s/level", dir);
		if (access(path, R_OK) != 0)
			break;
		if (sysfs_read_long(path, &level) < 0)
			level = 0;
		snprintf(path, sizeof(path), "%s/type", dir);
		if (sysfs_read_str(path, text, sizeof(text)) < 0)
			text[0] = '\0';
		if (!strncmp(text, "Instruction", 11) || level < best_level)
			continue;
		snprintf(path, sizeof(path), "%s/size", dir); /* "32768K" */
		best = sysfs_read_str(path, text, sizeof(text)) == 0 &&
		       lab_parse_size(text, &size) == 0 ? size : 0;
		best_level = (int)level;
	}
	return best;
}

int seqread_sum_kernel(const char *kernel, const void *buf, uint64_t bytes, uint64_t *sum)
{
	bytes -= bytes % SEQREAD_CHUNK;
	if (!strcmp(kernel, "c")) {
		*sum = sum_c(buf, bytes);
		return 0;
	}
#if SEQREAD_X86
	if (!strcmp(kernel, "sse2")) {
		*sum = sum_sse2(buf, bytes);
		return 0;
	}
	if (!strcmp(kernel, "avx2") && have_avx2()) {
		*sum = sum_avx2(buf, bytes);
		return 0;
	}
#endif
	errno = ENOTSUP;
	return -1;
}
