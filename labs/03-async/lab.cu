/*
 * lab-03: async copies and the buffer-reuse race.
 *
 * Does cudaMemcpyAsync give the calling thread back before the copy is done,
 * does a copy overlap a kernel, and what goes wrong when the host rewrites the
 * source buffer of a copy that has not run yet?
 *
 * Four parts, all H2D:
 *  1. Call time against copy time (03.1, 03.2), 4 KiB .. 512 MiB (--quick
 *     4 KiB .. 16 MiB and 64 MiB), decided at 256 MiB (--quick 64 MiB): a pinned call
 *     costs a fixed ~2-15 us, so against a short copy "at once" would test
 *     that constant.  The host wall clock around the cudaMemcpyAsync call,
 *     paired with the copy's own duration from events around it.  Pageable
 *     copies are issued on an idle stream; pinned copies are queued behind a
 *     spin kernel on the same stream, so the call cannot have waited for the
 *     copy (it has not started when the call returns).  Pinned calls are
 *     timed PINNED_BATCH at a time: one call is too close to the host clock's
 *     step for a sample.  The other way round of each (pinned on an idle
 *     stream, pageable behind the kernel) is recorded too.
 *  2. Overlap (03.3): a copy on one non-blocking stream and a spin kernel as
 *     long as the copy on another, issued copy first and kernel first.  Both
 *     together against the longer of the two alone: 1 when they overlap, 2
 *     when they run one after the other.
 *  3. The race (03.4): a pinned buffer's copy is queued behind a spin kernel,
 *     the host writes the next step's values into the buffer while the kernel
 *     spins, and a check kernel counts the device words that hold the next
 *     step's data.  Then the unforced version: rewrite right after each call,
 *     no kernel in front, many steps (a record).
 *  4. Two loops of steps (refill the host buffer, copy, a compute kernel that
 *     checks every word), in rounds that alternate with the copy and the
 *     compute timed alone:
 *     - the chapter's loop on one pageable buffer, rewritten right after each
 *       call (03.6: the host waits out the copy; 03.8: no torn word);
 *     - the fix: two pinned buffers used in turn, an event after each copy,
 *       the host waiting on a buffer's event before it rewrites the buffer
 *       (03.5: no torn word; 03.7: the copy hides behind the compute, which
 *       is made the longest part of a step).
 *
 * The host always rewrites a buffer from its last word to its first: the DMA
 * engine reads front to back, so a rewrite going the same way would trail
 * behind it and hide the race; going the other way it meets the copy.
 *
 * This file is C and C++ at once: nvcc builds it as C++17, and without nvcc
 * gcc builds it as C with DMALAB_HAVE_CUDA=0 (every claim then skips).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffer.h"
#include "lab.h"
#include "preflight.h"

static const struct claim_spec claims[] = {
	{ "03.1", "ch1.Q2",
	  "cudaMemcpyAsync from pageable memory keeps the calling thread for most of "
	  "the copy's duration",
	  "ch1 pinned-memory table: from pageable memory the CPU first copies the data "
	  "into the driver's pinned staging buffer, so non_blocking is 'basically "
	  "synchronous' (no figure)",
	  "R9 'most of' -> call / copy >= 0.8, at 256 MiB (--quick and the --size floor: "
	  "64 MiB), the size 03.2 needs",
	  WANT_RATIO_GE(0.8),
	  "the \"pageable\" source is pinned memory, so the call returns at once" },
	{ "03.2", "ch1.Q2",
	  "cudaMemcpyAsync from pinned memory returns at once",
	  "ch1 sec. on CUDA pinning: from pinned memory the copy engine DMAs directly and "
	  "the CPU returns at once, free to overlap compute (no figure)",
	  "R9 'at once' -> call / copy <= 0.05, at 256 MiB (--quick 64, never under): a "
	  "call costs a fixed 2-15 us, 4 % of a 16 MiB copy on H200",
	  WANT_RATIO_LE(0.05),
	  "the \"pinned\" source is pageable memory, so the call stages the whole copy" },
	{ "03.3", "ch1.Q2 ch2.S8",
	  "a pinned async copy overlaps a kernel on another stream: both take about as "
	  "long as the longer of the two",
	  "ch1 pinned-memory table: a copy from pinned memory is truly asynchronous and "
	  "can overlap compute (no figure)",
	  "R7 'about as long as the longer' -> together / longer near 1 +- 25 %, the worse "
	  "issue order; the kernel lasts as long as the copy, so serial gives 2",
	  WANT_NEAR(1, 0.25, "x"),
	  "the \"pinned\" source is pageable memory: issued first, its call holds the "
	  "thread until the copy is staged, so the kernel starts after it" },
	{ "03.4", "ch1.E1",
	  "rewriting a pinned buffer right after its async copy was issued lets the GPU "
	  "see the next step's data",
	  "ch1 exercise 1: with a pinned buffer, to() may return before the DMA is done, "
	  "the next buf.copy_ rewrites buf, and the GPU may read part of the next step",
	  "R11 a behaviour -> words holding the next step's data > 0 (an exact count)",
	  WANT_GT(0, "words"),
	  "the buffer is pageable memory: the call stages the data before it returns, "
	  "so the rewrite after it cannot reach the copy" },
	{ "03.5", "ch1.E1",
	  "two pinned buffers used in turn, each rewritten only after its copy's event, "
	  "give zero torn words over many steps",
	  "ch1 exercise 1: the fix rotates two pinned buffers and waits on a CUDA event "
	  "of a buffer's copy before rewriting it",
	  "R11 exact -> 0 torn words",
	  WANT_INT(0, "words"),
	  "one buffer, rewritten without waiting for its copy" },
	{ "03.6", "ch1.E1",
	  "in the chapter's loop on one pageable buffer the calling thread waits out "
	  "each copy: none of it overlaps",
	  "ch1 exercise 1: with a pageable buffer to() is a synchronous CPU copy into "
	  "the staging buffer: no overlap at all, every step waits for a copy",
	  "R9 'no overlap at all' -> share of the copy the host does not wait out "
	  "<= 0.05 (negligible)",
	  WANT_LE(0.05, "fraction"),
	  "the \"pageable\" buffer of the loop is pinned, so the call returns at once" },
	{ "03.7", "ch1.E1",
	  "the two-buffer pinned loop still overlaps the copy with the compute: most of "
	  "the copy is hidden from the step time",
	  "ch1 exercise 1: with pinned buffers the copy is truly asynchronous; rotating "
	  "two buffers with events keeps it correct, as engines prepare inputs",
	  "R9 'most of' -> (copy + compute alone - step) / copy >= 0.8, with the compute "
	  "the longest part of a step",
	  WANT_GE(0.8, "fraction"),
	  "the copies go on the compute stream, so each waits for the previous step's "
	  "compute and none of it is hidden" },
	{ "03.8", "ch1.E1",
	  "the chapter's loop on one pageable buffer, rewritten right after each call, "
	  "is correct: zero torn words over many steps",
	  "ch1 exercise 1: with a pageable buffer the code is correct, because to() has "
	  "copied the data into the staging buffer before it returns",
	  "R11 exact -> 0 torn words",
	  WANT_INT(0, "words"),
	  "the \"pageable\" buffer of the loop is pinned, so the rewrite races the queued "
	  "copy" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static const struct lab_extra_opt extra_opts[] = {
	{ "steps", "N", "steps of each buffer-reuse loop, over 11 rounds (default 1000, "
	  "--quick 200; at least 30 a round)" },
	{ NULL, NULL, NULL }
};
static int check_opts(const struct lab *L);

/* What plots/ draws from the record (lab.h, struct lab_figure). */
static const struct lab_figure figures[] = {
	{ "lab03_calls", "lab03_calls", "call_* copy_*", NULL, "03.1 03.2",
	  "lab-03: time in the cudaMemcpyAsync call vs the copy's own time" },
	{ "lab03_timeline", "lab03_timeline",
	  "call_pageable copy_pageable call_pinned_idle copy_pinned_idle overlap_* loop_copy_*",
	  "race_rewrite_s race_torn_words race_spin_s loop_step_* loop_hidden_*",
	  "03.1 03.3 03.4 03.5",
	  "lab-03: when the host thread, the copy and the kernel ran, per case" },
	{ NULL }
};

