/*
 * pool.h (lab-07) - stream-ordered memory pools (cudaMemPoolCreate) for
 * labs compiled with nvcc, released on every path.
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA`.  Header-only, so the
 * harness library never links the CUDA runtime.  A pool goes into buffer.h's
 * registry as streams and events do (lab_cuda.h): lab_cuda_pool_free gives
 * it back now, lab_error and exit give back what is left.
 *
 * What a pool keeps is governed by its release threshold
 * (cudaMemPoolAttrReleaseThreshold, bytes, default 0): when it holds more
 * reserved memory than that, it tries to give the excess back to the
 * driver at the next stream, event or context synchronisation.  UINT64_MAX
 * keeps everything.  Sizes in bytes.
 */
#ifndef DMALAB_LAB_POOL_CUDA_H
#define DMALAB_LAB_POOL_CUDA_H

#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "buffer.h"
#include "lab.h"
#include "lab_cuda.h"

static inline void lab_cuda_undo_pool_(void *p, uint64_t bytes)
{
	cudaMemPoolDestroy((cudaMemPool_t)p);
}

/*
 * A new pool of device memory on CUDA device `device` (pinned allocations,
 * no IPC handle type, every attribute at its default), tracked.
 */
static inline cudaMemPool_t lab_cuda_pool_new(struct lab *L, int device)
{
	struct cudaMemPoolProps props;
	cudaMemPool_t pool;

	memset(&props, 0, sizeof(props));
	props.allocType = cudaMemAllocationTypePinned;
	props.handleTypes = cudaMemHandleTypeNone;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = device;
	CUDA_CHECK(L, cudaMemPoolCreate(&pool, &props));
	lab_cuda_track_(L, (void *)pool, lab_cuda_undo_pool_);
	return pool;
}

/* cudaMemPoolDestroy(pool) now (blocks still out are released when freed: CUDA's rule). */
static inline void lab_cuda_pool_free(struct lab *L, cudaMemPool_t pool)
{
	buf_untrack((void *)pool, lab_cuda_undo_pool_);
	CUDA_CHECK(L, cudaMemPoolDestroy(pool));
}

/*
 * A byte-valued attribute (cuuint64_t): cudaMemPoolAttrReleaseThreshold,
 * cudaMemPoolAttrReservedMemCurrent (what the pool holds from the driver),
 * cudaMemPoolAttrUsedMemCurrent (what is allocated from it), ...
 */
static inline uint64_t lab_cuda_pool_get(struct lab *L, cudaMemPool_t pool,
					 enum cudaMemPoolAttr attr)
{
	uint64_t v = 0;

	CUDA_CHECK(L, cudaMemPoolGetAttribute(pool, attr, &v));
	return v;
}

/* Set the release threshold to `bytes` (UINT64_MAX: keep everything). */
static inline void lab_cuda_pool_set_threshold(struct lab *L, cudaMemPool_t pool,
					       uint64_t bytes)
{
	CUDA_CHECK(L, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes));
}

/*
 * One block of `bytes` from the pool and back on stream s, waited for: a
 * pool whose threshold keeps it then holds that memory (it is warm).
 */
static inline void lab_cuda_pool_cycle(struct lab *L, cudaMemPool_t pool, cudaStream_t s,
				       uint64_t bytes)
{
	void *p;

	CUDA_CHECK(L, cudaMallocFromPoolAsync(&p, (size_t)bytes, pool, s));
	CUDA_CHECK(L, cudaFreeAsync(p, s));
	CUDA_CHECK(L, cudaStreamSynchronize(s));
}

#endif /* DMALAB_LAB_POOL_CUDA_H */
