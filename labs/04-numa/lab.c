/*
 * lab-04: NUMA - pointer chase, bandwidth, first touch.
 *
 * Latency is measured the lmbench lat_mem_rd way: a cyclic chain of
 * pointers, one per 64-byte cache line, visited in a random order so that
 * every load waits for the previous one and no prefetcher can guess the next
 * line or page.  The chase is unrolled and its last pointer goes to
 * lab_sink().  A working-set sweep gives the cache staircase; its 32 KiB and
 * 256 MiB points decide claim 04.1.
 *
 * Bandwidth is one thread summing 64-bit words sequentially (the prefetcher
 * is welcome here).  Both run with the CPU on one node and the memory bound
 * to each node that has memory, first touched from that CPU, and the
 * placement is checked with move_pages() before anything is timed.
 *
 * First touch (04.4/04.6) and binding to the GPU's node (04.5/04.7) read
 * where pages landed with move_pages().  All four need a second node: on
 * one node every page lands on node 0 whatever the code does, so they
 * could not fail there and skip.  The GPU is --device in CUDA's order and
 * its node comes from sysfs (gpu_topo.h); DMALAB_SYSFS_ROOT replaces "/sys"
 * for the topology (e.g. the two-node fixture, GPUs then in bus order),
 * while placement always uses the real nodes libnuma sees.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffer.h"
#include "gpu_topo.h"
#include "lab.h"
#include "numa_topo.h"
#include "preflight.h"
#include "procfs.h"

#define LINE_BYTES 64		/* one chain node per cache line */
#define SMALL_WS (32 * KiB)	/* fits in L1d: the fast end of 04.1 */
#define PLACEMENT_CHUNK 4096	/* pages per move_pages() call */
#define MOVED_READ_PASSES 4	/* 04.6: reads of the buffer after the move */
#define HUGE_SPAN (2 * MiB)	/* what one transparent huge page covers (x86-64 PMD) */

/*
 * The sabotage build chains consecutive 8-byte words in address order: most
 * loads hit a line already fetched and the prefetcher streams the rest, so
 * the large working set looks almost as fast as L1 (04.1 must fail).
 */
#ifdef LAB_SABOTAGE
#define SEQUENTIAL_CHAIN 1
#define CHAIN_STRIDE sizeof(void *)
#else
#define SEQUENTIAL_CHAIN 0
#define CHAIN_STRIDE LINE_BYTES
#endif

static const struct claim_spec claims[] = {
	{ "04.1", "ch1.Q5 ch2.S7",
	  "a random pointer chase defeats the caches: latency at 256 MiB is several times the latency at 32 KiB",
	  "ch1 NUMA section: a random chase over 256 MiB costs 121 ns a load, a DRAM access; ch2 sec. 7 ladder puts the CPU caches far above DRAM",
	  "R5 'several times' -> ratio >= 3",
	  WANT_RATIO_GE(3),
	  "the chain walks consecutive 8-byte words in address order: most loads hit a line already in L1 and the prefetcher streams the rest" },
	{ "04.2", "ch1.Q5",
	  "remote-node memory has about 50 % more load latency than local (121 vs 186 ns)",
	  "ch1 NUMA section: CPU on node 0, random-access latency 121 ns with memory on node 0, 186 ns on node 1: about +50 %",
	  "R3 +50 % -> remote/local latency near 1.5 +- 0.125",
	  WANT_NEAR_ABS(1.5, 0.125, "x"),
	  "the 'remote' chain buffer is placed on the CPU's own node: no far memory to reach" },
	{ "04.3", "ch1.Q5",
	  "remote-node memory has about 20 % less single-thread read bandwidth than local (17.7 vs 14.3 GB/s)",
	  "ch1 NUMA section: one thread reading sequentially gets 17.7 GB/s from node 0 and 14.3 GB/s from node 1: about -20 %",
	  "R3 -20 % -> remote/local bandwidth near 0.8 +- 0.05",
	  WANT_NEAR_ABS(0.8, 0.05, "x"),
	  "the 'remote' read buffer is placed on the CPU's own node: no far memory to read" },
	{ "04.4", "ch1.E3",
	  "first touch: a buffer mapped by a thread on one node and first written from a CPU of another node lands on the writer's node",
	  "ch1 NUMA section: Linux's default policy puts a page on the node of the CPU that writes it first",
	  "R11 behaviour -> no page off the writer's node",
	  WANT_INT(0, "pages"),
	  "the pages are first written from a CPU of the mapping thread's node, so they land on the wrong node" },
	{ "04.5", "ch1.E3",
	  "a worker bound (CPU and memory) to the GPU's NUMA node gets its buffers on that node",
	  "ch1 NUMA section and E3's fix: bind each GPU worker's CPUs and memory to its GPU's node (numactl --cpunodebind/--membind, vLLM --numa-bind)",
	  "R11 behaviour -> no page off the GPU's node",
	  WANT_INT(0, "pages"),
	  "the worker's memory is bound to a node other than the GPU's (its CPU stays on the GPU's node)" },
	{ "04.6", "ch1.E3",
	  "first touch stays: a worker that filled its buffer on one node and then runs on another still has (nearly) all of it on the first node",
	  "ch1 NUMA section: a process that fills its buffers on node 0 and is later scheduled on node 1 has all of them remote; automatic NUMA balancing migrates them only slowly",
	  "R9 'all', hedged by the slow balancing -> >= 80 % still on the first node",
	  WANT_GE(0.8, "fraction"),
	  "the buffer is first written only after the worker has moved, so its pages are on the new node" },
	{ "04.7", "ch1.E3",
	  "memory binding beats first touch: a worker running on another node but bound to the GPU's node gets its buffers on the GPU's node",
	  "ch1 E3's fix: bind the worker's memory (numactl --membind) before it allocates, since first touch would put pages where it runs",
	  "R11 behaviour -> no page off the GPU's node",
	  WANT_INT(0, "pages"),
	  "the worker's memory is bound to the node it runs on instead of the GPU's" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static int check_opts(const struct lab *L);

/* What plots/ draws from the record (lab.h, struct lab_figure). */
static const struct lab_figure figures[] = {
	{ "lab04_latency", "lab04_latency", "latency_node*", "cpu_node", "04.1",
	  "lab-04: pointer-chase latency vs working set, per memory node" },
	{ "lab04_local_remote", "lab04_local_remote",
	  "latency_large_local latency_large_remote read_local read_remote", NULL, "04.2 04.3",
	  "lab-04: local vs remote node, latency and read bandwidth" },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "04",
	.title = "NUMA: pointer chase, bandwidth, first touch",
	.topic = "how much slower is memory far from the CPU, and where do pages land",
	.timeout_s = 120,
	.needs = { .cuda_devices = 0, .numa_nodes = 2, .root = 0 },
	.claims = claims,
	.extra_opts = NULL,
	.role = NULL,
	.default_size = 1 * GiB,
	.default_iters = 7,
	.check_opts = check_opts,
	.figures = figures,
};

#define MIN_BW_BYTES (1 * MiB)	/* --size: the bandwidth test's buffer */

/* spec.check_opts: --size before anything is printed. */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);

	if (!o->size_given)
		return 0;
	return preflight_size_floor(L, "size", o->size, MIN_BW_BYTES, " for the bandwidth test");
}