static const struct lab_spec spec = {
	"03",
	"async copies and the buffer-reuse race",
	"when cudaMemcpyAsync returns, whether a copy overlaps a kernel, and what "
	"the GPU reads when the host reuses a copy's source buffer too early",
	120,
	{ 1, 1, 0 },
	claims,
	extra_opts,
	NULL,
	256 * MiB,
	7,
	check_opts,
	figures,
};

#define MIN_CLAIM_BYTES (64 * MiB)       /* 03.1/03.2: copy >= ~1 ms */
#define LOOP_STEPS 1000
#define QUICK_LOOP_STEPS 200
#define MIN_STEPS 10
/*
 * Rounds of each loop, alternating with the parts timed alone: 11 samples give
 * an order-statistics interval that drops the slowest and the fastest round
 * even at the Bonferroni level of a claim on three series.
 */
#define LOOP_ROUNDS 11
#define MIN_ROUND_STEPS 30
#define MAX_STEPS 1000000

/* --steps N: 0 with *steps set (the default when absent), or 2 after saying why. */
static int read_steps(const struct lab *L, int *steps)
{
	const char *s = lab_opt(L, "steps");
	long v;

	if (!s) {
		*steps = lab_options(L)->quick ? QUICK_LOOP_STEPS : LOOP_STEPS;
		return 0;
	}
	/* the widest range first, so that "-3" is out of range, not too large */
	if (lab_parse_long(s, LONG_MIN, LONG_MAX, &v) < 0)
		return preflight_usage(L, "steps", s, "%s", errno != ERANGE ?
				       "not a whole number" : s[0] == '-' ?
				       "must be from 10 to 1000000" : "too large");
	if (v < MIN_STEPS || v > MAX_STEPS)
		return preflight_usage(L, "steps", s, "must be from %d to %d", MIN_STEPS,
				       MAX_STEPS);
	*steps = (int)v;
	return 0;
}

/*
 * spec.check_opts, before anything is printed (any build).  --size sets the
 * size 03.1-03.3 are decided at: under 64 MiB a pinned call's fixed cost
 * would come close to 5 % of the copy.
 */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	char sz[32];
	int steps;

	if (read_steps(L, &steps))
		return 2;
	if (!o->size_given)
		return 0;
	if (preflight_size_floor(L, "size", o->size, MIN_CLAIM_BYTES, ", so that a pinned "
				 "call's fixed cost stays far under 5 % of the copy"))
		return 2;
	if (o->size % sizeof(uint32_t))
		return preflight_usage(L, "size", lab_size_arg(o->size, sz, sizeof(sz)),
				       "must be a multiple of 4 bytes");
	return 0;
}


#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"

#define CLAIM_BYTES (256 * MiB)          /* 03.1/03.2 size, and the overlap copy */
#define QUICK_CLAIM_BYTES MIN_CLAIM_BYTES
#define QUICK_OVERLAP_BYTES (64 * MiB)
#define SWEEP_MAX_BYTES (512 * MiB)
#define QUICK_SWEEP_MAX_BYTES (16 * MiB)
#define MAX_POINTS 16
#define QUEUE_SPIN_NS 5000000ULL         /* outlasts any pinned call by far */
#define RACE_SPIN_NS 20000000ULL         /* outlasts the host's rewrite */
#define LOOP_BYTES (8 * MiB)
#define LOOP_WORDS (LOOP_BYTES / sizeof(uint32_t))
#define NATURAL_STEPS 200
#define QUICK_NATURAL_STEPS 50
#define CALL_WARMUP 2
#define PINNED_BATCH 8                   /* pinned calls per sample (see part 1) */
#define OV_SERIES 4                      /* series behind 03.3 */
#define OV_MIN_SAMPLES 11                /* fewer give 03.3 an infinite interval */
#define PART_SAMPLES 3                   /* copy and compute alone, per round */
#define WARM_STEPS 2                     /* loop steps before the timed period */
#define COMPUTE_OVER_PARTS 2.0           /* compute / the longer of refill and copy */
#define PART_STEP 0x5eedu                 /* pattern of the parts timed alone */
#define PART_FRONT_NS 100000ULL          /* queued before a part of the fix (see there) */
#define CHECK_BLOCKS 256
#define CHECK_THREADS 256
#define VERIFY_STEP 7u                   /* pattern of the sweep buffers */
#define GPU_SPARE_BYTES (256 * MiB)

/* ------------------------------------------------------------------------ */
/* Kernels and the data                                                      */

__device__ static inline uint64_t gpu_clock_ns(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Keeps one SM busy for ns nanoseconds of GPU time. */
__global__ static void spin_kernel(uint64_t ns)
{
	uint64_t t0 = gpu_clock_ns();

	while (gpu_clock_ns() - t0 < ns)
		;
}

/*
 * The stand-in for a step's compute: reads every word, adds the words that
 * are not step `step`'s to slot[0] and those that are step+1's to slot[1],
 * then (one thread) spins for spin_ns so the step has some GPU work to hide.
 */
__global__ static void step_kernel(const uint32_t *d, size_t n, uint32_t step,
				   uint64_t spin_ns, unsigned long long *slot)
{
	unsigned long long bad = 0, next = 0;
	size_t i, stride = (size_t)gridDim.x * blockDim.x;
	int off;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		uint32_t v = d[i];

		bad += v != buf_pattern_word(step, i);
		next += v == buf_pattern_word(step + 1, i);
	}
	for (off = 16; off > 0; off >>= 1) {
		bad += __shfl_down_sync(0xffffffffu, bad, off);
		next += __shfl_down_sync(0xffffffffu, next, off);
	}
	if ((threadIdx.x & 31) == 0 && (bad || next)) {
		atomicAdd(&slot[0], bad);
		atomicAdd(&slot[1], next);
	}
	if (spin_ns && blockIdx.x == 0 && threadIdx.x == 0) {
		uint64_t t0 = gpu_clock_ns();

		while (gpu_clock_ns() - t0 < spin_ns)
			;
	}
}

/*
 * Step s's data is buffer.h's pattern with seed s: two steps never agree on
 * any word, so a device word either holds the step it should or another.
 * Written back to front, so that a rewrite racing a copy meets it (see the
 * top).
 */
