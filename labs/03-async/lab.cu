/*
 * lab-03: async copies and the buffer-reuse race.
 *
 * Does cudaMemcpyAsync give the calling thread back before the copy is done,
 * does a copy overlap a kernel, and what goes wrong when the host rewrites the
 * source buffer of a copy that has not run yet?
 *
 * Four parts, all H2D:
 *  1. Call time against copy time (03.1, 03.2), 4 KiB .. 512 MiB (--quick
 *     4 KiB .. 64 MiB), decided at 256 MiB (--quick 64 MiB): a pinned call
 *     costs a fixed ~2-15 us, so a small copy would make 5 % a thin margin.
 *     The host wall clock around the cudaMemcpyAsync call, paired
 *     with the copy's own duration from events around it.  Pageable copies
 *     are issued on an idle stream; pinned copies are queued behind a spin
 *     kernel on the same stream, so the call cannot have waited for the copy
 *     (it has not started when the call returns).  The other way round of
 *     each (pinned on an idle stream, pageable behind the kernel) is
 *     recorded too.
 *  2. Overlap (03.3): a spin kernel on one non-blocking stream and a copy on
 *     another, issued copy first and kernel first.  Overlap fraction =
 *     (t_kernel + t_copy - t_both) / min(t_kernel, t_copy), clamped to [0, 1].
 *  3. The race (03.4): a pinned buffer's copy is queued behind a spin kernel,
 *     the host writes the next step's values into the buffer while the kernel
 *     spins, and a check kernel counts the device words that hold the next
 *     step's data.  Then the unforced version: rewrite right after each call,
 *     no kernel in front, many steps.
 *  4. The fix and its pageable twin (03.5, 03.6, 03.7): a loop of steps
 *     (rewrite the host buffer, copy, a compute kernel that checks every word)
 *     with two buffers used in turn, an event after each copy, and the host
 *     waiting on a buffer's event before it rewrites the buffer.  The same
 *     loop without its copies is the control: the copy time a step pays is
 *     the loop's step time minus the control's.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"

static const struct claim_spec claims[] = {
	{ "03.1", "ch1.Q2", "cudaMemcpyAsync from pageable memory keeps the calling "
	  "thread for most of the copy (>= 80 % of the copy's duration)",
	  "the \"pageable\" source is pinned memory, so the call returns at once" },
	{ "03.2", "ch1.Q2", "cudaMemcpyAsync from pinned memory returns at once "
	  "(at most 5 % of the copy's duration)",
	  "the \"pinned\" source is pageable memory, so the call stages the whole copy" },
	{ "03.3", "ch1.Q2", "a pinned async copy overlaps a kernel on another stream "
	  "(overlap fraction >= 0.8, in either issue order)",
	  "the \"pinned\" source is pageable memory: issued first, its call holds the "
	  "thread until the copy is staged, so the kernel starts after it" },
	{ "03.4", "ch1.E1", "rewriting a pinned buffer right after its async copy was "
	  "issued lets the GPU see the next step's data (torn words > 0)",
	  "no spin kernel in front of the copy, and the host waits for the copy "
	  "before it rewrites the buffer" },
	{ "03.5", "ch1.E1", "two pinned buffers used in turn, each rewritten only after "
	  "its copy's event, give zero torn words over many steps",
	  "one buffer, rewritten without waiting for its copy" },
	{ "03.6", "ch1.E1", "with pageable buffers the same loop is correct but each "
	  "step waits out its copy (<= 20 % of the copy hidden)",
	  "the \"pageable\" loop uses pinned buffers, so the copy is hidden" },
	{ "03.7", "ch1.E1", "the two-buffer pinned loop still overlaps: the host waits for "
	  "at most 20 % of the copy time (>= 80 % hidden)",
	  "the host waits for every copy as soon as it has issued it, so it pays the whole copy" },
	{ NULL, NULL, NULL, NULL }
};

static const struct lab_extra_opt extra_opts[] = {
	{ "steps", "N", "steps of each buffer-reuse loop (default 1000, --quick 200)" },
	{ NULL, NULL, NULL }
};

static int check_opts(const struct lab *L);

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
};

#define MIN_CLAIM_BYTES (64 * MiB)       /* 03.1/03.2: copy >= ~1 ms */
#define LOOP_STEPS 1000
#define QUICK_LOOP_STEPS 200
#define MIN_STEPS 10
#define LOOP_ROUNDS 7        /* the loop and its control, in turn (03.6, 03.7) */
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
	if (lab_parse_long(s, LONG_MIN, LONG_MAX, &v) < 0) {
		fprintf(stderr, "lab-03: --steps '%s': %s (see --help)\n", s,
			errno != ERANGE ? "not a whole number" :
			s[0] == '-' ? "must be from 10 to 1000000" : "too large");
		return 2;
	}
	if (v < MIN_STEPS || v > MAX_STEPS) {
		fprintf(stderr, "lab-03: --steps '%s': must be from %d to %d (see --help)\n",
			s, MIN_STEPS, MAX_STEPS);
		return 2;
	}
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
	lab_size_arg(o->size, sz, sizeof(sz));
	if (o->size < MIN_CLAIM_BYTES) {
		fprintf(stderr, "lab-03: --size '%s': too small: need at least 64 MiB, so that "
			"a pinned call's fixed cost stays far under 5 %% of the copy "
			"(see --help)\n", sz);
		return 2;
	}
	if (o->size % sizeof(uint32_t)) {
		fprintf(stderr, "lab-03: --size '%s': must be a multiple of 4 bytes "
			"(see --help)\n", sz);
		return 2;
	}
	return 0;
}

