/*
 * p2p.h - lab-09's plain helpers, in C that nvcc and gcc both take, so that
 * harness/tests/unit/test_p2p.c tests them without a GPU: which ordered
 * pairs to measure, the sizes, the pattern every copy carries and where a
 * received buffer first departs from it, the one-GPU skip, and the rate a
 * copy staged through host memory should reach.
 */
#ifndef DMALAB_LAB09_P2P_H
#define DMALAB_LAB09_P2P_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lab.h"

#ifdef __CUDACC__
#define P2P_HD __host__ __device__
#else
#define P2P_HD
#endif

#define P2P_MAX_GPUS 16
#define P2P_MAX_PAIRS (P2P_MAX_GPUS * (P2P_MAX_GPUS - 1))
#define P2P_MAX_SIZES 16

struct p2p_pair {
	int src, dst; /* CUDA ordinals: the copy goes src -> dst */
};

struct p2p_plan {
	int n;
	struct p2p_pair pair[P2P_MAX_PAIRS];
};

/* One GPU ordinal of a pair at *at, moved past it: 0, 1 not digits, 2 too large. */
static inline int p2p_gpu_parse(const char **at, int *gpu)
{
	long v = 0;

	if (**at < '0' || **at > '9')
		return 1;
	for (; **at >= '0' && **at <= '9'; (*at)++)
		if ((v = v * 10 + (**at - '0')) >= P2P_MAX_GPUS)
			return 2;
	*gpu = (int)v;
	return 0;
}

static inline int p2p_pair_given(const struct p2p_plan *p, int src, int dst)
{
	for (int i = 0; i < p->n; i++)
		if (p->pair[i].src == src && p->pair[i].dst == dst)
			return 1;
	return 0;
}

/*
 * --pairs: "all", or ordered pairs "S:D" separated by commas ("0:1,1:0").
 * Syntax only (the device count is not known yet).  0, or -1 with err.
 */
static inline int p2p_pairs_parse(const char *s, struct p2p_plan *p, char *err, size_t len)
{
	const char *at = s;

	p->n = 0;
	if (!strcmp(s, "all"))
		return 0;
	while (*at) {
		int src = 0, dst = 0, bad = p2p_gpu_parse(&at, &src);

		if (!bad)
			bad = *at++ != ':' ? 1 : p2p_gpu_parse(&at, &dst);
		if (!bad && (*at && (*at != ',' || !at[1])))
			bad = 1;
		if (bad) {
			snprintf(err, len, bad == 2 ? "a GPU past %d: the lab measures GPUs 0 to %d"
				 : "not a list of S:D pairs (0:1,1:0) or 'all'",
				 P2P_MAX_GPUS - 1, P2P_MAX_GPUS - 1);
			return -1;
		}
		if (src == dst || p2p_pair_given(p, src, dst) || p->n == P2P_MAX_PAIRS) {
			snprintf(err, len, src == dst ? "a pair needs two different GPUs" :
				 p->n == P2P_MAX_PAIRS ? "too many pairs" : "%d:%d given twice",
				 src, dst);
			return -1;
		}
		p->pair[p->n].src = src;
		p->pair[p->n++].dst = dst;
		at += *at == ',';
	}
	if (p->n == 0)
		snprintf(err, len, "empty list");
	return p->n ? 0 : -1;
}

/*
 * The pairs to measure on ndev GPUs: the asked ones (asked->n > 0), each
 * checked against ndev, or every ordered pair, (0,1) first; only_dev >= 0
 * keeps the pairs that involve it (--device).  0, or -1 with err.
 */
static inline int p2p_pairs_plan(int ndev, const struct p2p_plan *asked, int only_dev,
				 struct p2p_plan *out, char *err, size_t len)
{
	out->n = 0;
	if (ndev > P2P_MAX_GPUS)
		ndev = P2P_MAX_GPUS;
	for (int i = 0; i < asked->n; i++) {
		if (asked->pair[i].src >= ndev || asked->pair[i].dst >= ndev) {
			snprintf(err, len, "%d:%d: CUDA lists %d device%s", asked->pair[i].src,
				 asked->pair[i].dst, ndev, ndev == 1 ? "" : "s");
			return -1;
		}
		out->pair[out->n++] = asked->pair[i];
	}
	for (int s = 0; !asked->n && s < ndev; s++)
		for (int d = 0; d < ndev; d++)
			if (s != d && (only_dev < 0 || s == only_dev || d == only_dev)) {
				out->pair[out->n].src = s;
				out->pair[out->n++].dst = d;
			}
	return 0;
}

/* The skip of the GPU-to-GPU claims: NULL with 2 GPUs or more. */
static inline const char *p2p_gpu_skip(int ndev, char *detail, size_t len)
{
	if (ndev >= 2)
		return NULL;
	snprintf(detail, len, "%d CUDA device%s, need 2", ndev, ndev == 1 ? "" : "s");
	return SKIP_SINGLE_GPU;
}

/* Sizes from min to max, x4 a step, max always last.  How many. */
static inline int p2p_sizes(uint64_t min, uint64_t max, uint64_t *out)
{
	int n = 0;

	for (uint64_t s = min; s < max && n < P2P_MAX_SIZES - 1; s *= 4)
		out[n++] = s;
	out[n++] = max;
	return n;
}

/*
 * Word i of the pattern seed writes: differs at every word and between
 * senders, so a stale, shifted or foreign buffer never passes.
 */
P2P_HD static inline uint32_t p2p_word(uint64_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32) ^ seed;

	x ^= x >> 15;
	return x * 2246822519u ^ seed;
}

/* The first byte of a word (little endian) where got and want differ; -1 none. */
static inline int p2p_byte_in_word(uint32_t got, uint32_t want)
{
	for (int b = 0; b < 4; b++)
		if (((got ^ want) >> (8 * b)) & 0xff)
			return b;
	return -1;
}

/* The first byte offset of buf (bytes, a multiple of 4) off the pattern; -1 none. */
static inline int64_t p2p_first_bad(const void *buf, uint64_t bytes, uint32_t seed)
{
	const uint32_t *w = (const uint32_t *)buf;

	for (uint64_t i = 0; i < bytes / 4; i++)
		if (w[i] != p2p_word(i, seed)) {
			uint32_t got = w[i];

			return (int64_t)(4 * i) + p2p_byte_in_word(got, p2p_word(i, seed));
		}
	return -1;
}

/*
 * The rate of a copy that goes device -> host -> device one half after the
 * other: 1 / (1/d2h + 1/h2d) (GB/s).  A driver that overlaps the two halves
 * in chunks gets up to min(h2d, d2h), at most twice this.
 */
static inline double p2p_staged_gbs(double h2d, double d2h)
{
	return h2d > 0 && d2h > 0 ? 1.0 / (1.0 / h2d + 1.0 / d2h) : 0;
}

#endif /* DMALAB_LAB09_P2P_H */
