/*
 * managed.h (lab-05) - managed memory (cudaMallocManaged) for labs that
 * watch it move: whether the GPU can fault on it here, the driver's knobs
 * as facts, a region with a stream of its own, a kernel that touches it at
 * a stride, prefetches to either side, and the timed touches: the GPU's of
 * data placed on the host or the GPU (with or without a prefetch first),
 * the CPU's of data on the GPU, the GPU's of memory nobody touched yet.
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA` (nvcc only).  The
 * region comes from lab_cuda_alloc(LAB_BUF_MANAGED) (lab_buffers_cuda.h),
 * so lab_error() and lab_skip() give it back too.  Every CUDA call is
 * checked with CUDA_CHECK: a failure is a broken setup.  Each timed touch
 * reads CUPTI's clock (cupti_counts.h) at both ends of its window, so that a
 * run with the counters on can tell what happened inside.  Sizes and
 * strides in bytes, times in seconds.
 */
#ifndef DMALAB_LAB_MANAGED_CUDA_H
#define DMALAB_LAB_MANAGED_CUDA_H

#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <cuda_runtime.h>

#include "lab.h"
#include "lab_buffers_cuda.h"
#include "lab_cuda.h"
#include "cupti_counts.h"
#include "preflight.h"
#include "procfs.h"

/*
 * Facts on how the driver handles managed memory on device `dev`:
 * pageable_memory_access (cudaDevAttrPageableMemoryAccess) and the
 * nvidia_uvm module parameters uvm_perf_prefetch_enable,
 * uvm_perf_prefetch_threshold and uvm_perf_fault_batch_count, each where
 * it can be read.
 */
static inline void lab_managed_facts(struct lab *L, int dev)
{
	static const char *const params[] = { "uvm_perf_prefetch_enable",
					      "uvm_perf_prefetch_threshold",
					      "uvm_perf_fault_batch_count" };
	char path[160], val[64];
	size_t i;
	int v = 0;

	if (cudaDeviceGetAttribute(&v, cudaDevAttrPageableMemoryAccess, dev) == cudaSuccess)
		lab_fact_num(L, "pageable_memory_access", v, "");
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		snprintf(path, sizeof(path), "/sys/module/nvidia_uvm/parameters/%s", params[i]);
		if (sysfs_read_str(path, val, sizeof(val)) == 0)
			lab_fact_str(L, params[i], val);
	}
}

/*
 * Whether a managed region of `bytes` can be faulted back and forth on the
 * lab's device (--device).  NULL when it can: lab_cuda_require(L, 1) has
 * selected the device and lab_managed_facts recorded its facts.  Else a
 * skip reason code, with what was found in detail: no driver or no device
 * (lab_cuda_unavailable's codes), no GPU page faults on managed memory
 * (managedMemory and concurrentManagedAccess: unsupported), the region over
 * half of the GPU's free memory (gpu-too-small), or not twice in the host's
 * available memory (not-enough-memory).  Records the fact
 * concurrent_managed_access.
 */
