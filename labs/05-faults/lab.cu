/*
 * lab-05: page faults and Unified Memory.
 *
 * What does it cost when memory is touched for the first time: on the CPU
 * (a minor fault per 4 KiB page of fresh anonymous memory, or one per 2 MiB
 * with transparent huge pages), and on the GPU (a fault on managed memory
 * that the CPU initialised, which makes the driver migrate the data)?  And
 * how much of that cost does cudaMemPrefetchAsync take away?
 *
 * The CPU part (05.1) runs everywhere.  The CUDA part (05.2-05.6) needs a
 * GPU with concurrent managed access; it never asks for more than half of
 * the GPU's free memory.  Fault and migration counts come from CUPTI's
 * Unified Memory counters when libcupti can be loaded (dlopen, so the lab
 * starts without it); the timed runs are always taken with CUPTI off, and
 * one extra run per case is counted afterwards.  05.6 is decided on those
 * counts; without them it skips.
 *
 * The managed-memory runs are timed on the host clock, from the first call
 * to the end of cudaStreamSynchronize: a run that takes no fault lasts tens
 * of microseconds, under 100 steps of CUDA events' documented 0.5 us, and
 * the sabotage build must still be able to decide on it.
 *
 * This file is C and C++ at once: nvcc builds it as C++17, and without nvcc
 * gcc builds it as C with DMALAB_HAVE_CUDA=0 (05.2-05.6 then skip).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "buffer.h"
#include "lab.h"
#include "preflight.h"
#include "procfs.h"
#if DMALAB_HAVE_CUDA
#include <dlfcn.h>
#include <pthread.h>
#include "lab_buffers_cuda.h"
#endif

#define CPU_DEFAULT_BYTES (256 * MiB)  /* CPU first-touch region */
#define CPU_QUICK_BYTES (64 * MiB)
#define GPU_QUICK_BYTES (64 * MiB)     /* managed region with --quick */
#define GPU_MIN_BYTES (4 * MiB)        /* two 2 MiB blocks at least */
#define WAY_BACK_MAX_BYTES (64 * MiB) /* CPU faults on GPU data can be slow */
#define TOUCH_UNIT (4 * KiB)           /* "a page" in the per-page figures */
#define UM_BIG_PAGE (64 * KiB)         /* the chapter's GPU page */
#define UM_BLOCK (2 * MiB)             /* the driver's managed-memory block */
#define THP_PMD (2 * MiB)
#define UM_RESIDENT_CV_MAX 1.0         /* a fault-free kernel of microseconds, no
					* claim: only its order of magnitude is used */
#define CHAPTER_REGION (4 * GiB)       /* the chapter's "4 GB": 65,536 x 64 KiB */

