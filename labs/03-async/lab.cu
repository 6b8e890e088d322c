/*
 * lab-03: async copies and the buffer-reuse race.
 *
 * Does cudaMemcpyAsync give the thread back before the copy is done, does a
 * copy overlap a kernel, and what does the GPU read when the host rewrites a
 * copy's source too early?  H2D copies in four parts (README.md, "Method"):
 * call vs copy time (03.1, 03.2); copy and kernel on two streams (03.3); the
 * race (03.4); refill-copy-check loops, the chapter's (03.6, 03.8) and the
 * fix (03.5, 03.7).  Rewrites run last word to first (a rewrite trailing a
 * DMA that reads front to back would hide the race).  No nvcc: all skip. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "lab.h"
#include "need.h"
#include "sizes.h"

/*
 * What `make selftest` breaks, in one place: the sabotage build gives each
 * knob its broken value (DMALAB_SABOTAGE=03.4: that claim's knobs alone).
 */
static struct knobs {
	int pageable_source;  /* 03.1: the "pageable" source of the big copy is malloc'd */
	int pinned_source;    /* 03.2 03.3: the "pinned" source of the big copy is pinned */
	int race_pinned;      /* 03.4: the buffer rewritten behind its copy is pinned */
	int fix_two_buffers;  /* 03.5: the fix rotates two buffers, each rewritten only
			       * after its copy's event */
	int fix_copy_stream;  /* 03.7: the fix copies on its own stream, beside the compute */
	int chapter_pageable; /* 03.6 03.8: the chapter's loop refills pageable memory */
} K = {
	.pageable_source = 1,
	.pinned_source = 1,
	.race_pinned = 1,
	.fix_two_buffers = 1,
	.fix_copy_stream = 1,
	.chapter_pageable = 1,
};

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.pageable_source, 0, "03.1"),
	LAB_KNOB(K.pinned_source, 0, "03.2 03.3"),
	LAB_KNOB(K.race_pinned, 0, "03.4"),
	LAB_KNOB(K.fix_two_buffers, 0, "03.5"),
	LAB_KNOB(K.fix_copy_stream, 0, "03.7"),
	LAB_KNOB(K.chapter_pageable, 0, "03.6 03.8"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "03.1", "ch1.Q2",
	  "cudaMemcpyAsync from pageable memory keeps the calling thread for most of the "
	  "copy's duration",
	  "ch1 pinned-memory table: from pageable memory the CPU first copies the data into "
	  "the driver's pinned staging buffer, so non_blocking is 'basically synchronous' "
	  "(no figure)",
	  "R9 'most of' -> call / copy >= 0.8, at 256 MiB (--quick and the --size floor: "
	  "64 MiB), the size 03.2 needs",
	  WANT_RATIO_GE(0.8),
	  "the \"pageable\" source is pinned memory, so the call returns at once" },
	{ "03.2", "ch1.Q2", "cudaMemcpyAsync from pinned memory returns at once",
	  "ch1 sec. on CUDA pinning: from pinned memory the copy engine DMAs directly and the "
	  "CPU returns at once, free to overlap compute (no figure)",
	  "R9 'at once' -> call / copy <= 0.05, at 256 MiB (--quick 64, never under): a call "
	  "costs a fixed 2-15 us, 4 % of a 16 MiB copy on H200",
	  WANT_RATIO_LE(0.05),
	  "the \"pinned\" source is pageable memory, so the call stages the whole copy" },
	{ "03.3", "ch1.Q2 ch2.S8",
	  "a pinned async copy overlaps a kernel on another stream: both take about as long "
	  "as the longer of the two",
	  "ch1 pinned-memory table: a copy from pinned memory is truly asynchronous and can "
	  "overlap compute (no figure)",
	  "R7 'about as long as the longer' -> together / longer near 1 +- 25 %, the worse "
	  "issue order; the kernel lasts as long as the copy, so serial gives 2",
	  WANT_NEAR(1, 0.25, "x"),
	  "the \"pinned\" source is pageable memory: issued first, its call holds the thread "
	  "until the copy is staged, so the kernel starts after it" },
	{ "03.4", "ch1.E1",
	  "rewriting a pinned buffer right after its async copy was issued lets the GPU see "
	  "the next step's data",
	  "ch1 exercise 1: with a pinned buffer, to() may return before the DMA is done, the "
	  "next buf.copy_ rewrites buf, and the GPU may read part of the next step",
	  "R11 a behaviour -> words holding the next step's data > 0 (an exact count)",
	  WANT_GT(0, "words"),
	  "the buffer is pageable memory: the call stages the data before it returns, so the "
	  "rewrite after it cannot reach the copy" },
	{ "03.5", "ch1.E1",
	  "two pinned buffers used in turn, each rewritten only after its copy's event, give "
	  "zero torn words over many steps",
	  "ch1 exercise 1: the fix rotates two pinned buffers and waits on a CUDA event of a "
	  "buffer's copy before rewriting it",
	  "R11 exact -> 0 torn words",
	  WANT_INT(0, "words"), "one buffer, rewritten without waiting for its copy" },
	{ "03.6", "ch1.E1",
	  "in the chapter's loop on one pageable buffer the calling thread waits out each "
	  "copy: none of it overlaps",
	  "ch1 exercise 1: with a pageable buffer to() is a synchronous CPU copy into the "
	  "staging buffer: no overlap at all, every step waits for a copy",
	  "R9 'no overlap at all' -> share of the copy the host does not wait out <= 0.05 "
	  "(negligible), of a 32 MiB copy.  Method changed after the H200 runs, the want not: "
	  "at 8 MiB the call's return before its last staged chunk's DMA (15-25 us) was "
	  "1.2-6.5 % in four runs and 03.6 inconclusive in three; that tail is one chunk "
	  "whatever the size, the wait the chapter means grows with it.  Then the copies "
	  "timed after each round (two modes, intervals of +-8 %) gave way to the same "
	  "copies timed in the loop by events around each call",
	  WANT_LE(0.05, "fraction"),
	  "the \"pageable\" buffer of the loop is pinned, so the call returns at once" },
	{ "03.7", "ch1.E1",
	  "the two-buffer pinned loop still overlaps the copy with the compute: most of the "
	  "copy is hidden from the step time",
	  "ch1 exercise 1: with pinned buffers the copy is truly asynchronous; rotating two "
	  "buffers with events keeps it correct, as engines prepare inputs",
	  "R9 'most of' -> (copy + compute alone - step) / copy >= 0.8, with the compute the "
	  "longest part of a step",
	  WANT_GE(0.8, "fraction"),
	  "the copies go on the compute stream, so each waits for the previous step's compute "
	  "and none of it is hidden" },
	{ "03.8", "ch1.E1",
	  "the chapter's loop on one pageable buffer, rewritten right after each call, is "
	  "correct: zero torn words over many steps",
	  "ch1 exercise 1: with a pageable buffer the code is correct, because to() has copied "
	  "the data into the staging buffer before it returns",
	  "R11 exact -> 0 torn words",
	  WANT_INT(0, "words"),
	  "the \"pageable\" buffer of the loop is pinned, so the rewrite races the queued copy" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static long opt_steps;
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_LONG("steps", opt_steps, 1000, 200, 10, 1000000,
		     "steps of each buffer-reuse loop, over 11 rounds, at least 30 a round (the "
		     "chapter's loop: a quarter of them, of 4x the bytes, at least 16 a round)"),
	{ NULL }
};

