/*
 * paged.h (lab-11) - the layout of a paged KV cache and the check of a
 * swap-in, without the copies themselves (lab.cu makes them, one
 * cudaMemcpyAsync per block of every plane: the experiment).
 *
 * The layout: `planes` planes of `pool` slots of `block_bytes` each on the
 * device (plane p, slot s at (p x pool + s) x block_bytes); a request of n
 * blocks lies on the host plane after plane, its blocks in order (plane p,
 * block b at (p x n + b) x block_bytes); block b goes to slot slot[b] of
 * every plane, as a paged cache's block table maps logical blocks to the
 * free physical blocks of all layers.  slot[] is a seeded permutation, so
 * the device side is scattered as a pool that has served many requests.
 * vLLM's swap_blocks makes the same calls, one cudaMemcpyAsync per block
 * mapping, per layer and per K or V cache.
 *
 * Two halves.  The plain-C half (the block table, the offsets) is built by
 * gcc too and tested in harness/tests/unit/test_lab_paged.c; the CUDA half
 * (the copy's context, the check) needs nvcc (include after lab.h inside
 * `#if DMALAB_HAVE_CUDA`).  Units: bytes, seconds.  A failing CUDA call is
 * a broken setup (lab_error).
 */
#ifndef DMALAB_LAB_PAGED_CUDA_H
#define DMALAB_LAB_PAGED_CUDA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

struct lab_paged {
	uint64_t block_bytes; /* one block of one plane */
	uint64_t planes;      /* e.g. layers x (K, V) */
	uint64_t pool;        /* device slots per plane */
	uint32_t *slot;       /* slot of logical block b, for b < pool */
};

/* slot[0..n) = a permutation of 0..n-1 from seed (Fisher-Yates, an LCG). */
static inline void lab_paged_table(uint32_t *slot, uint32_t n, uint32_t seed)
{
	uint32_t i, r, x;

	for (i = 0; i < n; i++)
		slot[i] = i;
	for (i = n ? n - 1 : 0; i > 0; i--) {
		seed = seed * 1664525u + 1013904223u;
		r = (uint32_t)(((uint64_t)seed * (i + 1)) >> 32);
		x = slot[i], slot[i] = slot[r], slot[r] = x;
	}
}

/* Host offset of block b of plane p in a request of `blocks` blocks. */
static inline uint64_t lab_paged_host_off(const struct lab_paged *k, uint64_t p,
					  uint64_t blocks, uint64_t b)
{
	return (p * blocks + b) * k->block_bytes;
}

/* Device offset of block b of plane p: its slot in the pool. */
static inline uint64_t lab_paged_dev_off(const struct lab_paged *k, uint64_t p, uint64_t b)
{
	return (p * k->pool + k->slot[b]) * k->block_bytes;
}

/*
 * The layout for requests of up to `pool` blocks: slot[] allocated
 * (free() it) and shuffled.  0, or -1 for more than 2^32 - 1 slots or no
 * memory for the table.
 */
static inline int lab_paged_init(struct lab_paged *k, uint64_t block_bytes, uint64_t planes,
				 uint64_t pool, uint32_t seed)
{
	memset(k, 0, sizeof(*k));
	if (pool > UINT32_MAX)
		return -1;
	k->slot = (uint32_t *)malloc((pool ? pool : 1) * sizeof(uint32_t));
	if (!k->slot)
		return -1;
	k->block_bytes = block_bytes, k->planes = planes, k->pool = pool;
	lab_paged_table(k->slot, (uint32_t)pool, seed);
	return 0;
}

#ifdef __CUDACC__
#include <cuda_runtime.h>

#include "buffer.h"
#include "lab_buffers_cuda.h"
#include "lab_cuda.h"

/* One timed swap-in of a request (a lab_run_fn context). */
struct lab_paged_copy {
	struct lab *L;
	const struct lab_paged *k;
	const char *host;     /* pinned: the request, plane after plane */
	char *dev;            /* the pool: planes x pool x block_bytes */
	uint64_t blocks;      /* of the request, <= k->pool */
	int one_copy;         /* the same bytes as one contiguous cudaMemcpyAsync */
	cudaStream_t stream;
	struct cuda_timer *timer;
};