static const struct claim_spec claims[] = {
	{ "05.1", "ch2.S4 ch2.S7",
	  "a CPU first-touch page fault costs about 1-2 us per 4 KiB page",
	  "ch2 S4: the kernel handles a CPU page fault in about 1-2 us",
	  "R2 'about 1-2 us' -> [0.75, 2.5] us per 4 KiB page (one fault per page, counted)",
	  WANT_RANGE(0.75, 2.5, "us"),
	  "the pages are faulted in before the timed loop, so it times plain writes" },
	{ "05.2", "ch2.S4",
	  "4 GB of managed memory first touched by a kernel takes about 655 ms",
	  "ch2 S4: 4 GB in 64 KiB pages is 65,536 faults of about 10 us each, 655 ms in all",
	  "R1 near 655 ms +-25 %; another region size is scaled linearly to 4 GiB, as in the chapter's own model (pages x 10 us)",
	  WANT_NEAR(655, 0.25, "ms"),
	  "the region is prefetched to the GPU before the timed first touch, so the kernel takes no fault" },
	{ "05.3", "ch2.S4",
	  "managed memory migrates in 64 KiB units: one byte per 4 KiB costs about the same as one byte per 64 KiB",
	  "ch2 S4: Unified Memory moves 64 KiB pages at about 10 us each, so the cost is per 64 KiB page touched",
	  "R7 'about the same' -> time(stride 4 KiB) / time(stride 64 KiB) near 1 +-25 %",
	  WANT_NEAR(1, 0.25, "x"),
	  "the 4 KiB-stride run is prefetched to the GPU before its timed window, so it migrates nothing" },
	{ "05.4", "ch2.S4 ch2.S7",
	  "a GPU page fault costs more than a CPU page fault",
	  "ch2 S4: a GPU (Unified Memory) fault is handled in about 10 us, a CPU fault in about 1-2 us",
	  "R6 'costs more' -> ratio >= 1.1, per fault as the chapter counts faults (GPU: one per 64 KiB page, CPU: one per 4 KiB page); per byte the GPU is cheaper (note)",
	  WANT_RATIO_GE(1.1),
	  "the GPU's first touch is prefetched to the GPU before its timed window, so it takes no fault" },
	{ "05.5", "ch2.S4 ch1.E2 ch2.S8",
	  "cudaMemPrefetchAsync moves the same data several times faster than demand faults",
	  "ch2 S4 with ch1 E2: demand faults price 4 GB at 655 ms (~6.5 GB/s), a bulk copy runs near PCIe 5's ~50 GB/s",
	  "R5 'several times' -> demand time / (prefetch + the same kernel) >= 3",
	  WANT_RATIO_GE(3),
	  "the prefetch call is left out, so the 'prefetched' run faults on demand too" },
	{ "05.6", "ch2.S4",
	  "each 64 KiB page first touched from the GPU costs one fault (of about 10 us)",
	  "ch2 S4: 4 GB means 65,536 page faults, one per 64 KiB page",
	  "R1 'one fault per 64 KiB page' -> CUPTI GPU fault records per 64 KiB page near 1 +-25 %; upper end widened by the bytes CUPTI missed",
	  WANT_NEAR(1, 0.25, "records per 64 KiB page"),
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static const struct lab_extra_opt extra_opts[] = {
	{ "cpu-size", "N", "region for the CPU first-touch timing (default 256M, --quick 64M)" },
	{ "no-counts", NULL, "do not load libcupti: no fault counts, CUPTI cannot disturb anything" },
	{ NULL, NULL, NULL }
};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

/* Minor faults this thread has taken so far (RUSAGE_THREAD: CUDA's helper
 * threads must not be counted). */
static long thread_minor_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return -1;
	return ru.ru_minflt;
}

/*
 * Sum of AnonHugePages (bytes) over the mappings of /proc/self/smaps that
 * overlap [addr, addr + len).  Returns -1 when smaps cannot be read.
 */
static int smaps_anon_huge(uintptr_t addr, size_t len, uint64_t *bytes)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long long lo, hi, kb;
	int inside = 0;

	if (!f)
		return -1;
	*bytes = 0;
	while (fgets(line, sizeof(line), f)) {
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3) {
			inside = lo < addr + len && hi > addr;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			*bytes += kb * 1024;
	}
	fclose(f);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* CPU part: first-touch faults on fresh anonymous memory (05.1)             */

struct cpu_touch {
	struct lab *L;
	size_t bytes;      /* region per sample */
	size_t page;       /* base page size (bytes) */
	unsigned advice;   /* BUF_NOHUGE or BUF_HUGE (madvise) */
	int advice_errno;  /* errno of a refused madvise, 0 if it was taken */
	int prefault;      /* sabotage 05.1: fault the pages in before timing */
	long faults;       /* minor faults taken in the last timed loop */
	uint64_t thp_bytes; /* AnonHugePages of the region after the last loop */
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

/*
 * lab_run_fn: fault in a fresh region once; mapping and unmapping untimed.
 * The region starts on a 2 MiB boundary, so THP can apply.
 */
static double cpu_touch_sample(void *arg)
{
	struct cpu_touch *c = (struct cpu_touch *)arg;
	unsigned char *p = (unsigned char *)buf_map(c->bytes, THP_PMD,
						    BUF_NORESERVE | c->advice,
						    &c->advice_errno);
	long f0, f1;
	double t;

	if (!p)
		return -1;
	if (c->prefault)
		write_each_page(p, c->bytes, c->page);
	f0 = thread_minor_faults();
	t = write_each_page(p, c->bytes, c->page);
	f1 = thread_minor_faults();
	c->faults = f1 - f0;
	if (smaps_anon_huge((uintptr_t)p, c->bytes, &c->thp_bytes) < 0)
		c->thp_bytes = 0;
	buf_free(p);
	return t;
}

static void cpu_thp_facts(struct lab *L)
{
	char mode[32];

	if (sysfs_thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", mode,
			   sizeof(mode)) == 0)
		lab_fact_str(L, "thp_enabled", mode);
	else
		lab_fact_str(L, "thp_enabled", "unknown");
	if (sysfs_thp_mode("/sys/kernel/mm/transparent_hugepage/defrag", mode,
			   sizeof(mode)) == 0)
		lab_fact_str(L, "thp_defrag", mode);
}

/* The same first-touch loop with THP allowed: narrative only. */
static void cpu_thp_run(struct lab *L, size_t bytes, size_t page)
{
	struct cpu_touch c;
	struct lab_stats s;
	double us_per_page;

	memset(&c, 0, sizeof(c));
	c.L = L;
	c.bytes = bytes;
	c.page = page;
	c.advice = BUF_HUGE;
	lab_measure(L, "cpu_first_touch_thp", cpu_touch_sample, &c, NULL, &s);
	us_per_page = s.median * 1e6 / (double)(bytes / page);
	lab_fact_num(L, "cpu_thp_fraction", (double)c.thp_bytes / (double)bytes, "");
	lab_fact_num(L, "cpu_thp_us_per_4k", us_per_page, "us");
	if (c.advice_errno)
		lab_note(L, "THP: madvise(MADV_HUGEPAGE) refused: %s", strerror(c.advice_errno));
	lab_note(L, "THP allowed: %.3f us per 4 KiB page, %ld faults for %zu pages, "
		 "AnonHugePages %.0f%% of the region%s", us_per_page, c.faults,
		 bytes / page, 100.0 * (double)c.thp_bytes / (double)bytes,
		 c.thp_bytes ? "" : " (THP was not used: the time is for 4 KiB pages)");
	if (c.thp_bytes && c.faults > 0)
		lab_note(L, "THP allowed: %.1f us per fault taken (a fault maps up to 2 MiB)",
			 s.median * 1e6 / (double)c.faults);
}

/* --cpu-size: 0 with *out set (the default when absent), or 2 after saying why. */
static int read_cpu_size(const struct lab *L, size_t *out)
{
	const char *arg = lab_opt(L, "cpu-size");
	uint64_t v;

	if (!arg) {
		*out = lab_options(L)->quick ? CPU_QUICK_BYTES : CPU_DEFAULT_BYTES;
		return 0;
	}
	if (lab_parse_size(arg, &v) < 0)
		return preflight_usage(L, "cpu-size", arg, "%s", errno == ERANGE ? "too large" :
				       "not a size above 0 (digits with an optional K, M, G "
				       "or T suffix)");
	if (v % THP_PMD)
		return preflight_usage(L, "cpu-size", arg, "must be a multiple of 2 MiB");
	*out = (size_t)v;
	return 0;
}

/* The managed region: --size (default 1 GiB, --quick 64 MiB), before rounding. */
static uint64_t gpu_size_asked(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);

	return o->size_given ? o->size : (o->quick ? GPU_QUICK_BYTES : o->size);
}

/* spec.check_opts: --cpu-size and --size before anything is printed (any build). */
static int check_opts(const struct lab *L)
{
	size_t cpu_bytes;

	if (read_cpu_size(L, &cpu_bytes))
		return 2;
	return preflight_size_floor(L, "size", gpu_size_asked(L), GPU_MIN_BYTES,
				    " of managed memory");
}

/* The managed region in whole 2 MiB blocks (check_opts has taken --size). */
static size_t gpu_region_bytes(struct lab *L)
{
	uint64_t v = gpu_size_asked(L);

	if (v % UM_BLOCK)
		lab_note(L, "--size rounded down to a multiple of 2 MiB");
	return (size_t)(v - v % UM_BLOCK);
}

/*
 * The THP-off first-touch loop as a series in us per base page (a proper
 * lab_stats: every sample kept, so its median carries an interval).
 * The minor faults and THP bytes of the last loop are left in *c.
 */
static void cpu_fault_series(struct lab *L, const char *name, size_t bytes, size_t page,
			     int prefault, struct lab_stats *us_per_page, struct cpu_touch *c)
{
	memset(c, 0, sizeof(*c));
	c->L = L;
	c->bytes = bytes;
	c->page = page;
	c->advice = BUF_NOHUGE;
	c->prefault = prefault;
	lab_measure(L, name, cpu_touch_sample, c, NULL, us_per_page);
	lab_stats_scale(us_per_page, 1e6 / (double)(bytes / page), "us");
	if (c->advice_errno)
		lab_note(L, "madvise(MADV_NOHUGEPAGE) refused: %s", strerror(c->advice_errno));
}

/*
 * 05.1.  Fills *cpu_ref (us per base page, the unsabotaged loop: 05.4's CPU
 * side) and returns 1, or returns 0 when the claim was skipped.
 */
