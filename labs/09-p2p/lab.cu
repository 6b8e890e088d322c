/*
 * lab-09: GPU to GPU.  How far apart are NVLink and the path through the
 * host, and does a peer copy deliver what was sent?
 *
 * For every ordered pair of GPUs (--pairs, or all), at sizes from 1 MiB to
 * 1 GiB (x4 a step; --quick to 64 MiB; --min-size, --max-size, --size): a
 * cudaMemcpyPeerAsync one way and both ways at once, first with peer access
 * off (the driver stages it through host memory), then with
 * cudaDeviceEnablePeerAccess; and a kernel on the receiving GPU that reads
 * the other GPU's memory itself.  Each sample is a batch of copies between
 * two events behind a spin kernel (nvbandwidth's method); the receiving
 * buffer is poisoned before it and checked on its GPU after it, and a
 * sample whose data is wrong does not count: the lab names the pair, the
 * size, the first bad byte and the IOMMU mode, and exits as an error.
 *
 * The claims are decided on the first pair (0 -> 1 by default) at the
 * largest size.  The topology (NVML and sysfs: links, path, ACS, IOMMU) is
 * printed as nvidia-smi topo -m does.  With one GPU the claims skip
 * (single-gpu) after the facts one GPU allows: its device-to-device copy,
 * pinned H2D and D2H, and the rate a copy staged through the host would get.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "need.h"
#include "links.h"      /* with gpu_topo.h, the GPU scan */
#include "p2p.h"

/* What `make selftest` breaks, in one place; the experiment reads these only.
 * The sabotage build sets each to its broken value (DMALAB_SABOTAGE=09.2:
 * that claim's knobs alone). */
static struct knobs {
	int peer_access;      /* 09.1, 09.3: enable peer access before the "peer" copies */
	int host_path_direct; /* 09.2: the "through the host" copies run with peer access off */
	int corrupt_one_byte; /* 09.1, 09.3: one received byte flipped before it is checked */
} K = { .peer_access = 1, .host_path_direct = 1, .corrupt_one_byte = 0 };

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.peer_access, 0, "09.1 09.3"),
	LAB_KNOB(K.host_path_direct, 0, "09.2"),
	LAB_KNOB(K.corrupt_one_byte, 1, "09.1 09.3"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "09.1", "ch2.S3",
	  "with peer access enabled, a GPU-to-GPU copy reaches most of the NVLink rate",
	  "ch2 sec. 3: NV18 is 18 NVLink 4.0 links, 450 GB/s one way (900 both ways)",
	  "R9 'most of' -> one-way peer copy / (active links x per-link rate of NVML's "
	  "NVLink version) >= 0.8",
	  WANT_GE(0.8, "fraction"),
	  "peer access is never enabled, so the 'peer' copy is staged through the host; and "
	  "one byte of every received buffer is flipped, so no peer rate counts" },
	{ "09.2", "ch2.S3 ch2.S9",
	  "without peer access a GPU-to-GPU copy goes through the host, at PCIe speed",
	  "ch2 sec. 3: the SYS path relays through the CPU over PCIe (about 12 GB/s on Gen4)",
	  "R2 a range from this run's own bounds: copy / staged rate 1/(1/h2d + 1/d2h) from "
	  "this run's pinned copies lies from 1 (halves in turn) to 2 (halves overlapped), "
	  "with R1's 25 % outside each end -> 0.75 to 2.5",
	  WANT_RANGE(0.75, 2.5, "x"),
	  "peer access is enabled before the 'through the host' copies, so they take the "
	  "direct path" },
	{ "09.3", "ch2.S3",
	  "NVLink is about 75 times the path through the CPU",
	  "ch2 sec. 3: the SYS path is about 1/75 of NVLink (12 GB/s against 900 GB/s)",
	  "R4 'N times' -> peer copy / copy without peer access, one way, near 75 +- 25 %",
	  WANT_NEAR(75, 0.25, "x"),
	  "peer access is never enabled, so both copies take the host path (about 1x); and "
	  "one byte of every received peer buffer is flipped, so no peer rate counts" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

#define DEFAULT_MIN (1 * MiB)
#define QUICK_MAX (64 * MiB)
#define SIZE_FLOOR (64 * KiB)

static uint64_t min_bytes, max_bytes;  /* the sweep; 0 until check_opts sets the default */
static struct p2p_plan asked_pairs;
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_TEXT("pairs", "LIST", "ordered pairs S:D to measure, e.g. 0:1,1:0 (default: "
		     "all; the claims use the first)"),
	LAB_OPT_SIZE("min-size", min_bytes, 0, 0, SIZE_FLOOR, "",
		     "smallest copy of the sweep (default 1M; with --size, --max-size)"),
	LAB_OPT_SIZE("max-size", max_bytes, 0, 0, SIZE_FLOOR, "",
		     "largest copy, the claims' size (default --size)"),
	{ NULL }
};

