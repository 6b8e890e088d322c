/*
 * lab_cuda.h - CUDA helpers for labs compiled with nvcc (lab.cu).
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA`.  Header-only so the
 * harness library itself never links the CUDA runtime.
 *
 * What is here: CUDA_CHECK and the device check before a lab runs (lab_cuda_require);
 * streams and events made in one call each and released on every path
 * (buffer.h's registry); whether host memory is pinned; event timers
 * (struct cuda_timer, lab_cuda_event_seconds); the spin kernel, which holds
 * a stream for a set time of the GPU's own clock, so that work queued behind
 * it has not started when the host looks (a call that returns while its copy
 * waits behind the kernel cannot have waited for the copy), or so that a
 * kernel lasts as long as the copy it is to overlap; and a job, work timed
 * between events behind such a spin, with the host's time issuing it.
 *
 * Units: seconds (double) and nanoseconds (uint64_t, names say _ns).  Every
 * function that takes `struct lab *L` treats a failing CUDA call as a
 * broken setup: lab_error (exit 99), never a failed claim.
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
 * What stops a driver that is there from starting, as far as this process
 * can see: a /proc of another PID namespace (the driver reads /proc/self),
 * or /dev/nvidiactl closed to it.  "" when neither.
 */
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

/*
 * Why CUDA cannot run here, as a skip reason code, or NULL when at least
 * `need` devices are usable.  detail receives what was detected: which
 * CUDA_VISIBLE_DEVICES hid the GPUs, or why a driver that is there would
 * not start, never "no driver" when there is one.
 */
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
	lab_note(L, MSG("cuda.device", "device %d: %s, compute capability %d.%d, %.1f GiB"),
		 dev, p.name, p.major, p.minor, (double)p.totalGlobalMem / (double)GiB);
}

/* ------------------------------------------------------------------------ */
/* Streams and events                                                        */

/*
 * Streams and events go into buffer.h's registry as buffers do, so that
 * they are destroyed on every path: by the _free calls below (never
 * cudaStreamDestroy or cudaEventDestroy on them: the registry would destroy
 * the handle again), or at exit (after lab_error and lab_skip too), newest
 * first, before the runtime's own teardown, unchecked.  A lab that keeps
 * them to the end need not free them.
 */
static inline void lab_cuda_undo_stream_(void *p, uint64_t bytes)
{
	cudaStreamDestroy((cudaStream_t)p);
}

static inline void lab_cuda_undo_event_(void *p, uint64_t bytes)
{
	cudaEventDestroy((cudaEvent_t)p);
}

static inline void lab_cuda_track_(struct lab *L, void *p, buf_undo_fn undo)
{
	static int armed;

	if (buf_track(p, 0, undo) < 0) {
		undo(p, 0);
		lab_error(L, "out of memory for the buffer registry");
	}
	if (!armed) { /* the runtime is up: release before its teardown */
		buf_release_at_exit();
		armed = 1;
	}
}

/*
 * A new stream that never waits for the legacy default stream
 * (cudaStreamCreateWithFlags(cudaStreamNonBlocking)): two of them run side
 * by side, and a cudaMemcpy elsewhere does not serialise them.  Tracked.
 */
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

/*
 * 1 while work queued on s has not finished, 0 when s is idle
 * (cudaStreamQuery).  cudaErrorNotReady is the answer, not an error: it is
 * cleared so that a later cudaGetLastError does not see it.
 */
static inline int lab_cuda_stream_busy(struct lab *L, cudaStream_t s)
{
	cudaError_t e = cudaStreamQuery(s);

	if (e == cudaErrorNotReady) {
		cudaGetLastError();
		return 1;
	}
	CUDA_CHECK(L, e);
	return 0;
}

/*
 * What the driver says host memory at p is (cudaPointerGetAttributes): 1
 * pinned or registered (cudaMemoryTypeHost), 0 not (pageable), -1 when it
 * cannot tell (that error is cleared).  The memory a copy really reads,
 * whatever the lab meant it to be: a sabotage build's swapped buffers too.
 */
static inline int lab_cuda_host_pinned(const void *p)
{
	struct cudaPointerAttributes a;

	if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	return a.type == cudaMemoryTypeHost;
}

