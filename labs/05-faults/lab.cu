/*
 * lab-05: page faults and Unified Memory.
 *
 * What does a first touch cost: on the CPU, a minor fault per 4 KiB page of
 * fresh anonymous memory (one per 2 MiB with transparent huge pages); on the
 * GPU, a fault on managed memory that the CPU wrote, which makes the driver
 * migrate the data?  And how much of that does cudaMemPrefetchAsync save?
 *
 * 05.1 runs everywhere, 05.2-05.6 need a GPU with concurrent managed access.
 * Managed runs are timed on the host clock, first call to synchronised: a run
 * without faults lasts tens of microseconds, under 100 steps of CUDA events'
 * 0.5 us, and the sabotage build must still decide on it.  CUPTI counts the
 * faults (05.6) in one more run of each case: counting slows the driver.
 * nvcc builds this as C++17, gcc as C with DMALAB_HAVE_CUDA=0 (05.2-05.6 skip).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "buffer.h"
#include "lab.h"
#include "need.h"
#include "procfs.h"
#include "smaps.h"
#if DMALAB_HAVE_CUDA
#include "cupti_counts.h"
#include "managed.h"
#endif

#define CPU_DEFAULT_BYTES (64 * MiB)   /* CPU first-touch region: 16,384 faults a sample */
#define GPU_MIN_BYTES (4 * MiB)        /* two 2 MiB blocks at least */
#define WAY_BACK_MAX_BYTES (64 * MiB)  /* CPU faults on GPU data can be slow */
#define TOUCH_UNIT (4 * KiB)           /* "a page" in the per-page figures */
#define UM_BIG_PAGE (64 * KiB)         /* the chapter's GPU page */
#define UM_BLOCK (2 * MiB)             /* the driver's managed-memory block */
#define THP_PMD (2 * MiB)
#define UM_RESIDENT_CV_MAX 1.0         /* the fault-free floor: no claim uses it */
#define CHAPTER_REGION (4 * GiB)       /* the chapter's "4 GB": 65,536 x 64 KiB */

/*
 * What `make selftest` breaks, one field per mechanism a claim is about.  The
 * sabotage build sets every field to its broken value before run(), or only
 * the fields of the claims it is asked to break (labs/README.md, section 6);
 * the experiment reads K, never the build's flag.
 */
static struct knobs {
	int prefault_cpu;  /* 05.1: write every page before the timed loop (so it takes no fault) */
	int demand_faults; /* 05.2 05.3 05.4: the demand case starts with the region on the host */
	int prefetch;      /* 05.5: the prefetched case calls cudaMemPrefetchAsync first */
} K = { .prefault_cpu = 0, .demand_faults = 1, .prefetch = 1 };

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.prefault_cpu, 1, "05.1"),
	LAB_KNOB(K.demand_faults, 0, "05.2 05.3 05.4"),
	LAB_KNOB(K.prefetch, 0, "05.5"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "05.1", "ch2.S7",
	  "a CPU first-touch page fault costs about 1-2 us per 4 KiB page",
	  "ch2 S4: the kernel handles a CPU page fault in about 1-2 us",
	  "R2 'about 1-2 us' -> [0.75, 2.5] us per 4 KiB page (one fault per page, counted)",
	  WANT_RANGE(0.75, 2.5, "us"),
	  "the pages are faulted in before the timed loop, so it times plain writes" },
	{ "05.2", "ch2.S4",
	  "4 GB of managed memory first touched by a kernel takes about 655 ms",
	  "ch2 S4: 4 GB in 64 KiB pages is 65,536 faults of about 10 us each, 655 ms in all",
	  "R1 near 655 ms +-25 %; another region size is scaled linearly to 4 GiB, as in the "
	  "chapter's own model (pages x 10 us)",
	  WANT_NEAR(655, 0.25, "ms"),
	  "the region is prefetched to the GPU before the timed first touch, so the kernel takes "
	  "no fault" },
	{ "05.3", "ch2.S4",
	  "managed memory migrates in 64 KiB units: one byte per 4 KiB costs about the same as one "
	  "byte per 64 KiB",
	  "ch2 S4: Unified Memory moves 64 KiB pages at about 10 us each, so the cost is per "
	  "64 KiB page touched",
	  "R7 'about the same' -> time(stride 4 KiB) / time(stride 64 KiB) near 1 +-25 %",
	  WANT_NEAR(1, 0.25, "x"),
	  "the 4 KiB-stride run is prefetched to the GPU before its timed window, so it migrates "
	  "nothing" },
	{ "05.4", "ch2.S4 ch2.S7",
	  "a GPU page fault costs more than a CPU page fault",
	  "ch2 S4: a GPU (Unified Memory) fault is handled in about 10 us, a CPU fault in about "
	  "1-2 us",
	  "R6 'costs more' -> ratio >= 1.1 per fault the driver handles: the time faults add to "
	  "the GPU's first touch over the GPU page faults CUPTI counts, against the CPU's time per "
	  "counted 4 KiB fault (not per 64 KiB page: erratum 05.6); per byte beside it (note, "
	  "facts)",
	  WANT_RATIO_GE(1.1),
	  "the GPU's first touch is prefetched to the GPU before its timed window, so it takes no "
	  "fault: the time faults add is about 0" },
	{ "05.5", "ch2.S4 ch1.E2 ch2.S8",
	  "cudaMemPrefetchAsync moves the same data several times faster than demand faults",
	  "ch2 S4 with ch1 E2: demand faults price 4 GB at 655 ms (~6.5 GB/s), a bulk copy runs "
	  "near PCIe 5's ~50 GB/s",
	  "R5 'several times' -> demand time / (prefetch + the same kernel) >= 3",
	  WANT_RATIO_GE(3),
	  "the prefetch call is left out, so the 'prefetched' run faults on demand too" },
	{ "05.6", "ch2.S4",
	  "each 64 KiB page first touched from the GPU costs one fault (of about 10 us)",
	  "ch2 S4: 4 GB means 65,536 page faults, one per 64 KiB page",
	  "R1 'one fault per 64 KiB page' -> CUPTI GPU fault records per 64 KiB page near "
	  "1 +-25 %; upper end widened by the bytes CUPTI missed",
	  WANT_NEAR(1, 0.25, "records per 64 KiB page"),
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static uint64_t opt_cpu_bytes; /* --quick too: a fault costs the same */
static int opt_no_counts;
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_SIZE("cpu-size", opt_cpu_bytes, CPU_DEFAULT_BYTES, CPU_DEFAULT_BYTES, THP_PMD, "",
		     "region for the CPU first-touch timing, a multiple of 2 MiB"),
	LAB_OPT_FLAG("no-counts", opt_no_counts,
		     "do not load libcupti: no fault counts, CUPTI cannot disturb anything"),
	{ NULL }
};