/* The sweep's ends, in words of 4 bytes, and the pairs asked for. */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	const char *pairs = lab_opt(L, "pairs");
	char err[128];

	max_bytes = max_bytes ? max_bytes : o->size;
	min_bytes = min_bytes ? min_bytes : o->size_given ? max_bytes : DEFAULT_MIN;
	if (max_bytes % 4)
		return lab_usage_error(L, "max-size", lab_size_arg(max_bytes, err, sizeof(err)),
				       "must be a multiple of 4 bytes");
	if (min_bytes % 4 || min_bytes > max_bytes)
		return lab_usage_error(L, "min-size", lab_size_arg(min_bytes, err, sizeof(err)),
				       "%s", min_bytes % 4 ? "must be a multiple of 4 bytes" :
				       "must be at most --max-size");
	if (pairs && p2p_pairs_parse(pairs, &asked_pairs, err, sizeof(err)) < 0)
		return lab_usage_error(L, "pairs", pairs, "%s", err);
	return 0;
}

static const struct lab_spec spec = {
	.id = "09",
	.title = "GPU to GPU",
	.topic = "how far apart NVLink and the path through the host are for GPU-to-GPU "
		 "copies, and whether a peer copy delivers what was sent",
	.timeout_s = 300, /* 8 GPUs: 56 ordered pairs of about 1.5 s each */
	.needs = { 2, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.default_size = 1 * GiB,
	.quick_size = QUICK_MAX,
	.min_size = SIZE_FLOOR,
	.default_iters = 7,
	.check_opts = check_opts,
	.knobs = knobs,
};

#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"
#include "lab_cuda.h"

#define SPIN_NS 50000ull          /* holds the stream while a batch is queued */
#define SAMPLE_FLOOR_S 1e-3       /* a batch lasts at least this: 2000 event steps */
#define MAX_BATCH 256
#define GPU_SPARE_BYTES (256 * MiB)
#define POISON 0xa5
#define HOST_SEED 0x5a5a0001u
#define VERIFY_BLOCKS 1024
#define VERIFY_THREADS 256

/* One GPU: a buffer it sends from (its pattern) and one it receives into. */
struct gpu {
	int dev;
	uint32_t *send, *recv;
	unsigned long long *first_bad; /* device word for the verify kernel */
	cudaStream_t s;
	cudaEvent_t start, stop, mark;  /* mark: "the other stream is done" */
	char iommu[16];
};

enum path { HOST_PATH, PEER, KERNEL_READ, LOCAL_D2D, H2D, D2H };
static const char *const path_name[] = { "host_path", "peer", "kernel_read", "local_d2d",
					 "h2d_pinned", "d2h_pinned" };

/* One timed case: what moves from where to where, and what arrived. */
struct copy {
	struct lab *L;
	enum path path;
	int both_ways;
	struct gpu *a, *b;   /* a sends, b receives (both ways: b sends back too) */
	uint32_t *host;      /* pinned, for H2D and D2H */
	uint32_t host_seed;  /* the pattern the host buffer holds */
	uint64_t bytes;
	int batch;
	int64_t bad_at;      /* the first bad byte seen, -1 none */
	struct gpu *bad_gpu; /* where it was seen */
};

/* The first mismatch of the run, for the error at its end. */
static struct bad_copy {
	int found;
	char what[200];
} bad;

static struct gpu *gpus;
static int ngpu;
static struct gpu_topo *topo;
static struct gpu_links *links;

static uint32_t base_seed; /* --seed */

/* The pattern GPU dev sends: one per sender, so a buffer from the wrong one fails. */
static uint32_t seed_of(int dev)
{
	return base_seed * 0x9e3779b1u + 0x101u * (uint32_t)(dev + 1);
}

/* ------------------------------------------------------------------------ */
/* Kernels: fill, check, read the other GPU, and the sabotage's flip         */

__global__ void fill_pattern(uint32_t *p, uint64_t words, uint32_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words;
	     i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = p2p_word(i, seed);
}

/* *first = the lowest word index off the pattern (left alone when none is). */
__global__ void find_first_bad(const uint32_t *p, uint64_t words, uint32_t seed,
			       unsigned long long *first)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words;
	     i += (uint64_t)gridDim.x * blockDim.x)
		if (p[i] != p2p_word(i, seed))
			atomicMin(first, (unsigned long long)i);
}

/* The receiving GPU loads the sender's memory itself (peer access, over
 * NVLink or PCIe) and stores it locally: 16 bytes a thread a step. */
__global__ void read_remote(const uint4 *remote, uint4 *local, uint64_t n16)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n16;
	     i += (uint64_t)gridDim.x * blockDim.x)
		local[i] = remote[i];
}

__global__ void flip_byte(unsigned char *p, uint64_t at)
{
	p[at] ^= 0x01;
}

/* ------------------------------------------------------------------------ */
/* Checking what arrived                                                     */