struct numa_lab {
	struct lab *L;
	const char *sysfs_root;
	struct numa_topo topo;
	int topo_ok;
	int cpu_node;                  /* the measuring thread runs here */
	int mem_node[TOPO_MAX_NODES];  /* usable memory nodes, cpu_node first */
	int nmem;
	uint64_t max_ws, claim_ws;     /* bytes: sweep top, 04.1's large point */
	uint64_t bw_bytes;             /* bytes read per bandwidth sample */
	uint64_t touch_bytes;          /* buffer of the first-touch claims */
	double sample_s;               /* aimed duration of one latency sample */
	long balancing;                /* /proc/sys/kernel/numa_balancing, -1 absent */
	uint64_t rng;                  /* xorshift64 state, never 0 */
};

/* ------------------------------------------------------------------------ */
/* Seeded pseudo-random numbers (xorshift64*, Vigna)                         */

static void rng_seed(struct numa_lab *X, uint64_t seed)
{
	X->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static uint64_t rng_next(struct numa_lab *X)
{
	X->rng ^= X->rng >> 12;
	X->rng ^= X->rng << 25;
	X->rng ^= X->rng >> 27;
	return X->rng * 0x2545f4914f6cdd1dULL;
}

/* In [0, n) by multiply-shift (Lemire): no division; bias < n / 2^64. */
static uint64_t rng_below(struct numa_lab *X, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(X) * n) >> 64);
}

/* ------------------------------------------------------------------------ */
/* Placement                                                                 */

/*
 * Pages of [buf, buf + len) that are NOT on `node`, from move_pages() on
 * every page, PLACEMENT_CHUNK at a time.  A page not yet faulted in
 * reports -ENOENT and counts as elsewhere.  *npages gets the number of
 * pages.  Returns -1 if move_pages fails.
 */
static long pages_off_node(void *buf, uint64_t len, int node, long *npages)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t total = len / page, done = 0;
	void *pages[PLACEMENT_CHUNK];
	int status[PLACEMENT_CHUNK];
	long off = 0;

	*npages = (long)total;
	while (done < total) {
		unsigned long n = total - done < PLACEMENT_CHUNK ?
				  (unsigned long)(total - done) : PLACEMENT_CHUNK;
		unsigned long i;

		for (i = 0; i < n; i++)
			pages[i] = (char *)buf + (done + i) * page;
		if (move_pages(0, n, pages, NULL, status, 0))
			return -1;
		for (i = 0; i < n; i++)
			off += status[i] != node;
		done += n;
	}
	return total ? off : -1;
}

/*
 * The node a buffer "on node" really goes to.  The sabotage build puts
 * every buffer on the CPU's own node: the far memory 04.2/04.3 are about
 * is gone, their ratios come out near 1 and must fail.
 */
static int backing_node(int cpu_node, int node)
{
	return LAB_SABOTAGED ? cpu_node : node;
}

/*
 * Memory bound to `node` and first written by this thread; every page is
 * checked (MPOL_BIND allows no other node, so one page elsewhere is a
 * setup error, not a finding).  huge: ask for transparent huge pages (only
 * where the page size does not change what is measured: faulting 1 GiB in
 * 4 KiB pages takes seconds).
 */