static int check_opts(const struct lab *L);

static const struct lab_spec spec = {
	.id = "05",
	.title = "page faults and Unified Memory",
	.topic = "what a first-touch page fault costs on the CPU and on the GPU (managed "
		 "memory), and what prefetching saves",
	.timeout_s = 120,
	.needs = { 1, 1, 0, "05.2 05.3 05.4 05.5 05.6" }, /* the CUDA claims; 05.1: the CPU's */
	.claims = claims,
	.extra_opts = extra_opts,
	.default_size = 512 * MiB, /* 131,072 pages of 4 KiB; 05.2 scales it to 4 GiB */
	.quick_size = 64 * MiB,
	.min_size = GPU_MIN_BYTES,
	.size_why = " of managed memory",
	.default_iters = 7,
	.check_opts = check_opts,
	.knobs = knobs,
};

/* ------------------------------------------------------------------------ */
/* Options                                                                   */

/* spec.check_opts: --cpu-size in whole 2 MiB blocks. */
static int check_opts(const struct lab *L)
{
	if (opt_cpu_bytes % THP_PMD == 0)
		return 0;
	return lab_usage_error(L, "cpu-size", lab_opt(L, "cpu-size"),
			       "must be a multiple of 2 MiB");
}

/* ------------------------------------------------------------------------ */
/* The CPU: first-touch faults on fresh anonymous memory (05.1)              */

/* Minor faults of this thread so far (RUSAGE_THREAD: not CUDA's threads'). */
static long thread_minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) < 0 ? -1 : ru.ru_minflt;
}

/* AnonHugePages of the mappings overlapping [addr, addr + len) (0 without smaps). */
static uint64_t smaps_anon_huge(uintptr_t addr, size_t len)
{
	struct smaps_range r;

	return smaps_range_read(NULL, addr, len, &r) == 0 ? r.anon_huge : 0;
}

struct cpu_touch {
	size_t bytes, page;  /* the region of a sample, the base page */
	unsigned advice;     /* BUF_NOHUGE or BUF_HUGE (madvise) */
	int prefault;        /* K.prefault_cpu: the pages are in before the timing */
	int advice_errno;    /* a refused madvise; 0 when taken */
	long faults;         /* minor faults of the last timed loop */
	uint64_t thp_bytes;  /* AnonHugePages of the region after it */
};

/* One write per page; returns the seconds the loop took. */
static double write_each_page(unsigned char *p, size_t bytes, size_t page)
{
	volatile unsigned char *v = p;
	double t0 = lab_now();
	size_t off;

	for (off = 0; off < bytes; off += page)
		v[off] = 1;
	return lab_now() - t0;
}

/* lab_run_fn: fault in a fresh region on a 2 MiB boundary (so THP can
 * apply); the map and unmap are not timed. */
