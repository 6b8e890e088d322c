/*
 * lab-02: pinned vs pageable copies.
 *
 * How much faster does a host<->GPU copy run when the host buffer is pinned,
 * does a pinned copy fill the PCIe link, and when is pinning worth its cost?
 *
 * The sweep copies 4 KiB, 64 KiB, 1 MiB, 16 MiB and --size (default 1 GiB,
 * --quick 64 MiB; --sweep: every power of two), H2D and D2H, from pageable
 * (touched first), cudaHostAlloc, cudaHostRegister'd and write-combined
 * memory.  The copy itself is copy_sample below: cudaMemcpyAsync between
 * two CUDA events.  Each point is a median of such samples by lab_measure's
 * stopping rule, small copies batched and, from pinned memory, queued
 * behind a spin kernel so the GPU runs them back to back (the harness sizes
 * the batch: lab_copy_cuda.h); each kind is verified at the largest size.  One thread's host memcpy
 * (into the pinned buffer) is the ceiling of a pageable copy: the driver
 * stages it with the CPU.
 *
 * 02.1-02.4 rest on the claim pair: the sweep's pinned and pageable
 * buffers copied H2D at the largest size in alternation, so that the
 * host's slow drift (tens of per cent on pageable copies) hits both alike,
 * until the stopping rule holds (it is also the pageable H2D point of the
 * largest size).  02.5 compares the sweep's registered (the pageable buffer,
 * registered) and pinned H2D; 02.6 times one-off 1 MiB transfers on the
 * host clock, pinned first or not.  02.7 holds the pair's pageable rate
 * against the chapter's Gen5 band.  02.8-02.10 send large data once, at
 * 8, 32 and 128 MiB (up to --size): allocated pinned (cudaHostAlloc, fill,
 * copy, cudaFreeHost) or not (mmap, fill, copy, munmap), the cudaHostAlloc
 * and a cudaHostRegister of the top size timed on their own (per GiB), and
 * the size from which the pinned route is the cheaper one (02.10).
 * --pinned-only: pinned alone, at --size.
 *
 * C and C++ at once: nvcc builds it as C++17; without nvcc gcc builds it as
 * C with DMALAB_HAVE_CUDA=0, and every claim skips.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "need.h"

/*
 * What `make selftest` breaks, in one place: the sabotage build gives each
 * knob its broken value (DMALAB_SABOTAGE=02.5: that claim's knobs alone).
 */