static void fill_step(uint32_t *h, uint64_t bytes, uint32_t step)
{
	buf_fill_down(h, bytes, step);
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */

struct rig {
	struct lab *L;
	int quick;
	uint64_t claim_bytes;        /* 03.1 and 03.2 are decided at this size */
	uint64_t overlap_bytes;      /* the copy of 03.3 */
	uint64_t sweep_max;          /* bytes */
	uint64_t big_bytes;          /* size of the three buffers below */
	uint32_t *big_pinned, *big_pageable, *big_d;
	uint32_t *loop_pinned[2], *loop_pageable[2], *loop_d[2];
	unsigned long long *d_slots; /* two counters per step, on the GPU */
	size_t nslots;               /* counters */
	cudaStream_t s;              /* copies, and kernels queued in front of them */
	cudaStream_t s2;             /* the other stream: overlap kernel, loop compute */
	struct cuda_timer timer;     /* one copy or kernel, or a batch of calls */
	struct cuda_timer period;    /* a loop's compute stream, step W to the last */
	cudaEvent_t copied[2], computed[2];
	int loop_steps, natural_steps;
};

/* The source a "pageable" measurement copies from (sabotage: pinned). */
static uint32_t *pageable_src(const struct rig *r)
{
	return LAB_SABOTAGED ? r->big_pinned : r->big_pageable;
}

/* The source a "pinned" measurement copies from (sabotage: pageable). */
static uint32_t *pinned_src(const struct rig *r)
{
	return LAB_SABOTAGED ? r->big_pageable : r->big_pinned;
}

static void plan_init(struct lab *L, struct rig *r)
{
	const struct lab_opts *o = lab_options(L);

	/* check_opts has refused a bad --size or --steps */
	r->L = L;
	r->quick = o->quick;
	r->claim_bytes = o->size_given ? o->size : (o->quick ? QUICK_CLAIM_BYTES : CLAIM_BYTES);
	r->overlap_bytes = o->size_given ? o->size : (o->quick ? QUICK_OVERLAP_BYTES : CLAIM_BYTES);
	r->sweep_max = o->quick ? QUICK_SWEEP_MAX_BYTES : SWEEP_MAX_BYTES;
	r->big_bytes = r->sweep_max;
	if (r->claim_bytes > r->big_bytes)
		r->big_bytes = r->claim_bytes;
	if (r->overlap_bytes > r->big_bytes)
		r->big_bytes = r->overlap_bytes;
	if (read_steps(L, &r->loop_steps))
		lab_error(L, "BUG: --steps passed check_opts but not read_steps");
	r->natural_steps = o->quick ? QUICK_NATURAL_STEPS : NATURAL_STEPS;
	r->nslots = 2 * (size_t)(r->loop_steps > r->natural_steps ?
				 r->loop_steps : r->natural_steps);
	if (r->nslots < 2 * MIN_ROUND_STEPS)
		r->nslots = 2 * MIN_ROUND_STEPS;
}

/* The big buffer, the loop's two, and a spare must fit on the GPU. */
static void require_gpu_memory(struct lab *L, const struct rig *r)
{
	lab_cuda_require_free(L, preflight_need(1, r->big_bytes,
						2 * LOOP_BYTES + GPU_SPARE_BYTES), "");
}

/* Two host buffers of big_bytes live at once; leave at least half the RAM. */
static void require_host_memory(struct lab *L, const struct rig *r)
{
	const char *what;
	uint64_t ram = preflight_ram(L, &what);
	char a[32], b[32];

	if (!preflight_fits(4, r->big_bytes, ram))
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "%s of %s, need 4 x %s",
			 lab_fmt_size(ram, a, sizeof(a)), what,
			 lab_fmt_size(r->big_bytes, b, sizeof(b)));
}

/* A buffer of one kind (lab_buffers_cuda.h); pageable ones are page-aligned
 * like the pinned ones, so alignment is not what differs. */
static uint32_t *alloc_words(struct lab *L, enum lab_buf_kind kind, uint64_t bytes)
{
	return (uint32_t *)lab_cuda_alloc(L, kind, bytes);
}

/* Buffers (every host page written, so none faults while timed), streams, events. */
static void rig_setup(struct lab *L, struct rig *r)
{
	int j;

	r->big_pinned = alloc_words(L, LAB_BUF_PINNED, r->big_bytes);
	r->big_pageable = alloc_words(L, LAB_BUF_PAGEABLE, r->big_bytes);
	r->big_d = alloc_words(L, LAB_BUF_DEVICE, r->big_bytes);
	fill_step(r->big_pinned, r->big_bytes, VERIFY_STEP);
	fill_step(r->big_pageable, r->big_bytes, VERIFY_STEP);
	for (j = 0; j < 2; j++) {
		r->loop_pinned[j] = alloc_words(L, LAB_BUF_PINNED, LOOP_BYTES);
		r->loop_pageable[j] = alloc_words(L, LAB_BUF_PAGEABLE, LOOP_BYTES);
		r->loop_d[j] = alloc_words(L, LAB_BUF_DEVICE, LOOP_BYTES);
		fill_step(r->loop_pinned[j], LOOP_BYTES, 0);
		fill_step(r->loop_pageable[j], LOOP_BYTES, 0);
		CUDA_CHECK(L, cudaEventCreateWithFlags(&r->copied[j], cudaEventDisableTiming));
		CUDA_CHECK(L, cudaEventCreateWithFlags(&r->computed[j], cudaEventDisableTiming));
	}
	r->d_slots = (unsigned long long *)lab_cuda_alloc(L, LAB_BUF_DEVICE,
							  r->nslots * sizeof(*r->d_slots));
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&r->s2, cudaStreamNonBlocking));
	cuda_timer_init(L, &r->timer);
	cuda_timer_init(L, &r->period);
}

static void rig_release(struct lab *L, struct rig *r)
{
	int j;

	CUDA_CHECK(L, cudaDeviceSynchronize());
	cuda_timer_release(&r->timer);
	cuda_timer_release(&r->period);
	CUDA_CHECK(L, cudaStreamDestroy(r->s));
	CUDA_CHECK(L, cudaStreamDestroy(r->s2));
	for (j = 0; j < 2; j++) {
		CUDA_CHECK(L, cudaEventDestroy(r->copied[j]));
		CUDA_CHECK(L, cudaEventDestroy(r->computed[j]));
		lab_cuda_free(L, r->loop_pinned[j]);
		lab_cuda_free(L, r->loop_pageable[j]);
		lab_cuda_free(L, r->loop_d[j]);
	}
	lab_cuda_free(L, r->d_slots);
	lab_cuda_free(L, r->big_pinned);
	lab_cuda_free(L, r->big_pageable);
	lab_cuda_free(L, r->big_d);
}

static void launch_spin(struct rig *r, cudaStream_t s, uint64_t ns)
{
	spin_kernel<<<1, 1, 0, s>>>(ns);
	CUDA_CHECK_LAUNCH(r->L, 0);
}

/*
 * After whatever s holds: zeroes the first counter pair, runs step_kernel on
 * `words` words of d against `step`, waits, and returns the two counters.
 */
static void check_now(struct rig *r, cudaStream_t s, const uint32_t *d, size_t words,
		      uint32_t step, unsigned long long out[2])
{
	CUDA_CHECK(r->L, cudaMemsetAsync(r->d_slots, 0, 2 * sizeof(*r->d_slots), s));
	step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, s>>>(d, words, step, 0, r->d_slots);
	CUDA_CHECK_LAUNCH(r->L, 0);
	CUDA_CHECK(r->L, cudaStreamSynchronize(s));
	CUDA_CHECK(r->L, cudaMemcpy(out, r->d_slots, 2 * sizeof(*r->d_slots),
				    cudaMemcpyDeviceToHost));
}

