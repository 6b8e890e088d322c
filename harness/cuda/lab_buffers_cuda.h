/*
 * lab_buffers_cuda.h - the CUDA side of buffer.h and need.h: the kinds of
 * memory a copy can come from or go to (one CUDA call each), the pattern
 * filled and counted on the GPU, and the GPU's free memory.  nvcc only;
 * every buffer goes into buffer.h's registry, so lab_error() and lab_skip()
 * give it back on their way out.
 */
#ifndef DMALAB_LAB_BUFFERS_CUDA_H
#define DMALAB_LAB_BUFFERS_CUDA_H

#include <stdint.h>
#include <cuda_runtime.h>

#include "buffer.h"
#include "lab.h"
#include "lab_cuda.h"
#include "need.h"

enum lab_buf_kind {
	LAB_BUF_PAGEABLE,
	LAB_BUF_PINNED,
	LAB_BUF_WC,
	LAB_BUF_DEVICE,
	LAB_BUF_MANAGED,
};

/* ---- Allocation and release ---- */

/* The first CUDA error of the undos run by the current lab_cuda_free. */
static cudaError_t lab_buf_undo_err_;

static inline void lab_buf_note_(cudaError_t e)
{
	if (e != cudaSuccess && lab_buf_undo_err_ == cudaSuccess)
		lab_buf_undo_err_ = e;
}

static inline void lab_buf_undo_free_host_(void *p, uint64_t bytes)
{
	lab_buf_note_(cudaFreeHost(p));
}

static inline void lab_buf_undo_free_(void *p, uint64_t bytes)
{
	lab_buf_note_(cudaFree(p));
}

static inline void lab_buf_undo_unregister_(void *p, uint64_t bytes)
{
	lab_buf_note_(cudaHostUnregister(p));
}

/*
 * `bytes` of one kind into *out (NULL on failure), tracked; the CUDA error
 * comes back, for a kind the lab can do without: the caller clears it with
 * cudaGetLastError() if it goes on.
 */
static inline cudaError_t lab_cuda_try_alloc(enum lab_buf_kind kind, uint64_t bytes, void **out)
{
	void *p = NULL;
	cudaError_t e;
	buf_undo_fn undo = lab_buf_undo_free_;

	*out = NULL;
	switch (kind) {
	case LAB_BUF_PAGEABLE:
		p = buf_map(bytes, 0, 0, NULL);
		if (!p)
			return cudaErrorMemoryAllocation;
		*out = p;
		return cudaSuccess;
	case LAB_BUF_PINNED:
	case LAB_BUF_WC:
		e = cudaHostAlloc(&p, (size_t)bytes, kind == LAB_BUF_WC ?
				  cudaHostAllocWriteCombined : cudaHostAllocDefault);
		undo = lab_buf_undo_free_host_;
		break;
	case LAB_BUF_DEVICE:
		e = cudaMalloc(&p, (size_t)bytes);
		break;
	case LAB_BUF_MANAGED:
		e = cudaMallocManaged(&p, (size_t)bytes, cudaMemAttachGlobal);
		break;
	default:
		return cudaErrorInvalidValue;
	}
	if (e == cudaSuccess)
		e = lab_buf_track_(p, bytes, undo);
	if (e == cudaSuccess)
		*out = p;
	return e;
}