static double cpu_touch_sample(void *arg)
{
	struct cpu_touch *c = (struct cpu_touch *)arg;
	unsigned char *p = (unsigned char *)buf_map(c->bytes, THP_PMD, BUF_NORESERVE | c->advice,
						    &c->advice_errno);
	long f0;
	double t;

	if (!p)
		return -1;
	if (c->prefault)
		write_each_page(p, c->bytes, c->page);
	f0 = thread_minor_faults();
	t = write_each_page(p, c->bytes, c->page);
	c->faults = thread_minor_faults() - f0;
	c->thp_bytes = smaps_anon_huge((uintptr_t)p, c->bytes);
	buf_free(p);
	return t;
}

/* The first-touch loop as a series in us per base page. */
static void cpu_series(struct lab *L, const char *name, struct cpu_touch *c,
		       struct lab_stats *us)
{
	lab_progress(L, MSG("05.progress-1", "measuring %s"), name);
	lab_measure(L, name, cpu_touch_sample, c, NULL, us);
	lab_stats_scale(us, 1e6 / (double)(c->bytes / c->page), "us");
	if (c->advice_errno)
		lab_note(L, MSG("05.madvise",
			"madvise(%s) refused: %s"), c->advice == BUF_HUGE ? "MADV_HUGEPAGE" :
			 "MADV_NOHUGEPAGE", strerror(c->advice_errno));
}

/*
 * 05.1 with huge pages off, then the same loop with THP allowed (narrative).
 * Returns 05.4's CPU side, the unsabotaged series, or NULL when skipped.
 */
static const struct lab_stats *cpu_part(struct lab *L, size_t bytes)
{
	static struct lab_stats us, ref, thp;
	struct cpu_touch c = { bytes, (size_t)sysconf(_SC_PAGESIZE), BUF_NOHUGE, K.prefault_cpu,
			       0, 0, 0 };
	size_t pages = bytes / c.page;
	const char *what;
	uint64_t avail = need_available(L, &what);
	char mode[32], b1[32], b2[32];

	if (sysfs_thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof(mode)))
		snprintf(mode, sizeof(mode), "unknown");
	lab_fact_str(L, "thp_enabled", mode);
	if (sysfs_thp_mode("/sys/kernel/mm/transparent_hugepage/defrag", mode, sizeof(mode)) == 0)
		lab_fact_str(L, "thp_defrag", mode);
	lab_fact_num(L, "page_size", (double)c.page, "bytes");
	if (!need_fits(2, bytes, avail)) {
		claim_skip(L, "05.1", SKIP_NOT_ENOUGH_MEMORY, "need %s twice over, %s %s",
			   lab_fmt_size(bytes, b1, sizeof(b1)), what,
			   lab_fmt_size(avail, b2, sizeof(b2)));
		return NULL;
	}
	lab_note(L, MSG("05.cpu", "CPU: write one byte per %zu-byte page of a fresh %s mapping, "
		 "huge pages off (MADV_NOHUGEPAGE)"), c.page, lab_fmt_size(bytes, b1, sizeof(b1)));
	cpu_series(L, "cpu_us_per_page", &c, &us);
	claim_note(L, MSG("05.note-1",
		"%ld minor faults for %zu pages (%.2f per page), AnonHugePages %s"),
		   c.faults, pages, (double)c.faults / (double)pages,
		   lab_fmt_size(c.thp_bytes, b2, sizeof(b2)));
	claim_check_median(L, "05.1", &us);
	c.prefault = 0;
	if (K.prefault_cpu) /* 05.4's CPU side is its reference: keep it intact */
		cpu_series(L, "cpu_us_per_page_ref", &c, &ref);

	c.advice = BUF_HUGE;
	cpu_series(L, "cpu_first_touch_thp", &c, &thp);
	lab_fact_num(L, "cpu_thp_fraction", (double)c.thp_bytes / (double)bytes, "");
	lab_fact_num(L, "cpu_thp_us_per_4k", thp.median, "us");
	lab_note(L, MSG("05.thp",
		"THP allowed: %.3f us per 4 KiB page, %ld faults for %zu pages (%.1f us "
		 "each), AnonHugePages %.0f%% of the region"), thp.median, c.faults, pages,
		 c.faults > 0 ? thp.median * (double)pages / (double)c.faults : 0.0,
		 100.0 * (double)c.thp_bytes / (double)bytes);
	return K.prefault_cpu ? &ref : &us;
}

#if DMALAB_HAVE_CUDA
/* ------------------------------------------------------------------------ */
/* The GPU: managed memory touched by a kernel, and back (05.2-05.6)         */

/*
 * The fault-taking kernel: writes `tag` into one byte every `stride` bytes,
 * n bytes from p.  A write, not a read, so the driver cannot serve it from a
 * read-only copy: the first touch of a page that is not on the GPU faults
 * and migrates it.
 */
static __global__ void touch_kernel(unsigned char *p, size_t stride, size_t n, unsigned char tag)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i * stride] = tag;
}

