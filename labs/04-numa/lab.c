/*
 * lab-04: NUMA - how much slower is memory far from the CPU, and where do
 * a worker's pages land (ch1 Q5 and E3)?
 *
 * Latency: a random pointer chase (chase.h) over working sets from 4 KiB
 * up; 04.1 compares its 256 MiB point with its 32 KiB point (--chase-only
 * --size N: N alone, beside multichase).  Bandwidth: one thread summing
 * every word in address order (seqread.h, as many lines in flight as
 * lmbench's bw_mem rd).  Both with the CPU on one node and the memory on
 * each node in turn (04.2, 04.3: remote over local).  Placement: first
 * touch (04.4, 04.6) and binding to the GPU's node (04.5, 04.7), read back
 * with move_pages(); on one node every page lands on node 0 whatever the
 * code does, so they skip.  DMALAB_SYSFS_ROOT replaces "/sys" for the
 * topology (fixtures: GPUs then in bus order); placement uses libnuma's nodes.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "chase.h"
#include "gpu_topo.h"
#include "lab.h"
#include "need.h"
#include "numa_place.h"
#include "procfs.h"
#include "seqread.h"

#define SMALL_WS (32 * KiB)	/* fits in L1d: the fast end of 04.1 */
#define MIN_BW_BYTES (1 * MiB)	/* --size: the bandwidth test's buffer */
#define MIN_CHASE_BYTES (64 * MiB) /* --chase-only --size: past the caches, as 04.1/04.2 want */
#define MOVED_READ_PASSES 4	/* 04.6: reads of the buffer after the move */
#define HUGE_SPAN (2 * MiB)	/* what one transparent huge page covers (x86-64 PMD) */

/*
 * What `make selftest` breaks, in one place: the sabotage build gives each
 * knob its broken value, or, asked for one claim, that claim's knobs alone
 * (labs/README.md, section 6).  Each knob is a mechanism a claim rests on.
 */
static struct knobs {
	int random_chain;          /* 04.1: the chase jumps between cache lines in a shuffled
				    * order, so neither the caches nor the prefetcher help */
	int far_chain;             /* 04.2: the remote node's chain buffer is on that node */
	int far_read;              /* 04.3: the remote node's read buffer is on that node */
	int write_from_other_node; /* 04.4: the first write comes from another node's CPU */
	int bind_worker_to_gpu;    /* 04.5: the bound worker's memory is on the GPU's node */
	int write_before_move;     /* 04.6: the worker writes its buffer before it moves */
	int bind_mover_to_gpu;     /* 04.7: the worker elsewhere binds memory to the GPU's node */
} K = {
	.random_chain = 1,
	.far_chain = 1,
	.far_read = 1,
	.write_from_other_node = 1,
	.bind_worker_to_gpu = 1,
	.write_before_move = 1,
	.bind_mover_to_gpu = 1,
};

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.random_chain, 0, "04.1"),
	LAB_KNOB(K.far_chain, 0, "04.2"),
	LAB_KNOB(K.far_read, 0, "04.3"),
	LAB_KNOB(K.write_from_other_node, 0, "04.4"),
	LAB_KNOB(K.bind_worker_to_gpu, 0, "04.5"),
	LAB_KNOB(K.write_before_move, 0, "04.6"),
	LAB_KNOB(K.bind_mover_to_gpu, 0, "04.7"),
	{ NULL },
};

/* Broken, the chain walks consecutive 8-byte words in address order. */
#define CHAIN_STRIDE (K.random_chain ? 64 : sizeof(void *))
#define CHAIN_ORDER (K.random_chain ? CHASE_RANDOM : CHASE_SEQUENTIAL)
/* Broken (far == 0), a buffer meant for `node` stays on the CPU's own node. */
#define BACKING_NODE(X, node, far) ((far) ? (node) : (X)->cpu_node)