static int cpu_part(struct lab *L, size_t bytes, struct lab_stats *cpu_ref)
{
	static struct lab_stats us_per_page;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const char *what;
	uint64_t avail = preflight_available(L, &what);
	struct cpu_touch c;
	char b1[32], b2[32];

	cpu_thp_facts(L);
	lab_fact_num(L, "page_size", (double)page, "bytes");
	if (!preflight_fits(2, bytes, avail)) {
		claim_skip(L, "05.1", SKIP_NOT_ENOUGH_MEMORY, "need %s twice over, %s %s",
			   lab_fmt_size(bytes, b1, sizeof(b1)), what,
			   lab_fmt_size(avail, b2, sizeof(b2)));
		return 0;
	}
	lab_note(L, "CPU: write one byte per %zu-byte page of a fresh %s mapping, "
		 "huge pages off (MADV_NOHUGEPAGE)", page, lab_fmt_size(bytes, b1, sizeof(b1)));
	cpu_fault_series(L, "cpu_us_per_page", bytes, page, LAB_SABOTAGED, &us_per_page, &c);
	claim_note(L, "%ld minor faults for %zu pages (%.2f per page), AnonHugePages %s",
		   c.faults, bytes / page, (double)c.faults / (double)(bytes / page),
		   lab_fmt_size(c.thp_bytes, b2, sizeof(b2)));
	claim_check_median(L, "05.1", &us_per_page);
	if (LAB_SABOTAGED) /* 05.4's CPU side is its reference: keep it intact */
		cpu_fault_series(L, "cpu_us_per_page_ref", bytes, page, 0, cpu_ref, &c);
	else
		*cpu_ref = us_per_page;
	cpu_thp_run(L, bytes, page);
	return 1;
}

#if DMALAB_HAVE_CUDA
/* ------------------------------------------------------------------------ */
/* CUPTI Unified Memory counters, loaded with dlopen                         */

#if __has_include(<cupti.h>)
#include <cupti.h>
#define LAB05_HAVE_CUPTI 1
#else
#define LAB05_HAVE_CUPTI 0
#endif

/* Why the driver moved data (CUPTI's CUpti_ActivityUnifiedMemoryMigrationCause). */
enum um_cause {
	UM_CAUSE_USER = 1,        /* cudaMemPrefetchAsync */
	UM_CAUSE_COHERENCE = 2,   /* a fault: the data had to move */
	UM_CAUSE_SPECULATIVE = 3, /* the driver's own prefetch around a fault */
	UM_CAUSE_COUNT = 6
};

/* What CUPTI saw inside one window of its clock. */
struct um_counts {
	uint64_t gpu_faults;       /* GPU_PAGE_FAULT records */
	uint64_t gpu_fault_groups; /* sum of their values */
	uint64_t h2d_bytes, h2d_xfers;
	uint64_t h2d_by_cause[UM_CAUSE_COUNT]; /* bytes, by enum um_cause */
	uint64_t d2h_bytes, d2h_xfers;
	uint64_t cpu_faults;       /* CPU_PAGE_FAULT_COUNT records */
};

static char cupti_why[200] = "CUPTI headers absent at build time";
static int cupti_on;           /* the counters are being collected */

#if LAB05_HAVE_CUPTI
struct um_record {
	uint32_t kind;   /* CUpti_ActivityUnifiedMemoryCounterKind */
	uint32_t flags;  /* migration cause for transfers */
	uint64_t value;  /* bytes, or fault groups */
	uint64_t start;  /* ns, CUPTI clock */
};

static struct {
	void *lib;
	decltype(&cuptiActivityRegisterCallbacks) register_callbacks;
	decltype(&cuptiActivityConfigureUnifiedMemoryCounter) configure_um;
	decltype(&cuptiActivityEnable) enable;
	decltype(&cuptiActivityDisable) disable;
	decltype(&cuptiActivityFlushAll) flush_all;
	decltype(&cuptiActivityGetNextRecord) next_record;
	decltype(&cuptiActivityGetNumDroppedRecords) dropped;
	decltype(&cuptiGetTimestamp) timestamp;
	decltype(&cuptiGetResultString) result_string;
	decltype(&cuptiGetVersion) version;
	struct um_record *rec;
	size_t nrec, cap;
	uint64_t lost;   /* records we had no memory for */
} cupti;
static pthread_mutex_t cupti_lock = PTHREAD_MUTEX_INITIALIZER;

#define CUPTI_BUFFER_BYTES (8 * MiB)

static void cupti_fail(const char *what, CUptiResult r)
{
	const char *s = NULL;

	if (cupti.result_string)
		cupti.result_string(r, &s);
	snprintf(cupti_why, sizeof(cupti_why), "%s: %s (%d)", what, s ? s : "?", (int)r);
}

static void um_store(const CUpti_ActivityUnifiedMemoryCounter3 *r)
{
	pthread_mutex_lock(&cupti_lock);
	if (cupti.nrec == cupti.cap) {
		size_t cap = cupti.cap ? 2 * cupti.cap : 65536;
		void *n = realloc(cupti.rec, cap * sizeof(*cupti.rec));

		if (!n) {
			cupti.lost++;
			pthread_mutex_unlock(&cupti_lock);
			return;
		}
		cupti.rec = (struct um_record *)n;
		cupti.cap = cap;
	}
	cupti.rec[cupti.nrec].kind = (uint32_t)r->counterKind;
	cupti.rec[cupti.nrec].flags = r->flags;
	cupti.rec[cupti.nrec].value = r->value;
	cupti.rec[cupti.nrec].start = r->start;
	cupti.nrec++;
	pthread_mutex_unlock(&cupti_lock);
}

static void CUPTIAPI um_buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	*buf = (uint8_t *)aligned_alloc(8, CUPTI_BUFFER_BYTES);
	*size = *buf ? CUPTI_BUFFER_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI um_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf,
					 size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;

	while (buf && valid && cupti.next_record(buf, valid, &rec) == CUPTI_SUCCESS)
		if (rec->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)
			um_store((const CUpti_ActivityUnifiedMemoryCounter3 *)rec);
	free(buf);
}

#define CUPTI_SYM(field, name)                                            \
	(cupti.field = reinterpret_cast<decltype(cupti.field)>(dlsym(cupti.lib, name)))

static int cupti_load(void)
{
	char soname[32];
	const char *paths[] = { soname, "/usr/local/cuda/lib64/libcupti.so",
				"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so", "libcupti.so" };
	size_t i;

	snprintf(soname, sizeof(soname), "libcupti.so.%d", CUDART_VERSION / 1000);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !cupti.lib; i++)
		cupti.lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
	if (!cupti.lib) {
		snprintf(cupti_why, sizeof(cupti_why), "libcupti not found (%s)", dlerror());
		return -1;
	}
	if (!CUPTI_SYM(register_callbacks, "cuptiActivityRegisterCallbacks") ||
	    !CUPTI_SYM(configure_um, "cuptiActivityConfigureUnifiedMemoryCounter") ||
	    !CUPTI_SYM(enable, "cuptiActivityEnable") ||
	    !CUPTI_SYM(disable, "cuptiActivityDisable") ||
	    !CUPTI_SYM(flush_all, "cuptiActivityFlushAll") ||
	    !CUPTI_SYM(next_record, "cuptiActivityGetNextRecord") ||
	    !CUPTI_SYM(dropped, "cuptiActivityGetNumDroppedRecords") ||
	    !CUPTI_SYM(timestamp, "cuptiGetTimestamp") ||
	    !CUPTI_SYM(result_string, "cuptiGetResultString") ||
	    !CUPTI_SYM(version, "cuptiGetVersion")) {
		snprintf(cupti_why, sizeof(cupti_why), "libcupti lacks a symbol (%s)", dlerror());
		return -1;
	}
	return 0;
}

