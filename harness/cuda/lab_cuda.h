/*
 * lab_cuda.h - CUDA helpers for labs compiled with nvcc (lab.cu): CUDA_CHECK,
 * the device check, streams and events released on every path, event timers,
 * the spin kernel (holds a stream for a set GPU time, so that work queued
 * behind it has not started when the host looks).
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA`.  Header-only so the
 * harness library itself never links the CUDA runtime.  A failing CUDA call
 * is a broken setup: lab_error (exit 99), never a failed claim.
 */
#ifndef DMALAB_LAB_CUDA_H
#define DMALAB_LAB_CUDA_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "buffer.h"
#include "lab.h"
#include "need.h"

/* On error, lab_error() with the error's name and string, the expression and
 * file:line on one line (nvbandwidth's habit). */
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

/* What stops a present driver from starting: a /proc of another PID namespace
 * (the driver reads /proc/self), or /dev/nvidiactl closed.  "" when neither. */
static inline const char *lab_cuda_start_blocker(char *buf, size_t len)
{
	char self[32] = "";
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);
	int fd;

	if (n <= 0) {
		snprintf(buf, len, "; /proc/self cannot be read: is /proc mounted here?");
		return buf;
	}
	self[n] = '\0';
	if (strtol(self, NULL, 10) != (long)getpid()) {
		snprintf(buf, len, "; /proc belongs to another PID namespace (/proc/self is %s, "
			 "getpid() %ld): mount a /proc for this one", self, (long)getpid());
		return buf;
	}
	fd = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		snprintf(buf, len, "; /dev/nvidiactl: %s", strerror(errno));
	else
		buf[0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

/* Why CUDA cannot run here, as a skip reason code (detail: what was detected),
 * or NULL when at least `need` devices are usable. */
static inline const char *lab_cuda_unavailable(int need, char *detail, size_t len)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	char why[200];
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorNoDevice || e == cudaErrorInvalidDevice || (e == cudaSuccess && n == 0)) {
		snprintf(detail, len, "cudaGetDeviceCount: no CUDA device (%s)%s%s%s",
			 cudaGetErrorName(e), visible ? "; CUDA_VISIBLE_DEVICES='" : "",
			 visible ? visible : "", visible ? "' may hide them" : "");
		return SKIP_NO_CUDA_DEVICE;
	}
	if (e != cudaSuccess && !lab_cuda_driver_present()) {
		snprintf(detail, len, "no NVIDIA driver: libcuda.so.1 not found "
			 "(cudaGetDeviceCount: %s)", cudaGetErrorName(e));
		return SKIP_NO_CUDA_DRIVER;
	}
	if (e != cudaSuccess) {
		snprintf(detail, len, "the driver is there but CUDA did not start: "
			 "cudaGetDeviceCount: %s (%s)%s", cudaGetErrorName(e),
			 cudaGetErrorString(e),
			 lab_cuda_start_blocker(why, sizeof(why)));
		return SKIP_CUDA_CANNOT_START;
	}
	if (n < need) {
		snprintf(detail, len, "%d CUDA device(s), need %d", n, need);
		return SKIP_TOO_FEW_GPUS;
	}
	return NULL;
}

/* Skip the lab unless `need` devices are usable; select --device (past the last:
 * exit 2) and narrate it. */
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
		char ordinal[16];

		snprintf(ordinal, sizeof(ordinal), "%d", dev);
		exit(lab_usage_error(L, "device", ordinal, "only %d CUDA device(s)", n));
	}
	CUDA_CHECK(L, cudaSetDevice(dev));
	CUDA_CHECK(L, cudaGetDeviceProperties(&p, dev));
	lab_fact_str(L, "gpu_name", p.name);
	lab_fact_num(L, "gpu_cc", p.major + p.minor / 10.0, "");
	lab_fact_num(L, "gpu_mem", (double)p.totalGlobalMem, "bytes");
	lab_note(L, MSG("cuda.device", "device %d: %s, compute capability %d.%d, %.1f GiB"),
		 dev, p.name, p.major, p.minor, (double)p.totalGlobalMem / (double)GiB);
}

/* ---- Streams and events ---- */

/*
 * Streams and events go into buffer.h's registry, so that they are destroyed
 * on every path: by the _free calls below (never cudaStreamDestroy on them:
 * the registry would destroy the handle again), or at exit, before the
 * runtime's own teardown.
 */
static inline void lab_cuda_undo_stream_(void *p, uint64_t bytes)
{
	cudaStreamDestroy((cudaStream_t)p);
}

static inline void lab_cuda_undo_event_(void *p, uint64_t bytes)
{
	cudaEventDestroy((cudaEvent_t)p);
}

/* Once, after the first CUDA object (the runtime is up by then), the registry's
 * exit handler is put in front of the runtime's own teardown. */
static inline void lab_buf_arm_exit_(void)
{
	static int armed;

	if (!armed) {
		buf_release_at_exit();
		armed = 1;
	}
}