static const struct claim_spec claims[] = {
	{ "04.1", "ch1.Q5 ch2.S7",
	  "a random pointer chase defeats the caches: latency at 256 MiB is several times the "
	  "latency at 32 KiB",
	  "ch1 NUMA section: a random chase over 256 MiB costs 121 ns a load, a DRAM access; ch2 "
	  "sec. 7 ladder puts the CPU caches far above DRAM",
	  "R5 'several times' -> ratio >= 3", WANT_RATIO_GE(3),
	  "the chain walks consecutive 8-byte words in address order: most loads hit a line "
	  "already in L1 and the prefetcher streams the rest" },
	{ "04.2", "ch1.Q5",
	  "remote-node memory has about 50 % more load latency than local (121 vs 186 ns)",
	  "ch1 NUMA section: CPU on node 0, random-access latency 121 ns with memory on node 0, "
	  "186 ns on node 1: about +50 %",
	  "R3 +50 % -> remote/local latency near 1.5 +- 0.125", WANT_NEAR_ABS(1.5, 0.125, "x"),
	  "the 'remote' chain buffer is placed on the CPU's own node: no far memory to reach" },
	{ "04.3", "ch1.Q5",
	  "remote-node memory has about 20 % less single-thread read bandwidth than local (17.7 vs "
	  "14.3 GB/s)",
	  "ch1 NUMA section: one thread reading sequentially gets 17.7 GB/s from node 0 and 14.3 "
	  "GB/s from node 1: about -20 %",
	  "R3 -20 % -> remote/local bandwidth near 0.8 +- 0.05", WANT_NEAR_ABS(0.8, 0.05, "x"),
	  "the 'remote' read buffer is placed on the CPU's own node: no far memory to read" },
	{ "04.4", "ch1.E3",
	  "first touch: a buffer mapped by a thread on one node and first written from a CPU of "
	  "another node lands on the writer's node",
	  "ch1 NUMA section: Linux's default policy puts a page on the node of the CPU that writes "
	  "it first",
	  "R11 behaviour -> no page off the writer's node", WANT_INT(0, "pages"),
	  "the pages are first written from a CPU of the mapping thread's node, so they land on "
	  "the wrong node" },
	{ "04.5", "ch1.E3",
	  "a worker bound (CPU and memory) to the GPU's NUMA node gets its buffers on that node",
	  "ch1 NUMA section and E3's fix: bind each GPU worker's CPUs and memory to its GPU's node "
	  "(numactl --cpunodebind/--membind, vLLM --numa-bind)",
	  "R11 behaviour -> no page off the GPU's node", WANT_INT(0, "pages"),
	  "the worker's memory is bound to a node other than the GPU's (its CPU stays on the GPU's "
	  "node)" },
	{ "04.6", "ch1.E3",
	  "first touch stays: a worker that filled its buffer on one node and then runs on another "
	  "still has (nearly) all of it on the first node",
	  "ch1 NUMA section: a process that fills its buffers on node 0 and is later scheduled on "
	  "node 1 has all of them remote; automatic NUMA balancing migrates them only slowly",
	  "R9 'all', hedged by the slow balancing -> >= 80 % still on the first node",
	  WANT_GE(0.8, "fraction"),
	  "the buffer is first written only after the worker has moved, so its pages are on the "
	  "new node" },
	{ "04.7", "ch1.E3",
	  "memory binding beats first touch: a worker running on another node but bound to the "
	  "GPU's node gets its buffers on the GPU's node",
	  "ch1 E3's fix: bind the worker's memory (numactl --membind) before it allocates, since "
	  "first touch would put pages where it runs",
	  "R11 behaviour -> no page off the GPU's node", WANT_INT(0, "pages"),
	  "the worker's memory is bound to the node it runs on instead of the GPU's" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static int opt_chase_only, opt_sweep;
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_FLAG("chase-only", opt_chase_only,
		     "the pointer chase alone (04.1, 04.2); --size: its one working set"),
	LAB_OPT_FLAG("sweep", opt_sweep, "the latency staircase at every power of two, to "
		     "512 MiB or --size (default: x4)"),
	{ NULL }
};

/* spec.check_opts: --size's floor is the chase's or the bandwidth test's. */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);

	if (!o->size_given)
		return 0;
	return opt_chase_only ?
		lab_size_floor(L, "size", o->size, MIN_CHASE_BYTES,
				     " for the chase's large point") :
		lab_size_floor(L, "size", o->size, MIN_BW_BYTES, " for the bandwidth test");
}

static const struct lab_spec spec = {
	.id = "04",
	.title = "NUMA: pointer chase, bandwidth, first touch",
	.topic = "how much slower is memory far from the CPU, and where do pages land",
	.timeout_s = 120,
	.needs = { .numa_nodes = 2, .numa_claims = "04.2 04.3 04.4 04.5 04.6 04.7" }, /* no CUDA */
	.claims = claims,
	.extra_opts = extra_opts,
	.default_size = 1 * GiB,
	.quick_size = 256 * MiB, /* the bandwidth test's; the chase reads --size only if given */
	.default_iters = 7,
	.check_opts = check_opts,
	.knobs = knobs,
};

struct numa_lab {
	struct lab *L;
	const char *sysfs_root;
	struct numa_topo topo;
	int topo_ok;
	int cpu_node;                  /* the measuring thread runs here */
	int mem_node[TOPO_MAX_NODES];  /* usable memory nodes, cpu_node first */
	int nmem;
	uint64_t max_ws, claim_ws;     /* bytes: sweep top, 04.1's large point */
	int chase_only, one_size, sweep; /* --chase-only; with --size: claim_ws alone; --sweep */
	uint64_t bw_bytes;             /* bytes read per bandwidth sample */
	uint64_t touch_bytes;          /* buffer of the placement claims */
	double sample_s;               /* aimed duration of one latency sample */
	long balancing;                /* /proc/sys/kernel/numa_balancing, -1 absent */
};

/* ------------------------------------------------------------------------ */
/* Latency: the pointer chase                                                */

