/*
 * lab_cuda.h - CUDA helpers for labs compiled with nvcc (lab.cu).
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA`.  Header-only so the
 * harness library itself never links the CUDA runtime.
 */
#ifndef DMALAB_LAB_CUDA_H
#define DMALAB_LAB_CUDA_H

#include <dlfcn.h>
#include <cuda_runtime.h>
#include "lab.h"

/*
 * CUDA_CHECK(L, call): on error, lab_error() with the error's name and
 * string, the expression and file:line on one line (nvbandwidth's habit).
 * A failing CUDA call is a broken setup, never a failed claim; claims about
 * expected errors use claim_cuda_err_eq on the returned code instead.
 */
#define CUDA_CHECK(L, call)                                                     \
	do {                                                                    \
		cudaError_t e_ = (call);                                        \
		if (e_ != cudaSuccess)                                          \
			lab_error((L), "%s: %s (%s) at %s:%d", #call,           \
				  cudaGetErrorName(e_), cudaGetErrorString(e_), \
				  __FILE__, __LINE__);                          \
	} while (0)

/* After a kernel launch: the launch error, then (sync=1) the execution error. */
#define CUDA_CHECK_LAUNCH(L, sync)                                  \
	do {                                                        \
		CUDA_CHECK(L, cudaGetLastError());                  \
		if (sync)                                           \
			CUDA_CHECK(L, cudaDeviceSynchronize());     \
	} while (0)

/* 1 if the driver library can be loaded (it is absent on CPU machines). */
static inline int lab_cuda_driver_present(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);

	if (!h)
		h = dlopen("libcuda.so.1", RTLD_LAZY);
	if (h)
		dlclose(h);
	return h != NULL;
}

/*
 * Why CUDA cannot run here, as a skip reason code, or NULL when at least
 * `need` devices are usable.  detail receives what was detected.
 */
static inline const char *lab_cuda_unavailable(int need, char *detail, size_t len)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
		snprintf(detail, len, "cudaGetDeviceCount: no CUDA device");
		return SKIP_NO_CUDA_DEVICE;
	}
	if (e != cudaSuccess) {
		if (!lab_cuda_driver_present())
			snprintf(detail, len, "no NVIDIA driver: libcuda.so.1 not found "
				 "(cudaGetDeviceCount: %s)", cudaGetErrorName(e));
		else
			snprintf(detail, len, "cudaGetDeviceCount: %s (%s)",
				 cudaGetErrorName(e), cudaGetErrorString(e));
		return SKIP_NO_CUDA_DRIVER;
	}
	if (n < need) {
		snprintf(detail, len, "%d CUDA device(s), need %d", n, need);
		return SKIP_TOO_FEW_GPUS;
	}
	return NULL;
}

/*
 * Skip the whole lab unless `need` devices are usable; then select --device
 * (an ordinal past the last device is a usage error: exit 2) and print the
 * device's name, compute capability and memory as narrative.
 */
static inline void lab_cuda_require(struct lab *L, int need)
{
	char detail[200];
	const char *why = lab_cuda_unavailable(need, detail, sizeof(detail));
	int n = 0, dev = lab_options(L)->device;
	struct cudaDeviceProp p;

	if (why)
		lab_skip(L, why, "%s", detail);
	cudaGetDeviceCount(&n);
	if (dev < 0 || dev >= n) {
		fprintf(stderr, "lab-%s: --device %d: only %d CUDA device(s)\n",
			lab_spec_of(L)->id, dev, n);
		exit(2);
	}
	CUDA_CHECK(L, cudaSetDevice(dev));
	CUDA_CHECK(L, cudaGetDeviceProperties(&p, dev));
	lab_fact_str(L, "gpu_name", p.name);
	lab_fact_num(L, "gpu_cc", p.major + p.minor / 10.0, "");
	lab_fact_num(L, "gpu_mem", (double)p.totalGlobalMem, "bytes");
	lab_note(L, "device %d: %s, compute capability %d.%d, %.1f GiB", dev, p.name,
		 p.major, p.minor, (double)p.totalGlobalMem / (double)GiB);
}

/* A pair of events timing work on one stream (cudaEventElapsedTime, ms). */
struct cuda_timer {
	cudaEvent_t start, stop;
};

static inline void cuda_timer_init(struct lab *L, struct cuda_timer *t)
{
	CUDA_CHECK(L, cudaEventCreate(&t->start));
	CUDA_CHECK(L, cudaEventCreate(&t->stop));
}

static inline void cuda_timer_release(struct cuda_timer *t)
{
	cudaEventDestroy(t->start);
	cudaEventDestroy(t->stop);
}

/* Seconds between the two events (waits for stop). */
static inline double cuda_timer_seconds(struct lab *L, struct cuda_timer *t)
{
	float ms = 0;

	CUDA_CHECK(L, cudaEventSynchronize(t->stop));
	CUDA_CHECK(L, cudaEventElapsedTime(&ms, t->start, t->stop));
	return ms / 1e3;
}

#endif
