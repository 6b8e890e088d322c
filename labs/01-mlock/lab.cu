/*
 * lab-01: mlock and VmLck.  What does locking host memory do to the process
 * and to the machine, what limits it, and is CUDA's pinned memory the same
 * thing?  01.4 and 01.6 run in children (`--role`) that lower RLIMIT_MEMLOCK
 * and drop CAP_IPC_LOCK first, as a container would; the parent touches CUDA
 * only after its last child (01.7, 01.9).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h> /* setrlimit, should exercise 01.limit use it */
#include <linux/capability.h>

#include "buffer.h"
#include "lab.h"
#include "pagemap.h"
#include "helper.h"
#include "need.h"
#include "memlock.h" /* with procfs.h: the lab's locking limit and slack */
#if DMALAB_HAVE_CUDA
#include "lab_cuda.h"
#endif

#define STATUS_REGION_BYTES (64 * MiB)  /* the region the chapter locks */
#define MIN_SIZE_BYTES (64 * MiB)       /* --size: 01.7 needs many 2 MiB blocks */
#define MIN_REGION_BYTES (1 * MiB)      /* below this the deltas say little */
#define CHILD_MEMLOCK_LIMIT (64 * KiB)  /* RLIMIT_MEMLOCK in the children */
#define CHILD_OVER_LIMIT_BYTES (1 * MiB) /* what the 01.4 child tries to lock */
#define ABOVE_REQUEST_LIMIT (2 * MiB)   /* a limit the 01.4 child's request fits under */
#define MLOCK_CHILD_TIMEOUT_S 5.0
#define PIN_CHILD_TIMEOUT_S 30.0        /* CUDA context creation can be slow */
#define MIN_SAMPLE_S 1e-3               /* 01.5: a sample at least this long */
#define MAX_ROUNDS 100000               /* 01.5: mlock calls per sample, at most */

#define ROLE_MLOCK "mlock-over-limit"
#define ROLE_PIN "pin-over-limit"

/*
 * What `make selftest` breaks, in one place: the sabotage build gives each
 * knob its broken value (DMALAB_SABOTAGE=01.4: that claim's knobs alone).
 * Helpers started with --role read the same knobs.
 */
