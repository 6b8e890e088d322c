/*
 * lab-02: pinned vs pageable copies.
 *
 * How much faster does a host<->GPU copy run when the host buffer is pinned,
 * does a pinned copy fill the PCIe link, and when is pinning worth its cost?
 *
 * The sweep copies 4 KiB .. --size (default 1 GiB, --quick 64 MiB) by powers
 * of two, H2D and D2H, from four kinds of host buffer: pageable malloc
 * (touched first), cudaHostAlloc, malloc + cudaHostRegister, and
 * write-combined cudaHostAlloc.  Each point is the median of --iters samples
 * timed with CUDA events on one stream after two warm-up samples; a sample of
 * a small size is a batch of back-to-back copies long enough for the events'
 * 0.5 us step.  The data of each kind is verified once at the largest size.
 * A single-thread host memcpy gives the CPU copy rate, which bounds pageable
 * copies: the driver copies pageable data through its own pinned staging
 * buffer with the CPU.
 *
 * Claims 02.1-02.4 rest on the claim pair: a pinned and a pageable buffer of
 * the largest size copied H2D in alternation, so slow drift of the host
 * (which moves pageable copies by tens of per cent) hits both alike and the
 * per-pair ratio is what is compared.
 *
 * Link facts come from gpu_topo (sysfs, NVML over it), matched to this CUDA
 * device by PCI bus id.
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
#include "preflight.h"

static const struct claim_spec claims[] = {
	{ "02.1", "ch1.Q2 ch2.S2 ch2.S9",
	  "pinned H2D is faster than pageable H2D for copies of 64 MiB and more",
	  "ch1 Q2: a pageable copy is first copied by the calling thread into the driver's "
	  "pinned staging buffer, then DMA'd; a pinned one is DMA'd directly (no figure)",
	  "R6 bare 'faster' -> pinned/pageable >= 1.1 (Q2 gives no figure; the 2x figure is 02.2's)",
	  WANT_RATIO_GE(1.1),
	  "the 'pinned' buffer of the claim pair is pageable malloc memory, so both "
	  "copies take the staging path" },
	{ "02.2", "ch2.S2",
	  "pinned H2D is twice as fast as pageable H2D (12 vs 6 GB/s)",
	  "ch2 sec. 2: a transfer at about 6 GB/s on PCIe Gen4 runs at 12 GB/s once the "
	  "source is pinned, 'twice as fast'",
	  "R4 'twice' -> pinned/pageable near 2 +- 25 %",
	  WANT_NEAR(2, 0.25, "x"),
	  "the 'pinned' buffer of the claim pair is pageable malloc memory, so both "
	  "copies take the staging path" },
	{ "02.3", "ch1.table ch2.S2 ch2.S8",
	  "pinned H2D reaches the PCIe link's theoretical rate (generation x width)",
	  "ch1 bandwidth table: pinned copies run at what the link delivers (Gen4 x16 "
	  "25 GB/s, Gen5 x16 50 GB/s); ch2 sec. 2: pinned is near the theoretical peak",
	  "R8 'reaches' a ceiling -> >= 80 % of the link's rate after line encoding",
	  WANT_GE(80, "%"),
	  "the 'pinned' buffer of the claim pair is pageable malloc memory, so the copy "
	  "runs at the CPU's staging rate" },
	{ "02.4", "ch1.table ch1.E2",
	  "16 GB of weights over this link take the chapter's time for its generation",
	  "ch1 bandwidth table: 16 GB from pinned memory take 640 ms on PCIe Gen4 x16 "
	  "and 320 ms on Gen5 x16",
	  "R1 the table's time -> measured / table time for this link near 1 +- 25 %; "
	  "links the table lacks skip",
	  WANT_NEAR(1, 0.25, "x"),
	  "the 'pinned' buffer of the claim pair is pageable malloc memory, so 16 GB take "
	  "several times the table's time" },
	{ "02.5", "ch2.S6",
	  "a cudaHostRegister'd buffer copies at the same speed as cudaHostAlloc memory",
	  "ch2 sec. 6.2: pages are pinned and their DMA list built once, when the memory "
	  "is pinned; later transfers use it directly (no figure)",
	  "R7 'the same' (no hedge) -> registered/pinned H2D near 1 +- 10 %",
	  WANT_NEAR(1, 0.10, "x"),
	  "the registered buffer is unregistered (cudaHostUnregister) before the timed "
	  "copies, so they run at pageable speed" },
	{ "02.6", "ch2.S9 ch1.Q3",
	  "for a one-off 1 MiB H2D transfer, pinning first (register, copy, unregister) "
	  "costs more than a pageable copy",
	  "ch2 sec. 9 decision tree: small transfers need no pinning, malloc is enough; "
	  "ch1: pinning is slow (every page locked and recorded in the driver)",
	  "R6 'costs more' -> (pin + copy + unpin) / pageable copy >= 1.1",
	  WANT_RATIO_GE(1.1),
	  "the buffer is registered once, outside the timing, so the timed one-off "
	  "transfers pay no pinning and copy at pinned speed" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static int check_opts(const struct lab *L);

/* What plots/ draws from the record (lab.h, struct lab_figure). */
static const struct lab_figure figures[] = {
	{ "lab02_bandwidth", "lab02_bandwidth",
	  "h2d_pageable h2d_pinned h2d_registered h2d_wc d2h_pageable d2h_pinned "
	  "d2h_registered d2h_wc host_memcpy",
	  "pcie_theoretical_gbs pcie_gen_max pcie_width_max gpu_pci_bus_id host_memcpy_gbs",
	  "02.1 02.3", "lab-02: H2D and D2H bandwidth by transfer size and kind of host memory" },
	{ NULL }
};

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
	.figures = figures,
};

