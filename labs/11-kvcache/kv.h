/*
 * kv.h - lab-11's arithmetic, plain C so a unit test checks it without a GPU
 * (harness/tests/unit/test_lab_kv.c): the KV bytes a token takes, the
 * chapter's prefill FLOP count, and the crossover of two cost curves.  The
 * chapter's own sums (327,680 bytes, 0.21 s, 7.6 s) are facts of that test,
 * not claims: a claim is decided on what the GPU measured.
 */
#ifndef DMALAB_LAB_KV_H
#define DMALAB_LAB_KV_H

#include <math.h>
#include <stdint.h>

#define KV_TENSORS 2 /* K and V: one of each per token, head and layer */

/* Bytes of K and V one token takes in all layers. */
static inline uint64_t kv_bytes_per_token(uint64_t layers, uint64_t kv_heads, uint64_t head_dim,
					  uint64_t dtype_bytes)
{
	return layers * KV_TENSORS * kv_heads * head_dim * dtype_bytes;
}

/* FLOPs of a prefill of `tokens` by the chapter's rule: a multiply and an add
 * per parameter and token (attention left out, as the chapter does). */
static inline double kv_prefill_flop(double params, double tokens)
{
	return 2 * params * tokens;
}

/*
 * The crossover of d(n) = recompute(n) - swap(n) on a grid n[0..k-1]: the
 * context from which swapping back is cheaper at every later point,
 * interpolated from the point before; 0 when it already is at the first,
 * infinite when it never is.  Raising any d moves it down, so the ends of
 * the d's intervals give the ends of its interval.
 */
static inline double kv_crossover(const uint64_t *n, const double *d, int k)
{
	int j = k;

	while (j > 0 && d[j - 1] > 0)
		j--;
	if (j == k || j == 0)
		return j ? INFINITY : 0;
	return n[j - 1] + (double)(n[j] - n[j - 1]) * -d[j - 1] / (d[j] - d[j - 1]);
}

#endif