/* Names that outlive the call (stats and series keep the pointer), each with
 * its working set, so the stopping rule's notes say which point they are about. */
static const char *lat_stats_name(uint64_t ws, uint64_t claim_ws, int local)
{
	static char kept[64][40];
	static int nkept;
	const char *where = local ? "local" : "remote";
	char name[40];
	int i;

	if (ws == SMALL_WS)
		return local ? "latency_32KiB_local" : "latency_32KiB_remote";
	if (ws == claim_ws)
		return local ? "latency_large_local" : "latency_large_remote";
	if (ws % GiB == 0)
		snprintf(name, sizeof(name), "latency_%lluGiB_%s", (unsigned long long)(ws / GiB),
			 where);
	else if (ws % MiB == 0)
		snprintf(name, sizeof(name), "latency_%lluMiB_%s", (unsigned long long)(ws / MiB),
			 where);
	else
		snprintf(name, sizeof(name), "latency_%lluKiB_%s", (unsigned long long)(ws / KiB),
			 where);
	for (i = 0; i < nkept; i++)
		if (!strcmp(kept[i], name))
			return kept[i];
	if (nkept == (int)(sizeof(kept) / sizeof(kept[0])))
		return local ? "latency_local" : "latency_remote";
	memcpy(kept[nkept], name, sizeof(name));
	return kept[nkept++];
}

/* The working set after ws (0: the first; 0 after the last): 4 KiB to max_ws
 * by x4 and 32 KiB (--sweep: x2), or (one_size) 32 KiB and claim_ws alone. */
static uint64_t next_ws(const struct numa_lab *X, uint64_t ws)
{
	uint64_t next = !ws ? 4 * KiB : ws * (X->sweep || ws == SMALL_WS ? 2 : 4);

	if (X->one_size)
		return !ws ? SMALL_WS : ws == SMALL_WS ? X->claim_ws : 0;
	if (ws < SMALL_WS && next > SMALL_WS)
		next = SMALL_WS;
	if (next <= X->max_ws)
		return next;
	return ws < X->max_ws ? X->max_ws : 0; /* a --size off the ladder */
}

/*
 * The working-set sweep with memory on `node`: one series point per size,
 * in ns per load; the 32 KiB and the claim-size points go to small, large.
 * The buffer keeps the default pages: TLB misses are part of the cost.
 */
static void latency_sweep(struct numa_lab *X, int node, struct lab_stats *small,
			  struct lab_stats *large)
{
	static char series[TOPO_MAX_NODES][24]; /* kept by the record, as the names above */
	struct lab_measure_cfg cfg = { 1, 0, 0.10, 0 };
	void *buf = numa_map_on_node_or_die(X->L, X->max_ws,
					    BACKING_NODE(X, node, K.far_chain), 0);
	struct lab_stats other, *s;
	uint64_t ws;

	snprintf(series[node], sizeof(series[node]), "latency_node%d", node);
	for (ws = next_ws(X, 0); ws; ws = next_ws(X, ws)) {
		s = ws == SMALL_WS ? small : ws == X->claim_ws ? large : &other;
		if (!chase_build(buf, ws, CHAIN_STRIDE, CHAIN_ORDER, lab_options(X->L)->seed))
			lab_error_errno(X->L, "chase_build");
		lab_progress(X->L, MSG("04.progress-latency", "latency, memory on node %d: %llu "
				       "KiB"), node,
			     (unsigned long long)(ws / KiB));
		chase_time(X->L, lat_stats_name(ws, X->claim_ws, node == X->cpu_node), buf,
			   X->sample_s, &cfg, s, NULL);
		lab_series_point(X->L, series[node], "bytes", (double)ws, s);
	}
	buf_free(buf);
}

/* ------------------------------------------------------------------------ */
/* Bandwidth: one thread reading                                             */

/* GB/s of one thread reading memory on `node` (seqread_rate; the median, bw_mem's
 * statistic too).  Huge pages only to keep the setup short (faulting 1 GiB in
 * 4 KiB pages takes seconds in a VM). */
static void read_bandwidth(struct numa_lab *X, int node, struct lab_stats *rate)
{
	void *buf = numa_map_on_node_or_die(X->L, X->bw_bytes, BACKING_NODE(X, node, K.far_read),
					    BUF_HUGE);
	char sz[32];

	lab_progress(X->L, MSG("04.progress-read", "read bandwidth, memory on node %d: %s"), node,
		     lab_fmt_size(X->bw_bytes, sz, sizeof(sz)));
	seqread_rate(X->L, node == X->cpu_node ? "read_local" : "read_remote", buf, X->bw_bytes,
		     NULL, rate);
	/* every node's samples reach the JSON, also where 04.3 skips */
	lab_series_point(X->L, "read_bandwidth", "node", node, rate);
	buf_free(buf);
}