#define MIN_LARGEST_BYTES (64 * MiB)   /* 02.1 is about copies of 64 MiB and more */

/* spec.check_opts: --size before anything is printed (any build). */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);

	if (!o->size_given)
		return 0;
	return preflight_size_floor(L, "size", o->size, MIN_LARGEST_BYTES, ", as the claims "
				    "compare copies of 64 MiB and more");
}

#if DMALAB_HAVE_CUDA
#include "gpu_topo.h"
#include "lab_buffers_cuda.h"
#include "sysinfo.h"

#define SWEEP_FIRST_BYTES (4 * KiB)
#define QUICK_LARGEST_BYTES (64 * MiB)
#define MAX_POINTS 48
#define GPU_SPARE_BYTES (256 * MiB)    /* left free on the GPU beside our buffer */
#define STABLE_SAMPLES 21
#define CHAPTER_BYTES 16e9             /* the chapter's "16 GB of weights" */
#define ONEOFF_CLAIM_BYTES (1 * MiB)   /* the small one-off transfer of 02.6 */
#define ONEOFF_BATCH 8                 /* one-off transfers per timed sample */
#define PAIR_SAMPLES 31                /* pinned/pageable pairs of the claim pair */
/* a sweep sample lasts at least 200 event steps, twice the floor lab.h trusts */
#define BATCH_FLOOR_S (200 * LAB_CUDA_EVENT_RES_S)
#define MAX_REPS 4096                  /* copies in one batched sweep sample */
#define PAGE_BYTES 4096

enum host_kind { HOST_PAGEABLE, HOST_PINNED, HOST_REGISTERED, HOST_WC, HOST_NKINDS };
enum copy_dir { DIR_H2D, DIR_D2H, DIR_N };

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

/* Given back with lab_cuda_free, which knows how it was obtained. */
struct host_buf {
	enum host_kind kind;
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
	/* the claim pair (02.1-02.4): H2D at `largest`, taken in alternation */
	struct lab_stats pair_pin, pair_page;          /* GB/s */
	struct lab_stats pair_ratio;                   /* pinned / pageable rate, per pair */
	double pair_s[2][LAB_MAX_SAMPLES];             /* seconds: [0] pinned, [1] pageable */
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
	const char *what;
	uint64_t ram = preflight_ram(L, &what);
	char a[32], c[32];