#define MIN_CLAIM_BYTES (64 * MiB)       /* 03.1-03.3: a pinned call << 5 % of the copy */
#define LOOP_ROUNDS 11                   /* drops the slowest and fastest round at 1 - 0.05/3 */
enum { MIN_ROUND_STEPS = 30, MIN_CHAPTER_STEPS = 16 };

/* --size, the size 03.1-03.3 are decided at, is copied as 32-bit words. */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	char sz[32];

	if (o->size_given && o->size % sizeof(uint32_t))
		return lab_usage_error(L, "size", lab_size_arg(o->size, sz, sizeof(sz)),
				       "must be a multiple of 4 bytes");
	return 0;
}

static const struct lab_spec spec = {
	.id = "03",
	.title = "async copies and the buffer-reuse race",
	.topic = "when cudaMemcpyAsync returns, whether a copy overlaps a kernel, and what "
		 "the GPU reads when the host reuses a copy's source buffer too early",
	.timeout_s = 120,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.default_size = 256 * MiB,
	.quick_size = 64 * MiB,
	.min_size = MIN_CLAIM_BYTES,
	.size_why = ", so that a pinned call's fixed cost stays far under 5 % of the copy",
	.default_iters = 7,
	.check_opts = check_opts,
	.knobs = knobs,
};

#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"

#define QUEUE_SPIN_NS 5000000ULL         /* outlasts any pinned call by far */
#define RACE_SPIN_NS 20000000ULL         /* outlasts the host's rewrite */
#define PART_FRONT_NS 100000ULL          /* in front of a part of the fix timed alone */
#define LOOP_BYTES (8 * MiB)
#define LOOP_WORDS (LOOP_BYTES / sizeof(uint32_t))
/* The chapter's loop (03.6, 03.8): a pageable call returns once its last chunk
 * is staged, before that chunk's DMA, 15-25 us on an H200: 2-4 % of 8 MiB, on
 * 03.6's 5 % line; under 1 % of this.  Its rounds carry LOOP_BYTES' bytes. */
#define CHAPTER_BYTES (32 * MiB)
#define PINNED_BATCH 8                   /* one pinned call is near the host clock's step */
#define OV_MIN_SAMPLES 11                /* fewer give 03.3's 4 series infinite intervals */
static const struct lab_measure_cfg ov_note = { 0, 5, 0, 0, 5 }; /* 5 samples, no more */
#define PART_SAMPLES 3                   /* copy and compute alone, per round */
#define SPAN_RING 32                     /* event pairs of the chapter's copies, in turn */
#define WARM_STEPS 2                     /* loop steps before the timed period */
#define COMPUTE_OVER_PARTS 2.0           /* compute / the longer of refill and copy */
#define PART_STEP 0x5eedu                /* pattern of the parts timed alone */
#define VERIFY_STEP 7u                   /* pattern of the sweep and overlap copies */
enum { CALL_WARMUP = 2 };

struct rig {
	struct lab *L;
	uint64_t bytes, sweep_max, big_bytes;  /* 03.1-03.3's copy; the sweep's largest */
	uint32_t *big_pinned, *big_pageable, *big_d;             /* big_bytes each */
	/* LOOP_BYTES each; [0] of the host's and both device ones CHAPTER_BYTES */
	uint32_t *loop_pinned[2], *loop_pageable[2], *loop_d[2];
	unsigned long long *slots, *got; /* two counters a step, on the GPU; their copy */
	cudaStream_t s, s2;          /* copies and kernels in front of them; the other */
	struct cuda_timer timer, period; /* one job; a loop's compute stream, step W on */
	cudaEvent_t copied[2], computed[2];
	cudaEvent_t span[SPAN_RING][2]; /* a chapter step's copy: before it, after it */
	int round_steps, natural_steps;
	uint64_t spin_ns;            /* the fix's compute beyond the check */
};

/* The big source of a "pinned" (1) or "pageable" (0) case; a broken knob
 * gives the other kind. */
static const uint32_t *big_src(const struct rig *r, int pinned)
{
	if (pinned)
		return K.pinned_source ? r->big_pinned : r->big_pageable;
	return K.pageable_source ? r->big_pageable : r->big_pinned;
}

/* Sizes, memory or a skip, buffers (every host page written: none faults while
 * timed), events and streams, all released at exit. */