/* ------------------------------------------------------------------------ */
/* Intervals the core does not carry                                        */

/* max(a, b): each end is the max of the ends (max is monotone in both). */
static struct lab_est est_max(struct lab_est a, struct lab_est b)
{
	struct lab_est e;

	e.value = a.value > b.value ? a.value : b.value;
	e.lo = a.lo > b.lo ? a.lo : b.lo;
	e.hi = a.hi > b.hi ? a.hi : b.hi;
	e.too_short = a.too_short || b.too_short;
	return e;
}

/*
 * x / d for a positive d and an x of either sign (lab_est_ratio refuses a
 * numerator that may be negative; a hidden share near 0 is one).
 */
static struct lab_est est_over_pos(struct lab_est x, struct lab_est d)
{
	struct lab_est e;

	e.too_short = x.too_short || d.too_short;
	e.value = d.value > 0 ? x.value / d.value : NAN;
	if (!(d.lo > 0)) {
		e.lo = -INFINITY;
		e.hi = INFINITY;
		return e;
	}
	e.lo = x.lo / (x.lo >= 0 ? d.hi : d.lo);
	e.hi = x.hi / (x.hi >= 0 ? d.lo : d.hi);
	return e;
}

/* ------------------------------------------------------------------------ */
/* Part 1: how long the call holds the thread (03.1, 03.2)                   */

/* The four ways a call is timed: source kind x idle or queued stream. */
struct call_way {
	const char *call_name, *copy_name; /* series names */
	int pinned;                        /* 1: pinned_src(), 0: pageable_src() */
	uint64_t spin_ns;                  /* kernel queued in front; 0: idle stream */
	int batch;                         /* calls timed together per sample */
};

enum { WAY_PAGEABLE, WAY_PINNED, WAY_PINNED_IDLE, WAY_PAGEABLE_QUEUED, NWAYS };

/*
 * A pinned call takes 2-15 us, which a host clock stepping in tens of ns
 * times with too few steps (under 100 steps: too_short), so PINNED_BATCH
 * calls are timed together and the series scaled back to one call.  A
 * pageable call lasts as long as its copy and needs no batch.
 */
static const struct call_way ways[NWAYS] = {
	{ "call_pageable", "copy_pageable", 0, 0, 1 },
	{ "call_pinned", "copy_pinned", 1, QUEUE_SPIN_NS, PINNED_BATCH },
	{ "call_pinned_idle", "copy_pinned_idle", 1, 0, PINNED_BATCH },
	{ "call_pageable_queued", "copy_pageable_queued", 0, QUEUE_SPIN_NS, 1 },
};

/*
 * One sample: seconds the host spent inside w->batch cudaMemcpyAsync calls
 * and seconds those copies took on the GPU (events right around them, so a
 * kernel queued in front is not counted in the copy).
 */
static void time_one_call(struct rig *r, const struct call_way *w, uint64_t bytes,
			  double *call_s, double *copy_s)
{
	const void *src = w->pinned ? pinned_src(r) : pageable_src(r);
	double t0, t1;
	int i;

	if (w->spin_ns)
		launch_spin(r, r->s, w->spin_ns);
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.start, r->s));
	t0 = lab_now();
	for (i = 0; i < w->batch; i++)
		CUDA_CHECK(r->L, cudaMemcpyAsync(r->big_d, src, bytes,
						 cudaMemcpyHostToDevice, r->s));
	t1 = lab_now();
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.stop, r->s));
	*copy_s = cuda_timer_seconds(r->L, &r->timer);
	*call_s = t1 - t0;
}

/* A batch series per call, once too_short was judged on the whole batch. */
static void per_call(struct lab_stats *s, int batch)
{
	s->warmup = CALL_WARMUP;
	if (batch > 1)
		lab_stats_scale(s, 1.0 / batch, "s");
}

/*
 * Paired samples of call and copy time, by hand (lab_stats_from): a
 * re-measure of one series by lab_measure would break the pairing.
 */
static void measure_way(struct rig *r, const struct call_way *w, uint64_t bytes,
			struct lab_stats *call, struct lab_stats *copy)
{
	static double c[LAB_MAX_SAMPLES], p[LAB_MAX_SAMPLES];
	int i, n = lab_options(r->L)->iters;

	n = n < LAB_MAX_SAMPLES ? n : LAB_MAX_SAMPLES;
	for (i = 0; i < CALL_WARMUP; i++)
		time_one_call(r, w, bytes, &c[0], &p[0]);
	for (i = 0; i < n; i++)
		time_one_call(r, w, bytes, &c[i], &p[i]);
	lab_stats_from(call, w->call_name, "s", c, n, 0);
	lab_stats_from(copy, w->copy_name, "s", p, n, LAB_CUDA_EVENT_RES_S);
	per_call(call, w->batch);
	per_call(copy, w->batch);
}

/* 4 KiB, 64 KiB, ... up to sweep_max, plus the claim size; ascending. */
static int sweep_sizes(const struct rig *r, uint64_t *out)
{
	uint64_t s;
	int n = 0, i, j;

	for (s = 4 * KiB; s <= r->sweep_max && n < MAX_POINTS - 1; s *= 16)
		out[n++] = s;
	if (out[n - 1] != r->sweep_max && n < MAX_POINTS - 1)
		out[n++] = r->sweep_max;
	for (i = 0; i < n && out[i] != r->claim_bytes; i++)
		;
	if (i == n)
		out[n++] = r->claim_bytes;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && out[j - 1] > out[j]; j--) {
			s = out[j];
			out[j] = out[j - 1];
			out[j - 1] = s;
		}
	return n;
}

/* keep[2 * way] = call stats, keep[2 * way + 1] = copy stats at the claim size. */
static void sweep_calls(struct rig *r, struct lab_stats *keep)
{
	struct lab_stats *call = keep + 2 * NWAYS, *copy = call + 1;
	uint64_t sizes[MAX_POINTS];
	int n = sweep_sizes(r, sizes), i, w;
	char buf[32];

	for (i = 0; i < n; i++) {
		lab_progress(r->L, "call vs copy time: %s",
			     lab_fmt_size(sizes[i], buf, sizeof(buf)));
		for (w = 0; w < NWAYS; w++) {
			measure_way(r, &ways[w], sizes[i], call, copy);
			lab_series_point(r->L, ways[w].call_name, "bytes", (double)sizes[i], call);
			lab_series_point(r->L, ways[w].copy_name, "bytes", (double)sizes[i], copy);
			if (sizes[i] == r->claim_bytes) {
				keep[2 * w] = *call;
				keep[2 * w + 1] = *copy;
			}
		}
	}
}