static void *alloc_on_node(struct numa_lab *X, uint64_t bytes, int node, int huge)
{
	char sz[32];
	void *p = numa_alloc_onnode(bytes, node);
	long off, npages;

	if (!p)
		lab_error(X->L, "numa_alloc_onnode(%s, node %d) failed",
			  lab_fmt_size(bytes, sz, sizeof(sz)), node);
	if (huge)
		madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
	memset(p, 0x5a, bytes);
	off = pages_off_node(p, bytes, node, &npages);
	if (off < 0)
		lab_error_errno(X->L, "move_pages on a buffer bound to node %d", node);
	if (off > 0)
		lab_error(X->L, "memory bound to node %d: %ld of %ld pages are elsewhere",
			  node, off, npages);
	return p;
}

/* ------------------------------------------------------------------------ */
/* Latency: the pointer chase                                                */

/*
 * Link the first ws bytes of base into one cycle through every cache line.
 * The visit order is a uniformly random permutation of the lines, so
 * consecutive loads fall on random pages as well as random lines: neither
 * the stride prefetchers nor the next-page prefetcher can follow it.
 * order[] has room for ws / LINE_BYTES entries.
 */
static void build_chain(struct numa_lab *X, char *base, uint64_t ws, uint32_t *order)
{
	uint64_t n = ws / CHAIN_STRIDE, i;

	if (SEQUENTIAL_CHAIN) {
		for (i = 0; i < n; i++)
			*(void **)(base + i * CHAIN_STRIDE) = base + (i + 1) % n * CHAIN_STRIDE;
		return;
	}
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (i = n - 1; i > 0; i--) {
		uint64_t j = rng_below(X, i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		char *from = base + (uint64_t)order[i] * LINE_BYTES;
		char *to = base + (uint64_t)order[(i + 1) % n] * LINE_BYTES;

		*(void **)from = to;
	}
}

struct chase {
	void **p;        /* where the next sample continues */
	uint64_t loads;  /* dependent loads per sample, a multiple of 16 */
};

#define HOP p = (void **)*p;
#define HOP4 HOP HOP HOP HOP
#define HOP16 HOP4 HOP4 HOP4 HOP4

/* One sample: `loads` dependent loads; returns seconds. */
static double chase_run(void *ctx)
{
	struct chase *c = (struct chase *)ctx;
	void **p = c->p;
	uint64_t i;
	double t0 = lab_now(), t;

	for (i = 0; i < c->loads; i += 16) {
		HOP16
	}
	t = lab_now() - t0;
	c->p = p;
	lab_sink((uint64_t)(uintptr_t)p);
	return t;
}

/* Pick loads per sample so that one sample lasts about target_s. */
static void chase_calibrate(struct chase *c, double target_s)
{
	double t;

	c->loads = 4096;
	for (;;) {
		t = chase_run(c);
		if (t >= 2e-3 || c->loads >= (1ULL << 40))
			break;
		c->loads *= 4;
	}
	c->loads = (uint64_t)((double)c->loads * target_s / t);
	c->loads = (c->loads + 15) & ~15ULL;
	if (c->loads < 16)
		c->loads = 16;
}

/* Static names: stats and series keep the pointer. */
static const char *lat_stats_name(uint64_t ws, uint64_t claim_ws, int local)
{
	if (ws == SMALL_WS)
		return local ? "latency_32KiB_local" : "latency_32KiB_remote";
	if (ws == claim_ws)
		return local ? "latency_large_local" : "latency_large_remote";
	return local ? "latency_local" : "latency_remote";
}

static const char *series_name(int node)
{
	static char names[TOPO_MAX_NODES][24];

	snprintf(names[node], sizeof(names[node]), "latency_node%d", node);
	return names[node];
}

/*
 * The working-set sweep with memory on `node`: one series point per size,
 * in ns per load.  Keeps the 32 KiB and the claim-size points.
 */
static void latency_sweep(struct numa_lab *X, int node, struct lab_stats *small,
			  struct lab_stats *large)
{
	struct lab_measure_cfg cfg = { 1, 0, 0.10, 0 };
	struct lab_stats *s = (struct lab_stats *)malloc(sizeof(*s));
	uint32_t *order = (uint32_t *)malloc(X->max_ws / LINE_BYTES * sizeof(*order));
	char *buf = (char *)alloc_on_node(X, X->max_ws, backing_node(X->cpu_node, node), 0);
	int local = node == X->cpu_node;
	struct chase c;
	uint64_t ws;

	if (!s || !order)
		lab_error(X->L, "out of memory for the chain order");
	for (ws = 4 * KiB; ws <= X->max_ws; ws *= 2) {
		build_chain(X, buf, ws, order);
		c.p = (void **)buf;
		chase_calibrate(&c, X->sample_s);
		lab_progress(X->L, "latency, memory on node %d: %llu KiB", node,
			     (unsigned long long)(ws / KiB));
		lab_measure(X->L, lat_stats_name(ws, X->claim_ws, local), chase_run,
			    &c, &cfg, s);
		lab_stats_scale(s, 1e9 / (double)c.loads, "ns");
		lab_series_point(X->L, series_name(node), "bytes", (double)ws, s);
		if (ws == SMALL_WS)
			*small = *s;
		if (ws == X->claim_ws)
			*large = *s;
	}
	numa_free(buf, X->max_ws);
	free(order);
	free(s);
}

/* ------------------------------------------------------------------------ */
/* Bandwidth: one thread reading                                             */

struct reader {
	const uint64_t *w;
	uint64_t nwords; /* a multiple of 4 */
};

/* One sample: sum every word; four sums so the adds do not serialise. */
static double read_run(void *ctx)
{
	const struct reader *r = (const struct reader *)ctx;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, i;
	double t0 = lab_now(), t;

	for (i = 0; i < r->nwords; i += 4) {
		s0 += r->w[i];
		s1 += r->w[i + 1];
		s2 += r->w[i + 2];
		s3 += r->w[i + 3];
	}
	t = lab_now() - t0;
	lab_sink(s0 + s1 + s2 + s3);
	return t;
}

static void read_bandwidth(struct numa_lab *X, int node, struct lab_stats *rate)
{
	struct lab_stats *secs = (struct lab_stats *)malloc(sizeof(*secs));
	struct reader r;
	char sz[32];

	if (!secs)
		lab_error(X->L, "out of memory");
	r.w = (const uint64_t *)alloc_on_node(X, X->bw_bytes,
					      backing_node(X->cpu_node, node), 1);
	r.nwords = X->bw_bytes / 32 * 4;
	lab_progress(X->L, "read bandwidth, memory on node %d: %s", node,
		     lab_fmt_size(X->bw_bytes, sz, sizeof(sz)));
	lab_measure(X->L, node == X->cpu_node ? "read_local" : "read_remote",
		    read_run, &r, NULL, secs);
	lab_stats_to_rate(secs, r.nwords * 8, rate);
	/* every node's samples reach the JSON, also where 04.3 skips */
	lab_series_point(X->L, "read_bandwidth", "node", node, rate);
	numa_free((void *)r.w, X->bw_bytes);
	free(secs);
}

/* ------------------------------------------------------------------------ */
/* First touch and binding: worker threads                                   */

/*
 * An untouched anonymous mapping of len bytes (a multiple of HUGE_SPAN)
 * that starts on a HUGE_SPAN boundary, or NULL; buf_free() it.  Why
 * aligned: with THP "always", a fault just below an unaligned buffer can
 * bring in one huge page that covers the buffer's head as well, placed by
 * whoever faulted.
 * Seen on an emulated two-node guest: glibc writes a new thread's
 * descriptor at the top of its stack, mapped right below the buffer, from
 * the creating thread; 349 head pages of 04.4's buffer were on its node.
 */
static char *map_aligned(uint64_t len)
{
	return (char *)buf_map(len, HUGE_SPAN, 0, NULL);
}

/* The lowest CPU of `node` that this process may run on, or -1. */
static int first_cpu_of(int node)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	int cpu, found = -1;

	if (numa_node_to_cpus(node, cpus) == 0) {
		for (cpu = 0; cpu < (int)cpus->size && found < 0; cpu++)
			if (numa_bitmask_isbitset(cpus, cpu) &&
			    numa_bitmask_isbitset(numa_all_cpus_ptr, cpu))
				found = cpu;
	}
	numa_free_cpumask(cpus);
	return found;
}

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* returns after the thread has moved there */
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct toucher {
	char *buf;
	uint64_t len;
	int write_cpu; /* pinned here for the first write */
	int read_cpu;  /* then moved here to read the buffer; -1: stays */
	int err;       /* error number of a failed pin, 0 if fine */
};