static void rig_setup(struct lab *L, struct rig *r)
{
	const struct lab_opts *o = lab_options(L);
	int j, most;

	r->L = L;
	r->bytes = o->size;
	r->sweep_max = o->quick ? 16 * MiB : 256 * MiB; /* the claims' size: no larger */
	r->big_bytes = r->sweep_max > r->bytes ? r->sweep_max : r->bytes;
	r->natural_steps = o->quick ? 50 : 200;
	r->round_steps = opt_steps / LOOP_ROUNDS > MIN_ROUND_STEPS ? (int)opt_steps / LOOP_ROUNDS
								   : MIN_ROUND_STEPS;
	most = r->round_steps > r->natural_steps ? r->round_steps : r->natural_steps;
	lab_cuda_require(L, 1);
	lab_cuda_require_free(L, need_bytes(1, r->big_bytes, 2 * CHAPTER_BYTES + 256 * MiB), "");
	need_ram_require(L, 4, r->big_bytes);
	r->big_pinned = (uint32_t *)lab_cuda_alloc(L, LAB_BUF_PINNED, r->big_bytes);
	r->big_pageable = (uint32_t *)lab_cuda_alloc(L, LAB_BUF_PAGEABLE, r->big_bytes);
	r->big_d = (uint32_t *)lab_cuda_alloc(L, LAB_BUF_DEVICE, r->big_bytes);
	buf_fill_down(r->big_pinned, r->big_bytes, VERIFY_STEP);
	buf_fill_down(r->big_pageable, r->big_bytes, VERIFY_STEP);
	for (j = 0; j < 2; j++) {
		uint64_t host = j ? LOOP_BYTES : CHAPTER_BYTES;

		r->loop_pinned[j] = (uint32_t *)lab_cuda_alloc(L, LAB_BUF_PINNED, host);
		r->loop_pageable[j] = (uint32_t *)lab_cuda_alloc(L, LAB_BUF_PAGEABLE, host);
		r->loop_d[j] = (uint32_t *)lab_cuda_alloc(L, LAB_BUF_DEVICE, CHAPTER_BYTES);
		buf_fill_down(r->loop_pinned[j], host, 0);
		buf_fill_down(r->loop_pageable[j], host, 0);
		r->copied[j] = lab_cuda_event_new(L, cudaEventDisableTiming);
		r->computed[j] = lab_cuda_event_new(L, cudaEventDisableTiming);
	}
	for (j = 0; j < SPAN_RING; j++) {
		r->span[j][0] = lab_cuda_event_new(L, cudaEventDefault);
		r->span[j][1] = lab_cuda_event_new(L, cudaEventDefault);
	}
	r->slots = (unsigned long long *)lab_cuda_alloc(L, LAB_BUF_DEVICE,
							 2 * most * sizeof(*r->slots));
	r->got = (unsigned long long *)lab_cuda_alloc(L, LAB_BUF_PAGEABLE,
						       2 * most * sizeof(*r->got));
	r->s = lab_cuda_stream_new(L);
	r->s2 = lab_cuda_stream_new(L);
	cuda_timer_init(L, &r->timer);
	cuda_timer_init(L, &r->period);
}

/* ------------------------------------------------------------------------ */
/* One timed run: the call on the host's clock, its work on the GPU's         */

/* Queues the work of a job on stream s (CUDA_CHECK on each call). */
typedef void (*issue_fn)(void *ctx, cudaStream_t s);

/*
 * Work timed on the GPU's clock and the host's at once: a spin of front_ns,
 * the start event, issue(), the stop event.  The spin makes the events time
 * the GPU doing the work, not the host issuing it, and shows whether
 * issue() waits for the GPU (host_s): 03.1 and 03.2 are that difference.
 */
struct timed_job {
	struct lab *L;             /* for CUDA_CHECK */
	cudaStream_t stream;
	struct cuda_timer *timer;  /* made by cuda_timer_init */
	uint64_t front_ns;         /* spin queued before the start event; 0: none */
	issue_fn issue;
	void *ctx;                 /* issue's */
	double host_s;             /* out: seconds inside issue(), the last run */
};