/* The first byte of buf (on g) off seed's pattern, -1 when all match. */
static int64_t first_bad_on(struct lab *L, struct gpu *g, const uint32_t *buf,
			    uint64_t bytes, uint32_t seed)
{
	unsigned long long none = ~0ull, first;
	uint32_t word;

	CUDA_CHECK(L, cudaSetDevice(g->dev));
	CUDA_CHECK(L, cudaMemcpyAsync(g->first_bad, &none, sizeof(none), cudaMemcpyHostToDevice,
				      g->s));
	find_first_bad<<<VERIFY_BLOCKS, VERIFY_THREADS, 0, g->s>>>(buf, bytes / 4, seed,
								 g->first_bad);
	CUDA_CHECK_LAUNCH(L, 0);
	CUDA_CHECK(L, cudaMemcpyAsync(&first, g->first_bad, sizeof(first),
				      cudaMemcpyDeviceToHost, g->s));
	CUDA_CHECK(L, cudaStreamSynchronize(g->s));
	if (first == none)
		return -1;
	CUDA_CHECK(L, cudaMemcpyAsync(&word, buf + first, 4, cudaMemcpyDeviceToHost, g->s));
	CUDA_CHECK(L, cudaStreamSynchronize(g->s));
	return (int64_t)(4 * first) + p2p_byte_in_word(word, p2p_word(first, seed));
}

/* Check what c delivered; the first mismatch is kept for the lab's error. */
static void check_arrival(struct copy *c)
{
	int64_t at = -1;
	struct gpu *where = c->b;

	if (c->path == D2H) {
		at = p2p_first_bad(c->host, c->bytes, seed_of(c->a->dev));
		where = NULL;
	} else {
		uint32_t seed = c->path == H2D ? c->host_seed : seed_of(c->a->dev);

		at = first_bad_on(c->L, c->b, c->b->recv, c->bytes, seed);
		if (at < 0 && c->both_ways)
			at = first_bad_on(c->L, where = c->a, c->a->recv, c->bytes,
					  seed_of(c->b->dev));
	}
	if (at < 0 || c->bad_at >= 0)
		return;
	c->bad_at = at;
	c->bad_gpu = where;
}

/* ------------------------------------------------------------------------ */
/* The operations, each a batch between two events                           */

/* The receiving buffers poisoned, so a copy that moved nothing cannot pass;
 * on the receiver's stream (ours never wait for the legacy one), waited for. */
static void poison_on(struct lab *L, struct gpu *g, uint64_t bytes)
{
	CUDA_CHECK(L, cudaSetDevice(g->dev));
	CUDA_CHECK(L, cudaMemsetAsync(g->recv, POISON, bytes, g->s));
	CUDA_CHECK(L, cudaStreamSynchronize(g->s));
}

static void poison(struct copy *c)
{
	poison_on(c->L, c->b, c->bytes);
	if (c->both_ways)
		poison_on(c->L, c->a, c->bytes);
}

/* The batch of c on stream s (both ways: the way back on b's): the operation
 * the chapter is about. */
static void issue(struct copy *c, cudaStream_t s)
{
	struct gpu *a = c->a, *b = c->b;
	uint64_t n16 = c->bytes / 16;

	for (int i = 0; i < c->batch; i++) {
		switch (c->path) {
		case HOST_PATH:
		case PEER: /* peer access on or off is the only difference */
			CUDA_CHECK(c->L, cudaMemcpyPeerAsync(b->recv, b->dev, a->send, a->dev,
							     c->bytes, s));
			if (c->both_ways)
				CUDA_CHECK(c->L, cudaMemcpyPeerAsync(a->recv, a->dev, b->send,
								     b->dev, c->bytes, b->s));
			break;
		case KERNEL_READ: /* b's SMs load a's memory, on b's stream */
			read_remote<<<VERIFY_BLOCKS, VERIFY_THREADS, 0, s>>>(
				(const uint4 *)a->send, (uint4 *)b->recv, n16);
			CUDA_CHECK_LAUNCH(c->L, 0);
			break;
		case LOCAL_D2D:
			CUDA_CHECK(c->L, cudaMemcpyAsync(b->recv, a->send, c->bytes,
							 cudaMemcpyDeviceToDevice, s));
			break;
		case H2D:
			CUDA_CHECK(c->L, cudaMemcpyAsync(b->recv, c->host, c->bytes,
							 cudaMemcpyHostToDevice, s));
			break;
		case D2H:
			CUDA_CHECK(c->L, cudaMemcpyAsync(c->host, a->send, c->bytes,
							 cudaMemcpyDeviceToHost, s));
			break;
		}
	}
}

/* The stream that times c: a's, or for the kernel read the reader's. */
static struct gpu *timer_gpu(const struct copy *c)
{
	return c->path == KERNEL_READ ? c->b : c->a;
}

/*
 * One sample (a lab_run_fn): the receiving side poisoned, the stream held
 * by a spin while the batch is queued, the batch between two events (both
 * ways: b's stream starts at a's start event and a's stop waits for b's
 * end), then what arrived is checked on its GPU.  Seconds of GPU time.
 */
