/*
 * lab-02: pinned vs pageable copies.
 *
 * How much faster does a host<->GPU copy run when the host buffer is pinned,
 * does a pinned copy fill the PCIe link, and when is pinning worth its cost?
 *
 * The sweep copies 4 KiB .. --size (default 1 GiB, --quick 64 MiB) by powers
 * of two, H2D and D2H, from four kinds of host buffer: pageable malloc
 * (touched first), cudaHostAlloc, malloc + cudaHostRegister, and
 * write-combined cudaHostAlloc.  Each point is the median of --iters copies
 * timed with CUDA events on one stream after two warm-up copies.  The data of
 * each kind is verified once at the largest size.  A single-thread host
 * memcpy gives the CPU copy rate, which bounds pageable copies: the driver
 * copies pageable data through its own pinned staging buffer with the CPU.
 *
 * Link facts come from sysinfo (NVML or sysfs), matched to this CUDA device
 * by PCI bus id.
 *
 * This file is C and C++ at once: nvcc builds it as C++17, and without nvcc
 * gcc builds it as C with DMALAB_HAVE_CUDA=0 (every claim then skips).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"

static const struct claim_spec claims[] = {
	{ "02.1", "ch1.Q2", "pinned H2D is faster than pageable H2D (ratio >= 1.3 at >= 64 MiB)",
	  "the pinned and pageable buffers are swapped, so the \"pinned\" copy is the "
	  "staged one and the ratio falls well below 1" },
	{ "02.2", "ch2.S2", "pinned H2D is about twice pageable H2D (chapter: 12 vs 6 GB/s)",
	  "the pinned and pageable buffers are swapped, so the ratio falls well "
	  "below 1, far outside 2 +- 25 %" },
	{ "02.3", "ch1.table", "pinned H2D reaches >= 80 % of the PCIe link's theoretical rate",
	  "the \"pinned\" buffer is pageable, so the copy runs at the CPU's staging "
	  "rate, far below the link" },
	{ "02.4", "ch1.table", "16 GB over this link takes the chapter's time for its "
	  "generation (Gen4 x16 640 ms, Gen5 x16 320 ms) within 25 %",
	  "the \"pinned\" buffer is pageable, so 16 GB takes several times the "
	  "chapter's figure" },
	{ "02.5", "ch2.S6", "a cudaHostRegister'd buffer copies at pinned speed (within 10 %)",
	  "the registered buffer stays registered but the \"pinned\" one it is compared "
	  "with is pageable, so the two medians part by far more than 10 %" },
	{ "02.6", "ch2.S9", "for a one-off 1 MiB H2D transfer, pinning first "
	  "(register, copy, unregister) costs more than a pageable copy",
	  "the registration is done once outside the timing, so only a pinned copy "
	  "is timed, and it beats the pageable one" },
	{ NULL, NULL, NULL, NULL }
};

static int check_opts(const struct lab *L);

static const struct lab_spec spec = {
	.id = "02",
	.title = "pinned vs pageable copies",
	.topic = "how much faster pinned host memory copies to and from the GPU than "
		 "pageable memory, whether it fills the PCIe link, and when pinning pays",
	.timeout_s = 120,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = NULL,
	.role = NULL,
	.default_size = 1 * GiB,
	.default_iters = 7,
	.check_opts = check_opts,
};

#define MIN_LARGEST_BYTES (64 * MiB)   /* 02.1 is about copies of 64 MiB and more */

/* spec.check_opts: --size before anything is printed (any build). */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	char sz[32];

	if (!o->size_given || o->size >= MIN_LARGEST_BYTES)
		return 0;
	fprintf(stderr, "lab-02: --size '%s': too small: need at least 64 MiB, as the "
		"claims compare copies of 64 MiB and more (see --help)\n",
		lab_size_arg(o->size, sz, sizeof(sz)));
	return 2;
}

#if DMALAB_HAVE_CUDA
#include "lab_cuda.h"
#include "sysinfo.h"

#define SWEEP_FIRST_BYTES (4 * KiB)
#define QUICK_LARGEST_BYTES (64 * MiB)
#define MAX_POINTS 48
#define GPU_SPARE_BYTES (256 * MiB)    /* left free on the GPU beside our buffer */
#define STABLE_CV 0.02                 /* the pinned H2D figure must be this steady */
#define STABLE_SAMPLES 21
#define CHAPTER_BYTES 16e9             /* the chapter's "16 GB of weights" */
#define ONEOFF_CLAIM_BYTES (1 * MiB)   /* the small one-off transfer of 02.6 */
#define ONEOFF_BATCH 8                 /* one-off transfers per timed sample */
#define ONEOFF_CV_MAX 0.15
#define PAGE_BYTES 4096