/* lab_run_fn: one run of the job, its GPU seconds (host_s beside them). */
static double timed_job_run(void *job)
{
	struct timed_job *j = (struct timed_job *)job;
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

/* `warmup` runs unkept, then n paired samples: gpu_s[i], host_s[i] (may be NULL). */
static void timed_job_samples(struct timed_job *job, int warmup, int n, double *gpu_s,
			      double *host_s)
{
	int i;

	for (i = -warmup; i < n; i++) {
		double g = timed_job_run(job);

		if (i >= 0) {
			gpu_s[i] = g;
			if (host_s)
				host_s[i] = job->host_s;
		}
	}
}

/* timed_job_samples as two series, divided by `per` after too_short is judged. */
static void timed_job_series(struct timed_job *job, int warmup, int n, int per,
			     const char *host_name, const char *gpu_name,
			     struct lab_stats *host, struct lab_stats *gpu)
{
	double h[LAB_MAX_SAMPLES], g[LAB_MAX_SAMPLES];

	n = n < LAB_MAX_SAMPLES ? n : LAB_MAX_SAMPLES;
	timed_job_samples(job, warmup, n, g, h);
	lab_stats_from(host, host_name, "s", h, n, 0);
	lab_stats_from(gpu, gpu_name, "s", g, n, LAB_CUDA_EVENT_RES_S);
	host->warmup = gpu->warmup = warmup;
	if (per > 1) {
		lab_stats_scale(host, 1.0 / per, "s");
		lab_stats_scale(gpu, 1.0 / per, "s");
	}
}

/* 1 while work queued on s has not finished, 0 when idle; cudaErrorNotReady is
 * cleared so that a later cudaGetLastError does not see it. */
static int stream_busy(struct lab *L, cudaStream_t s)
{
	cudaError_t e = cudaStreamQuery(s);

	if (e == cudaErrorNotReady) {
		cudaGetLastError();
		return 1;
	}
	CUDA_CHECK(L, e);
	return 0;
}

/* The copy every part makes: n H2D copies of `bytes` queued on a stream. */
struct h2d {
	struct lab *L;
	void *dst;
	const void *src;
	uint64_t bytes;
	int n;
};

/* An issue_fn: timed_job_run records an event before and after it and
 * times the host inside it, which is the call's time. */
static void issue_h2d(void *arg, cudaStream_t s)
{
	const struct h2d *c = (const struct h2d *)arg;

	for (int i = 0; i < c->n; i++)
		CUDA_CHECK(c->L, cudaMemcpyAsync(c->dst, c->src, (size_t)c->bytes,
						 cudaMemcpyHostToDevice, s));
}

/* A kernel on stream s that holds it ns of GPU time: one thread spinning. */
static void launch_spin(struct lab *L, cudaStream_t s, uint64_t ns)
{
	lab_spin_kernel<<<1, 1, 0, s>>>(ns);
	CUDA_CHECK_LAUNCH(L, 0);
}

/* Part 1: how long the call holds the thread (03.1, 03.2) */
enum { WAY_PAGEABLE, WAY_PINNED, WAY_PINNED_IDLE, WAY_PAGEABLE_QUEUED, NWAYS };

static const struct call_way {
	const char *call, *copy;    /* series names */
	int pinned;                 /* big_src() */
	uint64_t spin_ns;           /* a kernel in front on the same stream; 0: idle stream */
} ways[NWAYS] = {
	{ "call_pageable", "copy_pageable", 0, 0 },
	{ "call_pinned", "copy_pinned", 1, QUEUE_SPIN_NS },
	{ "call_pinned_idle", "copy_pinned_idle", 1, 0 },
	{ "call_pageable_queued", "copy_pageable_queued", 0, QUEUE_SPIN_NS },
};

/* Paired call and copy samples (timed_job_series); memory the driver
 * calls pinned is timed PINNED_BATCH calls a sample, then scaled to one. */
static void measure_way(struct rig *r, const struct call_way *w, uint64_t bytes,
			struct lab_stats *call, struct lab_stats *copy)
{
	struct h2d cp = { r->L, r->big_d, big_src(r, w->pinned), bytes, 1 };
	struct timed_job job = { r->L, r->s, &r->timer, w->spin_ns, issue_h2d, &cp };
	int pinned = lab_cuda_host_pinned(cp.src);

	cp.n = (pinned < 0 ? w->pinned : pinned) ? PINNED_BATCH : 1;
	timed_job_series(&job, CALL_WARMUP, lab_options(r->L)->iters, cp.n, w->call, w->copy,
			 call, copy);
}

/* The sweep: 4 KiB x 16^k up to sweep_max, sweep_max, and the claim size. */
#define SIZE_AFTER(r, b) sizes_next(b, 4 * KiB, 16, (r)->sweep_max, &(r)->bytes, 1)

static void calls(struct rig *r)
{
	struct lab_stats at[NWAYS][2], other[2]; /* call, copy; at: at the claim size */
	const struct lab_stats *pg = at[WAY_PAGEABLE], *pin = at[WAY_PINNED];
	const struct lab_stats *q = at[WAY_PAGEABLE_QUEUED];
	struct lab *L = r->L;
	uint64_t b;
	char sz[32];
	int w;

	for (b = SIZE_AFTER(r, 0); b; b = SIZE_AFTER(r, b)) {
		lab_progress(L, MSG("03.progress-1", "call vs copy time: %s"),
			     lab_fmt_size(b, sz, sizeof(sz)));
		for (w = 0; w < NWAYS; w++) {
			struct lab_stats *st = b == r->bytes ? at[w] : other;

			measure_way(r, &ways[w], b, &st[0], &st[1]);
			lab_series_point(L, ways[w].call, "bytes", (double)b, &st[0]);
			lab_series_point(L, ways[w].copy, "bytes", (double)b, &st[1]);
		}
	}
	lab_fmt_size(r->bytes, sz, sizeof(sz));
	lab_fact_num(L, "pageable_call_over_copy", pg[0].median / pg[1].median, "x");
	lab_fact_num(L, "pinned_call_over_copy", pin[0].median / pin[1].median, "x");
	lab_note(L, MSG("03.pageable-call",
		"%s pageable behind a kernel: call %.2f ms, copy %.2f ms"), sz,
		 q[0].median * 1e3, q[1].median * 1e3);
	claim_note(L, MSG("03.note-1",
		"%s pageable, idle stream: call %.2f ms, copy %.2f ms"), sz,
		   pg[0].median * 1e3, pg[1].median * 1e3);
	/* call and copy come from the same run: decide on each run's call / copy */
	claim_check_paired(L, "03.1", "call_over_copy_pageable", &pg[0], &pg[1]);
	claim_note(L, MSG("03.note-2",
		"%s pinned behind a kernel: call %.1f us (max %.1f), copy %.2f ms; idle stream "
		"call %.1f us"), sz, pin[0].median * 1e6, pin[0].max * 1e6,
		   pin[1].median * 1e3, at[WAY_PINNED_IDLE][0].median * 1e6);
	claim_check_paired(L, "03.2", "call_over_copy_pinned", &pin[0], &pin[1]);
}

/* Part 2: a copy and a kernel on two streams (03.3) */
enum { OV_COPY, OV_KERNEL, OV_COPY_FIRST, OV_KERNEL_FIRST, OV_N };

struct ov_ctx {
	struct rig *r;
	const void *src;
	uint64_t spin_ns;          /* the kernel's: as long as the copy alone */
	int what;                  /* OV_* */
};

/* Host wall time from the first issue until both streams are idle (s). */
static double ov_run(void *p)
{
	struct ov_ctx *c = (struct ov_ctx *)p;
	struct rig *r = c->r;
	double t0 = lab_now();

	if (c->what == OV_KERNEL || c->what == OV_KERNEL_FIRST)
		launch_spin(r->L, r->s2, c->spin_ns);
	if (c->what != OV_KERNEL)
		CUDA_CHECK(r->L, cudaMemcpyAsync(r->big_d, c->src, r->bytes,
						 cudaMemcpyHostToDevice, r->s));
	if (c->what == OV_COPY_FIRST)
		launch_spin(r->L, r->s2, c->spin_ns);
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->s));
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->s2));
	return lab_now() - t0;
}

/* Series names [pinned][OV_*], then the facts of x[0] and x[1]. */
static const char *const ov_names[2][OV_N + 2] = {
	{ "overlap_copy_pageable", "overlap_kernel_pageable",
	  "overlap_both_pageable_copy_first", "overlap_both_pageable_kernel_first",
	  "overlap_pageable_copy_first", "overlap_pageable_kernel_first" },
	{ "overlap_copy_pinned", "overlap_kernel_pinned", "overlap_both_pinned_copy_first",
	  "overlap_both_pinned_kernel_first", "overlap_pinned_copy_first",
	  "overlap_pinned_kernel_first" },
};

/* The kernel spins as long as the copy alone took: serial then gives 2 x the
 * longer, overlapped 1 x (beside a much longer kernel serial would hide in
 * +25 %).  x[0], x[1]: together / the longer, copy issued first, kernel first. */