static inline const char *lab_buf_kind_name(enum lab_buf_kind kind)
{
	static const char *const names[] = { "pageable", "pinned", "write-combined",
					     "device", "managed" };

	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/* lab_cuda_try_alloc, or lab_error naming the kind, the size and the error. */
static inline void *lab_cuda_alloc(struct lab *L, enum lab_buf_kind kind, uint64_t bytes)
{
	void *p;
	cudaError_t e = lab_cuda_try_alloc(kind, bytes, &p);
	char sz[32];

	if (e != cudaSuccess)
		lab_error(L, "allocating %s of %s memory: %s (%s)",
			  lab_fmt_size(bytes, sz, sizeof(sz)), lab_buf_kind_name(kind),
			  cudaGetErrorName(e), cudaGetErrorString(e));
	return p;
}

/* Give back a buffer of this file's kinds (or of buf_map), every undo newest
 * first; NULL is a no-op.  lab_error when p is not tracked or a release fails. */
static inline void lab_cuda_free(struct lab *L, void *p)
{
	lab_buf_undo_err_ = cudaSuccess;
	if (buf_free(p) < 0)
		lab_error(L, "BUG: lab_cuda_free(%p): not a buffer this process holds", p);
	if (lab_buf_undo_err_ != cudaSuccess)
		lab_error(L, "releasing the buffer at %p: %s (%s)", p,
			  cudaGetErrorName(lab_buf_undo_err_),
			  cudaGetErrorString(lab_buf_undo_err_));
}

/* cudaHostRegister, tracked: lab_cuda_free(p) unregisters before it unmaps a
 * buf_map buffer (other memory it only unregisters).  Returns the CUDA error. */
static inline cudaError_t lab_cuda_register(void *p, uint64_t bytes)
{
	cudaError_t e = cudaHostRegister(p, (size_t)bytes, cudaHostRegisterDefault);

	return e == cudaSuccess ? lab_buf_track_(p, bytes, lab_buf_undo_unregister_) : e;
}

/* cudaHostUnregister(p) now (CUDA_CHECK), and forget the registration. */
static inline void lab_cuda_unregister(struct lab *L, void *p)
{
	buf_untrack(p, lab_buf_undo_unregister_);
	CUDA_CHECK(L, cudaHostUnregister(p));
}

/* ---- The pattern on the GPU ---- */

#define LAB_BUF_THREADS 256

static __global__ void lab_buf_fill_kernel(uint32_t *p, uint64_t n, uint32_t seed)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t step = (uint64_t)gridDim.x * blockDim.x;

	for (; i < n; i += step)
		p[i] = buf_pattern_word(seed, i);
}

/*
 * This thread's share of a count over a grid: slot[0] += the words of
 * p[0..n) not of pattern `seed`, slot[1] += those of pattern `other`.  Every
 * thread of the grid must call it (the warp's shuffles).
 */
static __device__ inline void lab_gpu_count_words(const uint32_t *p, uint64_t n, uint32_t seed,
						  uint32_t other, unsigned long long *slot)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t step = (uint64_t)gridDim.x * blockDim.x;
	unsigned long long bad = 0, hit = 0;

	for (; i < n; i += step) {
		bad += p[i] != buf_pattern_word(seed, i);
		hit += p[i] == buf_pattern_word(other, i);
	}
	for (int off = 16; off > 0; off >>= 1) {
		bad += __shfl_down_sync(0xffffffffu, bad, off);
		hit += __shfl_down_sync(0xffffffffu, hit, off);
	}
	if ((threadIdx.x & 31) == 0 && (bad || hit)) {
		atomicAdd(&slot[0], bad);
		atomicAdd(&slot[1], hit);
	}
}

/* lab_gpu_count_words over p[0..n) as a kernel of its own. */
static __global__ void lab_buf_count_kernel(const uint32_t *p, uint64_t n, uint32_t seed,
					    uint32_t other, unsigned long long *slot)
{
	lab_gpu_count_words(p, n, seed, other, slot);
}

/* Blocks for `words` words: one word a thread, at most 4096 blocks (grid-stride). */
static inline unsigned int lab_buf_grid(uint64_t words)
{
	uint64_t blocks = (words + LAB_BUF_THREADS - 1) / LAB_BUF_THREADS;

	return blocks > 4096 ? 4096 : (blocks ? (unsigned int)blocks : 1);
}

/* Fill the bytes / 4 words at p with pattern `seed` and wait.  Returns the CUDA
 * error: a write through a pointer not valid here may be the lab's finding. */
static inline cudaError_t lab_gpu_fill(void *p, uint64_t bytes, uint32_t seed)
{
	cudaError_t e;

	lab_buf_fill_kernel<<<lab_buf_grid(bytes / 4), LAB_BUF_THREADS>>>((uint32_t *)p,
									 bytes / 4, seed);
	e = cudaGetLastError();
	return e != cudaSuccess ? e : cudaDeviceSynchronize();
}