enum host_kind { HOST_PAGEABLE, HOST_PINNED, HOST_REGISTERED, HOST_WC, HOST_NKINDS };
enum copy_dir { DIR_H2D, DIR_D2H, DIR_N };
/* How a host buffer was obtained, hence how it is given back. */
enum host_how { HOW_MALLOC, HOW_REGISTERED, HOW_CUDA_HOST };

static const char *const kind_name[HOST_NKINDS] = {
	"pageable", "pinned", "registered", "write-combined"
};
static const char *const series_name[HOST_NKINDS][DIR_N] = {
	{ "h2d_pageable", "d2h_pageable" },
	{ "h2d_pinned", "d2h_pinned" },
	{ "h2d_registered", "d2h_registered" },
	{ "h2d_wc", "d2h_wc" },
};
static const char *const fact_name[HOST_NKINDS][DIR_N] = {
	{ "h2d_pageable_gbs", "d2h_pageable_gbs" },
	{ "h2d_pinned_gbs", "d2h_pinned_gbs" },
	{ "h2d_registered_gbs", "d2h_registered_gbs" },
	{ "h2d_wc_gbs", "d2h_wc_gbs" },
};

struct host_buf {
	enum host_kind kind;
	enum host_how how;
	void *p;
	size_t bytes;
};

struct pcie_link {
	int known;                  /* theo_gbs is usable */
	int gen_cur, width_cur;     /* now: may be down-trained at idle */
	int gen_max, width_max;     /* what device and slot support */
	double theo_gbs;            /* one direction, after line encoding */
	char bdf[32];               /* this CUDA device, normalised */
	char seen[200];             /* what was found, for a skip's detail */
};

struct bench {
	struct lab *L;
	size_t largest;             /* bytes, the last sweep point */
	size_t sizes[MAX_POINTS];   /* bytes */
	int npoints;
	int iters;
	void *dev;                  /* device buffer of `largest` bytes */
	void *check;                /* pageable buffer the verification reads back into */
	cudaStream_t stream;
	struct cuda_timer timer;
	int have[HOST_NKINDS];      /* 1 when the kind was swept */
	char why_not[HOST_NKINDS][160];
	double median[HOST_NKINDS][DIR_N][MAX_POINTS]; /* GB/s, for the table */
	struct lab_stats top[HOST_NKINDS][DIR_N];      /* GB/s at `largest` */
	struct lab_stats memcpy_rate;                  /* GB/s */
	struct lab_stats oneoff_page, oneoff_pin;      /* us per transfer */
	struct pcie_link link;
};

/* ------------------------------------------------------------------------ */
/* Plan and preconditions                                                    */

static void plan_init(struct lab *L, struct bench *b)
{
	const struct lab_opts *o = lab_options(L);
	uint64_t largest = o->size;
	size_t s;

	/* check_opts has refused a --size under MIN_LARGEST_BYTES */
	if (o->quick && !o->size_given)
		largest = QUICK_LARGEST_BYTES;
	b->largest = (size_t)largest;
	b->iters = o->iters;
	for (s = SWEEP_FIRST_BYTES; s < b->largest && b->npoints < MAX_POINTS - 1; s *= 2)
		b->sizes[b->npoints++] = s;
	b->sizes[b->npoints++] = b->largest;
}

/* Skips the lab when the GPU or the host cannot hold the buffers. */
static void require_memory(struct lab *L, size_t largest)
{
	size_t free_b = 0, total_b = 0;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double host = (double)pages * (double)page;
	char a[32], c[32];

	CUDA_CHECK(L, cudaMemGetInfo(&free_b, &total_b));
	if (free_b < largest + GPU_SPARE_BYTES)
		lab_skip(L, SKIP_GPU_TOO_SMALL, "%s free on the GPU, need %s + 256 MiB",
			 lab_fmt_size(free_b, a, sizeof(a)), lab_fmt_size(largest, c, sizeof(c)));
	/* two host buffers of `largest` live at once; leave half the RAM */
	if (pages > 0 && page > 0 && host < 4.0 * (double)largest)
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "%s of RAM, need 4 x %s",
			 lab_fmt_size((uint64_t)host, a, sizeof(a)),
			 lab_fmt_size(largest, c, sizeof(c)));
}

/* ------------------------------------------------------------------------ */
/* The PCIe link of this device                                              */