/* The local read rate, median and best; the buffer against the last-level cache. */
static void report_read(struct numa_lab *X, const struct lab_stats *bw)
{
	uint64_t llc = seqread_llc_bytes("/sys", sched_getcpu() > 0 ? sched_getcpu() : 0);
	char sz[32];

	lab_fact_num(X->L, "read_bw_local_GBps", bw->median, "GB/s");
	lab_fact_num(X->L, "read_bw_local_best_GBps", bw->max, "GB/s");
	lab_fact_str(X->L, "read_kernel", seqread_kernel());
	lab_fact_num(X->L, "llc_bytes", (double)llc, "bytes");
	lab_fmt_size(X->bw_bytes, sz, sizeof(sz));
	/* two sentences, not an English fragment as an argument (lang.h) */
	if (llc)
		lab_note(X->L, MSG("04.read-local", "single-thread read, local: %.1f GB/s median, "
			"%.1f best, %d passes over %s, %.0fx the last-level cache, %s loads"),
			bw->median, bw->max, bw->n, sz, (double)X->bw_bytes / (double)llc,
			seqread_kernel());
	else
		lab_note(X->L, MSG("04.read-local-nollc", "single-thread read, local: %.1f GB/s "
			"median, %.1f best, %d passes over %s, the last-level cache's size "
			"unknown, "
			"%s loads"), bw->median, bw->max, bw->n, sz, seqread_kernel());
}

/* ------------------------------------------------------------------------ */
/* Placement: a worker thread writes a buffer, move_pages says where it is   */

struct placement {
	char *buf;
	uint64_t len;
	int cpu_node, mem_node;  /* 04.5, 04.7: where bind_worker binds its CPUs and memory */
	int read_node;           /* after the write, move there and read; -1: stay */
	int write_cpu, read_cpu; /* where it wrote and read */
	int err;                 /* errno of a failed move, 0 if fine */
};

static void place_worker(void *arg)
{
	struct placement *p = (struct placement *)arg;
	uint64_t sum = 0, pass;

	/* EXERCISE 04.first-touch grades 04.4 04.6: write every page of p->buf (p->len
	 * bytes) from this worker thread, which runs on the node its pages should land on:
	 * the first write of a page places it on the writer's node */
	memset(p->buf, 0xa5, p->len);
	/* STUB
	// no page written yet: none is placed, so none is on the writer's node
	END STUB */
	/* END EXERCISE */
	p->write_cpu = sched_getcpu();
	if (p->read_node < 0)
		return;
	if (numa_run_on_node(p->read_node)) {
		p->err = errno;
		return;
	}
	for (pass = 0; pass < MOVED_READ_PASSES; pass++)
		sum += seqread_sum(p->buf, p->len); /* len: a multiple of 2 MiB */
	lab_sink(sum);
	p->read_cpu = sched_getcpu();
}

/* A worker that binds itself to the node its GPU is on, then writes its buffer
 * (04.5, 04.7).  It starts on a node that is not the one its pages should land on. */
static void bind_worker(void *arg)
{
	struct placement *p = (struct placement *)arg;

	/* EXERCISE 04.bind grades 04.5 04.7: before this worker first writes its buffer,
	 * bind its CPUs to node p->cpu_node (numa_run_on_node) and its memory to node
	 * p->mem_node alone (set_mempolicy with MPOL_BIND and a node mask: libnuma's
	 * numa_allocate_nodemask and numa_bitmask_setbit make one); then write every page
	 * of p->buf (p->len bytes).  A call that fails: its errno into p->err, and return */
	struct bitmask *mem = numa_allocate_nodemask();

	numa_bitmask_setbit(mem, (unsigned)p->mem_node);
	if (numa_run_on_node(p->cpu_node) ||
	    set_mempolicy(MPOL_BIND, mem->maskp, mem->size + 1))
		p->err = errno;
	numa_bitmask_free(mem);
	if (!p->err)
		memset(p->buf, 0xa5, p->len);
	/* STUB
	memset(p->buf, 0xa5, p->len); // written first: each page lands where this thread runs
	if (numa_run_on_node(p->cpu_node)) // bound after the first touch: too late
		p->err = errno;
	END STUB */
	/* END EXERCISE */
	p->write_cpu = sched_getcpu();
}

static int other_node(const struct numa_lab *X, int not_node, int need_cpu);

/*
 * This thread maps a buffer; a worker on run_node, memory bound to mem_node
 * (-1: first touch), writes it first and, if read_node >= 0, moves there
 * and reads it.  Bound memory (mem_node >= 0): the worker starts on a node
 * with CPUs other than want_node and binds itself (bind_worker), so that a
 * write before the binding lands off want_node.  Returns the pages off
 * want_node (*npages: all).  Aligned to a huge page: with THP "always", a
 * fault just below it (glibc writing the new thread's descriptor) would
 * bring in a huge page over its head.
 */
