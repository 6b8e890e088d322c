/*
 * lab-01: mlock and VmLck.
 *
 * What does locking host memory do to the process and to the machine, what
 * limits it, and is CUDA's pinned memory the same thing?  The CPU claims
 * (01.1-01.5, 01.8) run everywhere; 01.6, 01.7 and 01.9 need the CUDA runtime.
 *
 * The RLIMIT_MEMLOCK refusal (01.4) and the pinned allocation under that
 * limit (01.6) run in children: this program again with `--role` (proc.h),
 * which lower RLIMIT_MEMLOCK to CHILD_MEMLOCK_LIMIT and drop CAP_IPC_LOCK
 * before trying and print a one-line report.  The parent touches CUDA only
 * after its last child (01.7, 01.9), so no child inherits a CUDA context.
 *
 * This file is C and C++ at once: nvcc builds it as C++17, and without nvcc
 * gcc builds it as C with DMALAB_HAVE_CUDA=0 (the CUDA claims then skip).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "buffer.h"
#include "lab.h"
#include "preflight.h"
#include "proc.h"
#include "procfs.h"
#if DMALAB_HAVE_CUDA
#include "lab_cuda.h"
#endif

#define STATUS_REGION_BYTES (64 * MiB)  /* the region the chapter locks */
#define MIN_SIZE_BYTES (64 * MiB)       /* --size: 01.7 needs many 2 MiB blocks */
#define MIN_REGION_BYTES (1 * MiB)      /* below this the deltas say little */
#define CHILD_MEMLOCK_LIMIT (64 * KiB)  /* RLIMIT_MEMLOCK in the children */
#define CHILD_OVER_LIMIT_BYTES (1 * MiB) /* what the 01.4 child tries to lock */
#define SABOTAGE_LIMIT (2 * MiB)        /* sabotaged 01.4 limit: above the request */
/* The 01.4 child's RLIMIT_MEMLOCK: below its request, or above it (sabotage). */
#define MLOCK_CHILD_LIMIT (LAB_SABOTAGED ? SABOTAGE_LIMIT : CHILD_MEMLOCK_LIMIT)
#define MLOCK_CHILD_TIMEOUT_S 5.0
#define PIN_CHILD_TIMEOUT_S 30.0        /* CUDA context creation can be slow */
#define VMSTAT_THRESHOLD_PAGES 125      /* largest per-CPU, per-zone vmstat drift */
#define MIN_SAMPLE_S 1e-3               /* 01.5: a sample at least this long */
#define MAX_ROUNDS 100000               /* 01.5: mlock calls per sample, at most */

#define ROLE_MLOCK "mlock-over-limit"
#define ROLE_PIN "pin-over-limit"

