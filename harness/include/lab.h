/*
 * lab.h - the API every dmalab lab is written against.
 *
 * A lab is one program that measures this machine and checks the claims two
 * textbook chapters make.  It declares its metadata and claims statically (one
 * source of truth; `--describe` prints them without measuring), then its run
 * function measures and records one verdict per claim.
 *
 * Skeleton of a lab (see labs/01-mlock/lab.c for a real one):
 *
 *	static const struct claim_spec claims[] = {
 *		{ "01.1", "ch1.Q1", "mlock of 64 MiB raises VmLck by 64 MiB",
 *		  "mlock is skipped, so VmLck does not move" },
 *		{ NULL }
 *	};
 *	static const struct lab_spec spec = {
 *		.id = "01", .title = "mlock and VmLck", .timeout_s = 60,
 *		.claims = claims,
 *	};
 *	static void run(struct lab *L) { ... claim_near(L, "01.1", ...); ... }
 *	LAB_MAIN(spec, run)
 *
 * Invariants the library enforces:
 *  - every claim in the spec gets exactly one verdict before run() returns;
 *    a claim left undecided is a bug in the lab: the lab exits 99 (error);
 *  - a verdict comes from a value measured in this run; a relation on a NaN or
 *    infinite value fails;
 *  - a skip names one of the fixed reason codes below plus what was detected.
 *
 * Units: sizes in bytes (uint64_t), times in seconds (double) unless a name
 * says _ns, rates in GB/s with 1 GB = 1e9 bytes; GiB = 2^30 bytes.
 *
 * Output (see harness/PROTOCOL.md): TAP version 13 on stdout, one test point
 * per claim with a YAML block (got, want, op, tol, unit, stats, reason), the
 * narrative as TAP comments; with --json FILE the same record as JSON, written
 * again after every claim (atomically) so a crash leaves what was decided.
 *
 * Exit codes: 0 all decided claims passed (skips and inconclusive allowed),
 * 1 a claim failed, 77 whole lab skipped (0 when DMALAB_TAP=1, so `prove`
 * counts it as a skip), 99 setup error or a lab bug, 2 usage.
 *
 * The harness library is plain C; lab.cu files include it from C++ (nvcc).
 */
#ifndef DMALAB_LAB_H
#define DMALAB_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LAB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define LAB_NORETURN __attribute__((noreturn))
#else
#define LAB_PRINTF(f, a)
#define LAB_NORETURN
#endif

#define KiB (1024ULL)
#define MiB (1024ULL * 1024ULL)
#define GiB (1024ULL * 1024ULL * 1024ULL)

/* ------------------------------------------------------------------------ */
/* Metadata                                                                  */

/*
 * One checkable statement of a chapter.  `want` is what the chapter says,
 * never what this machine is expected to do.
 */
struct claim_spec {
	const char *id;       /* stable id "NN.k", e.g. "02.1" */
	const char *question; /* chapter question it backs: "ch1.Q2", "ch2.S4" */
	const char *text;     /* the claim as the chapter makes it, one line */
	const char *sabotage; /* what the -DLAB_SABOTAGE build does so that this
			       * claim must fail; NULL if the build leaves it */
};

/* Preconditions the runner shows in `dmalab list` and the lab re-checks. */
struct lab_needs {
	int cuda_devices; /* GPUs needed for the CUDA claims (0: CPU only) */
	int numa_nodes;   /* NUMA nodes the full lab wants (1 = any machine) */
	int root;         /* 1: some claims need uid 0 (they skip otherwise) */
};

struct lab;

/* A lab-specific option, parsed with the common ones. */
struct lab_extra_opt {
	const char *name; /* long option name without dashes */
	const char *arg;  /* argument name for --help, NULL for a flag */
	const char *help; /* one line */
};

struct lab_spec {
	const char *id;    /* "02": the number in `make lab-02` */
	const char *title; /* short title */
	const char *topic; /* one sentence: the question the lab answers */
	int timeout_s;     /* the runner kills the lab after timeout_s x mul */
	struct lab_needs needs;
	const struct claim_spec *claims;       /* terminated by { NULL } */
	const struct lab_extra_opt *extra_opts; /* terminated by { NULL }; may be NULL */
	/*
	 * Called instead of the lab when `--role NAME` is given: a helper
	 * process that the lab starts with fork+exec of itself (never fork
	 * after CUDA is initialised).  Prints no TAP; returns the exit code.
	 */
	int (*role)(struct lab *L, const char *role);
	uint64_t default_size; /* bytes, for --size; 0 if the lab takes none */
	int default_iters;     /* samples per measurement; >= 7 */
	/*
	 * Optional: checks the parsed options before anything is printed.
	 * Returns 0, or prints one line naming the bad value on stderr and
	 * returns 2 (the exit code).
	 */
	int (*check_opts)(const struct lab *L);
};