static double copy_sample(void *arg)
{
	struct copy *c = (struct copy *)arg;
	struct gpu *t = timer_gpu(c), *b = c->b;
	int host_side = c->path == H2D || c->path == D2H; /* checked once, by measure() */
	double secs;

	if (!host_side)
		poison(c);
	CUDA_CHECK(c->L, cudaSetDevice(t->dev));
	lab_cuda_spin(c->L, t->s, SPIN_NS);
	CUDA_CHECK(c->L, cudaEventRecord(t->start, t->s));
	if (c->both_ways)
		CUDA_CHECK(c->L, cudaStreamWaitEvent(b->s, t->start, 0));
	issue(c, t->s);
	if (c->both_ways) {
		CUDA_CHECK(c->L, cudaEventRecord(b->mark, b->s));
		CUDA_CHECK(c->L, cudaStreamWaitEvent(t->s, b->mark, 0));
	}
	CUDA_CHECK(c->L, cudaEventRecord(t->stop, t->s));
	secs = lab_cuda_event_seconds(c->L, t->start, t->stop);
	if (K.corrupt_one_byte && c->path == PEER) {
		CUDA_CHECK(c->L, cudaSetDevice(b->dev));
		flip_byte<<<1, 1, 0, b->s>>>((unsigned char *)b->recv, c->bytes / 2 + 1);
		CUDA_CHECK_LAUNCH(c->L, 0);
	}
	if (!host_side)
		check_arrival(c);
	return secs;
}

/* ------------------------------------------------------------------------ */
/* Measuring one case                                                        */

/* Copies a sample holds: one timed alone, then enough to last SAMPLE_FLOOR_S. */
static void size_batch(struct copy *c)
{
	double one;

	c->batch = 1;
	one = copy_sample(c);
	c->batch = one >= SAMPLE_FLOOR_S ? 1 : (int)(SAMPLE_FLOOR_S / (one > 0 ? one : 1e-6)) + 1;
	if (c->batch > MAX_BATCH)
		c->batch = MAX_BATCH;
}

/* Series names live as long as the record: one static slot per case. */
#define MAX_SERIES (P2P_MAX_PAIRS * 6 + 3 * P2P_MAX_GPUS)
static const char *series_name(const struct copy *c)
{
	static char names[MAX_SERIES][48];
	static int used;
	char name[48];

	if (c->path == H2D || c->path == D2H || c->path == LOCAL_D2D)
		snprintf(name, sizeof(name), "gpu%d_%s", c->a->dev, path_name[c->path]);
	else
		snprintf(name, sizeof(name), "p2p_%d_to_%d_%s%s", c->a->dev, c->b->dev,
			 path_name[c->path], c->both_ways ? "_both_ways" : "");
	for (int i = 0; i < used; i++)
		if (!strcmp(names[i], name))
			return names[i];
	if (used == MAX_SERIES)
		lab_error(c->L, "BUG: more than %d series", MAX_SERIES);
	snprintf(names[used], sizeof(names[used]), "%s", name);
	return names[used++];
}

/* Keeps the run's first mismatch, in words a user can act on. */
static void note_bad(struct copy *c)
{
	const char *iommu = c->bad_gpu ? c->bad_gpu->iommu : "host memory";
	char sz[32];

	if (bad.found++)
		return;
	snprintf(bad.what, sizeof(bad.what), "%s copy %d -> %d of %s: received data differs "
		 "from what was sent at byte %lld (IOMMU %s)", path_name[c->path], c->a->dev,
		 c->b ? c->b->dev : -1, lab_fmt_size(c->bytes, sz, sizeof(sz)),
		 (long long)c->bad_at, iommu);
	lab_note(c->L, MSG("09.say-1",
		"MISMATCH: %s"), bad.what);
}

/*
 * The rate of c in GB/s (both ways: the bytes of both directions), a point
 * of its curve.  0 when what arrived was wrong: that rate does not count.
 */