static const struct claim_spec claims[] = {
	{ "01.1", "ch1.Q1", "mlock of a 64 MiB region raises VmLck in /proc/self/status by 64 MiB",
	  "ch1 Q1 mlock demo: after mlock of a fresh 64 MiB mapping VmLck shows 64 MiB more",
	  "R11 exact: VmLck counts whole pages; got = VmLck rise / locked bytes",
	  WANT_INT(1, "fraction"),
	  "the mlock call is skipped, so VmLck does not move" },
	{ "01.2", "ch1.Q1", "mlock faults every page in: VmRSS rises by about the locked amount",
	  "ch1 Q1 mlock demo: mlock also allocates the 64 MiB, RSS grows by about 64 MiB "
	  "(its own check: 63-66 MiB)",
	  "R1 about X; got = VmRSS rise / locked bytes",
	  WANT_NEAR(1, 0.25, "fraction"),
	  "the mlock call is skipped, so the untouched region stays out of RSS" },
	{ "01.3", "ch1.Q1", "munlock brings VmLck back to where it was",
	  "ch1 Q1 mlock demo: after munlock VmLck is back to its value before mlock (+0 kB)",
	  "R11 exact: got = VmLck after munlock minus before mlock, / locked bytes",
	  WANT_INT(0, "fraction"),
	  "the munlock call is skipped, so VmLck stays raised" },
	{ "01.4", "ch1.Q3", "without CAP_IPC_LOCK, locking more than RLIMIT_MEMLOCK fails with ENOMEM",
	  "ch1 Q3 costs of pinning: mlock is capped by ulimit -l, which is why RDMA in a "
	  "container reports \"Cannot allocate memory\"",
	  "R11 an errno",
	  WANT_ERRNO(ENOMEM, "ENOMEM"),
	  "the child sets RLIMIT_MEMLOCK above the 1 MiB it locks instead of below it, so mlock succeeds" },
	{ "01.5", "ch1.Q3", "locking is slow: tens of milliseconds or more per GiB",
	  "ch1 Q3 costs of pinning: pages are allocated, locked and registered one by one; "
	  "a large allocation takes tens of ms to seconds",
	  "R10 stated bound \"tens of ms or more\", read per GiB",
	  WANT_GE(10, "ms/GiB"),
	  "the timed mlock is of memory that is already locked and resident, which costs almost nothing" },
	{ "01.6", "ch1.Q3", "cudaHostAlloc is not bound by RLIMIT_MEMLOCK",
	  "ch1 Q3 costs of pinning: CUDA's own pinned allocations are not subject to ulimit -l",
	  "R11 a CUDA error: cudaHostAlloc under a 64 KiB limit without CAP_IPC_LOCK succeeds",
	  WANT_CUDA_ERR(0, "cudaSuccess"),
	  "the child pins with mlock instead of cudaHostAlloc, which the lowered limit refuses" },
	{ "01.7", "ch2.S2", "cudaHostAlloc memory is physically contiguous (one run of page frames)",
	  "ch2 S2.2: pageable pages are not physically contiguous and go as many DMA segments; "
	  "a cudaMallocHost buffer goes as one DMA of the whole block",
	  "R11 exact: page frames of the buffer from /proc/self/pagemap form 1 run",
	  WANT_INT(1, "runs"),
	  NULL },
	{ "01.8", "ch1.Q3", "locked memory is taken from the whole machine: /proc/meminfo Mlocked grows by the locked amount",
	  "ch1 Q3 costs of pinning: locked pages cannot be swapped or reclaimed, so the page "
	  "cache and other processes lose that much memory",
	  "R11 exact; got = Mlocked rise / locked bytes, its interval the per-CPU drift "
	  "(0 once vm.stat_refresh folds it)",
	  WANT_NEAR_ABS(1, 0, "fraction"),
	  "the mlock call is skipped, so Mlocked does not grow" },
	{ "01.9", "ch1.Q3", "cudaHostAlloc memory does not show in VmLck",
	  "ch1 DMA and Q3: CUDA pins pages the driver's own way, not charged to ulimit -l "
	  "(read as: not counted in VmLck)",
	  "R11 exact: VmLck moves by 0 across a cudaHostAlloc",
	  WANT_INT(0, "KiB"),
	  "the buffer is mmap'd and mlock'd instead of cudaHostAlloc'd, so VmLck counts it" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static int run_role(struct lab *L, const char *role);
static int check_opts(const struct lab *L);
static void run(struct lab *L);

static const struct lab_spec spec = {
	.id = "01",
	.title = "mlock and VmLck",
	.topic = "what locking host memory costs and shows in /proc, what limits it, "
		 "and whether CUDA's pinned memory is the same thing",
	.timeout_s = 60,
	.needs = { 1, 1, 1 },
	.claims = claims,
	.extra_opts = NULL,
	.role = run_role,
	.default_size = 256 * MiB,
	.default_iters = 7,
	.check_opts = check_opts,
};

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

static double to_mib(double bytes)
{
	return bytes / (double)MiB;
}

static uint64_t page_bytes(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t round_to_page(uint64_t bytes)
{
	uint64_t pg = page_bytes();

	return (bytes + pg - 1) / pg * pg;
}

/*
 * spec.check_opts: --size before anything is printed.  A pinned buffer of a
 * few 2 MiB blocks can be one physical run by chance, which would make 01.7
 * look confirmed; and a size next to 2^64 cannot be rounded to pages.
 */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	char sz[32];

	uint64_t rounded;

	if (!o->size_given)
		return 0;
	if (preflight_add(o->size, page_bytes(), &rounded) < 0)
		return preflight_usage(L, "size", lab_size_arg(o->size, sz, sizeof(sz)),
				       "too large");
	return preflight_size_floor(L, "size", o->size, MIN_SIZE_BYTES, ", as 01.7's "
				    "pinned buffer must span many 2 MiB blocks");
}

/* Fresh anonymous memory, never touched: no page is resident yet. */
static void *map_fresh(uint64_t bytes)
{
	return buf_map(bytes, 0, BUF_UNTRACKED, NULL); /* munmap(p, bytes) gives it back */
}

static uint64_t status_or_die(struct lab *L, const char *key)
{
	uint64_t v = 0;

	if (proc_self_status(key, &v) < 0)
		lab_error_errno(L, "reading %s from /proc/self/status", key);
	return v;
}

static uint64_t meminfo_or_die(struct lab *L, const char *key)
{
	uint64_t v = 0;

	if (proc_meminfo(key, &v) < 0)
		lab_error_errno(L, "reading %s from /proc/meminfo", key);
	return v;
}

/*
 * /proc/meminfo sums per-CPU counters lazily, so it can lag by up to
 * VMSTAT_THRESHOLD_PAGES per CPU.  Writing vm.stat_refresh (root) folds
 * them in.  Returns 1 if the fold happened.
 */
static int vmstat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = write(fd, "1\n", 2);
	/* EINVAL means a counter was negative after the fold: it did fold. */
	if (n < 0 && errno == EINVAL)
		n = 2;
	close(fd);
	return n == 2;
}

/*
 * Munlocked pages wait in per-CPU batches (mm/mlock.c) and leave Mlocked
 * only when a batch drains; an earlier munmap of locked memory (another run,
 * another process) would then drain inside the measured window.  mlock
 * drains every CPU's batches before it starts, so re-locking one page that
 * is already locked empties them and changes nothing else.  Measured here:
 * without it a 64 MiB rise read 64 KiB short in most of 12 tries.
 */
static void *drain_page;

/* Lock the drain page once, where nothing limits locking. */
static void setup_drain_page(void)
{
	void *p = map_fresh(page_bytes());

	if (p && mlock(p, page_bytes()) == 0)
		drain_page = p;
	else if (p)
		munmap(p, page_bytes());
}

static void drain_mlock_batches(void)
{
	if (drain_page)
		(void)mlock(drain_page, page_bytes());
}

/* Zones with managed pages: each keeps its own per-CPU vmstat diffs. */
static int populated_zones(void)
{
	FILE *f = fopen("/proc/zoneinfo", "re");
	char line[256];
	unsigned long long managed;
	int n = 0;

	if (!f)
		return 8; /* a generous guess: more zones than any machine here has */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " managed %llu", &managed) == 1 && managed > 0)
			n++;
	fclose(f);
	return n > 0 ? n : 8;
}

/*
 * How far a /proc/meminfo delta can be from the true change (bytes): 0 once
 * vm.stat_refresh has folded every per-CPU diff into the totals; otherwise
 * each CPU may hold up to VMSTAT_THRESHOLD_PAGES per zone, per read.  Other
 * processes locking at the same moment are not covered: on a quiet machine
 * there are none.
 */
static double meminfo_slack_bytes(int refreshed)
{
	if (refreshed)
		return 0;
	return 2.0 * (double)sysconf(_SC_NPROCESSORS_ONLN) * populated_zones() *
	       VMSTAT_THRESHOLD_PAGES * (double)page_bytes();
}

static int has_cap_ipc_lock(void)
{
	int has = 0;

	if (procfs_cap_effective("/proc/self/status", CAP_IPC_LOCK, &has) < 0)
		return 0;
	return has;
}