/* Launches touch_kernel on the first `bytes` of m, one thread per byte it
 * writes; a fresh tag each time, so the way back can tell the GPU wrote.
 * Queued on m's stream, not waited for. */
static void um_touch(struct lab_managed *m, uint64_t bytes, uint64_t stride)
{
	size_t n = (size_t)(bytes / stride);
	unsigned int blocks = (unsigned int)((n + 255) / 256);

	m->tag = (unsigned char)(m->tag + 1);
	touch_kernel<<<blocks, 256, 0, m->stream>>>(m->p, (size_t)stride, n, m->tag);
	CUDA_CHECK_LAUNCH(m->L, 0);
}

/*
 * What 05.5 measures against demand faults: all of m moved to the GPU in bulk
 * before the kernel touches it, queued on m's stream, not waited for.
 */
static void um_prefetch_to_gpu(struct lab_managed *m)
{
	/* EXERCISE 05.prefetch grades 05.5: move all m->bytes of the managed region at
	 * m->p to GPU m->dev before the kernel runs, with cudaMemPrefetchAsync on m->stream
	 * (CUDA 13: a struct cudaMemLocation of type cudaMemLocationTypeDevice and id
	 * m->dev, flags 0; CUDA_CHECK(m->L, ...) around it), so the kernel finds every page
	 * on the GPU and takes no fault */
	struct cudaMemLocation gpu;

	memset(&gpu, 0, sizeof(gpu));
	gpu.type = cudaMemLocationTypeDevice;
	gpu.id = m->dev;
	CUDA_CHECK(m->L, cudaMemPrefetchAsync(m->p, (size_t)m->bytes, gpu, 0, m->stream));
	/* STUB
	(void)m; // nothing moved yet: the kernel faults on every page, as on demand
	END STUB */
	/* END EXERCISE */
}

/* Where a timed touch starts: the first `bytes` of m moved to the GPU
 * (on_gpu) or the host, and waited for, outside the timing. */
static void um_place(struct lab_managed *m, uint64_t bytes, int on_gpu)
{
	struct cudaMemLocation loc;

	memset(&loc, 0, sizeof(loc));
	loc.type = on_gpu ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
	loc.id = on_gpu ? m->dev : 0; /* the host's id is not read */
	CUDA_CHECK(m->L, cudaMemPrefetchAsync(m->p, (size_t)bytes, loc, 0, m->stream));
	lab_managed_sync(m);
}

/* What one timed touch measured. */
struct um_timed {
	double seconds;              /* the timed window, host clock */
	double prefetch_s;           /* um_time_touch: the prefetch's part (events) */
	long minor_faults;           /* um_time_cpu_touch: this thread's minor faults */
	struct lab_cupti_window win; /* CUPTI's clock at both ends, for the counted run */
};

/*
 * The GPU touches all of m at `stride` from where um_place put it (the GPU
 * when `resident`), after a prefetch to the GPU when `prefetch`.  Timed on
 * the host clock from the first call to the synchronised stream: a touch
 * without faults lasts microseconds, too few ticks of CUDA events; events
 * around the prefetch alone give its part.
 */
static void um_time_touch(struct lab_managed *m, uint64_t stride, int resident, int prefetch,
			  struct um_timed *out)
{
	double t0;

	memset(out, 0, sizeof(*out));
	um_place(m, m->bytes, resident);
	out->win.start = lab_cupti_now();
	t0 = lab_now();
	cuda_timer_start(m->L, &m->ev, m->stream);
	if (prefetch)
		um_prefetch_to_gpu(m);
	cuda_timer_stop(m->L, &m->ev, m->stream);
	um_touch(m, m->bytes, stride);
	lab_managed_sync(m);
	out->seconds = lab_now() - t0;
	out->win.end = lab_cupti_now();
	out->prefetch_s = cuda_timer_seconds(m->L, &m->ev);
}

/* The CPU's touch on the way back: an atomic add is one read-modify-write,
 * so a page not on the host faults once, with write intent.  Returns the
 * bytes that did not hold the GPU's last tag. */
static size_t um_cpu_touch(struct lab_managed *m, uint64_t bytes, uint64_t stride)
{
	size_t bad = 0;

	for (uint64_t off = 0; off < bytes; off += stride)
		if (__atomic_fetch_add(&m->p[off], 1, __ATOMIC_RELAXED) != m->tag)
			bad++;
	return bad;
}

/* The way back: the GPU tags the first `bytes` (untimed), then the CPU
 * touches them, timed with its minor faults.  A lost tag is a broken lab. */
static void um_time_cpu_touch(struct lab_managed *m, uint64_t bytes, uint64_t stride,
			      struct um_timed *out)
{
	long f0;
	size_t bad;
	double t0;