/*
 * A new event, cudaEventCreateWithFlags(flags): cudaEventDefault for one
 * that times (lab_cuda_event_seconds), cudaEventDisableTiming for one that
 * is only waited on (cudaEventSynchronize, cudaStreamWaitEvent), which
 * costs less to record.  Tracked.
 */
static inline cudaEvent_t lab_cuda_event_new(struct lab *L, unsigned int flags)
{
	cudaEvent_t e;

	CUDA_CHECK(L, cudaEventCreateWithFlags(&e, flags));
	lab_cuda_track_(L, (void *)e, lab_cuda_undo_event_);
	return e;
}

/*
 * Seconds of GPU time from event a to event b, both recorded and made for
 * timing; waits until b has happened (cudaEventSynchronize, then
 * cudaEventElapsedTime).  Steps of about LAB_CUDA_EVENT_RES_S: pass that as
 * the clock_res_s of a series timed this way.
 */
static inline double lab_cuda_event_seconds(struct lab *L, cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;

	CUDA_CHECK(L, cudaEventSynchronize(b));
	CUDA_CHECK(L, cudaEventElapsedTime(&ms, a, b));
	return ms / 1e3;
}

/*
 * A pair of events that time GPU work: cuda_timer_start before the work,
 * cuda_timer_stop after it (each a cudaEventRecord on stream s, not waited
 * for), then cuda_timer_seconds.  Start and stop may be recorded far apart
 * (a period over many steps of a loop).
 */
struct cuda_timer {
	cudaEvent_t start, stop;
};

/* Both events, cudaEventCreate (timing on); tracked as lab_cuda_event_new's. */
static inline void cuda_timer_init(struct lab *L, struct cuda_timer *t)
{
	CUDA_CHECK(L, cudaEventCreate(&t->start));
	lab_cuda_track_(L, (void *)t->start, lab_cuda_undo_event_);
	CUDA_CHECK(L, cudaEventCreate(&t->stop));
	lab_cuda_track_(L, (void *)t->stop, lab_cuda_undo_event_);
}

/* Both events destroyed now, unchecked (for teardown on any path). */
static inline void cuda_timer_release(struct cuda_timer *t)
{
	buf_untrack((void *)t->start, lab_cuda_undo_event_);
	buf_untrack((void *)t->stop, lab_cuda_undo_event_);
	cudaEventDestroy(t->start);
	cudaEventDestroy(t->stop);
}

/* cudaEventRecord(t->start, s). */
static inline void cuda_timer_start(struct lab *L, struct cuda_timer *t, cudaStream_t s)
{
	CUDA_CHECK(L, cudaEventRecord(t->start, s));
}

/* cudaEventRecord(t->stop, s). */
static inline void cuda_timer_stop(struct lab *L, struct cuda_timer *t, cudaStream_t s)
{
	CUDA_CHECK(L, cudaEventRecord(t->stop, s));
}

/* Seconds between the two events (waits for stop): lab_cuda_event_seconds. */
static inline double cuda_timer_seconds(struct lab *L, struct cuda_timer *t)
{
	return lab_cuda_event_seconds(L, t->start, t->stop);
}

/* ------------------------------------------------------------------------ */
/* The spin kernel: holding a stream for a set time                          */

/*
 * The GPU's global timer in ns (%globaltimer): one clock for every SM,
 * independent of the SM's clock rate, so a spin lasts the same wall time
 * whatever the GPU's boost.  Device code only.
 */
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

/*
 * Queue on s a kernel of one block of one thread that spins ns nanoseconds
 * of GPU time (it keeps one SM, so a kernel on another stream still runs
 * beside it).  Work queued on s after it starts when it ends.  The launch is
 * checked, the kernel not waited for.
 */
static inline void lab_cuda_spin(struct lab *L, cudaStream_t s, uint64_t ns)
{
	lab_spin_kernel<<<1, 1, 0, s>>>(ns);
	CUDA_CHECK_LAUNCH(L, 0);
}

/* ------------------------------------------------------------------------ */
/* One timed run of GPU work                                                 */

/* Queues the work of a job on stream s (CUDA_CHECK on each call). */
typedef void (*lab_cuda_issue_fn)(void *ctx, cudaStream_t s);