/*
 * Bytes this process may still lock: UINT64_MAX when nothing limits it
 * (CAP_IPC_LOCK or an unlimited RLIMIT_MEMLOCK).
 */
static uint64_t lockable_bytes(void)
{
	struct rlimit rl;
	uint64_t locked = 0;

	if (has_cap_ipc_lock())
		return UINT64_MAX;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	proc_self_status("VmLck", &locked);
	return rl.rlim_cur > locked ? (uint64_t)rl.rlim_cur - locked : 0;
}

/* want, halved until it fits in budget; 0 when even MIN_REGION_BYTES does not. */
static uint64_t fit_region(uint64_t want, uint64_t budget)
{
	while (want > budget && want / 2 >= MIN_REGION_BYTES)
		want = round_to_page(want / 2);
	return want <= budget ? want : 0;
}

/* 1 (and why in detail) when bytes exceed half of the memory available. */
static int too_big(struct lab *L, uint64_t bytes, char *detail, size_t len)
{
	const char *what;
	uint64_t avail = preflight_available(L, &what);
	char a[32], b[32];

	if (preflight_fits(2, bytes, avail))
		return 0;
	snprintf(detail, len, "%s wanted, %s %s", lab_fmt_size(bytes, a, sizeof(a)), what,
		 lab_fmt_size(avail, b, sizeof(b)));
	return 1;
}