	lab_cuda_require_free(L, preflight_need(1, largest, GPU_SPARE_BYTES),
			      " (the largest copy + 256 MiB)");
	/* three host buffers of `largest` live at once (the claim pair and the
	 * check buffer); leave half the RAM */
	if (!preflight_fits(6, largest, ram))
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "%s of %s, need 6 x %s",
			 lab_fmt_size(ram, a, sizeof(a)), what,
			 lab_fmt_size(largest, c, sizeof(c)));
}

/* ------------------------------------------------------------------------ */
/* The PCIe link of this device                                              */

static void link_from_gpu(struct pcie_link *k, const struct gpu_topo_dev *g)
{
	k->gen_cur = g->pcie_gen_cur;
	k->width_cur = g->pcie_width_cur;
	k->gen_max = g->pcie_gen_max;
	k->width_max = g->pcie_width_max;
	/* the current link can be down-trained while idle: judge by the max */
	k->theo_gbs = pcie_rate_gbs(k->gen_max, k->width_max);
	k->known = k->theo_gbs > 0;
	snprintf(k->seen, sizeof(k->seen),
		 "%s (%s): max gen %d width %d (%s), now gen %d width %d (%s) (<= 0: unknown)",
		 k->bdf, g->name, k->gen_max, k->width_max, gpu_src_name(g->src.gen_max),
		 k->gen_cur, k->width_cur, gpu_src_name(g->src.gen_cur));
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

/*
 * The link of CUDA device dev: its bus id from the runtime, then its entry
 * in gpu_topo's scan (sysfs, with NVML's word over it where NVML answers).
 */
static void link_probe(struct lab *L, int dev, struct pcie_link *k)
{
	struct gpu_topo *t = (struct gpu_topo *)calloc(1, sizeof(*t));
	const struct gpu_topo_dev *g;
	char raw[64];

	if (!t)
		lab_error(L, "out of memory for the GPU list");
	CUDA_CHECK(L, cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), dev));
	if (pci_bdf_normalise(raw, k->bdf, sizeof(k->bdf)) < 0)
		lab_error(L, "cudaDeviceGetPCIBusId gave '%s', not a PCI address", raw);
	gpu_topo_scan("/sys", GPU_TOPO_CUDA | GPU_TOPO_NVML, t);
	k->gen_cur = k->width_cur = k->gen_max = k->width_max = -1;
	snprintf(k->seen, sizeof(k->seen), "no GPU with PCI bus id %s among the %d "
		 "that CUDA, NVML and sysfs list", k->bdf, t->n);
	g = gpu_topo_find(t, k->bdf);
	if (g)
		link_from_gpu(k, g);
	free(t);
	link_report(L, k);
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                   */

/* Page-aligned pageable memory, every page written so none faults later. */
static void *page_alloc(struct lab *L, size_t bytes)
{
	return buf_map_or_die(L, bytes, 0, BUF_TOUCH);
}

/* cudaHostAlloc of a kind (pinned or write-combined); 0, or -1 with b->why_not set. */
static int host_alloc_cuda(struct bench *b, struct host_buf *hb, enum lab_buf_kind kind,
			   const char *fact)
{
	double t0 = lab_now();
	cudaError_t e = lab_cuda_try_alloc(kind, hb->bytes, &hb->p);

	if (e != cudaSuccess) {
		cudaGetLastError();
		snprintf(b->why_not[hb->kind], sizeof(b->why_not[0]),
			 "cudaHostAlloc(%zu bytes, %s): %s", hb->bytes, lab_buf_kind_name(kind),
			 cudaGetErrorName(e));
		return -1;
	}
	lab_fact_num(b->L, fact, lab_now() - t0, "s");
	return 0;
}