/* The moved worker uses its buffer: a few sequential reads. */
static void read_passes(const char *buf, uint64_t len)
{
	const uint64_t *w = (const uint64_t *)buf;
	uint64_t sum = 0, i, n = len / sizeof(*w);
	int pass;

	for (pass = 0; pass < MOVED_READ_PASSES; pass++)
		for (i = 0; i < n; i++)
			sum += w[i];
	lab_sink(sum);
}

static void *touch_worker(void *arg)
{
	struct toucher *t = (struct toucher *)arg;

	t->err = pin_to_cpu(t->write_cpu);
	if (t->err)
		return NULL;
	memset(t->buf, 0xa5, t->len);
	if (t->read_cpu >= 0) {
		t->err = pin_to_cpu(t->read_cpu);
		if (!t->err)
			read_passes(t->buf, t->len);
	}
	return NULL;
}

static int cpu_of(struct numa_lab *X, int node)
{
	int cpu = first_cpu_of(node);

	if (cpu < 0)
		lab_error(X->L, "node %d has no CPU this process may use", node);
	return cpu;
}

/*
 * The buffer is mapped (not touched) by this thread, which runs on
 * cpu_node; a worker pinned to a CPU of write_node writes it first and,
 * if read_node >= 0, then moves to a CPU of read_node and reads it.
 * Returns the pages not on want_node; *npages gets the total.
 */
static long first_touch(struct numa_lab *X, int write_node, int read_node,
			int want_node, long *npages)
{
	struct toucher t;
	pthread_t tid;
	long off = -1;
	int rc;
	char moved[64] = "";

	t.write_cpu = cpu_of(X, write_node);
	t.read_cpu = read_node >= 0 ? cpu_of(X, read_node) : -1;
	t.len = X->touch_bytes;
	t.err = 0;
	t.buf = map_aligned(t.len);
	if (!t.buf)
		lab_error_errno(X->L, "mmap(%llu bytes)", (unsigned long long)t.len);
	rc = pthread_create(&tid, NULL, touch_worker, &t);
	if (rc == 0)
		pthread_join(tid, NULL);
	if (rc == 0 && t.err == 0)
		off = pages_off_node(t.buf, t.len, want_node, npages);
	buf_free(t.buf);
	if (rc || t.err)
		lab_error(X->L, "first-touch worker on CPU %d: %s", t.write_cpu,
			  strerror(rc ? rc : t.err));
	if (off < 0)
		lab_error_errno(X->L, "move_pages");
	if (read_node >= 0)
		snprintf(moved, sizeof(moved), ", then read from CPU %d (node %d)",
			 t.read_cpu, read_node);
	lab_note(X->L, "mapped on node %d, first written from CPU %d (node %d)%s: %ld of %ld pages on node %d",
		 X->cpu_node, t.write_cpu, write_node, moved, *npages - off, *npages, want_node);
	return off;
}