/* The record layout we parse is the headers'; refuse another major API. */
static int cupti_check_version(void)
{
	uint32_t v = 0;
	CUptiResult r = cupti.version(&v);

	if (r != CUPTI_SUCCESS) {
		cupti_fail("cuptiGetVersion", r);
		return -1;
	}
	if (v / 10000 != CUPTI_API_VERSION / 10000) {
		snprintf(cupti_why, sizeof(cupti_why),
			 "libcupti API version %u, built against %u", v, (unsigned)CUPTI_API_VERSION);
		return -1;
	}
	return 0;
}

static void um_config(CUpti_ActivityUnifiedMemoryCounterConfig *c,
		      CUpti_ActivityUnifiedMemoryCounterKind kind, int dev)
{
	c->scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
	c->kind = kind;
	c->deviceId = (uint32_t)dev;
	c->enable = 1;
}

/*
 * Load libcupti and configure the counters (after the driver is up, before
 * the managed region exists).  Collection starts only in cupti_begin().
 * Failure is not an error: cupti_why says why the counts are missing.
 */
static void cupti_setup(int dev)
{
	CUpti_ActivityUnifiedMemoryCounterConfig cfg[4];
	CUptiResult r;

	if (cupti_load() < 0 || cupti_check_version() < 0)
		return;
	r = cupti.register_callbacks(um_buffer_requested, um_buffer_completed);
	if (r != CUPTI_SUCCESS) {
		cupti_fail("cuptiActivityRegisterCallbacks", r);
		return;
	}
	um_config(&cfg[0], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, dev);
	um_config(&cfg[1], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD, dev);
	um_config(&cfg[2], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH, dev);
	um_config(&cfg[3], CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT, dev);
	r = cupti.configure_um(cfg, 4);
	if (r != CUPTI_SUCCESS) /* CPU fault counts are the least needed */
		r = cupti.configure_um(cfg, 3);
	if (r != CUPTI_SUCCESS) {
		cupti_fail("cuptiActivityConfigureUnifiedMemoryCounter", r);
		return;
	}
	cupti_why[0] = '\0';
}

static int cupti_begin(void)
{
	CUptiResult r;

	if (cupti_why[0])
		return -1;
	r = cupti.enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	if (r != CUPTI_SUCCESS) {
		cupti_fail("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", r);
		return -1;
	}
	cupti_on = 1;
	return 0;
}

/* Stop collecting and receive every record (the device is idle by then). */
static void cupti_end(struct lab *L)
{
	size_t dropped = 0;

	if (!cupti_on)
		return;
	CUDA_CHECK(L, cudaDeviceSynchronize());
	cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cupti.disable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cupti_on = 0;
	if (cupti.dropped(NULL, 0, &dropped) == CUPTI_SUCCESS && dropped)
		lab_note(L, "CUPTI dropped %zu Unified Memory records: counts are low", dropped);
	if (cupti.lost)
		lab_note(L, "%" PRIu64 " Unified Memory records lost (out of memory)", cupti.lost);
	if (cupti.nrec == 0)
		snprintf(cupti_why, sizeof(cupti_why),
			 "CUPTI delivered no Unified Memory records");
}

static uint64_t cupti_now(void)
{
	uint64_t t = 0;

	if (cupti_on)
		cupti.timestamp(&t);
	return t;
}

static void um_count_record(const struct um_record *r, struct um_counts *c)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
		c->gpu_faults++;
		c->gpu_fault_groups += r->value;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
		c->h2d_bytes += r->value;
		c->h2d_xfers++;
		if (r->flags < UM_CAUSE_COUNT)
			c->h2d_by_cause[r->flags] += r->value;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
		c->d2h_bytes += r->value;
		c->d2h_xfers++;
		break;
	case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
		c->cpu_faults++;
		break;
	default:
		break;
	}
}

/* Counts of the records that started inside [t0, t1] (CUPTI clock, ns). */
static void um_count(uint64_t t0, uint64_t t1, struct um_counts *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	pthread_mutex_lock(&cupti_lock);
	for (i = 0; i < cupti.nrec; i++)
		if (cupti.rec[i].start >= t0 && cupti.rec[i].start <= t1)
			um_count_record(&cupti.rec[i], c);
	pthread_mutex_unlock(&cupti_lock);
}

#else /* !LAB05_HAVE_CUPTI */
static void cupti_setup(int dev) {}
static int cupti_begin(void) { return -1; }
static void cupti_end(struct lab *L) {}
static uint64_t cupti_now(void) { return 0; }
static void um_count(uint64_t t0, uint64_t t1, struct um_counts *c)
{
	memset(c, 0, sizeof(*c));
}
#endif

/* ------------------------------------------------------------------------ */
/* Managed memory: the region, the touch kernel, the timed cases            */

/* One byte per `stride`: n touches.  A write, so no read-only copy can be
 * made: each touch of a page not on the GPU faults and migrates it. */
__global__ void touch_kernel(unsigned char *p, size_t stride, size_t n, unsigned char tag)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i * stride] = tag;
}

struct um_region {
	struct lab *L;
	unsigned char *p;   /* cudaMallocManaged */
	size_t bytes;
	int dev;
	unsigned char tag;  /* last value the GPU wrote */
	cudaStream_t stream;
	cudaEvent_t ev[3];
};

struct um_case {
	struct um_region *r;
	const char *name;   /* series name (static) */
	size_t bytes;       /* part of the region this case covers */
	size_t stride;      /* bytes between touched bytes */
	int resident;       /* data put on the GPU before the timed window */
	int floor;          /* the fault-free floor: no claim uses it */
	int prefetch;       /* cudaMemPrefetchAsync inside the timed window */
	long cpu_faults;    /* minor faults of the last CPU pass (way back) */
	double prefetch_s[LAB_MAX_SAMPLES]; /* prefetch part of each run */
	int nprefetch;
	uint64_t win[2];    /* CUPTI clock around the last timed part */
};

static void um_prefetch(struct um_region *r, size_t bytes, int to_gpu)
{
	struct cudaMemLocation loc;

	memset(&loc, 0, sizeof(loc));
	loc.type = to_gpu ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
	loc.id = to_gpu ? r->dev : 0; /* ignored for the host */
	CUDA_CHECK(r->L, cudaMemPrefetchAsync(r->p, bytes, loc, 0, r->stream));
}