#if DMALAB_HAVE_CUDA
#include "lab_cuda.h"

#define CLAIM_BYTES (256 * MiB)          /* 03.1/03.2 size, and the overlap copy */
#define QUICK_CLAIM_BYTES MIN_CLAIM_BYTES
#define QUICK_OVERLAP_BYTES (64 * MiB)
#define SWEEP_MAX_BYTES (512 * MiB)
#define QUICK_SWEEP_MAX_BYTES (16 * MiB)
#define MAX_POINTS 16
#define QUEUE_SPIN_NS 5000000ULL         /* outlasts any pinned call by far */
#define OVERLAP_SPIN_NS 20000000ULL
#define QUICK_OVERLAP_SPIN_NS 10000000ULL
#define RACE_SPIN_NS 20000000ULL         /* outlasts the host's rewrite */
#define LOOP_BYTES (8 * MiB)
#define LOOP_WORDS (LOOP_BYTES / sizeof(uint32_t))
#define NATURAL_STEPS 200
#define QUICK_NATURAL_STEPS 50
#define CALL_WARMUP 2
#define CHECK_BLOCKS 256
#define CHECK_THREADS 256
#define VERIFY_STEP 7u                   /* pattern of the sweep buffers */
#define GPU_SPARE_BYTES (256 * MiB)
#define PAGE_BYTES 4096

/* ------------------------------------------------------------------------ */
/* Kernels and the data pattern                                              */

/*
 * Word i of step s.  The multiplier is odd, so two steps never agree on any
 * word: a device word either holds the step it should or a different one.
 */
__host__ __device__ static inline uint32_t step_word(uint32_t step, size_t i)
{
	return (step * 0x9E3779B1u) ^ (uint32_t)i;
}

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

		bad += v != step_word(step, i);
		next += v == step_word(step + 1, i);
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

/* Back to front, so that a rewrite racing a copy meets it (see the top). */
static void fill_step(uint32_t *h, size_t words, uint32_t step)
{
	size_t i;

	for (i = words; i-- > 0;)
		h[i] = step_word(step, i);
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
	struct cuda_timer timer;
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

static void require_gpu_memory(struct lab *L, const struct rig *r)
{
	size_t free_b = 0, total_b = 0;
	uint64_t need = r->big_bytes + 2 * LOOP_BYTES + GPU_SPARE_BYTES;
	char a[32], b[32];

	CUDA_CHECK(L, cudaMemGetInfo(&free_b, &total_b));
	if (free_b < need)
		lab_skip(L, SKIP_GPU_TOO_SMALL, "%s free on the GPU, need %s",
			 lab_fmt_size(free_b, a, sizeof(a)), lab_fmt_size(need, b, sizeof(b)));
}

/* Two host buffers of big_bytes live at once; leave at least half the RAM. */
static void require_host_memory(struct lab *L, const struct rig *r)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double ram = (double)pages * (double)page;
	char a[32], b[32];

	if (pages > 0 && page > 0 && ram < 4.0 * (double)r->big_bytes)
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "%s of RAM, need 4 x %s",
			 lab_fmt_size((uint64_t)ram, a, sizeof(a)),
			 lab_fmt_size(r->big_bytes, b, sizeof(b)));
}

static uint32_t *pinned_alloc(struct lab *L, uint64_t bytes)
{
	void *p = NULL;

	CUDA_CHECK(L, cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
	return (uint32_t *)p;
}

/* Page-aligned like the pinned buffers, so alignment is not what differs. */
static uint32_t *pageable_alloc(struct lab *L, uint64_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, PAGE_BYTES, bytes) != 0)
		lab_error(L, "posix_memalign of %llu bytes failed", (unsigned long long)bytes);
	return (uint32_t *)p;
}

static uint32_t *device_alloc(struct lab *L, uint64_t bytes)
{
	void *p = NULL;

	CUDA_CHECK(L, cudaMalloc(&p, bytes));
	return (uint32_t *)p;
}