static struct knobs {
	int lock_region;       /* 01.1 01.2 01.8: the fresh region is mlock'd (each round too) */
	int unlock_region;     /* 01.3: the locked region is munlock'd */
	int lock_fresh;        /* 01.5: every timed mlock meets fresh, untouched pages */
	int child_limit_bytes; /* 01.4: the RLIMIT_MEMLOCK the child sets, below its request */
	int pin_with_cuda;     /* 01.6 01.9 (and 01.7's buffer): pinning is cudaHostAlloc */
} K = {
	.lock_region = 1,
	.unlock_region = 1,
	.lock_fresh = 1,
	.child_limit_bytes = (int)CHILD_MEMLOCK_LIMIT,
	.pin_with_cuda = 1,
};

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.lock_region, 0, "01.1 01.2 01.8"),
	LAB_KNOB(K.unlock_region, 0, "01.3"),
	LAB_KNOB(K.lock_fresh, 0, "01.5"),
	LAB_KNOB(K.child_limit_bytes, (int)ABOVE_REQUEST_LIMIT, "01.4"),
	LAB_KNOB(K.pin_with_cuda, 0, "01.6 01.9"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "01.1", "ch1.Q1", "mlock of a fresh region raises VmLck in /proc/self/status by its size "
	  "(64 MiB, or what RLIMIT_MEMLOCK allows)",
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
	{ "01.4", "ch1.Q3", "without CAP_IPC_LOCK, locking more than RLIMIT_MEMLOCK fails with "
	  "ENOMEM",
	  "ch1 Q3 costs of pinning: mlock is capped by ulimit -l, which is why RDMA in a "
	  "container reports \"Cannot allocate memory\"",
	  "R11 an errno",
	  WANT_ERRNO(ENOMEM, "ENOMEM"),
	  "the child sets RLIMIT_MEMLOCK above the 1 MiB it locks instead of below it, so mlock "
	  "succeeds" },
	{ "01.5", "ch1.Q3", "locking is slow: tens of milliseconds or more per GiB",
	  "ch1 Q3 costs of pinning: pages are allocated, locked and registered one by one; "
	  "a large allocation takes tens of ms to seconds",
	  "R10 stated bound \"tens of ms or more\", read per GiB",
	  WANT_GE(10, "ms/GiB"),
	  "the timed mlock is of memory that is already locked and resident, which costs almost "
	  "nothing" },
	{ "01.6", "ch1.Q3", "cudaHostAlloc is not bound by RLIMIT_MEMLOCK",
	  "ch1 Q3 costs of pinning: CUDA's own pinned allocations are not subject to ulimit -l",
	  "R11 a CUDA error: cudaHostAlloc under a 64 KiB limit without CAP_IPC_LOCK succeeds",
	  WANT_CUDA_ERR(0, "cudaSuccess"),
	  "the child pins with mlock instead of cudaHostAlloc, which the lowered limit refuses" },
	{ "01.7", "ch2.S2", "cudaHostAlloc memory is physically contiguous (one run of page "
	  "frames)",
	  "ch2 S2.2: pageable pages are not physically contiguous and go as many DMA segments; "
	  "a cudaMallocHost buffer goes as one DMA of the whole block",
	  "R11 exact: page frames of the buffer from /proc/self/pagemap form 1 run",
	  WANT_INT(1, "runs"),
	  NULL, "/proc/self/pagemap shows page frame numbers to root only" },
	{ "01.8", "ch1.Q3", "locked memory is taken from the whole machine: /proc/meminfo Mlocked "
	  "grows by the locked amount",
	  "ch1 Q3 costs of pinning: locked pages cannot be swapped or reclaimed, so the page "
	  "cache and other processes lose that much memory",
	  "R11 exact; got = the median Mlocked rise / locked bytes over 15 lock rounds (other "
	  "tenants' locking moves single rounds), its interval the rounds' and the per-CPU drift",
	  WANT_NEAR_ABS(1, 0, "fraction"),
	  "the mlock call is skipped, so Mlocked does not grow",
	  "an exact reading: vm.stat_refresh (root) folds the per-CPU counters; without it the "
	  "interval is their drift, too wide to decide" },
	{ "01.9", "ch1.Q3", "cudaHostAlloc memory does not show in VmLck",
	  "ch1 DMA and Q3: CUDA pins pages the driver's own way, not charged to ulimit -l "
	  "(read as: not counted in VmLck)",
	  "R11 exact: VmLck moves by 0 across a cudaHostAlloc",
	  WANT_INT(0, "KiB"),
	  "the buffer is mmap'd and mlock'd instead of cudaHostAlloc'd, so VmLck counts it" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static int run_role(struct lab *L, const char *role);

static const struct lab_spec spec = {
	.id = "01", .title = "mlock and VmLck",
	.topic = "what locking host memory costs and shows in /proc, what limits it, "
		 "and whether CUDA's pinned memory is the same thing",
	.timeout_s = 60, .needs = { 1, 1, 1, "01.6 01.7 01.9" }, .claims = claims, .role = run_role,
	.default_size = 64 * MiB, .min_size = MIN_SIZE_BYTES,
	.size_why = ", as 01.7's pinned buffer must span many 2 MiB blocks", .default_iters = 7,
	.knobs = knobs,
};

/* ---- Sizes, and what may be locked ----------------------------------- */

#define TO_MIB(bytes) ((double)(bytes) / (double)MiB)
static uint64_t page_bytes(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t round_to_page(uint64_t n)
{
	return (n + page_bytes() - 1) / page_bytes() * page_bytes();
}

/* Fresh anonymous memory, never touched: no page is resident yet (munmap frees it). */
static void *map_fresh(uint64_t bytes)
{
	return buf_map(bytes, 0, BUF_UNTRACKED, NULL);
}

static uint64_t vmlck(struct lab *L)
{
	struct procfs_vm v;

	if (procfs_vm_read(NULL, &v) < 0)
		lab_error_errno(L, "reading /proc/self/status");
	return v.lck;
}

/* want, halved until it fits in budget; 0 when even MIN_REGION_BYTES does not. */
static uint64_t fit_region(uint64_t want, uint64_t budget)
{
	while (want > budget && want / 2 >= MIN_REGION_BYTES)
		want = round_to_page(want / 2);
	return want <= budget ? want : 0;
}

/* ---- 01.1, 01.2, 01.8 and 01.3: what mlock and munlock show in /proc - */

/* Locks the bytes at p in RAM; 0, or -1 with errno set. */
static int lock_region(void *p, uint64_t bytes)
{
	/* EXERCISE 01.lock grades 01.1 01.2 01.8: lock the bytes at p into RAM with
	 * mlock(2), which also faults every page in; return 0, or -1 with errno set */
	return mlock(p, bytes);
	/* STUB
	return 0; // nothing locked yet: VmLck, VmRSS and Mlocked stay where they were
	END STUB */
	/* END EXERCISE */
}

/* Unlocks the bytes at p; 0, or -1 with errno set. */
static int unlock_region(void *p, uint64_t bytes)
{
	/* EXERCISE 01.unlock grades 01.3: unlock the bytes at p with munlock(2), so that
	 * VmLck falls back; return 0, or -1 with errno set */
	return munlock(p, bytes);
	/* STUB
	return 0; // nothing unlocked yet: VmLck stays raised
	END STUB */
	/* END EXERCISE */
}

static void snapshot(struct lab *L, struct procfs_lock_snapshot *s)
{
	if (procfs_lock_snapshot(NULL, s) < 0)
		lab_error_errno(L, "reading /proc/meminfo and /proc/self/status");
}

#define MLOCKED_ROUNDS 15 /* 01.8: another tenant's locking moves a round, not the median */

/*
 * munlock leaves its pages' Mlocked accounting in a per-CPU batch, which
 * the kernel drains at the end of the call on the CPU the call ends on.  A
 * task moved to another CPU during a munlock leaves part of it pending, and
 * the next mlock of those pages adds nothing to Mlocked: the round reads
 * short (moving lab-01 between two CPUs while it ran gave 0.9988, as one CI
 * run did).  01.8's rounds run on one CPU; 0 if the task could not be held.
 */
static int hold_on_this_cpu(cpu_set_t *was)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(*was), was) < 0)
		return 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0;
}