static int measure(struct copy *c, struct lab_stats *rate)
{
	struct lab_measure_cfg cfg = { 1, 0, 0.10, LAB_CUDA_EVENT_RES_S, 0 };
	const char *name = series_name(c);
	struct lab_stats secs;
	char sz[32];

	lab_progress(c->L, MSG("09.say-2",
		"%s, %s"), name, lab_fmt_size(c->bytes, sz, sizeof(sz)));
	c->bad_at = -1;
	size_batch(c);
	lab_measure(c->L, name, copy_sample, c, &cfg, &secs);
	if (c->path == H2D || c->path == D2H) /* its last sample's data */
		check_arrival(c);
	if (c->bad_at >= 0) {
		note_bad(c);
		return 0;
	}
	lab_stats_to_rate(&secs, c->bytes * (uint64_t)c->batch * (c->both_ways ? 2u : 1u), rate);
	lab_series_point(c->L, name, "bytes", (double)c->bytes, rate);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Setup: buffers, peer access, topology                                     */

static void gpu_setup(struct lab *L, struct gpu *g, int dev, uint64_t bytes)
{
	const struct gpu_topo_dev *t = gpu_topo_device(topo, dev);

	g->dev = dev;
	snprintf(g->iommu, sizeof(g->iommu), "%s", t ? t->iommu : "unknown");
	CUDA_CHECK(L, cudaSetDevice(dev));
	lab_cuda_require_free(L, need_bytes(2, bytes, GPU_SPARE_BYTES),
			      " (two buffers of the largest copy + 256 MiB)");
	CUDA_CHECK(L, cudaMalloc((void **)&g->send, bytes));
	CUDA_CHECK(L, cudaMalloc((void **)&g->recv, bytes));
	CUDA_CHECK(L, cudaMalloc((void **)&g->first_bad, sizeof(*g->first_bad)));
	g->s = lab_cuda_stream_new(L);
	g->start = lab_cuda_event_new(L, cudaEventDefault);
	g->stop = lab_cuda_event_new(L, cudaEventDefault);
	g->mark = lab_cuda_event_new(L, cudaEventDisableTiming);
	fill_pattern<<<VERIFY_BLOCKS, VERIFY_THREADS, 0, g->s>>>(g->send, bytes / 4,
								  seed_of(dev));
	CUDA_CHECK_LAUNCH(L, 0);
	CUDA_CHECK(L, cudaStreamSynchronize(g->s));
}

/* cudaDeviceEnablePeerAccess (or Disable) both ways between a and b. */
static void set_peer_access(struct lab *L, int a, int b, int on)
{
	int from[2] = { a, b }, to[2] = { b, a };

	for (int i = 0; i < 2; i++) {
		cudaError_t e;

		CUDA_CHECK(L, cudaSetDevice(from[i]));
		CUDA_CHECK(L, cudaDeviceSynchronize());
		e = on ? cudaDeviceEnablePeerAccess(to[i], 0) : cudaDeviceDisablePeerAccess(to[i]);
		if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled)
			(void)cudaGetLastError(); /* already as asked */
		else
			CUDA_CHECK(L, e);
	}
}

static int can_access(struct lab *L, int a, int b)
{
	int ab = 0, ba = 0;

	CUDA_CHECK(L, cudaDeviceCanAccessPeer(&ab, a, b));
	CUDA_CHECK(L, cudaDeviceCanAccessPeer(&ba, b, a));
	return ab && ba;
}

/* What NVML and sysfs say of GPU i's links, as facts and a line. */
static void note_gpu_links(struct lab *L, int i)
{
	const struct gpu_link_dev *d = &links->dev[i];
	char key[64];

	snprintf(key, sizeof(key), "gpu%d_iommu", i);
	lab_fact_str(L, key, gpus[i].iommu);
	snprintf(key, sizeof(key), "gpu%d_acs", i);
	lab_fact_str(L, key, d->acs);
	snprintf(key, sizeof(key), "gpu%d_nvlinks", i);
	if (d->nvlink_known) {
		lab_fact_num(L, key, d->links_active, "links");
		lab_note(L, MSG("09.gpu",
			"GPU %d (%s): %d active NVLink%s, NVML version %d; IOMMU %s; ACS %s (%s)"),
			 i, d->bdf, d->links_active, d->links_active == 1 ? "" : "s", d->version,
			 gpus[i].iommu, d->acs, d->acs_why);
	} else {
		lab_fact_str(L, key, "unknown");
		lab_note(L, MSG("09.gpu-unknown",
			"GPU %d (%s): NVLinks unknown: %s; IOMMU %s; ACS %s (%s)"), i, d->bdf,
			 d->why, gpus[i].iommu, d->acs, d->acs_why);
	}
}

/* The matrix of nvidia-smi topo -m, one line a GPU. */
static void note_topology(struct lab *L)
{
	char line[16 + 8 * P2P_MAX_GPUS], w[16];
	int at;

	at = snprintf(line, sizeof(line), "      ");
	for (int b = 0; b < ngpu; b++)
		at += snprintf(line + at, sizeof(line) - (size_t)at, " GPU%-3d", b);
	lab_note(L, MSG("09.topology", "topology (NVML and sysfs):%s"), line + 5);
	for (int a = 0; a < ngpu; a++) {
		at = snprintf(line, sizeof(line), "GPU%-3d", a);
		for (int b = 0; b < ngpu; b++)
			at += snprintf(line + at, sizeof(line) - (size_t)at, " %-6s",
				       gpu_path_word(links, a, b, w, sizeof(w)));
		lab_note(L, "%s", line);
	}
	for (int i = 0; i < ngpu; i++)
		note_gpu_links(L, i);
}

/* ------------------------------------------------------------------------ */
/* What one GPU allows: facts, never claims                                  */

