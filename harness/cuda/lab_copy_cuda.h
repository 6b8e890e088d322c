/*
 * lab_copy_cuda.h - timed copies between one host buffer and the GPU: host
 * buffers of a kind, the rig (device buffer, stream, events), a lab's copy
 * sample batched and measured, the copied data verified, the PCIe link.
 * The sample itself, a cudaMemcpyAsync between the rig's two events, is
 * the lab's (lab-02's copy_sample): the copy is what a lab is about.
 * Why batches and pairs: lab_copy.h, the plain-C half.  This half is
 * compiled under nvcc only; include it after lab.h, inside
 * `#if DMALAB_HAVE_CUDA`.  A failing CUDA call is lab_error (exit 99); only
 * the pinning of a host buffer comes back to the lab, which decides.
 */
#ifndef DMALAB_LAB_COPY_CUDA_H
#define DMALAB_LAB_COPY_CUDA_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_copy.h"

#ifdef __CUDACC__
#include <cuda_runtime.h>

#include "buffer.h"
#include "lab_buffers_cuda.h"
#include "lab_cuda.h"

/* ---- Host buffers of a kind ---- */

/* The host side of a copy.  The order is the labs' table order: keep it. */
enum lab_host_kind {
	LAB_HOST_PAGEABLE,   /* buf_map */
	LAB_HOST_PINNED,     /* cudaHostAlloc(cudaHostAllocDefault) */
	LAB_HOST_REGISTERED, /* buf_map, then cudaHostRegister(cudaHostRegisterDefault) */
	LAB_HOST_WC,         /* cudaHostAlloc(cudaHostAllocWriteCombined) */
	LAB_HOST_NKINDS
};

struct lab_host {
	enum lab_host_kind kind;
	void *p;            /* NULL when lab_host_alloc failed */
	uint64_t bytes;
	double pin_s;       /* seconds the cudaHostAlloc or cudaHostRegister took; 0 pageable */
	char why_not[160];  /* after a failure: the call and its error */
};

/* "pageable", "pinned", "registered", "write-combined". */
static inline const char *lab_host_kind_name(enum lab_host_kind kind)
{
	static const char *const names[] = { "pageable", "pinned", "registered",
					     "write-combined" };

	return (unsigned)kind < LAB_HOST_NKINDS ? names[kind] : "?";
}

/*
 * Pins the pageable buffer h holds where it is (cudaHostRegister, timed into
 * h->pin_s).  Returns 0, or -1 when it failed: the memory given back (h->p
 * NULL), the CUDA error cleared, h->why_not naming the call and its error.
 */
static inline int lab_host_register(struct lab *L, struct lab_host *h)
{
	double t0 = lab_now();
	cudaError_t e = lab_cuda_register(h->p, h->bytes);

	if (e != cudaSuccess) {
		cudaGetLastError();
		lab_cuda_free(L, h->p);
		h->p = NULL;
		snprintf(h->why_not, sizeof(h->why_not), "cudaHostRegister(%llu bytes): %s",
			 (unsigned long long)h->bytes, cudaGetErrorName(e));
		return -1;
	}
	h->pin_s = lab_now() - t0;
	h->kind = LAB_HOST_REGISTERED;
	return 0;
}

/*
 * `bytes` of host memory of `kind` into h; pageable and registered memory is
 * buf_map(bytes, align, map_flags) (a failed mapping is lab_error).  Returns
 * 0, or -1 when the pinning failed, as lab_host_register.
 */
static inline int lab_host_alloc(struct lab *L, enum lab_host_kind kind, uint64_t bytes,
				 uint64_t align, unsigned map_flags, struct lab_host *h)
{
	enum lab_buf_kind cuda_kind = kind == LAB_HOST_WC ? LAB_BUF_WC : LAB_BUF_PINNED;
	double t0;
	cudaError_t e;

	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->bytes = bytes;
	if (kind == LAB_HOST_PINNED || kind == LAB_HOST_WC) {
		t0 = lab_now();
		e = lab_cuda_try_alloc(cuda_kind, bytes, &h->p);
		if (e != cudaSuccess) {
			cudaGetLastError();
			snprintf(h->why_not, sizeof(h->why_not),
				 "cudaHostAlloc(%llu bytes, %s): %s",
				 (unsigned long long)bytes, lab_buf_kind_name(cuda_kind),
				 cudaGetErrorName(e));
			return -1;
		}
		h->pin_s = lab_now() - t0;
		return 0;
	}
	h->p = buf_map_or_die(L, bytes, align, map_flags);
	return kind == LAB_HOST_REGISTERED ? lab_host_register(L, h) : 0;
}