static inline const char *lab_managed_unavailable(struct lab *L, uint64_t bytes,
						  char *detail, size_t len)
{
	int managed = 0, concurrent = 0, dev = lab_options(L)->device;
	uint64_t free_b, total_b, avail;
	const char *what = lab_cuda_unavailable(1, detail, len);
	char b1[32], b2[32], b3[32];

	if (what)
		return what;
	lab_cuda_require(L, 1);
	lab_managed_facts(L, dev);
	avail = preflight_available(L, &what);
	CUDA_CHECK(L, cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
	CUDA_CHECK(L, cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
	lab_fact_num(L, "concurrent_managed_access", concurrent, "");
	if (!managed || !concurrent) {
		snprintf(detail, len, "managedMemory=%d concurrentManagedAccess=%d: no GPU page "
			 "faults on managed memory here", managed, concurrent);
		return SKIP_UNSUPPORTED;
	}
	lab_cuda_mem_info(L, &free_b, &total_b);
	lab_fmt_size(bytes, b1, sizeof(b1));
	if (!preflight_fits(2, bytes, free_b)) {
		snprintf(detail, len, "managed region %s > half of the free GPU memory (%s free "
			 "of %s)", b1, lab_fmt_size(free_b, b2, sizeof(b2)),
			 lab_fmt_size(total_b, b3, sizeof(b3)));
		return SKIP_GPU_TOO_SMALL;
	}
	if (!preflight_fits(2, bytes, avail)) {
		snprintf(detail, len, "managed region %s needs twice that in host memory, %s %s",
			 b1, what, lab_fmt_size(avail, b2, sizeof(b2)));
		return SKIP_NOT_ENOUGH_MEMORY;
	}
	return NULL;
}

/* A managed region, the stream its work goes to, and two events on it. */
struct lab_managed {
	struct lab *L;
	unsigned char *p;    /* cudaMallocManaged(cudaMemAttachGlobal); NULL when freed */
	uint64_t bytes;
	int dev;             /* the device prefetches to the GPU go to */
	unsigned char tag;   /* the value the last lab_managed_touch wrote */
	cudaStream_t stream; /* lab_cuda_stream_new: cudaStreamNonBlocking */
	struct cuda_timer ev; /* cuda_timer_init */
};

/* The stream, its events, then `bytes` of managed memory, untouched (no
 * page resident anywhere); each tracked, so released on every path. */
static inline void lab_managed_open(struct lab *L, struct lab_managed *m, int dev,
				    uint64_t bytes)
{
	memset(m, 0, sizeof(*m));
	m->L = L;
	m->dev = dev;
	m->bytes = bytes;
	m->stream = lab_cuda_stream_new(L);
	cuda_timer_init(L, &m->ev);
	m->p = (unsigned char *)lab_cuda_alloc(L, LAB_BUF_MANAGED, bytes);
}

/* Give the memory back (the stream stays); NULL p is a no-op. */
static inline void lab_managed_free(struct lab_managed *m)
{
	lab_cuda_free(m->L, m->p);
	m->p = NULL;
}

/* The memory, the events and the stream. */
static inline void lab_managed_close(struct lab_managed *m)
{
	lab_managed_free(m);
	cuda_timer_release(&m->ev);
	lab_cuda_stream_free(m->L, m->stream);
}

/*
 * Writes `tag` into one byte every `stride` bytes: n bytes from p.  A
 * write, not a read, so the driver cannot serve a touch from a read-only
 * copy: every touch of a page that is not on the GPU faults and migrates it.
 */
static __global__ void lab_managed_touch_kernel(unsigned char *p, size_t stride, size_t n,
						unsigned char tag)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i * stride] = tag;
}

/*
 * Launch the touch kernel on the first `bytes` of m at `stride` (one thread
 * per byte written, 256 a block) with the next tag (m->tag + 1, kept in
 * m->tag), on m's stream; does not wait.
 */
static inline void lab_managed_touch(struct lab_managed *m, uint64_t bytes, uint64_t stride)
{
	size_t n = (size_t)(bytes / stride);
	unsigned int blocks = (unsigned int)((n + 255) / 256);

	m->tag = (unsigned char)(m->tag + 1);
	lab_managed_touch_kernel<<<blocks, 256, 0, m->stream>>>(m->p, (size_t)stride, n, m->tag);
	CUDA_CHECK_LAUNCH(m->L, 0);
}

/* cudaMemPrefetchAsync of the first `bytes` of m to the GPU (m->dev, to_gpu
 * = 1) or to the host (0), on m's stream; does not wait. */
static inline void lab_managed_prefetch(struct lab_managed *m, uint64_t bytes, int to_gpu)
{
	struct cudaMemLocation loc;

	memset(&loc, 0, sizeof(loc));
	loc.type = to_gpu ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
	loc.id = to_gpu ? m->dev : 0; /* ignored for the host */
	CUDA_CHECK(m->L, cudaMemPrefetchAsync(m->p, (size_t)bytes, loc, 0, m->stream));
}

/* Wait for everything queued on m's stream. */
static inline void lab_managed_sync(struct lab_managed *m)
{
	CUDA_CHECK(m->L, cudaStreamSynchronize(m->stream));
}

/* Make the first `bytes` of m resident on the GPU (on_gpu = 1) or the host,
 * and wait: lab_managed_prefetch, then lab_managed_sync. */
static inline void lab_managed_place(struct lab_managed *m, uint64_t bytes, int on_gpu)
{
	lab_managed_prefetch(m, bytes, on_gpu);
	lab_managed_sync(m);
}

/*
 * The way back: the CPU touches one byte every `stride` bytes of the first
 * `bytes` of m with an atomic add, a single read-modify-write instruction,
 * so each page not on the host takes one fault with write intent.  Returns
 * the bytes touched that did not hold m->tag (the last GPU touch's value).
 */
static inline size_t lab_managed_cpu_touch(struct lab_managed *m, uint64_t bytes,
					   uint64_t stride)
{
	uint64_t off;
	size_t bad = 0;

	for (off = 0; off < bytes; off += stride)
		if (__atomic_fetch_add(&m->p[off], 1, __ATOMIC_RELAXED) != m->tag)
			bad++;
	return bad;
}