/* Make the data resident on the GPU or the host, and wait for it. */
static void um_place(struct um_region *r, size_t bytes, int on_gpu)
{
	um_prefetch(r, bytes, on_gpu);
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->stream));
}

static void um_launch_touch(struct um_region *r, size_t bytes, size_t stride)
{
	size_t n = bytes / stride;
	unsigned int blocks = (unsigned int)((n + 255) / 256);

	r->tag = (unsigned char)(r->tag + 1);
	touch_kernel<<<blocks, 256, 0, r->stream>>>(r->p, stride, n, r->tag);
	CUDA_CHECK_LAUNCH(r->L, 0);
}

static double um_elapsed(struct um_region *r, int a, int b)
{
	float ms = 0;

	CUDA_CHECK(r->L, cudaEventElapsedTime(&ms, r->ev[a], r->ev[b]));
	return ms / 1e3;
}

/*
 * lab_run_fn: the GPU touches the region with c->stride.  Untimed first: the
 * data goes to the host (or, for c->resident, to the GPU).  Timed on the
 * host clock, first call to synchronised: the optional prefetch to the GPU,
 * then the kernel.  Events split off the prefetch part for the narrative.
 */
static double um_gpu_sample(void *arg)
{
	struct um_case *c = (struct um_case *)arg;
	struct um_region *r = c->r;
	double t0, t1;

	um_place(r, r->bytes, c->resident);
	c->win[0] = cupti_now();
	t0 = lab_now();
	CUDA_CHECK(r->L, cudaEventRecord(r->ev[0], r->stream));
	if (c->prefetch)
		um_prefetch(r, r->bytes, 1);
	CUDA_CHECK(r->L, cudaEventRecord(r->ev[1], r->stream));
	um_launch_touch(r, r->bytes, c->stride);
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->stream));
	t1 = lab_now();
	c->win[1] = cupti_now();
	if (c->nprefetch < LAB_MAX_SAMPLES)
		c->prefetch_s[c->nprefetch++] = um_elapsed(r, 0, 1);
	return t1 - t0;
}

/*
 * One atomic add per 4 KiB: a single read-modify-write instruction, so each
 * page takes one fault with write intent.  Returns the pages that did not
 * hold the GPU's tag.
 */
static size_t cpu_rmw_pages(unsigned char *p, size_t bytes, unsigned char tag)
{
	size_t off, bad = 0;

	for (off = 0; off < bytes; off += TOUCH_UNIT)
		if (__atomic_fetch_add(&p[off], 1, __ATOMIC_RELAXED) != tag)
			bad++;
	return bad;
}

/* lab_run_fn: the way back.  The GPU writes a tag into every 4 KiB (untimed);
 * then the CPU reads and writes one byte per 4 KiB (timed). */
static double um_cpu_sample(void *arg)
{
	struct um_case *c = (struct um_case *)arg;
	struct um_region *r = c->r;
	long f0, f1;
	size_t bad;
	double t0, t1;

	um_place(r, c->bytes, 1);
	um_launch_touch(r, c->bytes, TOUCH_UNIT);
	CUDA_CHECK(r->L, cudaStreamSynchronize(r->stream));
	c->win[0] = cupti_now();
	f0 = thread_minor_faults();
	t0 = lab_now();
	bad = cpu_rmw_pages(r->p, c->bytes, r->tag);
	t1 = lab_now();
	f1 = thread_minor_faults();
	c->win[1] = cupti_now();
	if (bad)
		lab_error(r->L, "way back: %zu of %zu pages lost the GPU's write",
			  bad, (size_t)(c->bytes / TOUCH_UNIT));
	c->cpu_faults = f1 - f0;
	return t1 - t0;
}

/* lab_run_fn: the GPU touches a never-touched managed region (no migration:
 * the driver fills fresh GPU pages).  Allocation and free untimed. */
static double um_populate_sample(void *arg)
{
	struct um_case *c = (struct um_case *)arg;
	struct um_region fresh = *c->r;
	double t;

	fresh.p = (unsigned char *)lab_cuda_alloc(fresh.L, LAB_BUF_MANAGED, c->bytes);
	t = lab_now();
	um_launch_touch(&fresh, c->bytes, c->stride);
	CUDA_CHECK(fresh.L, cudaStreamSynchronize(fresh.stream));
	t = lab_now() - t;
	lab_cuda_free(fresh.L, fresh.p);
	return t;
}

static void um_case_init(struct um_case *c, struct um_region *r, const char *name,
			 size_t stride)
{
	memset(c, 0, sizeof(*c));
	c->r = r;
	c->name = name;
	c->bytes = r->bytes;
	c->stride = stride;
}

static void um_measure(struct lab *L, struct um_case *c, lab_run_fn fn, struct lab_stats *s)
{
	struct lab_measure_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.warmup = 1;
	/* The default CV limit (more samples when over it), except for the
	 * fault-free floor, which no claim uses. */
	cfg.cv_max = c->floor ? UM_RESIDENT_CV_MAX : 0;
	lab_progress(L, "measuring %s", c->name);
	lab_measure(L, c->name, fn, c, &cfg, s);
}

/* ------------------------------------------------------------------------ */
/* The GPU part: setup, measurements, counts, claims                        */

/* Every timed series of the GPU part. */
struct um_results {
	struct um_case demand[3];  /* strides 4 KiB, 64 KiB, 2 MiB: 05.2-05.4 */
	struct um_case base;       /* stride 4 KiB again, never sabotaged: 05.5, 05.6 */
	struct um_case prefetched, resident, way_back, populate;
	struct lab_stats s_demand[3], s_base, s_prefetched, s_resident, s_way_back, s_populate;
	int counted;               /* CUPTI counts were collected */
};

/* The cases counted with CUPTI, in this order (um_count_cases). */
enum { K_DEMAND_4K, K_DEMAND_64K, K_DEMAND_2M, K_BASE, K_PREFETCHED, K_RESIDENT,
       K_WAY_BACK, K_CASES };

static const size_t demand_strides[3] = { TOUCH_UNIT, UM_BIG_PAGE, UM_BLOCK };
static const char *const demand_names[3] = { "um_demand_4k", "um_demand_64k", "um_demand_2m" };