static void decide_calls(struct rig *r, const struct lab_stats *k)
{
	struct lab *L = r->L;
	const struct lab_stats *pg = &k[2 * WAY_PAGEABLE], *pin = &k[2 * WAY_PINNED];
	const struct lab_stats *idle = &k[2 * WAY_PINNED_IDLE];
	const struct lab_stats *pgq = &k[2 * WAY_PAGEABLE_QUEUED];
	char buf[32];

	lab_fmt_size(r->claim_bytes, buf, sizeof(buf));
	lab_fact_num(L, "pageable_call_over_copy", pg[0].median / pg[1].median, "x");
	lab_fact_num(L, "pinned_call_over_copy", pin[0].median / pin[1].median, "x");
	lab_note(L, "%s behind a %.0f ms kernel on the same stream: the pageable call "
		 "returned after %.2f ms (the copy itself took %.2f ms)", buf,
		 QUEUE_SPIN_NS / 1e6, pgq[0].median * 1e3, pgq[1].median * 1e3);
	claim_note(L, "%s from pageable memory on an idle stream: the call held the "
		   "thread %.2f ms of a %.2f ms copy", buf, pg[0].median * 1e3,
		   pg[1].median * 1e3);
	claim_check_ratio(L, "03.1", &pg[0], &pg[1]);
	claim_note(L, "%s from pinned memory queued behind a %.0f ms kernel, %d calls a "
		   "sample: a call took %.1f us (slowest sample %.1f us) of a %.2f ms copy; "
		   "on an idle stream %.1f us", buf, QUEUE_SPIN_NS / 1e6, PINNED_BATCH,
		   pin[0].median * 1e6, pin[0].max * 1e6, pin[1].median * 1e3,
		   idle[0].median * 1e6);
	claim_check_ratio(L, "03.2", &pin[0], &pin[1]);
}

/* ------------------------------------------------------------------------ */
/* Part 2: a copy and a kernel on two streams (03.3)                         */

enum ov_what { OV_KERNEL, OV_COPY, OV_COPY_FIRST, OV_KERNEL_FIRST };

struct ov_ctx {
	struct rig *r;
	const void *src;
	uint64_t bytes;
	uint64_t spin_ns;
	enum ov_what what;
};

/* Host wall time from the first issue until both streams are idle (s). */
static double ov_run(void *p)
{
	struct ov_ctx *c = (struct ov_ctx *)p;
	struct rig *r = c->r;
	double t0 = lab_now();

	if (c->what == OV_KERNEL || c->what == OV_KERNEL_FIRST)
		launch_spin(r, r->s2, c->spin_ns);
	if (c->what != OV_KERNEL)
		CUDA_CHECK(r->L, cudaMemcpyAsync(r->big_d, c->src, c->bytes,
						 cudaMemcpyHostToDevice, r->s));
	if (c->what == OV_COPY_FIRST)
		launch_spin(r, r->s2, c->spin_ns);
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->s));
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->s2));
	return lab_now() - t0;
}

struct ov_names {
	const char *copy, *kernel, *copy_first, *kernel_first;
};

struct ov_result {
	struct lab_stats copy, kernel, copy_first, kernel_first;
	struct lab_est x_copy_first, x_kernel_first; /* together / longer alone */
};

/*
 * The copy alone first; the kernel then spins as long as the copy took, so
 * that run one after the other they take twice the longer and overlapped
 * about the longer (a kernel much longer than the copy would hide a serial
 * run inside +25 %).
 */
static void measure_overlap(struct rig *r, const void *src, const struct ov_names *nm,
			    struct ov_result *out)
{
	struct ov_ctx c;
	struct lab_measure_cfg cfg;
	struct lab_est longer;
	int iters = lab_options(r->L)->iters;

	/* 4 series at 1 - 0.05/4 each: 7 samples cannot bound a median at that level */
	memset(&cfg, 0, sizeof(cfg));
	cfg.samples = iters > OV_MIN_SAMPLES ? iters : OV_MIN_SAMPLES;
	memset(&c, 0, sizeof(c));
	c.r = r;
	c.src = src;
	c.bytes = r->overlap_bytes;
	c.what = OV_COPY;
	lab_measure(r->L, nm->copy, ov_run, &c, &cfg, &out->copy);
	c.spin_ns = (uint64_t)(out->copy.median * 1e9);
	c.what = OV_KERNEL;
	lab_measure(r->L, nm->kernel, ov_run, &c, &cfg, &out->kernel);
	c.what = OV_COPY_FIRST;
	lab_measure(r->L, nm->copy_first, ov_run, &c, &cfg, &out->copy_first);
	c.what = OV_KERNEL_FIRST;
	lab_measure(r->L, nm->kernel_first, ov_run, &c, &cfg, &out->kernel_first);
	longer = est_max(lab_est_median(&out->copy, OV_SERIES),
			 lab_est_median(&out->kernel, OV_SERIES));
	out->x_copy_first = lab_est_ratio(lab_est_median(&out->copy_first, OV_SERIES), longer);
	out->x_kernel_first = lab_est_ratio(lab_est_median(&out->kernel_first, OV_SERIES),
					    longer);
}

static const struct ov_names ov_pinned_names = {
	"overlap_copy_pinned", "overlap_kernel_pinned", "overlap_both_pinned_copy_first",
	"overlap_both_pinned_kernel_first"
};
static const struct ov_names ov_pageable_names = {
	"overlap_copy_pageable", "overlap_kernel_pageable",
	"overlap_both_pageable_copy_first", "overlap_both_pageable_kernel_first"
};

static void run_overlap(struct rig *r)
{
	struct lab *L = r->L;
	struct ov_result *pin = (struct ov_result *)calloc(2, sizeof(*pin)), *pg = pin + 1;
	char buf[32];

	if (!pin)
		lab_error(L, "out of memory");
	lab_fmt_size(r->overlap_bytes, buf, sizeof(buf));
	lab_progress(L, "overlap of a copy and a kernel on two streams");
	measure_overlap(r, pinned_src(r), &ov_pinned_names, pin);
	measure_overlap(r, pageable_src(r), &ov_pageable_names, pg);
	lab_fact_num(L, "overlap_pinned_copy_first", pin->x_copy_first.value, "x");
	lab_fact_num(L, "overlap_pinned_kernel_first", pin->x_kernel_first.value, "x");
	lab_fact_num(L, "overlap_pageable_copy_first", pg->x_copy_first.value, "x");
	lab_fact_num(L, "overlap_pageable_kernel_first", pg->x_kernel_first.value, "x");
	lab_note(L, "pageable %s copy (%.2f ms) and a kernel as long: together %.2f x the "
		 "longer when the copy is issued first, %.2f x when the kernel is: once the "
		 "kernel is queued, the staged chunks can still be copied beside it", buf,
		 pg->copy.median * 1e3, pg->x_copy_first.value, pg->x_kernel_first.value);
	claim_stats(L, &pin->copy);
	claim_stats(L, &pin->kernel);
	claim_stats(L, &pin->copy_first);
	claim_stats(L, &pin->kernel_first);
	claim_note(L, "pinned %s copy (%.2f ms) and a %.2f ms kernel: together %.3f x the "
		   "longer copy first, %.3f x kernel first; the larger is compared", buf,
		   pin->copy.median * 1e3, pin->kernel.median * 1e3, pin->x_copy_first.value,
		   pin->x_kernel_first.value);
	claim_check(L, "03.3", est_max(pin->x_copy_first, pin->x_kernel_first));
	free(pin);
}

/* Every sweep and overlap copy carried VERIFY_STEP's pattern: check it arrived. */
static void verify_big(struct rig *r)
{
	size_t words = r->overlap_bytes / sizeof(uint32_t);
	unsigned long long got[2];

	check_now(r, r->s, r->big_d, words, VERIFY_STEP, got);
	if (got[0] != 0)
		lab_error(r->L, "the copied data is wrong: %llu of %zu words differ from "
			  "the host buffer", got[0], words);
}

/* ------------------------------------------------------------------------ */
/* Part 3: the race (03.4)                                                   */

/* 1 while work queued on s has not finished (the query is not an error). */
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