static long place(struct numa_lab *X, int run_node, int mem_node, int read_node,
		  int want_node, long *npages)
{
	struct placement p = { NULL, X->touch_bytes, run_node, mem_node, read_node, -1, -1, 0 };
	const char *failed;
	long off;
	int rc;

	p.buf = (char *)buf_map_or_die(X->L, p.len, HUGE_SPAN, 0);
	if (mem_node >= 0)
		rc = numa_run_worker(other_node(X, want_node, 1), -1, bind_worker, &p, &failed);
	else
		rc = numa_run_worker(run_node, -1, place_worker, &p, &failed);
	if (rc || p.err)
		lab_error(X->L, "placement worker on node %d: %s: %s", run_node,
			  rc ? failed : mem_node >= 0 ? "binding itself" : "numa_run_on_node",
			  strerror(rc ? rc : p.err));
	off = numa_pages_off_node(p.buf, p.len, want_node, npages);
	if (off < 0)
		lab_error_errno(X->L, "move_pages");
	buf_free(p.buf);
	if (mem_node >= 0)
		lab_note(X->L, MSG("04.bound",
			"worker on node %d, memory bound to node %d: %ld of %ld pages on "
			 "node %d"), run_node, mem_node, *npages - off, *npages, want_node);
	else if (read_node >= 0)
		lab_note(X->L, MSG("04.first-touch-read",
			"mapped on node %d, first written from CPU %d (node %d), then read from "
			"CPU %d (node %d): %ld of %ld pages on node %d"), X->cpu_node, p.write_cpu,
			 run_node, p.read_cpu, read_node, *npages - off, *npages, want_node);
	else
		lab_note(X->L, MSG("04.first-touch",
			"mapped on node %d, first written from CPU %d (node %d): %ld of "
			 "%ld pages on node %d"), X->cpu_node, p.write_cpu, run_node,
			 *npages - off, *npages, want_node);
	return off;
}

/* ------------------------------------------------------------------------ */
/* Claims                                                                    */

/* A memory node other than not_node (with a CPU for us if need_cpu), or -1. */
static int other_node(const struct numa_lab *X, int not_node, int need_cpu)
{
	int i;

	for (i = 0; i < X->nmem; i++)
		if (X->mem_node[i] != not_node &&
		    (!need_cpu || numa_node_first_cpu(X->mem_node[i]) >= 0))
			return X->mem_node[i];
	return -1;
}

/* Skip claims a and b (b may be NULL) for want of a second memory node,
 * one with CPUs besides node `besides` if besides >= 0. */
static void skip_one_node(struct numa_lab *X, const char *a, const char *b, int besides)
{
	char why[128];

	if (X->nmem < 2 || besides < 0)
		snprintf(why, sizeof(why), "%d memory node, need 2", X->nmem);
	else
		snprintf(why, sizeof(why), "%d memory nodes, but none besides node %d has CPUs "
			 "this process may use", X->nmem, besides);
	claim_skip(X->L, a, SKIP_SINGLE_NUMA_NODE, "%s", why);
	if (b)
		claim_skip(X->L, b, SKIP_SINGLE_NUMA_NODE, "%s", why);
}

/*
 * The node of the GPU --device names, in CUDA's order (the driver API; no
 * CUDA runtime is linked), if it is a memory node here; else -1 with the
 * skip reason and detail.  Without the driver, or on a DMALAB_SYSFS_ROOT
 * tree, --device N is the N-th NVIDIA PCI device by bus id (a note says so).
 */
static int gpu_node(struct numa_lab *X, const char **reason, char *detail, size_t len)
{
	int dev = lab_options(X->L)->device, i, no_driver;
	const struct gpu_topo_dev *g;
	struct gpu_topo t;

	gpu_topo_scan(X->sysfs_root, GPU_TOPO_CUDA, &t);
	if (t.order != GPU_ORDER_CUDA) { /* why: gpu_topo's reason, after its own words */
		const char *why = strstr(t.order_note, ": ");

		lab_note(X->L, MSG("04.gpu-order", "GPU order: NVIDIA PCI devices in PCI bus "
			 "order, which need not be CUDA's: %s"), why ? why + 2 : t.order_note);
	}
	/* no driver at all: the skip word of lab-01 and every CUDA lab */
	no_driver = !t.cuda_loaded && !strcmp(X->sysfs_root, "/sys");
	*reason = no_driver ? SKIP_NO_CUDA_DRIVER : SKIP_NO_CUDA_DEVICE;
	g = gpu_topo_device(&t, dev);
	if (!g && no_driver)
		snprintf(detail, len, "no NVIDIA driver: libcuda.so.1 not found, and no NVIDIA "
			 "PCI device %d in /sys/bus/pci (%d found)", dev, t.n);
	else if (!g && t.order == GPU_ORDER_CUDA)
		snprintf(detail, len, "no CUDA device %d (CUDA lists %d)", dev, t.n);
	else if (!g)
		snprintf(detail, len, "no NVIDIA PCI device %d in %s/bus/pci (%d found)", dev,
			 X->sysfs_root, t.n);
	if (!g)
		return -1;
	lab_fact_str(X->L, "gpu_bdf", g->bdf);
	lab_fact_num(X->L, "gpu_numa_node", g->numa_node, "");
	for (i = 0; i < X->nmem; i++)
		if (X->mem_node[i] == g->numa_node)
			return g->numa_node;
	*reason = SKIP_UNKNOWN_TOPOLOGY;
	if (g->numa_node < 0)
		snprintf(detail, len, g->numa_node == -1 ? "GPU %s NUMA node -1 (typical in VMs)" :
			 "GPU %s has no numa_node in sysfs", g->bdf);
	else
		snprintf(detail, len, "sysfs (%s) puts GPU %s on node %d, but libnuma has no "
			 "memory node %d here", X->sysfs_root, g->bdf, g->numa_node, g->numa_node);
	return -1;
}