/* Queue lab_buf_count_kernel on s into slot (zeroed device counters); no wait. */
static inline cudaError_t lab_gpu_count_async(cudaStream_t s, const void *p, uint64_t bytes,
					      uint32_t seed, uint32_t other,
					      unsigned long long *slot)
{
	lab_buf_count_kernel<<<lab_buf_grid(bytes / 4), LAB_BUF_THREADS, 0, s>>>(
		(const uint32_t *)p, bytes / 4, seed, other, slot);
	return cudaGetLastError();
}

/* The two counters, in device memory (GPU atomics on mapped host memory need not
 * be atomic across PCIe); freed at exit, before the runtime's own handler. */
static unsigned long long *lab_buf_bad_dev;
static inline void lab_gpu_count_release(void);

/* After what s holds, out[0] = words not of `seed`, out[1] = words of `other`
 * (-1 on error); waits.  Returns the CUDA error. */
static inline cudaError_t lab_gpu_count_on(cudaStream_t s, const void *p, uint64_t bytes,
					   uint32_t seed, uint32_t other, long long out[2])
{
	unsigned long long n[2] = { 0, 0 };
	cudaError_t e;

	out[0] = out[1] = -1;
	if (!lab_buf_bad_dev) {
		static int at_exit;

		if ((e = cudaMalloc((void **)&lab_buf_bad_dev, sizeof(n))) != cudaSuccess) {
			lab_buf_bad_dev = NULL;
			return e;
		}
		if (!at_exit++)
			atexit(lab_gpu_count_release);
	}
	e = cudaMemsetAsync(lab_buf_bad_dev, 0, sizeof(n), s);
	if (e == cudaSuccess)
		e = lab_gpu_count_async(s, p, bytes, seed, other, lab_buf_bad_dev);
	if (e == cudaSuccess) /* waits for the kernel and reports its fault */
		e = cudaStreamSynchronize(s);
	if (e == cudaSuccess)
		e = cudaMemcpy(n, lab_buf_bad_dev, sizeof(n), cudaMemcpyDeviceToHost);
	if (e == cudaSuccess) {
		out[0] = (long long)n[0];
		out[1] = (long long)n[1];
	}
	return e;
}

/* After what s holds, the words at p must be pattern `seed`, else lab_error. */
static inline void lab_gpu_verify(struct lab *L, cudaStream_t s, const void *p, uint64_t bytes,
				  uint32_t seed, const char *what)
{
	long long got[2];

	CUDA_CHECK(L, lab_gpu_count_on(s, p, bytes, seed, seed + 1, got));
	if (got[0] != 0)
		lab_error(L, "%s is wrong on the GPU: %lld of %llu words differ from pattern %u",
			  what, got[0], (unsigned long long)(bytes / 4), seed);
}

/* *bad = the words at p not of pattern `seed` (-1 on error); waits. */
static inline cudaError_t lab_gpu_count_bad(const void *p, uint64_t bytes, uint32_t seed,
					    long long *bad)
{
	long long out[2];
	cudaError_t e = lab_gpu_count_on(0, p, bytes, seed, seed + 1, out);

	*bad = out[0];
	return e;
}

/* Unchecked: after a fault the GPU may report errors. */
static inline void lab_gpu_count_release(void)
{
	if (lab_buf_bad_dev)
		cudaFree(lab_buf_bad_dev);
	lab_buf_bad_dev = NULL;
}

/* ---- GPU memory ---- */

/* Free and total bytes of the current device (cudaMemGetInfo, CUDA_CHECK). */
static inline void lab_cuda_mem_info(struct lab *L, uint64_t *free_b, uint64_t *total_b)
{
	size_t f = 0, t = 0;

	CUDA_CHECK(L, cudaMemGetInfo(&f, &t));
	*free_b = f;
	if (total_b)
		*total_b = t;
}

/* Skip the lab (gpu-too-small) unless `need` bytes (need_bytes) are free. */
static inline void lab_cuda_require_free(struct lab *L, uint64_t need, const char *what)
{
	uint64_t free_b;
	char a[32], b[32];

	lab_cuda_mem_info(L, &free_b, NULL);
	if (free_b < need)
		lab_skip(L, SKIP_GPU_TOO_SMALL, "%s free on the GPU, need %s%s",
			 lab_fmt_size(free_b, a, sizeof(a)), lab_fmt_size(need, b, sizeof(b)),
			 what ? what : "");
}

#endif /* DMALAB_LAB_BUFFERS_CUDA_H */