/*
 * 01.8 again, round by round: each round munlocks the region p (locked on
 * entry and again on return), reads the counters, mlocks it, reads them
 * again, and keeps the machine's Mlocked rise per locked byte in rise[i].
 * One round can meet another tenant's locking; the median of n cannot.
 */
static void mlocked_rounds(struct lab *L, void *p, uint64_t bytes, int n, double *rise)
{
	struct procfs_lock_snapshot b, a;

	for (int i = 0; i < n; i++) {
		if (K.lock_region && munlock(p, bytes) < 0)
			lab_error_errno(L, "munlock(%" PRIu64 " bytes)", bytes);
		snapshot(L, &b);
		if (K.lock_region && lock_region(p, bytes) < 0)
			lab_error_errno(L, "lock_region: mlock(%" PRIu64 " bytes)", bytes);
		snapshot(L, &a);
		rise[i] = ((double)a.mlocked - (double)b.mlocked) / (double)bytes;
	}
}

static void claim_status_deltas(struct lab *L, uint64_t bytes)
{
	struct procfs_lock_snapshot b, a; /* before and after mlock */
	void *p = buf_map_or_die(L, bytes, 0, 0);
	double n = (double)bytes, dlck, drss, dmlk, duev, slack, rise[MLOCKED_ROUNDS];
	struct lab_stats ms;
	struct lab_est mlk;
	char sz[32];
	cpu_set_t was;
	int held = hold_on_this_cpu(&was);

	lab_note(L, MSG("01.fresh", "mlock of %s of fresh, untouched memory: VmLck, VmRSS "
			     "and the machine's Mlocked"), lab_fmt_size(bytes, sz, sizeof(sz)));
	snapshot(L, &b);
	if (K.lock_region && lock_region(p, bytes) < 0)
		lab_error_errno(L, "lock_region: mlock(%" PRIu64 " bytes)", bytes);
	snapshot(L, &a);
	dlck = (double)a.self.lck - (double)b.self.lck;
	drss = (double)a.self.rss - (double)b.self.rss;
	dmlk = (double)a.mlocked - (double)b.mlocked;
	duev = (double)a.unevictable - (double)b.unevictable;
	slack = b.folded && a.folded ? 0 : (double)procfs_meminfo_slack(NULL, 0, 0);
	const struct { const char *name; double v; } facts[] = {
		{ "locked_bytes", n }, { "vmlck_before", (double)b.self.lck },
		{ "vmlck_after_mlock", (double)a.self.lck }, { "vmrss_before", (double)b.self.rss },
		{ "vmrss_after_mlock", (double)a.self.rss }, { "meminfo_mlocked_delta", dmlk },
		{ "meminfo_unevictable_delta", duev }, { "meminfo_slack_bytes", slack } };

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		lab_fact_num(L, facts[i].name, facts[i].v, "bytes");
	/* Mlocked over more rounds of munlock and mlock; the per-CPU drift widens it */
	rise[0] = dmlk / n;
	mlocked_rounds(L, p, bytes, MLOCKED_ROUNDS - 1, rise + 1);
	if (held)
		sched_setaffinity(0, sizeof(was), &was);
	lab_stats_from(&ms, "mlocked_rise", "fraction", rise, MLOCKED_ROUNDS, 0);
	mlk = lab_est_median(&ms, 1);
	mlk.lo -= slack / n;
	mlk.hi += slack / n;
	lab_note(L, MSG("01.deltas",
		     "VmLck %+.1f MiB, VmRSS %+.1f MiB, Mlocked %+.1f MiB, Unevictable %+.1f MiB"),
		 TO_MIB(dlck), TO_MIB(drss), TO_MIB(dmlk), TO_MIB(duev));

	claim_note(L, MSG("01.note-1",
		"VmLck %+.0f KiB for %.0f KiB locked"), dlck / KiB, n / KiB);
	claim_check(L, "01.1", lab_est_exact(dlck / n));
	claim_note(L, MSG("01.note-2",
		"VmRSS %+.0f KiB for %.0f KiB locked; the region was never touched before mlock, "
		"so every resident page came from mlock"), drss / KiB, n / KiB);
	claim_check(L, "01.2", lab_est_exact(drss / n));
	/* the claim is the median of the rounds, so the note quotes it, not round 1 */
	if (slack == 0)
		claim_note(L, MSG("01.note-8", "Mlocked %+.0f KiB for %.0f KiB locked, the median "
			"of %d rounds (the first's Unevictable %+.0f KiB); folded with "
			"vm.stat_refresh before each read, so exact"),
			ms.median * n / KiB, n / KiB, MLOCKED_ROUNDS, duev / KiB);
	else
		claim_note(L, MSG("01.note-8-drift", "Mlocked %+.0f KiB for %.0f KiB locked, the "
			"median of %d rounds (the first's Unevictable %+.0f KiB); not folded "
			"(needs root): the interval is the per-CPU drift"),
			ms.median * n / KiB, n / KiB, MLOCKED_ROUNDS, duev / KiB);
	claim_stats(L, &ms);
	claim_check(L, "01.8", mlk);
	buf_free(p); /* unmapping also unlocks */
}

