/*
 * gemm.h (lab-11) - cuBLAS for lab-11's GEMMs, without the GEMM call
 * itself (lab.cu makes it and times it: the experiment), and the dense
 * matrix peak that a device's properties imply.
 *
 * cuBLAS is loaded with dlopen ("libcublas.so.13", then "libcublas.so",
 * then the same under /usr/local/cuda/lib64) and its types come from
 * <cublas_api.h>, so neither the library nor a lab links it; without it
 * lab_gemm_open says why, for a SKIP_NO_LIBRARY skip.  After
 * lab_cuda_require a lab opens it, calls g.gemm_ex on g's matrices, and
 * closes it:
 *
 *	struct lab_gemm g;
 *
 *	if (lab_gemm_open(L, &g, 28672, 8192, 8192, LAB_GEMM_BF16, stream, &timer) < 0)
 *		claim_skip(L, "NN.k", SKIP_NO_LIBRARY, "%s", g.why);
 *	...                // g.gemm_ex(g.h, ...) on g.w, g.act, g.out
 *	lab_gemm_close(&g);
 *
 * The matrices are for out (rows x tokens) = W (rows x cols) . act (cols x
 * tokens), column-major: the weights of one layer applied to `tokens`
 * tokens, so the token count alone moves a GEMM from reading W once per
 * call (few tokens, bounded by memory) to the matrix units' rate
 * (thousands of tokens).
 *
 *   LAB_GEMM_BF16   bf16 in and out, fp32 accumulation (CUBLAS_COMPUTE_32F):
 *                   the tensor cores
 *   LAB_GEMM_FP32   fp32 with CUBLAS_COMPUTE_32F_PEDANTIC: no TF32, so the
 *                   CUDA cores only
 *
 * Two halves.  The plain-C half (how many GEMMs a sample holds, the dense
 * bf16 FLOP per clock of an SM by compute capability) is built by gcc too
 * and tested in harness/tests/unit/test_lab_gemm.c.  The CUDA half needs
 * nvcc (__CUDACC__): include this file after lab.h inside
 * `#if DMALAB_HAVE_CUDA`.  A failing cuBLAS or CUDA call after the open is
 * a broken setup (lab_error).  Units: seconds, FLOP, TFLOP/s = 1e12 FLOP/s.
 */
#ifndef DMALAB_LAB_GEMM_CUDA_H
#define DMALAB_LAB_GEMM_CUDA_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lab.h"

#define LAB_GEMM_SAMPLE_S 2e-3 /* a sample holds GEMMs for at least this long */
#define LAB_GEMM_MAX_REPS 512

/*
 * GEMMs per sample when one takes t seconds: enough for floor_s, at least
 * 1, at most max_reps (also for t <= 0 or NaN).
 */
static inline int lab_gemm_reps(double t, double floor_s, int max_reps)
{
	if (!(t > 0))
		return max_reps;
	if (t >= floor_s)
		return 1;
	return floor_s / t >= max_reps ? max_reps : (int)ceil(floor_s / t);
}

/*
 * Dense bf16 tensor FLOP per clock of one SM (2 x the FMAs), or 0 where no
 * public figure was checked.  A100 (8.0): 4 tensor cores x 256 FMA; H100
 * and H200 (9.0): 4 x 512 FMA.  Sources: labs/11-kvcache/README.md.
 */
static inline double lab_gemm_bf16_flop_per_clk_sm(int major, int minor)
{
	if (major == 8 && minor == 0)
		return 2048;
	if (major == 9 && minor == 0)
		return 4096;
	return 0;
}

/* The peak that implies (TFLOP/s): SMs x clock (kHz) x FLOP per clock per SM. */
static inline double lab_gemm_peak_tflops(int sms, int clock_khz, double flop_per_clk_sm)
{
	return sms * (clock_khz * 1e3) * flop_per_clk_sm / 1e12;
}

#ifdef __CUDACC__
#include <dlfcn.h>
#include <cublas_api.h>
#include <cuda_runtime.h>

#include "buffer.h"
#include "lab_buffers_cuda.h"
#include "lab_cuda.h"

enum lab_gemm_type { LAB_GEMM_BF16, LAB_GEMM_FP32 };

typedef cublasStatus_t (*lab_gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
					 int, int, int, const void *, const void *, cudaDataType,
					 int, const void *, cudaDataType, int, const void *, void *,
					 cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

struct lab_gemm {
	struct lab *L;
	cublasHandle_t h;          /* NULL when the open failed */
	lab_gemm_ex_fn gemm_ex;
	cublasStatus_t (*destroy)(cublasHandle_t);
	const char *(*status_name)(cublasStatus_t);
	enum lab_gemm_type type;
	int rows, cols, max_tokens;
	void *w, *act, *out;       /* device: rows x cols, cols x max_tokens, rows x max_tokens */
	int tokens, reps;          /* of the lab's next sample */
	cudaStream_t stream;
	struct cuda_timer *timer;
	char why[240];             /* why there is no cuBLAS */
};

/* Element bytes of a type. */
static inline int lab_gemm_elem_bytes(enum lab_gemm_type t)
{
	return t == LAB_GEMM_BF16 ? 2 : 4;
}

/* Device bytes lab_gemm_open allocates for this shape. */
static inline uint64_t lab_gemm_bytes(int rows, int cols, int max_tokens, enum lab_gemm_type t)
{
	return ((uint64_t)rows * cols + (uint64_t)cols * max_tokens +
		(uint64_t)rows * max_tokens) * lab_gemm_elem_bytes(t);
}

/* Values of magnitude 2^-7..2^-6 with random sign and mantissa: finite
 * products, and as many bits toggling as real weights. */
static __global__ void lab_gemm_fill_kernel(void *p, uint64_t n, int elem_bytes, uint32_t seed)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint32_t r;

	for (; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		r = buf_pattern_word(seed, i) * 2654435761u;
		if (elem_bytes == 2)
			((uint16_t *)p)[i] = (uint16_t)(0x3C00u | (r & 0x807Fu));
		else
			((uint32_t *)p)[i] = 0x3C000000u | (r & 0x807FFFFFu);
	}
}