	memset(out, 0, sizeof(*out));
	um_place(m, bytes, 1);
	um_touch(m, bytes, stride);
	lab_managed_sync(m);
	out->win.start = lab_cupti_now();
	f0 = thread_minor_faults();
	t0 = lab_now();
	bad = um_cpu_touch(m, bytes, stride);
	out->seconds = lab_now() - t0;
	out->minor_faults = thread_minor_faults() - f0;
	out->win.end = lab_cupti_now();
	if (bad)
		lab_error(m->L, "way back: %zu of %zu pages lost the GPU's write", bad,
			  (size_t)(bytes / stride));
}

/* The GPU's first touch of `bytes` of new managed memory: the driver fills
 * fresh GPU pages and migrates nothing.  Host-clock seconds; the allocation
 * is not timed.  m's own memory must be freed first: both would not fit. */
static double um_time_populate(struct lab_managed *m, uint64_t bytes, uint64_t stride)
{
	struct lab_managed fresh = *m;
	double t;

	fresh.p = (unsigned char *)lab_cuda_alloc(m->L, LAB_BUF_MANAGED, bytes);
	t = lab_now();
	um_touch(&fresh, bytes, stride);
	lab_managed_sync(&fresh);
	t = lab_now() - t;
	lab_cuda_free(m->L, fresh.p);
	return t;
}

/* One touch between m's events, waited for: for a touch alone on the
 * stream and long against the events' clock. */
static double um_touch_events_s(struct lab_managed *m, uint64_t bytes, uint64_t stride)
{
	cuda_timer_start(m->L, &m->ev, m->stream);
	um_touch(m, bytes, stride);
	cuda_timer_stop(m->L, &m->ev, m->stream);
	return cuda_timer_seconds(m->L, &m->ev);
}

/* One timed case: a series, and its window for the counted run. */
struct um_case {
	const char *name;   /* the series (static) */
	size_t stride;      /* bytes between touched bytes */
	int resident;       /* on the GPU before the timed window (else on the host) */
	int prefetch;       /* cudaMemPrefetchAsync to the GPU inside the timed window */
	double cv_max;      /* 0: the default limit */
	double (*fn)(void *c);
	size_t bytes;       /* the part of the region it covers */
	struct um_timed last;
	double prefetch_s[LAB_MAX_SAMPLES]; /* the prefetch part of each run */
	int nprefetch;
	struct lab_stats s;
};

static struct lab_managed um_r; /* the region, initialised on the CPU */

/* lab_run_fn: the kernel touches the region at c->stride, after the data
 * was placed on the host (on the GPU for c->resident). */
static double um_gpu_sample(void *arg)
{
	struct um_case *c = (struct um_case *)arg;

	um_time_touch(&um_r, c->stride, c->resident, c->prefetch, &c->last);
	if (c->nprefetch < LAB_MAX_SAMPLES)
		c->prefetch_s[c->nprefetch++] = c->last.prefetch_s;
	return c->last.seconds;
}

/* lab_run_fn, the way back: the GPU writes a tag into every 4 KiB (untimed),
 * then the CPU reads and writes one byte of each. */
static double um_cpu_sample(void *arg)
{
	struct um_case *c = (struct um_case *)arg;

	um_time_cpu_touch(&um_r, c->bytes, c->stride, &c->last);
	return c->last.seconds;
}

/* lab_run_fn: the kernel touches managed memory nobody touched yet. */
static double um_populate_sample(void *arg)
{
	struct um_case *c = (struct um_case *)arg;

	return um_time_populate(&um_r, c->bytes, c->stride);
}

/* The cases (README, Method), in the order they are measured and counted. */
enum { CASE_DEMAND_4K, CASE_DEMAND_64K, CASE_DEMAND_2M, CASE_BASE, CASE_PREFETCHED,
       CASE_RESIDENT, CASE_WAY_BACK, CASE_COUNTED, CASE_POPULATE = CASE_COUNTED, N_CASES };

/* The knobs' columns (resident of the demand case, prefetch of the
 * prefetched one) are set by um_take_knobs, once lab_main has set K. */
static struct um_case um[N_CASES] = {
	/* name                 stride       resident prefetch cv_max */
	{ "um_demand_4k",        TOUCH_UNIT,  0,       0,       0, um_gpu_sample },
	{ "um_demand_64k",       UM_BIG_PAGE, 0,       0,       0, um_gpu_sample },
	{ "um_demand_2m",        UM_BLOCK,    0,       0,       0, um_gpu_sample },
	/* 05.5's baseline and 05.6's counted run, out of every knob's reach */
	{ "um_demand_4k_base",   TOUCH_UNIT,  0,       0,       0, um_gpu_sample },
	{ "um_prefetch_then_4k", TOUCH_UNIT,  0,       1,       0, um_gpu_sample },
	{ "um_resident_4k",      TOUCH_UNIT,  1,       0,       UM_RESIDENT_CV_MAX, um_gpu_sample },
	{ "um_cpu_way_back",     TOUCH_UNIT,  1,       0,       0, um_cpu_sample },
	{ "um_gpu_populate_4k",  TOUCH_UNIT,  0,       0,       0, um_populate_sample },
};