/* Skip claim id (and return 1) when bytes exceed half of the memory available. */
static int skip_if_too_big(struct lab *L, const char *id, uint64_t bytes)
{
	char detail[200];

	if (!too_big(L, bytes, detail, sizeof(detail)))
		return 0;
	claim_skip(L, id, SKIP_NOT_ENOUGH_MEMORY, "%s", detail);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* 01.1, 01.2, 01.8: what one mlock shows in /proc                          */

struct lock_snapshot {
	uint64_t vmlck, vmrss;      /* this process, bytes */
	uint64_t mlocked, unevict;  /* the whole machine, bytes */
};

/* Returns 1 if /proc/meminfo was folded (vm.stat_refresh) just before. */
static int take_snapshot(struct lab *L, struct lock_snapshot *s)
{
	int refreshed;

	drain_mlock_batches();
	refreshed = vmstat_refresh();

	s->mlocked = meminfo_or_die(L, "Mlocked");
	s->unevict = meminfo_or_die(L, "Unevictable");
	s->vmlck = status_or_die(L, "VmLck");
	s->vmrss = status_or_die(L, "VmRSS");
	return refreshed;
}

static void lock_region_or_die(struct lab *L, void *p, uint64_t bytes)
{
#ifdef LAB_SABOTAGE
	(void)L;
	(void)p;
	(void)bytes;
#else
	if (mlock(p, bytes) < 0)
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", bytes);
#endif
}

/* An exact counter rise as a fraction of the bytes locked. */
static struct lab_est rise_fraction(double rise, uint64_t bytes)
{
	return lab_est_exact(rise / (double)bytes);
}

/* A /proc/meminfo rise as a fraction, its interval the counter's drift. */
static struct lab_est meminfo_fraction(double rise, double slack, uint64_t bytes)
{
	struct lab_est e;

	e.value = rise / (double)bytes;
	e.lo = (rise - slack) / (double)bytes;
	e.hi = (rise + slack) / (double)bytes;
	e.too_short = 0;
	return e;
}

static void decide_status_claims(struct lab *L, uint64_t bytes,
				 const struct lock_snapshot *b,
				 const struct lock_snapshot *a, int refreshed)
{
	double dlck = (double)a->vmlck - (double)b->vmlck;
	double drss = (double)a->vmrss - (double)b->vmrss;
	double dmlk = (double)a->mlocked - (double)b->mlocked;
	double duev = (double)a->unevict - (double)b->unevict;
	double slack = meminfo_slack_bytes(refreshed);

	lab_fact_num(L, "locked_bytes", (double)bytes, "bytes");
	lab_fact_num(L, "vmlck_before", (double)b->vmlck, "bytes");
	lab_fact_num(L, "vmlck_after_mlock", (double)a->vmlck, "bytes");
	lab_fact_num(L, "vmrss_before", (double)b->vmrss, "bytes");
	lab_fact_num(L, "vmrss_after_mlock", (double)a->vmrss, "bytes");
	lab_fact_num(L, "meminfo_mlocked_delta", dmlk, "bytes");
	lab_fact_num(L, "meminfo_unevictable_delta", duev, "bytes");
	lab_fact_num(L, "meminfo_slack_bytes", slack, "bytes");
	lab_note(L, "VmLck %+.1f MiB, VmRSS %+.1f MiB, Mlocked %+.1f MiB, Unevictable %+.1f MiB",
		 to_mib(dlck), to_mib(drss), to_mib(dmlk), to_mib(duev));

	if (bytes != STATUS_REGION_BYTES)
		claim_note(L, "locked %.0f MiB, not 64 MiB: that is what RLIMIT_MEMLOCK allows here",
			   to_mib((double)bytes));
	claim_note(L, "VmLck %+.0f KiB for %.0f KiB locked", dlck / KiB, (double)bytes / KiB);
	claim_check(L, "01.1", rise_fraction(dlck, bytes));
	claim_note(L, "VmRSS %+.0f KiB for %.0f KiB locked; the region was never touched "
		   "before mlock, so every resident page came from mlock",
		   drss / KiB, (double)bytes / KiB);
	claim_check(L, "01.2", rise_fraction(drss, bytes));
	claim_note(L, "Mlocked %+.0f KiB for %.0f KiB locked (Unevictable %+.0f KiB); %s",
		   dmlk / KiB, (double)bytes / KiB, duev / KiB, refreshed ?
		   "folded with vm.stat_refresh before each read, so exact" :
		   "not folded (needs root): the interval is the per-CPU drift");
	claim_check(L, "01.8", meminfo_fraction(dmlk, slack, bytes));
}

static void claim_status_deltas(struct lab *L, uint64_t bytes)
{
	struct lock_snapshot before, after;
	char sz[32];
	void *p = map_fresh(bytes);
	int refreshed;

	if (!p)
		lab_error_errno(L, "mmap(%" PRIu64 " bytes)", bytes);
	lab_fmt_size(bytes, sz, sizeof(sz));
	lab_note(L, "mapping %s of fresh anonymous memory and leaving it untouched, then mlock on it;", sz);
	lab_note(L, "watch VmLck and VmRSS (this process) and Mlocked (the whole machine)");
	refreshed = take_snapshot(L, &before);
	lock_region_or_die(L, p, bytes);
	refreshed &= take_snapshot(L, &after);
	munmap(p, bytes); /* unmapping also unlocks */
	decide_status_claims(L, bytes, &before, &after, refreshed);
}

/* ------------------------------------------------------------------------ */
/* 01.3: munlock                                                            */

static void claim_munlock(struct lab *L, uint64_t bytes)
{
	void *p = map_fresh(bytes);
	uint64_t base, locked, after;

	if (!p)
		lab_error_errno(L, "mmap(%" PRIu64 " bytes)", bytes);
	lab_note(L, "a second fresh region: mlock it, then munlock it; VmLck should return to its start");
	base = status_or_die(L, "VmLck");
	if (mlock(p, bytes) < 0) {
		munmap(p, bytes);
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", bytes);
	}
	locked = status_or_die(L, "VmLck");
#ifndef LAB_SABOTAGE
	if (munlock(p, bytes) < 0) {
		munmap(p, bytes);
		lab_error_errno(L, "munlock(%" PRIu64 " bytes)", bytes);
	}
#endif
	after = status_or_die(L, "VmLck");
	munmap(p, bytes);
	lab_fact_num(L, "vmlck_after_munlock", (double)after, "bytes");
	claim_note(L, "VmLck %.1f MiB -> %.1f MiB (locked) -> %.1f MiB (after munlock)",
		   to_mib((double)base), to_mib((double)locked), to_mib((double)after));
	claim_check(L, "01.3", rise_fraction((double)after - (double)base, bytes));
}

/* ------------------------------------------------------------------------ */
/* 01.5: the cost of locking                                                */

struct lock_timing {
	uint64_t bytes;  /* locked per round */
	int rounds;      /* rounds per sample: small regions are repeated */
	void *prelocked; /* sabotage: a region locked once, before timing */
};

/* One round: map fresh memory (untimed), time mlock alone, unmap. */
static double time_one_mlock(uint64_t bytes)
{
	void *p = map_fresh(bytes);
	double t0, t1;
	int rc;

	if (!p)
		return -1.0;
	t0 = lab_now();
	rc = mlock(p, bytes);
	t1 = lab_now();
	munmap(p, bytes);
	return rc < 0 ? -1.0 : t1 - t0;
}

/* One sample: the summed mlock time of t->rounds fresh regions. */
static double time_mlock_fresh(void *arg)
{
	struct lock_timing *t = (struct lock_timing *)arg;
	double sum = 0;

	for (int i = 0; i < t->rounds; i++) {
		double s = time_one_mlock(t->bytes);

		if (s < 0)
			return -1.0;
		sum += s;
	}
	return sum;
}

/* Sabotage: mlock of a region that is already locked has nothing to do. */
static double time_mlock_again(void *arg)
{
	struct lock_timing *t = (struct lock_timing *)arg;
	double sum = 0;

	for (int i = 0; i < t->rounds; i++) {
		double t0 = lab_now();
		int rc = mlock(t->prelocked, t->bytes);

		if (rc < 0)
			return -1.0;
		sum += lab_now() - t0;
	}
	return sum;
}

/* Sabotage: one region, locked once before timing, that every round re-locks. */
static void prelock(struct lab *L, struct lock_timing *t)
{
	t->prelocked = map_fresh(t->bytes);
	/* Huge pages, where THP allows, make the re-walk shorter still. */
	if (t->prelocked)
		madvise(t->prelocked, t->bytes, MADV_HUGEPAGE);
	if (!t->prelocked || mlock(t->prelocked, t->bytes) < 0)
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", t->bytes);
}

/*
 * More rounds per sample when one round is under MIN_SAMPLE_S, so that no
 * sample comes near the clock's step (a series that does is inconclusive).
 */
static void fit_rounds(struct lab *L, lab_run_fn fn, struct lock_timing *t)
{
	double target = MIN_SAMPLE_S, one;
	int rounds = t->rounds;

	if (target < 1000 * lab_clock_resolution())
		target = 1000 * lab_clock_resolution();
	t->rounds = 1;
	one = fn(t);
	if (one < 0)
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", t->bytes);
	if (one < target / rounds)
		rounds = one > 0 && target / one < MAX_ROUNDS ? (int)(target / one) + 1 : MAX_ROUNDS;
	t->rounds = rounds;
}

static void measure_lock_cost(struct lab *L, struct lock_timing *t, struct lab_stats *st)
{
	struct lab_measure_cfg cfg;
	lab_run_fn fn = time_mlock_fresh;

	cfg.warmup = 2;
	cfg.samples = lab_options(L)->iters;
	cfg.cv_max = 0.10;
	cfg.clock_res_s = 0;
	if (LAB_SABOTAGED) {
		prelock(L, t);
		fn = time_mlock_again;
	}
	fit_rounds(L, fn, t);
	lab_measure(L, "mlock", fn, t, &cfg, st);
	if (t->prelocked)
		munmap(t->prelocked, t->bytes);
}

static void claim_lock_cost(struct lab *L, uint64_t bytes)
{
	struct lock_timing t;
	struct lab_stats st;
	char sz[32];

	t.bytes = bytes;
	/* Keep each sample at >= 64 MiB locked so it is long enough to time. */
	t.rounds = bytes >= STATUS_REGION_BYTES ? 1 : (int)(STATUS_REGION_BYTES / bytes);
	t.prelocked = NULL;
	lab_fmt_size(bytes, sz, sizeof(sz));
	lab_note(L, "timing mlock of %s, fresh memory each time: the cost is faulting in,", sz);
	lab_note(L, "zeroing and locking every page (mmap and munmap are outside the timing)");
	measure_lock_cost(L, &t, &st);
	if (t.rounds > 1)
		lab_note(L, "one sample sums %d such mlock calls, to be long enough to time", t.rounds);
	lab_stats_scale(&st, 1e3 * (double)GiB / ((double)bytes * t.rounds), "ms/GiB");
	lab_fact_num(L, "mlock_ms_per_gib", st.median, "ms/GiB");
	lab_note(L, "mlock: median %.1f ms/GiB (min %.1f, max %.1f, cv %.2f)",
		 st.median, st.min, st.max, st.cv);
	claim_check_median(L, "01.5", &st);
}

/* ------------------------------------------------------------------------ */
/* The children: a lowered RLIMIT_MEMLOCK without CAP_IPC_LOCK              */

/* Remove CAP_IPC_LOCK from the effective, permitted and inheritable sets. */
static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i = CAP_TO_INDEX(CAP_IPC_LOCK);
	uint32_t mask = CAP_TO_MASK(CAP_IPC_LOCK);

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -1;
	data[i].effective &= ~mask;
	data[i].permitted &= ~mask;
	data[i].inheritable &= ~mask;
	return (int)syscall(SYS_capset, &hdr, data);
}