/* malloc + touch + cudaHostRegister; 0, or -1 with b->why_not set. */
static int host_alloc_registered(struct bench *b, struct host_buf *hb)
{
	double t0;
	cudaError_t e;

	hb->p = page_alloc(b->L, hb->bytes);
	t0 = lab_now();
	e = lab_cuda_register(hb->p, hb->bytes);
	if (e != cudaSuccess) {
		cudaGetLastError();
		lab_cuda_free(b->L, hb->p);
		hb->p = NULL;
		snprintf(b->why_not[hb->kind], sizeof(b->why_not[0]),
			 "cudaHostRegister(%zu bytes): %s", hb->bytes, cudaGetErrorName(e));
		return -1;
	}
	lab_fact_num(b->L, "host_register_s", lab_now() - t0, "s");
	if (LAB_SABOTAGED) {
		/* registered, then unregistered before any timed copy: the
		 * "registered" series copies from plain pageable memory */
		lab_cuda_unregister(b->L, hb->p);
	}
	return 0;
}

/* A host buffer of `largest` bytes of the given kind; 0, or -1 (why_not). */
static int host_buf_alloc(struct bench *b, enum host_kind kind, struct host_buf *hb)
{
	hb->kind = kind;
	hb->bytes = b->largest;
	hb->p = NULL;
	switch (kind) {
	case HOST_PINNED:
		if (host_alloc_cuda(b, hb, LAB_BUF_PINNED, "host_alloc_s") < 0)
			lab_error(b->L, "%s", b->why_not[HOST_PINNED]);
		return 0;
	case HOST_REGISTERED:
		return host_alloc_registered(b, hb);
	case HOST_WC:
		return host_alloc_cuda(b, hb, LAB_BUF_WC, "host_alloc_wc_s");
	default:
		hb->p = page_alloc(b->L, hb->bytes);
		return 0;
	}
}

static void host_buf_free(struct lab *L, struct host_buf *hb)
{
	lab_cuda_free(L, hb->p); /* a registration goes first, then the memory */
	hb->p = NULL;
}

static void bench_setup(struct lab *L, struct bench *b)
{
	b->dev = lab_cuda_alloc(L, LAB_BUF_DEVICE, b->largest);
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
	cuda_timer_init(L, &b->timer);
	b->check = page_alloc(L, b->largest);
}

static void bench_teardown(struct lab *L, struct bench *b)
{
	cuda_timer_release(&b->timer);
	CUDA_CHECK(L, cudaStreamDestroy(b->stream));
	lab_cuda_free(L, b->dev);
	lab_cuda_free(L, b->check);
}

/* ------------------------------------------------------------------------ */
/* Timed copies                                                              */

struct copy_job {
	struct lab *L;
	void *dst;
	const void *src;
	size_t bytes;
	int reps;                   /* back-to-back copies per sample */
	enum cudaMemcpyKind dir;
	cudaStream_t stream;
	struct cuda_timer *timer;
};

/*
 * `reps` copies between events on an idle stream, in seconds.  For a
 * pageable H2D copy the call itself stages the data with the CPU; the start
 * event has already fired by then, so the staging is inside the timing, as
 * it should be.
 */
static double time_copy(void *arg)
{
	struct copy_job *j = (struct copy_job *)arg;
	int i;

	CUDA_CHECK(j->L, cudaEventRecord(j->timer->start, j->stream));
	for (i = 0; i < j->reps; i++)
		CUDA_CHECK(j->L, cudaMemcpyAsync(j->dst, j->src, j->bytes, j->dir, j->stream));
	CUDA_CHECK(j->L, cudaEventRecord(j->timer->stop, j->stream));
	CUDA_CHECK(j->L, cudaStreamSynchronize(j->stream));
	return cuda_timer_seconds(j->L, j->timer);
}

static void copy_job_init(struct bench *b, struct copy_job *j, const struct host_buf *hb,
			  int d, size_t bytes)
{
	j->L = b->L;
	j->bytes = bytes;
	j->reps = 1;
	j->stream = b->stream;
	j->timer = &b->timer;
	if (d == DIR_H2D) {
		j->dst = b->dev;
		j->src = hb->p;
		j->dir = cudaMemcpyHostToDevice;
	} else {
		j->dst = hb->p;
		j->src = b->dev;
		j->dir = cudaMemcpyDeviceToHost;
	}
}