static void check_latency_ratio(struct numa_lab *X, const struct lab_stats *small,
				const struct lab_stats *large)
{
	char sz[32];

	lab_fmt_size(X->claim_ws, sz, sizeof(sz)); /* 64 MiB with --quick */
	lab_fact_num(X->L, "latency_32KiB_ns", small->median, "ns");
	lab_fact_num(X->L, X->claim_ws == 256 * MiB ? "latency_256MiB_ns" :
		     "latency_large_ns", large->median, "ns");
	lab_note(X->L, MSG("04.latency",
		"local latency: %.2f ns at 32 KiB, %.1f ns at %s"), small->median,
		 large->median, sz);
	if (X->claim_ws == 256 * MiB)
		claim_note(X->L, MSG("04.note-1", "%.1f ns at %s vs %.2f ns at 32 KiB"),
			   large->median, sz, small->median);
	else
		claim_note(X->L, MSG("04.note-1-small", "%.1f ns at %s vs %.2f ns at 32 KiB (the "
			"large point is not 256 MiB: --quick or --size)"), large->median, sz,
			small->median);
	claim_check_ratio(X->L, "04.1", large, small);
}

/* 04.2 and 04.3: remote over local, latency and bandwidth. */
static void check_remote(struct numa_lab *X, int remote, const struct lab_stats *lat_l,
			 const struct lab_stats *lat_r, const struct lab_stats *bw_l,
			 const struct lab_stats *bw_r)
{
	int dist = X->topo_ok ? numa_topo_distance(&X->topo, X->cpu_node, remote) : 0;

	if (!X->chase_only)
		lab_fact_num(X->L, "read_bw_remote_GBps", bw_r->median, "GB/s");
	/* a broken knob kept the remote node's buffers on the CPU's node: the note says so */
	if (K.far_chain)
		claim_note(X->L, MSG("04.note-2",
			"CPU on node %d; %.0f ns local vs %.0f ns on node %d (SLIT distance %d); "
			"doc: 121 vs 186 ns"), X->cpu_node, lat_l->median, lat_r->median, remote,
			   dist);
	else
		claim_note(X->L, MSG("04.note-2-sabotage",
			"CPU on node %d; %.0f ns local vs %.0f ns on node %d (SLIT distance %d) "
			"(sabotage: node %d's buffers placed on node %d); doc: 121 vs 186 ns"),
			   X->cpu_node, lat_l->median, lat_r->median, remote, dist, remote,
			   BACKING_NODE(X, remote, K.far_chain));
	claim_check_ratio(X->L, "04.2", lat_r, lat_l);
	if (X->chase_only)
		return;
	if (K.far_read)
		claim_note(X->L, MSG("04.note-3",
			"%.1f GB/s local vs %.1f GB/s on node %d; doc: 17.7 vs 14.3 GB/s"),
			   bw_l->median, bw_r->median, remote);
	else
		claim_note(X->L, MSG("04.note-3-sabotage",
			"%.1f GB/s local vs %.1f GB/s on node %d (sabotage: node %d's buffers "
			"placed on node %d); doc: 17.7 vs 14.3 GB/s"), bw_l->median, bw_r->median,
			   remote, remote, BACKING_NODE(X, remote, K.far_read));
	claim_check_ratio(X->L, "04.3", bw_r, bw_l);
}

/* 04.1-04.3: latency sweeps and read bandwidth on every memory node. */
static void check_latency_bandwidth(struct numa_lab *X)
{
	struct lab_stats lat_s, lat_l, lat_r, bw_l, bw_r, other;
	int i;

	latency_sweep(X, X->cpu_node, &lat_s, &lat_l);
	check_latency_ratio(X, &lat_s, &lat_l);
	if (!X->chase_only) {
		read_bandwidth(X, X->cpu_node, &bw_l);
		report_read(X, &bw_l);
	}
	/* the first other node decides 04.2/04.3; every node goes to the record */
	for (i = 1; i < X->nmem; i++) {
		struct lab_stats *lat = i == 1 ? &lat_r : &other, *bw = i == 1 ? &bw_r : &other;

		latency_sweep(X, X->mem_node[i], &other, lat);
		lab_note(X->L, MSG("04.node-latency",
			"node %d: latency %.1f ns"), X->mem_node[i], lat->median);
		if (X->chase_only)
			continue;
		read_bandwidth(X, X->mem_node[i], bw);
		lab_note(X->L, MSG("04.node-read",
			"node %d: read %.1f GB/s"), X->mem_node[i], bw->median);
	}
	if (X->nmem > 1)
		check_remote(X, X->mem_node[1], &lat_l, &lat_r, &bw_l, &bw_r);
	else
		skip_one_node(X, "04.2", X->chase_only ? NULL : "04.3", -1);
}