/*
 * Step 1's data goes into the buffer, its copy is queued behind a spin
 * kernel, and the host writes step 2's data while the kernel spins.  The
 * buffer is pinned (sabotage: pageable, which the call stages before it
 * returns, so the rewrite comes too late to reach the copy).
 */
static void race_forced(struct rig *r)
{
	struct lab *L = r->L;
	uint32_t *h = LAB_SABOTAGED ? r->loop_pageable[0] : r->loop_pinned[0];
	uint32_t *d = r->loop_d[0];
	unsigned long long got[2];
	double t0, rewrite_s;
	int queued;

	fill_step(h, LOOP_BYTES, 1);
	launch_spin(r, r->s, RACE_SPIN_NS);
	CUDA_CHECK(L, cudaMemcpyAsync(d, h, LOOP_BYTES, cudaMemcpyHostToDevice, r->s));
	t0 = lab_now();
	fill_step(h, LOOP_BYTES, 2);
	rewrite_s = lab_now() - t0;
	queued = stream_busy(L, r->s);
	check_now(r, r->s, d, LOOP_WORDS, 1, got);
	lab_fact_num(L, "race_torn_words", (double)got[1], "words");
	lab_fact_num(L, "race_rewrite_s", rewrite_s, "s");
	claim_note(L, "%llu of %zu words (%.1f %%) held step 2's data, %llu were not "
		   "step 1's; the rewrite took %.2f ms and the copy was %s when it ended",
		   got[1], (size_t)LOOP_WORDS, 100.0 * (double)got[1] / (double)LOOP_WORDS,
		   got[0], rewrite_s * 1e3, queued ? "still queued" : "already done");
	claim_check_int(L, "03.4", (long long)got[1]);
}

static void fetch_slots(struct rig *r, unsigned long long *h, size_t pairs)
{
	CUDA_CHECK(r->L, cudaMemcpy(h, r->d_slots, 2 * pairs * sizeof(*h),
				    cudaMemcpyDeviceToHost));
}

/* Torn words of a loop's n steps: words that were not their step's. */
struct torn {
	unsigned long long words, most; /* in all; in the worst step */
	int steps;                      /* steps with any */
};

static void count_torn(struct rig *r, int n, struct torn *t)
{
	unsigned long long *got;
	int k;

	got = (unsigned long long *)malloc(2 * (size_t)n * sizeof(*got));
	if (!got)
		lab_error(r->L, "out of memory");
	fetch_slots(r, got, (size_t)n);
	for (k = 0; k < n; k++) {
		t->words += got[2 * k];
		t->steps += got[2 * k] != 0;
		t->most = got[2 * k] > t->most ? got[2 * k] : t->most;
	}
	free(got);
}

static void zero_slots(struct rig *r, int n)
{
	CUDA_CHECK(r->L, cudaMemset(r->d_slots, 0, 2 * (size_t)n * sizeof(*r->d_slots)));
}

/*
 * The chapter's loop: one buffer, refilled right after each call, the copy
 * and the compute on one stream (as .to() and model() on the current
 * stream).  Returns the host time spent inside cudaMemcpyAsync, all steps.
 */
static double chapter_loop(struct rig *r, uint32_t *h, int n, uint32_t base,
			   struct torn *t)
{
	struct lab *L = r->L;
	uint32_t *d = r->loop_d[0];
	double t0, call_s = 0;
	int k;

	zero_slots(r, n);
	for (k = 0; k < n; k++) {
		uint32_t step = base + (uint32_t)k + 1;

		fill_step(h, LOOP_BYTES, step);
		t0 = lab_now();
		CUDA_CHECK(L, cudaMemcpyAsync(d, h, LOOP_BYTES, cudaMemcpyHostToDevice, r->s));
		call_s += lab_now() - t0;
		step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, r->s>>>(d, LOOP_WORDS, step, 0,
			r->d_slots + 2 * (size_t)k);
		CUDA_CHECK_LAUNCH(L, 0);
	}
	CUDA_CHECK(L, cudaStreamSynchronize(r->s));
	count_torn(r, n, t);
	return call_s;
}

/* The unforced race: the chapter's loop on a pinned buffer (a record). */
static void race_natural(struct rig *r)
{
	struct lab *L = r->L;
	struct torn t;
	int n = r->natural_steps;

	memset(&t, 0, sizeof(t));
	chapter_loop(r, r->loop_pinned[0], n, 0, &t);
	lab_fact_num(L, "natural_race_steps", n, "steps");
	lab_fact_num(L, "natural_race_torn_steps", t.steps, "steps");
	lab_fact_num(L, "natural_race_torn_words", (double)t.words, "words");
	lab_note(L, "unforced race, %d steps of 8 MiB from one pinned buffer rewritten "
		 "right after each call: %d steps tore, %llu words in all, at most %.2f %% "
		 "of a step", n, t.steps, t.words, 100.0 * (double)t.most / (double)LOOP_WORDS);
}

/* ------------------------------------------------------------------------ */
/* Part 4: the loops (03.5 - 03.8)                                           */

struct part_ctx {
	struct rig *r;
	const uint32_t *src;          /* copy source; NULL: time the compute */
	uint64_t spin_ns;
	uint32_t step;                /* fill: last step written; compute: checked */
	int queue_front;              /* a short spin kernel first (see sample_fix_parts) */
};

static double fill_run(void *p)
{
	struct part_ctx *c = (struct part_ctx *)p;
	double t0 = lab_now();

	fill_step(c->r->loop_pinned[1], LOOP_BYTES, ++c->step);
	return lab_now() - t0;
}

/* GPU time of one copy into loop_d[1], or of one compute kernel on it (s). */
static double gpu_part_run(void *p)
{
	struct part_ctx *c = (struct part_ctx *)p;
	struct rig *r = c->r;

	if (c->queue_front)
		launch_spin(r, r->s, PART_FRONT_NS);
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.start, r->s));
	if (c->src) {
		CUDA_CHECK(r->L, cudaMemcpyAsync(r->loop_d[1], c->src, LOOP_BYTES,
						 cudaMemcpyHostToDevice, r->s));
	} else {
		step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, r->s>>>(r->loop_d[1],
			LOOP_WORDS, c->step, c->spin_ns, r->d_slots);
		CUDA_CHECK_LAUNCH(r->L, 0);
	}
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.stop, r->s));
	return cuda_timer_seconds(r->L, &r->timer);
}

/*
 * PART_SAMPLES GPU times of one part alone, appended to v at *n; the rounds
 * call it between loop runs, so that a slow stretch of the machine reaches
 * the parts as it reaches the loop.
 */
static void sample_part(struct part_ctx *c, double *v, int *n)
{
	int i;

	for (i = 0; i < PART_SAMPLES; i++)
		v[(*n)++] = gpu_part_run(c);
}

/*
 * The compute a step of the fix runs: COMPUTE_OVER_PARTS times the longer
 * of the host's refill and the pinned copy, each timed alone first.  With
 * the compute the longest part, a step takes the compute alone when the
 * copy overlaps it and copy + compute when it does not; neither the host
 * nor the copy engine sets the pace even when host memory contention slows
 * both (the DMA reads host memory while the host rewrites the other buffer).
 */