/* Buffers (every host page written, so none faults while timed), streams, events. */
static void rig_setup(struct lab *L, struct rig *r)
{
	int j;

	r->big_pinned = pinned_alloc(L, r->big_bytes);
	r->big_pageable = pageable_alloc(L, r->big_bytes);
	r->big_d = device_alloc(L, r->big_bytes);
	fill_step(r->big_pinned, r->big_bytes / sizeof(uint32_t), VERIFY_STEP);
	fill_step(r->big_pageable, r->big_bytes / sizeof(uint32_t), VERIFY_STEP);
	for (j = 0; j < 2; j++) {
		r->loop_pinned[j] = pinned_alloc(L, LOOP_BYTES);
		r->loop_pageable[j] = pageable_alloc(L, LOOP_BYTES);
		r->loop_d[j] = device_alloc(L, LOOP_BYTES);
		fill_step(r->loop_pinned[j], LOOP_WORDS, 0);
		fill_step(r->loop_pageable[j], LOOP_WORDS, 0);
		CUDA_CHECK(L, cudaEventCreateWithFlags(&r->copied[j], cudaEventDisableTiming));
		CUDA_CHECK(L, cudaEventCreateWithFlags(&r->computed[j], cudaEventDisableTiming));
	}
	CUDA_CHECK(L, cudaMalloc((void **)&r->d_slots, r->nslots * sizeof(*r->d_slots)));
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&r->s2, cudaStreamNonBlocking));
	cuda_timer_init(L, &r->timer);
}

static void rig_release(struct lab *L, struct rig *r)
{
	int j;

	CUDA_CHECK(L, cudaDeviceSynchronize());
	cuda_timer_release(&r->timer);
	CUDA_CHECK(L, cudaStreamDestroy(r->s));
	CUDA_CHECK(L, cudaStreamDestroy(r->s2));
	for (j = 0; j < 2; j++) {
		CUDA_CHECK(L, cudaEventDestroy(r->copied[j]));
		CUDA_CHECK(L, cudaEventDestroy(r->computed[j]));
		CUDA_CHECK(L, cudaFreeHost(r->loop_pinned[j]));
		free(r->loop_pageable[j]);
		CUDA_CHECK(L, cudaFree(r->loop_d[j]));
	}
	CUDA_CHECK(L, cudaFree(r->d_slots));
	CUDA_CHECK(L, cudaFreeHost(r->big_pinned));
	free(r->big_pageable);
	CUDA_CHECK(L, cudaFree(r->big_d));
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

static double clamp01(double v)
{
	return v < 0 ? 0 : (v > 1 ? 1 : v);
}

static void stats_init(struct lab_stats *s, const char *name, const char *unit)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->unit = unit;
	s->warmup = CALL_WARMUP;
	s->cv_max = 0.10;
}

/* ------------------------------------------------------------------------ */
/* Part 1: how long the call holds the thread (03.1, 03.2)                   */

/* The four ways a call is timed: source kind x idle or queued stream. */
struct call_way {
	const char *call_name, *copy_name; /* series names */
	int pinned;                        /* 1: pinned_src(), 0: pageable_src() */
	uint64_t spin_ns;                  /* kernel queued in front; 0: idle stream */
};

enum { WAY_PAGEABLE, WAY_PINNED, WAY_PINNED_IDLE, WAY_PAGEABLE_QUEUED, NWAYS };

static const struct call_way ways[NWAYS] = {
	{ "call_pageable", "copy_pageable", 0, 0 },
	{ "call_pinned", "copy_pinned", 1, QUEUE_SPIN_NS },
	{ "call_pinned_idle", "copy_pinned_idle", 1, 0 },
	{ "call_pageable_queued", "copy_pageable_queued", 0, QUEUE_SPIN_NS },
};

/*
 * One copy: seconds the host spent inside cudaMemcpyAsync and seconds the
 * copy took on the GPU (events right around it, so a kernel queued in front
 * is not counted in the copy).
 */
static void time_one_call(struct rig *r, const struct call_way *w, uint64_t bytes,
			  double *call_s, double *copy_s)
{
	const void *src = w->pinned ? pinned_src(r) : pageable_src(r);
	double t0, t1;

	if (w->spin_ns)
		launch_spin(r, r->s, w->spin_ns);
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.start, r->s));
	t0 = lab_now();
	CUDA_CHECK(r->L, cudaMemcpyAsync(r->big_d, src, bytes, cudaMemcpyHostToDevice, r->s));
	t1 = lab_now();
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.stop, r->s));
	*copy_s = cuda_timer_seconds(r->L, &r->timer);
	*call_s = t1 - t0;
}

/*
 * Paired samples of call and copy time.  Not lab_measure: a re-measure of one
 * series would break the pairing.  The claims compare the medians against
 * thresholds far from what either kind of memory gives, so these series are
 * never marked noisy; their cv is recorded.
 */
static void measure_way(struct rig *r, const struct call_way *w, uint64_t bytes,
			struct lab_stats *call, struct lab_stats *copy)
{
	int i, n = lab_options(r->L)->iters;
	double c, p;

	stats_init(call, w->call_name, "s");
	stats_init(copy, w->copy_name, "s");
	for (i = 0; i < CALL_WARMUP; i++)
		time_one_call(r, w, bytes, &c, &p);
	for (i = 0; i < n && i < LAB_MAX_SAMPLES; i++) {
		time_one_call(r, w, bytes, &c, &p);
		call->samples[call->n++] = c;
		copy->samples[copy->n++] = p;
	}
	lab_stats_compute(call);
	lab_stats_compute(copy);
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
	struct lab_stats call, copy;
	uint64_t sizes[MAX_POINTS];
	int n = sweep_sizes(r, sizes), i, w;
	char buf[32];