/* ------------------------------------------------------------------------ */
/* Options                                                                   */

/*
 * Common options every lab accepts:
 *   --help, --describe, --quick, --json FILE, --size N[K|M|G|T],
 *   --iters N (>= 7), --device N, --seed N, --verbose, --role NAME
 * plus the spec's extra_opts.  Bad input: one line on stderr naming the bad
 * value, exit 2.
 */
struct lab_opts {
	int quick;            /* small sizes, for CI */
	uint64_t size;        /* bytes; spec.default_size unless --size */
	int size_given;       /* 1 if --size was on the command line */
	int iters;            /* samples per measurement */
	int device;           /* CUDA device ordinal */
	uint64_t seed;        /* for pseudo-random inputs; recorded */
	int verbose;
	const char *json_path; /* NULL: no JSON */
	const char *role;      /* NULL: the lab itself */
};

/* The option value of an extra option, or NULL when not given. */
const char *lab_opt(const struct lab *L, const char *name);
const struct lab_opts *lab_options(const struct lab *L);
const struct lab_spec *lab_spec_of(const struct lab *L);
/* The path this program was started as (argv[0]), for fork+exec of itself. */
const char *lab_self_path(const struct lab *L);

/*
 * Parse a size: decimal digits with an optional K, M, G or T suffix (binary:
 * K = 1024), optionally followed by "iB" or "B".  Returns 0 and sets *out, or
 * -1 (errno = EINVAL for garbage or empty or zero, ERANGE for overflow).
 */