static uint64_t size_compute(struct rig *r, double *fill_s)
{
	struct lab_measure_cfg ev;
	struct lab_stats *fill = (struct lab_stats *)calloc(2, sizeof(*fill)), *copy = fill + 1;
	struct part_ctx c;
	double longer;

	if (!fill)
		lab_error(r->L, "out of memory");
	memset(&ev, 0, sizeof(ev));
	ev.clock_res_s = LAB_CUDA_EVENT_RES_S;
	memset(&c, 0, sizeof(c));
	c.r = r;
	lab_measure(r->L, "loop_fill", fill_run, &c, NULL, fill);
	c.src = r->loop_pinned[1];
	lab_measure(r->L, "loop_copy_pinned_sizing", gpu_part_run, &c, &ev, copy);
	longer = fill->median > copy->median ? fill->median : copy->median;
	*fill_s = fill->median;
	free(fill);
	return (uint64_t)(COMPUTE_OVER_PARTS * longer * 1e9);
}

/*
 * The parts of the fix timed alone: the copy, then the compute on the data
 * it brought.  The compute must check words that match, as in a good step:
 * mismatches would add atomics the loop's compute does not pay.  Each part
 * is queued behind a short spin kernel, so that its events time the GPU work
 * and not the host's launch before it (in the loop the work is queued ahead).
 */
static void sample_fix_parts(struct rig *r, uint64_t spin_ns, double *copy, int *ncopy,
			     double *comp, int *ncomp)
{
	struct part_ctx c;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.queue_front = 1;
	fill_step(r->loop_pinned[1], LOOP_BYTES, PART_STEP);
	c.src = r->loop_pinned[1];
	sample_part(&c, copy, ncopy);
	c.src = NULL;
	c.spin_ns = spin_ns;
	c.step = PART_STEP;
	sample_part(&c, comp, ncomp);
}

/* One run of the fixed loop (or a sabotaged form of it). */
struct loop_cfg {
	uint32_t **h;             /* host buffers, nbuf of them */
	int nbuf;                 /* 1 or 2, used in turn */
	int wait_before_rewrite;  /* host waits on the buffer's copy event */
	int one_stream;           /* copies on the compute stream (a sabotage) */
	uint64_t spin_ns;         /* compute per step beyond the check */
	int steps;                /* steps in this run of the loop */
	uint32_t base;            /* step values start after it: rounds never repeat one */
};

/* One step; returns how long the host was held by the copy's wait and call (s). */
static double loop_step(struct rig *r, const struct loop_cfg *c, int k)
{
	struct lab *L = r->L;
	cudaStream_t cs = c->one_stream ? r->s2 : r->s;
	int j = k % c->nbuf;
	uint32_t step = c->base + (uint32_t)k + 1;
	double t0 = lab_now(), blocked;

	if (c->wait_before_rewrite)
		CUDA_CHECK(L, cudaEventSynchronize(r->copied[j]));
	blocked = lab_now() - t0;
	fill_step(c->h[j], LOOP_BYTES, step);
	/* the copy must not overwrite d[j] while step k-2 computes on it */
	CUDA_CHECK(L, cudaStreamWaitEvent(cs, r->computed[j], 0));
	t0 = lab_now();
	CUDA_CHECK(L, cudaMemcpyAsync(r->loop_d[j], c->h[j], LOOP_BYTES,
				      cudaMemcpyHostToDevice, cs));
	CUDA_CHECK(L, cudaEventRecord(r->copied[j], cs));
	blocked += lab_now() - t0;
	CUDA_CHECK(L, cudaStreamWaitEvent(r->s2, r->copied[j], 0));
	step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, r->s2>>>(r->loop_d[j], LOOP_WORDS,
		step, c->spin_ns, r->d_slots + 2 * (size_t)k);
	CUDA_CHECK_LAUNCH(L, 0);
	CUDA_CHECK(L, cudaEventRecord(r->computed[j], r->s2));
	if (k == WARM_STEPS)
		CUDA_CHECK(L, cudaEventRecord(r->period.start, r->s2));
	if (k == c->steps - 1)
		CUDA_CHECK(L, cudaEventRecord(r->period.stop, r->s2));
	return blocked;
}

/* Steps in the timed period of a loop of n steps. */
static int period_steps(int n)
{
	return n - 1 - WARM_STEPS;
}

/*
 * Runs the loop; returns the compute stream's time from the end of step
 * WARM_STEPS to the end of the last step (period_steps steps), so the
 * pipeline's filling and draining are not counted.  Adds the host's blocked
 * time per step to *blocked_s and the torn words to t.
 */
static double run_loop(struct rig *r, const struct loop_cfg *c, double *blocked_s,
		       struct torn *t)
{
	struct lab *L = r->L;
	double blocked = 0, period_s;
	int j, k, n = c->steps;

	zero_slots(r, n);
	for (j = 0; j < 2; j++) {
		CUDA_CHECK(L, cudaEventRecord(r->copied[j], r->s));
		CUDA_CHECK(L, cudaEventRecord(r->computed[j], r->s2));
	}
	CUDA_CHECK(L, cudaDeviceSynchronize());
	for (k = 0; k < n; k++)
		blocked += loop_step(r, c, k);
	CUDA_CHECK(L, cudaStreamSynchronize(r->s));
	CUDA_CHECK(L, cudaStreamSynchronize(r->s2));
	period_s = cuda_timer_seconds(L, &r->period);
	*blocked_s += blocked / n;
	count_torn(r, n, t);
	return period_s;
}

/* The fixed loop over LOOP_ROUNDS rounds, each followed by its parts alone. */
struct fix_rounds {
	struct lab_stats step, copy, compute; /* s: per step; one copy; one compute */
	struct torn torn;
	double blocked_s;                     /* mean over rounds, per step */
	int steps;                            /* in all rounds */
};

static int round_steps(const struct rig *r)
{
	int steps = r->loop_steps / LOOP_ROUNDS;

	return steps > MIN_ROUND_STEPS ? steps : MIN_ROUND_STEPS;
}

static void fix_rounds(struct rig *r, struct loop_cfg *c, struct fix_rounds *out)
{
	double period[LOOP_ROUNDS], copy[LOOP_ROUNDS * PART_SAMPLES];
	double comp[LOOP_ROUNDS * PART_SAMPLES];
	int round, ncopy = 0, ncomp = 0;

	memset(out, 0, sizeof(*out));
	c->steps = round_steps(r);
	for (round = 0; round < LOOP_ROUNDS; round++) {
		c->base = (uint32_t)(round * c->steps);
		period[round] = run_loop(r, c, &out->blocked_s, &out->torn);
		sample_fix_parts(r, c->spin_ns, copy, &ncopy, comp, &ncomp);
	}
	out->blocked_s /= LOOP_ROUNDS;
	out->steps = LOOP_ROUNDS * c->steps;
	/* timed as whole periods (the clock's step against all of it), then per step */
	lab_stats_from(&out->step, "fix_loop_step", "s", period, LOOP_ROUNDS,
		       LAB_CUDA_EVENT_RES_S);
	lab_stats_scale(&out->step, 1.0 / period_steps(c->steps), "s");
	lab_stats_from(&out->copy, "fix_copy_alone", "s", copy, ncopy, LAB_CUDA_EVENT_RES_S);
	lab_stats_from(&out->compute, "fix_compute_alone", "s", comp, ncomp,
		       LAB_CUDA_EVENT_RES_S);
}

/*
 * The fix: two pinned buffers and the events.  Its sabotages: one buffer
 * and no wait (the race 03.5 must catch), or the copies on the compute
 * stream (nothing overlaps: 03.7 must catch it).
 */
static void fix_loop(struct rig *r, uint64_t spin_ns, int racy, int one_stream,
		     struct fix_rounds *out)
{
	struct loop_cfg c;