/* What place() left where the claim wants it: the pages off want_node of
 * all, and the pages NUMA balancing (/proc/vmstat) migrated meanwhile. */
struct placed {
	long npages, off;
	long long moved;
};

static void place_counted(struct numa_lab *X, int run_node, int mem_node, int read_node,
			  int want_node, struct placed *p)
{
	p->moved = numa_pages_migrated(NULL);
	p->off = place(X, run_node, mem_node, read_node, want_node, &p->npages);
	p->moved = numa_pages_migrated(NULL) - p->moved;
}

/*
 * Claim `id` on a placement its caller has described in the claim's note:
 * the pages off the wanted node, or for a worker that moves (04.6, stays)
 * the fraction still on it.  Pages NUMA balancing migrated meanwhile may be
 * off for that reason, not the policy's: the interval reaches down to off -
 * moved (inconclusive, not failed).
 */
static void decide_placement(struct numa_lab *X, const char *id, const struct placed *p,
			     int stays)
{
	long off = p->off, npages = p->npages, lo = off;
	struct lab_est e;

	if (X->balancing > 0) {
		lo = p->moved > 0 ? (off > p->moved ? off - (long)p->moved : 0) : off;
		claim_note_add(X->L, MSG("04.note-balancing",
			"NUMA balancing on, %lld pages migrated meanwhile"), p->moved);
	}
	if (stays) {
		e = lab_est_exact((double)(npages - off) / (double)npages);
		e.hi = (double)(npages - lo) / (double)npages;
		claim_check(X->L, id, e);
	} else if (lo == off) {
		claim_check_int(X->L, id, off);
	} else {
		e = lab_est_exact((double)off);
		e.lo = (double)lo;
		claim_check(X->L, id, e);
	}
}

/* 04.4: mapped here, first written from another node: on the writer's.
 * 04.6: written here, then read from another node: still here.
 * Broken knobs: 04.4 written from here, 04.6 written only after the move. */
static void check_first_touch(struct numa_lab *X)
{
	int here = X->cpu_node, other = other_node(X, here, 1), w;
	struct placed p;

	if (other < 0) {
		skip_one_node(X, "04.4", "04.6", here);
		return;
	}
	w = K.write_from_other_node ? other : here;
	place_counted(X, w, -1, -1, other, &p);
	claim_note(X->L, MSG("04.note-4", "mapped by a thread on node %d, written from node %d: "
		"%ld of %ld pages off node %d"), here, w, p.off, p.npages, other);
	decide_placement(X, "04.4", &p, 0);
	w = K.write_before_move ? here : other;
	place_counted(X, w, -1, other, here, &p);
	claim_note(X->L, MSG("04.note-6", "written from node %d, then read from node %d: %ld of "
		"%ld pages still on node %d"), w, other, p.npages - p.off, p.npages, here);
	decide_placement(X, "04.6", &p, 1);
}

/* 04.5: a worker bound (CPU and memory) to the GPU's node; 04.7: running
 * elsewhere, memory bound to the GPU's node.  Broken knobs: memory elsewhere. */