static void claim_munlock(struct lab *L, uint64_t bytes)
{
	void *p = buf_map_or_die(L, bytes, 0, 0);
	uint64_t base, locked, after;

	lab_note(L, MSG("01.unlock", "a second fresh region: mlock it, then munlock it; VmLck "
			      "should return to its start"));
	base = vmlck(L);
	if (mlock(p, bytes) < 0)
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", bytes);
	locked = vmlck(L);
	if (K.unlock_region && unlock_region(p, bytes) < 0)
		lab_error_errno(L, "unlock_region: munlock(%" PRIu64 " bytes)", bytes);
	after = vmlck(L);
	buf_free(p);
	lab_fact_num(L, "vmlck_after_munlock", (double)after, "bytes");
	claim_note(L, MSG("01.note-3",
		"VmLck %.1f MiB -> %.1f MiB (locked) -> %.1f MiB (after munlock)"),
		   TO_MIB(base), TO_MIB(locked), TO_MIB(after));
	claim_check(L, "01.3", lab_est_exact(((double)after - (double)base) / (double)bytes));
}

/* ---- 01.5: the cost of locking --------------------------------------- */

struct lock_timing {
	uint64_t bytes;  /* locked per round */
	int rounds;      /* rounds per sample */
	void *prelocked; /* K.lock_fresh broken: one region, locked once before timing */
};

/* One sample: t->rounds mlock calls, each on fresh memory mapped outside the timing, so
 * each faults in, zeroes and locks its pages; relocking `prelocked` does no such work. */
static double time_mlock(void *arg)
{
	struct lock_timing *t = (struct lock_timing *)arg;
	double sum = 0, t0;
	int rc;

	for (int i = 0; i < t->rounds; i++) {
		void *p = t->prelocked ? t->prelocked : map_fresh(t->bytes);

		if (!p)
			return -1.0;
		t0 = lab_now();
		rc = mlock(p, t->bytes);
		sum += lab_now() - t0;
		if (p != t->prelocked)
			munmap(p, t->bytes);
		if (rc < 0)
			return -1.0;
	}
	return sum;
}

static void claim_lock_cost(struct lab *L, uint64_t bytes)
{
	struct lock_timing t = { bytes, 1, NULL };
	/* A sample locks >= 64 MiB in all and lasts >= MIN_SAMPLE_S and 1000 clock
	 * steps: far from the clock's step (a series near it is inconclusive). */
	int rounds = bytes < STATUS_REGION_BYTES ? (int)(STATUS_REGION_BYTES / bytes) : 1;
	double one, target = MIN_SAMPLE_S > 1000 * lab_clock_resolution() ?
			     MIN_SAMPLE_S : 1000 * lab_clock_resolution();
	struct lab_stats st;
	char sz[32];

	lab_note(L, MSG("01.timing", "timing mlock of %s of fresh memory: faulting in, zeroing "
			      "and locking every page"), lab_fmt_size(bytes, sz, sizeof(sz)));
	if (!K.lock_fresh) { /* huge pages, where THP allows, shorten the re-walk */
		t.prelocked = buf_map_or_die(L, bytes, 0, BUF_HUGE);
		if (mlock(t.prelocked, bytes) < 0)
			lab_error_errno(L, "mlock(%" PRIu64 " bytes)", bytes);
	}
	if ((one = time_mlock(&t)) < 0) /* one round sizes the samples */
		lab_error_errno(L, "mlock(%" PRIu64 " bytes)", bytes);
	if (one < target / rounds)
		rounds = one > 0 && target / one < MAX_ROUNDS ? (int)(target / one) + 1
							      : MAX_ROUNDS;
	t.rounds = rounds;
	lab_measure(L, "mlock", time_mlock, &t, NULL, &st); /* 2 warm-up, --iters, the stop rule */
	buf_free(t.prelocked);
	if (t.rounds > 1)
		lab_note(L, MSG("01.rounds", "one sample sums %d such mlock calls, to be long "
				 "enough to time"),
			 t.rounds);
	lab_stats_scale(&st, 1e3 * (double)GiB / ((double)bytes * t.rounds), "ms/GiB");
	lab_fact_num(L, "mlock_ms_per_gib", st.median, "ms/GiB");
	claim_check_median(L, "01.5", &st);
}

/* ---- 01.4, 01.6: children under a lowered RLIMIT_MEMLOCK, no CAP_IPC_LOCK */

/* Lowers RLIMIT_MEMLOCK to limit and drops CAP_IPC_LOCK: *now is the limit
 * then (-1: unlimited); or an "error" to the lab and -1. */
static int child_arrange_limit(struct role_io *io, uint64_t limit, int64_t *now)
{
	const char *what = "?";

	*now = -1;
	if (procfs_memlock_confine(limit, now, &what) == 0)
		return 0;
	role_error(io, "%s (limit %llu): %s", what, (unsigned long long)limit, strerror(errno));
	return -1;
}

/* In this child: the limit lowered to `limit`, then the bytes at p locked; mlock's
 * errno (0: it locked), or -1 when the limit could not be set (role_error said why). */