static void overlap(struct rig *r, int pinned, struct lab_stats *s, struct lab_est *x)
{
	struct ov_ctx c = { r, big_src(r, pinned), 0, OV_COPY };
	struct lab_measure_cfg cfg = { 0, lab_options(r->L)->iters, 0, 0 };
	struct lab_est longer;

	cfg.samples = cfg.samples > OV_MIN_SAMPLES ? cfg.samples : OV_MIN_SAMPLES;
	cfg = pinned ? cfg : ov_note; /* pageable: the note's facts, no claim's */
	for (c.what = OV_COPY; c.what < OV_N; c.what++) {
		lab_measure(r->L, ov_names[pinned][c.what], ov_run, &c, &cfg, &s[c.what]);
		c.spin_ns = (uint64_t)(s[OV_COPY].median * 1e9);
	}
	longer = lab_est_max(lab_est_median(&s[OV_COPY], OV_N),
			     lab_est_median(&s[OV_KERNEL], OV_N));
	x[0] = lab_est_ratio(lab_est_median(&s[OV_COPY_FIRST], OV_N), longer);
	x[1] = lab_est_ratio(lab_est_median(&s[OV_KERNEL_FIRST], OV_N), longer);
	lab_fact_num(r->L, ov_names[pinned][OV_N], x[0].value, "x");
	lab_fact_num(r->L, ov_names[pinned][OV_N + 1], x[1].value, "x");
}

static void overlaps(struct rig *r)
{
	struct lab_stats pin[OV_N], pg[OV_N];
	struct lab_est xpin[2], xpg[2];
	struct lab *L = r->L;
	int i;

	lab_progress(L, MSG("03.progress-2", "overlap of a copy and a kernel on two streams"));
	overlap(r, 1, pin, xpin);
	overlap(r, 0, pg, xpg);
	lab_note(L, MSG("03.pageable-overlap",
		"pageable copy %.2f ms and a kernel as long: %.2f x the longer copy first, "
		 "%.2f x kernel first"), pg[OV_COPY].median * 1e3, xpg[0].value, xpg[1].value);
	for (i = 0; i < OV_N; i++)
		claim_stats(L, &pin[i]);
	claim_note(L, MSG("03.note-3",
		"pinned copy %.2f ms, kernel %.2f ms: %.3f x the longer copy first, %.3f x "
		"kernel first; the larger counts"), pin[OV_COPY].median * 1e3,
		   pin[OV_KERNEL].median * 1e3, xpin[0].value, xpin[1].value);
	claim_check(L, "03.3", lab_est_max(xpin[0], xpin[1]));
	lab_gpu_verify(L, r->s, r->big_d, r->bytes, VERIFY_STEP, "the copies' data");
}

/* Part 3: the race (03.4): step 1's copy waits behind a spin kernel while
 * the host writes step 2's data into its pinned source. */
static void race(struct rig *r)
{
	struct lab *L = r->L;
	uint32_t *h = K.race_pinned ? r->loop_pinned[0] : r->loop_pageable[0];
	long long got[2];
	double t0, rewrite_s;
	int queued;

	buf_fill_down(h, LOOP_BYTES, 1);
	launch_spin(L, r->s, RACE_SPIN_NS);
	CUDA_CHECK(L, cudaMemcpyAsync(r->loop_d[0], h, LOOP_BYTES, cudaMemcpyHostToDevice,
				      r->s));
	t0 = lab_now();
	buf_fill_down(h, LOOP_BYTES, 2);
	rewrite_s = lab_now() - t0;
	queued = stream_busy(L, r->s);
	CUDA_CHECK(L, lab_gpu_count_on(r->s, r->loop_d[0], LOOP_BYTES, 1, 2, got));
	lab_fact_num(L, "race_torn_words", (double)got[1], "words");
	lab_fact_num(L, "race_rewrite_s", rewrite_s, "s");
	if (queued)
		claim_note(L, MSG("03.note-4",
			"%lld of %zu words held step 2's data, %lld not step 1's; rewrite %.2f ms, "
			"copy then still queued"), got[1], (size_t)LOOP_WORDS, got[0],
			   rewrite_s * 1e3);
	else
		claim_note(L, MSG("03.note-4-done",
			"%lld of %zu words held step 2's data, %lld not step 1's; rewrite %.2f ms, "
			"copy then done"), got[1], (size_t)LOOP_WORDS, got[0], rewrite_s * 1e3);
	claim_check_int(L, "03.4", (long long)got[1]);
}

/* Part 4: the loops (03.5 - 03.8).  A step refills a host buffer, copies it and
 * checks it on the GPU.  The chapter's: one buffer, copy and check on one stream
 * (as .to() and model()).  The fix (fix_step, exercise 03.fix-race): two pinned
 * buffers in turn, the check on the other stream after the copy's event, a buffer
 * rewritten after its last copy. */
struct loop {
	uint32_t *h;         /* the chapter's host buffer */
	int fix;             /* the fix (fix_step); 0: the chapter's loop */
	uint64_t bytes;      /* a step's copy */
	int steps;
	uint32_t base;       /* step values start after it: rounds never repeat one */
	int computes;        /* fix_compute calls in the last run: one a step */
	double held_s;       /* host time in the calls (the chapter's), or in whole steps
			      * (the fix's), all steps of the last run */
	int timed;           /* the chapter's rounds (03.6): events time each step's copy */
	double copy_s;       /* then its copies' GPU time, all steps of the last run */
	unsigned long long torn, most; /* words not their step's: all runs, the worst step */
	int torn_steps;
};

/*
 * A step's compute, standing for the chapter's model(): it reads the step's
 * data where the copy put it, counting into slot[0] the words not of `step`
 * and into slot[1] those already of step + 1 (torn by the next refill), then
 * one thread holds the stream spin_ns, the rest of the step's work.
 */
static __global__ void step_kernel(const uint32_t *d, uint64_t words, uint32_t step,
				   uint64_t spin_ns, unsigned long long *slot)
{
	lab_gpu_count_words(d, words, step, step + 1, slot);
	if (spin_ns && blockIdx.x == 0 && threadIdx.x == 0)
		lab_gpu_spin(spin_ns);
}

/* step_kernel over the first `bytes` of a loop buffer on the device, queued on s. */
static void launch_step(struct lab *L, cudaStream_t s, const uint32_t *d, uint64_t bytes,
			uint32_t step, uint64_t spin_ns, unsigned long long *slot)
{
	uint64_t words = bytes / sizeof(uint32_t);

	step_kernel<<<lab_buf_grid(words), LAB_BUF_THREADS, 0, s>>>(d, words, step, spin_ns,
								     slot);
	CUDA_CHECK_LAUNCH(L, 0);
}

/* Adds step k's copy, timed on the GPU by its event pair, to c->copy_s. */
static void span_add(struct rig *r, struct loop *c, int k)
{
	cudaEvent_t *ev = r->span[k % SPAN_RING];

	c->copy_s += lab_cuda_event_seconds(r->L, ev[0], ev[1]);
}