int lab_parse_size(const char *s, uint64_t *out);
/* Parse a non-negative decimal integer in [min, max]: 0 or -1 as above. */
int lab_parse_long(const char *s, long min, long max, long *out);
/* Format bytes as "64 MiB", "4 KiB", "1.5 GiB" into buf (>= 32 bytes). */
const char *lab_fmt_size(uint64_t bytes, char *buf, size_t len);
/* Bytes in the syntax of --size, exact, for messages: "64M", "1536K", "1000". */
const char *lab_size_arg(uint64_t bytes, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Clock and timing                                                          */

/* CLOCK_MONOTONIC in seconds and in nanoseconds. */
double lab_now(void);
uint64_t lab_now_ns(void);
/* Smallest observable step of lab_now(), measured once and cached (s). */
double lab_clock_resolution(void);
/* Keeps `v` alive so the compiler cannot delete the work that made it. */
void lab_sink(uint64_t v);

/* ------------------------------------------------------------------------ */
/* Measurement                                                               */

#define LAB_MAX_SAMPLES 1024

/*
 * Statistics of one measured series.  Samples are kept in the unit of
 * `unit` (seconds from lab_measure; GB/s after lab_stats_to_rate).  The
 * median is what claims compare.  `noisy` is set when cv stayed above the
 * limit after one re-measure: a claim using such stats is `inconclusive`.
 */
struct lab_stats {
	const char *name; /* series name, e.g. "h2d_pinned" (static string) */
	const char *unit; /* "s", "GB/s", "ns", ... (static string) */
	int n;            /* samples kept */
	int warmup;       /* runs discarded before sampling */
	double median, min, max, mean, cv; /* cv = stddev / mean */
	double samples[LAB_MAX_SAMPLES];
	int noisy;        /* cv > cv_max after the re-measure */
	int too_short;    /* a sample was under 100 clock resolutions */
	double cv_max;
};

/* One timed run: returns its duration in seconds (> 0), or < 0 on error. */
typedef double (*lab_run_fn)(void *ctx);

struct lab_measure_cfg {
	int warmup;    /* default 2 */
	int samples;   /* default: --iters (>= 7) */
	double cv_max; /* default 0.10 */
};

/*
 * Run fn warmup times (discarded), then `samples` times; compute the
 * statistics.  If cv > cv_max, measure once more and keep the second series;
 * if it is still over, set noisy.  A negative return from fn is a setup
 * error: lab_error().  cfg may be NULL for the defaults.
 */
void lab_measure(struct lab *L, const char *name, lab_run_fn fn, void *ctx,
		 const struct lab_measure_cfg *cfg, struct lab_stats *out);

/* Recompute n, median, min, max, mean, cv from out->samples[0..n). */
void lab_stats_compute(struct lab_stats *s);
/* Convert a series of durations (s) for `bytes` into GB/s (1e9 B/s). */
void lab_stats_to_rate(const struct lab_stats *secs, uint64_t bytes,
		       struct lab_stats *rate);
/* Scale every sample by k and set the unit (e.g. s -> ns with 1e9). */
void lab_stats_scale(struct lab_stats *s, double k, const char *unit);
/* Median of v[0..n) (v is reordered). NaN for n == 0. */
double lab_median(double *v, int n);

/* ------------------------------------------------------------------------ */
/* Claims                                                                    */

/*
 * Every claim function records the verdict of one claim of the spec.  `got`
 * is this run's value; `unit` names its unit ("GB/s", "x", "MiB", "errno").
 * Attach the series behind a claim with claim_stats() before deciding it.
 *
 * near:  pass iff |got - want| <= abs + rel * |want|   (numpy.isclose's rule)
 * ge/gt/le/lt: pass iff got >= want (etc.); in_range: lo <= got <= hi
 * ratio_ge/le: got = num->median / den->median, pass iff got >= k (<= k)
 * int_eq / errno_eq / cuda_err_eq: exact integer equality (errno and CUDA
 * errors are recorded with their names).
 * A NaN or infinite got (or want) fails.  A noisy attached series turns the
 * verdict into `inconclusive` when scaling got by the series' relative spread
 * ((max - min) / median, summed over the noisy series) either way would
 * change it.
 */
void claim_near(struct lab *L, const char *id, double got, double want,
		double abs_tol, double rel_tol, const char *unit);
void claim_ge(struct lab *L, const char *id, double got, double want, const char *unit);
void claim_gt(struct lab *L, const char *id, double got, double want, const char *unit);
void claim_le(struct lab *L, const char *id, double got, double want, const char *unit);
void claim_lt(struct lab *L, const char *id, double got, double want, const char *unit);
void claim_in_range(struct lab *L, const char *id, double got, double lo, double hi,
		    const char *unit);
void claim_ratio_ge(struct lab *L, const char *id, const struct lab_stats *num,
		    const struct lab_stats *den, double k);
void claim_ratio_le(struct lab *L, const char *id, const struct lab_stats *num,
		    const struct lab_stats *den, double k);
void claim_int_eq(struct lab *L, const char *id, long long got, long long want,
		  const char *unit);
void claim_errno_eq(struct lab *L, const char *id, int got_errno, int want_errno);
void claim_cuda_err_eq(struct lab *L, const char *id, int got, const char *got_name,
		       int want, const char *want_name);
/* A true/false observation ("the importer saw the exporter's pattern"). */
void claim_true(struct lab *L, const char *id, int got, const char *what);

/*
 * The relation behind every numeric claim, exposed for the unit tests:
 * op is "near" (a = want, abs/rel tolerances), "ge", "gt", "le", "lt"
 * (a = want), or "in_range" (a = lo, b = hi).  0 for NaN/Inf inputs or an
 * unknown op.
 */
int lab_relation_holds(const char *op, double got, double a, double b,
		       double abs_tol, double rel_tol);

/* Attach a measured series to the next claim decided (up to 8); the
 * ratio claims attach their two series themselves. */
void claim_stats(struct lab *L, const struct lab_stats *s);
/* Attach a one-line explanation to the next claim decided (printf). */
void claim_note(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);

/*
 * Skip one claim: a precondition is missing here.  `reason` is one of the
 * codes below; detail says what was detected ("1 node, need 2").
 */
void claim_skip(struct lab *L, const char *id, const char *reason,
		const char *detail_fmt, ...) LAB_PRINTF(4, 5);
/* Skip every claim not yet decided, with one reason. */
void claim_skip_rest(struct lab *L, const char *reason, const char *detail_fmt, ...)
	LAB_PRINTF(3, 4);
/* 1 if the claim already has a verdict. */
int claim_decided(const struct lab *L, const char *id);

/*
 * Fixed skip reason codes (the runner, `dmalab list` and the tests rely on
 * this list; add here, never invent one in a lab):
 */
#define SKIP_NOT_BUILT_NO_NVCC "not-built:no-nvcc"   /* built without nvcc */
#define SKIP_NO_CUDA_DRIVER    "no-cuda-driver"      /* libcuda / driver missing */
#define SKIP_NO_CUDA_DEVICE    "no-cuda-device"      /* driver but no GPU */
#define SKIP_TOO_FEW_GPUS      "too-few-gpus"        /* needs more GPUs */
#define SKIP_GPU_TOO_SMALL     "gpu-too-small"       /* not enough free GPU memory */
#define SKIP_SINGLE_NUMA_NODE  "single-numa-node"    /* needs >= 2 memory nodes */
#define SKIP_NUMA_UNAVAILABLE  "numa-unavailable"    /* libnuma: no NUMA support */
#define SKIP_NOT_ROOT          "not-root"            /* needs uid 0 */
#define SKIP_NO_CAPABILITY     "no-capability"       /* a capability is missing */
#define SKIP_UNSUPPORTED       "unsupported"         /* kernel/driver lacks a feature */
#define SKIP_UNKNOWN_TOPOLOGY  "unknown-topology"    /* e.g. GPU NUMA node is -1 */
#define SKIP_DEPENDS_ON_CLAIM  "depends-on-claim"    /* a claim it builds on skipped */
#define SKIP_NOT_ENOUGH_MEMORY "not-enough-memory"   /* host memory too small */

/* 1 if reason is one of the codes above. */
int lab_skip_reason_valid(const char *reason);

/* Skip the whole lab: every undecided claim skips with reason; exit 77. */
LAB_NORETURN void lab_skip(struct lab *L, const char *reason, const char *detail_fmt, ...)
	LAB_PRINTF(3, 4);
/* Setup broke (not a finding): "Bail out!" line, undecided claims become
 * `error`, JSON written, exit 99. */
LAB_NORETURN void lab_error(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* As lab_error with ": strerror(errno)" appended. */
LAB_NORETURN void lab_error_errno(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);

/* Narrative line (a TAP comment "# ..."), always shown by `make lab-NN`. */
void lab_note(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* Like lab_note, but on a terminal the line is rewritten in place; for
 * progress on long runs.  Not written to the JSON. */
void lab_progress(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);

/*
 * A named fact for the record ("pcie_gen" = 5, "gpu_name" = "NVIDIA H200"):
 * goes to the JSON "facts" object and a TAP comment.
 */
void lab_fact_num(struct lab *L, const char *key, double v, const char *unit);
void lab_fact_str(struct lab *L, const char *key, const char *v);

/*
 * A point of a plotted series, e.g. bandwidth vs transfer size:
 * lab_series_point(L, "h2d_pinned", "bytes", 4096, &rate_stats).
 * Goes to the JSON "series" object with every sample; used by plots/.
 */
void lab_series_point(struct lab *L, const char *series, const char *x_unit,
		      double x, const struct lab_stats *y);

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */

/* 1 in a lab's -DLAB_SABOTAGE build (make sabotage / make selftest), else 0. */
#ifdef LAB_SABOTAGE
#define LAB_SABOTAGED 1
#else
#define LAB_SABOTAGED 0
#endif

/* How the lab's own file was compiled (LAB_MAIN passes it). */
#define LAB_BUILT_WITH_CUDA 1
#define LAB_BUILT_SABOTAGE 2
#ifdef LAB_SABOTAGE
#define LAB_BUILD_SABOTAGE_FLAG LAB_BUILT_SABOTAGE
#else
#define LAB_BUILD_SABOTAGE_FLAG 0
#endif

int lab_main(const struct lab_spec *spec, void (*run)(struct lab *L),
	     int argc, char **argv, int build_flags);

#define LAB_MAIN(spec, run)                                                  \
	int main(int argc, char **argv)                                      \
	{                                                                    \
		return lab_main(&(spec), (run), argc, argv,                  \
				(DMALAB_HAVE_CUDA ? LAB_BUILT_WITH_CUDA : 0) |       \
				LAB_BUILD_SABOTAGE_FLAG);                    \
	}

/*
 * A .cu lab compiled without nvcc (gcc -x c -DDMALAB_HAVE_CUDA=0) keeps its
 * metadata and replaces its body by this run function.
 */
#ifndef DMALAB_HAVE_CUDA
#define DMALAB_HAVE_CUDA 0
#endif
void lab_run_not_built(struct lab *L);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_LAB_H */