static int lock_under_limit(struct role_io *io, void *p, uint64_t bytes, uint64_t limit,
			    int64_t *now)
{
	/* EXERCISE 01.limit grades 01.4: lower RLIMIT_MEMLOCK to `limit` bytes and give up
	 * CAP_IPC_LOCK in this child (child_arrange_limit above does both), then mlock the
	 * bytes at p; return mlock's errno (0 when it locked), or -1 when the limit could
	 * not be set; *now is the limit then (-1: unlimited) */
	if (child_arrange_limit(io, limit, now) < 0)
		return -1;
	return mlock(p, bytes) < 0 ? errno : 0;
	/* STUB
	*now = -1; // the limit not lowered, nothing locked: no ENOMEM to see yet
	return 0;
	END STUB */
	/* END EXERCISE */
}

/* Role 01.4: lock --size bytes under the limit; report errno (0: it worked).
 * The limit, the capability and the errno reported are the child's own, read
 * after lock_under_limit returns (an exercise's region may return anything);
 * what the region returned goes along, for 01.4 to refuse a region that lies. */
static int role_mlock_over_limit(struct lab *L, struct role_io *io)
{
	uint64_t bytes = round_to_page(lab_options(L)->size);
	void *p = map_fresh(bytes);
	struct json_writer w;
	int64_t region_limit;
	int region_err, err;

	if (!p)
		return role_error(io, "mmap: %s", strerror(errno));
	region_err = lock_under_limit(io, p, bytes, (uint64_t)K.child_limit_bytes,
				      &region_limit);
	/* when the limit could not be set, the first error sent said why, and this
	 * one is not read; a region returning mlock's own -1 gets a word of its own */
	if (region_err < 0)
		return role_error(io, "lock_under_limit returned -1: the limit could not be "
				  "set, or mlock's own -1 was returned where its errno is asked");
	/* mlock again under the limit in force: pages the region locked stay
	 * locked, so its answer is the region's when the region really asked */
	err = mlock(p, bytes) < 0 ? errno : 0;
	msg_begin(&w, "report");
	jw_kint(&w, "limit", procfs_memlock_limit());
	jw_kint(&w, "cap_ipc_lock", procfs_self_has_cap(CAP_IPC_LOCK));
	jw_kint(&w, "bytes", (long long)bytes);
	jw_kint(&w, "errno", err);
	jw_kint(&w, "region_errno", region_err);
	role_send(io, &w, -1);
	munmap(p, bytes);
	return 0;
}

#if DMALAB_HAVE_CUDA
/* K.pin_with_cuda broken: `bytes` mmap'd and the first `lock` of them mlock'd,
 * which a lowered limit refuses and VmLck counts.  Code and name as pin's. */
static void *pin_with_mlock(uint64_t bytes, uint64_t lock, int *code, char *name, size_t len)
{
	void *p = map_fresh(bytes);

	*code = p && (!lock || mlock(p, lock) == 0) ? 0 : errno;
	snprintf(name, len, "mlock:%s", !*code ? "ok" : *code == ENOMEM ? "ENOMEM" : "failed");
	if (*code && p)
		munmap(p, bytes);
	return *code ? NULL : p;
}

/* The chapter's pinned memory: cudaHostAlloc(bytes), its result's code and
 * name; NULL when it fails.  `lock` is pin_with_mlock's only. */
static void *pin(uint64_t bytes, uint64_t lock, int *code, char *name, size_t len)
{
	void *p = NULL;
	cudaError_t e;

	if (!K.pin_with_cuda)
		return pin_with_mlock(bytes, lock, code, name, len);
	e = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
	*code = (int)e;
	snprintf(name, len, "%s", cudaGetErrorName(e));
	return *code ? NULL : p;
}

static void unpin(void *p, uint64_t bytes)
{
	if (K.pin_with_cuda)
		(void)cudaFreeHost(p);
	else
		munmap(p, bytes);
}

/* Role 01.6: a pinned allocation under the lowered limit, and what it moved. */
static int role_pin_over_limit(struct lab *L, struct role_io *io)
{
	uint64_t bytes = round_to_page(lab_options(L)->size);
	struct procfs_vm b, a; /* a counter that cannot be read stays 0 */
	char detail[200], name[64];
	const char *why = lab_cuda_unavailable(1, detail, sizeof(detail));
	struct json_writer w;
	int64_t limit;
	cudaError_t e;
	int code;
	void *p;

	if (why)
		return role_skip(io, why, "%s", detail);
	e = cudaSetDevice(lab_options(L)->device);
	if (e == cudaSuccess)
		e = cudaFree(0); /* the context now, outside the deltas */
	if (e != cudaSuccess)
		return role_error(io, "cudaSetDevice/cudaFree(0): %s", cudaGetErrorName(e));
	if (child_arrange_limit(io, CHILD_MEMLOCK_LIMIT, &limit) < 0)
		return 1;
	procfs_vm_read(NULL, &b);
	p = pin(bytes, bytes, &code, name, sizeof(name));
	procfs_vm_read(NULL, &a);
	if (p)
		unpin(p, bytes);
	msg_begin(&w, "report");
	jw_kint(&w, "limit", limit);
	jw_kint(&w, "bytes", (long long)bytes);
	jw_kint(&w, "ok", p != NULL);
	jw_kint(&w, "code", code);
	jw_kstr(&w, "name", name);
	jw_kint(&w, "vmlck", a.lck - b.lck);
	jw_kint(&w, "vmpin", a.pin - b.pin);
	jw_kint(&w, "vmrss", a.rss - b.rss);
	role_send(io, &w, -1);
	return 0;
}
#endif