/* ------------------------------------------------------------------------ */
/* Timed touches                                                             */

/* What one timed touch measured. */
struct lab_managed_timed {
	double seconds;     /* the timed window, on the host clock */
	double prefetch_s;  /* lab_managed_time_touch: its prefetch part (events) */
	long minor_faults;  /* lab_managed_time_cpu_touch: this thread's minor faults */
	struct lab_cupti_window win; /* lab_cupti_now() at both ends of the window */
};

/*
 * The GPU touches the whole region at `stride`.  Untimed first, and waited
 * for: the data is placed on the GPU (resident = 1) or on the host (0).
 * Timed on the host clock, from the first call until the stream is
 * synchronised (a touch without faults lasts microseconds, too few steps of
 * CUDA events' clock): a cudaMemPrefetchAsync to the GPU when `prefetch`,
 * then the kernel.  Events on the stream around the prefetch give its part.
 */
static inline void lab_managed_time_touch(struct lab_managed *m, uint64_t stride, int resident,
					  int prefetch, struct lab_managed_timed *out)
{
	double t0;

	memset(out, 0, sizeof(*out));
	lab_managed_place(m, m->bytes, resident);
	out->win.start = lab_cupti_now();
	t0 = lab_now();
	cuda_timer_start(m->L, &m->ev, m->stream);
	if (prefetch)
		lab_managed_prefetch(m, m->bytes, 1);
	cuda_timer_stop(m->L, &m->ev, m->stream);
	lab_managed_touch(m, m->bytes, stride);
	lab_managed_sync(m);
	out->seconds = lab_now() - t0;
	out->win.end = lab_cupti_now();
	out->prefetch_s = cuda_timer_seconds(m->L, &m->ev);
}

/* Minor faults this thread has taken (RUSAGE_THREAD: not the driver's threads). */
static inline long lab_managed_thread_minflt_(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) < 0 ? -1 : ru.ru_minflt;
}

/*
 * The way back: the first `bytes` of the region go to the GPU and the GPU
 * writes a tag into one byte every `stride` (untimed); then the CPU touches
 * those bytes with lab_managed_cpu_touch (timed, with this thread's minor
 * faults).  A byte without the GPU's tag is lab_error: the data was lost.
 */
static inline void lab_managed_time_cpu_touch(struct lab_managed *m, uint64_t bytes,
					      uint64_t stride, struct lab_managed_timed *out)
{
	long f0;
	size_t bad;
	double t0;

	memset(out, 0, sizeof(*out));
	lab_managed_place(m, bytes, 1);
	lab_managed_touch(m, bytes, stride);
	lab_managed_sync(m);
	out->win.start = lab_cupti_now();
	f0 = lab_managed_thread_minflt_();
	t0 = lab_now();
	bad = lab_managed_cpu_touch(m, bytes, stride);
	out->seconds = lab_now() - t0;
	out->minor_faults = lab_managed_thread_minflt_() - f0;
	out->win.end = lab_cupti_now();
	if (bad)
		lab_error(m->L, "way back: %zu of %zu pages lost the GPU's write", bad,
			  (size_t)(bytes / stride));
}

/*
 * The GPU touches `bytes` of fresh managed memory nobody touched yet (the
 * driver fills new GPU pages: nothing to migrate) at `stride`, on m's
 * stream; allocation and free untimed.  Returns the host-clock seconds of
 * the touch, to synchronised.  m's own memory is not used: free it first
 * so that both never hold GPU memory at once.
 */
static inline double lab_managed_time_populate(struct lab_managed *m, uint64_t bytes,
					       uint64_t stride)
{
	struct lab_managed fresh = *m;
	double t;

	fresh.p = (unsigned char *)lab_cuda_alloc(m->L, LAB_BUF_MANAGED, bytes);
	t = lab_now();
	lab_managed_touch(&fresh, bytes, stride);
	lab_managed_sync(&fresh);
	t = lab_now() - t;
	lab_cuda_free(m->L, fresh.p);
	return t;
}

/* One touch between m's two events, waited for: their seconds apart.  For
 * a touch that is alone on the stream and long against the events' clock. */
static inline double lab_managed_touch_events_s(struct lab_managed *m, uint64_t bytes,
						uint64_t stride)
{
	cuda_timer_start(m->L, &m->ev, m->stream);
	lab_managed_touch(m, bytes, stride);
	cuda_timer_stop(m->L, &m->ev, m->stream);
	return cuda_timer_seconds(m->L, &m->ev);
}

#endif /* DMALAB_LAB_MANAGED_CUDA_H */