struct host_rates {
	struct lab_stats h2d[P2P_MAX_GPUS], d2h[P2P_MAX_GPUS]; /* GB/s at the largest size */
};

/* Pinned H2D and D2H of GPU i at bytes, the halves of a copy staged through the host. */
static void measure_host_link(struct lab *L, int i, uint32_t *host, uint32_t *host_seed,
			      uint64_t bytes, struct host_rates *hr)
{
	struct copy c = { L, H2D, 0, &gpus[i], &gpus[i], host, *host_seed, bytes, 1, -1, NULL };
	char key[64];

	measure(&c, &hr->h2d[i]);
	c.path = D2H;
	measure(&c, &hr->d2h[i]);
	*host_seed = seed_of(i); /* the host buffer now holds GPU i's pattern */
	snprintf(key, sizeof(key), "gpu%d_h2d_pinned_gbs", i);
	lab_fact_num(L, key, hr->h2d[i].median, "GB/s");
	snprintf(key, sizeof(key), "gpu%d_d2h_pinned_gbs", i);
	lab_fact_num(L, key, hr->d2h[i].median, "GB/s");
}

/* GPU 0's own device-to-device copy (reads and writes its memory): GB/s,
 * NaN when it could not be measured. */
static double measure_local(struct lab *L, uint64_t bytes)
{
	struct copy c = { L, LOCAL_D2D, 0, &gpus[0], &gpus[0], NULL, 0, bytes, 1, -1, NULL };
	struct lab_stats rate;

	if (!measure(&c, &rate))
		return NAN;
	lab_fact_num(L, "local_d2d_gbs", rate.median, "GB/s");
	return rate.median;
}

/* ------------------------------------------------------------------------ */
/* One ordered pair                                                          */

struct pair_result {
	struct lab_stats host, peer;   /* one way at the largest size, GB/s */
	int host_ok, peer_ok;          /* measured and delivered intact */
	int peer_possible;             /* cudaDeviceCanAccessPeer both ways */
};

static void pair_fact(struct lab *L, const struct p2p_pair *p, const char *what, double v)
{
	char key[64];

	snprintf(key, sizeof(key), "pair_%d_%d_%s", p->src, p->dst, what);
	lab_fact_num(L, key, v, "GB/s");
}

/* Every size of one path (peer access as it now is), one way and both ways;
 * the largest one-way point goes to *top. */
static int sweep_path(struct lab *L, const struct p2p_pair *p, enum path path,
		      const uint64_t *sizes, int nsizes, struct lab_stats *top)
{
	struct copy c = { L, path, 0, &gpus[p->src], &gpus[p->dst], NULL, 0, 0, 1, -1, NULL };
	struct lab_stats rate;
	int ok = 0;

	for (int i = 0; i < nsizes; i++) {
		c.bytes = sizes[i];
		for (c.both_ways = 0; c.both_ways < (path == KERNEL_READ ? 1 : 2); c.both_ways++) {
			int good = measure(&c, &rate);

			if (i == nsizes - 1 && !c.both_ways) {
				ok = good;
				*top = rate;
			}
			if (good && i == nsizes - 1 && c.both_ways)
				pair_fact(L, p, path == PEER ? "peer_both_ways_gbs"
					  : "host_both_ways_gbs", rate.median);
		}
	}
	return ok;
}

/* The pair's phases: without peer access, with it, and the kernel that reads. */
static void run_pair(struct lab *L, const struct p2p_pair *p, const uint64_t *sizes,
		     int nsizes, struct pair_result *r)
{
	struct lab_stats kernel;
	char w[16], key[64];

	r->peer_possible = can_access(L, p->src, p->dst);
	/* two whole sentences, not a "not " argument: the zh cannot take an English word */
	lab_note(L, r->peer_possible ?
		 MSG("09.pair", "pair %d -> %d: path %s, peer access possible, NVLink %.0f GB/s "
		     "one way by NVML") :
		 MSG("09.pair-no-peer", "pair %d -> %d: path %s, peer access not possible, "
		     "NVLink %.0f GB/s one way by NVML"),
		 p->src, p->dst, gpu_path_word(links, p->src, p->dst, w, sizeof(w)),
		 gpu_links_nvlink_gbs(links, p->src, p->dst));
	snprintf(key, sizeof(key), "pair_%d_%d_path", p->src, p->dst);
	lab_fact_str(L, key, w);
	pair_fact(L, p, "nvlink_gbs", gpu_links_nvlink_gbs(links, p->src, p->dst));
	if (r->peer_possible)
		set_peer_access(L, p->src, p->dst, !K.host_path_direct);
	r->host_ok = sweep_path(L, p, HOST_PATH, sizes, nsizes, &r->host);
	if (r->peer_possible)
		set_peer_access(L, p->src, p->dst, K.peer_access);
	r->peer_ok = sweep_path(L, p, PEER, sizes, nsizes, &r->peer);
	if (r->host_ok)
		pair_fact(L, p, "host_gbs", r->host.median);
	if (r->peer_ok)
		pair_fact(L, p, "peer_gbs", r->peer.median);
	if (r->peer_possible && K.peer_access &&
	    sweep_path(L, p, KERNEL_READ, sizes, nsizes, &kernel))
		pair_fact(L, p, "kernel_read_gbs", kernel.median);
	if (r->peer_possible)
		set_peer_access(L, p->src, p->dst, 0);
}