static const struct helper_role roles[] = {
	{ ROLE_MLOCK, role_mlock_over_limit },
#if DMALAB_HAVE_CUDA
	{ ROLE_PIN, role_pin_over_limit },
#endif
	{ NULL, NULL }
};

static int run_role(struct lab *L, const char *role) { return helper_role_main(L, role, roles); }

/* An errno as the note says it: its name, "0 (locked)", or its number. */
static const char *errno_text(long long e)
{
	static char buf[4][32];
	static int next;
	const char *name = e > 0 && e < 4096 ? strerrorname_np((int)e) : NULL;
	char *out = buf[next++ % 4];

	snprintf(out, sizeof(buf[0]), "%s", !e ? "0 (locked)" : name ? name : "?");
	if (!name && e)
		snprintf(out, sizeof(buf[0]), "%lld", e);
	return out;
}

/* 01.4 failed, said, when the child's own reading (limit, err: after the
 * region) is not what its region (exercise 01.limit) was to arrange and report:
 * the limit not lowered to K.child_limit_bytes, CAP_IPC_LOCK kept, or an errno
 * that is not mlock's.  1 when so. */
static int limit_not_arranged(struct lab *L, struct msg *m, long long limit,
			      long long err)
{
	long long region_err = msg_int(m, "region_errno");
	char lim[32];

	if (limit >= 0 && limit <= K.child_limit_bytes && msg_int(m, "cap_ipc_lock") != 1 &&
	    region_err == err)
		return 0;
	claim_note(L, MSG("01.note-4",
		"limit not arranged: after lock_under_limit the child itself reads "
		"RLIMIT_MEMLOCK %s (asked: at most %d B), CAP_IPC_LOCK %s, and mlock there "
		"gives %s; the region returned %s"), procfs_limit_text(limit, lim, sizeof(lim)),
		   K.child_limit_bytes, msg_int(m, "cap_ipc_lock") == 1 ? "kept" : "dropped",
		   errno_text(err), errno_text(region_err));
	claim_check_code(L, "01.4", -1, "limit not arranged: not mlock's answer under it");
	return 1;
}

static void claim_limit_refusal(struct lab *L)
{
	static struct helper h;
	struct msg *m;
	long long limit, err;
	char lim[32], sz[32];

	lab_note(L, MSG("01.child", "child (fork+exec, --role %s): sets RLIMIT_MEMLOCK to %s, "
			     "drops CAP_IPC_LOCK,"),
		 ROLE_MLOCK, lab_fmt_size((uint64_t)K.child_limit_bytes, lim, sizeof(lim)));
	lab_note(L, MSG("01.child-ask", "then asks mlock for %s: what an RDMA registration meets "
				 "in a container"),
		 lab_fmt_size(CHILD_OVER_LIMIT_BYTES, sz, sizeof(sz)));
	m = helper_run_sized(L, &h, ROLE_MLOCK, CHILD_OVER_LIMIT_BYTES, MLOCK_CHILD_TIMEOUT_S);
	limit = msg_int(m, "limit");
	err = msg_int(m, "errno");
	lab_fact_num(L, "child_rlimit_memlock", (double)limit, "bytes");
	if (limit == 0) { /* a hard limit of 0 B: nothing to exceed */
		claim_skip(L, "01.4", SKIP_NO_CAPABILITY,
			   "hard RLIMIT_MEMLOCK 0 B: raising it to %s needs CAP_SYS_RESOURCE "
			   "(setrlimit: EPERM); under a 0 B limit mlock refuses any size with %s, "
			   "not the over-limit ENOMEM", lim, err == EPERM ? "EPERM" :
			   err ? strerror((int)err) : "nothing (it succeeded)");
		return;
	}
	if (limit_not_arranged(L, m, limit, err))
		return;
	claim_note(L, MSG("01.note-4-2",
		"child: RLIMIT_MEMLOCK %s, no CAP_IPC_LOCK; mlock %s"),
		   procfs_limit_text(limit, lim, sizeof(lim)),
		   err ? strerror((int)err) : "succeeded");
	claim_check_errno(L, "01.4", (int)err);
}