struct binder {
	int run_node;  /* CPU binding */
	int mem_node;  /* memory binding (MPOL_BIND) */
	uint64_t len;
	int want_node;
	long off, npages; /* pages of the buffer not on want_node; in all */
	const char *failed; /* what failed, NULL if fine */
	int err;
};

/* Bind this thread's CPU and memory, then allocate and use a buffer. */
static void *bound_worker(void *arg)
{
	struct binder *b = (struct binder *)arg;
	struct bitmask *mems = numa_allocate_nodemask();
	char *buf;

	b->off = -1;
	numa_bitmask_setbit(mems, (unsigned int)b->mem_node);
	if (numa_run_on_node(b->run_node)) {
		b->failed = "numa_run_on_node";
		b->err = errno;
	} else {
		numa_set_membind(mems);	/* per thread: the main thread keeps its policy */
	}
	numa_free_nodemask(mems);
	if (b->failed)
		return NULL;
	buf = map_aligned(b->len);
	if (!buf) {
		b->failed = "mmap";
		b->err = errno;
		return NULL;
	}
	memset(buf, 0x3c, b->len);
	b->off = pages_off_node(buf, b->len, b->want_node, &b->npages);
	buf_free(buf);
	return NULL;
}

/* Run a bound worker; the pages of its buffer not on want_node. */
static long bound_placement(struct numa_lab *X, int run_node, int mem_node,
			    int want_node)
{
	struct binder b;
	pthread_t tid;
	int rc;

	memset(&b, 0, sizeof(b));
	b.run_node = run_node;
	b.mem_node = mem_node;
	b.want_node = want_node;
	b.len = X->touch_bytes;
	rc = pthread_create(&tid, NULL, bound_worker, &b);
	if (rc)
		lab_error(X->L, "pthread_create: %s", strerror(rc));
	pthread_join(tid, NULL);
	if (b.failed)
		lab_error(X->L, "bound worker: %s: %s", b.failed, strerror(b.err));
	if (b.off < 0)
		lab_error(X->L, "bound worker: move_pages failed");
	lab_note(X->L, "worker on node %d, memory bound to node %d: %ld of %ld pages on node %d",
		 run_node, mem_node, b.npages - b.off, b.npages, want_node);
	return b.off;
}

/* ------------------------------------------------------------------------ */
/* The GPU's node (gpu_topo: CUDA's device, sysfs's numa_node)               */

static int is_mem_node(const struct numa_lab *X, int node)
{
	int i;

	for (i = 0; i < X->nmem; i++)
		if (X->mem_node[i] == node)
			return 1;
	return 0;
}

/*
 * The node of the GPU --device names, in CUDA's order (the driver API; the
 * lab stays a CPU lab: no runtime is linked), if it is a memory node here;
 * else -1 with the skip reason and detail (04.5 and 04.7 skip alike).
 * Without the driver, or on a DMALAB_SYSFS_ROOT tree, --device N is the N-th
 * NVIDIA PCI device by bus id, and a note says so.
 */
static int gpu_node(struct numa_lab *X, const char **reason, char *detail, size_t len)
{
	int dev = lab_options(X->L)->device, node;
	const struct gpu_topo_dev *g;
	const char *bdf;
	struct gpu_topo t;

	gpu_topo_scan(X->sysfs_root, GPU_TOPO_CUDA, &t);
	if (t.order != GPU_ORDER_CUDA)
		lab_note(X->L, "GPU order: %s", t.order_note);
	g = gpu_topo_device(&t, dev);
	if (!g) {
		*reason = SKIP_NO_CUDA_DEVICE;
		if (t.order == GPU_ORDER_CUDA)
			snprintf(detail, len, "no CUDA device %d (CUDA lists %d)", dev, t.n);
		else
			snprintf(detail, len, "no NVIDIA PCI device %d in %s/bus/pci (%d found)",
				 dev, X->sysfs_root, t.n);
		return -1;
	}
	bdf = g->bdf;
	node = g->numa_node;
	lab_fact_str(X->L, "gpu_bdf", bdf);
	lab_fact_num(X->L, "gpu_numa_node", node, "");
	*reason = SKIP_UNKNOWN_TOPOLOGY;
	if (node == -1)
		snprintf(detail, len, "GPU %s NUMA node -1 (typical in VMs)", bdf);
	else if (node < 0)
		snprintf(detail, len, "GPU %s has no numa_node in sysfs", bdf);
	else if (!is_mem_node(X, node))
		snprintf(detail, len, "sysfs (%s) puts GPU %s on node %d, but libnuma has no memory node %d here",
			 X->sysfs_root, bdf, node, node);
	else
		return node;
	return -1;
}

/* A memory node with CPUs other than not_node, or -1. */
static int other_cpu_node(const struct numa_lab *X, int not_node)
{
	int i;

	for (i = 0; i < X->nmem; i++)
		if (X->mem_node[i] != not_node && first_cpu_of(X->mem_node[i]) >= 0)
			return X->mem_node[i];
	return -1;
}

