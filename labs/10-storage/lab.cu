/*
 * lab-10: storage to GPU.  What does reading a file into GPU memory cost by
 * the POSIX path (the chapter's serial chain: a buffered read, then a
 * pageable copy), by O_DIRECT into pinned memory, and by cuFile (GPUDirect
 * Storage), and how does the chain's time split between the disk and PCIe?
 * A file of a known pattern is read into GPU memory chunk by chunk by each
 * path, from a cold page cache, the GPU checking every word; the chain's
 * stages are also timed alone (the cold read into host memory; the copies
 * from host memory, pageable and pinned), and an O_DIRECT pass into host
 * memory gives the device's rate.  Paths run in rounds, one pass each in a
 * rotated order, and claims compare times within a round.  The operations
 * timed are here: each chunk's pread (read_chunk, buffered or O_DIRECT as
 * the chain's descriptor was opened) and its cudaMemcpyAsync into GPU
 * memory (copy_start), chained by run_chain.  The file, its removal and the
 * device's counters are storage.h's; cuFile is cufile.h's (both in this
 * folder).
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer.h"
#include "lab.h"
#include "need.h"
#include "smaps.h"
#include "storage.h"
#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"
#include "lab_copy_cuda.h"
#include "cufile.h"
#endif

/*
 * What `make selftest` breaks, in one place: the sabotage build gives each
 * knob its broken value, or, asked for one claim, that claim's knobs alone
 * (labs/README.md, section 6).
 */
static struct knobs {
	int direct_pinned;    /* 10.1: the O_DIRECT path reads with O_DIRECT into pinned
			       * memory; broken, it is the POSIX path */
	int chain_cold;       /* 10.2: the POSIX chain reads from a cold page cache; broken,
			       * the file is read into the cache (untimed) before it, so its
			       * first stage is no disk read (10.1 compares that chain too) */
	int cufile_timed;     /* 10.3: cuFile's passes are timed; broken, the POSIX chain is */
	int pcie_bulk;        /* 10.4: the pinned copy moves a chunk per transfer; broken,
			       * 4 KiB, each waited for: PCIe no longer moves data in bulk */
} K = {
	.direct_pinned = 1,
	.chain_cold = 1,
	.cufile_timed = 1,
	.pcie_bulk = 1,
};

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.direct_pinned, 0, "10.1"),
	LAB_KNOB(K.chain_cold, 0, "10.2"),
	LAB_KNOB(K.cufile_timed, 0, "10.3"),
	LAB_KNOB(K.pcie_bulk, 0, "10.4"),
	{ NULL },
};

/* ch2 S5's GDS rate (~3-7 GB/s) over its host chain's (~2 GB/s), "about" (R2). */
#define GDS_GAIN_LO (0.75 * 3.0 / 2.0)
#define GDS_GAIN_HI (1.25 * 7.0 / 2.0)