static void link_from_gpu(struct pcie_link *k, const struct gpu_info *g)
{
	k->gen_cur = g->pcie_gen_cur;
	k->width_cur = g->pcie_width_cur;
	k->gen_max = g->pcie_gen_max;
	k->width_max = g->pcie_width_max;
	/* the current link can be down-trained while idle: judge by the max */
	k->theo_gbs = pcie_rate_gbs(k->gen_max, k->width_max);
	k->known = k->theo_gbs > 0;
	snprintf(k->seen, sizeof(k->seen),
		 "%s (%s): max gen %d width %d, now gen %d width %d (<= 0: unknown)",
		 k->bdf, g->name, k->gen_max, k->width_max, k->gen_cur, k->width_cur);
}

static void link_report(struct lab *L, const struct pcie_link *k)
{
	lab_fact_str(L, "gpu_pci_bus_id", k->bdf);
	lab_fact_num(L, "pcie_gen_max", k->gen_max, "");
	lab_fact_num(L, "pcie_width_max", k->width_max, "lanes");
	lab_fact_num(L, "pcie_gen_cur", k->gen_cur, "");
	lab_fact_num(L, "pcie_width_cur", k->width_cur, "lanes");
	if (!k->known) {
		lab_note(L, "PCIe link unknown: %s", k->seen);
		return;
	}
	lab_fact_num(L, "pcie_theoretical_gbs", k->theo_gbs, "GB/s");
	lab_note(L, "PCIe link: Gen%d x%d, %.1f GB/s per direction in theory "
		 "(now Gen%d x%d)", k->gen_max, k->width_max, k->theo_gbs,
		 k->gen_cur, k->width_cur);
}

static void link_probe(struct lab *L, int dev, struct pcie_link *k)
{
	struct sysinfo *si = (struct sysinfo *)calloc(1, sizeof(*si));
	char raw[64], bdf[32];
	int i;

	if (!si)
		lab_error(L, "out of memory for the machine facts");
	CUDA_CHECK(L, cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), dev));
	if (pci_bdf_normalise(raw, k->bdf, sizeof(k->bdf)) < 0)
		lab_error(L, "cudaDeviceGetPCIBusId gave '%s', not a PCI address", raw);
	sysinfo_collect(si);
	k->gen_cur = k->width_cur = k->gen_max = k->width_max = -1;
	snprintf(k->seen, sizeof(k->seen), "no GPU with PCI bus id %s among the %d "
		 "that NVML and sysfs list", k->bdf, si->ngpus);
	for (i = 0; i < si->ngpus && i < SYSINFO_MAX_GPUS; i++) {
		if (pci_bdf_normalise(si->gpu[i].bdf, bdf, sizeof(bdf)) == 0 &&
		    strcmp(bdf, k->bdf) == 0) {
			link_from_gpu(k, &si->gpu[i]);
			break;
		}
	}
	free(si);
	link_report(L, k);
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                   */

/* Page-aligned malloc memory, every page written so none faults later. */
static void *page_alloc(struct lab *L, size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, PAGE_BYTES, bytes) != 0)
		lab_error(L, "posix_memalign of %zu bytes failed", bytes);
	memset(p, 0, bytes);
	return p;
}

/* cudaHostAlloc with flags; 0, or -1 with b->why_not set. */
static int host_alloc_cuda(struct bench *b, struct host_buf *hb, unsigned int flags,
			   const char *fact)
{
	double t0 = lab_now();
	cudaError_t e = cudaHostAlloc(&hb->p, hb->bytes, flags);

	if (e != cudaSuccess) {
		cudaGetLastError();
		hb->p = NULL;
		snprintf(b->why_not[hb->kind], sizeof(b->why_not[0]),
			 "cudaHostAlloc(%zu, %#x): %s", hb->bytes, flags, cudaGetErrorName(e));
		return -1;
	}
	lab_fact_num(b->L, fact, lab_now() - t0, "s");
	hb->how = HOW_CUDA_HOST;
	return 0;
}

/* malloc + touch + cudaHostRegister; 0, or -1 with b->why_not set. */
static int host_alloc_registered(struct bench *b, struct host_buf *hb)
{
	double t0;
	cudaError_t e;

	hb->p = page_alloc(b->L, hb->bytes);
	t0 = lab_now();
	e = cudaHostRegister(hb->p, hb->bytes, cudaHostRegisterDefault);
	if (e != cudaSuccess) {
		cudaGetLastError();
		free(hb->p);
		hb->p = NULL;
		snprintf(b->why_not[hb->kind], sizeof(b->why_not[0]),
			 "cudaHostRegister(%zu bytes): %s", hb->bytes, cudaGetErrorName(e));
		return -1;
	}
	lab_fact_num(b->L, "host_register_s", lab_now() - t0, "s");
	hb->how = HOW_REGISTERED;
	return 0;
}