/* A memory node other than not_node (CPUs or not), or -1. */
static int other_mem_node(const struct numa_lab *X, int not_node)
{
	int i;

	for (i = 0; i < X->nmem; i++)
		if (X->mem_node[i] != not_node)
			return X->mem_node[i];
	return -1;
}

/*
 * The claim needs a second memory node, and one with CPUs besides node
 * `besides` if besides >= 0: skip it here.
 */
static void skip_one_node(struct numa_lab *X, const char *id, int besides)
{
	if (X->nmem < 2 || besides < 0)
		claim_skip(X->L, id, SKIP_SINGLE_NUMA_NODE, "%d memory node, need 2", X->nmem);
	else
		claim_skip(X->L, id, SKIP_SINGLE_NUMA_NODE,
			   "%d memory nodes, but none besides node %d has CPUs this process may use",
			   X->nmem, besides);
}

/* ------------------------------------------------------------------------ */
/* Automatic NUMA balancing: pages may move between the touch and the check  */

/* Pages automatic NUMA balancing has migrated (/proc/vmstat, whole system). */
static long long pages_migrated(void)
{
	FILE *f = fopen("/proc/vmstat", "re");
	char key[64];
	long long v, n = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "numa_pages_migrated"))
			n = v;
	fclose(f);
	return n;
}

/* The note's tail when balancing is on (empty otherwise). */
static const char *moved_note(const struct numa_lab *X, long long moved, char *buf, size_t len)
{
	buf[0] = '\0';
	if (X->balancing > 0)
		snprintf(buf, len, "; NUMA balancing on, %lld pages migrated meanwhile", moved);
	return buf;
}

/*
 * Decide a placement claim on `off` pages off their node (as_fraction:
 * on the fraction of npages still in place, 04.6).  With balancing on, the
 * `moved` pages it migrated while the claim ran may be off their node
 * because of it, not of the policy under test: the interval reaches down to
 * off - moved, so such a claim is inconclusive rather than failed.
 */
static void check_placement(struct numa_lab *X, const char *id, long off, long npages,
			    long long moved, int as_fraction)
{
	double lo = X->balancing > 0 && moved > 0 ? (off > moved ? (double)(off - moved) : 0) : (double)off;
	struct lab_est e = lab_est_exact((double)off);

	if (!as_fraction && lo == (double)off) {
		claim_check_int(X->L, id, off);
		return;
	}
	e.lo = lo;
	if (as_fraction) {
		e = lab_est_exact((double)(npages - off) / (double)npages);
		e.hi = ((double)npages - lo) / (double)npages;
	}
	claim_check(X->L, id, e);
}

/* ------------------------------------------------------------------------ */
/* Claims                                                                    */

static void check_latency_ratio(struct numa_lab *X, const struct lab_stats *small,
				const struct lab_stats *large)
{
	char sz[32];

	lab_fmt_size(X->claim_ws, sz, sizeof(sz));
	lab_fact_num(X->L, "latency_32KiB_ns", small->median, "ns");
	lab_fact_num(X->L, X->claim_ws == 256 * MiB ? "latency_256MiB_ns" :
		     "latency_large_ns", large->median, "ns");
	lab_note(X->L, "local latency: %.2f ns at 32 KiB, %.1f ns at %s", small->median,
		 large->median, sz);
	claim_note(X->L, "%.1f ns at %s vs %.2f ns at 32 KiB%s", large->median, sz,
		   small->median, lab_options(X->L)->quick ?
		   " (--quick: large point 64 MiB, not 256 MiB)" : "");
	claim_check_ratio(X->L, "04.1", large, small);
}

/* 04.2 and 04.3: remote over local, latency and bandwidth. */
static void check_remote(struct numa_lab *X, int remote, const struct lab_stats *lat_l,
			 const struct lab_stats *lat_r, const struct lab_stats *bw_l,
			 const struct lab_stats *bw_r)
{
	int dist = 0, i;
	char sab[96] = "";

	for (i = 0; X->topo_ok && i < X->topo.nnodes; i++)
		if (X->topo.node[i].id == X->cpu_node)
			dist = X->topo.node[i].distance[remote];
	if (LAB_SABOTAGED)
		snprintf(sab, sizeof(sab), " (sabotage: node %d's buffers placed on node %d)",
			 remote, backing_node(X->cpu_node, remote));
	claim_note(X->L, "CPU on node %d; %.0f ns local vs %.0f ns on node %d (SLIT distance %d)%s; doc: 121 vs 186 ns",
		   X->cpu_node, lat_l->median, lat_r->median, remote, dist, sab);
	claim_check_ratio(X->L, "04.2", lat_r, lat_l);
	claim_note(X->L, "%.1f GB/s local vs %.1f GB/s on node %d%s; doc: 17.7 vs 14.3 GB/s",
		   bw_l->median, bw_r->median, remote, sab);
	claim_check_ratio(X->L, "04.3", bw_r, bw_l);
}