/*
 * Copies per sample so that one sample lasts BATCH_FLOOR_S: a single small
 * copy takes a few us, too close to the events' 0.5 us step to be timed.
 * Grown on timed batches, not on one copy: back-to-back copies overlap their
 * launch, so a batch is shorter than its copies timed one by one.
 */
static int reps_for(struct copy_job *j)
{
	double t, want;

	j->reps = 1;
	time_copy(j); /* warm-up */
	while ((t = time_copy(j)) < BATCH_FLOOR_S && j->reps < MAX_REPS) {
		want = j->reps * (1.25 * BATCH_FLOOR_S / t) + 1;
		j->reps = want >= MAX_REPS ? MAX_REPS : (int)want;
	}
	return j->reps;
}

/* Median-of-samples rate (GB/s) of one copy direction and size. */
static void measure_point(struct bench *b, const struct host_buf *hb, int d,
			  size_t bytes, int samples, struct lab_stats *rate)
{
	struct lab_measure_cfg cfg = { 2, samples, 0.10, LAB_CUDA_EVENT_RES_S };
	struct lab_stats secs;
	struct copy_job j;

	copy_job_init(b, &j, hb, d, bytes);
	j.reps = reps_for(&j);
	lab_measure(b->L, series_name[hb->kind][d], time_copy, &j, &cfg, &secs);
	lab_stats_to_rate(&secs, (uint64_t)bytes * (uint64_t)j.reps, rate);
}

/* The sweep's pinned H2D figure at the largest size is 02.5's reference:
 * it gets more samples than the rest. */
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
	size_t n = b->largest;
	size_t stride = hb->kind == HOST_WC ? PAGE_BYTES / 4 : 1; /* words */
	/* a different pattern per kind: stale data of the last kind cannot pass */
	uint32_t seed = (uint32_t)lab_options(L)->seed ^ ((uint32_t)(hb->kind + 1) << 24);
	struct buf_check c;
	char sz[32];

	lab_progress(L, "%s: verifying %s", kind_name[hb->kind], lab_fmt_size(n, sz, sizeof(sz)));
	buf_fill(hb->p, n, seed);
	CUDA_CHECK(L, cudaMemsetAsync(b->dev, 0, n, b->stream));
	copy_sync(b, b->dev, hb->p, cudaMemcpyHostToDevice);
	copy_sync(b, b->check, b->dev, cudaMemcpyDeviceToHost);
	if (buf_verify(b->check, n, seed, 1, &c))
		lab_error(L, "H2D from %s memory: %llu words differ, the first at byte offset "
			  "%llu of %zu", kind_name[hb->kind], (unsigned long long)c.bad,
			  (unsigned long long)c.first_bad, n);
	memset(hb->p, 0, n);
	copy_sync(b, hb->p, b->dev, cudaMemcpyDeviceToHost);
	if (buf_verify(hb->p, n, seed, stride, &c))
		lab_error(L, "D2H into %s memory: %llu of the %llu words read differ, the first "
			  "at byte offset %llu of %zu", kind_name[hb->kind],
			  (unsigned long long)c.bad, (unsigned long long)c.words,
			  (unsigned long long)c.first_bad, n);
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
		lab_fact_num(b->L, "h2d_pinned_cv", b->top[HOST_PINNED][DIR_H2D].cv, "");
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
	/* host-clock timed: lab_now's step (clock_res_s 0) */
	struct lab_measure_cfg cfg = { 2, b->iters, 0.10, 0 };
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
	lab_cuda_free(b->L, host);
}

/* ------------------------------------------------------------------------ */
/* The claim pair: pinned and pageable H2D in alternation (02.1-02.4)        */

/* The pair's buffers; the sabotage build gives pageable memory where the
 * pinned one should be. */