/* 05.2-05.4 time the demand case from the host; 05.5 prefetches first. */
static void um_take_knobs(void)
{
	um[CASE_DEMAND_4K].resident = !K.demand_faults;
	um[CASE_PREFETCHED].prefetch = K.prefetch;
}

static struct lab_cupti_counts um_k[CASE_COUNTED]; /* the counted run of each case */

/* Case k: one warm-up, then --iters samples. */
static struct um_case *um_measure(struct lab *L, int k)
{
	struct um_case *c = &um[k];
	struct lab_measure_cfg cfg = { 1, 0, c->cv_max, 0 };

	lab_progress(L, MSG("05.progress-1", "measuring %s"), c->name);
	lab_measure(L, c->name, c->fn, c, &cfg, &c->s);
	return c;
}

/* Per 4 KiB of region and GB/s over it; a point of the um_gb_s series. */
static void um_series_note(struct lab *L, const struct um_case *c)
{
	struct lab_stats rate;

	lab_stats_to_rate(&c->s, c->bytes, &rate);
	rate.name = c->name;
	lab_series_point(L, "um_gb_s", "stride_bytes", (double)c->stride, &rate);
	lab_note(L, MSG("05.case",
		"%s: %.2f ms, %.3f us per 4 KiB of region, %.2f GB/s over the region"),
		 c->name, c->s.median * 1e3, c->s.median * 1e6 / (double)(c->bytes / TOUCH_UNIT),
		 rate.median);
}

/*
 * The region, written on the CPU (memset: its first touch there), then the
 * very first GPU touch, the chapter's own case, timed once for comparison.
 */
static void um_open(struct lab *L, int dev, size_t bytes)
{
	double t;
	int k;

	lab_managed_open(L, &um_r, dev, bytes);
	um_take_knobs();
	for (k = 0; k < N_CASES; k++)
		um[k].bytes = bytes;
	um[CASE_WAY_BACK].bytes = bytes / 4 < WAY_BACK_MAX_BYTES ? bytes / 4 : WAY_BACK_MAX_BYTES;
	t = lab_now();
	memset(um_r.p, 0x5a, bytes);
	t = lab_now() - t;
	lab_note(L, MSG("05.cpu-init",
		"managed region initialised on the CPU (memset, first touch): %.1f ms, "
		 "%.2f us per 4 KiB"), t * 1e3, t * 1e6 / (double)(bytes / TOUCH_UNIT));
	t = um_touch_events_s(&um_r, bytes, TOUCH_UNIT);
	lab_fact_num(L, "um_first_touch_4k_s", t, "s");
	lab_note(L, MSG("05.gpu-after",
		"first GPU touch after the memset, stride 4 KiB: %.1f ms (%.2f GB/s)"),
		 t * 1e3, (double)bytes / t / 1e9);
}

/* Every timed case but the populate one, in the order of the table. */
static void um_measure_cases(struct lab *L)
{
	struct um_case *c;
	size_t pages;
	double pf;
	int k;

	for (k = CASE_DEMAND_4K; k <= CASE_BASE; k++)
		um_series_note(L, um_measure(L, k));
	c = um_measure(L, CASE_PREFETCHED);
	pf = lab_median(c->prefetch_s, c->nprefetch);
	pf = pf > 0 ? (double)c->bytes / pf / 1e9 : 0.0;
	lab_note(L, MSG("05.prefetch",
		"%s: %.2f ms in all, cudaMemPrefetchAsync at %.2f GB/s"), c->name,
		 c->s.median * 1e3, pf);
	lab_fact_num(L, "um_prefetch_gb_s", pf, "GB/s");
	c = um_measure(L, CASE_RESIDENT);
	lab_note(L, MSG("05.no-fault",
		"%s (no fault at all; launch to synchronised): %.3f ms"), c->name,
		 c->s.median * 1e3);
	c = um_measure(L, CASE_WAY_BACK);
	pages = c->bytes / TOUCH_UNIT;
	lab_note(L, MSG("05.way-back",
		"way back, CPU touches of GPU-resident data (%zu pages): %.3f us per "
		 "4 KiB page, %ld CPU minor faults (%.3f per page)"), pages,
		 c->s.median * 1e6 / (double)pages, c->last.minor_faults,
		 (double)c->last.minor_faults / (double)pages);
}

/* Each case once more with CUPTI collecting; the timings are untouched. */
static void um_count_cases(struct lab *L)
{
	uint64_t seen = 0;
	int i;

	if (lab_cupti_begin(L) < 0)
		return;
	for (i = 0; i < CASE_COUNTED; i++)
		um[i].fn(&um[i]);
	lab_cupti_end(L);
	for (i = 0; i < CASE_COUNTED && !lab_cupti_why(); i++)
		seen += lab_cupti_note_window(L, um[i].name, um[i].last.win, um[i].bytes, &um_k[i]);
	if (lab_cupti_why())
		return;
	lab_cupti_windows_seen(L, seen);
	lab_fact_num(L, "um_64k_gpu_faults", (double)um_k[CASE_DEMAND_64K].gpu_faults, "");
	lab_fact_num(L, "um_4k_gpu_faults", (double)um_k[CASE_BASE].gpu_faults, "");
}