#if DMALAB_HAVE_CUDA
static void claim_pinned_unlimited(struct lab *L, uint64_t bytes)
{
	char sz[32], detail[200];
	const char *nm, *why = need_host_short(L, 2, bytes, detail, sizeof(detail));
	long long size, ok, code, dlck, dpin, drss;
	static struct helper h;
	struct msg *m;

	if (why) {
		claim_skip(L, "01.6", why, "%s", detail);
		return;
	}
	lab_note(L, MSG("01.pin-child", "a second child, same limit (--role %s): cudaHostAlloc; "
				 "VmLck and VmPin after"),
		 ROLE_PIN);
	m = helper_run_sized(L, &h, ROLE_PIN, bytes, PIN_CHILD_TIMEOUT_S);
	if (helper_report_skip(&h, "01.6"))
		return;
	size = msg_int(m, "bytes");
	ok = msg_int(m, "ok");
	code = msg_int(m, "code");
	nm = msg_str(m, "name");
	dlck = msg_int(m, "vmlck");
	dpin = msg_int(m, "vmpin");
	drss = msg_int(m, "vmrss");
	lab_fact_num(L, "pinned_vmlck_delta", (double)dlck, "bytes");
	lab_fact_num(L, "pinned_vmpin_delta", (double)dpin, "bytes");
	lab_fact_num(L, "pinned_vmrss_delta", (double)drss, "bytes");
	claim_note(L, MSG("01.note-6",
		"child: cudaHostAlloc(%s) under a %llu KiB limit without CAP_IPC_LOCK: %s%s; "
		"VmLck %+.1f MiB, VmPin %+.1f MiB, VmRSS %+.1f MiB"),
		   lab_fmt_size((uint64_t)size, sz, sizeof(sz)),
		   (unsigned long long)(CHILD_MEMLOCK_LIMIT / KiB), nm, ok ? "" : " (refused)",
		   TO_MIB(dlck), TO_MIB(dpin), TO_MIB(drss));
	claim_check_code(L, "01.6", code, nm);
}

/* ---- 01.7 and 01.9: a pinned buffer in this process ------------------ */

/* The runs in a note, their count and longest (bytes) as the facts named. */
/* fmt: a MSG() text whose arguments are the runs' present pages, pages, runs and the
 * longest run's size, so that the whole line is in the learner's language. */
static void note_runs(struct lab *L, const char *fmt, const struct pagemap_runs *pr,
		      const char *runs_fact, const char *longest_fact)
{
	char sz[32];

	lab_note(L, fmt, (unsigned long long)pr->present, (unsigned long long)pr->pages,
		 (unsigned long long)pr->runs,
		 lab_fmt_size(pr->longest_run * page_bytes(), sz, sizeof(sz)));
	lab_fact_num(L, runs_fact, (double)pr->runs, "runs");
	lab_fact_num(L, longest_fact, (double)(pr->longest_run * page_bytes()), "bytes");
}

/* The control's runs: `bytes` of fresh anonymous memory, mlock'd so that every
 * page is present and none moves, read from pagemap, then unmapped (which
 * unlocks it).  0, or -1 with errno (mmap's, mlock's or the read's). */
static int mlocked_runs(uint64_t bytes, struct pagemap_runs *pr)
{
	void *p = map_fresh(bytes);
	int rc, saved;

	if (!p)
		return -1;
	rc = mlock(p, bytes);
	if (rc == 0)
		rc = pagemap_runs_of(p, bytes, pr);
	saved = errno;
	munmap(p, bytes);
	errno = saved;
	return rc;
}

/* 1 when this process sees page frames, after the control (an mlock'd anonymous region
 * of the pinned buffer's size, no verdict) where memory allows; else 01.7 is skipped. */
static int contiguity_ready(struct lab *L, uint64_t bytes, uint64_t budget)
{
	uint64_t control = fit_region(bytes, budget), avail = need_available(L, NULL);
	struct pagemap_runs pr;
	char detail[200];
	const char *why = pagemap_pfns_denied(detail, sizeof(detail));

	if (why)
		goto skip;
	lab_note(L, MSG("01.pagemap", "page frames from /proc/self/pagemap (in a VM: "
			       "guest-physical, the guest's doing)"));
	if (!control || !need_fits(2, control, avail)) /* never squeeze the machine */
		return 1;
	if (mlocked_runs(control, &pr) < 0)
		lab_error_errno(L, "mlock(%" PRIu64 " bytes) and /proc/self/pagemap", control);
	if ((why = pagemap_runs_unknown(&pr, detail, sizeof(detail))))
		goto skip;
	note_runs(L, MSG("01.runs-control", "control, mlock'd anonymous memory: %llu of %llu "
			 "pages present, %llu physically contiguous runs, longest %s"),
		  &pr, "mlock_runs", "mlock_longest_run");
	return 1;
skip:
	claim_skip(L, "01.7", why, "%s", detail);
	return 0;
}

/* 01.9, and 01.7 unless contiguity_ready skipped it, on one pinned buffer in this
 * process.  The sabotage mlocks as much of it as this process may. */