static void pair_alloc(struct bench *b, struct host_buf *pin, struct host_buf *page)
{
	page->kind = HOST_PAGEABLE;
	page->bytes = b->largest;
	page->p = page_alloc(b->L, b->largest);
	pin->kind = HOST_PINNED;
	pin->bytes = b->largest;
	if (LAB_SABOTAGED)
		pin->p = page_alloc(b->L, b->largest);
	else if (host_alloc_cuda(b, pin, LAB_BUF_PINNED, "pair_host_alloc_s") < 0)
		lab_error(b->L, "%s", b->why_not[HOST_PINNED]);
}

/*
 * n pairs, after two warm-up pairs; the order within a pair alternates so
 * that neither copy always runs right after the other.
 */
static void pair_time(struct bench *b, struct copy_job *pin, struct copy_job *page, int n)
{
	int i;

	for (i = 0; i < 2; i++) {
		time_copy(page);
		time_copy(pin);
	}
	for (i = 0; i < n; i++) {
		if (i % 2 == 0) {
			b->pair_s[1][i] = time_copy(page);
			b->pair_s[0][i] = time_copy(pin);
		} else {
			b->pair_s[0][i] = time_copy(pin);
			b->pair_s[1][i] = time_copy(page);
		}
	}
}

/* The pair's series from the timings: two rates and the per-pair ratio. */
static void pair_stats(struct bench *b, int n)
{
	double ratio[LAB_MAX_SAMPLES];
	struct lab_stats secs;
	int i;

	lab_stats_from(&secs, "h2d_pinned_paired", "s", b->pair_s[0], n, LAB_CUDA_EVENT_RES_S);
	lab_stats_to_rate(&secs, b->largest, &b->pair_pin);
	lab_stats_from(&secs, "h2d_pageable_paired", "s", b->pair_s[1], n, LAB_CUDA_EVENT_RES_S);
	lab_stats_to_rate(&secs, b->largest, &b->pair_page);
	for (i = 0; i < n; i++)
		ratio[i] = b->pair_s[1][i] / b->pair_s[0][i];
	lab_stats_from(&b->pair_ratio, "h2d_pinned_over_pageable", "x", ratio, n,
		       LAB_CUDA_EVENT_RES_S);
	/* a ratio is as trustworthy as the timings it divides */
	b->pair_ratio.too_short = b->pair_pin.too_short || b->pair_page.too_short;
}

static void measure_claim_pair(struct bench *b)
{
	struct host_buf pin, page;
	struct copy_job jpin, jpage;
	int n = b->iters > PAIR_SAMPLES ? b->iters : PAIR_SAMPLES;

	if (n > LAB_MAX_SAMPLES)
		n = LAB_MAX_SAMPLES;
	lab_progress(b->L, "claim pair: pinned and pageable H2D in alternation");
	pair_alloc(b, &pin, &page);
	copy_job_init(b, &jpin, &pin, DIR_H2D, b->largest);
	copy_job_init(b, &jpage, &page, DIR_H2D, b->largest);
	pair_time(b, &jpin, &jpage, n);
	pair_stats(b, n);
	lab_series_point(b->L, "h2d_pinned_paired", "bytes", (double)b->largest, &b->pair_pin);
	lab_series_point(b->L, "h2d_pageable_paired", "bytes", (double)b->largest, &b->pair_page);
	verify_kind(b, &pin);
	host_buf_free(b->L, &pin);
	host_buf_free(b->L, &page);
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
	const struct lab_stats *page = &b->top[HOST_PAGEABLE][DIR_H2D];
	int k, d;

	lab_fact_num(b->L, "largest_bytes", (double)b->largest, "bytes");
	for (k = 0; k < HOST_NKINDS; k++)
		for (d = 0; d < DIR_N && b->have[k]; d++)
			lab_fact_num(b->L, fact_name[k][d], b->top[k][d].median, "GB/s");
	lab_fact_num(b->L, "h2d_paired_pinned_gbs", b->pair_pin.median, "GB/s");
	lab_fact_num(b->L, "h2d_paired_pageable_gbs", b->pair_page.median, "GB/s");
	lab_fact_num(b->L, "h2d_paired_ratio", b->pair_ratio.median, "x");
	if (b->link.known)
		lab_fact_num(b->L, "h2d_pinned_pct_of_link",
			     100 * b->pair_pin.median / b->link.theo_gbs, "%");
	lab_note(b->L, "pageable H2D runs at %.0f %% of one thread's memcpy (%.1f GB/s): "
		 "the CPU staging copy is its ceiling",
		 100 * page->median / b->memcpy_rate.median, b->memcpy_rate.median);
}