/* A step of the chapter's loop: refill, copy and compute on one stream; returns
 * the host's time in the call.  In the timed rounds events around the copy time the
 * same copy on the GPU (03.6 pairs the two); a pair is read before its reuse,
 * SPAN_RING steps on.  The unforced race (race_natural) records none. */
static double chapter_step(struct rig *r, struct loop *c, int k, uint32_t step)
{
	struct lab *L = r->L;
	cudaEvent_t *ev = r->span[k % SPAN_RING];
	double t0;

	if (c->timed && k >= SPAN_RING)
		span_add(r, c, k - SPAN_RING);
	buf_fill_down(c->h, c->bytes, step);
	if (c->timed)
		CUDA_CHECK(L, cudaEventRecord(ev[0], r->s));
	t0 = lab_now();
	CUDA_CHECK(L, cudaMemcpyAsync(r->loop_d[0], c->h, c->bytes, cudaMemcpyHostToDevice,
				      r->s));
	t0 = lab_now() - t0;
	if (c->timed)
		CUDA_CHECK(L, cudaEventRecord(ev[1], r->s));
	launch_step(L, r->s, r->loop_d[0], c->bytes, step, 0, r->slots + 2 * (size_t)k);
	return t0;
}

/* The compute of the fix's step k on device buffer j, always on the compute stream
 * r->s2, whose events time the step (03.7): the harness's part of fix_step. */
static void fix_compute(struct rig *r, struct loop *c, int k, int j, uint32_t step)
{
	launch_step(r->L, r->s2, r->loop_d[j], LOOP_BYTES, step, r->spin_ns,
		    r->slots + 2 * (size_t)k);
	if (k == WARM_STEPS)
		cuda_timer_start(r->L, &r->period, r->s2);
	if (k == c->steps - 1)
		cuda_timer_stop(r->L, &r->period, r->s2);
	c->computes++;
}

/* Step k of the fix: `step` in every word of a pinned host buffer, copied to the
 * GPU and checked there by fix_compute.  Knobs broken: one buffer and no wait
 * (03.5); the copies on the compute stream, behind the step before (03.7). */
static void fix_step(struct rig *r, struct loop *c, int k, uint32_t step)
{
	struct lab *L = r->L;

	/* EXERCISE 03.fix-race grades 03.5 03.7: make the loop correct and still
	 * overlapped.  Take the pinned buffer r->loop_pinned[j] and its device copy
	 * r->loop_d[j] in turn, j = k % 2.  Before the host refills buffer j
	 * (buf_fill_down(host, LOOP_BYTES, step)) wait until the copy that last read it has
	 * ended (cudaEventSynchronize on r->copied[j]).  Copy it on the copy stream r->s
	 * once the compute that last read r->loop_d[j] is over (cudaStreamWaitEvent on
	 * r->computed[j]), record r->copied[j] there, make the compute stream r->s2 wait
	 * for it, then fix_compute(r, c, k, j, step) and record r->computed[j] on r->s2 */
	int j = K.fix_two_buffers ? k % 2 : 0;
	cudaStream_t cs = K.fix_copy_stream ? r->s : r->s2;

	if (K.fix_two_buffers)
		CUDA_CHECK(L, cudaEventSynchronize(r->copied[j]));
	buf_fill_down(r->loop_pinned[j], LOOP_BYTES, step);
	CUDA_CHECK(L, cudaStreamWaitEvent(cs, r->computed[j], 0));
	CUDA_CHECK(L, cudaMemcpyAsync(r->loop_d[j], r->loop_pinned[j], LOOP_BYTES,
				      cudaMemcpyHostToDevice, cs));
	CUDA_CHECK(L, cudaEventRecord(r->copied[j], cs));
	CUDA_CHECK(L, cudaStreamWaitEvent(r->s2, r->copied[j], 0));
	fix_compute(r, c, k, j, step);
	CUDA_CHECK(L, cudaEventRecord(r->computed[j], r->s2));
	/* STUB
	// the chapter's loop: one pinned buffer, refilled while its last copy may still be
	// queued, and copied on the compute stream, so nothing overlaps either
	buf_fill_down(r->loop_pinned[0], LOOP_BYTES, step);
	CUDA_CHECK(L, cudaMemcpyAsync(r->loop_d[0], r->loop_pinned[0], LOOP_BYTES,
				      cudaMemcpyHostToDevice, r->s2));
	fix_compute(r, c, k, 0, step);
	END STUB */
	/* END EXERCISE */
}

/* Runs the loop once, counting torn words; returns the fix's compute stream time
 * from step WARM_STEPS to the last, or the chapter loop's host time in the calls. */
static double loop_run(struct rig *r, struct loop *c)
{
	struct lab *L = r->L;
	size_t bytes = 2 * (size_t)c->steps * sizeof(*r->slots);
	unsigned long long *got = r->got;
	double sample, t0;
	int j, k;

	c->held_s = 0;
	c->copy_s = 0;
	c->computes = 0;
	CUDA_CHECK(L, cudaMemset(r->slots, 0, bytes));
	for (j = 0; c->fix && j < 2; j++) {
		CUDA_CHECK(L, cudaEventRecord(r->copied[j], r->s));
		CUDA_CHECK(L, cudaEventRecord(r->computed[j], r->s2));
	}
	CUDA_CHECK(L, cudaDeviceSynchronize());
	for (k = 0; k < c->steps; k++) {
		if (!c->fix) {
			c->held_s += chapter_step(r, c, k, c->base + (uint32_t)k + 1);
			continue;
		}
		t0 = lab_now();
		fix_step(r, c, k, c->base + (uint32_t)k + 1);
		c->held_s += lab_now() - t0;
	}
	CUDA_CHECK(L, cudaDeviceSynchronize());
	for (k = c->steps > SPAN_RING ? c->steps - SPAN_RING : 0; c->timed && k < c->steps; k++)
		span_add(r, c, k);
	if (c->fix && c->computes != c->steps) /* the step's timing and check are fix_compute */
		lab_error(L, "fix_step called fix_compute %d times in %d steps: once a step",
			  c->computes, c->steps);
	sample = c->fix ? cuda_timer_seconds(L, &r->period) : c->held_s;
	CUDA_CHECK(L, cudaMemcpy(got, r->slots, bytes, cudaMemcpyDeviceToHost));
	for (k = 0; k < c->steps; k++) {
		c->torn += got[2 * k];
		c->torn_steps += got[2 * k] != 0;
		c->most = got[2 * k] > c->most ? got[2 * k] : c->most;
	}
	return sample;
}