static void claim_pinned_here(struct lab *L, uint64_t bytes, uint64_t budget)
{
	int contig = contiguity_ready(L, bytes, budget), code;
	uint64_t lock = budget < bytes ? budget / page_bytes() * page_bytes() : bytes;
	uint64_t before, after;
	struct pagemap_runs pr;
	char detail[200], name[64], sz[32];
	const char *why = lab_cuda_unavailable(1, detail, sizeof(detail));
	void *p;

	if (!why)
		why = need_host_short(L, 2, bytes, detail, sizeof(detail));
	if (why) {
		claim_skip(L, "01.9", why, "%s", detail);
		if (contig) /* 01.7 still open */
			claim_skip(L, "01.7", why, "%s", detail);
		return;
	}
	CUDA_CHECK(L, cudaSetDevice(lab_options(L)->device));
	CUDA_CHECK(L, cudaFree(0)); /* the context first, outside the VmLck reads */
	lab_fmt_size(bytes, sz, sizeof(sz));
	before = vmlck(L);
	if (!(p = pin(bytes, lock, &code, name, sizeof(name))))
		lab_error(L, "pinning %s: %s (%d)", sz, name, code);
	after = vmlck(L);
	lab_fact_num(L, "parent_pinned_vmlck_delta", (double)after - (double)before, "bytes");
	claim_note(L, MSG("01.note-9",
		"cudaHostAlloc(%s) in this process: VmLck %.0f KiB -> %.0f KiB"),
		   sz, (double)before / KiB, (double)after / KiB);
	claim_check_int(L, "01.9", ((long long)after - (long long)before) / (long long)KiB);

	if (contig) {
		memset(p, 0x5a, bytes); /* every page present before pagemap is read */
		if (pagemap_runs_of(p, bytes, &pr) < 0)
			lab_error_errno(L, "reading /proc/self/pagemap");
	}
	if (contig && (why = pagemap_runs_unknown(&pr, detail, sizeof(detail)))) /* VM_PFNMAP */
		claim_skip(L, "01.7", why, "%s", detail);
	else if (contig) {
		note_runs(L, MSG("01.runs-pinned", "cudaHostAlloc: %llu of %llu pages present, "
				 "%llu physically contiguous runs, longest %s"),
			  &pr, "pinned_runs", "pinned_longest_run");
		claim_note(L, MSG("01.note-7",
			"%llu pages, longest run %llu pages; guest-physical frames if this is a "
			"VM"),
			   (unsigned long long)pr.pages, (unsigned long long)pr.longest_run);
		claim_check_int(L, "01.7", (long long)pr.runs);
	}
	unpin(p, bytes);
}
#endif

/* ---- The lab --------------------------------------------------------- */

static void run_lock_claims(struct lab *L, uint64_t budget, uint64_t timed)
{
	static const char *const ids[] = { "01.1", "01.2", "01.3", "01.5", "01.8" };
	uint64_t region = fit_region(STATUS_REGION_BYTES, budget);
	char a[32], b[200];
	const char *why;

	lab_fmt_size(budget, a, sizeof(a));
	for (size_t i = 0; !region && i < sizeof(ids) / sizeof(ids[0]); i++)
		claim_skip(L, ids[i], SKIP_NO_CAPABILITY, "no CAP_IPC_LOCK and only %s "
			   "lockable under RLIMIT_MEMLOCK, need 1 MiB", a);
	if (!region)
		return;
	if (region != STATUS_REGION_BYTES)
		lab_note(L, MSG("01.limited", "RLIMIT_MEMLOCK leaves %s lockable: locking %s "
			       "instead of 64 MiB"),
			 a, lab_fmt_size(region, b, sizeof(b)));
	claim_status_deltas(L, region);
	claim_munlock(L, region);
	timed = fit_region(timed, budget);
	if ((why = need_host_short(L, 2, timed, b, sizeof(b))))
		claim_skip(L, "01.5", why, "%s", b);
	else
		claim_lock_cost(L, timed);
}

static void note_setting(struct lab *L, uint64_t budget)
{
	int64_t limit = procfs_memlock_limit();
	int cap = procfs_self_has_cap(CAP_IPC_LOCK);
	char lim[32];

	lab_fact_num(L, "euid", (double)geteuid(), "");
	lab_fact_num(L, "cap_ipc_lock", cap, "");
	if (limit >= 0)
		lab_fact_num(L, "rlimit_memlock", (double)limit, "bytes");
	else
		lab_fact_str(L, "rlimit_memlock", "unlimited");
	/* two whole sentences, not a translated fragment as an argument: JSON's
	 * notes keep the English of the format, and would not of an argument */
	lab_note(L, budget == UINT64_MAX ?
		 MSG("01.process-free", "this process: euid %d, RLIMIT_MEMLOCK %s, CAP_IPC_LOCK %s "
		     "(so nothing limits mlock here)") :
		 MSG("01.process", "this process: euid %d, RLIMIT_MEMLOCK %s, CAP_IPC_LOCK %s"),
		 (int)geteuid(), procfs_limit_text(limit, lim, sizeof(lim)), cap ? "yes" : "no");
}

static void run(struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	uint64_t size = round_to_page(o->size); /* 64 MiB, the chapter's region; --quick the same */
	uint64_t budget = procfs_lockable_bytes(NULL);

	note_setting(L, budget);
	lab_progress(L, MSG("01.progress-1", "mlock of fresh memory: the counters, the time"));
	run_lock_claims(L, budget, size);
	/* Children first: this process must not fork once CUDA is initialised. */
	lab_progress(L, MSG("01.progress-2", "children under a locked-memory limit"));
	claim_limit_refusal(L);
#if DMALAB_HAVE_CUDA
	claim_pinned_unlimited(L, size);
	lab_progress(L, MSG("01.progress-3", "cudaHostAlloc: its pages and the counters"));
	claim_pinned_here(L, size, budget);
#else
	claim_skip_rest(L, SKIP_NOT_BUILT_NO_NVCC, "built without nvcc");
#endif
}

LAB_MAIN(spec, run)