static struct knobs {
	int pair_pinned;        /* 02.1-02.4: the claim pair's (and --pinned-only's) "pinned"
				 * buffer is cudaHostAlloc memory */
	int keep_registered;    /* 02.5: the registered buffer stays registered while timed */
	int pin_inside_timing;  /* 02.6: each timed one-off transfer registers its own memory */
	int pair_pageable;      /* 02.7: the claim pair's pageable buffer is not pinned, so
				 * its copies are staged by the CPU */
	int alloc_pins_all;     /* 02.8: the timed cudaHostAlloc pins the whole buffer */
	int register_pins_all;  /* 02.9: the timed cudaHostRegister pins the whole buffer */
	int route_pinned;       /* 02.10: the pinned route copies from its pinned buffer */
} K = {
	.pair_pinned = 1,
	.keep_registered = 1,
	.pin_inside_timing = 1,
	.pair_pageable = 1,
	.alloc_pins_all = 1,
	.register_pins_all = 1,
	.route_pinned = 1,
};

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.pair_pinned, 0, "02.1 02.2 02.3 02.4"),
	LAB_KNOB(K.keep_registered, 0, "02.5"),
	LAB_KNOB(K.pin_inside_timing, 0, "02.6"),
	LAB_KNOB(K.pair_pageable, 0, "02.7"),
	LAB_KNOB(K.alloc_pins_all, 0, "02.8"),
	LAB_KNOB(K.register_pins_all, 0, "02.9"),
	LAB_KNOB(K.route_pinned, 0, "02.10"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "02.1", "ch1.Q2 ch2.S2 ch2.S9",
	  "pinned H2D is faster than pageable H2D for copies of 64 MiB and more",
	  "ch1 Q2: a pageable copy is first copied by the calling thread into the driver's "
	  "pinned staging buffer, then DMA'd; a pinned one is DMA'd directly (no figure)",
	  "R6 bare 'faster' -> pinned/pageable >= 1.1 (Q2 gives no figure; the 2x figure is "
	  "02.2's)",
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
	{ "02.7", "ch2.S2",
	  "on a PCIe Gen5 x16 link a pageable H2D copy runs at 12-15 GB/s",
	  "ch2 sec. 2: a pageable copy runs at about 6 GB/s on Gen4 x16 and may reach "
	  "12-15 GB/s on Gen5",
	  "R2 'X-Y' -> the claim pair's pageable H2D rate in [12, 15] GB/s, on a Gen5 x16 "
	  "link only (other links skip: the band is the chapter's Gen5 figure)",
	  WANT_RANGE(12, 15, "GB/s"),
	  "the claim pair's pageable buffer is pinned (cudaHostRegister) while the pair "
	  "runs, so its copies skip the CPU staging and run at DMA speed" },
	{ "02.8", "ch1.Q3",
	  "a large cudaHostAlloc takes tens of ms to seconds (per GiB)",
	  "ch1, the cost of pinned memory: every page is allocated, locked and recorded in "
	  "the driver, so a large block takes tens of milliseconds to a few seconds",
	  "R2 'X-Y' -> cudaHostAlloc's time per GiB in [10, 10000] ms: 'tens of ms' from 10, "
	  "'a few seconds' up to 10; the chapter names no size, so per GiB of added size: per "
	  "round, the call at the one-off sweep's largest size (128 MiB; 32 MiB with --quick) "
	  "less the call at its smallest (8 MiB), over their difference, which leaves out the "
	  "call's fixed cost (changed after an H200 selftest, where the fixed cost alone of the "
	  "sabotaged 1/256 call passed the band when divided by the whole size)",
	  WANT_RANGE(10, 10000, "ms/GiB"),
	  "the timed cudaHostAlloc pins 1/256 of the buffer (the data sits in plain "
	  "mmap memory), so nearly no per-page locking is paid" },
	{ "02.9", "ch1.Q3",
	  "pinning a large existing buffer with cudaHostRegister takes tens of ms to "
	  "seconds (per GiB)",
	  "ch1, the cost of pinned memory: every page is locked and recorded in the driver; "
	  "tens of milliseconds to a few seconds for a large block",
	  "R2 'X-Y' -> cudaHostRegister's time per GiB in [10, 10000] ms, as 02.8 (the slope "
	  "over sizes: changed with 02.8 after an H200 selftest with --quick, where the fixed "
	  "cost of the sabotaged call brought it to 6-10); the buffer is already touched, so "
	  "the time is the pinning alone, not page faults",
	  WANT_RANGE(10, 10000, "ms/GiB"),
	  "the timed cudaHostRegister pins the buffer's first 1/256, so nearly no "
	  "per-page locking is paid" },
	{ "02.10", "ch2.S9",
	  "for data sent once, allocating pinned memory pays from about 100 MB a transfer",
	  "ch2 sec. 9 decision tree: large transfers (over 100 MB each) -> cudaMallocHost; "
	  "small ones -> malloc is enough",
	  "R1 'about X' -> the break-even size of (cudaHostAlloc + fill + copy + free) "
	  "against (mmap + fill + copy + munmap), swept over sizes, near 100 MB +- 25 %; "
	  "none up to the sweep's top (> 125 MB) fails",
	  WANT_NEAR(100, 0.25, "MB"),
	  "the pinned route copies from a pageable buffer, so it pays for the allocation "
	  "and gains nothing: pinning never pays" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static int opt_sweep, opt_pinned_only, opt_all_gpus;
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_FLAG("sweep", opt_sweep,
		     "every power of two from 4 KiB to --size (default: 4K 64K 1M 16M --size)"),
	LAB_OPT_FLAG("pinned-only", opt_pinned_only, "cudaHostAlloc memory alone, H2D and D2H "
		     "at --size (all sizes with --sweep): 02.3 and 02.4 on it, the other "
		     "claims skip"),
	LAB_OPT_FLAG("all-gpus", opt_all_gpus, "host-to-all and all-to-host alone: every "
		     "visible GPU's pinned copy at once (at most 256 MiB each); the claims skip"),
	{ NULL }
};

#define MIN_LARGEST_BYTES (64 * MiB)   /* 02.1 is about copies of 64 MiB and more */

static const struct lab_spec spec = {
	.id = "02",
	.title = "pinned vs pageable copies",
	.topic = "how much faster pinned host memory copies to and from the GPU than "
		 "pageable memory, whether it fills the PCIe link, and when pinning pays",
	.timeout_s = 120,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.default_size = 1 * GiB,
	.quick_size = 64 * MiB,
	.min_size = MIN_LARGEST_BYTES,
	.size_why = ", as the claims compare copies of 64 MiB and more",
	.default_iters = 7,
	.knobs = knobs,
};

#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"
#include "lab_copy_cuda.h"

#define SWEEP_FIRST_BYTES (4 * KiB)
#define DEFAULT_STEP 16                /* default: x16 a point, 4 KiB .. 16 MiB, then --size */
#define DEFAULT_TOP_BYTES (16 * MiB)   /* every kind's curve is flat above it */
#define MAX_POINTS 48
#define GPU_SPARE_BYTES (256 * MiB)    /* left free on the GPU beside our buffer */
#define PAIR_MAX_SAMPLES 31            /* the claim pair's cap (the stopping rule's) */
#define CHAPTER_BYTES 16e9             /* the chapter's "16 GB of weights" */
#define ONEOFF_CLAIM_BYTES (1 * MiB)   /* the small one-off transfer of 02.6 */
#define ONEOFF_BATCH 8                 /* one-off transfers per timed sample */
#define PINNED_ONLY_WHY "--pinned-only: pinned H2D and D2H alone were measured"
#define ALL_GPUS_WHY "--all-gpus: every GPU's copies at once alone were measured"
#define ALL_MAX_GPUS 16
#define ALL_MAX_BYTES (256 * MiB)      /* per GPU: n of them pinned on the host at once */
#define ALL_SAMPLES 5
#define ROUTE_FIRST_BYTES (8 * MiB)    /* the one-off routes' sweep (02.8-02.10): 8 MiB ... */
#define ROUTE_TOP_BYTES (128 * MiB)    /* ... x4 ... 128 MiB, above the chapter's 100 MB */
#define ROUTE_MAX_POINTS 3
#define ROUTE_SAMPLES 20               /* 02.10's 3 ratios at 1 - 0.05/3 each (Bonferroni):
					* of 8, [min, max], reached 1 in 3 H200 runs of 4; of
					* 16, the 14th reached 1 at 128 MiB in 1 of 4; of 20,
					* the interval ends at the 16th */

/* A copy's direction, the second index of the tables below. */
enum copy_dir { H2D, D2H };

/* Series by host kind (lab_copy_cuda.h's order) and direction; facts: NAME_gbs. */
static const char *const series_name[LAB_HOST_NKINDS][2] = {
	{ "h2d_pageable", "d2h_pageable" },
	{ "h2d_pinned", "d2h_pinned" },
	{ "h2d_registered", "d2h_registered" },
	{ "h2d_wc", "d2h_wc" },
};
/* What pinning each kind cost, as a fact of the sweep's buffer. */
static const char *const pin_fact[LAB_HOST_NKINDS] = {
	NULL, "host_alloc_s", "host_register_s", "host_alloc_wc_s"
};

/* Large data sent once (02.8-02.10): the two routes' times at each size. */
struct routes {
	int n;
	uint64_t sizes[ROUTE_MAX_POINTS];            /* bytes */
	struct lab_stats pinned[ROUTE_MAX_POINTS];   /* s: cudaHostAlloc, fill, copy, free */
	struct lab_stats pageable[ROUTE_MAX_POINTS]; /* s: mmap, fill, copy, munmap */
	struct lab_stats alloc, reg; /* s per GiB: cudaHostAlloc's, cudaHostRegister's slope
				      * over the sizes */
};

struct bench {
	struct lab *L;
	uint64_t largest;           /* bytes, the last sweep point */
	uint64_t sizes[MAX_POINTS]; /* bytes */
	int npoints;
	int iters;
	int pinned_only;            /* --pinned-only */
	struct lab_copy_rig rig;    /* device buffer of `largest`, stream, events */
	struct lab_copy_link link;
	int have[LAB_HOST_NKINDS];  /* 1 when the kind was swept */
	char why_not[LAB_HOST_NKINDS][160];
	double median[LAB_HOST_NKINDS][2][MAX_POINTS]; /* GB/s, for the table */
	struct lab_stats top[LAB_HOST_NKINDS][2];      /* GB/s at `largest` */
	struct lab_stats memcpy_rate;                  /* GB/s */
	struct lab_stats oneoff_page, oneoff_pin;      /* us per transfer */
	struct lab_copy_pair pair;  /* 02.1-02.4: pinned (a) and pageable (b) H2D */
	struct routes routes;       /* 02.8-02.10 */
};

/* ------------------------------------------------------------------------ */
/* Plan and preconditions                                                    */

static void plan_init(struct lab *L, struct bench *b)
{
	const struct lab_opts *o = lab_options(L);
	uint64_t s;

	b->largest = o->size; /* at least MIN_LARGEST_BYTES */
	b->iters = o->iters;
	b->pinned_only = opt_pinned_only;
	for (s = SWEEP_FIRST_BYTES; s < b->largest && b->npoints < MAX_POINTS - 1 &&
	     (opt_sweep || (s <= DEFAULT_TOP_BYTES && !b->pinned_only));
	     s *= opt_sweep ? 2 : DEFAULT_STEP)
		b->sizes[b->npoints++] = s;
	b->sizes[b->npoints++] = b->largest;
}

/* Skips the lab when the GPU or the host cannot hold the buffers. */
static void require_memory(const struct bench *b)
{
	/* in half the RAM: pageable, pinned (+ the broken pair's), or --pinned-only's;
	 * and the D2H target of both directions at once */
	int host_buffers = (b->pinned_only ? 1 : 2 + !K.pair_pinned) + 1;

	lab_cuda_require_free(b->L, need_bytes(2, b->largest, GPU_SPARE_BYTES),
			      " (twice the largest copy + 256 MiB)");
	need_ram_require(b->L, 2 * host_buffers, b->largest);
}

/* ------------------------------------------------------------------------ */
/* The copy: what the chapter is about                                       */

/* Copies of `bytes` between one host buffer and the rig's device buffer. */
struct copy {
	struct lab *L;
	cudaStream_t stream;
	struct cuda_timer *events;    /* start and stop */
	void *dst;
	const void *src;
	uint64_t bytes;
	enum cudaMemcpyKind kind;     /* cudaMemcpyHostToDevice or DeviceToHost */
	struct lab_copy_batch batch;  /* n copies a sample, behind front_ns of spin */
};

/*
 * One sample: batch.n copies of `bytes`, timed by two CUDA events on the
 * copy's stream, so the time is the GPU's.  From pinned memory the harness
 * queues them behind a spin kernel (batch.front_ns) that outlasts their
 * issuing, so the GPU runs them back to back and the events time the
 * copies, not our issuing of them.  From pageable memory each call first
 * stages the data with the CPU, after the start event: that is timed too,
 * as it is what the caller waits for.
 */
static double copy_sample(void *arg)
{
	struct copy *c = (struct copy *)arg;
	double t0;

	if (c->batch.front_ns)
		lab_cuda_spin(c->L, c->stream, c->batch.front_ns);
	CUDA_CHECK(c->L, cudaEventRecord(c->events->start, c->stream));
	t0 = lab_now();
	for (int i = 0; i < c->batch.n; i++)
		CUDA_CHECK(c->L, cudaMemcpyAsync(c->dst, c->src, (size_t)c->bytes, c->kind,
						 c->stream));
	c->batch.issue_s = lab_now() - t0;
	CUDA_CHECK(c->L, cudaEventRecord(c->events->stop, c->stream));
	return lab_cuda_event_seconds(c->L, c->events->start, c->events->stop);
}

/* A copy of `bytes` between host and the rig's device buffer, one a sample. */
static void copy_init(struct copy *c, struct lab_copy_rig *r, void *host,
		      enum copy_dir d, uint64_t bytes)
{
	int h2d = d == H2D;

	c->L = r->L;
	c->stream = r->stream;
	c->events = &r->timer;
	c->dst = h2d ? r->dev : host;
	c->src = h2d ? host : r->dev;
	c->bytes = bytes;
	c->kind = h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
	c->batch.sample = copy_sample;
	c->batch.ctx = c;
	c->batch.n = 1;
	c->batch.front_ns = 0;
	c->batch.issue_s = 0;
}

/* The series `name` of copies of `bytes` (batched by the harness), in GB/s. */
static void copy_rate(struct bench *b, const char *name, void *host, enum copy_dir d,
		      uint64_t bytes, struct lab_stats *rate)
{
	struct copy c;

	copy_init(&c, &b->rig, host, d, bytes);
	lab_copy_rate_sampled(&b->rig, name, &c.batch, host, bytes, b->iters, 0, rate);
}

/* ------------------------------------------------------------------------ */
/* The sweep of one host-memory kind                                         */

/* The sweep of one kind; pair_h2d: its largest H2D point is the claim pair's. */
static void sweep_kind(struct bench *b, const struct lab_host *h, int pair_h2d)
{
	struct lab_stats rate;
	char sz[32];
	int i, d;

	for (i = 0; i < b->npoints; i++) {
		int last = i == b->npoints - 1;

		lab_progress(b->L, MSG("02.say-1",
			"%s: %s"), lab_host_kind_name(h->kind),
			     lab_fmt_size(b->sizes[i], sz, sizeof(sz)));
		for (d = 0; d < 2; d++) {
			struct lab_stats *out = last ? &b->top[h->kind][d] : &rate;

			if (last && pair_h2d && d == H2D)
				continue;
			copy_rate(b, series_name[h->kind][d], h->p, (enum copy_dir)d,
				  b->sizes[i], out);
			lab_series_point(b->L, series_name[h->kind][d], "bytes",
					 (double)b->sizes[i], out);
			b->median[h->kind][d][i] = out->median;
		}
	}
}

/* One thread's memcpy: the driver stages a pageable copy with such a CPU copy. */
struct host_memcpy {
	void *dst;
	const void *src;
	uint64_t bytes;
};

/* lab_run_fn: one memcpy, host seconds; its last byte read after the clock, so
 * that the compiler keeps the copy. */
static double host_memcpy_sample(void *arg)
{
	struct host_memcpy *j = (struct host_memcpy *)arg;
	double t0 = lab_now(), t;

	memcpy(j->dst, j->src, (size_t)j->bytes);
	t = lab_now() - t0;
	lab_sink(((const unsigned char *)j->dst)[j->bytes - 1]);
	return t;
}

/* One thread's memcpy of the largest size, the ceiling of a pageable copy (a note):
 * into the pinned buffer, as to the CPU pinned memory is plain RAM. */
#define MEMCPY_SAMPLES 3
static void measure_host_memcpy(struct bench *b, const struct lab_host *src,
				const struct lab_host *dst)
{
	struct lab_measure_cfg cfg = { 1, MEMCPY_SAMPLES, 0.10, 0, MEMCPY_SAMPLES };
	struct host_memcpy j = { dst->p, src->p, b->largest };
	struct lab_stats secs;

	lab_progress(b->L, MSG("02.progress-1", "host memcpy, one thread"));
	lab_measure(b->L, "host_memcpy", host_memcpy_sample, &j, &cfg, &secs);
	lab_stats_to_rate(&secs, b->largest, &b->memcpy_rate);
	lab_series_point(b->L, "host_memcpy", "bytes", (double)b->largest, &b->memcpy_rate);
	lab_fact_num(b->L, "host_memcpy_gbs", b->memcpy_rate.median, "GB/s");
}

/* ------------------------------------------------------------------------ */
/* The pinned buffer: page-locked host memory, what the chapter is about     */

/*
 * `bytes` of page-locked host memory into *p, for the pinned kind (its sweep
 * and the claim pair's pinned side); the CUDA error.  alloc_pinned below
 * asks the runtime what it got and gives it back at the end.
 */
static cudaError_t pinned_host_alloc(void **p, uint64_t bytes)
{
	/* EXERCISE 02.pin grades 02.1 02.3 02.4: allocate `bytes` of page-locked (pinned)
	 * host memory into *p with cudaHostAlloc (flags cudaHostAllocDefault), so that the
	 * copy engine reads it by DMA with no staging by the CPU; return its error */
	return cudaHostAlloc(p, (size_t)bytes, cudaHostAllocDefault);
	/* STUB
	*p = malloc((size_t)bytes); // pageable for now: each copy from it is staged by the CPU
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
	END STUB */
	/* END EXERCISE */
}

/* The registry's undo of memory that is not page-locked (pinned_host_alloc's stub). */
static void free_unlocked(void *p, uint64_t bytes)
{
	free(p);
}

/*
 * The pinned kind's buffer of the largest size into h, from pinned_host_alloc,
 * its time the host_alloc_s fact.  What the runtime calls it decides how it
 * goes back (cudaFreeHost, or free); memory that is not page-locked is said,
 * and touched first, as the pageable kind is.
 */
static void alloc_pinned(struct bench *b, struct lab_host *h)
{
	struct cudaPointerAttributes a;
	double t0;
	cudaError_t e;
	int locked;

	memset(h, 0, sizeof(*h));
	h->kind = LAB_HOST_PINNED;
	h->bytes = b->largest;
	t0 = lab_now();
	e = pinned_host_alloc(&h->p, b->largest);
	h->pin_s = lab_now() - t0;
	if (e != cudaSuccess || !h->p)
		lab_error(b->L, "allocating the pinned buffer: %s", cudaGetErrorName(e));
	CUDA_CHECK(b->L, cudaPointerGetAttributes(&a, h->p));
	locked = a.type == cudaMemoryTypeHost;
	CUDA_CHECK(b->L, lab_buf_track_(h->p, b->largest,
					locked ? lab_buf_undo_free_host_ : free_unlocked));
	lab_fact_num(b->L, pin_fact[LAB_HOST_PINNED], h->pin_s, "s");
	if (locked)
		return;
	lab_note(b->L, MSG("02.say-2",
		"the pinned buffer is not page-locked (CUDA memory type %d): its copies are "
		"staged by the CPU"), (int)a.type);
	memset(h->p, 0, (size_t)b->largest);
}

/* h: `kind` of the largest size; 0, or -1 with the reason kept (pinned: lab_error). */
static int alloc_kind(struct bench *b, enum lab_host_kind kind, struct lab_host *h)
{
	if (kind == LAB_HOST_PINNED) {
		alloc_pinned(b, h);
		return 0;
	}
	if (lab_host_alloc(b->L, kind, b->largest, 0, BUF_TOUCH, h) < 0) {
		snprintf(b->why_not[kind], sizeof(b->why_not[0]), "%s", h->why_not);
		/* a sentence per kind: no English kind name passed into a zh note */
		if (kind == LAB_HOST_WC)
			lab_note(b->L, MSG("02.no-wc", "no write-combined series: %s"), h->why_not);
		else if (kind == LAB_HOST_REGISTERED)
			lab_note(b->L, MSG("02.no-registered", "no registered series: %s"),
				 h->why_not);
		else
			lab_note(b->L, MSG("02.no-pageable", "no pageable series: %s"), h->why_not);
		return -1;
	}
	if (pin_fact[kind])
		lab_fact_num(b->L, pin_fact[kind], h->pin_s, "s");
	return 0;
}

/* A pattern seed per kind, so that data another kind left behind cannot pass. */
static uint32_t kind_seed(uint32_t seed, enum lab_host_kind kind)
{
	return seed ^ ((uint32_t)(kind + 1) << 24);
}

/* A kind swept: its data verified, its column in the table. */
static void verify_kind(struct bench *b, const struct lab_host *h)
{
	lab_copy_verify(&b->rig, h, kind_seed((uint32_t)lab_options(b->L)->seed, h->kind));
	b->have[h->kind] = 1;
}

/* ... and its buffer given back (a registration before the memory under it). */
static void done_kind(struct bench *b, struct lab_host *h)
{
	verify_kind(b, h);
	lab_host_free(b->L, h);
}

/* The registered kind: the pageable buffer, once checked, registered and swept. */
static void run_registered(struct bench *b, struct lab_host *page)
{
	if (lab_host_register(b->L, page) < 0) { /* the buffer given back */
		snprintf(b->why_not[LAB_HOST_REGISTERED], sizeof(b->why_not[0]), "%s",
			 page->why_not);
		lab_note(b->L, MSG("02.no-registered", "no registered series: %s"), page->why_not);
		return;
	}
	lab_fact_num(b->L, pin_fact[LAB_HOST_REGISTERED], page->pin_s, "s");
	/* K.keep_registered broken: unregistered before any timed copy, the
	 * "registered" series copies from plain pageable memory */
	if (!K.keep_registered)
		lab_cuda_unregister(b->L, page->p);
	sweep_kind(b, page, 0);
	done_kind(b, page);
}

/* Write-combined memory: its own buffer, swept. */
static void run_wc(struct bench *b)
{
	struct lab_host h;

	if (alloc_kind(b, LAB_HOST_WC, &h) < 0)
		return;
	sweep_kind(b, &h, 0);
	done_kind(b, &h);
}

/* ------------------------------------------------------------------------ */
/* Large data sent once: allocate pinned memory for it, or not (02.8-02.10) */

#define SABOTAGE_PIN_SHARE 256 /* a broken 02.8 or 02.9 pins 1/256 of the buffer: still
				* tens of microseconds a call, clear of the clock's floor */
#define ROUTE_FILL 0x5a    /* the data being produced: written alike on both routes */

/* One H2D copy of `bytes` from src to the rig's device buffer, waited for. */
static void copy_once(struct bench *b, const void *src, uint64_t bytes)
{
	CUDA_CHECK(b->L, cudaMemcpyAsync(b->rig.dev, src, (size_t)bytes,
					 cudaMemcpyHostToDevice, b->rig.stream));
	CUDA_CHECK(b->L, cudaStreamSynchronize(b->rig.stream));
}

/*
 * The route ch2 sec. 9 advises for a large transfer, seconds: cudaHostAlloc,
 * fill, copy, cudaFreeHost; *alloc_s is the cudaHostAlloc alone (02.8).
 */
static double route_pinned_once(struct bench *b, uint64_t bytes, double *alloc_s)
{
	/* K.alloc_pins_all broken: 1/256 pinned, the data in plain mmap memory */
	uint64_t pin_bytes = K.alloc_pins_all ? bytes : bytes / SABOTAGE_PIN_SHARE;
	double t0 = lab_now(), t1;
	void *pin, *data;

	CUDA_CHECK(b->L, cudaHostAlloc(&pin, (size_t)pin_bytes, cudaHostAllocDefault));
	t1 = lab_now();
	/* K.route_pinned broken: filled and copied from pageable memory (02.10) */
	data = K.alloc_pins_all && K.route_pinned ? pin : buf_map_or_die(b->L, bytes, 0, 0);
	memset(data, ROUTE_FILL, (size_t)bytes);
	copy_once(b, data, bytes);
	if (data != pin)
		lab_cuda_free(b->L, data);
	CUDA_CHECK(b->L, cudaFreeHost(pin));
	*alloc_s = t1 - t0;
	return lab_now() - t0;
}

/* The pageable route, seconds: mmap, fill (its page faults), copy, munmap. */
static double route_pageable_once(struct bench *b, uint64_t bytes)
{
	double t0 = lab_now();
	void *data = buf_map_or_die(b->L, bytes, 0, 0);

	memset(data, ROUTE_FILL, (size_t)bytes);
	copy_once(b, data, bytes);
	lab_cuda_free(b->L, data);
	return lab_now() - t0;
}

/* cudaHostRegister of `bytes` of a touched buffer, seconds: the pinning alone (02.9). */
static double register_once(struct bench *b, void *touched, uint64_t bytes)
{
	/* K.register_pins_all broken: its first 1/256 alone */
	uint64_t reg_bytes = K.register_pins_all ? bytes : bytes / SABOTAGE_PIN_SHARE;
	double t0 = lab_now(), t;

	CUDA_CHECK(b->L, cudaHostRegister(touched, (size_t)reg_bytes, cudaHostRegisterDefault));
	t = lab_now() - t0;
	CUDA_CHECK(b->L, cudaHostUnregister(touched));
	return t;
}

/* 8 MiB x4 up to 128 MiB, or to --size when it is smaller. */
static void routes_plan(struct bench *b)
{
	struct routes *r = &b->routes;
	uint64_t s;

	for (s = ROUTE_FIRST_BYTES; s <= ROUTE_TOP_BYTES && s <= b->largest &&
	     r->n < ROUTE_MAX_POINTS; s *= 4)
		r->sizes[r->n++] = s;
}

#define ROUTE_MAX_SAMPLES 32

/* One round: both routes at every size (their order swapped every round,
 * so the host's drift hits both), then the registration of the top size. */
static void routes_round(struct bench *b, void *touched, int round,
			 double sample[][2][ROUTE_MAX_SAMPLES], double *alloc, double *reg)
{
	struct routes *r = &b->routes;
	double a[ROUTE_MAX_POINTS], pin, page, span;
	int i;

	for (i = 0; i < r->n; i++) {
		if (round % 2) {
			page = route_pageable_once(b, r->sizes[i]);
			pin = route_pinned_once(b, r->sizes[i], &a[i]);
		} else {
			pin = route_pinned_once(b, r->sizes[i], &a[i]);
			page = route_pageable_once(b, r->sizes[i]);
		}
		if (round < 0)
			continue; /* the warm-up */
		sample[i][0][round] = pin;
		sample[i][1][round] = page;
	}
	/* seconds per GiB each call adds with size: its fixed cost cancels */
	span = (double)(r->sizes[r->n - 1] - r->sizes[0]) / (double)GiB;
	*reg = (register_once(b, touched, r->sizes[r->n - 1]) -
		register_once(b, touched, r->sizes[0])) / span;
	*alloc = (a[r->n - 1] - a[0]) / span;
}

/* The routes of data sent once, a fixed count of rounds after one warm-up
 * (a fixed count: the verdicts take the interval of that count as it is). */
static void measure_routes(struct bench *b, void *touched)
{
	static double sample[ROUTE_MAX_POINTS][2][ROUTE_MAX_SAMPLES];
	double alloc[ROUTE_MAX_SAMPLES], reg[ROUTE_MAX_SAMPLES], a, g;
	struct routes *r = &b->routes;
	int n = b->iters > ROUTE_SAMPLES ? b->iters : ROUTE_SAMPLES, k, i;

	n = n > ROUTE_MAX_SAMPLES ? ROUTE_MAX_SAMPLES : n;
	routes_plan(b);
	for (k = -1; k < n; k++) {
		lab_progress(b->L, MSG("02.progress-2", "data sent once: round %d of %d"),
			     k + 1, n);
		routes_round(b, touched, k, sample, &a, &g);
		if (k >= 0)
			alloc[k] = a, reg[k] = g;
	}
	for (i = 0; i < r->n; i++) {
		lab_stats_from(&r->pinned[i], "oneoff_alloc_route", "s", sample[i][0], n, 0);
		lab_stats_from(&r->pageable[i], "oneoff_mmap_route", "s", sample[i][1], n, 0);
		lab_series_point(b->L, "oneoff_alloc_route", "bytes", (double)r->sizes[i],
				 &r->pinned[i]);
		lab_series_point(b->L, "oneoff_mmap_route", "bytes", (double)r->sizes[i],
				 &r->pageable[i]);
	}
	/* a slope, not one timed call: no clock-step floor applies ("s/GiB") */
	lab_stats_from(&r->alloc, "host_alloc_slope", "s/GiB", alloc, n, 0);
	lab_stats_from(&r->reg, "host_register_slope", "s/GiB", reg, n, 0);
}

/* ------------------------------------------------------------------------ */
/* Both directions at once (a figure for the SRE, no chapter claim)          */

#define DUPLEX_SAMPLES 8

/* An H2D and a D2H copy of `bytes` on two streams, released together. */
struct duplex {
	struct lab *L;
	uint64_t bytes;
	const void *up;                    /* the H2D source: the sweep's pinned buffer */
	struct lab_host down;              /* pinned: the D2H target */
	void *dev_up, *dev_down;
	cudaStream_t s_up, s_down;
	cudaEvent_t start, stop_up, stop_down, gate;
};

/*
 * One sample: a spin kernel holds both streams at the gate event, so the
 * two copies enter the link together; each direction's time runs from the
 * common start to its own stop, the pair's to the later stop.
 */
static void duplex_sample(struct duplex *d, double *up_s, double *down_s, double *both_s)
{
	lab_cuda_spin(d->L, d->s_up, 200000);
	CUDA_CHECK(d->L, cudaEventRecord(d->gate, d->s_up));
	CUDA_CHECK(d->L, cudaStreamWaitEvent(d->s_down, d->gate, 0));
	CUDA_CHECK(d->L, cudaEventRecord(d->start, d->s_up));
	CUDA_CHECK(d->L, cudaMemcpyAsync(d->dev_up, d->up, (size_t)d->bytes,
					 cudaMemcpyHostToDevice, d->s_up));
	CUDA_CHECK(d->L, cudaMemcpyAsync(d->down.p, d->dev_down, (size_t)d->bytes,
					 cudaMemcpyDeviceToHost, d->s_down));
	CUDA_CHECK(d->L, cudaEventRecord(d->stop_up, d->s_up));
	CUDA_CHECK(d->L, cudaEventRecord(d->stop_down, d->s_down));
	*up_s = lab_cuda_event_seconds(d->L, d->start, d->stop_up);
	*down_s = lab_cuda_event_seconds(d->L, d->start, d->stop_down);
	*both_s = fmax(*up_s, *down_s);
}

/* The H2D side copies from `up` (pinned, b->largest bytes): one cudaHostAlloc of
 * 1 GiB fewer (half a second on an H200 host); the D2H side gets its own. */
static void duplex_open(struct bench *b, const void *up, struct duplex *d)
{
	memset(d, 0, sizeof(*d));
	d->L = b->L;
	d->bytes = b->largest;
	d->up = up;
	if (lab_host_alloc(b->L, LAB_HOST_PINNED, d->bytes, 0, 0, &d->down) < 0)
		lab_error(b->L, "%s", d->down.why_not);
	d->dev_up = b->rig.dev;
	d->dev_down = lab_cuda_alloc(b->L, LAB_BUF_DEVICE, d->bytes);
	CUDA_CHECK(b->L, cudaStreamCreateWithFlags(&d->s_up, cudaStreamNonBlocking));
	CUDA_CHECK(b->L, cudaStreamCreateWithFlags(&d->s_down, cudaStreamNonBlocking));
	CUDA_CHECK(b->L, cudaEventCreate(&d->start));
	CUDA_CHECK(b->L, cudaEventCreate(&d->stop_up));
	CUDA_CHECK(b->L, cudaEventCreate(&d->stop_down));
	CUDA_CHECK(b->L, cudaEventCreateWithFlags(&d->gate, cudaEventDisableTiming));
}

static void duplex_close(struct duplex *d)
{
	cudaEventDestroy(d->start);
	cudaEventDestroy(d->stop_up);
	cudaEventDestroy(d->stop_down);
	cudaEventDestroy(d->gate);
	cudaStreamDestroy(d->s_up);
	cudaStreamDestroy(d->s_down);
	lab_cuda_free(d->L, d->dev_down);
	lab_host_free(d->L, &d->down);
}

/*
 * Full duplex: PCIe carries each direction on its own lanes, so H2D and D2H
 * together should near twice one direction's rate.  Facts, not claims: the
 * chapters say nothing of it; preflight holds the sum against the link.
 */
static void measure_duplex(struct bench *b, const struct lab_host *pin)
{
	double up[DUPLEX_SAMPLES], down[DUPLEX_SAMPLES], both[DUPLEX_SAMPLES];
	struct lab_stats s_up, s_down, s_both;
	struct duplex d;
	char size[32];

	duplex_open(b, pin->p, &d);
	duplex_sample(&d, &up[0], &down[0], &both[0]); /* warm-up */
	for (int i = 0; i < DUPLEX_SAMPLES; i++)
		duplex_sample(&d, &up[i], &down[i], &both[i]);
	duplex_close(&d);
	lab_stats_from(&s_up, "duplex_h2d", "s", up, DUPLEX_SAMPLES, LAB_CUDA_EVENT_RES_S);
	lab_stats_from(&s_down, "duplex_d2h", "s", down, DUPLEX_SAMPLES, LAB_CUDA_EVENT_RES_S);
	lab_stats_from(&s_both, "duplex_both", "s", both, DUPLEX_SAMPLES, LAB_CUDA_EVENT_RES_S);
	lab_stats_to_rate(&s_up, b->largest, &s_up);
	lab_stats_to_rate(&s_down, b->largest, &s_down);
	lab_stats_to_rate(&s_both, 2 * b->largest, &s_both);
	lab_fact_num(b->L, "duplex_h2d_gbs", s_up.median, "GB/s");
	lab_fact_num(b->L, "duplex_d2h_gbs", s_down.median, "GB/s");
	lab_fact_num(b->L, "duplex_sum_gbs", s_both.median, "GB/s");
	if (!b->link.known)
		return;
	lab_fact_num(b->L, "duplex_pct_of_two_way", 100 * s_both.median / (2 * b->link.theo_gbs),
		     "%");
	lab_note(b->L, MSG("02.both-ways",
		"both directions at once (%s each): H2D %.1f, D2H %.1f, together %.1f "
		 "GB/s (%.0f %% of the link's two-way %.1f GB/s)"),
		 lab_fmt_size(b->largest, size, sizeof(size)), s_up.median, s_down.median,
		 s_both.median, 100 * s_both.median / (2 * b->link.theo_gbs),
		 2 * b->link.theo_gbs);
}

/* ------------------------------------------------------------------------ */
/* The claim pair: pinned and pageable H2D in alternation (02.1-02.4)        */

/* The sweep's two buffers, H2D at the largest size in alternation, by the stopping
 * rule (--iters pairs at least); its pageable side is the sweep's point there too. */
static void measure_claim_pair(struct bench *b, const struct lab_host *pin,
			       const struct lab_host *page)
{
	struct lab_host fake = { LAB_HOST_PAGEABLE, NULL, 0, 0, "" };
	int cap = b->iters > PAIR_MAX_SAMPLES ? b->iters : PAIR_MAX_SAMPLES, n;
	struct copy ca, cb;
	void *a = pin->p;

	lab_progress(b->L, MSG("02.progress-3", "claim pair: pinned and pageable H2D in "
					"alternation"));
	if (!K.pair_pinned) { /* pageable memory where the pinned should be */
		lab_host_alloc(b->L, LAB_HOST_PAGEABLE, b->largest, 0, BUF_TOUCH, &fake);
		a = fake.p;
	}
	b->pair.name_a = "h2d_pinned_paired";
	b->pair.name_b = "h2d_pageable_paired";
	b->pair.name_ratio = "h2d_pinned_over_pageable";
	copy_init(&ca, &b->rig, a, H2D, b->largest);
	copy_init(&cb, &b->rig, page->p, H2D, b->largest);
	/* K.pair_pageable broken: the pageable side pinned in place for the pair (02.7) */
	if (!K.pair_pageable && lab_cuda_register(page->p, b->largest) != cudaSuccess)
		lab_error(b->L, "cudaHostRegister of the pair's pageable buffer failed");
	n = lab_copy_pair_sampled(&b->pair, copy_sample, &ca, &cb, b->largest, b->iters, cap);
	if (!K.pair_pageable)
		lab_cuda_unregister(b->L, page->p);
	lab_note(b->L, MSG("02.pairs",
		"claim pair: %d pairs (at least %d, at most %d)"), n, b->iters, cap);
	lab_series_point(b->L, "h2d_pinned_paired", "bytes", (double)b->largest, &b->pair.a);
	lab_series_point(b->L, "h2d_pageable_paired", "bytes", (double)b->largest, &b->pair.b);
	b->top[LAB_HOST_PAGEABLE][H2D] = b->pair.b;
	b->median[LAB_HOST_PAGEABLE][H2D][b->npoints - 1] = b->pair.b.median;
	lab_series_point(b->L, "h2d_pageable", "bytes", (double)b->largest, &b->pair.b);
	lab_host_free(b->L, &fake);
}

/*
 * Pageable and pinned memory: their sweeps (the pageable H2D point of the
 * largest size left to the pair), the memcpy ceiling, the claim pair on
 * the same two buffers, both directions at once from the pinned one, both
 * verified; then the pageable buffer is the registered kind's.
 */
static void run_pair_kinds(struct bench *b)
{
	struct lab_host page, pin;

	alloc_kind(b, LAB_HOST_PAGEABLE, &page); /* buf_map: lab_error if it fails */
	alloc_kind(b, LAB_HOST_PINNED, &pin);
	sweep_kind(b, &page, 1);
	measure_host_memcpy(b, &page, &pin);
	sweep_kind(b, &pin, 0);
	measure_claim_pair(b, &pin, &page);
	measure_duplex(b, &pin);
	done_kind(b, &pin);
	verify_kind(b, &page);
	measure_routes(b, page.p);
	run_registered(b, &page);
}

/* --pinned-only: one pinned buffer, swept and verified. */
static void run_pinned_only(struct bench *b)
{
	struct lab_host pin;

	/* K.pair_pinned broken: pageable memory where the pinned should be (02.3, 02.4) */
	alloc_kind(b, K.pair_pinned ? LAB_HOST_PINNED : LAB_HOST_PAGEABLE, &pin);
	pin.kind = LAB_HOST_PINNED;
	sweep_kind(b, &pin, 0);
	b->pair.a = b->top[LAB_HOST_PINNED][H2D]; /* what 02.3 and 02.4 decide on */
	measure_duplex(b, &pin);
	done_kind(b, &pin);
}

/* ------------------------------------------------------------------------ */
/* Every GPU at once: host-to-all, all-to-host (figures for the SRE)         */

/* One pinned host buffer, one device buffer and one stream per visible GPU. */
struct all_gpus {
	struct lab *L;
	int n, home;
	uint64_t bytes;
	void *host[ALL_MAX_GPUS], *dev[ALL_MAX_GPUS];
	cudaStream_t s[ALL_MAX_GPUS];
	double links_gbs;   /* the links' one-way theoretical rates added; 0: one unknown */
};

/* The sum of every GPU's link rate: the most the copies could move together. */
static double all_links_gbs(struct lab *L, int n)
{
	struct gpu_topo *t = (struct gpu_topo *)calloc(1, sizeof(*t));
	struct lab_copy_link k;
	char raw[64], bdf[GPU_BDF_LEN];
	double sum = 0;

	if (!t)
		lab_error(L, "out of memory for the GPU list");
	gpu_topo_scan("/sys", GPU_TOPO_CUDA | GPU_TOPO_NVML, t);
	for (int i = 0; i < n && sum >= 0; i++) {
		CUDA_CHECK(L, cudaDeviceGetPCIBusId(raw, (int)sizeof(raw), i));
		k.known = 0;
		if (pci_bdf_normalise(raw, bdf, sizeof(bdf)) == 0)
			lab_copy_link_find(t, bdf, &k);
		sum = k.known ? sum + k.theo_gbs : -1;
	}
	free(t);
	return sum > 0 ? sum : 0;
}

static void all_open(struct bench *b, struct all_gpus *a, int n)
{
	memset(a, 0, sizeof(*a));
	a->L = b->L;
	a->n = n;
	a->home = lab_options(b->L)->device;
	a->bytes = b->largest < ALL_MAX_BYTES ? b->largest : ALL_MAX_BYTES;
	for (int i = 0; i < n; i++) {
		CUDA_CHECK(a->L, cudaSetDevice(i));
		/* portable: pinned for every GPU's context, not only the one that made it */
		CUDA_CHECK(a->L, cudaHostAlloc(&a->host[i], a->bytes, cudaHostAllocPortable));
		memset(a->host[i], 0x5a, a->bytes);
		CUDA_CHECK(a->L, cudaMalloc(&a->dev[i], a->bytes));
		CUDA_CHECK(a->L, cudaStreamCreateWithFlags(&a->s[i], cudaStreamNonBlocking));
	}
	CUDA_CHECK(a->L, cudaSetDevice(a->home));
	a->links_gbs = all_links_gbs(a->L, n);
}

static void all_close(struct all_gpus *a)
{
	for (int i = 0; i < a->n; i++) {
		cudaSetDevice(i);
		cudaStreamDestroy(a->s[i]);
		cudaFree(a->dev[i]);
		cudaFreeHost(a->host[i]);
	}
	cudaSetDevice(a->home);
}

/* One sample: every GPU's copy queued at once; the host's time to the last one's end. */
static double all_sample(struct all_gpus *a, enum cudaMemcpyKind dir)
{
	int up = dir == cudaMemcpyHostToDevice;
	double t0 = lab_now();

	for (int i = 0; i < a->n; i++) {
		CUDA_CHECK(a->L, cudaSetDevice(i));
		CUDA_CHECK(a->L, cudaMemcpyAsync(up ? a->dev[i] : a->host[i],
						 up ? a->host[i] : a->dev[i], a->bytes, dir,
						 a->s[i]));
	}
	for (int i = 0; i < a->n; i++) {
		CUDA_CHECK(a->L, cudaSetDevice(i));
		CUDA_CHECK(a->L, cudaStreamSynchronize(a->s[i]));
	}
	return lab_now() - t0;
}

/* The aggregate rate of one direction (GB/s), its fact and its share of the links. */
static double all_rate(struct all_gpus *a, enum cudaMemcpyKind dir, const char *name)
{
	double secs[ALL_SAMPLES];
	struct lab_stats st;
	char fact[48];

	all_sample(a, dir); /* warm-up */
	for (int i = 0; i < ALL_SAMPLES; i++)
		secs[i] = all_sample(a, dir);
	lab_stats_from(&st, name, "s", secs, ALL_SAMPLES, 0);
	lab_stats_to_rate(&st, (uint64_t)a->n * a->bytes, &st);
	snprintf(fact, sizeof(fact), "%s_gbs", name);
	lab_fact_num(a->L, fact, st.median, "GB/s");
	return st.median;
}

/*
 * Host-to-all and all-to-host, as nvbandwidth names them: each GPU's pinned
 * copy at once.  Their sum falls short of the links' when the GPUs share a
 * bottleneck: a PCIe switch's uplink, a root port, host memory.  Facts only.
 */
static void measure_all_gpus(struct bench *b)
{
	struct all_gpus a;
	double up, down;
	int n = 0;
	char size[32];

	cudaGetDeviceCount(&n);
	if (n < 2) {
		lab_note(b->L, MSG("02.say-3",
			"host-to-all and all-to-host: one GPU is visible; they need two or more"));
		return;
	}
	n = n < ALL_MAX_GPUS ? n : ALL_MAX_GPUS;
	all_open(b, &a, n);
	up = all_rate(&a, cudaMemcpyHostToDevice, "h2d_all");
	down = all_rate(&a, cudaMemcpyDeviceToHost, "d2h_all");
	lab_fact_num(b->L, "all_gpus", n, "GPUs");
	if (a.links_gbs > 0)
		lab_fact_num(b->L, "all_links_theoretical_gbs", a.links_gbs, "GB/s");
	lab_note(b->L, MSG("02.say-4",
		"every GPU at once (%d x %s pinned): host-to-all %.1f, all-to-host %.1f GB/s; "
		"the links together %.1f GB/s one way (0: a link unknown)"), n,
		 lab_fmt_size(a.bytes, size, sizeof(size)), up, down, a.links_gbs);
	all_close(&a);
}

/* ------------------------------------------------------------------------ */
/* One-off transfers: pin first, or copy pageable (02.6)                     */

/* One-off H2D transfers of `bytes` from host to dev, each complete on its
 * own; with register_first each also pins its memory for itself. */
struct oneoff {
	struct lab *L;
	void *host;
	void *dev;
	uint64_t bytes;
	cudaStream_t stream;
	int register_first;
	int n;                  /* transfers a sample */
};

/*
 * One sample, host seconds for n transfers: each is copy and wait, with
 * register_first cudaHostRegister before and cudaHostUnregister after, what
 * pinning data that is sent once costs.
 */
static double oneoff_sample(void *arg)
{
	struct oneoff *o = (struct oneoff *)arg;
	double t0 = lab_now();

	for (int i = 0; i < o->n; i++) {
		if (o->register_first)
			CUDA_CHECK(o->L, cudaHostRegister(o->host, (size_t)o->bytes,
							  cudaHostRegisterDefault));
		CUDA_CHECK(o->L, cudaMemcpyAsync(o->dev, o->host, (size_t)o->bytes,
						 cudaMemcpyHostToDevice, o->stream));
		CUDA_CHECK(o->L, cudaStreamSynchronize(o->stream));
		if (o->register_first)
			CUDA_CHECK(o->L, cudaHostUnregister(o->host));
	}
	return lab_now() - t0;
}

/* Microseconds per one-off transfer of `bytes`, pinned first or pageable;
 * ONEOFF_BATCH in a sample average the scheduler's jitter out. */
static void measure_oneoff(struct bench *b, void *host, uint64_t bytes, int pin_first,
			   struct lab_stats *us)
{
	struct lab_measure_cfg cfg = { 2, b->iters, 0.10, 0 }; /* lab_now's step */
	int pin_once = pin_first && !K.pin_inside_timing;
	struct oneoff o = { b->L, host, b->rig.dev, bytes, b->rig.stream,
			    pin_first && K.pin_inside_timing, ONEOFF_BATCH };

	/* K.pin_inside_timing broken: pinned once, outside the timing */
	if (pin_once)
		CUDA_CHECK(b->L, cudaHostRegister(host, bytes, cudaHostRegisterDefault));
	lab_measure(b->L, pin_first ? "oneoff_pin_then_copy" : "oneoff_pageable",
		    oneoff_sample, &o, &cfg, us);
	if (pin_once)
		CUDA_CHECK(b->L, cudaHostUnregister(host));
	lab_stats_scale(us, 1e6 / ONEOFF_BATCH, "us");
}

/* 64 KiB .. 16 MiB for the plot; the claim is decided at 1 MiB. */
static void measure_oneoffs(struct bench *b)
{
	static const uint64_t sizes[] = { 64 * KiB, 1 * MiB, 16 * MiB };
	void *host = buf_map_or_die(b->L, sizes[2], 0, BUF_TOUCH);
	struct lab_stats page, pin;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int claim = sizes[i] == ONEOFF_CLAIM_BYTES;
		struct lab_stats *pg = claim ? &b->oneoff_page : &page;
		struct lab_stats *pn = claim ? &b->oneoff_pin : &pin;

		lab_progress(b->L, MSG("02.progress-4", "one-off transfers of %llu KiB"),
			     (unsigned long long)(sizes[i] / KiB));
		measure_oneoff(b, host, sizes[i], 0, pg);
		measure_oneoff(b, host, sizes[i], 1, pn);
		lab_series_point(b->L, "oneoff_pageable", "bytes", (double)sizes[i], pg);
		lab_series_point(b->L, "oneoff_pin_then_copy", "bytes", (double)sizes[i], pn);
	}
	lab_cuda_free(b->L, host);
}