/* A host buffer of `largest` bytes of the given kind; 0, or -1 (why_not). */
static int host_buf_alloc(struct bench *b, enum host_kind kind, struct host_buf *hb)
{
	hb->kind = kind;
	hb->how = HOW_MALLOC;
	hb->bytes = b->largest;
	hb->p = NULL;
	/*
	 * Swapping both kinds keeps the sabotage decisive: two pageable
	 * series would be compared at the mercy of the staging path's noise.
	 */
	if (LAB_SABOTAGED && kind == HOST_PINNED)
		kind = HOST_PAGEABLE;
	else if (LAB_SABOTAGED && kind == HOST_PAGEABLE)
		kind = HOST_PINNED;
	switch (kind) {
	case HOST_PINNED:
		if (host_alloc_cuda(b, hb, cudaHostAllocDefault, "host_alloc_s") < 0)
			lab_error(b->L, "%s", b->why_not[HOST_PINNED]);
		return 0;
	case HOST_REGISTERED:
		return host_alloc_registered(b, hb);
	case HOST_WC:
		return host_alloc_cuda(b, hb, cudaHostAllocWriteCombined, "host_alloc_wc_s");
	default:
		hb->p = page_alloc(b->L, hb->bytes);
		return 0;
	}
}

static void host_buf_free(struct lab *L, struct host_buf *hb)
{
	if (!hb->p)
		return;
	if (hb->how == HOW_CUDA_HOST) {
		CUDA_CHECK(L, cudaFreeHost(hb->p));
	} else {
		if (hb->how == HOW_REGISTERED)
			CUDA_CHECK(L, cudaHostUnregister(hb->p));
		free(hb->p);
	}
	hb->p = NULL;
}

static void bench_setup(struct lab *L, struct bench *b)
{
	CUDA_CHECK(L, cudaMalloc(&b->dev, b->largest));
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
	cuda_timer_init(L, &b->timer);
	b->check = page_alloc(L, b->largest);
}

static void bench_teardown(struct lab *L, struct bench *b)
{
	cuda_timer_release(&b->timer);
	CUDA_CHECK(L, cudaStreamDestroy(b->stream));
	CUDA_CHECK(L, cudaFree(b->dev));
	free(b->check);
}

/* ------------------------------------------------------------------------ */
/* Timed copies                                                              */

struct copy_job {
	struct lab *L;
	void *dst;
	const void *src;
	size_t bytes;
	enum cudaMemcpyKind dir;
	cudaStream_t stream;
	struct cuda_timer *timer;
};

/*
 * One copy between events on an idle stream, in seconds.  For a pageable
 * H2D copy the call itself stages the data with the CPU; the start event has
 * already fired by then, so the staging is inside the timing, as it should be.
 */
static double time_copy(void *arg)
{
	struct copy_job *j = (struct copy_job *)arg;

	CUDA_CHECK(j->L, cudaEventRecord(j->timer->start, j->stream));
	CUDA_CHECK(j->L, cudaMemcpyAsync(j->dst, j->src, j->bytes, j->dir, j->stream));
	CUDA_CHECK(j->L, cudaEventRecord(j->timer->stop, j->stream));
	CUDA_CHECK(j->L, cudaStreamSynchronize(j->stream));
	return cuda_timer_seconds(j->L, j->timer);
}

/* Median-of-samples rate (GB/s) of one copy direction and size. */
static void measure_point(struct bench *b, const struct host_buf *hb, int d,
			  size_t bytes, int samples, struct lab_stats *rate)
{
	struct lab_measure_cfg cfg = { 2, samples, 0.10 };
	struct lab_stats secs;
	struct copy_job j;

	j.L = b->L;
	j.bytes = bytes;
	j.stream = b->stream;
	j.timer = &b->timer;
	if (d == DIR_H2D) {
		j.dst = b->dev;
		j.src = hb->p;
		j.dir = cudaMemcpyHostToDevice;
	} else {
		j.dst = hb->p;
		j.src = b->dev;
		j.dir = cudaMemcpyDeviceToHost;
	}
	lab_measure(b->L, series_name[hb->kind][d], time_copy, &j, &cfg, &secs);
	lab_stats_to_rate(&secs, bytes, rate);
}