static void um_device_facts(struct lab *L, int dev)
{
	static const char *params[] = { "uvm_perf_prefetch_enable", "uvm_perf_prefetch_threshold",
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
 * Checks that managed memory can fault here and that `bytes` fits (at most
 * half of the GPU's free memory, twice over in host memory).  Skips every
 * GPU claim and returns -1 when not.
 */
static int um_preflight(struct lab *L, int dev, size_t bytes)
{
	int managed = 0, concurrent = 0;
	uint64_t free_b, total_b;
	const char *what;
	uint64_t avail = preflight_available(L, &what);
	char b1[32], b2[32], b3[32];

	CUDA_CHECK(L, cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
	CUDA_CHECK(L, cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
	lab_fact_num(L, "concurrent_managed_access", concurrent, "");
	if (!managed || !concurrent) {
		claim_skip_rest(L, SKIP_UNSUPPORTED, "managedMemory=%d concurrentManagedAccess=%d: "
				"no GPU page faults on managed memory here", managed, concurrent);
		return -1;
	}
	lab_cuda_mem_info(L, &free_b, &total_b);
	if (!preflight_fits(2, bytes, free_b)) {
		claim_skip_rest(L, SKIP_GPU_TOO_SMALL, "managed region %s > half of the free GPU "
				"memory (%s free of %s)", lab_fmt_size(bytes, b1, sizeof(b1)),
				lab_fmt_size(free_b, b2, sizeof(b2)), lab_fmt_size(total_b, b3, sizeof(b3)));
		return -1;
	}
	if (!preflight_fits(2, bytes, avail)) {
		claim_skip_rest(L, SKIP_NOT_ENOUGH_MEMORY, "managed region %s needs twice that in "
				"host memory, %s %s", lab_fmt_size(bytes, b1, sizeof(b1)), what,
				lab_fmt_size(avail, b2, sizeof(b2)));
		return -1;
	}
	return 0;
}

/* Allocate the region and initialise it on the CPU (every byte written). */
static void um_region_open(struct lab *L, struct um_region *r, int dev, size_t bytes)
{
	double t;
	int i;

	memset(r, 0, sizeof(*r));
	r->L = L;
	r->dev = dev;
	r->bytes = bytes;
	CUDA_CHECK(L, cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
	for (i = 0; i < 3; i++)
		CUDA_CHECK(L, cudaEventCreate(&r->ev[i]));
	r->p = (unsigned char *)lab_cuda_alloc(L, LAB_BUF_MANAGED, bytes);
	t = lab_now();
	memset(r->p, 0x5a, bytes);
	t = lab_now() - t;
	lab_note(L, "managed region initialised on the CPU (memset, first touch): %.1f ms, "
		 "%.2f us per 4 KiB", t * 1e3, t * 1e6 / (double)(bytes / TOUCH_UNIT));
}

/* Free the managed memory; the stream and events stay for later cases. */
static void um_region_free(struct um_region *r)
{
	lab_cuda_free(r->L, r->p);
	r->p = NULL;
}

static void um_region_close(struct um_region *r)
{
	int i;

	um_region_free(r);
	for (i = 0; i < 3; i++)
		cudaEventDestroy(r->ev[i]);
	cudaStreamDestroy(r->stream);
}

/* The very first GPU touch of the freshly memset region, before any reset:
 * the case the chapter describes, timed once for comparison. */
static void um_first_touch(struct lab *L, struct um_region *r)
{
	double t;

	CUDA_CHECK(L, cudaEventRecord(r->ev[0], r->stream));
	um_launch_touch(r, r->bytes, TOUCH_UNIT);
	CUDA_CHECK(L, cudaEventRecord(r->ev[2], r->stream));
	CUDA_CHECK(L, cudaEventSynchronize(r->ev[2]));
	t = um_elapsed(r, 0, 2);
	lab_fact_num(L, "um_first_touch_4k_s", t, "s");
	lab_note(L, "first GPU touch after the memset, stride 4 KiB: %.1f ms (%.2f GB/s)",
		 t * 1e3, (double)r->bytes / t / 1e9);
}

static void um_series_note(struct lab *L, const struct um_case *c, const struct lab_stats *s)
{
	struct lab_stats rate;

	lab_stats_to_rate(s, c->bytes, &rate);
	rate.name = c->name;
	lab_series_point(L, "um_gb_s", "stride_bytes", (double)c->stride, &rate);
	lab_note(L, "%s: %.2f ms, %.3f us per 4 KiB of region, %.2f GB/s over the region",
		 c->name, s->median * 1e3, s->median * 1e6 / (double)(c->bytes / TOUCH_UNIT),
		 rate.median);
}

static void um_measure_demand(struct lab *L, struct um_region *r, struct um_results *m)
{
	int i;

	for (i = 0; i < 3; i++) {
		um_case_init(&m->demand[i], r, demand_names[i], demand_strides[i]);
		/* Sabotage 05.2-05.4: the 4 KiB-stride first touch finds the
		 * region already on the GPU, so it takes no fault. */
		if (LAB_SABOTAGED && i == 0)
			m->demand[i].resident = 1;
		um_measure(L, &m->demand[i], um_gpu_sample, &m->s_demand[i]);
		um_series_note(L, &m->demand[i], &m->s_demand[i]);
	}
}

/*
 * 05.5's two sides, one after the other: the demand run again (its own
 * series, so no other claim's sabotage touches it) and the prefetched run.
 */
static void um_measure_prefetch(struct lab *L, struct um_region *r, struct um_results *m)
{
	double pf;

	um_case_init(&m->base, r, "um_demand_4k_base", TOUCH_UNIT);
	um_measure(L, &m->base, um_gpu_sample, &m->s_base);
	um_series_note(L, &m->base, &m->s_base);

	um_case_init(&m->prefetched, r, "um_prefetch_then_4k", TOUCH_UNIT);
	m->prefetched.prefetch = !LAB_SABOTAGED; /* sabotage 05.5: no prefetch */
	um_measure(L, &m->prefetched, um_gpu_sample, &m->s_prefetched);
	pf = lab_median(m->prefetched.prefetch_s, m->prefetched.nprefetch);
	lab_note(L, "%s: %.2f ms in all, of which cudaMemPrefetchAsync %.2f ms (%.2f GB/s)",
		 m->prefetched.name, m->s_prefetched.median * 1e3, pf * 1e3,
		 pf > 0 ? (double)r->bytes / pf / 1e9 : 0.0);
	lab_fact_num(L, "um_prefetch_gb_s", pf > 0 ? (double)r->bytes / pf / 1e9 : 0.0, "GB/s");

	um_case_init(&m->resident, r, "um_resident_4k", TOUCH_UNIT);
	m->resident.resident = 1;
	m->resident.floor = 1;
	um_measure(L, &m->resident, um_gpu_sample, &m->s_resident);
	lab_note(L, "%s (no fault at all; launch to synchronised): %.3f ms", m->resident.name,
		 m->s_resident.median * 1e3);
}

static void um_measure_way_back(struct lab *L, struct um_region *r, struct um_results *m)
{
	struct um_case *c = &m->way_back;
	struct lab_stats *s = &m->s_way_back;
	size_t pages;

	um_case_init(c, r, "um_cpu_way_back", TOUCH_UNIT);
	c->bytes = r->bytes / 4;
	if (c->bytes > WAY_BACK_MAX_BYTES)
		c->bytes = WAY_BACK_MAX_BYTES;
	pages = c->bytes / TOUCH_UNIT;
	um_measure(L, c, um_cpu_sample, s);
	lab_note(L, "way back, CPU touches of GPU-resident data (%zu pages): %.3f us per "
		 "4 KiB page, %ld CPU minor faults (%.3f per page)", pages,
		 s->median * 1e6 / (double)pages, c->cpu_faults,
		 (double)c->cpu_faults / (double)pages);
}

/* Never-touched memory, after the main region is freed (so both never
 * hold GPU memory at once). */
static void um_measure_populate(struct lab *L, struct um_region *r, struct um_results *m)
{
	um_case_init(&m->populate, r, "um_gpu_populate_4k", TOUCH_UNIT);
	um_measure(L, &m->populate, um_populate_sample, &m->s_populate);
	lab_note(L, "never-touched managed memory, GPU first touch (no migration): %.2f ms, "
		 "%.3f us per 4 KiB", m->s_populate.median * 1e3,
		 m->s_populate.median * 1e6 / (double)(m->populate.bytes / TOUCH_UNIT));
}

static void um_counts_note(struct lab *L, const struct um_case *c, const struct um_counts *k)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	double big_pages = (double)(c->bytes / UM_BIG_PAGE);

	lab_note(L, "%s counted: %" PRIu64 " GPU fault records (%" PRIu64 " fault groups), "
		 "%.3f per 64 KiB of region; H2D %s in %" PRIu64 " transfers (on demand %s, "
		 "driver prefetch %s, cudaMemPrefetchAsync %s); D2H %s; CPU faults %" PRIu64,
		 c->name, k->gpu_faults, k->gpu_fault_groups, (double)k->gpu_faults / big_pages,
		 lab_fmt_size(k->h2d_bytes, b1, sizeof(b1)), k->h2d_xfers,
		 lab_fmt_size(k->h2d_by_cause[UM_CAUSE_COHERENCE], b2, sizeof(b2)),
		 lab_fmt_size(k->h2d_by_cause[UM_CAUSE_SPECULATIVE], b3, sizeof(b3)),
		 lab_fmt_size(k->h2d_by_cause[UM_CAUSE_USER], b4, sizeof(b4)),
		 lab_fmt_size(k->d2h_bytes, b5, sizeof(b5)), k->cpu_faults);
}

/* One more run of each case with CUPTI collecting; timings untouched. */
static void um_count_cases(struct lab *L, struct um_results *m, struct um_counts k[K_CASES])
{
	struct um_case *cases[K_CASES] = { &m->demand[0], &m->demand[1], &m->demand[2],
					   &m->base, &m->prefetched, &m->resident,
					   &m->way_back };
	struct um_counts all;
	uint64_t in_windows = 0;
	int i;

	if (cupti_begin() < 0) {
		lab_note(L, "fault counts unavailable: %s", cupti_why);
		return;
	}
	for (i = 0; i < K_CASES; i++)
		(i == K_WAY_BACK ? um_cpu_sample : um_gpu_sample)(cases[i]);
	cupti_end(L);
	if (cupti_why[0]) {
		lab_note(L, "fault counts unavailable: %s", cupti_why);
		return;
	}
	for (i = 0; i < K_CASES; i++) {
		um_count(cases[i]->win[0], cases[i]->win[1], &k[i]);
		um_counts_note(L, cases[i], &k[i]);
		in_windows += k[i].gpu_faults + k[i].h2d_xfers + k[i].d2h_xfers;
	}
	um_count(0, UINT64_MAX, &all);
	if (!in_windows) {
		snprintf(cupti_why, sizeof(cupti_why), "no record fell inside a timed window "
			 "(%" PRIu64 " GPU faults, %" PRIu64 " H2D transfers in all)",
			 all.gpu_faults, all.h2d_xfers);
		lab_note(L, "fault counts unusable: %s", cupti_why);
	}
	lab_fact_num(L, "um_64k_gpu_faults", (double)k[K_DEMAND_64K].gpu_faults, "");
	lab_fact_num(L, "um_4k_gpu_faults", (double)k[K_BASE].gpu_faults, "");
	m->counted = in_windows > 0;
}

/*
 * 05.2: the chapter's end-to-end figure.  The stride-4 KiB kernel touches
 * every page of a region the CPU owns; its time, scaled linearly to the
 * chapter's 4 GiB (its model is linear: pages x 10 us), is got.
 */
static void claim_first_touch_4g(struct lab *L, struct um_results *m, size_t bytes)
{
	const struct lab_stats *s = &m->s_demand[0];
	double to_4g = (double)CHAPTER_REGION / (double)bytes;
	struct lab_est ms = lab_est_scale(lab_est_median(s, 1), 1e3 * to_4g);
	char b[32];

	lab_fact_num(L, "um_region_bytes", (double)bytes, "bytes");
	lab_fact_num(L, "um_4gib_extrapolated_ms", ms.value, "ms");
	claim_stats(L, s);
	claim_note(L, "%s first touched at stride 4 KiB in %.1f ms (%.2f GB/s, %.2f us per "
		   "64 KiB page); x%.4g to 4 GiB: %.0f ms", lab_fmt_size(bytes, b, sizeof(b)),
		   s->median * 1e3, (double)bytes / s->median / 1e9,
		   s->median * 1e6 / (double)(bytes / UM_BIG_PAGE), to_4g, ms.value);
	claim_check(L, "05.2", ms);
}

static void claim_stride(struct lab *L, struct um_results *m)
{
	claim_stats(L, &m->s_demand[2]);
	claim_note(L, "time at stride 4 KiB / time at stride 64 KiB; stride 2 MiB took %.2f ms",
		   m->s_demand[2].median * 1e3);
	claim_check_ratio(L, "05.3", &m->s_demand[0], &m->s_demand[1]);
}

/*
 * 05.4, per fault as the chapter counts faults: one per 64 KiB page on the
 * GPU (its 65,536 faults for 4 GB), one per 4 KiB page on the CPU (getrusage
 * counts 1.00 there).  The GPU side is 05.2's first touch per 64 KiB page.
 * Per 4 KiB made resident the GPU is cheaper; the note gives both.
 */
static void claim_gpu_vs_cpu(struct lab *L, struct um_results *m, size_t bytes,
			     const struct lab_stats *cpu_us, const struct um_counts *k)
{
	static struct lab_stats gpu; /* 8 KiB of samples: off the stack */
	double per4k;

	gpu = m->s_demand[0];
	lab_stats_scale(&gpu, 1e6 / (double)(bytes / UM_BIG_PAGE), "us");
	gpu.name = "gpu_us_per_64k_page";
	per4k = gpu.median * (double)TOUCH_UNIT / (double)UM_BIG_PAGE;
	if (m->counted && k->gpu_faults)
		claim_note(L, "per fault: GPU %.2f us per 64 KiB page vs CPU %.2f us per 4 KiB "
			   "fault; per 4 KiB made resident: GPU %.2f us (%.2fx the CPU); per CUPTI "
			   "fault record: GPU %.0f us", gpu.median, cpu_us->median, per4k,
			   per4k / cpu_us->median, m->s_demand[0].median * 1e6 /
			   (double)k->gpu_faults);
	else
		claim_note(L, "per fault: GPU %.2f us per 64 KiB page vs CPU %.2f us per 4 KiB "
			   "fault; per 4 KiB made resident: GPU %.2f us (%.2fx the CPU)",
			   gpu.median, cpu_us->median, per4k, per4k / cpu_us->median);
	claim_check_ratio(L, "05.4", &gpu, cpu_us);
}

static void claim_prefetch(struct lab *L, struct um_results *m)
{
	claim_note(L, "demand faults (stride 4 KiB, %s) / (cudaMemPrefetchAsync + the same "
		   "kernel, %s)", m->base.name, m->prefetched.name);
	claim_check_ratio(L, "05.5", &m->s_base, &m->s_prefetched);
}

/*
 * 05.6: GPU page-fault records per 64 KiB page, from the counted run of the
 * never-sabotaged stride-4 KiB case.  CUPTI loses records at these volumes
 * (its transfers often cover less than the region the kernel wrote), so the
 * count is a lower end; the upper end is raised by the share of the region's
 * bytes that its transfer records missed.
 */
static void claim_faults_per_page(struct lab *L, struct um_results *m, size_t bytes,
				  const struct um_counts *k)
{
	double pages = (double)(bytes / UM_BIG_PAGE);
	struct lab_est got;
	char b1[32], b2[32];

	if (!m->counted) {
		claim_skip(L, "05.6", SKIP_UNSUPPORTED, "no CUPTI fault counts: %s", cupti_why);
		return;
	}
	if (!k->h2d_bytes) {
		claim_skip(L, "05.6", SKIP_UNSUPPORTED, "CUPTI recorded no host-to-device "
			   "transfer in the counted run of %s: its records are missing",
			   m->base.name);
		return;
	}
	got.value = got.lo = (double)k->gpu_faults / pages;
	got.hi = got.lo * (k->h2d_bytes < bytes ? (double)bytes / (double)k->h2d_bytes : 1.0);
	got.too_short = 0;
	claim_note(L, "%" PRIu64 " GPU page-fault records (%" PRIu64 " fault groups) for %.0f "
		   "pages of 64 KiB, %.0f us of %s per record; CUPTI's transfers covered %s of "
		   "the %s region", k->gpu_faults, k->gpu_fault_groups, pages,
		   k->gpu_faults ? m->s_base.median * 1e6 / (double)k->gpu_faults : 0.0,
		   m->base.name, lab_fmt_size(k->h2d_bytes, b1, sizeof(b1)),
		   lab_fmt_size(bytes, b2, sizeof(b2)));
	claim_check(L, "05.6", got);
}

static void gpu_claims(struct lab *L, struct um_results *m, size_t bytes,
		       const struct lab_stats *cpu_us, int cpu_ok, const struct um_counts *k)
{
	claim_first_touch_4g(L, m, bytes);
	claim_stride(L, m);
	if (cpu_ok)
		claim_gpu_vs_cpu(L, m, bytes, cpu_us, &k[K_DEMAND_4K]);
	else
		claim_skip(L, "05.4", SKIP_DEPENDS_ON_CLAIM, "05.1 (the CPU fault cost) was skipped");
	claim_prefetch(L, m);
	claim_faults_per_page(L, m, bytes, &k[K_BASE]);
}

static void gpu_part(struct lab *L, size_t bytes, const struct lab_stats *cpu_us, int cpu_ok)
{
	static struct um_results m; /* 8 KiB per series: keep it off the stack */
	struct um_counts k[K_CASES];
	struct um_region r;
	char detail[200], b[32];
	const char *why = lab_cuda_unavailable(1, detail, sizeof(detail));
	int dev = lab_options(L)->device;

	if (why) {
		claim_skip_rest(L, why, "%s", detail);
		return;
	}
	lab_cuda_require(L, 1);
	um_device_facts(L, dev);
	if (um_preflight(L, dev, bytes) < 0)
		return;
	memset(k, 0, sizeof(k));
	if (lab_opt(L, "no-counts"))
		snprintf(cupti_why, sizeof(cupti_why), "--no-counts given");
	else
		cupti_setup(dev);
	lab_note(L, "GPU: managed region of %s, initialised on the CPU, then touched by a "
		 "kernel, one byte per stride", lab_fmt_size(bytes, b, sizeof(b)));
	um_region_open(L, &r, dev, bytes);
	um_first_touch(L, &r);
	um_measure_demand(L, &r, &m);
	um_measure_prefetch(L, &r, &m);
	um_measure_way_back(L, &r, &m);
	um_count_cases(L, &m, k);
	gpu_claims(L, &m, bytes, cpu_us, cpu_ok, k);
	um_region_free(&r);
	um_measure_populate(L, &r, &m);
	um_region_close(&r);
}
#endif /* DMALAB_HAVE_CUDA */

static void run(struct lab *L)
{
	static struct lab_stats cpu_us;
	size_t cpu_bytes = 0, gpu_bytes = gpu_region_bytes(L);
	int cpu_ok;

	if (read_cpu_size(L, &cpu_bytes))
		lab_error(L, "BUG: --cpu-size passed check_opts but not read_cpu_size");
	cpu_ok = cpu_part(L, cpu_bytes, &cpu_us);

#if DMALAB_HAVE_CUDA
	gpu_part(L, gpu_bytes, &cpu_us, cpu_ok);
#else
	(void)cpu_ok;
	(void)gpu_bytes;
	claim_skip_rest(L, SKIP_NOT_BUILT_NO_NVCC,
			"built without nvcc: the managed-memory claims need CUDA");
#endif
}

/* What plots/ draws from the record (lab.h, struct lab_figure). */
static const struct lab_figure figures[] = {
	{ "lab05_faults", "lab05_faults", "cpu_us_per_page um_*",
	  "cpu_thp_us_per_4k um_region_bytes", "05.1 05.2",
	  "lab-05: first-touch cost per 4 KiB page, CPU and GPU" },
	{ "lab05_4gib", "lab05_4gib", "um_demand_* um_prefetch_then_4k",
	  "um_region_bytes um_4gib_extrapolated_ms um_first_touch_4k_s", "05.2",
	  "lab-05: 4 GiB of managed memory to the GPU vs the chapter's 655 ms" },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "05",
	.title = "page faults and Unified Memory",
	.topic = "what a first-touch page fault costs on the CPU and on the GPU (managed "
		 "memory), and what prefetching saves",
	.timeout_s = 120,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.role = NULL,
	.default_size = 1 * GiB,
	.default_iters = 7,
	.check_opts = check_opts,
	.figures = figures,
};

LAB_MAIN(spec, run)