/* ------------------------------------------------------------------------ */
/* Report and claims                                                         */

static void print_table(struct bench *b)
{
	char sz[32], line[256];
	int i, k, d, len;

	lab_note(b->L, MSG("02.say-5",
		"median GB/s   H2D: pageable pinned registered wc   D2H: pageable pinned "
		"registered wc"));
	for (i = 0; i < b->npoints; i++) {
		len = snprintf(line, sizeof(line), "%9s  ",
			       lab_fmt_size(b->sizes[i], sz, sizeof(sz)));
		for (d = 0; d < 2; d++) {
			len += snprintf(line + len, sizeof(line) - len, "  ");
			for (k = 0; k < LAB_HOST_NKINDS; k++)
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
	char name[48];
	int k, d;

	lab_fact_num(b->L, "largest_bytes", (double)b->largest, "bytes");
	lab_fact_num(b->L, "h2d_pinned_cv", b->top[LAB_HOST_PINNED][H2D].cv, "");
	for (k = 0; k < LAB_HOST_NKINDS; k++)
		for (d = 0; d < 2 && b->have[k]; d++) {
			/* h2d_pinned_gbs */
			snprintf(name, sizeof(name), "%s_gbs", series_name[k][d]);
			lab_fact_num(b->L, name, b->top[k][d].median, "GB/s");
		}
	if (b->link.known)
		lab_fact_num(b->L, "h2d_pinned_pct_of_link",
			     100 * b->pair.a.median / b->link.theo_gbs, "%");
	if (b->pinned_only)
		return;
	lab_fact_num(b->L, "h2d_paired_pinned_gbs", b->pair.a.median, "GB/s");
	lab_fact_num(b->L, "h2d_paired_pageable_gbs", b->pair.b.median, "GB/s");
	lab_fact_num(b->L, "h2d_paired_ratio", b->pair.ratio.median, "x");
	lab_note(b->L, MSG("02.staging",
		"pageable H2D runs at %.0f %% of one thread's memcpy (%.1f GB/s): "
		 "the CPU staging copy is its ceiling"),
		 100 * b->top[LAB_HOST_PAGEABLE][H2D].median / b->memcpy_rate.median,
		 b->memcpy_rate.median);
}

/* Attaches the claim pair's three series to the next claim. */
static void attach_pair(struct bench *b)
{
	claim_stats(b->L, &b->pair.ratio);
	claim_stats(b->L, &b->pair.a);
	claim_stats(b->L, &b->pair.b);
}

/* pcie_gen_max is a fact since the link probe: 02.2's erratum applies by it. */
static void decide_ratio_claims(struct bench *b)
{
	struct lab_est ratio = lab_est_median(&b->pair.ratio, 1);
	char sz[32];

	attach_pair(b);
	claim_note(b->L, MSG("02.note-1",
		"H2D of %s in alternation: pinned %.1f GB/s, pageable %.1f GB/s, per-pair ratio "
		"%.2f"), lab_fmt_size(b->largest, sz, sizeof(sz)),
		   b->pair.a.median, b->pair.b.median, b->pair.ratio.median);
	claim_check(b->L, "02.1", ratio);

	attach_pair(b);
	claim_note(b->L, MSG("02.note-2",
		"chapter: 12 vs 6 GB/s on Gen4; here %.1f vs %.1f GB/s on Gen%d"),
		   b->pair.a.median, b->pair.b.median, b->link.gen_max);
	claim_check(b->L, "02.2", ratio);
}

/* The chapter table's time for 16 GB on this link (ms), 0 if it has none. */
static double chapter_ms_for(const struct lab_copy_link *k)
{
	if (k->width_max != 16)
		return 0;
	return k->gen_max == 4 ? 640 : k->gen_max == 5 ? 320 : 0;
}

static void decide_link_claims(struct bench *b)
{
	const struct lab_copy_link *k = &b->link;
	const struct lab_stats *pin = &b->pair.a;
	struct lab_est rate = lab_est_median(pin, 1);
	double table_ms, table_gbs;

	if (!k->known) {
		claim_skip(b->L, "02.3", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		claim_skip(b->L, "02.4", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		return;
	}
	claim_stats(b->L, pin);
	claim_note(b->L, MSG("02.note-3",
		"%.1f of %.1f GB/s (Gen%d x%d)"), pin->median, k->theo_gbs,
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
	claim_stats(b->L, pin);
	claim_note(b->L, MSG("02.note-4",
		"16e9 bytes at %.1f GB/s: %.0f ms; the chapter: %.0f ms (Gen%d x16)"),
		   pin->median, CHAPTER_BYTES / (pin->median * 1e9) * 1e3, table_ms, k->gen_max);
	claim_check(b->L, "02.4", lab_est_ratio(lab_est_exact(table_gbs), rate));
}

static void decide_pinning_claims(struct bench *b)
{
	const struct lab_stats *pin = &b->top[LAB_HOST_PINNED][H2D];
	const struct lab_stats *reg = &b->top[LAB_HOST_REGISTERED][H2D];

	if (!b->have[LAB_HOST_REGISTERED]) {
		claim_skip(b->L, "02.5", SKIP_UNSUPPORTED, "%s", b->why_not[LAB_HOST_REGISTERED]);
		claim_skip(b->L, "02.6", SKIP_UNSUPPORTED, "%s", b->why_not[LAB_HOST_REGISTERED]);
		return;
	}
	claim_note(b->L, MSG("02.note-5",
		"H2D: registered %.1f GB/s, cudaHostAlloc %.1f GB/s"),
		   reg->median, pin->median);
	claim_check_ratio(b->L, "02.5", reg, pin);

	claim_note(b->L, MSG("02.note-6",
		"1 MiB once: register+copy+unregister %.0f us, pageable copy %.0f us"),
		   b->oneoff_pin.median, b->oneoff_page.median);
	claim_check_ratio(b->L, "02.6", &b->oneoff_pin, &b->oneoff_page);
}

/* Pageable H2D against the chapter's Gen5 band: the claim pair's pageable side. */
static void decide_pageable_band(struct bench *b)
{
	const struct lab_copy_link *k = &b->link;
	char sz[32];

	if (!k->known) {
		claim_skip(b->L, "02.7", SKIP_UNKNOWN_TOPOLOGY, "%s", k->seen);
		return;
	}
	if (k->gen_max != 5 || k->width_max != 16) {
		claim_skip(b->L, "02.7", SKIP_UNSUPPORTED, "the chapter's band is for Gen5 x16; "
			   "this link is Gen%d x%d", k->gen_max, k->width_max);
		return;
	}
	claim_stats(b->L, &b->pair.b);
	claim_note(b->L, MSG("02.note-7",
		"pageable H2D of %s (claim pair): %.1f GB/s on Gen5 x16; one thread's memcpy "
		"%.1f GB/s"), lab_fmt_size(b->largest, sz, sizeof(sz)),
		   b->pair.b.median, b->memcpy_rate.median);
	claim_check(b->L, "02.7", lab_est_median(&b->pair.b, 1));
}

/* The time of pinning the routes' top size, per GiB in ms (02.8, 02.9). */
/* 02.8, 02.9 on the call's slope (s per GiB): what each added GiB costs it. */
static void decide_pin_slope(struct bench *b, const char *id, const char *call,
			     const struct lab_stats *s)
{
	char lo[32], hi[32];

	if (b->routes.n < 2) {
		claim_skip(b->L, id, SKIP_UNSUPPORTED, "the one-off sweep has one size: no "
			   "slope (a larger --size)");
		return;
	}
	claim_stats(b->L, s);
	claim_note(b->L, MSG("02.note-slope",
		"%s adds %.0f ms per GiB of size (from %s to %s)"), call,
		   1e3 * s->median, lab_fmt_size(b->routes.sizes[0], lo, sizeof(lo)),
		   lab_fmt_size(b->routes.sizes[b->routes.n - 1], hi, sizeof(hi)));
	claim_check(b->L, id, lab_est_scale(lab_est_median(s, 1), 1e3));
}

/*
 * log2 of the size from which the curve r (pinned route / pageable route,
 * over log2 sizes lg) stays below 1, interpolated between the two sizes
 * around it: +inf when it is not below 1 at the top, -inf when it is below
 * 1 at every size.
 */
static double pays_from_log2(const double *r, const double *lg, int n)
{
	int i = n - 1;

	if (!(r[i] < 1))
		return INFINITY;
	while (i > 0 && r[i - 1] < 1)
		i--;
	if (i == 0)
		return -INFINITY;
	return lg[i - 1] + (lg[i] - lg[i - 1]) * (r[i - 1] - 1) / (r[i - 1] - r[i]);
}

/* MB (1e6 bytes) at log2 size x; 0 for -inf. */
static double mb_at(double x)
{
	return exp2(x) / 1e6;
}

/* Size i's pinned route / pageable route, round by round (both routes ran in
 * each round), the median with its interval over the sweep's sizes. */
static struct lab_est route_ratio(struct bench *b, int i)
{
	static struct lab_stats ratio[ROUTE_MAX_POINTS]; /* attached to the claim: kept */
	const struct routes *r = &b->routes;
	double v[ROUTE_MAX_SAMPLES];
	int k, n = r->pinned[i].n;

	for (k = 0; k < n; k++)
		v[k] = r->pinned[i].samples[k] / r->pageable[i].samples[k];
	lab_stats_from(&ratio[i], "oneoff_alloc_over_mmap_route", "x", v, n, 0);
	claim_stats(b->L, &ratio[i]);
	return lab_est_median(&ratio[i], r->n);
}

/* The break-even size of the two routes with its interval, in MB (02.10), on
 * the per-round ratios (paired), not on two medians' intervals each widened
 * for 2 x sizes series: the rounds' drift reaches both routes alike. */
static void decide_break_even(struct bench *b)
{
	const struct routes *r = &b->routes;
	double lg[ROUTE_MAX_POINTS], v[ROUTE_MAX_POINTS], lo[ROUTE_MAX_POINTS];
	double hi[ROUTE_MAX_POINTS], x, xlo, xhi;
	char sz[32], note[256];
	struct lab_est e;
	int i, len = 0;

	for (i = 0; i < r->n; i++) {
		e = route_ratio(b, i);
		lg[i] = log2((double)r->sizes[i]);
		v[i] = e.value, lo[i] = e.lo, hi[i] = e.hi;
		claim_stats(b->L, &r->pinned[i]);
		claim_stats(b->L, &r->pageable[i]);
		lab_note(b->L, MSG("02.sent-once",
			"%s sent once: cudaHostAlloc route %.1f ms, mmap route %.1f ms"),
			 lab_fmt_size(r->sizes[i], sz, sizeof(sz)), 1e3 * r->pinned[i].median,
			 1e3 * r->pageable[i].median);
		len += snprintf(note + len, sizeof(note) - (size_t)len, "%s%s %.2fx",
				i ? ", " : "", sz, v[i]);
	}
	claim_note(b->L, MSG("02.note-routes",
		"pinned route / pageable route: %s"), note);
	x = pays_from_log2(v, lg, r->n);
	if (x == INFINITY && r->sizes[r->n - 1] < ROUTE_TOP_BYTES) {
		claim_skip(b->L, "02.10", SKIP_UNSUPPORTED, "pinning did not pay up to %s, where "
			   "--size ends the sweep (its top is 128 MiB)",
			   lab_fmt_size(r->sizes[r->n - 1], sz, sizeof(sz)));
		return;
	}
	xlo = pays_from_log2(lo, lg, r->n);
	xhi = pays_from_log2(hi, lg, r->n);
	e.value = mb_at(x);
	e.lo = mb_at(fmin(x, fmin(xlo, xhi)));
	e.hi = mb_at(fmax(x, fmax(xlo, xhi)));
	e.too_short = 0;
	if (isfinite(e.value))
		lab_fact_num(b->L, "pin_break_even_mb", e.value, "MB");
	claim_check(b->L, "02.10", e);
}

static void decide_route_claims(struct bench *b)
{
	decide_pin_slope(b, "02.8", "cudaHostAlloc", &b->routes.alloc);
	decide_pin_slope(b, "02.9", "cudaHostRegister", &b->routes.reg);
	decide_break_even(b);
}

/*
 * The method: the link; pageable and pinned memory swept, with the memcpy
 * ceiling, the claim pair and both directions at once on their buffers;
 * registered (the pageable buffer) and write-combined memory swept; each
 * kind verified; the one-off transfers (--pinned-only: pinned alone); the
 * table, facts and decisions.
 */
static void run(struct lab *L)
{
	struct bench *b = (struct bench *)calloc(1, sizeof(*b));

	if (!b)
		lab_error(L, "out of memory");
	b->L = L;
	plan_init(L, b);
	lab_cuda_require(L, 1);
	require_memory(b);
	lab_copy_link_probe(L, lab_options(L)->device, &b->link);
	if (opt_all_gpus) {
		measure_all_gpus(b);
		claim_skip_rest(L, SKIP_NOT_REQUESTED, ALL_GPUS_WHY);
		free(b);
		return;
	}
	lab_copy_rig_open(L, b->largest, LAB_COPY_QUEUE, &b->rig);
	if (b->pinned_only) {
		run_pinned_only(b);
	} else {
		run_pair_kinds(b);
		run_wc(b);
		if (b->have[LAB_HOST_REGISTERED])
			measure_oneoffs(b);
	}
	if (!b->pinned_only)
		measure_all_gpus(b);
	print_table(b);
	report_facts(b);
	if (b->pinned_only) { /* 02.3 and 02.4 alone */
		claim_skip(L, "02.1", SKIP_NOT_REQUESTED, PINNED_ONLY_WHY);
		claim_skip(L, "02.2", SKIP_NOT_REQUESTED, PINNED_ONLY_WHY);
		decide_link_claims(b);
		claim_skip_rest(L, SKIP_NOT_REQUESTED, PINNED_ONLY_WHY);
	} else {
		decide_ratio_claims(b);
		decide_link_claims(b);
		decide_pinning_claims(b);
		decide_pageable_band(b);
		decide_route_claims(b);
	}
	lab_copy_rig_close(&b->rig);
	free(b);
}

LAB_MAIN(spec, run)
#else
LAB_MAIN(spec, lab_run_not_built)
#endif