	memset(&c, 0, sizeof(c));
	c.h = r->loop_pinned;
	c.nbuf = racy ? 1 : 2;
	c.wait_before_rewrite = !racy;
	c.one_stream = one_stream;
	c.spin_ns = spin_ns;
	lab_progress(r->L, "buffer-reuse loop, two pinned buffers, %d rounds", LOOP_ROUNDS);
	fix_rounds(r, &c, out);
}

/* Share of the copy hidden: (copy + compute alone - step) / copy alone. */
static struct lab_est hidden_share(const struct fix_rounds *f)
{
	struct lab_est copy = lab_est_median(&f->copy, 3);
	struct lab_est serial = lab_est_sum(copy, lab_est_median(&f->compute, 3));

	return est_over_pos(lab_est_diff(serial, lab_est_median(&f->step, 3)), copy);
}

static void decide_fix(struct lab *L, const struct fix_rounds *f, double fill_s)
{
	struct lab_est hidden = hidden_share(f);

	lab_fact_num(L, "loop_fill_s", fill_s, "s");
	lab_fact_num(L, "loop_step_pinned_s", f->step.median, "s");
	lab_fact_num(L, "loop_copy_pinned_s", f->copy.median, "s");
	lab_fact_num(L, "loop_compute_s", f->compute.median, "s");
	lab_fact_num(L, "loop_blocked_pinned_s", f->blocked_s, "s");
	lab_fact_num(L, "loop_hidden_pinned", hidden.value, "fraction");
	claim_stats(L, &f->copy);
	claim_stats(L, &f->compute);
	claim_stats(L, &f->step);
	claim_note(L, "a step took %.1f us; alone the copy took %.1f us and the compute "
		   "%.1f us (the host's refill %.1f us; it was held %.1f us a step): "
		   "%.0f %% of the copy hidden", f->step.median * 1e6, f->copy.median * 1e6,
		   f->compute.median * 1e6, fill_s * 1e6, f->blocked_s * 1e6,
		   hidden.value * 100);
	claim_check(L, "03.7", hidden);
}

/* The chapter's loop in rounds, each followed by its copy alone (03.6, 03.8). */
struct chapter_rounds {
	struct lab_stats call, copy;  /* s: per step in the call; one copy alone */
	struct torn torn;
	int steps;
};

static void chapter_rounds(struct rig *r, uint32_t *h, struct chapter_rounds *out)
{
	double call[LOOP_ROUNDS], copy[LOOP_ROUNDS * PART_SAMPLES];
	struct part_ctx c;
	int round, n = round_steps(r), ncopy = 0;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.r = r;
	c.src = h;
	lab_progress(r->L, "the chapter's loop, one buffer, %d rounds", LOOP_ROUNDS);
	for (round = 0; round < LOOP_ROUNDS; round++) {
		call[round] = chapter_loop(r, h, n, (uint32_t)(round * n), &out->torn);
		sample_part(&c, copy, &ncopy);
	}
	out->steps = LOOP_ROUNDS * n;
	/* a round's calls as one sample (a pinned call is close to the clock's
	 * step, the sum of a round's is not), then per step */
	lab_stats_from(&out->call, "chapter_loop_call", "s", call, LOOP_ROUNDS, 0);
	lab_stats_scale(&out->call, 1.0 / n, "s");
	lab_stats_from(&out->copy, "chapter_copy_alone", "s", copy, ncopy,
		       LAB_CUDA_EVENT_RES_S);
}

/* 03.6: share of the copy the host does not wait out, (copy - call) / copy. */
static void decide_chapter(struct lab *L, const struct chapter_rounds *ch)
{
	struct lab_est copy = lab_est_median(&ch->copy, 2);
	struct lab_est free_share = est_over_pos(lab_est_diff(copy,
		lab_est_median(&ch->call, 2)), copy);

	lab_fact_num(L, "chapter_loop_call_s", ch->call.median, "s");
	lab_fact_num(L, "chapter_copy_s", ch->copy.median, "s");
	lab_fact_num(L, "chapter_loop_torn", (double)ch->torn.words, "words");
	claim_stats(L, &ch->call);
	claim_stats(L, &ch->copy);
	claim_note(L, "one %s buffer: the call held the host %.1f us a step of a %.1f us "
		   "copy, %.1f %% of it not waited out", LAB_SABOTAGED ? "pinned (sabotage)" :
		   "pageable", ch->call.median * 1e6, ch->copy.median * 1e6,
		   free_share.value * 100);
	claim_check(L, "03.6", free_share);
	claim_note(L, "%d steps in %d rounds, each refilled right after its call: %llu "
		   "torn words in %d steps (at most %.2f %% of a step)", ch->steps,
		   LOOP_ROUNDS, ch->torn.words, ch->torn.steps,
		   100.0 * (double)ch->torn.most / (double)LOOP_WORDS);
	claim_check_int(L, "03.8", (long long)ch->torn.words);
}

static void run_loops(struct rig *r)
{
	struct lab *L = r->L;
	uint32_t *chapter_buf = LAB_SABOTAGED ? r->loop_pinned[0] : r->loop_pageable[0];
	struct fix_rounds *fx = (struct fix_rounds *)calloc(1, sizeof(*fx));
	struct chapter_rounds *ch = (struct chapter_rounds *)calloc(1, sizeof(*ch));
	double fill_s;
	uint64_t spin_ns;

	if (!fx || !ch)
		lab_error(L, "out of memory");
	spin_ns = size_compute(r, &fill_s);
	fix_loop(r, spin_ns, LAB_SABOTAGED, 0, fx);
	claim_note(L, "%d steps in %d rounds, %s: %llu torn words in %d steps", fx->steps,
		   LOOP_ROUNDS, LAB_SABOTAGED ? "one pinned buffer, no wait" :
		   "two pinned buffers and events", fx->torn.words, fx->torn.steps);
	claim_check_int(L, "03.5", (long long)fx->torn.words);
	if (LAB_SABOTAGED)
		fix_loop(r, spin_ns, 0, 1, fx);
	decide_fix(L, fx, fill_s);
	chapter_rounds(r, chapter_buf, ch);
	decide_chapter(L, ch);
	free(fx);
	free(ch);
}

/* ------------------------------------------------------------------------ */

static void run(struct lab *L)
{
	struct rig r;
	struct lab_stats *keep;

	memset(&r, 0, sizeof(r));
	plan_init(L, &r);
	lab_cuda_require(L, 1);
	require_gpu_memory(L, &r);
	require_host_memory(L, &r);
	if (LAB_SABOTAGED)
		lab_note(L, "sabotage build: pinned and pageable sources swapped (the "
			 "race's and the chapter loop's too), the fix with one buffer "
			 "(03.5) and with its copies on the compute stream (03.7)");
	/* the claim size's series of every way, and two to sample into */
	keep = (struct lab_stats *)calloc(2 * NWAYS + 2, sizeof(*keep));
	if (!keep)
		lab_error(L, "out of memory");
	rig_setup(L, &r);
	sweep_calls(&r, keep);
	decide_calls(&r, keep);
	free(keep);
	run_overlap(&r);
	verify_big(&r);
	race_forced(&r);
	race_natural(&r);
	run_loops(&r);
	rig_release(L, &r);
}

LAB_MAIN(spec, run)
#else
LAB_MAIN(spec, lab_run_not_built)
#endif