/* Latency sweeps and read bandwidth on every memory node: 04.1-04.3. */
static void check_latency_bandwidth(struct numa_lab *X)
{
	struct lab_stats *st = (struct lab_stats *)calloc(6, sizeof(*st));
	struct lab_stats *lat_s = &st[0], *lat_l = &st[1], *lat_r = &st[2];
	struct lab_stats *bw_l = &st[3], *bw_r = &st[4], *tmp = &st[5];
	int i, remote = -1;

	if (!st)
		lab_error(X->L, "out of memory");
	latency_sweep(X, X->cpu_node, lat_s, lat_l);
	check_latency_ratio(X, lat_s, lat_l);
	read_bandwidth(X, X->cpu_node, bw_l);
	lab_fact_num(X->L, "read_bw_local_GBps", bw_l->median, "GB/s");
	lab_note(X->L, "single-thread read bandwidth, local: %.1f GB/s", bw_l->median);
	for (i = 1; i < X->nmem; i++) {
		int node = X->mem_node[i];

		latency_sweep(X, node, tmp, remote < 0 ? lat_r : tmp);
		read_bandwidth(X, node, remote < 0 ? bw_r : tmp);
		lab_note(X->L, "node %d: latency %.1f ns, read %.1f GB/s", node,
			 (remote < 0 ? lat_r : tmp)->median, (remote < 0 ? bw_r : tmp)->median);
		if (remote < 0)
			remote = node;
	}
	if (remote < 0) {
		skip_one_node(X, "04.2", -1);
		skip_one_node(X, "04.3", -1);
	} else {
		lab_fact_num(X->L, "read_bw_remote_GBps", bw_r->median, "GB/s");
		check_remote(X, remote, lat_l, lat_r, bw_l, bw_r);
	}
	free(st);
}

/*
 * 04.4: mapped here, written from another node: no page off the writer's.
 * 04.6: written here, then read from another node: still here.
 * The sabotage builds write from the wrong node: 04.4's writer stays on
 * the mapping thread's node, 04.6's writes only after it has moved.
 */
static void check_first_touch(struct numa_lab *X)
{
	int here = X->cpu_node, other = other_cpu_node(X, here);
	long off, npages;
	long long moved;
	char mv[96];

	if (other < 0) {
		skip_one_node(X, "04.4", here);
		skip_one_node(X, "04.6", here);
		return;
	}
	moved = pages_migrated();
	off = first_touch(X, LAB_SABOTAGED ? here : other, -1, other, &npages);
	moved = pages_migrated() - moved;
	claim_note(X->L, "mapped by a thread on node %d, written from node %d: %ld of %ld pages off node %d%s",
		   here, LAB_SABOTAGED ? here : other, off, npages, other,
		   moved_note(X, moved, mv, sizeof(mv)));
	check_placement(X, "04.4", off, npages, moved, 0);

	moved = pages_migrated();
	off = first_touch(X, LAB_SABOTAGED ? other : here, other, here, &npages);
	moved = pages_migrated() - moved;
	claim_note(X->L, "written from node %d, then read from node %d: %ld of %ld pages still on node %d%s",
		   LAB_SABOTAGED ? other : here, other, npages - off, npages, here,
		   moved_note(X, moved, mv, sizeof(mv)));
	check_placement(X, "04.6", off, npages, moved, 1);
}

/*
 * 04.5 a worker bound to the GPU's node; 04.7 running elsewhere, memory
 * bound to the GPU's node.  The sabotage builds bind the memory to a node
 * other than the GPU's.
 */