/* Gives h back, a registration before the memory under it; NULL p is a no-op. */
static inline void lab_host_free(struct lab *L, struct lab_host *h)
{
	lab_cuda_free(L, h->p);
	h->p = NULL;
}

/* ---- The rig: device buffer, stream, events ---- */

/* lab_copy_rig_open flags (1u was LAB_COPY_CHECK, a pageable check buffer no lab needs now) */
#define LAB_COPY_QUEUE 2u /* lab_copy_rate_sampled: samples of pinned memory queued behind a
			   * spin, the batch's sizing runs their warm-up */

struct lab_copy_rig {
	struct lab *L;
	unsigned flags;           /* lab_copy_rig_open's */
	uint64_t bytes;           /* of dev: the largest copy */
	void *dev;                /* cudaMalloc */
	cudaStream_t stream;      /* non-blocking, idle but for the copies */
	struct cuda_timer timer;
};

/* Device buffer of `bytes`, stream, events. */
static inline void lab_copy_rig_open(struct lab *L, uint64_t bytes, unsigned flags,
				     struct lab_copy_rig *r)
{
	memset(r, 0, sizeof(*r));
	r->L = L;
	r->flags = flags;
	r->bytes = bytes;
	r->dev = lab_cuda_alloc(L, LAB_BUF_DEVICE, bytes);
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
	cuda_timer_init(L, &r->timer);
}

static inline void lab_copy_rig_close(struct lab_copy_rig *r)
{
	cuda_timer_release(&r->timer);
	CUDA_CHECK(r->L, cudaStreamDestroy(r->stream));
	lab_cuda_free(r->L, r->dev);
}

/* ---- Timed copies ---- */

/*
 * The series `name` of the lab's copy sample b, batched then measured (max_samples 0:
 * lab_measure's default) into *rate in GB/s.  On a LAB_COPY_QUEUE rig the
 * batch's sizing is the warm-up, and pinned memory is queued behind a spin
 * (pageable copies are staged by the CPU in the call: a spin would only
 * delay them).  Returns the copies per sample.
 */
static inline int lab_copy_rate_sampled(struct lab_copy_rig *r, const char *name,
					struct lab_copy_batch *b, const void *host,
					uint64_t bytes, int samples, int max_samples,
					struct lab_stats *rate)
{
	int queued = (r->flags & LAB_COPY_QUEUE) != 0, runs;
	struct lab_measure_cfg cfg = { queued ? -1 : 2, samples, 0.10, LAB_CUDA_EVENT_RES_S,
				       max_samples };
	struct lab_stats secs;

	runs = lab_copy_batch_size(b, queued && lab_cuda_host_pinned(host) == 1);
	lab_measure(r->L, name, b->sample, b->ctx, &cfg, &secs);
	if (queued)
		secs.warmup = runs;
	lab_stats_to_rate(&secs, bytes * (uint64_t)b->n, rate);
	return b->n;
}

/* ---- Verification ---- */

/* One word per 4 KiB page: CPU reads of write-combined memory are uncached. */
#define LAB_COPY_WC_STRIDE (4096 / 4)

static inline void lab_copy_sync_(struct lab_copy_rig *r, void *dst, const void *src,
				  uint64_t bytes, enum cudaMemcpyKind kind)
{
	CUDA_CHECK(r->L, cudaMemcpyAsync(dst, src, (size_t)bytes, kind, r->stream));
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->stream));
}