/* The compute of a step alone, on the data a copy of PART_STEP brought. */
static void issue_compute(void *rig, cudaStream_t s)
{
	struct rig *r = (struct rig *)rig;

	launch_step(r->L, s, r->loop_d[1], LOOP_BYTES, PART_STEP, r->spin_ns, r->slots);
}

/* PART_SAMPLES GPU times of a copy of `bytes` of src alone (NULL: of the compute),
 * at v[*n]. */
static void sample_part(struct rig *r, const void *src, uint64_t bytes, uint64_t front_ns,
			double *v, int *n)
{
	struct h2d cp = { r->L, r->loop_d[1], src, bytes, 1 };
	struct timed_job job = { r->L, r->s, &r->timer, front_ns, issue_h2d, &cp };

	if (!src) {
		job.issue = issue_compute;
		job.ctx = r;
	}
	timed_job_samples(&job, 0, PART_SAMPLES, v + *n, NULL);
	*n += PART_SAMPLES;
}

/* LOOP_ROUNDS rounds.  The fix's, each followed by its parts alone (a slow stretch
 * reaches both): the copy, the compute on matching words (no atomics), behind a
 * spin so events time the GPU, not the launch.  s[]: step, copy, compute.  The
 * chapter's rounds time each copy in the loop itself; s[]: call, copy, a step each. */
static void rounds(struct rig *r, struct loop *c, const char *const *names,
		   struct lab_stats *s)
{
	double loop[LOOP_ROUNDS], t[2][LOOP_ROUNDS * PART_SAMPLES], held = 0;
	int round, n[2] = { 0, 0 };

	lab_progress(r->L, c->fix ?
		     MSG("03.loop-fixed", "buffer-reuse loop, two pinned buffers, %d rounds") :
		     MSG("03.loop-chapter", "the chapter's loop, one buffer, %d rounds"),
		     LOOP_ROUNDS);
	c->steps = (int)(r->round_steps * LOOP_BYTES / c->bytes); /* a round: the same bytes */
	if (c->steps < MIN_CHAPTER_STEPS)
		c->steps = MIN_CHAPTER_STEPS;
	for (round = 0; round < LOOP_ROUNDS; round++) {
		c->base = (uint32_t)(round * c->steps);
		loop[round] = loop_run(r, c);
		held += c->held_s / c->steps;
		if (!c->fix) {
			t[0][n[0]++] = c->copy_s / c->steps;
			continue;
		}
		buf_fill_down(r->loop_pinned[1], LOOP_BYTES, PART_STEP);
		sample_part(r, r->loop_pinned[1], c->bytes, PART_FRONT_NS, t[0], &n[0]);
		sample_part(r, NULL, LOOP_BYTES, PART_FRONT_NS, t[1], &n[1]);
	}
	c->held_s = held / LOOP_ROUNDS;
	/* whole rounds against the clock's step (one pinned call is near it), then per step */
	lab_stats_from(&s[0], names[0], "s", loop, LOOP_ROUNDS,
		       c->fix ? LAB_CUDA_EVENT_RES_S : 0);
	lab_stats_scale(&s[0], 1.0 / (c->fix ? c->steps - 1 - WARM_STEPS : c->steps), "s");
	lab_stats_from(&s[1], names[1], "s", t[0], n[0], LAB_CUDA_EVENT_RES_S);
	if (c->fix)
		lab_stats_from(&s[2], names[2], "s", t[1], n[1], LAB_CUDA_EVENT_RES_S);
}

/* v[r]: the median of round r's PART_SAMPLES part times (parts: LOOP_ROUNDS x
 * PART_SAMPLES, in round order), the value paired with round r's loop. */
static void round_medians(const struct lab_stats *parts, double *v)
{
	double part[PART_SAMPLES];

	for (int round = 0; round < LOOP_ROUNDS; round++) {
		memcpy(part, parts->samples + round * PART_SAMPLES, sizeof(part));
		v[round] = lab_median(part, PART_SAMPLES);
	}
}

/* 03.7's share of the copy hidden, (copy + compute alone - step) / copy alone, of
 * each round (fx: step, copy, compute), so that a slow round slows all three. */
static void hidden_per_round(struct lab_stats *out, const struct lab_stats *fx)
{
	double copy[LOOP_ROUNDS], compute[LOOP_ROUNDS], v[LOOP_ROUNDS];

	round_medians(&fx[1], copy);
	round_medians(&fx[2], compute);
	for (int round = 0; round < LOOP_ROUNDS; round++)
		v[round] = (copy[round] + compute[round] - fx[0].samples[round]) / copy[round];
	lab_stats_from(out, "fix_hidden_per_round", "fraction", v, LOOP_ROUNDS, 0);
	out->too_short = fx[0].too_short || fx[1].too_short || fx[2].too_short;
}

/* Which loop a torn-words claim counts: its note says it in a whole sentence. */
enum torn_loop { TORN_FIX, TORN_FIX_NO_WAIT, TORN_CHAPTER };

/* "%d steps in %d rounds, <which loop>: N torn words in M steps", and the claim. */
static void torn_claim(struct lab *L, const char *id, const struct loop *c, enum torn_loop which)
{
	int steps = LOOP_ROUNDS * c->steps;
	double worst = 100.0 * (double)c->most / (double)(c->bytes / sizeof(uint32_t));

	if (which == TORN_FIX)
		claim_note(L, MSG("03.note-torn-fix", "%d steps in %d rounds, the fix's steps "
			"(fix_step): %llu torn words in %d steps (worst %.2f %%)"), steps,
			   LOOP_ROUNDS, c->torn, c->torn_steps, worst);
	else if (which == TORN_FIX_NO_WAIT)
		claim_note(L, MSG("03.note-torn-no-wait", "%d steps in %d rounds, one pinned "
			"buffer, no wait (sabotage): %llu torn words in %d steps (worst %.2f %%)"),
			   steps, LOOP_ROUNDS, c->torn, c->torn_steps, worst);
	else
		claim_note(L, MSG("03.note-torn-chapter", "%d steps in %d rounds, refilled right "
			"after each call: %llu torn words in %d steps (worst %.2f %%)"), steps,
			   LOOP_ROUNDS, c->torn, c->torn_steps, worst);
	claim_check_int(L, id, (long long)c->torn);
}