/* The figure every link claim rests on gets more samples than the rest. */
static int samples_for(const struct bench *b, enum host_kind kind, int d, size_t bytes)
{
	if (kind == HOST_PINNED && d == DIR_H2D && bytes == b->largest)
		return b->iters > STABLE_SAMPLES ? b->iters : STABLE_SAMPLES;
	return b->iters;
}

static void sweep_kind(struct bench *b, const struct host_buf *hb)
{
	struct lab_stats rate;
	char sz[32];
	int i, d;

	for (i = 0; i < b->npoints; i++) {
		size_t bytes = b->sizes[i];

		lab_progress(b->L, "%s: %s", kind_name[hb->kind],
			     lab_fmt_size(bytes, sz, sizeof(sz)));
		for (d = 0; d < DIR_N; d++) {
			measure_point(b, hb, d, bytes, samples_for(b, hb->kind, d, bytes), &rate);
			lab_series_point(b->L, series_name[hb->kind][d], "bytes",
					 (double)bytes, &rate);
			b->median[hb->kind][d][i] = rate.median;
			if (i == b->npoints - 1)
				b->top[hb->kind][d] = rate;
		}
	}
}

/*
 * The pinned H2D figure at the largest size must be steady (CV <= 2 %): if
 * it is not, measure once more and keep the steadier series; say so if it
 * still is not.
 */
static void check_stability(struct bench *b, const struct host_buf *hb)
{
	struct lab_stats *top = &b->top[HOST_PINNED][DIR_H2D];
	struct lab_stats again;

	if (top->cv > STABLE_CV) {
		lab_note(b->L, "h2d_pinned at the largest size: CV %.2f %% > %.0f %%, "
			 "measuring once more", top->cv * 100, STABLE_CV * 100);
		measure_point(b, hb, DIR_H2D, b->largest,
			      samples_for(b, HOST_PINNED, DIR_H2D, b->largest), &again);
		if (again.cv < top->cv)
			*top = again;
	}
	lab_fact_num(b->L, "h2d_pinned_cv", top->cv, "");
	if (top->cv > STABLE_CV)
		lab_note(b->L, "warning: h2d_pinned at the largest size is not steady: "
			 "CV %.2f %% > %.0f %%", top->cv * 100, STABLE_CV * 100);
}

/* ------------------------------------------------------------------------ */
/* Host memcpy: the ceiling of a pageable copy                               */

struct memcpy_job {
	void *dst;
	const void *src;
	size_t bytes;
};

static double time_memcpy(void *arg)
{
	struct memcpy_job *j = (struct memcpy_job *)arg;
	double t0 = lab_now(), t;

	memcpy(j->dst, j->src, j->bytes);
	t = lab_now() - t0;
	lab_sink(((const unsigned char *)j->dst)[j->bytes - 1]);
	return t;
}

static void measure_host_memcpy(struct bench *b, const struct host_buf *src)
{
	struct lab_measure_cfg cfg = { 2, b->iters, 0.10 };
	struct memcpy_job j;
	struct lab_stats secs;

	j.dst = b->check;
	j.src = src->p;
	j.bytes = b->largest;
	lab_progress(b->L, "host memcpy, one thread");
	lab_measure(b->L, "host_memcpy", time_memcpy, &j, &cfg, &secs);
	lab_stats_to_rate(&secs, b->largest, &b->memcpy_rate);
	lab_series_point(b->L, "host_memcpy", "bytes", (double)b->largest, &b->memcpy_rate);
	lab_fact_num(b->L, "host_memcpy_gbs", b->memcpy_rate.median, "GB/s");
}

/* ------------------------------------------------------------------------ */
/* Verification                                                              */

static uint64_t pattern_word(uint64_t seed, size_t i)
{
	return ((uint64_t)(i + 1) * 0x9e3779b97f4a7c15ULL) ^ seed;
}

static void pattern_fill(void *buf, size_t bytes, uint64_t seed)
{
	uint64_t *w = (uint64_t *)buf;
	size_t i, n = bytes / 8;
	uint64_t last;

	for (i = 0; i < n; i++)
		w[i] = pattern_word(seed, i);
	last = pattern_word(seed, n);
	memcpy((char *)buf + n * 8, &last, bytes % 8);
}

/* Byte offset of the first byte of word i (len bytes) that differs, or SIZE_MAX. */
static size_t word_mismatch(const unsigned char *p, size_t i, size_t len, uint64_t seed)
{
	uint64_t w = pattern_word(seed, i);
	unsigned char want[8];
	size_t k;

	memcpy(want, &w, sizeof(want));
	for (k = 0; k < len; k++)
		if (p[i * 8 + k] != want[k])
			return i * 8 + k;
	return SIZE_MAX;
}