static void check_gpu_binding(struct numa_lab *X)
{
	const char *reason = NULL;
	char detail[512];
	int g = gpu_node(X, &reason, detail, sizeof(detail)), other, mem;
	struct placed p;

	if (g < 0) {
		claim_skip(X->L, "04.5", reason, "%s", detail);
		claim_skip(X->L, "04.7", reason, "%s", detail);
		return;
	}
	other = other_node(X, g, 0);
	if (other < 0) { /* one node: every page is on the GPU's node whatever is bound */
		skip_one_node(X, "04.5", "04.7", -1);
		return;
	}
	mem = K.bind_worker_to_gpu ? g : other;
	place_counted(X, g, mem, -1, g, &p);
	claim_note(X->L, MSG("04.note-5", "worker's CPU bound to the GPU's node %d, memory to "
		"node %d: %ld of %ld pages off node %d"), g, mem, p.off, p.npages, g);
	decide_placement(X, "04.5", &p, 0);
	other = other_node(X, g, 1);
	if (other < 0) {
		skip_one_node(X, "04.7", NULL, g);
		return;
	}
	mem = K.bind_mover_to_gpu ? g : other;
	place_counted(X, other, mem, -1, g, &p);
	claim_note(X->L, MSG("04.note-7", "worker runs on node %d, memory bound to node %d (the "
		"GPU's: %d): %ld of %ld pages off node %d"), other, mem, g, p.off, p.npages, g);
	decide_placement(X, "04.7", &p, 0);
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                     */

static void report_topology(struct numa_lab *X)
{
	char line[1024] = "";
	int nnodes = X->topo_ok ? X->topo.nnodes : X->nmem;

	lab_fact_num(X->L, "numa_nodes", nnodes, "");
	lab_fact_num(X->L, "numa_memory_nodes", X->nmem, "");
	lab_fact_num(X->L, "cpu_node", X->cpu_node, "");
	/* 0 off, 1 on (pages may move to the node that uses them), 2/3 tiering; absent: -1 */
	lab_fact_num(X->L, "numa_balancing", (double)X->balancing, "");
	if (X->topo_ok && *numa_topo_distances(&X->topo, line, sizeof(line)))
		lab_fact_str(X->L, "numa_distances", line);
	lab_note(X->L, MSG("04.topology",
		"%d NUMA node(s), %d with memory usable here; CPU on node %d; distances: "
		 "%s; numa_balancing %ld"), nnodes, X->nmem, X->cpu_node, *line ? line : "unknown",
		 X->balancing);
}

static void setup(struct numa_lab *X, struct lab *L)
{
	const char *root = getenv("DMALAB_SYSFS_ROOT");
	const struct lab_opts *o = lab_options(L);
	uint64_t need, have;
	char a[32], b[32];
	int i;

	X->L = L;
	X->sysfs_root = root && *root ? root : "/sys";
	if (numa_available() < 0)
		lab_skip(L, SKIP_NUMA_UNAVAILABLE,
			 "numa_available() = -1: no NUMA support in this kernel");
	X->topo_ok = numa_topo_read(X->sysfs_root, &X->topo) == 0;
	if (sysfs_read_long("/proc/sys/kernel/numa_balancing", &X->balancing))
		X->balancing = -1;
	if (!X->topo_ok)
		lab_note(L, MSG("04.no-sysfs",
			"cannot read the NUMA topology under %s (%s): using libnuma alone"),
			 X->sysfs_root, strerror(errno));
	X->nmem = numa_mem_nodes(X->topo_ok ? &X->topo : NULL, X->mem_node, TOPO_MAX_NODES);
	if (X->topo_ok && X->topo.nmem_nodes != X->nmem)
		lab_note(L, MSG("04.nodes-differ",
			"sysfs (%s) lists %d memory nodes, libnuma can use %d here: the claims "
			 "use the %d"), X->sysfs_root, X->topo.nmem_nodes, X->nmem, X->nmem);
	if (X->nmem == 0)
		lab_skip(L, SKIP_NUMA_UNAVAILABLE, "libnuma sees no memory node");
	/* the measuring thread on the first node that has a CPU for us, moved to the front */
	if ((i = numa_run_on_first(X->mem_node, X->nmem)) < 0)
		lab_error(L, "no memory node has a CPU this process may run on");
	X->cpu_node = X->mem_node[i];
	X->mem_node[i] = X->mem_node[0];
	X->mem_node[0] = X->cpu_node;
	X->chase_only = opt_chase_only;
	X->sweep = opt_sweep;
	X->one_size = X->chase_only && o->size_given && !X->sweep;
	X->claim_ws = X->chase_only && o->size_given ? o->size : o->quick ? 64 * MiB : 256 * MiB;
	X->max_ws = X->chase_only && o->size_given ? o->size :
		    X->sweep && !o->quick ? 512 * MiB : X->claim_ws;
	X->sample_s = o->quick ? 0.008 : 0.015;
	X->touch_bytes = o->quick ? 16 * MiB : 64 * MiB;
	X->bw_bytes = X->chase_only ? 0 : o->size;
	X->bw_bytes -= X->bw_bytes % SEQREAD_CHUNK; /* check_opts refused under MIN_BW_BYTES */
	/* every node has room for the largest buffer */
	need = (X->max_ws > X->bw_bytes ? X->max_ws : X->bw_bytes) + 64 * MiB;
	if ((i = numa_node_short_of(X->mem_node, X->nmem, need, &have)) >= 0)
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "node %d has %s free, need %s", X->mem_node[i],
			 lab_fmt_size(have, a, sizeof(a)), lab_fmt_size(need, b, sizeof(b)));
}

static void run(struct lab *L)
{
	static struct numa_lab X; /* the topology is 33 KiB */

	setup(&X, L);
	report_topology(&X);
	check_latency_bandwidth(&X);
	if (X.chase_only) { /* 04.3-04.7 */
		claim_skip_rest(L, SKIP_NOT_REQUESTED, "--chase-only: the pointer chase alone");
		return;
	}
	check_first_touch(&X);
	check_gpu_binding(&X);
}

LAB_MAIN(spec, run)