/* libcublas and its entry points into g; -1 with g->why when absent. */
static inline int lab_gemm_load_(struct lab_gemm *g, void **create, void **set_stream)
{
	static const char *const names[] = { "libcublas.so.13", "libcublas.so",
		"/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so" };
	void *lib = NULL;
	size_t i;

	for (i = 0; !lib && i < sizeof(names) / sizeof(names[0]); i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(g->why, sizeof(g->why), "no cuBLAS: dlopen(libcublas.so.13, "
			 "libcublas.so): %s", dlerror());
		return -1;
	}
	/* kept loaded: the library's threads may run in it */
	*create = dlsym(lib, "cublasCreate_v2");
	*set_stream = dlsym(lib, "cublasSetStream_v2");
	g->gemm_ex = (lab_gemm_ex_fn)dlsym(lib, "cublasGemmEx");
	g->destroy = (cublasStatus_t (*)(cublasHandle_t))dlsym(lib, "cublasDestroy_v2");
	g->status_name = (const char *(*)(cublasStatus_t))dlsym(lib, "cublasGetStatusName");
	if (*create && *set_stream && g->gemm_ex && g->destroy)
		return 0;
	snprintf(g->why, sizeof(g->why), "libcublas lacks cublasCreate_v2, cublasSetStream_v2, "
		 "cublasGemmEx or cublasDestroy_v2");
	return -1;
}

/*
 * cuBLAS with a handle on `stream` (timed with `timer`), and the matrices
 * of the shape filled on the GPU.  0, or -1 with g->why when cuBLAS is
 * absent or will not start (nothing allocated then).
 */
static inline int lab_gemm_open(struct lab *L, struct lab_gemm *g, int rows, int cols,
				int max_tokens, enum lab_gemm_type type, cudaStream_t stream,
				struct cuda_timer *timer)
{
	void *create, *set_stream;
	int eb = lab_gemm_elem_bytes(type);
	cublasStatus_t st;

	memset(g, 0, sizeof(*g));
	g->L = L;
	if (lab_gemm_load_(g, &create, &set_stream) < 0)
		return -1;
	st = ((cublasStatus_t (*)(cublasHandle_t *))create)(&g->h);
	if (st == CUBLAS_STATUS_SUCCESS)
		st = ((cublasStatus_t (*)(cublasHandle_t, cudaStream_t))set_stream)(g->h, stream);
	if (st != CUBLAS_STATUS_SUCCESS) {
		snprintf(g->why, sizeof(g->why), "cublasCreate or cublasSetStream: %s",
			 g->status_name ? g->status_name(st) : "failed");
		if (g->h)
			g->destroy(g->h);
		g->h = NULL;
		return -1;
	}
	g->type = type, g->rows = rows, g->cols = cols, g->max_tokens = max_tokens;
	g->stream = stream, g->timer = timer;
	g->w = lab_cuda_alloc(L, LAB_BUF_DEVICE, (uint64_t)rows * cols * eb);
	g->act = lab_cuda_alloc(L, LAB_BUF_DEVICE, (uint64_t)cols * max_tokens * eb);
	g->out = lab_cuda_alloc(L, LAB_BUF_DEVICE, (uint64_t)rows * max_tokens * eb);
	lab_gemm_fill_kernel<<<4096, 256>>>(g->w, (uint64_t)rows * cols, eb, 1);
	lab_gemm_fill_kernel<<<4096, 256>>>(g->act, (uint64_t)cols * max_tokens, eb, 2);
	CUDA_CHECK_LAUNCH(L, 1);
	return 0;
}

/* The matrices given back and the handle destroyed, before the runtime's
 * teardown at exit (which a live handle would outlast). */
static inline void lab_gemm_close(struct lab_gemm *g)
{
	cublasStatus_t st = g->destroy(g->h);

	lab_cuda_free(g->L, g->w);
	lab_cuda_free(g->L, g->act);
	lab_cuda_free(g->L, g->out);
	g->w = g->act = g->out = NULL;
	g->h = NULL;
	if (st != CUBLAS_STATUS_SUCCESS)
		lab_error(g->L, "cublasDestroy: %s",
			  g->status_name ? g->status_name(st) : "failed");
}

/*
 * The dense bf16 peak of device dev that its properties imply (TFLOP/s,
 * 0 when the FLOP per clock of its SMs is not known), and how it was
 * derived in how (len bytes): SMs, peak clock (cudaDevAttrClockRate), the
 * per-SM figure.
 */
static inline double lab_gemm_bf16_peak(struct lab *L, int dev, char *how, size_t len)
{
	int sms = 0, khz = 0, major = 0, minor = 0;
	double per_sm;

	CUDA_CHECK(L, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CUDA_CHECK(L, cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
	CUDA_CHECK(L, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
	CUDA_CHECK(L, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
	per_sm = lab_gemm_bf16_flop_per_clk_sm(major, minor);
	if (per_sm > 0)
		snprintf(how, len, "%d SMs x %.0f MHz (peak clock) x %.0f dense bf16 FLOP per "
			 "clock per SM", sms, khz / 1e3, per_sm);
	else
		snprintf(how, len, "unavailable: no checked bf16 rate per SM for compute "
			 "capability %d.%d", major, minor);
	return lab_gemm_peak_tflops(sms, khz, per_sm);
}

#endif /* __CUDACC__ */
#endif /* DMALAB_LAB_GEMM_CUDA_H */