	for (i = 0; i < n; i++) {
		lab_progress(r->L, "call vs copy time: %s",
			     lab_fmt_size(sizes[i], buf, sizeof(buf)));
		for (w = 0; w < NWAYS; w++) {
			measure_way(r, &ways[w], sizes[i], &call, &copy);
			lab_series_point(r->L, ways[w].call_name, "bytes", (double)sizes[i], &call);
			lab_series_point(r->L, ways[w].copy_name, "bytes", (double)sizes[i], &copy);
			if (sizes[i] == r->claim_bytes) {
				keep[2 * w] = call;
				keep[2 * w + 1] = copy;
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
	claim_ratio_ge(L, "03.1", &pg[0], &pg[1], 0.8);
	claim_note(L, "%s from pinned memory queued behind a %.0f ms kernel: the call took "
		   "%.1f us (slowest %.1f us) of a %.2f ms copy; on an idle stream %.1f us",
		   buf, QUEUE_SPIN_NS / 1e6, pin[0].median * 1e6, pin[0].max * 1e6,
		   pin[1].median * 1e3, idle[0].median * 1e6);
	claim_ratio_le(L, "03.2", &pin[0], &pin[1], 0.05);
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
	const char *copy, *copy_first, *kernel_first;
};

struct ov_result {
	struct lab_stats copy, copy_first, kernel_first;
	double f_copy_first, f_kernel_first; /* overlap fractions, [0, 1] */
};

/* 0: one after the other; 1: the shorter one is fully hidden. */
static double overlap_fraction(double t_kernel, double t_copy, double t_both)
{
	double shorter = t_kernel < t_copy ? t_kernel : t_copy;

	return clamp01((t_kernel + t_copy - t_both) / shorter);
}

static void measure_overlap(struct rig *r, const void *src, const struct ov_names *nm,
			    const struct lab_stats *kernel, struct ov_result *out)
{
	struct ov_ctx c;

	c.r = r;
	c.src = src;
	c.bytes = r->overlap_bytes;
	c.spin_ns = r->quick ? QUICK_OVERLAP_SPIN_NS : OVERLAP_SPIN_NS;
	c.what = OV_COPY;
	lab_measure(r->L, nm->copy, ov_run, &c, NULL, &out->copy);
	c.what = OV_COPY_FIRST;
	lab_measure(r->L, nm->copy_first, ov_run, &c, NULL, &out->copy_first);
	c.what = OV_KERNEL_FIRST;
	lab_measure(r->L, nm->kernel_first, ov_run, &c, NULL, &out->kernel_first);
	out->f_copy_first = overlap_fraction(kernel->median, out->copy.median,
					     out->copy_first.median);
	out->f_kernel_first = overlap_fraction(kernel->median, out->copy.median,
					       out->kernel_first.median);
}

static void measure_kernel_alone(struct rig *r, struct lab_stats *kernel)
{
	struct ov_ctx c;

	memset(&c, 0, sizeof(c));
	c.r = r;
	c.spin_ns = r->quick ? QUICK_OVERLAP_SPIN_NS : OVERLAP_SPIN_NS;
	c.what = OV_KERNEL;
	lab_measure(r->L, "overlap_kernel", ov_run, &c, NULL, kernel);
}

static const struct ov_names ov_pinned_names = {
	"overlap_copy_pinned", "overlap_both_pinned_copy_first",
	"overlap_both_pinned_kernel_first"
};
static const struct ov_names ov_pageable_names = {
	"overlap_copy_pageable", "overlap_both_pageable_copy_first",
	"overlap_both_pageable_kernel_first"
};

static void run_overlap(struct rig *r)
{
	struct lab *L = r->L;
	struct lab_stats kernel;
	struct ov_result *pin = (struct ov_result *)calloc(2, sizeof(*pin)), *pg = pin + 1;
	char buf[32];

	if (!pin)
		lab_error(L, "out of memory");
	lab_progress(L, "overlap of a copy and a kernel on two streams");
	measure_kernel_alone(r, &kernel);
	measure_overlap(r, pinned_src(r), &ov_pinned_names, &kernel, pin);
	measure_overlap(r, pageable_src(r), &ov_pageable_names, &kernel, pg);
	lab_fact_num(L, "overlap_pinned_copy_first", pin->f_copy_first, "fraction");
	lab_fact_num(L, "overlap_pinned_kernel_first", pin->f_kernel_first, "fraction");
	lab_fact_num(L, "overlap_pageable_copy_first", pg->f_copy_first, "fraction");
	lab_fact_num(L, "overlap_pageable_kernel_first", pg->f_kernel_first, "fraction");
	lab_note(L, "pageable %s copy (%.2f ms) and a %.2f ms kernel: overlap %.2f when "
		 "the copy is issued first, %.2f when the kernel is: once the kernel is "
		 "queued, the staged chunks can still be copied beside it",
		 lab_fmt_size(r->overlap_bytes, buf, sizeof(buf)), pg->copy.median * 1e3,
		 kernel.median * 1e3, pg->f_copy_first, pg->f_kernel_first);
	claim_stats(L, &kernel);
	claim_stats(L, &pin->copy);
	claim_stats(L, &pin->copy_first);
	claim_stats(L, &pin->kernel_first);
	claim_note(L, "pinned %s copy (%.2f ms) and a %.2f ms kernel: overlap %.2f copy "
		   "first, %.2f kernel first; the smaller is compared", buf,
		   pin->copy.median * 1e3, kernel.median * 1e3, pin->f_copy_first,
		   pin->f_kernel_first);
	claim_ge(L, "03.3", pin->f_copy_first < pin->f_kernel_first ?
		 pin->f_copy_first : pin->f_kernel_first, 0.8, "fraction");
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
 * Step 1's data goes into the pinned buffer, its copy is queued behind a
 * spin kernel, and the host writes step 2's data while the kernel spins.
 */
static void race_forced(struct rig *r)
{
	struct lab *L = r->L;
	uint32_t *h = r->loop_pinned[0], *d = r->loop_d[0];
	unsigned long long got[2];
	double t0, rewrite_s;
	int queued;

	fill_step(h, LOOP_WORDS, 1);
	if (!LAB_SABOTAGED)
		launch_spin(r, r->s, RACE_SPIN_NS);
	CUDA_CHECK(L, cudaMemcpyAsync(d, h, LOOP_BYTES, cudaMemcpyHostToDevice, r->s));
	if (LAB_SABOTAGED)
		CUDA_CHECK(L, cudaStreamSynchronize(r->s));
	t0 = lab_now();
	fill_step(h, LOOP_WORDS, 2);
	rewrite_s = lab_now() - t0;
	queued = stream_busy(L, r->s);
	check_now(r, r->s, d, LOOP_WORDS, 1, got);
	lab_fact_num(L, "race_torn_words", (double)got[1], "words");
	lab_fact_num(L, "race_rewrite_s", rewrite_s, "s");
	claim_note(L, "%llu of %zu words (%.1f %%) held step 2's data, %llu were not "
		   "step 1's; the rewrite took %.2f ms and the copy was %s when it ended",
		   got[1], (size_t)LOOP_WORDS, 100.0 * (double)got[1] / (double)LOOP_WORDS,
		   got[0], rewrite_s * 1e3, queued ? "still queued" : "already done");
	claim_gt(L, "03.4", (double)got[1], 0, "words");
}

static void fetch_slots(struct rig *r, unsigned long long *h, size_t pairs)
{
	CUDA_CHECK(r->L, cudaMemcpy(h, r->d_slots, 2 * pairs * sizeof(*h),
				    cudaMemcpyDeviceToHost));
}

/* The unforced race: nothing queued in front, rewrite right after each call. */
static void race_natural(struct rig *r)
{
	struct lab *L = r->L;
	uint32_t *h = r->loop_pinned[0], *d = r->loop_d[0];
	int k, n = r->natural_steps, torn_steps = 0;
	unsigned long long *got, total = 0, most = 0;

	got = (unsigned long long *)malloc(2 * (size_t)n * sizeof(*got));
	if (!got)
		lab_error(L, "out of memory");
	CUDA_CHECK(L, cudaMemsetAsync(r->d_slots, 0, 2 * (size_t)n * sizeof(*got), r->s));
	for (k = 0; k < n; k++) {
		fill_step(h, LOOP_WORDS, (uint32_t)k + 1);
		CUDA_CHECK(L, cudaMemcpyAsync(d, h, LOOP_BYTES, cudaMemcpyHostToDevice, r->s));
		step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, r->s>>>(d, LOOP_WORDS,
			(uint32_t)k + 1, 0, r->d_slots + 2 * (size_t)k);
		CUDA_CHECK_LAUNCH(L, 0);
	}
	CUDA_CHECK(L, cudaStreamSynchronize(r->s));
	fetch_slots(r, got, (size_t)n);
	for (k = 0; k < n; k++) {
		torn_steps += got[2 * k] != 0;
		total += got[2 * k];
		most = got[2 * k] > most ? got[2 * k] : most;
	}
	free(got);
	lab_fact_num(L, "natural_race_steps", n, "steps");
	lab_fact_num(L, "natural_race_torn_steps", torn_steps, "steps");
	lab_fact_num(L, "natural_race_torn_words", (double)total, "words");
	lab_note(L, "unforced race, %d steps of 8 MiB from one pinned buffer rewritten "
		 "right after each call: %d steps tore, %llu words in all, at most %.2f %% "
		 "of a step", n, torn_steps, total, 100.0 * (double)most / (double)LOOP_WORDS);
}

/* ------------------------------------------------------------------------ */
/* Part 4: the buffer-reuse loop (03.5, 03.6, 03.7)                          */

struct loop_cfg {
	uint32_t **h;             /* host buffers, nbuf of them */
	int nbuf;                 /* 1 or 2, used in turn */
	int wait_before_rewrite;  /* host waits on the buffer's copy event */
	int copy;                 /* 0: the control, the same loop without copies */
	uint64_t spin_ns;         /* compute per step beyond the check */
	int sync_after_copy;      /* host waits for each copy it issues (a sabotage) */
	int steps;                /* steps in this run of the loop */
	uint32_t base;            /* step values start after it: rounds never repeat one */
};

struct loop_result {
	double step_s;            /* loop time / steps */
	double blocked_s;         /* host time per step spent in the copy's event
				   * wait and in the cudaMemcpyAsync call */
	unsigned long long torn;  /* words that were not their step's */
	int torn_steps;
};

/* One step; returns how long the host was held by the copy (s). */
static double loop_step(struct rig *r, const struct loop_cfg *c, int k)
{
	struct lab *L = r->L;
	int j = k % c->nbuf;
	uint32_t step = c->base + (uint32_t)k + 1;
	double t0 = lab_now(), blocked = 0;

	if (c->wait_before_rewrite)
		CUDA_CHECK(L, cudaEventSynchronize(r->copied[j]));
	blocked += lab_now() - t0;
	fill_step(c->h[j], LOOP_WORDS, step);
	if (c->copy) {
		/* the copy must not overwrite d[j] while step k-2 computes on it */
		CUDA_CHECK(L, cudaStreamWaitEvent(r->s, r->computed[j], 0));
		t0 = lab_now();
		CUDA_CHECK(L, cudaMemcpyAsync(r->loop_d[j], c->h[j], LOOP_BYTES,
					      cudaMemcpyHostToDevice, r->s));
		CUDA_CHECK(L, cudaEventRecord(r->copied[j], r->s));
		if (c->sync_after_copy)
			CUDA_CHECK(L, cudaEventSynchronize(r->copied[j]));
		blocked += lab_now() - t0;
		CUDA_CHECK(L, cudaStreamWaitEvent(r->s2, r->copied[j], 0));
	}
	step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, r->s2>>>(r->loop_d[j], LOOP_WORDS,
		step, c->spin_ns, r->d_slots + 2 * (size_t)k);
	CUDA_CHECK_LAUNCH(L, 0);
	CUDA_CHECK(L, cudaEventRecord(r->computed[j], r->s2));
	return blocked;
}

static void run_loop(struct rig *r, const struct loop_cfg *c, struct loop_result *out)
{
	struct lab *L = r->L;
	int j, k, n = c->steps;
	unsigned long long *got;
	double t0;

	CUDA_CHECK(L, cudaMemset(r->d_slots, 0, 2 * (size_t)n * sizeof(*r->d_slots)));
	for (j = 0; j < 2; j++) {
		CUDA_CHECK(L, cudaEventRecord(r->copied[j], r->s));
		CUDA_CHECK(L, cudaEventRecord(r->computed[j], r->s2));
	}
	CUDA_CHECK(L, cudaDeviceSynchronize());
	out->blocked_s = 0;
	t0 = lab_now();
	for (k = 0; k < n; k++)
		out->blocked_s += loop_step(r, c, k);
	CUDA_CHECK(L, cudaStreamSynchronize(r->s));
	CUDA_CHECK(L, cudaStreamSynchronize(r->s2));
	out->step_s = (lab_now() - t0) / n;
	out->blocked_s /= n;
	got = (unsigned long long *)malloc(2 * (size_t)n * sizeof(*got));
	if (!got)
		lab_error(L, "out of memory");
	fetch_slots(r, got, (size_t)n);
	out->torn = 0;
	out->torn_steps = 0;
	for (k = 0; k < n; k++) {
		out->torn += got[2 * k];
		out->torn_steps += got[2 * k] != 0;
	}
	free(got);
}

/* The parts of a step, each timed alone. */
struct step_parts {
	struct lab_stats fill;        /* host rewrite of one buffer */
	struct lab_stats copy_pinned, copy_pageable;
	struct lab_stats compute;
	uint64_t spin_ns;
};

struct part_ctx {
	struct rig *r;
	const uint32_t *src;          /* copy source; NULL: time the compute */
	uint64_t spin_ns;
	uint32_t step;
};

static double fill_run(void *p)
{
	struct part_ctx *c = (struct part_ctx *)p;
	double t0 = lab_now();

	fill_step(c->r->loop_pinned[1], LOOP_WORDS, ++c->step);
	return lab_now() - t0;
}

/* GPU time of one copy into loop_d[1], or of one compute kernel on it (s). */
static double gpu_part_run(void *p)
{
	struct part_ctx *c = (struct part_ctx *)p;
	struct rig *r = c->r;

	CUDA_CHECK(r->L, cudaEventRecord(r->timer.start, r->s));
	if (c->src) {
		CUDA_CHECK(r->L, cudaMemcpyAsync(r->loop_d[1], c->src, LOOP_BYTES,
						 cudaMemcpyHostToDevice, r->s));
	} else {
		step_kernel<<<CHECK_BLOCKS, CHECK_THREADS, 0, r->s>>>(r->loop_d[1],
			LOOP_WORDS, 0, c->spin_ns, r->d_slots);
		CUDA_CHECK_LAUNCH(r->L, 0);
	}
	CUDA_CHECK(r->L, cudaEventRecord(r->timer.stop, r->s));
	return cuda_timer_seconds(r->L, &r->timer);
}

/*
 * The compute spins as long as the pinned copy takes, but at most half the
 * host's rewrite: the host stays the slowest part of a step, so a copy that
 * holds the host shows in the step time and one that does not is hidden.
 */
static void measure_parts(struct rig *r, uint32_t **pageable, struct step_parts *p)
{
	struct part_ctx c;
	double spin_s;

	memset(&c, 0, sizeof(c));
	c.r = r;
	lab_measure(r->L, "loop_fill", fill_run, &c, NULL, &p->fill);
	c.src = r->loop_pinned[1];
	lab_measure(r->L, "loop_copy_pinned", gpu_part_run, &c, NULL, &p->copy_pinned);
	c.src = pageable[1];
	lab_measure(r->L, "loop_copy_pageable", gpu_part_run, &c, NULL, &p->copy_pageable);
	spin_s = p->copy_pinned.median;
	if (spin_s > p->fill.median / 2)
		spin_s = p->fill.median / 2;
	p->spin_ns = (uint64_t)(spin_s * 1e9);
	c.src = NULL;
	c.spin_ns = p->spin_ns;
	lab_measure(r->L, "loop_compute", gpu_part_run, &c, NULL, &p->compute);
}

/*
 * Share of the copy the host does not wait for: 1 - (time the host is held
 * by the copy's event wait and its cudaMemcpyAsync call) / (copy time).
 * The step-time difference against the control is not used: the DMA reads
 * host memory while the host rewrites the other buffer, and on a host with
 * little memory bandwidth that contention lengthens a step although nothing
 * waits for the copy (the facts keep both step times).
 */
static double hidden_fraction(const struct loop_result *loop, double copy_s)
{
	return clamp01(1 - loop->blocked_s / copy_s);
}

/*
 * The same parts as one number: 0 when the step costs fill + copy + compute,
 * 1 when it costs only the longest of them (for the record; no claim).
 */
static double pipeline_fraction(double fill, double copy, double compute, double step)
{
	double sum = fill + copy + compute, most = fill;

	most = copy > most ? copy : most;
	most = compute > most ? compute : most;
	return sum > most ? clamp01((sum - step) / (sum - most)) : 0;
}

static void loop_facts(struct lab *L, const char *name, const struct loop_result *loop,
		       const struct loop_result *control, double hidden)
{
	char key[64];

	snprintf(key, sizeof(key), "loop_step_%s_s", name);
	lab_fact_num(L, key, loop->step_s, "s");
	snprintf(key, sizeof(key), "loop_step_%s_nocopy_s", name);
	lab_fact_num(L, key, control->step_s, "s");
	snprintf(key, sizeof(key), "loop_torn_%s", name);
	lab_fact_num(L, key, (double)loop->torn, "words");
	snprintf(key, sizeof(key), "loop_blocked_%s_s", name);
	lab_fact_num(L, key, loop->blocked_s, "s");
	snprintf(key, sizeof(key), "loop_hidden_%s", name);
	lab_fact_num(L, key, hidden, "fraction");
}

/*
 * A loop and its control (the same loop without copies) run in turn, in
 * LOOP_ROUNDS rounds: the share of the copy hidden is taken per round and
 * its median compared, so one slow round (the host was preempted, say)
 * cannot decide the claim.  Torn words add up over all rounds.
 */
struct loop_rounds {
	struct loop_result loop, control;  /* summed torn counts, mean step times */
	struct lab_stats hidden;           /* share of the copy hidden, per round */
	int steps;                         /* steps in all rounds */
};

static void run_rounds(struct rig *r, struct loop_cfg *c, double copy_s,
		       const char *name, struct loop_rounds *out)
{
	int round, steps = r->loop_steps / LOOP_ROUNDS;
	struct loop_result loop, control;

	memset(out, 0, sizeof(*out));
	c->steps = steps > MIN_ROUND_STEPS ? steps : MIN_ROUND_STEPS;
	for (round = 0; round < LOOP_ROUNDS; round++) {
		c->base = (uint32_t)(round * c->steps);
		c->copy = 1;
		run_loop(r, c, &loop);
		c->copy = 0;
		run_loop(r, c, &control);
		out->loop.step_s += loop.step_s / LOOP_ROUNDS;
		out->loop.blocked_s += loop.blocked_s / LOOP_ROUNDS;
		out->control.step_s += control.step_s / LOOP_ROUNDS;
		out->loop.torn += loop.torn;
		out->loop.torn_steps += loop.torn_steps;
		out->hidden.samples[out->hidden.n++] =
			hidden_fraction(&loop, copy_s);
	}
	out->steps = LOOP_ROUNDS * c->steps;
	out->hidden.name = name;
	out->hidden.unit = "fraction";
	out->hidden.cv_max = 0.10;
	lab_stats_compute(&out->hidden);
}

/*
 * The two-buffer pinned loop.  Its sabotages: one buffer and no wait (the
 * race 03.5 must catch), or every copy waited for as soon as it is issued
 * (the host pays the whole copy: 03.7 must catch it).
 */
static void loop_pinned(struct rig *r, const struct step_parts *p, int racy, int synced,
			struct loop_rounds *out)
{
	struct loop_cfg c;

	memset(&c, 0, sizeof(c));
	c.h = r->loop_pinned;
	c.nbuf = racy ? 1 : 2;
	c.wait_before_rewrite = !racy;
	c.sync_after_copy = synced;
	c.spin_ns = p->spin_ns;
	lab_progress(r->L, "buffer-reuse loop, pinned, %d rounds", LOOP_ROUNDS);
	run_rounds(r, &c, p->copy_pinned.median, "loop_hidden_pinned", out);
}

/* The same loop on pageable buffers (sabotage: pinned ones). */
static void loop_pageable(struct rig *r, uint32_t **bufs, const struct step_parts *p,
			  struct loop_rounds *out)
{
	struct loop_cfg c;

	memset(&c, 0, sizeof(c));
	c.h = bufs;
	c.nbuf = 2;
	c.wait_before_rewrite = 1;
	c.spin_ns = p->spin_ns;
	lab_progress(r->L, "buffer-reuse loop, pageable, %d rounds", LOOP_ROUNDS);
	run_rounds(r, &c, p->copy_pageable.median, "loop_hidden_pageable", out);
}

static void decide_pageable_loop(struct lab *L, const struct loop_rounds *pg,
				 const struct step_parts *p)
{
	if (pg->loop.torn != 0) {
		claim_note(L, "the pageable loop tore: %llu words in %d steps",
			   pg->loop.torn, pg->loop.torn_steps);
		claim_int_eq(L, "03.6", (long long)pg->loop.torn, 0, "words");
		return;
	}
	claim_stats(L, &pg->hidden);
	claim_note(L, "0 torn words; the copy held the host %.1f us a step of a %.1f us "
		   "copy: median %.0f %% of it hidden over %d rounds (a step took %.1f us, "
		   "%.1f us without its copy)", pg->loop.blocked_s * 1e6,
		   p->copy_pageable.median * 1e6, pg->hidden.median * 100, LOOP_ROUNDS,
		   pg->loop.step_s * 1e6, pg->control.step_s * 1e6);
	claim_le(L, "03.6", pg->hidden.median, 0.2, "fraction");
}

static void loop_record(struct lab *L, const struct step_parts *p,
			const struct loop_rounds *pin, const struct loop_rounds *pg)
{
	loop_facts(L, "pinned", &pin->loop, &pin->control, pin->hidden.median);
	loop_facts(L, "pageable", &pg->loop, &pg->control, pg->hidden.median);
	lab_fact_num(L, "loop_pipeline_pinned", pipeline_fraction(p->fill.median,
		     p->copy_pinned.median, p->compute.median, pin->loop.step_s), "fraction");
	lab_fact_num(L, "loop_pipeline_pageable", pipeline_fraction(p->fill.median,
		     p->copy_pageable.median, p->compute.median, pg->loop.step_s), "fraction");
	lab_note(L, "one step alone: rewrite %.1f us, compute %.1f us, copy %.1f us "
		 "pinned / %.1f us pageable (8 MiB)", p->fill.median * 1e6,
		 p->compute.median * 1e6, p->copy_pinned.median * 1e6,
		 p->copy_pageable.median * 1e6);
}

static void run_loops(struct rig *r)
{
	struct lab *L = r->L;
	uint32_t **pageable = LAB_SABOTAGED ? r->loop_pinned : r->loop_pageable;
	struct step_parts *p = (struct step_parts *)calloc(1, sizeof(*p));
	struct loop_rounds *pin = (struct loop_rounds *)calloc(1, sizeof(*pin));
	struct loop_rounds *pg = (struct loop_rounds *)calloc(1, sizeof(*pg));

	if (!p || !pin || !pg)
		lab_error(L, "out of memory");
	measure_parts(r, pageable, p);
	loop_pinned(r, p, LAB_SABOTAGED, 0, pin);
	loop_pageable(r, pageable, p, pg);
	loop_record(L, p, pin, pg);
	claim_note(L, "%d steps in %d rounds, %s: %llu torn words in %d steps",
		   pin->steps, LOOP_ROUNDS,
		   LAB_SABOTAGED ? "one pinned buffer, no wait" : "two pinned buffers and events",
		   pin->loop.torn, pin->loop.torn_steps);
	claim_int_eq(L, "03.5", (long long)pin->loop.torn, 0, "words");
	decide_pageable_loop(L, pg, p);
	if (LAB_SABOTAGED)
		loop_pinned(r, p, 0, 1, pin);
	claim_stats(L, &p->copy_pinned);
	claim_stats(L, &pin->hidden);
	claim_note(L, "the copy held the host %.1f us a step of a %.1f us copy: median "
		   "%.0f %% of it hidden over %d rounds (a step took %.1f us, %.1f us "
		   "without its copy)", pin->loop.blocked_s * 1e6,
		   p->copy_pinned.median * 1e6, pin->hidden.median * 100, LOOP_ROUNDS,
		   pin->loop.step_s * 1e6, pin->control.step_s * 1e6);
	claim_ge(L, "03.7", pin->hidden.median, 0.8, "fraction");
	free(p);
	free(pin);
	free(pg);
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
		lab_note(L, "sabotage build: pinned and pageable sources swapped, the "
			 "race without its spin kernel, the fix with one buffer");
	keep = (struct lab_stats *)calloc(2 * NWAYS, sizeof(*keep));
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