/*
 * Byte offset of the first byte that differs from the pattern, or SIZE_MAX.
 * With stride > 1 only every stride-th word, the last word and the tail are
 * read.
 */
static size_t pattern_mismatch(const void *buf, size_t bytes, uint64_t seed, size_t stride)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i, bad, n = bytes / 8;

	for (i = 0; i < n; i += stride)
		if ((bad = word_mismatch(p, i, 8, seed)) != SIZE_MAX)
			return bad;
	if (stride > 1 && n > 0 && (bad = word_mismatch(p, n - 1, 8, seed)) != SIZE_MAX)
		return bad;
	return word_mismatch(p, n, bytes % 8, seed);
}

static void copy_sync(struct bench *b, void *dst, const void *src, enum cudaMemcpyKind dir)
{
	CUDA_CHECK(b->L, cudaMemcpyAsync(dst, src, b->largest, dir, b->stream));
	CUDA_CHECK(b->L, cudaStreamSynchronize(b->stream));
}

/*
 * H2D from the buffer into a zeroed device buffer, D2H into the pageable
 * check buffer: checks the kind as a source.  Then clear the buffer and copy
 * D2H into it: checks the kind as a destination.  CPU reads of write-
 * combined memory are uncached and very slow, so there one word per page is
 * read back.
 */
static void verify_kind(struct bench *b, const struct host_buf *hb)
{
	struct lab *L = b->L;
	size_t n = b->largest, bad;
	size_t stride = hb->kind == HOST_WC ? PAGE_BYTES / 8 : 1;
	/* a different pattern per kind: stale data of the last kind cannot pass */
	uint64_t seed = lab_options(L)->seed ^ ((uint64_t)(hb->kind + 1) << 56);
	char sz[32];

	lab_progress(L, "%s: verifying %s", kind_name[hb->kind], lab_fmt_size(n, sz, sizeof(sz)));
	pattern_fill(hb->p, n, seed);
	CUDA_CHECK(L, cudaMemsetAsync(b->dev, 0, n, b->stream));
	copy_sync(b, b->dev, hb->p, cudaMemcpyHostToDevice);
	copy_sync(b, b->check, b->dev, cudaMemcpyDeviceToHost);
	bad = pattern_mismatch(b->check, n, seed, 1);
	if (bad != SIZE_MAX)
		lab_error(L, "H2D from %s memory: the data differs at byte offset %zu of %zu",
			  kind_name[hb->kind], bad, n);
	memset(hb->p, 0, n);
	copy_sync(b, hb->p, b->dev, cudaMemcpyDeviceToHost);
	bad = pattern_mismatch(hb->p, n, seed, stride);
	if (bad != SIZE_MAX)
		lab_error(L, "D2H into %s memory: the data differs at byte offset %zu of %zu",
			  kind_name[hb->kind], bad, n);
	lab_note(L, "verified: %s of %s memory, H2D and D2H%s", sz, kind_name[hb->kind],
		 stride > 1 ? " (D2H read back one word per 4 KiB page)" : "");
}

/* ------------------------------------------------------------------------ */
/* The sweep of one host-memory kind                                         */

static void run_kind(struct bench *b, enum host_kind kind)
{
	struct host_buf hb;

	if (host_buf_alloc(b, kind, &hb) < 0) {
		lab_note(b->L, "no %s series: %s", kind_name[kind], b->why_not[kind]);
		return;
	}
	sweep_kind(b, &hb);
	if (kind == HOST_PINNED)
		check_stability(b, &hb);
	if (kind == HOST_PAGEABLE)
		measure_host_memcpy(b, &hb);
	verify_kind(b, &hb);
	host_buf_free(b->L, &hb);
	b->have[kind] = 1;
}

/* ------------------------------------------------------------------------ */
/* One-off transfers: pin first, or copy pageable (02.6)                     */

struct oneoff_job {
	struct lab *L;
	void *host;
	void *dev;
	size_t bytes;
	cudaStream_t stream;
	int pin_first;  /* register, copy, unregister */
};

/*
 * ONEOFF_BATCH one-off transfers, seconds for all of them.  Each is complete
 * on its own (the pages are pinned and unpinned every time); the batch only
 * averages out the scheduler's jitter on these short host-side timings.
 */