static const struct claim_spec claims[] = {
	{ "10.1", "ch1.Q4 ch2.S5 ch2.S9",
	  "a file reaches GPU memory faster by O_DIRECT into pinned memory and a copy than by "
	  "the POSIX path (a buffered read into pageable memory, then a copy)",
	  "ch1 Q4: the usual read goes disk -> page cache -> user buffer -> pinned buffer -> GPU, "
	  "two or three copies in host memory; ch2 S9: without GDS, O_DIRECT (no figure)",
	  "R6 bare comparison -> POSIX time / O_DIRECT-pinned time >= 1.1 per round of cold "
	  "reads, decided on the rounds' Hodges-Lehmann center with its signed-rank interval "
	  "(since a sabotage came out [0.86, 1.18] by their median); inconclusive where the "
	  "page cache kept part of the file, or where the two paths' mean requests differ by "
	  "more than 2x either way (then it compares request sizes)",
	  WANT_RATIO_GE(1.1),
	  "the O_DIRECT path opens the file without O_DIRECT and reads into pageable memory: "
	  "it is the POSIX path" },
	{ "10.2", "ch2.S5",
	  "the serial chain through host memory takes its two stages' time added: a cold "
	  "buffered read, then a pageable copy to the GPU (rate 1/(1/read + 1/copy))",
	  "ch2 S5: disk -> host memory (~3 GB/s), then the CPU copy to the GPU (~6 GB/s), one "
	  "after the other: ~2 GB/s in all ('serial'), i.e. 1/(1/3 + 1/6)",
	  "R1 '~2 GB/s in all' as the composition of its stages -> (read alone + copy alone) / "
	  "chain time near 1 +- 25 % per round: the cold buffered read into pageable memory, "
	  "the pageable copies of the file from host memory, and the chain of both",
	  WANT_NEAR(1.0, 0.25, "x"),
	  "the file is read into the page cache just before the chain's timed pass: the chain's "
	  "first stage is no longer the disk read it is composed of" },
	{ "10.3", "ch2.S5 ch1.Q4",
	  "GPUDirect Storage (cuFile) brings a file into GPU memory at ~3-7 GB/s against ~2 GB/s "
	  "for the POSIX chain: the copies in host memory become one DMA",
	  "ch2 S5: NVMe DMAs into GPU memory at ~3-7 GB/s, against ~2 GB/s for the serial chain "
	  "through host memory; ch1 Q4: GDS removes the copies in host memory",
	  "R2 'about 3-7' over '~2' -> POSIX time / cuFile time in [0.75 x 1.5, 1.25 x 3.5] = "
	  "[1.125, 4.375] per round of cold reads; decided only where cuFile read by DMA "
	  "(nvidia-fs or P2PDMA): compatibility mode skips",
	  WANT_RANGE(GDS_GAIN_LO, GDS_GAIN_HI, "x"),
	  "the timed cuFile passes are replaced by the chain GDS removes: a buffered read into "
	  "pageable memory and a copy" },
	{ "10.4", "ch1.table ch1.Q4",
	  "from host memory, PCIe moves the file in a fraction of the time its cold read took: "
	  "the slow part of loading is before PCIe",
	  "ch1, after the table: loading weights already in the page cache, PCIe itself takes "
	  "a fraction of a second; the slow part is usually before it (the read from disk or "
	  "network storage, deserialising, the pageable staging copy)",
	  "R6 'the slow part is before it' -> cold buffered read time / pinned copy time of the "
	  "same file >= 1.1 per round (the copy's time for the chapter's 16 GB is a note)",
	  WANT_RATIO_GE(1.1),
	  "the pinned copy moves the file in 4 KiB transfers, each waited for, so PCIe pays a "
	  "call and a DMA set-up per page instead of moving the file in bulk" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

#define DEFAULT_CHUNK (16 * MiB) /* cuFile's own largest I/O (max_direct_io_size) */
#define HUGE (2 * MiB)           /* a chunk is whole huge pages */

static uint64_t opt_chunk;
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_TEXT("dir", "DIR", "folder of the test file (default: the --json file's, else "
		     "results/)"),
	LAB_OPT_SIZE("chunk", opt_chunk, DEFAULT_CHUNK, DEFAULT_CHUNK, HUGE, " (a huge page)",
		     "bytes per read and per copy, a multiple of 2M to 1G"),
	{ NULL }
};

static int check_opts(const struct lab *L);

static const struct lab_spec spec = {
	.id = "10",
	.title = "storage to GPU",
	.topic = "what reading a file into GPU memory costs by the POSIX path (a read, then a "
		 "copy), by O_DIRECT into pinned memory and by cuFile (GPUDirect Storage)",
	.timeout_s = 60,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.default_size = 128 * MiB, /* README, the test file: why not 256 MiB */
	.quick_size = 64 * MiB,
	.default_iters = 9,
	.check_opts = check_opts,
	.knobs = knobs,
};

#define MIN_CHUNKS 4             /* the chain's read and copy alternate a few times */
#define SPACE_SPARE (64 * MiB)   /* left free beside the test file */
#define GPU_SPARE (512 * MiB)    /* beside the file's copy: cuFile's own buffers */
#define BUDGET_S 30.0            /* the issue's bound; --quick: QUICK_BUDGET_S */
#define QUICK_BUDGET_S 10.0     /* selftest's runs: room for the rounds that decide */

/* ------------------------------------------------------------------------ */
/* Options                                                                   */

struct plan {
	const char *dir;          /* --dir; else the --json file's folder; else results/ */
	char dir_buf[4096];
	int dir_default;          /* made when missing */
	uint64_t bytes, chunk;    /* bytes: a multiple of chunk */
	uint32_t seed;
	double budget_s;          /* the run's bound: re-measuring stays inside it */
};

/* The options into p: 0, or 2 after one line on stderr. */
static int read_plan(const struct lab *L, struct plan *p)
{
	const struct lab_opts *o = lab_options(L);
	const char *arg = lab_opt(L, "chunk");
	char a[32], b[32];

	p->dir_default = !lab_opt(L, "dir"); /* the --json file's folder, else results/ */
	p->dir = p->dir_default ? storage_dir_default(o->json_path, p->dir_buf,
						      sizeof(p->dir_buf)) : lab_opt(L, "dir");
	p->bytes = o->size;
	p->chunk = opt_chunk;
	p->seed = (uint32_t)o->seed;
	p->budget_s = o->quick ? QUICK_BUDGET_S : BUDGET_S;
	if (p->chunk % HUGE || p->chunk > GiB)
		return lab_usage_error(L, "chunk", arg, "not a multiple of 2 MiB (a huge page, "
				       "and O_DIRECT's alignment) from 2M to 1G");
	if (!(p->bytes % p->chunk || p->bytes / p->chunk < MIN_CHUNKS))
		return 0;
	if (o->size_given)
		return lab_usage_error(L, "size", lab_size_arg(p->bytes, a, sizeof(a)),
				       "must be a multiple of --chunk (%s), 4 of them at least",
				       lab_fmt_size(p->chunk, b, sizeof(b)));
	return lab_usage_error(L, "chunk", arg, "the test file (%s by default) must be 4 chunks "
			       "or more, whole ones", lab_fmt_size(p->bytes, a, sizeof(a)));
}

/* spec.check_opts: the sizes, and a folder that exists and takes a file (its
 * room is the machine's, not the user's mistake: a skip in run). */
static int check_opts(const struct lab *L)
{
	struct plan p;
	char why[200];

	if (read_plan(L, &p))
		return 2;
	if (storage_dir_check(p.dir, p.dir_default, why, sizeof(why)) < 0)
		return lab_usage_error(L, "dir", p.dir, "%s", why);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The paths                                                                 */

enum path { P_RAW, P_READ, P_POSIX, P_DIRECT, P_PGCOPY, P_PINCOPY, P_CUFILE, NPATHS };
static const char *const series_name[NPATHS] = { "raw_odirect_host", "buffered_host",
	"posix_pageable", "odirect_pinned", "pageable_copy", "pinned_copy", "cufile" };
#define NCLAIMS 4
/* Each claim's per-round ratio: the time of num[0] (+ num[1]) over den's. */
static const struct ratio_def {
	enum path num[2], den; /* num[1] NPATHS: none */
	const char *name;
	int hl; /* decided by lab_est_hl_ratio, not the median: see decide() */
} ratio_def[NCLAIMS] = {
	{ { P_POSIX, NPATHS }, P_DIRECT, "posix_over_odirect", 1 },
	{ { P_READ, P_PGCOPY }, P_POSIX, "stages_over_chain", 0 },
	{ { P_POSIX, NPATHS }, P_CUFILE, "posix_over_cufile", 0 },
	{ { P_READ, NPATHS }, P_PINCOPY, "read_over_pcie", 0 },
};

/* A chain reads into a host buffer of a chunk (fd < 0: it only copies what the
 * buffer holds), then copies it to the GPU (to_gpu), piece bytes a transfer
 * (0: the chunk), each read waiting for the copy before it. */
struct chain {
	int fd, to_gpu;
	void *buf;
	uint64_t piece;
};

struct rig {
	struct lab *L;
	struct plan plan;
	struct storage_file f;
	struct storage_where where;
	double t0;                 /* the run's start */
	void *pageable, *huge;     /* a chunk each: the POSIX path's; the O_DIRECT paths' */
	void *dev;                 /* the file's copy in GPU memory; NULL: no GPU */
	int have[NPATHS], rounds;
	long cached_max;           /* most pages cached after an eviction; -1 unknown */
	struct chain chain[NPATHS];
	/* s; share; NaN in a round that left the path out (measure: an extension round) */
	double secs[NPATHS][LAB_MAX_SAMPLES], in_read[NPATHS][LAB_MAX_SAMPLES];
	struct storage_counters io[NPATHS];  /* the device's, summed over the timed passes */
	struct lab_stats rate[NPATHS], ratio[NCLAIMS]; /* GB/s; x */
#if DMALAB_HAVE_CUDA
	cudaStream_t stream;
	cudaEvent_t copied;        /* the last copy out of the buffer */
	struct lab_cufile cf;
	struct lab_copy_link link;
#endif
};

/* Paths that read the file (from a cold page cache), and those that bring the whole
 * file to the GPU, checked word by word (the copy-only passes copy one chunk's buffer). */
static int reads_file(enum path p)
{
	return p != P_PGCOPY && p != P_PINCOPY;
}

static int ends_on_gpu(const struct rig *r, enum path p)
{
	return r->dev && reads_file(p) && p != P_RAW && p != P_READ;
}

#if DMALAB_HAVE_CUDA
static void copy_wait(struct rig *r)
{
	CUDA_CHECK(r->L, cudaEventSynchronize(r->copied));
}

static void copy_start(struct rig *r, uint64_t off, const void *src, uint64_t len)
{
	CUDA_CHECK(r->L, cudaMemcpyAsync((char *)r->dev + off, src, (size_t)len,
					 cudaMemcpyHostToDevice, r->stream));
	CUDA_CHECK(r->L, cudaEventRecord(r->copied, r->stream));
}

/* Before a pass the GPU copy is zeroed; after it, every word must be the file's. */
static void gpu_check(struct rig *r, enum path p, int after)
{
	long long bad = 0;

	if (!after) {
		CUDA_CHECK(r->L, cudaMemsetAsync(r->dev, 0, (size_t)r->f.bytes, r->stream));
		CUDA_CHECK(r->L, cudaStreamSynchronize(r->stream));
		return;
	}
	CUDA_CHECK(r->L, cudaDeviceSynchronize());
	CUDA_CHECK(r->L, lab_gpu_count_bad(r->dev, r->f.bytes, r->plan.seed, &bad));
	if (bad && p == P_CUFILE && K.cufile_timed) { /* cuFile's fault: 10.3 skips, not the lab */
		snprintf(r->cf.why, sizeof(r->cf.why), "cuFileRead gave %lld wrong words", bad);
		r->have[P_CUFILE] = 0;
	} else if (bad) {
		lab_error(r->L, "%s: %lld of %llu words in GPU memory differ from the file",
			  series_name[p], bad, (unsigned long long)(r->f.bytes / 4));
	}
}

static double cufile_pass(struct rig *r)
{
	double t = lab_cufile_pass(&r->cf, r->f.bytes, r->plan.chunk);

	r->have[P_CUFILE] = t > 0; /* after an error, 10.3 skips with cf.why */
	return t;
}
#else
static void copy_wait(struct rig *r) {}
static void copy_start(struct rig *r, uint64_t off, const void *src, uint64_t len) {}
static void gpu_check(struct rig *r, enum path p, int after) {}
static double cufile_pass(struct rig *r) { return -1; }
#endif

/*
 * One chunk of the test file at off into buf: the read each chain times.
 * Through the page cache into pageable memory (the POSIX path's
 * descriptor), or by DMA from the device straight into buf (the O_DIRECT
 * one: buf, len and off are whole 2 MiB).  A short read goes on from where
 * it stopped.  0, or -1 with errno (EIO: the file ended early).
 */
static int read_chunk(int fd, void *buf, uint64_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, (size_t)len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		buf = (char *)buf + n;
		len -= (uint64_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* The chunk at off, in buf, to the GPU: transfers of c->piece bytes (0: the whole
 * chunk), each waited for before the next read or transfer. */
static void copy_chunk(struct rig *r, const struct chain *c, uint64_t off)
{
	uint64_t chunk = r->plan.chunk, piece = c->piece ? c->piece : chunk, done;

	for (done = 0; done < chunk; done += piece) {
		copy_start(r, off + done, (const char *)c->buf + done, piece);
		copy_wait(r);
	}
}

/* One pass of a chain: seconds, and those spent in pread added to *read_s. */
static double run_chain(struct rig *r, const struct chain *c, double *read_s)
{
	double t0 = lab_now(), t;
	uint64_t off, chunk = r->plan.chunk;

	for (off = 0; off < r->f.bytes; off += chunk) {
		t = lab_now();
		if (c->fd >= 0 && read_chunk(c->fd, c->buf, chunk, off) < 0)
			lab_error_errno(r->L, "reading the test file at byte %llu",
					(unsigned long long)off);
		*read_s += lab_now() - t;
		if (c->to_gpu)
			copy_chunk(r, c, off);
	}
	return lab_now() - t0;
}

/* 10.2's sabotage: the whole file read into the page cache, untimed. */
static void warm_page_cache(struct rig *r)
{
	struct chain read_only = { r->f.fd, 0, r->pageable, 0 };
	double ignored = 0;

	run_chain(r, &read_only, &ignored);
}

/*
 * One pass of path p, from a cold page cache where it reads the file,
 * checked on the GPU where it brings the file there: seconds (-1 if cuFile
 * failed); the device's counters over it go into *io.
 */
static double sample(struct rig *r, enum path p, double *read_s, long *cached,
		     struct storage_counters *io)
{
	struct storage_counters a, b;
	int on_gpu = ends_on_gpu(r, p), counted;
	double t;

	*cached = reads_file(p) ? storage_evict(&r->f) : 0;
	*read_s = 0;
	if (p == P_POSIX && !K.chain_cold)
		warm_page_cache(r);
	if (on_gpu)
		gpu_check(r, p, 0);
	counted = storage_counters_read(r->where.stat_path, &a) == 0;
	if (p == P_CUFILE && K.cufile_timed)
		t = cufile_pass(r);
	else
		t = run_chain(r, &r->chain[p], read_s);
	if (counted && t > 0 && storage_counters_read(r->where.stat_path, &b) == 0)
		storage_counters_add(io, &a, &b);
	if (on_gpu && t > 0)
		gpu_check(r, p, 1);
	return t;
}

/* Claim c's ratio in round i. */
static double round_ratio(const struct rig *r, int c, int i)
{
	const struct ratio_def *d = &ratio_def[c];
	double num = r->secs[d->num[0]][i];

	if (d->num[1] != NPATHS)
		num += r->secs[d->num[1]][i];
	return num / r->secs[d->den][i];
}

static int ratio_known(const struct rig *r, int c)
{
	const struct ratio_def *d = &ratio_def[c];

	return r->dev && r->have[d->num[0]] && r->have[d->den] &&
	       (d->num[1] == NPATHS || r->have[d->num[1]]);
}

/* The values of v[0..n) that are numbers, into out; how many. */
static int kept(const double *v, int n, double *out)
{
	int i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			out[m++] = v[i];
	return m;
}

/* The median of the numbers among v[0..n) (NaN: a round without the path). */
static double kept_median(const double *v, int n)
{
	double k[LAB_MAX_SAMPLES];

	return lab_median(k, kept(v, n, k));
}

/* The interval claim c is decided on (decide()): the Hodges-Lehmann center's or
 * the median's, at one series' level. */
static struct lab_est ratio_estimate(const struct rig *r, int c)
{
	return ratio_def[c].hl ? lab_est_hl_ratio(&r->ratio[c], 1) :
				 lab_est_median(&r->ratio[c], 1);
}

/*
 * The claims' per-round time ratios over the first n rounds, each over the
 * rounds that ran all of its paths: the widest of their medians' 95 %
 * intervals, as a share of the median (lab.h's stopping rule); a ratio whose
 * interval straddles its want's edge counts as wider than the rule (a ratio
 * about 1.06 by 10 % straddles 1.1 however narrow the rule calls it: 10.1's
 * sabotage on an H200, 2026-12-03).  wide[p] gets 1 for each path of a ratio
 * wider than the rule's LAB_STOP_WIDTH or straddling.  A ratio that got rounds
 * past `first` is decided as a remeasured series; one whose paths ran no extra
 * round keeps the level of a single series.
 */
static double make_ratios(struct rig *r, int n, int first, int *wide)
{
	double v[LAB_MAX_SAMPLES], k[LAB_MAX_SAMPLES], extra[LAB_MAX_SAMPLES], width = 0, w;
	const struct ratio_def *d;
	int c, i, m;

	memset(wide, 0, sizeof(int) * NPATHS);
	for (c = 0; c < NCLAIMS; c++) {
		if (!ratio_known(r, c))
			continue;
		d = &ratio_def[c];
		for (i = 0; i < n; i++)
			v[i] = round_ratio(r, c, i);
		m = kept(v, n, k);
		lab_stats_from(&r->ratio[c], d->name, "x", k, m, 0);
		/* extended: a round past the first ones ran all of its paths */
		r->ratio[c].remeasured = n > first && kept(v + first, n - first, extra) > 0;
		w = lab_median_interval_width(k, m);
		if (lab_relation_verdict(&claims[c].want, ratio_estimate(r, c), NULL) ==
		    LAB_STRADDLES)
			w = fmax(w, 2 * LAB_STOP_WIDTH);
		width = fmax(width, w);
		if (w > LAB_STOP_WIDTH) {
			wide[d->num[0]] = wide[d->den] = 1;
			if (d->num[1] != NPATHS)
				wide[d->num[1]] = 1;
		}
	}
	return width;
}

/*
 * Rounds of one pass by each path, the order rotated each round, after a
 * warm-up round.  While a claim ratio's median interval is wider than the
 * stopping rule's 10 % (on the ratio, where the disk's drift cancels), one
 * more round, up to twice --iters (six times under --quick, whose shorter
 * passes a sabotage needs more of), where it fits in the run's time bound at
 * the pace of the last round (README, Rounds: the rules before).  An
 * extension round runs only the paths of the ratios still wide: 10.1's
 * sabotage needs its two passes many more times, the other claims none, and
 * the same bound then holds about three times the rounds of the one claim
 * that needs them.  In three H200 runs, rounds 19-27 changed no verdict:
 * each claim's interval at 18 rounds was already on the side of its want
 * where 25-27 left it.
 */
static void measure(struct rig *r)
{
	int n = lab_options(r->L)->iters, first = n, round, j, said = 0, wide[NPATHS];
	int most = (lab_options(r->L)->quick ? 6 : 2) * n;
	int cap = most < LAB_MAX_SAMPLES ? most : LAB_MAX_SAMPLES;
	double t, read_s, began, fits;
	struct storage_counters warm_up = { 0 };
	long cached;

	for (j = 0; j < NPATHS; j++)
		wide[j] = 1;
	for (round = -1; round < n; round++) {
		began = lab_now();
		for (j = 0; j < NPATHS; j++) {
			enum path p = (enum path)((round + 1 + j) % NPATHS);

			if (!r->have[p])
				continue;
			if (round >= first && !wide[p]) {
				r->secs[p][round] = r->in_read[p][round] = NAN;
				continue;
			}
			if (round < 0)
				lab_progress(r->L, MSG("10.progress-1", "warm-up round: %s"),
					     series_name[p]);
			else
				lab_progress(r->L, MSG("10.progress-2", "round %d of %d: %s"),
					     round + 1, n,
					     series_name[p]);
			t = sample(r, p, &read_s, &cached, round < 0 ? &warm_up : &r->io[p]);
			if (round < 0 || t <= 0)
				continue;
			r->secs[p][round] = t;
			r->in_read[p][round] = read_s / t;
			r->cached_max = cached < 0 || r->cached_max < 0 ? -1 :
					cached > r->cached_max ? cached : r->cached_max;
		}
		fits = lab_now() - r->t0 + (lab_now() - began) < 0.8 * r->plan.budget_s;
		if (round < n - 1 || n >= cap || make_ratios(r, n, first, wide) <= LAB_STOP_WIDTH)
			continue;
		if (!said++)
			lab_note(r->L, MSG("10.wide",
				"a claim ratio's interval is over 10 %% wide, or across its "
				 "want's edge, after %d rounds: %s"), n,
				 fits ? "more, one at a time" :
				 "no more, they would pass the time bound");
		n += fits;
	}
	make_ratios(r, r->rounds = n, first, wide);
}

/* Path p's rate (GB/s) as a series, a line of the table and facts; with load,
 * the device's counters under it too. */
static void report_path(struct rig *r, int p, int load)
{
	struct storage_load d = storage_load_of(&r->io[p]);
	struct lab_stats s;
	struct lab_est e;
	double secs[LAB_MAX_SAMPLES];
	char key[64];

	lab_stats_from(&s, series_name[p], "s", secs, kept(r->secs[p], r->rounds, secs), 0);
	lab_stats_to_rate(&s, r->f.bytes, &r->rate[p]);
	e = lab_est_median(&r->rate[p], 1);
	if (load)
		lab_note(r->L, "  %-22s %7.3f [%.3f, %.3f]  %.2f  %.2f   %6.0f  %5.1f  %.2f",
			 r->rate[p].name, e.value, e.lo, e.hi, e.value / r->rate[P_RAW].median,
			 kept_median(r->in_read[p], r->rounds), d.req_kib, d.depth, d.busy);
	else
		lab_note(r->L, "  %-22s %7.3f [%.3f, %.3f]  %.2f  %.2f", r->rate[p].name, e.value,
			 e.lo, e.hi, e.value / r->rate[P_RAW].median,
			 kept_median(r->in_read[p], r->rounds));
	snprintf(key, sizeof(key), "%s_gbs", r->rate[p].name);
	lab_fact_num(r->L, key, e.value, "GB/s");
	snprintf(key, sizeof(key), "%s_request_kib", r->rate[p].name);
	lab_fact_num(r->L, key, d.req_kib, "KiB");
	snprintf(key, sizeof(key), "%s_queue_depth", r->rate[p].name);
	lab_fact_num(r->L, key, d.depth, "requests");
}

/* The pageable copy alone over the POSIX chain, the median of the rounds: the
 * copy's share of the chapter's chain (the read's is the rest). */
static double copy_share(const struct rig *r)
{
	double v[LAB_MAX_SAMPLES];
	int i;

	for (i = 0; i < r->rounds; i++)
		v[i] = r->secs[P_PGCOPY][i] / r->secs[P_POSIX][i];
	return kept_median(v, r->rounds);
}

/* GB/s by path, as series and facts, with the device's load under each. */
static void report(struct rig *r)
{
	int p, load = r->where.stat_path[0] != '\0'; /* the device's counters were read */

	if (load)
		lab_note(r->L, MSG("10.table-head", "%d rounds: GB/s median [95 %% interval], "
			"share of the device's rate, share of the time in pread; the device's mean "
			"request (KiB), reads in flight, busy share:"), r->rounds);
	else
		lab_note(r->L, MSG("10.table-head-noload", "%d rounds: GB/s median [95 %% "
			"interval], share of the device's rate, share of the time in pread (the "
			"device's load: unknown, no block device counters):"), r->rounds);
	for (p = 0; p < NPATHS; p++)
		if (r->have[p])
			report_path(r, p, load);
	lab_fact_num(r->L, "device_read_gbs", r->rate[P_RAW].median, "GB/s");
	lab_fact_num(r->L, "program_preads_in_flight", 1, "requests");
	lab_fact_num(r->L, "page_cache_pages_left_max", (double)r->cached_max, "pages");
	if (r->cached_max < 0)
		lab_note(r->L, MSG("10.inflight-unknown",
			"the program keeps one pread of %llu MiB in flight; how many of the "
			 "file's %llu pages stayed cached after an eviction is unknown (mincore "
			 "could not tell)"), (unsigned long long)(r->plan.chunk / MiB),
			 (unsigned long long)(r->f.bytes / r->f.page));
	else
		lab_note(r->L, MSG("10.inflight",
			"the program keeps one pread of %llu MiB in flight; after an "
			 "eviction at most %ld of the file's %llu pages stayed cached (mincore)"),
			 (unsigned long long)(r->plan.chunk / MiB), r->cached_max,
			 (unsigned long long)(r->f.bytes / r->f.page));
	if (r->dev)
		lab_fact_num(r->L, "posix_copy_share", copy_share(r), "fraction");
}

/* ------------------------------------------------------------------------ */
/* The GPU side and the decisions                                            */

#if DMALAB_HAVE_CUDA
/*
 * The O_DIRECT path's chain into *c: which descriptor each chunk is read
 * through, into which host buffer, before its copy to the GPU (to_gpu 1,
 * piece 0: the chunk in one transfer).
 */
static void direct_chain(struct rig *r, struct chain *c)
{
	/* EXERCISE 10.odirect grades 10.1: read each chunk with O_DIRECT into pinned
	 * memory: c->fd the descriptor opened with O_DIRECT (r->f.fd_direct: the device
	 * DMAs into the buffer, no page cache), c->buf r->huge (a chunk of r->plan.chunk
	 * bytes in 2 MiB huge pages, aligned as O_DIRECT demands), page-locked in place
	 * with lab_cuda_register (cudaHostRegister, undone at exit; CUDA_CHECK(r->L, ...))
	 * so the copy engine takes the chunk on by DMA, unstaged; c->to_gpu 1, c->piece 0 */
	CUDA_CHECK(r->L, lab_cuda_register(r->huge, r->plan.chunk));
	c->fd = r->f.fd_direct;
	c->buf = r->huge;
	c->to_gpu = 1;
	c->piece = 0;
	/* STUB
	c->fd = r->f.fd; // the POSIX path's for now: buffered reads into pageable memory
	c->buf = r->pageable;
	c->to_gpu = 1;
	c->piece = 0;
	END STUB */
	/* END EXERCISE */
}

/* The file's copy in GPU memory, a stream; each path's chain (the O_DIRECT one pins the
 * huge buffer); cuFile. */
static void gpu_setup(struct rig *r)
{
	struct chain posix = { r->f.fd, 1, r->pageable, 0 }, direct,
		     pageable_copy = { -1, 1, r->pageable, 0 },
		     pinned_copy = { -1, 1, NULL, K.pcie_bulk ? 0 : (uint64_t)4096 };
	struct lab *L = r->L;

	lab_cuda_require(L, 1);
	lab_cuda_require_free(L, need_bytes(1, r->f.bytes, GPU_SPARE), " (the file + 512 MiB)");
	lab_copy_link_probe(L, lab_options(L)->device, &r->link);
	r->dev = lab_cuda_alloc(L, LAB_BUF_DEVICE, r->f.bytes);
	/* its own buffer: a learner's direct_chain may leave r->huge pageable */
	pinned_copy.buf = lab_cuda_alloc(L, LAB_BUF_PINNED, r->plan.chunk);
	/* anonymous memory, pinned in place: cudaHostAlloc's mapping is the driver's device
	 * file, which O_DIRECT may refuse (EFAULT) */
	direct_chain(r, &direct);
	r->stream = lab_cuda_stream_new(L);
	r->copied = lab_cuda_event_new(L, cudaEventDisableTiming);
	r->chain[P_POSIX] = r->chain[P_CUFILE] = posix; /* P_CUFILE's: when cuFile is not timed */
	r->chain[P_DIRECT] = K.direct_pinned ? direct : posix;
	r->chain[P_PGCOPY] = pageable_copy;
	r->chain[P_PINCOPY] = pinned_copy;
	r->have[P_POSIX] = r->have[P_DIRECT] = r->have[P_PGCOPY] = r->have[P_PINCOPY] = 1;
	if (lab_cufile_open(&r->cf, r->f.fd_direct, r->dev, r->f.bytes, r->plan.dir, "lab10")) {
		gpu_check(r, P_CUFILE, 0); /* one checked pass before any timing */
		if (cufile_pass(r) > 0)
			gpu_check(r, P_CUFILE, 1);
	}
	if (r->cf.why[0])
		lab_note(L, MSG("10.cufile", "cuFile: %s"), r->cf.why);
}

/*
 * A claim on the per-round ratio c, with its series and a note; undecided
 * (claim_inconclusive) where `unmet` names a condition the comparison
 * rests on that this run did not meet.  A ratio marked hl is decided on
 * its Hodges-Lehmann center (lab_est_hl_ratio), whose interval is about
 * 1.3 times narrower than the median's at the same rounds: 10.1, whose
 * sabotage compares the POSIX path with itself (a ratio symmetric about
 * 1 by construction) and came out [0.86, 1.18] on one H200 host by the
 * median, where its want's edge is 1.1.
 */
static void decide(struct rig *r, const char *id, int c, const char *unmet, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void decide(struct rig *r, const char *id, int c, const char *unmet, const char *fmt, ...)
{
	const struct ratio_def *d = &ratio_def[c];
	va_list ap;

	va_start(ap, fmt);
	claim_vnote(r->L, fmt, ap); /* fmt: a MSG(), the note in the learner's language */
	va_end(ap);
	claim_stats(r->L, &r->ratio[c]);
	claim_stats(r->L, &r->rate[d->num[0]]);
	if (d->num[1] != NPATHS)
		claim_stats(r->L, &r->rate[d->num[1]]);
	claim_stats(r->L, &r->rate[d->den]);
	if (unmet)
		claim_inconclusive(r->L, id, "%s", unmet);
	else
		claim_check(r->L, id, ratio_estimate(r, c));
}

/* What a cold-read claim rests on and this run lacked, or NULL; with sizes (10.1), the
 * two paths' mean requests must also be within 2x of each other, either way round. */
static const char *unmet(const struct rig *r, int sizes, char *buf, size_t len)
{
	struct storage_load d = storage_load_of(&r->io[P_DIRECT]);
	struct storage_load b = storage_load_of(&r->io[P_POSIX]);

	if (r->cached_max)
		return "NOT known cold: pages stayed cached after an eviction, or mincore could "
		       "not tell";
	if (!sizes || d.req_kib <= 0 || b.req_kib <= 0 || fabs(log(d.req_kib / b.req_kib)) <=
	    log(2.0))
		return NULL;
	snprintf(buf, len, "the O_DIRECT requests averaged %.0f KiB against the buffered path's "
		 "%.0f KiB, more than 2x apart: that compares request sizes, not copy paths",
		 d.req_kib, b.req_kib);
	return buf;
}

/* 10.3: the mode cuFile's reads took, else why it did not run, with what it was asked. */
static void decide_cufile(struct rig *r)
{
	struct lab_cufile *c = &r->cf;
	const char *mode = lab_cufile_report(r->L, c, r->have[P_CUFILE]);
	char asked[200], line[300], why[300];

	lab_cufile_log_error(c->log_path, line, sizeof(line));
	if (!r->have[P_CUFILE])
		claim_skip(r->L, "10.3", c->lib ? SKIP_UNSUPPORTED : SKIP_NO_LIBRARY, "%s%s%.200s",
			   c->why, line[0] ? "; cufile.log: " : "", line);
	else if (strcmp(mode, "nvidia-fs") && strcmp(mode, "P2PDMA")) {
		claim_stats(r->L, &r->ratio[2]);
		claim_stats(r->L, &r->rate[P_CUFILE]);
		claim_skip(r->L, "10.3", SKIP_UNSUPPORTED, "cuFile ran %s mode (reads: %lld "
			   "POSIX, %lld nvidia-fs, %lld P2PDMA, -1 not counted; nvidia_fs %d, "
			   "kernel P2PDMA %d; asked for %s) at %.2f GB/s, %.2fx the POSIX path's "
			   "rate", mode,
			   c->n_posix, c->n_nvfs, c->n_p2p, c->nvfs_loaded, c->kernel_p2pdma,
			   lab_cufile_asked(c, asked, sizeof(asked)), r->rate[P_CUFILE].median,
			   r->ratio[2].median);
	} else
		decide(r, "10.3", 2, unmet(r, 0, why, sizeof(why)), MSG("10.note-3",
		       "cuFile by %s %.2f GB/s (reads: %lld nvidia-fs, %lld P2PDMA, %lld POSIX), "
		       "POSIX %.2f GB/s"), mode,
		       r->rate[P_CUFILE].median, c->n_nvfs, c->n_p2p, c->n_posix,
		       r->rate[P_POSIX].median);
}

/* 10.4's note: the pinned copy's time for ch1's 16 GB of weights at this run's rate. */
#define CH1_WEIGHTS_GB 16.0

static void decide_all(struct rig *r)
{
	struct storage_load d = storage_load_of(&r->io[P_DIRECT]);
	struct storage_load b = storage_load_of(&r->io[P_POSIX]);
	char why[300];

	claim_stats(r->L, &r->rate[P_RAW]);
	decide(r, "10.1", 0, unmet(r, 1, why, sizeof(why)), MSG("10.note-1",
	       "POSIX %.2f GB/s (requests %.0f KiB, %.1f in flight), O_DIRECT into pinned "
	       "%.2f GB/s (%.0f KiB, %.1f), the device %.2f GB/s"),
	       r->rate[P_POSIX].median, b.req_kib, b.depth, r->rate[P_DIRECT].median,
	       d.req_kib, d.depth, r->rate[P_RAW].median);
	decide(r, "10.2", 1, unmet(r, 0, why, sizeof(why)), MSG("10.note-2",
	       "cold buffered read %.2f GB/s, pageable copy %.2f GB/s: composed %.2f GB/s; the "
	       "chain %.2f GB/s, the copy %.0f %% of it"),
	       r->rate[P_READ].median, r->rate[P_PGCOPY].median,
	       1 / (1 / r->rate[P_READ].median + 1 / r->rate[P_PGCOPY].median),
	       r->rate[P_POSIX].median, 100 * copy_share(r));
	decide_cufile(r);
	decide(r, "10.4", 3, unmet(r, 0, why, sizeof(why)), MSG("10.note-4",
	       "cold buffered read %.2f GB/s, pinned copy %.2f GB/s (ch1's %.0f GB of weights: "
	       "%.2f s over PCIe, %.1f s to read at this disk's rate)"),
	       r->rate[P_READ].median, r->rate[P_PINCOPY].median,
	       CH1_WEIGHTS_GB, CH1_WEIGHTS_GB / r->rate[P_PINCOPY].median,
	       CH1_WEIGHTS_GB / r->rate[P_READ].median);
	lab_cufile_close(&r->cf); /* now, while CUDA and the GPU buffer are there */
}
#endif

/* ------------------------------------------------------------------------ */
/* The host buffers, RDMA, the method                                        */

/* The O_DIRECT buffer: huge pages, so a request is not cut at every 4 KiB page. */
static void map_buffers(struct rig *r)
{
	struct smaps_range s;
	uint64_t huge = 0;

	r->pageable = buf_map_or_die(r->L, r->plan.chunk, 0, BUF_TOUCH);
	r->huge = buf_map_or_die(r->L, r->plan.chunk, HUGE, BUF_TOUCH | BUF_HUGE);
	if (smaps_range_read(NULL, (uintptr_t)r->huge, r->plan.chunk, &s) == 0)
		huge = s.anon_huge;
	lab_fact_num(r->L, "odirect_buffer_huge_share", (double)huge / r->plan.chunk, "");
}

/* GPUDirect RDMA (ch1 Q4) needs an RDMA NIC and a second machine: only counted here. */
static void report_rdma(struct lab *L)
{
	glob_t g;
	int n = glob("/sys/class/infiniband/*", 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;

	if (n)
		globfree(&g);
	lab_fact_num(L, "rdma_devices", n, "");
	lab_note(L, MSG("10.rdma",
		"%d RDMA device(s): ch1's GPUDirect RDMA figure (45 GB/s from a 400 Gb/s NIC) "
		 "needs one and a second machine"), n);
}

/*
 * The method: the host buffers and the test file, what it lies on; the GPU
 * side where there is one; the rounds; the table; the decisions (or,
 * without a GPU, the skips after the host passes); cuFile closed and the
 * file removed before the exit.
 */
static void run(struct lab *L)
{
	struct rig *r = (struct rig *)calloc(1, sizeof(*r));
	const char *why = SKIP_NOT_BUILT_NO_NVCC;
	char detail[200] = "built without nvcc: the GPU paths need CUDA", room[200], a[32];

	if (!r)
		lab_error(L, "out of memory");
	r->L = L;
	r->t0 = lab_now();
	read_plan(L, &r->plan); /* check_opts has taken it */
	if (storage_dir_room(r->plan.dir, r->plan.bytes + SPACE_SPARE, room, sizeof(room)) < 0)
		lab_skip(L, SKIP_NOT_ENOUGH_SPACE, "%s (the test file and %d MiB beside it)", room,
			 (int)(SPACE_SPARE / MiB));
	lab_note(L, MSG("10.plan",
		"plan: up to 7 paths (4 reading the file) x a warm-up round and %d measured "
		 "rounds or more, of %s each, about %.0f s on a 1 GB/s disk (bound %.0f s)"),
		 lab_options(L)->iters,
		 lab_fmt_size(r->plan.bytes, a, sizeof(a)),
		 4.0 * (lab_options(L)->iters + 1) * r->plan.bytes / 1e9, r->plan.budget_s);
	map_buffers(r);
	storage_file_make(L, &r->f, &r->where, r->plan.dir, r->plan.dir_default, "lab10",
			  r->plan.bytes, r->plan.chunk, r->plan.seed, r->pageable);
	if (r->f.fd_direct < 0)
		lab_skip(L, SKIP_UNSUPPORTED, "open(O_DIRECT) in '%s': %s", r->plan.dir,
			 strerror(r->f.direct_errno));
	report_rdma(L);
	struct chain raw = { r->f.fd_direct, 0, r->huge, 0 },
		     buffered = { r->f.fd, 0, r->pageable, 0 };
	r->chain[P_RAW] = raw;
	r->chain[P_READ] = buffered;
	r->have[P_RAW] = r->have[P_READ] = 1;
#if DMALAB_HAVE_CUDA
	if (!(why = lab_cuda_unavailable(1, detail, sizeof(detail))))
		gpu_setup(r);
#endif
	measure(r);
	report(r);
	if (why) {
		claim_stats(L, &r->rate[P_RAW]);
		claim_stats(L, &r->rate[P_READ]);
		claim_skip_rest(L, why, "%s; the host passes ran (notes)", detail);
	}
#if DMALAB_HAVE_CUDA
	else
		decide_all(r);
#endif
	storage_file_close(&r->f); /* cuFile's log goes at exit */
	free(r);
}

LAB_MAIN(spec, run)