/* Words of the used slots that differ from the host word their block holds. */
static __global__ void lab_paged_count_bad(const uint32_t *dev, uint64_t words, uint64_t wpb,
					   uint64_t pool, uint64_t blocks,
					   const uint32_t *block_of, uint32_t seed,
					   unsigned long long *bad)
{
	uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	unsigned long long mine = 0;

	for (; w < words; w += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t slot = w / wpb % pool, plane = w / wpb / pool;
		uint32_t b = block_of[slot];

		if (b != UINT32_MAX)
			mine += dev[w] != buf_pattern_word(seed,
							   (plane * blocks + b) * wpb + w % wpb);
	}
	if (mine)
		atomicAdd(bad, mine);
}

/* What a check of one swap-in holds between its two halves. */
struct lab_paged_check {
	uint32_t *block_of;        /* the block each slot holds; UINT32_MAX: none */
	uint32_t *d_block_of;      /* the same, on the device */
	unsigned long long *d_bad; /* the kernel's count of differing words */
	uint32_t seed;
};

/*
 * Before a checked swap-in of c's request: the host request gets pattern
 * `seed` (written on the GPU, copied back), the pool is cleared and the
 * inverse block table goes to the GPU.  0, or -1 when a block is not whole
 * 32-bit words (then nothing is checked and nothing is held).
 */
static inline int lab_paged_check_begin(struct lab_paged_copy *c, uint32_t seed,
					struct lab_paged_check *chk)
{
	const struct lab_paged *k = c->k;
	uint64_t bytes = k->planes * c->blocks * k->block_bytes, b;
	uint64_t pool_bytes = k->planes * k->pool * k->block_bytes;
	size_t table_bytes = k->pool * sizeof(uint32_t);

	if (k->block_bytes % 4)
		return -1;
	chk->seed = seed;
	if (!(chk->block_of = (uint32_t *)malloc(table_bytes)))
		lab_error(c->L, "out of memory for the inverse block table");
	memset(chk->block_of, 0xff, table_bytes);
	for (b = 0; b < c->blocks; b++)
		chk->block_of[k->slot[b]] = (uint32_t)b;
	chk->d_block_of = (uint32_t *)lab_cuda_alloc(c->L, LAB_BUF_DEVICE, table_bytes);
	chk->d_bad = (unsigned long long *)lab_cuda_alloc(c->L, LAB_BUF_DEVICE,
							  sizeof(*chk->d_bad));
	CUDA_CHECK(c->L, lab_gpu_fill(c->dev, bytes, seed));
	CUDA_CHECK(c->L, cudaMemcpy((void *)c->host, c->dev, bytes, cudaMemcpyDeviceToHost));
	CUDA_CHECK(c->L, cudaMemset(c->dev, 0, pool_bytes));
	CUDA_CHECK(c->L, cudaMemcpy(chk->d_block_of, chk->block_of, table_bytes,
				    cudaMemcpyHostToDevice));
	CUDA_CHECK(c->L, cudaMemset(chk->d_bad, 0, sizeof(*chk->d_bad)));
	return 0;
}

/*
 * After the swap-in's copies were queued on c's stream: a kernel compares
 * every used slot with the block the table says it holds.  Returns the words
 * that differ (0: every block in its slot) and gives back what begin took.
 */
static inline long long lab_paged_check_end(struct lab_paged_copy *c,
					    struct lab_paged_check *chk)
{
	const struct lab_paged *k = c->k;
	uint64_t pool_bytes = k->planes * k->pool * k->block_bytes;
	unsigned long long bad = 0;

	lab_paged_count_bad<<<4096, 256, 0, c->stream>>>((const uint32_t *)c->dev, pool_bytes / 4,
							 k->block_bytes / 4, k->pool, c->blocks,
							 chk->d_block_of, chk->seed, chk->d_bad);
	CUDA_CHECK_LAUNCH(c->L, 0);
	CUDA_CHECK(c->L, cudaStreamSynchronize(c->stream));
	CUDA_CHECK(c->L, cudaMemcpy(&bad, chk->d_bad, sizeof(bad), cudaMemcpyDeviceToHost));
	lab_cuda_free(c->L, chk->d_block_of);
	lab_cuda_free(c->L, chk->d_bad);
	free(chk->block_of);
	return (long long)bad;
}

#endif /* __CUDACC__ */
#endif /* DMALAB_LAB_PAGED_CUDA_H */