/*
 * Work timed on the GPU's clock and the host's at once: lab_cuda_job_run
 * queues a spin of front_ns (0: none), records timer->start, calls
 * issue(ctx, stream), records timer->stop, and returns the GPU seconds
 * between the two events (it waits for the work).  The spin in front makes
 * the events time the GPU doing the work and not the host issuing it, and
 * shows whether issue() waits for the GPU: host_s is the host's seconds
 * inside issue().  A job is a lab_run_fn context: lab_measure(L, name,
 * lab_cuda_job_run, &job, &cfg, &s) with cfg.clock_res_s =
 * LAB_CUDA_EVENT_RES_S.
 */
struct lab_cuda_job {
	struct lab *L;             /* for CUDA_CHECK */
	cudaStream_t stream;
	struct cuda_timer *timer;  /* made by cuda_timer_init */
	uint64_t front_ns;         /* spin queued before the start event; 0: none */
	lab_cuda_issue_fn issue;
	void *ctx;                 /* issue's */
	double host_s;             /* out: seconds inside issue(), the last run */
};

static inline double lab_cuda_job_run(void *job)
{
	struct lab_cuda_job *j = (struct lab_cuda_job *)job;
	double t0;

	if (j->front_ns)
		lab_cuda_spin(j->L, j->stream, j->front_ns);
	cuda_timer_start(j->L, j->timer, j->stream);
	t0 = lab_now();
	j->issue(j->ctx, j->stream);
	j->host_s = lab_now() - t0;
	cuda_timer_stop(j->L, j->timer, j->stream);
	return cuda_timer_seconds(j->L, j->timer);
}

/*
 * Runs a job `warmup` times unkept, then n times, keeping the GPU seconds
 * of run i in gpu_s[i] and its host seconds in host_s[i] (host_s may be
 * NULL): paired samples of one run each, for series made by hand
 * (lab_stats_from), where a re-measure of one would break the pairing.
 */
static inline void lab_cuda_job_samples(struct lab_cuda_job *job, int warmup, int n,
					double *gpu_s, double *host_s)
{
	int i;

	for (i = -warmup; i < n; i++) {
		double g = lab_cuda_job_run(job);

		if (i >= 0) {
			gpu_s[i] = g;
			if (host_s)
				host_s[i] = job->host_s;
		}
	}
}

/*
 * lab_cuda_job_samples made into two paired series: host_name (host clock)
 * and gpu_name (event clock), n samples (at most LAB_MAX_SAMPLES) after
 * `warmup`, each divided by `per` (>= 1, the operations a run makes: a
 * batch's too_short is judged on the whole run, before the division).
 */
static inline void lab_cuda_job_series(struct lab_cuda_job *job, int warmup, int n, int per,
				       const char *host_name, const char *gpu_name,
				       struct lab_stats *host, struct lab_stats *gpu)
{
	double h[LAB_MAX_SAMPLES], g[LAB_MAX_SAMPLES];

	n = n < LAB_MAX_SAMPLES ? n : LAB_MAX_SAMPLES;
	lab_cuda_job_samples(job, warmup, n, g, h);
	lab_stats_from(host, host_name, "s", h, n, 0);
	lab_stats_from(gpu, gpu_name, "s", g, n, LAB_CUDA_EVENT_RES_S);
	host->warmup = gpu->warmup = warmup;
	if (per > 1) {
		lab_stats_scale(host, 1.0 / per, "s");
		lab_stats_scale(gpu, 1.0 / per, "s");
	}
}

/* n copies of `bytes` from src to dst, one after the other, as a job's work. */
struct lab_cuda_copies {
	struct lab *L;
	void *dst;
	const void *src;
	uint64_t bytes;
	int n;                      /* >= 1 */
	enum cudaMemcpyKind kind;   /* cudaMemcpyHostToDevice, ... */
};

/* lab_cuda_issue_fn of struct lab_cuda_copies: n cudaMemcpyAsync on s (CUDA_CHECK). */
static inline void lab_cuda_issue_copies(void *copies, cudaStream_t s)
{
	const struct lab_cuda_copies *c = (const struct lab_cuda_copies *)copies;
	int i;

	for (i = 0; i < c->n; i++)
		CUDA_CHECK(c->L, cudaMemcpyAsync(c->dst, c->src, (size_t)c->bytes, c->kind, s));
}

#endif