static void check_gpu_binding(struct numa_lab *X)
{
	const char *reason = NULL;
	char detail[512];
	int g = gpu_node(X, &reason, detail, sizeof(detail));
	int other, mem;
	long off;
	long long moved;
	char mv[96];

	if (g < 0) {
		claim_skip(X->L, "04.5", reason, "%s", detail);
		claim_skip(X->L, "04.7", reason, "%s", detail);
		return;
	}
	lab_note(X->L, "GPU is on NUMA node %d", g);
	other = other_mem_node(X, g);
	if (other < 0) {
		/* one node: every page is on the GPU's node whatever is bound */
		skip_one_node(X, "04.5", -1);
		skip_one_node(X, "04.7", -1);
		return;
	}
	mem = LAB_SABOTAGED ? other : g;
	moved = pages_migrated();
	off = bound_placement(X, g, mem, g);
	moved = pages_migrated() - moved;
	claim_note(X->L, "worker's CPU bound to the GPU's node %d, memory to node %d%s", g, mem,
		   moved_note(X, moved, mv, sizeof(mv)));
	check_placement(X, "04.5", off, 0, moved, 0);
	other = other_cpu_node(X, g);
	if (other < 0) {
		skip_one_node(X, "04.7", g);
		return;
	}
	mem = LAB_SABOTAGED ? other : g;
	moved = pages_migrated();
	off = bound_placement(X, other, mem, g);
	moved = pages_migrated() - moved;
	claim_note(X->L, "worker runs on node %d, memory bound to node %d (the GPU's: %d)%s",
		   other, mem, g, moved_note(X, moved, mv, sizeof(mv)));
	check_placement(X, "04.7", off, 0, moved, 0);
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */

/* Memory nodes both sysfs (when readable) and libnuma agree on. */
static void find_mem_nodes(struct numa_lab *X)
{
	int id, i, max = numa_max_node();

	for (id = 0; id <= max && id < TOPO_MAX_NODES; id++) {
		int in_sysfs = !X->topo_ok;

		for (i = 0; i < X->topo.nnodes; i++)
			if (X->topo.node[i].id == id && X->topo.node[i].mem_total > 0)
				in_sysfs = 1;
		if (in_sysfs && numa_bitmask_isbitset(numa_all_nodes_ptr, id) &&
		    numa_node_size64(id, NULL) > 0)
			X->mem_node[X->nmem++] = id;
	}
	if (X->topo_ok && X->topo.nmem_nodes != X->nmem)
		lab_note(X->L, "sysfs (%s) lists %d memory nodes, libnuma can use %d here: the claims use the %d",
			 X->sysfs_root, X->topo.nmem_nodes, X->nmem, X->nmem);
}

/* Run on the first memory node that has a CPU for us; move it to the front. */
static void pick_cpu_node(struct numa_lab *X)
{
	int i;

	for (i = 0; i < X->nmem; i++) {
		if (numa_run_on_node(X->mem_node[i]) == 0) {
			X->cpu_node = X->mem_node[i];
			X->mem_node[i] = X->mem_node[0];
			X->mem_node[0] = X->cpu_node;
			return;
		}
	}
	lab_error(X->L, "no memory node has a CPU this process may run on");
}

static void pick_sizes(struct numa_lab *X)
{
	const struct lab_opts *o = lab_options(X->L);

	X->max_ws = o->quick ? 64 * MiB : 512 * MiB;
	X->claim_ws = o->quick ? 64 * MiB : 256 * MiB;
	X->sample_s = o->quick ? 0.008 : 0.015;
	X->touch_bytes = o->quick ? 16 * MiB : 64 * MiB;
	X->bw_bytes = o->size_given || !o->quick ? o->size : 256 * MiB;
	X->bw_bytes &= ~31ULL; /* check_opts has refused less than MIN_BW_BYTES */
}

/* Enough free memory on the CPU's node for the largest buffer? */
static void check_free_memory(struct numa_lab *X)
{
	uint64_t chain = X->max_ws + X->max_ws / LINE_BYTES * sizeof(uint32_t);
	uint64_t need = (chain > X->bw_bytes ? chain : X->bw_bytes) + 64 * MiB;
	long long free_b = 0;
	char a[32], b[32];
	int i;

	for (i = 0; i < X->nmem; i++) {
		numa_node_size64(X->mem_node[i], &free_b);
		if ((uint64_t)free_b < need)
			lab_skip(X->L, SKIP_NOT_ENOUGH_MEMORY, "node %d has %s free, need %s",
				 X->mem_node[i], lab_fmt_size((uint64_t)free_b, a, sizeof(a)),
				 lab_fmt_size(need, b, sizeof(b)));
	}
}

static void report_topology(struct numa_lab *X)
{
	char line[1024] = "";
	size_t off = 0;
	int i, j;

	lab_fact_num(X->L, "numa_nodes", X->topo_ok ? X->topo.nnodes : X->nmem, "");
	lab_fact_num(X->L, "numa_memory_nodes", X->nmem, "");
	lab_fact_num(X->L, "cpu_node", X->cpu_node, "");
	/* 0 off, 1 on (pages may move to the node that uses them), 2/3 tiering; absent: -1 */
	lab_fact_num(X->L, "numa_balancing", (double)X->balancing, "");
	for (i = 0; X->topo_ok && i < X->topo.nnodes && off < sizeof(line) - 64; i++) {
		const struct numa_node_info *n = &X->topo.node[i];

		off += (size_t)snprintf(line + off, sizeof(line) - off, "%snode%d:",
					i ? "; " : "", n->id);
		for (j = 0; j < X->topo.nnodes && off < sizeof(line) - 16; j++)
			off += (size_t)snprintf(line + off, sizeof(line) - off, " %d",
						n->distance[X->topo.node[j].id]);
	}
	if (off)
		lab_fact_str(X->L, "numa_distances", line);
	lab_note(X->L, "%d NUMA node(s), %d with memory usable here; CPU on node %d; distances: %s; numa_balancing %ld",
		 X->topo_ok ? X->topo.nnodes : X->nmem, X->nmem, X->cpu_node,
		 off ? line : "unknown", X->balancing);
}

static void setup(struct numa_lab *X, struct lab *L)
{
	const char *root = getenv("DMALAB_SYSFS_ROOT");

	X->L = L;
	X->sysfs_root = root && *root ? root : "/sys";
	if (numa_available() < 0)
		lab_skip(L, SKIP_NUMA_UNAVAILABLE, "numa_available() = -1: no NUMA support in this kernel");
	X->topo_ok = numa_topo_read(X->sysfs_root, &X->topo) == 0;
	if (sysfs_read_long("/proc/sys/kernel/numa_balancing", &X->balancing))
		X->balancing = -1;
	if (!X->topo_ok)
		lab_note(L, "cannot read the NUMA topology under %s (%s): using libnuma alone",
			 X->sysfs_root, strerror(errno));
	find_mem_nodes(X);
	if (X->nmem == 0)
		lab_skip(L, SKIP_NUMA_UNAVAILABLE, "libnuma sees no memory node");
	pick_cpu_node(X);
	pick_sizes(X);
	check_free_memory(X);
	rng_seed(X, lab_options(L)->seed);
}

static void run(struct lab *L)
{
	struct numa_lab *X = (struct numa_lab *)calloc(1, sizeof(*X));

	if (!X)
		lab_error(L, "out of memory");
	setup(X, L);
	report_topology(X);
	check_latency_bandwidth(X);
	check_first_touch(X);
	check_gpu_binding(X);
	free(X);
}

LAB_MAIN(spec, run)