/* Attaches the claim pair's three series to the next claim. */
static void attach_pair(struct bench *b)
{
	claim_stats(b->L, &b->pair_ratio);
	claim_stats(b->L, &b->pair_pin);
	claim_stats(b->L, &b->pair_page);
}

/* pcie_gen_max is a fact since link_probe: 02.2's erratum applies by it. */
static void decide_ratio_claims(struct bench *b)
{
	struct lab_est ratio = lab_est_median(&b->pair_ratio, 1);
	char sz[32];

	lab_fmt_size(b->largest, sz, sizeof(sz));
	attach_pair(b);
	claim_note(b->L, "H2D of %s in alternation: pinned %.1f GB/s, pageable %.1f GB/s, "
		   "per-pair ratio %.2f", sz, b->pair_pin.median, b->pair_page.median,
		   b->pair_ratio.median);
	claim_check(b->L, "02.1", ratio);

	attach_pair(b);
	claim_note(b->L, "chapter: 12 vs 6 GB/s on Gen4; here %.1f vs %.1f GB/s on Gen%d",
		   b->pair_pin.median, b->pair_page.median, b->link.gen_max);
	claim_check(b->L, "02.2", ratio);
}

/* The chapter table's time for 16 GB on this link (ms), 0 if it has none. */
static double chapter_ms_for(const struct pcie_link *k)
{
	if (k->width_max != 16)
		return 0;
	return k->gen_max == 4 ? 640 : k->gen_max == 5 ? 320 : 0;
}

static void decide_link_claims(struct bench *b)
{
	const struct pcie_link *k = &b->link;
	struct lab_est rate = lab_est_median(&b->pair_pin, 1);
	double table_ms, table_gbs;

	if (!k->known) {
		claim_skip(b->L, "02.3", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		claim_skip(b->L, "02.4", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		return;
	}
	claim_stats(b->L, &b->pair_pin);
	claim_note(b->L, "%.1f of %.1f GB/s (Gen%d x%d)", b->pair_pin.median, k->theo_gbs,
		   k->gen_max, k->width_max);
	claim_check(b->L, "02.3", lab_est_scale(rate, 100 / k->theo_gbs));

	table_ms = chapter_ms_for(k);
	if (table_ms == 0) {
		claim_skip(b->L, "02.4", SKIP_UNSUPPORTED, "the chapter gives no figure "
			   "for Gen%d x%d", k->gen_max, k->width_max);
		return;
	}
	/* measured time / table time = the table's rate / the measured rate */
	table_gbs = CHAPTER_BYTES / 1e9 / (table_ms / 1e3);
	claim_stats(b->L, &b->pair_pin);
	claim_note(b->L, "16e9 bytes at %.1f GB/s: %.0f ms; the chapter: %.0f ms (Gen%d x16)",
		   b->pair_pin.median, CHAPTER_BYTES / (b->pair_pin.median * 1e9) * 1e3,
		   table_ms, k->gen_max);
	claim_check(b->L, "02.4", lab_est_ratio(lab_est_exact(table_gbs), rate));
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
	claim_note(b->L, "H2D: registered %.1f GB/s, cudaHostAlloc %.1f GB/s",
		   reg->median, pin->median);
	claim_check_ratio(b->L, "02.5", reg, pin);

	claim_note(b->L, "1 MiB once: register+copy+unregister %.0f us, pageable copy %.0f us",
		   b->oneoff_pin.median, b->oneoff_page.median);
	claim_check_ratio(b->L, "02.6", &b->oneoff_pin, &b->oneoff_page);
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
	measure_claim_pair(b);
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