/* ------------------------------------------------------------------------ */
/* The decisions                                                             */

/* 05.2: the chapter's end-to-end figure, the 4 KiB-stride first touch of a
 * region the CPU owns, scaled to 4 GiB as linearly as the chapter's model. */
static void claim_first_touch_4g(struct lab *L, size_t bytes)
{
	const struct lab_stats *s = &um[CASE_DEMAND_4K].s;
	double to_4g = (double)CHAPTER_REGION / (double)bytes;
	struct lab_est ms = lab_est_scale(lab_est_median(s, 1), 1e3 * to_4g);
	char b[32];

	lab_fact_num(L, "um_region_bytes", (double)bytes, "bytes");
	lab_fact_num(L, "um_4gib_extrapolated_ms", ms.value, "ms");
	claim_stats(L, s);
	claim_note(L, MSG("05.note-2",
		"%s first touched at stride 4 KiB in %.1f ms (%.2f GB/s, %.2f us per 64 KiB "
		"page); x%.4g to 4 GiB: %.0f ms"), lab_fmt_size(bytes, b, sizeof(b)),
		   s->median * 1e3, (double)bytes / s->median / 1e9,
		   s->median * 1e6 / (double)(bytes / UM_BIG_PAGE), to_4g, ms.value);
	claim_check(L, "05.2", ms);
}

/*
 * 05.4 per fault, the unit of the chapter's "about 10 us" against "1-2 us":
 * on the GPU the time the faults add to the 4 KiB-stride first touch (minus
 * the same touch with the data resident) over the GPU page faults CUPTI
 * recorded for that touch (the counted run of its never-sabotaged twin; a
 * count CUPTI may have cut short widens the interval downwards); on the CPU
 * 05.1's time per 4 KiB page, one counted minor fault each.  Per 4 KiB made
 * resident, the per-byte view, goes beside it (note and facts).
 */
static void claim_gpu_vs_cpu(struct lab *L, size_t bytes, const struct lab_stats *cpu_us)
{
	const struct lab_cupti_counts *k = &um_k[CASE_BASE];
	const struct lab_stats *demand = &um[CASE_DEMAND_4K].s, *resident = &um[CASE_RESIDENT].s;
	struct lab_est added, faults, per_fault, cpu;
	const char *why;
	double per4k;

	if (!cpu_us) {
		claim_skip(L, "05.4", SKIP_DEPENDS_ON_CLAIM,
			   "05.1 (the CPU fault cost) was skipped");
		return;
	}
	if (lab_cupti_why() || !k->gpu_faults || !k->h2d_bytes) {
		why = lab_cupti_why();
		claim_skip(L, "05.4", SKIP_UNSUPPORTED, "no count of the GPU's faults: %s",
			   why ? why : "CUPTI recorded no fault or transfer");
		return;
	}
	added = lab_est_scale(lab_est_diff(lab_est_median(demand, 3),
					   lab_est_median(resident, 3)), 1e6);
	faults = lab_est_exact((double)k->gpu_faults);
	faults.hi *= k->h2d_bytes < bytes ? (double)bytes / (double)k->h2d_bytes : 1.0;
	per_fault = lab_est_over(added, faults);
	cpu = lab_est_median(cpu_us, 3);
	per4k = (demand->median - resident->median) * 1e6 / (double)(bytes / TOUCH_UNIT);
	lab_fact_num(L, "gpu_us_per_fault", per_fault.value, "us");
	lab_fact_num(L, "gpu_us_per_4k_resident", per4k, "us");
	lab_fact_num(L, "gpu_over_cpu_per_4k", per4k / cpu_us->median, "x");
	claim_stats(L, demand);
	claim_stats(L, resident);
	claim_stats(L, cpu_us);
	claim_note(L, MSG("05.note-4",
		"per fault: GPU %.1f us (%.2f ms the faults added, %" PRIu64 " fault records, %"
		PRIu64 " groups) vs CPU %.2f us per 4 KiB fault; per 4 KiB made resident: GPU "
		"%.3f us, %.2fx the CPU's"), per_fault.value, added.value / 1e3,
		   k->gpu_faults, k->gpu_fault_groups, cpu_us->median, per4k,
		   per4k / cpu_us->median);
	claim_check(L, "05.4", lab_est_over(per_fault, cpu));
}

/*
 * 05.6: GPU fault records per 64 KiB page in the counted run of the
 * never-sabotaged 4 KiB stride.  CUPTI loses records at these volumes, so
 * the count is the lower end; the upper end grows by the share of the
 * region's bytes its transfer records missed.
 */