/* ------------------------------------------------------------------------ */
/* Decisions                                                                 */

/* The staged prediction 1/(1/h2d + 1/d2h), its interval from both ends (it
 * grows with each); three series stand behind the claim. */
static struct lab_est staged_est(const struct lab_stats *h2d, const struct lab_stats *d2h)
{
	struct lab_est h = lab_est_median(h2d, 3), d = lab_est_median(d2h, 3), e;

	e.value = p2p_staged_gbs(h.value, d.value);
	e.lo = p2p_staged_gbs(h.lo, d.lo);
	e.hi = p2p_staged_gbs(h.hi, d.hi);
	e.too_short = h.too_short || d.too_short;
	return e;
}

static struct lab_est not_counted(void)
{
	return lab_est_exact(NAN);
}

static void decide_091(struct lab *L, const struct p2p_pair *p, const struct pair_result *r)
{
	double nvlink = gpu_links_nvlink_gbs(links, p->src, p->dst);
	char w[16];

	if (!r->peer_possible)
		return claim_skip(L, "09.1", SKIP_UNSUPPORTED, "peer access is not possible "
				  "between GPU %d and %d (cudaDeviceCanAccessPeer)", p->src,
				  p->dst);
	if (nvlink < 0)
		return claim_skip(L, "09.1", SKIP_UNKNOWN_TOPOLOGY, "NVML does not say which "
				  "NVLinks join GPU %d and %d: %s", p->src, p->dst,
				  links->dev[p->src].why);
	if (nvlink == 0)
		return claim_skip(L, "09.1", SKIP_UNSUPPORTED, "no active NVLink from GPU %d to "
				  "%d (NVML; path %s)", p->src, p->dst,
				  gpu_path_word(links, p->src, p->dst, w, sizeof(w)));
	if (!r->peer_ok) {
		claim_note(L, MSG("09.note-1",
			"the peer copies %d -> %d delivered wrong data: their rate does not count"),
			p->src, p->dst);
		return claim_check(L, "09.1", not_counted());
	}
	claim_note(L, MSG("09.note-1-2",
		"%.1f GB/s of %.0f GB/s (%d links of NVML version %d) from GPU %d to %d"),
		   r->peer.median, nvlink, links->nvlinks[p->src][p->dst],
		   links->dev[p->src].version, p->src, p->dst);
	claim_stats(L, &r->peer);
	claim_check(L, "09.1", lab_est_scale(lab_est_median(&r->peer, 1), 1.0 / nvlink));
}

static void decide_092(struct lab *L, const struct p2p_pair *p, const struct pair_result *r,
		       const struct host_rates *hr)
{
	struct lab_est staged = staged_est(&hr->h2d[p->dst], &hr->d2h[p->src]);

	if (!r->host_ok) {
		claim_note(L, MSG("09.note-2",
			"the copies %d -> %d without peer access delivered wrong data"),
			   p->src, p->dst);
		return claim_check(L, "09.2", not_counted());
	}
	claim_note(L, MSG("09.note-2-2",
		"%.1f GB/s without peer access; staged through the host: %.1f GB/s (D2H %.1f on "
		"GPU %d, H2D %.1f on GPU %d)"), r->host.median, staged.value,
		   hr->d2h[p->src].median, p->src, hr->h2d[p->dst].median, p->dst);
	claim_stats(L, &r->host);
	claim_stats(L, &hr->h2d[p->dst]);
	claim_stats(L, &hr->d2h[p->src]);
	claim_check(L, "09.2", lab_est_ratio(lab_est_median(&r->host, 3), staged));
}