/* The unforced race: the chapter's loop on a pinned buffer (a record). */
static void race_natural(struct rig *r)
{
	struct loop c = { .h = r->loop_pinned[0], .bytes = LOOP_BYTES, .steps = r->natural_steps };

	loop_run(r, &c);
	lab_fact_num(r->L, "natural_race_steps", c.steps, "steps");
	lab_fact_num(r->L, "natural_race_torn_steps", c.torn_steps, "steps");
	lab_fact_num(r->L, "natural_race_torn_words", (double)c.torn, "words");
	lab_note(r->L, MSG("03.race",
		"unforced race, %d steps on one pinned buffer: %d tore, %llu words, "
		 "worst %.2f %% of a step"), c.steps, c.torn_steps, c.torn,
		 100.0 * (double)c.most / (double)LOOP_WORDS);
}

/* The fix's compute spins COMPUTE_OVER_PARTS x the longer of refill and pinned copy alone:
 * a step takes the compute alone if the copy overlaps it, else both.  03.5 and 03.7 are
 * decided on the same rounds of fix_step (its knobs: there). */
static void loops(struct rig *r)
{
	static const char *const fix_names[] = { "fix_loop_step", "fix_copy_alone",
						 "fix_compute_alone" };
	static const char *const ch_names[] = { "chapter_loop_call", "chapter_copy_in_loop" };
	struct lab *L = r->L;
	struct lab_stats fill, copy, fx[3], ch[2];
	struct lab_measure_cfg ev = { 0, 0, 0, LAB_CUDA_EVENT_RES_S };
	struct h2d cp = { L, r->loop_d[1], r->loop_pinned[1], LOOP_BYTES, 1 };
	struct timed_job job = { L, r->s, &r->timer, 0, issue_h2d, &cp };
	struct loop fix = { .fix = 1, .bytes = LOOP_BYTES };
	struct loop chapter = { .h = K.chapter_pageable ? r->loop_pageable[0] : r->loop_pinned[0],
				.bytes = CHAPTER_BYTES, .timed = 1 };
	struct buf_refill refill = { r->loop_pinned[1], LOOP_BYTES, 0 };
	struct lab_stats call_share, hidden_round;
	struct lab_est hidden, free_share;
	double held;

	lab_measure(L, "loop_fill", buf_refill_sample, &refill, NULL, &fill);
	lab_measure(L, "loop_copy_pinned_sizing", timed_job_run, &job, &ev, &copy);
	r->spin_ns = (uint64_t)(COMPUTE_OVER_PARTS * (fill.median > copy.median ? fill.median :
						      copy.median) * 1e9);
	rounds(r, &fix, fix_names, fx);
	torn_claim(L, "03.5", &fix, K.fix_two_buffers ? TORN_FIX : TORN_FIX_NO_WAIT);
	/* the host's time in a step beyond the refill: its waits and calls */
	held = fix.held_s > fill.median ? fix.held_s - fill.median : 0;
	/* 03.7: the share of the copy hidden, (copy + compute alone - step) / copy alone,
	 * paired by round as 03.6 */
	hidden_per_round(&hidden_round, fx);
	hidden = lab_est_median(&hidden_round, 1);
	lab_fact_num(L, "loop_fill_s", fill.median, "s");
	lab_fact_num(L, "loop_step_pinned_s", fx[0].median, "s");
	lab_fact_num(L, "loop_copy_pinned_s", fx[1].median, "s");
	lab_fact_num(L, "loop_compute_s", fx[2].median, "s");
	lab_fact_num(L, "loop_blocked_pinned_s", held, "s");
	lab_fact_num(L, "loop_hidden_pinned", hidden.value, "fraction");
	for (int i = 0; i < 3; i++)
		claim_stats(L, &fx[i]);
	claim_stats(L, &hidden_round);
	claim_note(L, MSG("03.note-7",
		"step %.1f us; alone copy %.1f us, compute %.1f us, refill %.1f us; host held "
		"%.1f us a step: %.0f %% of the copy hidden"), fx[0].median * 1e6,
		   fx[1].median * 1e6, fx[2].median * 1e6, fill.median * 1e6, held * 1e6,
		   hidden.value * 100);
	claim_check(L, "03.7", hidden);

	rounds(r, &chapter, ch_names, ch);
	/* 03.6: the share of the copy the host does not wait out, 1 - call / copy, paired by
	 * round: each round's calls against the same copies timed on the GPU by events (the
	 * order statistics of call / copy give those of 1 - call / copy) */
	lab_stats_paired_ratio(L, &call_share, "chapter_call_over_copy", &ch[0], &ch[1]);
	free_share = lab_est_diff(lab_est_exact(1), lab_est_median(&call_share, 1));
	lab_fact_num(L, "chapter_loop_call_s", ch[0].median, "s");
	lab_fact_num(L, "chapter_copy_s", ch[1].median, "s");
	lab_fact_num(L, "chapter_loop_torn", (double)chapter.torn, "words");
	claim_stats(L, &ch[0]);
	claim_stats(L, &ch[1]);
	claim_stats(L, &call_share);
	if (K.chapter_pageable)
		claim_note(L, MSG("03.note-6", "one pageable buffer: call %.1f us a step, copy "
			"%.1f us, %.1f %% not waited out"), ch[0].median * 1e6, ch[1].median * 1e6,
			   free_share.value * 100);
	else
		claim_note(L, MSG("03.note-6-sabotage", "one pinned (sabotage) buffer: call %.1f "
			"us a step, copy %.1f us, %.1f %% not waited out"), ch[0].median * 1e6,
			   ch[1].median * 1e6, free_share.value * 100);
	claim_check(L, "03.6", free_share);
	torn_claim(L, "03.8", &chapter, TORN_CHAPTER);
}

static void run(struct lab *L)
{
	static struct rig r;

	rig_setup(L, &r);       /* lab_cuda_require, memory, buffers, streams */
	calls(&r);              /* 03.1, 03.2 */
	overlaps(&r);           /* 03.3, and the copies' data checked */
	race(&r);               /* 03.4 */
	race_natural(&r);
	loops(&r);              /* 03.5 - 03.8 */
	CUDA_CHECK(L, cudaDeviceSynchronize());
}

LAB_MAIN(spec, run)
#else
LAB_MAIN(spec, lab_run_not_built)
#endif