static void claim_faults_per_page(struct lab *L, size_t bytes)
{
	const struct lab_cupti_counts *k = &um_k[CASE_BASE];
	double pages = (double)(bytes / UM_BIG_PAGE);
	struct lab_est got;
	char b1[32], b2[32];

	if (lab_cupti_why()) {
		claim_skip(L, "05.6", SKIP_UNSUPPORTED, "no CUPTI fault counts: %s",
			   lab_cupti_why());
		return;
	}
	if (!k->h2d_bytes) {
		claim_skip(L, "05.6", SKIP_UNSUPPORTED, "CUPTI recorded no host-to-device "
			   "transfer in the counted run of %s: its records are missing",
			   um[CASE_BASE].name);
		return;
	}
	got.value = got.lo = (double)k->gpu_faults / pages;
	got.hi = got.lo * (k->h2d_bytes < bytes ? (double)bytes / (double)k->h2d_bytes : 1.0);
	got.too_short = 0;
	claim_note(L, MSG("05.note-6",
		"%" PRIu64 " GPU page-fault records (%" PRIu64 " fault groups) for %.0f pages of "
		"64 KiB, %.0f us of %s per record; CUPTI's transfers covered %s of the %s region"),
		k->gpu_faults, k->gpu_fault_groups, pages,
		   k->gpu_faults ? um[CASE_BASE].s.median * 1e6 / (double)k->gpu_faults : 0.0,
		   um[CASE_BASE].name, lab_fmt_size(k->h2d_bytes, b1, sizeof(b1)),
		   lab_fmt_size(bytes, b2, sizeof(b2)));
	claim_check(L, "05.6", got);
}

/* 05.2-05.6 (README, Method: GPU, then Fault counts). */
static void gpu_part(struct lab *L, size_t bytes, const struct lab_stats *cpu_us)
{
	char detail[200], b[32];
	const char *why = lab_managed_unavailable(L, bytes, detail, sizeof(detail));
	struct um_case *c;

	if (why) {
		claim_skip_rest(L, why, "%s", detail);
		return;
	}
	if (opt_no_counts)
		lab_cupti_unusable("--no-counts given");
	else
		lab_cupti_setup(lab_options(L)->device);
	lab_note(L, MSG("05.gpu",
		"GPU: managed region of %s, initialised on the CPU, then touched by a "
		 "kernel, one byte per stride"), lab_fmt_size(bytes, b, sizeof(b)));
	um_open(L, lab_options(L)->device, bytes);
	um_measure_cases(L);
	um_count_cases(L);

	claim_first_touch_4g(L, bytes);
	claim_stats(L, &um[CASE_DEMAND_2M].s);
	claim_note(L, MSG("05.note-3",
		"time at stride 4 KiB / time at stride 64 KiB; stride 2 MiB took %.2f ms"),
		   um[CASE_DEMAND_2M].s.median * 1e3);
	claim_check_ratio(L, "05.3", &um[CASE_DEMAND_4K].s, &um[CASE_DEMAND_64K].s);
	claim_gpu_vs_cpu(L, bytes, cpu_us);
	claim_note(L, MSG("05.note-5",
		"demand faults (stride 4 KiB, %s) / (cudaMemPrefetchAsync + the same kernel, %s)"),
		um[CASE_BASE].name, um[CASE_PREFETCHED].name);
	claim_check_ratio(L, "05.5", &um[CASE_BASE].s, &um[CASE_PREFETCHED].s);
	claim_faults_per_page(L, bytes);

	lab_managed_free(&um_r); /* so that the populate case never holds GPU memory beside it */
	c = um_measure(L, CASE_POPULATE);
	lab_note(L, MSG("05.never-touched",
		"never-touched managed memory, GPU first touch (no migration): %.2f ms, "
		 "%.3f us per 4 KiB"), c->s.median * 1e3,
		 c->s.median * 1e6 / (double)(c->bytes / TOUCH_UNIT));
	lab_managed_close(&um_r);
}
#endif /* DMALAB_HAVE_CUDA */

static void run(struct lab *L)
{
	size_t cpu_bytes = opt_cpu_bytes, gpu_bytes = lab_options(L)->size / UM_BLOCK * UM_BLOCK;
	const struct lab_stats *cpu_us;

	if (gpu_bytes != lab_options(L)->size)
		lab_note(L, MSG("05.size-rounded", "--size rounded down to a multiple of 2 MiB"));
	cpu_us = cpu_part(L, cpu_bytes);
#if DMALAB_HAVE_CUDA
	gpu_part(L, gpu_bytes, cpu_us);
#else
	(void)cpu_us;
	claim_skip_rest(L, SKIP_NOT_BUILT_NO_NVCC,
			"built without nvcc: the managed-memory claims need CUDA");
#endif
}

LAB_MAIN(spec, run)