static double time_oneoff(void *arg)
{
	struct oneoff_job *j = (struct oneoff_job *)arg;
	double t0 = lab_now();
	int pin = j->pin_first && !LAB_SABOTAGED;
	int i;

	for (i = 0; i < ONEOFF_BATCH; i++) {
		if (pin)
			CUDA_CHECK(j->L, cudaHostRegister(j->host, j->bytes,
							  cudaHostRegisterDefault));
		CUDA_CHECK(j->L, cudaMemcpyAsync(j->dev, j->host, j->bytes,
						 cudaMemcpyHostToDevice, j->stream));
		CUDA_CHECK(j->L, cudaStreamSynchronize(j->stream));
		if (pin)
			CUDA_CHECK(j->L, cudaHostUnregister(j->host));
	}
	return lab_now() - t0;
}

/* Microseconds per one-off transfer of `bytes`, pinned first or pageable. */
static void measure_oneoff(struct bench *b, void *host, size_t bytes, int pin_first,
			   struct lab_stats *us)
{
	/* host-side timings of a few hundred us carry scheduler jitter, and the
	 * claim asks which is larger, not by how many percent */
	struct lab_measure_cfg cfg = { 2, b->iters, ONEOFF_CV_MAX };
	struct oneoff_job j;

	j.L = b->L;
	j.host = host;
	j.dev = b->dev;
	j.bytes = bytes;
	j.stream = b->stream;
	j.pin_first = pin_first;
	/* the sabotage build pins once, outside the timing */
	if (pin_first && LAB_SABOTAGED)
		CUDA_CHECK(b->L, cudaHostRegister(host, bytes, cudaHostRegisterDefault));
	lab_measure(b->L, pin_first ? "oneoff_pin_then_copy" : "oneoff_pageable",
		    time_oneoff, &j, &cfg, us);
	if (pin_first && LAB_SABOTAGED)
		CUDA_CHECK(b->L, cudaHostUnregister(host));
	lab_stats_scale(us, 1e6 / ONEOFF_BATCH, "us");
}

/* 64 KiB .. 16 MiB for the plot; the claim is decided at 1 MiB. */
static void measure_oneoffs(struct bench *b)
{
	static const size_t sizes[] = { 64 * KiB, 1 * MiB, 16 * MiB };
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	void *host = page_alloc(b->L, sizes[nsizes - 1]);
	struct lab_stats page, pin;
	size_t i;

	for (i = 0; i < nsizes; i++) {
		lab_progress(b->L, "one-off transfers of %zu KiB", (size_t)(sizes[i] / KiB));
		measure_oneoff(b, host, sizes[i], 0, &page);
		measure_oneoff(b, host, sizes[i], 1, &pin);
		lab_series_point(b->L, "oneoff_pageable", "bytes", (double)sizes[i], &page);
		lab_series_point(b->L, "oneoff_pin_then_copy", "bytes", (double)sizes[i], &pin);
		if (sizes[i] == ONEOFF_CLAIM_BYTES) {
			b->oneoff_page = page;
			b->oneoff_pin = pin;
		}
	}
	free(host);
}

/* ------------------------------------------------------------------------ */
/* Report and claims                                                         */

static void print_table(struct bench *b)
{
	char sz[32];
	int i, k, d;

	lab_note(b->L, "median GB/s   H2D: pageable pinned registered wc   "
		 "D2H: pageable pinned registered wc");
	for (i = 0; i < b->npoints; i++) {
		char line[256];
		int len = snprintf(line, sizeof(line), "%9s  ",
				   lab_fmt_size(b->sizes[i], sz, sizeof(sz)));

		for (d = 0; d < DIR_N; d++) {
			len += snprintf(line + len, sizeof(line) - len, "  ");
			for (k = 0; k < HOST_NKINDS; k++)
				len += b->have[k] ?
					snprintf(line + len, sizeof(line) - len, " %7.2f",
						 b->median[k][d][i]) :
					snprintf(line + len, sizeof(line) - len, "       -");
		}
		lab_note(b->L, "%s", line);
	}
}

static void report_facts(struct bench *b)
{
	const struct lab_stats *pin = &b->top[HOST_PINNED][DIR_H2D];
	const struct lab_stats *page = &b->top[HOST_PAGEABLE][DIR_H2D];
	int k, d;

	lab_fact_num(b->L, "largest_bytes", (double)b->largest, "bytes");
	for (k = 0; k < HOST_NKINDS; k++)
		for (d = 0; d < DIR_N && b->have[k]; d++)
			lab_fact_num(b->L, fact_name[k][d], b->top[k][d].median, "GB/s");
	if (b->link.known)
		lab_fact_num(b->L, "h2d_pinned_pct_of_link", 100 * pin->median / b->link.theo_gbs, "%");
	lab_note(b->L, "pageable H2D runs at %.0f %% of one thread's memcpy (%.1f GB/s): "
		 "the CPU staging copy is its ceiling",
		 100 * page->median / b->memcpy_rate.median, b->memcpy_rate.median);
}