/* Tracks p with undo, or undoes it at once when the registry has no memory. */
static inline cudaError_t lab_buf_track_(void *p, uint64_t bytes, buf_undo_fn undo)
{
	if (buf_track(p, bytes, undo) < 0) {
		undo(p, bytes);
		return cudaErrorMemoryAllocation;
	}
	lab_buf_arm_exit_();
	return cudaSuccess;
}

static inline void lab_cuda_track_(struct lab *L, void *p, buf_undo_fn undo)
{
	if (lab_buf_track_(p, 0, undo) != cudaSuccess)
		lab_error(L, "out of memory for the buffer registry");
}

/* A tracked non-blocking stream: a cudaMemcpy elsewhere does not serialise it. */
static inline cudaStream_t lab_cuda_stream_new(struct lab *L)
{
	cudaStream_t s;

	CUDA_CHECK(L, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	lab_cuda_track_(L, (void *)s, lab_cuda_undo_stream_);
	return s;
}

/* cudaStreamDestroy(s) now (work queued on it still completes: CUDA's rule). */
static inline void lab_cuda_stream_free(struct lab *L, cudaStream_t s)
{
	buf_untrack((void *)s, lab_cuda_undo_stream_);
	CUDA_CHECK(L, cudaStreamDestroy(s));
}

/* 1 when the driver calls host memory at p pinned or registered, 0 pageable,
 * -1 when it cannot tell: what a copy really reads (a sabotage's buffers too). */
static inline int lab_cuda_host_pinned(const void *p)
{
	struct cudaPointerAttributes a;

	if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	return a.type == cudaMemoryTypeHost;
}

/* A tracked event: cudaEventDefault to time, cudaEventDisableTiming to wait on. */
static inline cudaEvent_t lab_cuda_event_new(struct lab *L, unsigned int flags)
{
	cudaEvent_t e;

	CUDA_CHECK(L, cudaEventCreateWithFlags(&e, flags));
	lab_cuda_track_(L, (void *)e, lab_cuda_undo_event_);
	return e;
}

/* Seconds from event a to b (waits for b); steps of LAB_CUDA_EVENT_RES_S. */
static inline double lab_cuda_event_seconds(struct lab *L, cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;

	CUDA_CHECK(L, cudaEventSynchronize(b));
	CUDA_CHECK(L, cudaEventElapsedTime(&ms, a, b));
	return ms / 1e3;
}

/* Two events that time GPU work: start, the work, stop, then cuda_timer_seconds. */
struct cuda_timer {
	cudaEvent_t start, stop;
};

/* Both events, timing on, tracked. */
static inline void cuda_timer_init(struct lab *L, struct cuda_timer *t)
{
	t->start = lab_cuda_event_new(L, cudaEventDefault);
	t->stop = lab_cuda_event_new(L, cudaEventDefault);
}

/* Both events destroyed now, unchecked (for teardown on any path). */
static inline void cuda_timer_release(struct cuda_timer *t)
{
	buf_untrack((void *)t->start, lab_cuda_undo_event_);
	buf_untrack((void *)t->stop, lab_cuda_undo_event_);
	cudaEventDestroy(t->start);
	cudaEventDestroy(t->stop);
}

static inline void cuda_timer_start(struct lab *L, struct cuda_timer *t, cudaStream_t s)
{
	CUDA_CHECK(L, cudaEventRecord(t->start, s));
}

static inline void cuda_timer_stop(struct lab *L, struct cuda_timer *t, cudaStream_t s)
{
	CUDA_CHECK(L, cudaEventRecord(t->stop, s));
}

static inline double cuda_timer_seconds(struct lab *L, struct cuda_timer *t)
{
	return lab_cuda_event_seconds(L, t->start, t->stop);
}

/* ---- The spin kernel: holding a stream for a set time ---- */

/* %globaltimer in ns: one clock for every SM, whatever the boost. */
static __device__ inline uint64_t lab_gpu_now_ns(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* The calling GPU thread busy-waits ns nanoseconds (a kernel's tail of work). */
static __device__ inline void lab_gpu_spin(uint64_t ns)
{
	uint64_t t0 = lab_gpu_now_ns();

	while (lab_gpu_now_ns() - t0 < ns)
		;
}

/* lab_gpu_spin(ns) in every thread; lab_cuda_spin launches it as <<<1, 1>>>. */
static __global__ void lab_spin_kernel(uint64_t ns)
{
	lab_gpu_spin(ns);
}

/* Queue on s a <<<1, 1>>> spin of ns (one SM: other streams still run beside it). */
static inline void lab_cuda_spin(struct lab *L, cudaStream_t s, uint64_t ns)
{
	lab_spin_kernel<<<1, 1, 0, s>>>(ns);
	CUDA_CHECK_LAUNCH(L, 0);
}

#endif
