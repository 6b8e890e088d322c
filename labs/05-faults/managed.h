/*
 * managed.h (lab-05) - the managed region lab-05 faults on, without the
 * experiment: whether the GPU can fault on managed memory here, the
 * driver's settings as facts, and a region with a stream and two events of
 * its own.  The kernel that touches it, the prefetch and the timed touches
 * are the experiment, in lab.cu.
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA` (nvcc only).  The
 * region comes from lab_cuda_alloc(LAB_BUF_MANAGED) (lab_buffers_cuda.h),
 * so lab_error() and lab_skip() give it back too.  Every CUDA call is
 * checked with CUDA_CHECK: a failure is a broken setup.  Sizes in bytes.
 */
#ifndef DMALAB_LAB_MANAGED_CUDA_H
#define DMALAB_LAB_MANAGED_CUDA_H

#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>

#include "lab.h"
#include "lab_buffers_cuda.h"
#include "lab_cuda.h"
#include "need.h"
#include "sysfs.h"

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
	avail = need_available(L, &what);
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
	if (!need_fits(2, bytes, free_b)) {
		snprintf(detail, len, "managed region %s > half of the free GPU memory (%s free "
			 "of %s)", b1, lab_fmt_size(free_b, b2, sizeof(b2)),
			 lab_fmt_size(total_b, b3, sizeof(b3)));
		return SKIP_GPU_TOO_SMALL;
	}
	if (!need_fits(2, bytes, avail)) {
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
	unsigned char tag;   /* the value the lab's last GPU touch wrote */
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

/* Wait for everything queued on m's stream. */
static inline void lab_managed_sync(struct lab_managed *m)
{
	CUDA_CHECK(m->L, cudaStreamSynchronize(m->stream));
}

#endif /* DMALAB_LAB_MANAGED_CUDA_H */