/* One sentence per kind, so that a zh note names the kind in Chinese. */
static inline void lab_copy_say_verified(struct lab *L, enum lab_host_kind kind, const char *sz)
{
	switch (kind) {
	case LAB_HOST_PAGEABLE:
		lab_note(L, MSG("cuda.verified-pageable", "verified: %s of pageable memory, H2D "
			"(counted on the GPU) and D2H"), sz);
		break;
	case LAB_HOST_PINNED:
		lab_note(L, MSG("cuda.verified-pinned", "verified: %s of pinned memory, H2D "
			"(counted on the GPU) and D2H"), sz);
		break;
	case LAB_HOST_REGISTERED:
		lab_note(L, MSG("cuda.verified-register", "verified: %s of registered memory, "
			"H2D (counted on the GPU) and D2H"), sz);
		break;
	default:
		lab_note(L, MSG("cuda.verified-wc", "verified: %s of write-combined memory, H2D "
			"(counted on the GPU) and D2H (read back one word per 4 KiB page)"), sz);
		break;
	}
}

/*
 * Checks h as a source and a destination: pattern `seed` copied H2D into the
 * zeroed device buffer and counted there (lab_gpu_verify: no D2H and CPU
 * pass, a third of the time for 1 GiB); then seed + 1 written on the GPU,
 * copied D2H and compared on the CPU.  h holds `seed` until the D2H lands,
 * so a copy that did not happen cannot pass.  A mismatch is lab_error.
 */
static inline void lab_copy_verify(struct lab_copy_rig *r, const struct lab_host *h,
				   uint32_t seed)
{
	struct lab *L = r->L;
	uint64_t n = h->bytes;
	uint64_t stride = h->kind == LAB_HOST_WC ? LAB_COPY_WC_STRIDE : 1; /* words */
	const char *what = lab_host_kind_name(h->kind);
	char sz[32], check[96];
	struct buf_check c;

	if (n > r->bytes)
		lab_error(L, "BUG: lab_copy_verify: %llu bytes > the rig's %llu",
			  (unsigned long long)n, (unsigned long long)r->bytes);
	lab_progress(L, MSG("cuda.say-1",
		"%s: verifying %s"), what, lab_fmt_size(n, sz, sizeof(sz)));
	buf_fill(h->p, n, seed);
	CUDA_CHECK(L, cudaMemsetAsync(r->dev, 0, (size_t)n, r->stream));
	lab_copy_sync_(r, r->dev, h->p, n, cudaMemcpyHostToDevice);
	snprintf(check, sizeof(check), "H2D from %s memory", what);
	lab_gpu_verify(L, r->stream, r->dev, n, seed, check);
	CUDA_CHECK(L, lab_gpu_fill(r->dev, n, seed + 1)); /* waits for the whole device */
	lab_copy_sync_(r, h->p, r->dev, n, cudaMemcpyDeviceToHost);
	if (buf_verify(h->p, n, seed + 1, stride, &c))
		lab_error(L, "D2H into %s memory: %llu of the %llu words read differ, the first "
			  "at byte offset %llu of %llu", what, (unsigned long long)c.bad,
			  (unsigned long long)c.words, (unsigned long long)c.first_bad,
			  (unsigned long long)n);
	lab_copy_say_verified(L, h->kind, sz);
}

/* ---- The link ---- */

/* The link of CUDA device dev, by its bus id in gpu_topo's scan; recorded. */
static inline void lab_copy_link_probe(struct lab *L, int dev, struct lab_copy_link *k)
{
	struct gpu_topo *t = (struct gpu_topo *)calloc(1, sizeof(*t));
	char raw[64], bdf[GPU_BDF_LEN];

	if (!t)
		lab_error(L, "out of memory for the GPU list");
	CUDA_CHECK(L, cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), dev));
	if (pci_bdf_normalise(raw, bdf, sizeof(bdf)) < 0)
		lab_error(L, "cudaDeviceGetPCIBusId gave '%s', not a PCI address", raw);
	gpu_topo_scan("/sys", GPU_TOPO_CUDA | GPU_TOPO_NVML, t);
	lab_copy_link_find(t, bdf, k);
	free(t);
	lab_copy_link_report(L, k);
}

#endif /* __CUDACC__ */
#endif /* DMALAB_LAB_COPY_CUDA_H */