/*
 * Set RLIMIT_MEMLOCK (soft and hard) to limit and drop CAP_IPC_LOCK; then
 * verify.  Prints an "error ..." line and returns -1 when that cannot be
 * arranged.
 */
static int child_arrange_limit(uint64_t limit)
{
	struct rlimit rl;

	rl.rlim_cur = (rlim_t)limit;
	rl.rlim_max = (rlim_t)limit;
	/* A hard limit below ours cannot be raised without CAP_SYS_RESOURCE
	 * (EPERM): keep it as the soft limit too; "limit=" says what it is. */
	if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0 && (errno != EPERM ||
	    getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_max >= (rlim_t)limit ||
	    (rl.rlim_cur = rl.rlim_max, setrlimit(RLIMIT_MEMLOCK, &rl) < 0))) {
		printf("error setrlimit(RLIMIT_MEMLOCK, %llu): %s\n", (unsigned long long)limit,
		       strerror(errno));
		return -1;
	}
	if (drop_cap_ipc_lock() < 0) {
		printf("error capset (dropping CAP_IPC_LOCK): %s\n", strerror(errno));
		return -1;
	}
	if (has_cap_ipc_lock()) {
		printf("error CAP_IPC_LOCK still in CapEff after capset\n");
		return -1;
	}
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
		printf("error getrlimit(RLIMIT_MEMLOCK): %s\n", strerror(errno));
		return -1;
	}
	printf("limit=%lld ", rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur);
	return 0;
}

/*
 * Role 01.4: try to lock --size bytes; report errno (0: it worked).  The
 * sabotage sets the limit above the request, so nothing stops the lock.
 */
static int role_mlock_over_limit(struct lab *L)
{
	uint64_t bytes = round_to_page(lab_options(L)->size);
	void *p = map_fresh(bytes);
	int err = 0;

	if (!p) {
		printf("error mmap: %s\n", strerror(errno));
		return 1;
	}
	if (child_arrange_limit(MLOCK_CHILD_LIMIT) < 0)
		return 1;
	if (mlock(p, bytes) < 0)
		err = errno;
	printf("bytes=%llu errno=%d\n", (unsigned long long)bytes, err);
	munmap(p, bytes);
	return 0;
}

#if DMALAB_HAVE_CUDA
struct pin_result {
	int ok, code;
	char name[64];
};

/* Sabotage: lock with mlock instead, which the lowered limit refuses. */
static void *pin_alloc(uint64_t bytes, struct pin_result *r)
{
	void *p = NULL;
#ifdef LAB_SABOTAGE
	p = map_fresh(bytes);
	r->ok = p && mlock(p, bytes) == 0;
	r->code = r->ok ? 0 : errno;
	snprintf(r->name, sizeof(r->name), "mlock:%s",
		 r->ok ? "ok" : r->code == ENOMEM ? "ENOMEM" : "failed");
#else
	cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);

	r->ok = e == cudaSuccess;
	r->code = (int)e;
	snprintf(r->name, sizeof(r->name), "%s", cudaGetErrorName(e));
#endif
	return r->ok ? p : NULL;
}

static void pin_free(void *p, uint64_t bytes)
{
#ifdef LAB_SABOTAGE
	munmap(p, bytes);
#else
	(void)bytes;
	cudaFreeHost(p);
#endif
}

/* This process's locked, pinned and resident bytes (0 where not reported). */
struct vm_counters {
	uint64_t lck, pin, rss;
};

static void read_vm_counters(struct vm_counters *c)
{
	memset(c, 0, sizeof(*c));
	proc_self_status("VmLck", &c->lck);
	proc_self_status("VmPin", &c->pin);
	proc_self_status("VmRSS", &c->rss);
}

static long long delta(uint64_t before, uint64_t after)
{
	return (long long)after - (long long)before;
}

/* 0: CUDA context made; otherwise a "skip" or "error" line was printed. */
static int child_start_cuda(struct lab *L)
{
	char detail[200];
	const char *why = lab_cuda_unavailable(1, detail, sizeof(detail));
	cudaError_t e;

	if (why) {
		printf("skip %s %s\n", why, detail);
		return 1;
	}
	e = cudaSetDevice(lab_options(L)->device);
	if (e == cudaSuccess)
		e = cudaFree(0); /* create the context now, outside the deltas */
	if (e != cudaSuccess) {
		printf("error cudaSetDevice/cudaFree(0): %s\n", cudaGetErrorName(e));
		return -1;
	}
	return 0;
}