static void decide_093(struct lab *L, const struct p2p_pair *p, const struct pair_result *r)
{
	if (!r->peer_possible)
		return claim_skip(L, "09.3", SKIP_UNSUPPORTED, "peer access is not possible "
				  "between GPU %d and %d: no direct path to compare", p->src,
				  p->dst);
	if (!r->peer_ok || !r->host_ok) {
		claim_note(L, MSG("09.note-3",
			"a copy %d -> %d delivered wrong data: no ratio counts"),
			   p->src, p->dst);
		return claim_check(L, "09.3", not_counted());
	}
	claim_note(L, MSG("09.note-3-2",
		"%.1f GB/s with peer access, %.1f GB/s without, GPU %d to %d"),
		   r->peer.median, r->host.median, p->src, p->dst);
	claim_check_ratio(L, "09.3", &r->peer, &r->host);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                   */

/* The GPUs, their links, their buffers; skips when CUDA cannot run. */
static void setup(struct lab *L, uint64_t bytes)
{
	static struct gpu_topo t;
	static struct gpu_links k;

	lab_cuda_require(L, 1); /* no driver, no device: the usual skips */
	CUDA_CHECK(L, cudaGetDeviceCount(&ngpu));
	if (ngpu > P2P_MAX_GPUS)
		ngpu = P2P_MAX_GPUS;
	gpu_topo_scan("/sys", GPU_TOPO_CUDA | GPU_TOPO_NVML, &t);
	gpu_links_scan(&t, &k);
	topo = &t;
	links = &k;
	gpus = (struct gpu *)calloc((size_t)ngpu, sizeof(*gpus));
	if (!gpus)
		lab_error(L, "out of memory");
	for (int i = 0; i < ngpu; i++)
		gpu_setup(L, &gpus[i], i, bytes);
	lab_fact_num(L, "gpu_count", ngpu, "");
	if (t.n > 0)
		lab_fact_num(L, "pcie_gen_max", t.dev[0].pcie_gen_max, "");
	note_topology(L);
}

/* Pinned host memory of bytes holding HOST_SEED's pattern: written on GPU 0
 * into its receive buffer and copied down (a CPU loop took 0.4 s a GiB); the
 * receive buffer poisoned again, so an H2D that moves nothing cannot pass. */
static uint32_t *host_buffer(struct lab *L, uint64_t bytes)
{
	struct gpu *g = &gpus[0];
	uint32_t *h = NULL;

	need_ram_require(L, 1, bytes);
	CUDA_CHECK(L, cudaMallocHost((void **)&h, bytes));
	CUDA_CHECK(L, cudaSetDevice(g->dev));
	fill_pattern<<<VERIFY_BLOCKS, VERIFY_THREADS, 0, g->s>>>(g->recv, bytes / 4, HOST_SEED);
	CUDA_CHECK_LAUNCH(L, 0);
	CUDA_CHECK(L, cudaMemcpyAsync(h, g->recv, bytes, cudaMemcpyDeviceToHost, g->s));
	poison_on(L, g, bytes); /* on the same stream: after the copy, then waited for */
	return h;
}

static void run(struct lab *L)
{
	static struct host_rates hr;
	static struct p2p_plan plan;
	uint64_t sizes[P2P_MAX_SIZES];
	int nsizes = p2p_sizes(min_bytes, max_bytes, sizes);
	uint32_t host_seed = HOST_SEED, *host;
	double staged, local;
	char detail[64], err[128];
	const char *skip;

	base_seed = (uint32_t)lab_options(L)->seed;
	setup(L, max_bytes);
	/* the pairs are checked against the GPUs before anything is measured; with
	 * fewer than two the lab skips, whatever they name */
	if (ngpu >= 2 && p2p_pairs_plan(ngpu, &asked_pairs, lab_options(L)->device_given ?
					lab_options(L)->device : -1, &plan, err, sizeof(err)) < 0)
		lab_error(L, "--pairs '%s': %s", lab_opt(L, "pairs"), err);
	host = host_buffer(L, max_bytes);
	for (int i = 0; i < ngpu; i++)
		measure_host_link(L, i, host, &host_seed, max_bytes, &hr);
	/* GPU 0 -> 1 staged through the host (with one GPU: to itself) */
	staged = p2p_staged_gbs(hr.h2d[ngpu > 1].median, hr.d2h[0].median);
	lab_fact_num(L, "staged_predicted_gbs", staged, "GB/s");
	local = measure_local(L, max_bytes);
	lab_note(L, MSG("09.facts",
		"facts of this machine: pinned H2D %.1f GB/s and D2H %.1f GB/s (GPU 0); a "
		 "GPU-to-GPU copy staged through host memory would run at about %.1f GB/s "
		 "(1/(1/H2D + 1/D2H)); GPU 0's own device-to-device copy %.0f GB/s"),
		 hr.h2d[0].median, hr.d2h[0].median, staged, local);
	if ((skip = p2p_gpu_skip(ngpu, detail, sizeof(detail))) != NULL) {
		if (bad.found)
			lab_error(L, "%s", bad.what);
		lab_skip(L, skip, "%s", detail);
	}
	for (int i = 0; i < plan.n; i++) {
		static struct pair_result r0;
		struct pair_result r;

		run_pair(L, &plan.pair[i], sizes, nsizes, i ? &r : &r0);
		if (i == 0) {
			decide_092(L, &plan.pair[0], &r0, &hr);
			decide_091(L, &plan.pair[0], &r0);
			decide_093(L, &plan.pair[0], &r0);
		}
	}
	if (bad.found)
		lab_error(L, "%s; %d mismatch%s in all: peer copies are not safe on this machine",
			  bad.what, bad.found, bad.found == 1 ? "" : "es");
}

LAB_MAIN(spec, run)
#else
LAB_MAIN(spec, lab_run_not_built)
#endif