static void decide_ratio_claims(struct bench *b)
{
	const struct lab_stats *pin = &b->top[HOST_PINNED][DIR_H2D];
	const struct lab_stats *page = &b->top[HOST_PAGEABLE][DIR_H2D];
	char sz[32];

	lab_fmt_size(b->largest, sz, sizeof(sz));
	claim_note(b->L, "H2D of %s: pinned %.1f GB/s, pageable %.1f GB/s", sz,
		   pin->median, page->median);
	claim_ratio_ge(b->L, "02.1", pin, page, 1.3);

	claim_stats(b->L, pin);
	claim_stats(b->L, page);
	claim_note(b->L, "chapter: 12 vs 6 GB/s on Gen4; here %.1f vs %.1f GB/s at %s",
		   pin->median, page->median, sz);
	claim_near(b->L, "02.2", pin->median / page->median, 2.0, 0, 0.25, "x");
}

static void decide_link_claims(struct bench *b)
{
	const struct lab_stats *pin = &b->top[HOST_PINNED][DIR_H2D];
	const struct pcie_link *k = &b->link;
	double want_ms;

	if (!k->known) {
		claim_skip(b->L, "02.3", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		claim_skip(b->L, "02.4", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		return;
	}
	claim_stats(b->L, pin);
	claim_note(b->L, "%.1f of %.1f GB/s (Gen%d x%d)", pin->median, k->theo_gbs,
		   k->gen_max, k->width_max);
	claim_ge(b->L, "02.3", 100 * pin->median / k->theo_gbs, 80, "%");

	if (k->width_max != 16 || (k->gen_max != 4 && k->gen_max != 5)) {
		claim_skip(b->L, "02.4", SKIP_UNSUPPORTED, "the chapter gives no figure "
			   "for Gen%d x%d", k->gen_max, k->width_max);
		return;
	}
	want_ms = k->gen_max == 4 ? 640 : 320;
	claim_stats(b->L, pin);
	claim_note(b->L, "16e9 bytes at %.1f GB/s (Gen%d x16)", pin->median, k->gen_max);
	claim_near(b->L, "02.4", CHAPTER_BYTES / (pin->median * 1e9) * 1e3, want_ms,
		   0, 0.25, "ms");
}

static void decide_pinning_claims(struct bench *b)
{
	const struct lab_stats *pin = &b->top[HOST_PINNED][DIR_H2D];
	const struct lab_stats *reg = &b->top[HOST_REGISTERED][DIR_H2D];

	if (!b->have[HOST_REGISTERED]) {
		claim_skip(b->L, "02.5", SKIP_UNSUPPORTED, "%s", b->why_not[HOST_REGISTERED]);
		claim_skip(b->L, "02.6", SKIP_UNSUPPORTED, "%s", b->why_not[HOST_REGISTERED]);
		return;
	}
	claim_stats(b->L, reg);
	claim_stats(b->L, pin);
	claim_note(b->L, "H2D: registered %.1f GB/s, cudaHostAlloc %.1f GB/s",
		   reg->median, pin->median);
	claim_near(b->L, "02.5", reg->median, pin->median, 0, 0.10, "GB/s");

	claim_stats(b->L, &b->oneoff_pin);
	claim_stats(b->L, &b->oneoff_page);
	claim_note(b->L, "1 MiB once: register+copy+unregister %.0f us, pageable copy %.0f us",
		   b->oneoff_pin.median, b->oneoff_page.median);
	claim_gt(b->L, "02.6", b->oneoff_pin.median / b->oneoff_page.median, 1.0, "x");
}

static void run(struct lab *L)
{
	struct bench *b = (struct bench *)calloc(1, sizeof(*b));
	int k;

	if (!b)
		lab_error(L, "out of memory");
	b->L = L;
	plan_init(L, b);
	lab_cuda_require(L, 1);
	require_memory(L, b->largest);
	link_probe(L, lab_options(L)->device, &b->link);
	bench_setup(L, b);
	for (k = 0; k < HOST_NKINDS; k++)
		run_kind(b, (enum host_kind)k);
	if (b->have[HOST_REGISTERED])
		measure_oneoffs(b);
	print_table(b);
	report_facts(b);
	decide_ratio_claims(b);
	decide_link_claims(b);
	decide_pinning_claims(b);
	bench_teardown(L, b);
	free(b);
}

LAB_MAIN(spec, run)
#else
LAB_MAIN(spec, lab_run_not_built)
#endif