/* Role 01.6: a pinned allocation under the lowered limit, and its VmLck. */
static int role_pin_over_limit(struct lab *L)
{
	uint64_t bytes = round_to_page(lab_options(L)->size);
	struct vm_counters before, after;
	struct pin_result r;
	int rc = child_start_cuda(L);
	void *p;

	if (rc != 0)
		return rc < 0 ? 1 : 0;
	if (child_arrange_limit(CHILD_MEMLOCK_LIMIT) < 0)
		return 1;
	read_vm_counters(&before);
	p = pin_alloc(bytes, &r);
	read_vm_counters(&after);
	if (p)
		pin_free(p, bytes);
	printf("bytes=%llu ok=%d code=%d name=%s vmlck=%lld vmpin=%lld vmrss=%lld\n",
	       (unsigned long long)bytes, r.ok, r.code, r.name,
	       delta(before.lck, after.lck), delta(before.pin, after.pin),
	       delta(before.rss, after.rss));
	return 0;
}
#endif

static int run_role(struct lab *L, const char *role)
{
	int rc = 2;

	if (proc_child_init() < 0)
		return 127; /* the lab is gone already */
	if (strcmp(role, ROLE_MLOCK) == 0)
		rc = role_mlock_over_limit(L);
#if DMALAB_HAVE_CUDA
	else if (strcmp(role, ROLE_PIN) == 0)
		rc = role_pin_over_limit(L);
#endif
	else
		fprintf(stderr, "lab-01: --role '%s': unknown role\n", role);
	fflush(stdout);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Running a child to its end and reading its one-line report (proc.h)      */

/* `--role ROLE --size BYTES --device D`; its report line, kept in p. */
static const char *run_child(struct lab *L, struct proc *p, const char *role,
			     uint64_t bytes, double timeout_s)
{
	char size_arg[32], dev_arg[16];
	const char *extra[] = { "--size", size_arg, "--device", dev_arg, NULL };

	snprintf(size_arg, sizeof(size_arg), "%llu", (unsigned long long)bytes);
	snprintf(dev_arg, sizeof(dev_arg), "%d", lab_options(L)->device);
	return proc_run_role(L, p, role, extra, timeout_s);
}

/* ------------------------------------------------------------------------ */
/* 01.4 and 01.6                                                            */

static void claim_limit_refusal(struct lab *L)
{
	struct proc p;
	const char *line;
	long long limit, err;
	char lim[32], sz[32];

	lab_note(L, "child (fork+exec, --role %s): sets RLIMIT_MEMLOCK to %s, drops CAP_IPC_LOCK,",
		 ROLE_MLOCK, lab_fmt_size(MLOCK_CHILD_LIMIT, lim, sizeof(lim)));
	lab_note(L, "then asks mlock for %s: what an RDMA registration meets in a container",
		 lab_fmt_size(CHILD_OVER_LIMIT_BYTES, sz, sizeof(sz)));
	line = run_child(L, &p, ROLE_MLOCK, CHILD_OVER_LIMIT_BYTES, MLOCK_CHILD_TIMEOUT_S);
	limit = proc_field(L, &p, line, "limit");
	err = proc_field(L, &p, line, "errno");
	lab_fact_num(L, "child_rlimit_memlock", (double)limit, "bytes");
	if (limit == 0) { /* a hard limit of 0 B: nothing to exceed */
		claim_skip(L, "01.4", SKIP_NO_CAPABILITY,
			   "hard RLIMIT_MEMLOCK 0 B: raising it to %s needs CAP_SYS_RESOURCE (setrlimit: EPERM); "
			   "under a 0 B limit mlock refuses any size with %s, not the over-limit ENOMEM",
			   lab_fmt_size(MLOCK_CHILD_LIMIT, lim, sizeof(lim)),
			   err == EPERM ? "EPERM" : err ? strerror((int)err) : "nothing (it succeeded)");
		return;
	}
	if (limit < 0)
		claim_note(L, "child: RLIMIT_MEMLOCK unlimited, no CAP_IPC_LOCK; mlock %s",
			   err ? strerror((int)err) : "succeeded");
	else
		claim_note(L, "child: RLIMIT_MEMLOCK %s, no CAP_IPC_LOCK; mlock %s",
			   lab_fmt_size((uint64_t)limit, lim, sizeof(lim)),
			   err ? strerror((int)err) : "succeeded");
	claim_check_errno(L, "01.4", (int)err);
}

#if DMALAB_HAVE_CUDA
static void decide_pin_claim(struct lab *L, struct proc *p, const char *line)
{
	long long bytes = proc_field(L, p, line, "bytes");
	long long ok = proc_field(L, p, line, "ok");
	long long code = proc_field(L, p, line, "code");
	long long dlck = proc_field(L, p, line, "vmlck");
	long long dpin = proc_field(L, p, line, "vmpin");
	long long drss = proc_field(L, p, line, "vmrss");
	char nm[64] = "?", sz[32];

	proc_msg_str(line, "name", nm, sizeof(nm));
	lab_fmt_size((uint64_t)bytes, sz, sizeof(sz));
	lab_fact_num(L, "pinned_vmlck_delta", (double)dlck, "bytes");
	lab_fact_num(L, "pinned_vmpin_delta", (double)dpin, "bytes");
	lab_fact_num(L, "pinned_vmrss_delta", (double)drss, "bytes");
	lab_note(L, "child: pinned %s under a %llu KiB limit: %s; VmLck %+.1f MiB, VmPin %+.1f MiB, VmRSS %+.1f MiB",
		 sz, (unsigned long long)(CHILD_MEMLOCK_LIMIT / KiB), nm,
		 to_mib((double)dlck), to_mib((double)dpin), to_mib((double)drss));
	if (ok)
		claim_note(L, "cudaHostAlloc(%s) succeeded without CAP_IPC_LOCK; VmLck %+.1f MiB, "
			   "VmPin %+.1f MiB", sz, to_mib((double)dlck), to_mib((double)dpin));
	else
		claim_note(L, "the pinned allocation of %s was refused under the lowered limit", sz);
	claim_check_code(L, "01.6", code, nm);
}
#endif

static void claim_pinned_unlimited(struct lab *L, uint64_t bytes)
{
#if DMALAB_HAVE_CUDA
	struct proc p;
	const char *line;

	if (skip_if_too_big(L, "01.6", bytes))
		return;
	lab_note(L, "a second child, same limit and no CAP_IPC_LOCK (--role %s): cudaHostAlloc;", ROLE_PIN);
	lab_note(L, "the driver pins pages itself, so look at VmLck and VmPin afterwards");
	line = run_child(L, &p, ROLE_PIN, bytes, PIN_CHILD_TIMEOUT_S);
	if (!proc_report_skip(L, "01.6", line))
		decide_pin_claim(L, &p, line);
#else
	claim_skip(L, "01.6", SKIP_NOT_BUILT_NO_NVCC, "built without nvcc");
#endif
}

/* ------------------------------------------------------------------------ */
/* 01.7: physical contiguity through /proc/self/pagemap                     */

/* Fills out; returns -1 (errno) if pagemap cannot be read. */
static int count_runs(void *p, uint64_t bytes, struct pagemap_runs *out)
{
	return pagemap_count_runs(NULL, (uintptr_t)p, bytes, page_bytes(), out);
}

static void note_runs(struct lab *L, const char *what, const struct pagemap_runs *pr)
{
	char sz[32];

	lab_note(L, "%s: %llu of %llu pages present, %llu physically contiguous runs, longest %s",
		 what, (unsigned long long)pr->present, (unsigned long long)pr->pages,
		 (unsigned long long)pr->runs,
		 lab_fmt_size(pr->longest_run * page_bytes(), sz, sizeof(sz)));
}

/* The control: an mlock'd anonymous region.  Returns 0 if PFNs were hidden. */
static int mlock_control_runs(struct lab *L, uint64_t bytes)
{
	struct pagemap_runs pr;
	void *p = map_fresh(bytes);
	int rc;

	if (!p)
		lab_error_errno(L, "mmap(%" PRIu64 " bytes)", bytes);
	if (mlock(p, bytes) < 0) {
		munmap(p, bytes);
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", bytes);
	}
	rc = count_runs(p, bytes, &pr);
	munmap(p, bytes);
	if (rc < 0)
		lab_error_errno(L, "reading /proc/self/pagemap");
	if (!pr.pfn_visible)
		return 0;
	note_runs(L, "control, mlock'd anonymous memory", &pr);
	lab_fact_num(L, "mlock_runs", (double)pr.runs, "runs");
	lab_fact_num(L, "mlock_longest_run", (double)(pr.longest_run * page_bytes()), "bytes");
	return 1;
}

/*
 * Root and a readable PFN: the control is measured and 1 comes back (01.7
 * can be decided); otherwise 01.7 is skipped here and 0 comes back.
 */
static int contiguity_ready(struct lab *L, uint64_t bytes, uint64_t budget)
{
	uint64_t control = fit_region(bytes, budget);
	uint64_t avail = preflight_available(L, NULL);

	if (geteuid() != 0) {
		claim_skip(L, "01.7", SKIP_NOT_ROOT,
			   "euid %d: /proc/self/pagemap shows PFN 0 to non-root", (int)geteuid());
		return 0;
	}
	lab_note(L, "page frame numbers from /proc/self/pagemap; in a VM they are guest-physical,");
	lab_note(L, "so they say what the guest kernel did, not where the host put the memory");
	if (!preflight_fits(2, control, avail))
		control = 0; /* the control is optional: never squeeze the machine */
	if (control && !mlock_control_runs(L, control)) {
		claim_skip(L, "01.7", SKIP_NO_CAPABILITY,
			   "/proc/self/pagemap shows PFN 0 (no CAP_SYS_ADMIN)");
		return 0;
	}
	return 1;
}

/* Skip 01.9, and 01.7 when it is still open (contig), for one reason. */
static void skip_pinned(struct lab *L, int contig, const char *reason, const char *detail)
{
	claim_skip(L, "01.9", reason, "%s", detail);
	if (contig)
		claim_skip(L, "01.7", reason, "%s", detail);
}

#if DMALAB_HAVE_CUDA
/*
 * The pinned buffer of 01.7 and 01.9.  The sabotage mlocks ordinary memory
 * instead (as much as this process may lock), which VmLck counts.
 */
static void *parent_pin(struct lab *L, uint64_t bytes, uint64_t budget)
{
	void *p = NULL;
#ifdef LAB_SABOTAGE
	uint64_t n = budget < bytes ? budget / page_bytes() * page_bytes() : bytes;

	p = map_fresh(bytes);
	if (!p || (n && mlock(p, n) < 0))
		lab_error_errno(L, "mmap and mlock(%" PRIu64 " bytes)", n);
#else
	(void)budget;
	CUDA_CHECK(L, cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
#endif
	return p;
}

static void parent_unpin(void *p, uint64_t bytes)
{
#ifdef LAB_SABOTAGE
	munmap(p, bytes);
#else
	(void)bytes;
	cudaFreeHost(p);
#endif
}

static void decide_pinned_vmlck(struct lab *L, uint64_t bytes, uint64_t before, uint64_t after)
{
	char sz[32];
	long long rise_kib = ((long long)after - (long long)before) / (long long)KiB;

	lab_fact_num(L, "parent_pinned_vmlck_delta", (double)after - (double)before, "bytes");
	claim_note(L, "cudaHostAlloc(%s) in this process: VmLck %.0f KiB -> %.0f KiB",
		   lab_fmt_size(bytes, sz, sizeof(sz)), (double)before / KiB, (double)after / KiB);
	claim_check_int(L, "01.9", rise_kib);
}

static void decide_pinned_runs(struct lab *L, void *p, uint64_t bytes)
{
	struct pagemap_runs pr;

	memset(p, 0x5a, bytes); /* every page present before pagemap is read */
	if (count_runs(p, bytes, &pr) < 0)
		lab_error_errno(L, "reading /proc/self/pagemap");
	if (pr.present == 0) {
		/* pagemap treats a VM_PFNMAP driver mapping as a hole */
		claim_skip(L, "01.7", SKIP_UNSUPPORTED,
			   "/proc/self/pagemap shows none of the %llu pages as present",
			   (unsigned long long)pr.pages);
		return;
	}
	if (!pr.pfn_visible) {
		claim_skip(L, "01.7", SKIP_NO_CAPABILITY,
			   "/proc/self/pagemap shows PFN 0 (no CAP_SYS_ADMIN)");
		return;
	}
	note_runs(L, "cudaHostAlloc", &pr);
	lab_fact_num(L, "pinned_runs", (double)pr.runs, "runs");
	lab_fact_num(L, "pinned_longest_run", (double)(pr.longest_run * page_bytes()), "bytes");
	claim_note(L, "%llu pages, longest run %llu pages; guest-physical frames if this is a VM",
		   (unsigned long long)pr.pages, (unsigned long long)pr.longest_run);
	claim_check_int(L, "01.7", (long long)pr.runs);
}

/* 01.9 and (contig) 01.7 on one cudaHostAlloc buffer in this process. */
static void pinned_here(struct lab *L, uint64_t bytes, uint64_t budget, int contig)
{
	char detail[200];
	const char *why = lab_cuda_unavailable(1, detail, sizeof(detail));
	uint64_t before, after;
	void *p;

	if (why) {
		skip_pinned(L, contig, why, detail);
		return;
	}
	if (too_big(L, bytes, detail, sizeof(detail))) {
		skip_pinned(L, contig, SKIP_NOT_ENOUGH_MEMORY, detail);
		return;
	}
	CUDA_CHECK(L, cudaSetDevice(lab_options(L)->device));
	CUDA_CHECK(L, cudaFree(0)); /* the context first, outside the VmLck reads */
	before = status_or_die(L, "VmLck");
	p = parent_pin(L, bytes, budget);
	after = status_or_die(L, "VmLck");
	decide_pinned_vmlck(L, bytes, before, after);
	if (contig)
		decide_pinned_runs(L, p, bytes);
	parent_unpin(p, bytes);
}
#endif

static void claim_pinned_here(struct lab *L, uint64_t bytes, uint64_t budget)
{
	int contig = contiguity_ready(L, bytes, budget);

#if DMALAB_HAVE_CUDA
	pinned_here(L, bytes, budget, contig);
#else
	(void)budget;
	skip_pinned(L, contig, SKIP_NOT_BUILT_NO_NVCC, "built without nvcc");
#endif
}

/* ------------------------------------------------------------------------ */
/* The lab                                                                  */

static void note_setting(struct lab *L, uint64_t budget)
{
	struct rlimit rl;
	char lim[32];
	int cap = has_cap_ipc_lock();

	lab_fact_num(L, "euid", (double)geteuid(), "");
	lab_fact_num(L, "cap_ipc_lock", cap, "");
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		lab_fact_num(L, "rlimit_memlock", (double)rl.rlim_cur, "bytes");
		lab_fmt_size((uint64_t)rl.rlim_cur, lim, sizeof(lim));
	} else {
		lab_fact_str(L, "rlimit_memlock", "unlimited");
		snprintf(lim, sizeof(lim), "unlimited");
	}
	lab_note(L, "this process: euid %d, RLIMIT_MEMLOCK %s, CAP_IPC_LOCK %s%s", (int)geteuid(),
		 lim, cap ? "yes" : "no",
		 budget == UINT64_MAX ? " (so nothing limits mlock here)" : "");
}

/* The timed and pinned size: --size, or 64 MiB with --quick. */
static uint64_t chosen_size(struct lab *L)
{
	const struct lab_opts *o = lab_options(L);

	if (o->quick && !o->size_given)
		return 64 * MiB;
	return round_to_page(o->size);
}

static void skip_lock_claims(struct lab *L, uint64_t budget)
{
	char b[32];
	static const char *const ids[] = { "01.1", "01.2", "01.3", "01.5", "01.8" };

	lab_fmt_size(budget, b, sizeof(b));
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		claim_skip(L, ids[i], SKIP_NO_CAPABILITY,
			   "no CAP_IPC_LOCK and only %s lockable under RLIMIT_MEMLOCK, need 1 MiB", b);
}

static void run_lock_claims(struct lab *L, uint64_t budget, uint64_t timed)
{
	uint64_t region = fit_region(STATUS_REGION_BYTES, budget);
	char a[32], b[32];

	if (region != STATUS_REGION_BYTES)
		lab_note(L, "RLIMIT_MEMLOCK leaves %s lockable: locking %s instead of 64 MiB",
			 lab_fmt_size(budget, a, sizeof(a)), lab_fmt_size(region, b, sizeof(b)));
	claim_status_deltas(L, region);
	claim_munlock(L, region);
	timed = fit_region(timed, budget);
	if (!skip_if_too_big(L, "01.5", timed))
		claim_lock_cost(L, timed);
}

static void run(struct lab *L)
{
	uint64_t budget, size = chosen_size(L);

	budget = lockable_bytes();
	if (budget == UINT64_MAX) /* under a limit, one page would halve the region */
		setup_drain_page();

	note_setting(L, budget);
	if (fit_region(STATUS_REGION_BYTES, budget))
		run_lock_claims(L, budget, size);
	else
		skip_lock_claims(L, budget);
	/* Children first: this process must not fork once CUDA is initialised. */
	claim_limit_refusal(L);
	claim_pinned_unlimited(L, size);
	claim_pinned_here(L, size, budget);
}

LAB_MAIN(spec, run)
