/*
 * lab.h - the API every dmalab lab is written against (labs/README.md walks
 * through a real lab; harness/PROTOCOL.md gives the output and exit codes).
 *
 * Invariants the library enforces:
 *  - every claim in the spec gets exactly one verdict before run() returns;
 *    a claim left undecided is a bug in the lab: the lab exits 99 (error);
 *  - a verdict comes from a value measured in this run, by the relation in
 *    the claim's spec (never a want written in the deciding code); a NaN or
 *    infinite value fails;
 *  - a skip names one of the fixed reason codes below plus what was detected.
 *
 * Units: sizes in bytes (uint64_t), times in seconds (double) unless a name
 * says _ns, rates in GB/s with 1 GB = 1e9 bytes; GiB = 2^30 bytes.
 * The harness library is plain C; lab.cu files include it from C++ (nvcc).
 */
#ifndef DMALAB_LAB_H
#define DMALAB_LAB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clock.h"
#include "lang.h" /* MSG: narration in the learner's language */
#include "record.h"
#include "sizes.h" /* KiB..GiB, lab_parse_size, lab_fmt_size */
#include "want.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gcc, clang and nvcc's host compiler all take GNU attributes (usage.h's too) */
#define LAB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define LAB_NORETURN __attribute__((noreturn))

/* The largest --size a lab takes, 1 PiB: far past any machine, and far enough
 * under 2^64 that "size + spare" and "k x size" cannot wrap. */
#define LAB_SIZE_MAX (1024ULL * 1024ULL * GiB)

/* ---- Metadata ---- */

/*
 * One checkable statement of a chapter.  `want` is what the chapter says,
 * never what this machine is expected to do; `dmalab claims` prints every
 * spec as one table (golden: harness/tests/golden/claims.txt).
 */
struct claim_spec {
	const char *id;       /* stable id "NN.k", e.g. "02.1" */
	const char *question; /* the questions it backs, "ch1.Q2 ch2.S9": the first
			       * is its own; all count for grade (answers/README.md) */
	const char *text;     /* the claim as the chapter makes it, one line */
	const char *chapter;  /* the chapter's figure it translates, in our words */
	const char *rule;     /* the translation rule applied ("R3 +P %"), and
			       * why if the want departs from it */
	struct claim_want want;
	const char *sabotage; /* the mechanism the -DLAB_SABOTAGE build breaks
			       * so that this claim must fail; NULL if none */
	const char *root;     /* why this claim needs root; NULL: any user */
};

/* Preconditions the runner shows in `dmalab list` and the lab re-checks. */
struct lab_needs {
	int cuda_devices; /* GPUs needed for the CUDA claims (0: CPU only) */
	int numa_nodes;   /* NUMA nodes the full lab wants (1 = any machine) */
	int root;         /* 1: some claims need uid 0 (they skip otherwise) */
	/* The claims that need those GPUs, and those that need those NUMA nodes, by
	 * id, space-separated (as a knob's); NULL: every claim.  --describe gives
	 * each claim its own needs from them, so that `make exercises` can say which
	 * exercises this machine cannot grade before a learner writes one. */
	const char *cuda_claims;
	const char *numa_claims;
};

struct lab;

/*
 * A lab's own option (labs/README.md, "Options"): a typed one, written with
 * the macros below, lands in the lab's variable before check_opts and run;
 * an untyped one (LAB_OPT_TEXT) is taken as given, for check_opts.
 */
enum lab_opt_type {
	LAB_TYPE_TEXT, /* a value as given (arg != NULL), or a flag read by lab_opt() */
	LAB_TYPE_FLAG, /* *flag = 1 when given, else 0 */
	LAB_TYPE_LONG, /* *number = a whole number from min to max */
	LAB_TYPE_SIZE, /* *bytes = a size ("64M") from min to max */
};

struct lab_extra_opt {
	const char *name; /* long option name without dashes */
	const char *arg;  /* argument name for --help, NULL for a flag */
	const char *help; /* one line; --help adds the default, --quick's and the range */
	enum lab_opt_type type;
	int *flag;
	long *number;
	uint64_t *bytes;
	long long def, quick; /* the value when not given; under --quick */
	long long min, max;   /* the values taken, inclusive */
	const char *why;      /* SIZE: why min, after "need at least 64 MiB" */
};

#define LAB_OPT_TEXT(name, arg, help) { (name), (arg), (help) }
#define LAB_OPT_FLAG(name, var, help) { (name), NULL, (help), LAB_TYPE_FLAG, &(var) }
#define LAB_OPT_LONG(name, var, def, quick, min, max, help)                     \
	{ (name), "N", (help), LAB_TYPE_LONG, NULL, &(var), NULL, (def), (quick), \
	  (min), (max), NULL }
#define LAB_OPT_SIZE(name, var, def, quick, min, why, help)                          \
	{ (name), "N", (help), LAB_TYPE_SIZE, NULL, NULL, &(var), (long long)(def),    \
	  (long long)(quick), (long long)(min), (long long)LAB_SIZE_MAX, (why) }

/*
 * Sabotage knobs (labs/README.md): the experiment reads them, never
 * LAB_SABOTAGE.  The sabotage build breaks every knob before the lab
 * starts, or only those of the claims DMALAB_SABOTAGE names ("03.4"); a
 * claim no knob backs is a usage error.  Helpers inherit the environment.
 * A lab's `static struct knobs K` is not const, though it reads as a table:
 * which knobs break is read from the environment at run time, so lab_main
 * writes them once, before the lab's first step, and nothing writes them after.
 */
struct lab_knob {
	int *knob;
	int broken;          /* the value that breaks the mechanism */
	const char *claims;  /* the claims it backs, by id, space-separated */
	const char *name;    /* "K.shuffle", as written in the lab */
};
#define LAB_KNOB(field, broken_value, claim_ids) { &(field), (broken_value), (claim_ids), #field }

struct lab_spec {
	const char *id;    /* "02": the number in `make lab-02` */
	const char *title; /* short title */
	const char *topic; /* one sentence: the question the lab answers */
	int timeout_s;     /* the runner kills the lab after timeout_s x mul */
	struct lab_needs needs;
	const struct claim_spec *claims;       /* terminated by { NULL } */
	const struct lab_extra_opt *extra_opts; /* terminated by { NULL }; may be NULL */
	/* Run instead of the lab under `--role NAME` (a helper, helper.h); returns
	 * the exit code. */
	int (*role)(struct lab *L, const char *role);
	uint64_t default_size; /* bytes, for --size; 0 if the lab takes none */
	uint64_t quick_size;   /* --size under --quick; 0: default_size */
	uint64_t min_size;     /* the least --size taken; 0: any above 0 */
	uint64_t max_size;     /* the most --size taken; 0: LAB_SIZE_MAX */
	const char *size_why;  /* why min_size, after "need at least 64 MiB" */
	int default_iters;     /* samples per measurement; >= 7 */
	/* Optional: what types and ranges cannot say (one option against another):
	 * 0, or lab_usage_error's 2. */
	int (*check_opts)(const struct lab *L);
	const struct lab_knob *knobs;     /* terminated by { NULL }; may be NULL */
};

/* ---- Options ---- */

/* The common options (labs/README.md), plus the spec's extra_opts. */
struct lab_opts {
	int quick;            /* small sizes, for CI */
	uint64_t size;        /* bytes: --size, else spec.quick_size under --quick, else
			       * spec.default_size */
	int size_given;       /* 1 if --size was on the command line */
	int iters;            /* samples per measurement */
	int device;           /* CUDA device ordinal */
	int device_given;     /* 1 if --device was on the command line */
	uint64_t seed;        /* for pseudo-random inputs; recorded */
	int verbose;
	const char *json_path; /* NULL: no JSON */
	const char *role;      /* NULL: the lab itself */
};

/* The value of an extra option as given ("1" for a flag), or NULL. */
const char *lab_opt(const struct lab *L, const char *name);
const struct lab_opts *lab_options(const struct lab *L);
const struct lab_spec *lab_spec_of(const struct lab *L);
/* The path this program was started as (argv[0]), for fork+exec of itself. */
const char *lab_self_path(const struct lab *L);

/* ---- Measurement ---- */

#define LAB_MAX_SAMPLES 1024 /* the most samples a series keeps (n) */

/*
 * Statistics of one measured series; claims compare the median with its
 * interval.  A small value: copy it freely.  `samples` is library-owned
 * until exit and never written once made (every function that changes a
 * series gives it a new array), so a copy keeps its own samples.
 */
struct lab_stats {
	const char *name; /* series name, e.g. "h2d_pinned" (static string) */
	const char *unit; /* "s", "GB/s", "ns", ... (static string) */
	int n;            /* samples kept, <= LAB_MAX_SAMPLES */
	int warmup;       /* runs discarded before sampling */
	double median, min, max, mean, cv; /* cv = stddev / mean */
	const double *samples; /* [0..n), in measurement order; library-owned */
	int noisy;        /* still wider than LAB_STOP_WIDTH at the cap */
	int remeasured;   /* more than the minimum taken: it was wider at first */
	int too_short;    /* a sample was under 100 steps of its clock */
	double cv_max;    /* recorded only: sampling follows the stopping rule */
	double clock_res_s; /* the step of the clock that timed it (s) */
};

/* One timed run: returns its duration in seconds (> 0), or < 0 on error. */
typedef double (*lab_run_fn)(void *ctx);

/* cudaEventElapsedTime's resolution ("around 0.5 microseconds", the CUDA
 * Runtime API reference): the clock_res_s of event-timed series. */
#define LAB_CUDA_EVENT_RES_S 0.5e-6

struct lab_measure_cfg {
	int warmup;    /* default 2; < 0 for none */
	int samples;   /* the least kept; default: --iters (>= 7) */
	double cv_max; /* recorded with the series (default 0.10); decides nothing */
	double clock_res_s; /* step of the clock fn times with; 0: lab_now's */
	int max_samples; /* the most kept; default (0) 2 x samples; = samples: fixed */
};

/* The stopping rule's measure (LAB_STOP_WIDTH, want.h): (hi - lo) / |median|
 * of v[0..n)'s 95 % median interval; +Inf when n is too small for one (< 6),
 * a value is not finite, or the median is 0. */
double lab_median_interval_width(const double *v, int n);
/* 1 when v[0..n) meets the stopping rule (width <= LAB_STOP_WIDTH). */
int lab_stop_narrow(const double *v, int n);

/*
 * Run fn warmup times (discarded), then `samples` times; then one sample
 * at a time while the stopping rule is not met, up to max_samples
 * (remeasured when more than `samples` were taken; noisy when the cap came
 * first).  A sample under 100 clock steps sets too_short: every claim
 * decided on the series is then inconclusive (batch more work per sample).
 * A negative return from fn is lab_error().  cfg may be NULL.
 */
void lab_measure(struct lab *L, const char *name, lab_run_fn fn, void *ctx,
		 const struct lab_measure_cfg *cfg, struct lab_stats *out);

/*
 * A series a lab times by hand: the n samples (clock step clock_res_s, 0
 * for lab_now's) are copied.  too_short is judged only when unit is "s":
 * pass seconds and scale afterwards (lab_stats_scale).
 */
void lab_stats_from(struct lab_stats *s, const char *name, const char *unit,
		    const double *samples, int n, double clock_res_s);
/* Recompute median, min, max, mean, cv from s->samples[0..n); never writes them. */
void lab_stats_compute(struct lab_stats *s);
/* Durations (s) for `bytes` into GB/s: rate gets a new array (rate == secs: in place). */
void lab_stats_to_rate(const struct lab_stats *secs, uint64_t bytes,
		       struct lab_stats *rate);
/* Scale every sample by k and set the unit (s -> ns with 1e9); s gets a new array. */
void lab_stats_scale(struct lab_stats *s, double k, const char *unit);

/* ---- Estimates: a value with its interval ---- */

/*
 * The median of s and a distribution-free interval on it from order
 * statistics: the narrowest [x(j), x(n+1-j)] whose binomial coverage is at
 * least 1 - (1 - LAB_CONFIDENCE) / nseries (Bonferroni: a claim built on
 * nseries series keeps 95 % over all of them).  Fewer samples than that
 * level allows give an infinite interval.  Source: the binomial interval
 * for quantiles, e.g. Conover, Practical Nonparametric Statistics, 3.2.
 */
struct lab_est lab_est_median(const struct lab_stats *s, int nseries);
/*
 * The center of a series of positive ratios by Hodges-Lehmann on their logs
 * (exp of the median of the Walsh averages), with the Wilcoxon signed-rank
 * interval at lab_est_median's level.  It assumes the logs spread
 * symmetrically, as ratios of two sides measured alike do; its interval is
 * then about 1.5 times narrower than the median's (test_estimate.c).  A
 * non-positive or non-finite sample gives an infinite interval.  Source:
 * Hollander, Wolfe and Chicken, Nonparametric Statistical Methods, 3.2-3.3.
 */
struct lab_est lab_est_hl_ratio(const struct lab_stats *s, int nseries);
/* The same on the samples themselves, for differences that may be negative (08.5). */
struct lab_est lab_est_hl(const struct lab_stats *s, int nseries);
/* num.median / den.median of two independent series (MOVER); paired ones:
 * lab_stats_paired_ratio. */
struct lab_est lab_est_median_ratio(const struct lab_stats *num, const struct lab_stats *den);
/*
 * out's sample i = num's / den's, for two series measured in the same
 * iterations (unit "x"): its median's interval is the ratio's without the
 * common drift.  lab_error when the counts differ.
 */
void lab_stats_paired_ratio(struct lab *L, struct lab_stats *out, const char *name,
			    const struct lab_stats *num, const struct lab_stats *den);
/* ---- Claims ---- */

/*
 * Records the verdict of one claim by the relation in its spec's `want`, on
 * the interval of got: holds for all of it -> pass, for none -> fail, for
 * some -> inconclusive (so is a too_short estimate); not finite -> fail.  A
 * fail is then checked against its erratum's `expect:` the same way: holds
 * -> a known erratum (the lab does not fail for it).  Attach the series
 * behind it with claim_stats() first.
 */
void claim_check(struct lab *L, const char *id, struct lab_est got);
/* got = the median of s, with its interval; attaches s. */
void claim_check_median(struct lab *L, const char *id, const struct lab_stats *s);
/* got = num->median / den->median with the interval from both
 * (lab_est_median_ratio: independent series); attaches both. */
void claim_check_ratio(struct lab *L, const char *id, const struct lab_stats *num,
		       const struct lab_stats *den);
/* got = the median of the per-iteration ratio num[i] / den[i] with its
 * interval (lab_stats_paired_ratio, named `name`); attaches all three. */
void claim_check_paired(struct lab *L, const char *id, const char *name,
			const struct lab_stats *num, const struct lab_stats *den);
/* An exact integer observation (a count, bytes, a number of runs). */
void claim_check_int(struct lab *L, const char *id, long long got);
/* An errno or a CUDA error code, with its symbol ("ENOMEM", "cudaSuccess"). */
void claim_check_code(struct lab *L, const char *id, long long got, const char *got_name);
/* An errno, named with strerrorname_np. */
void claim_check_errno(struct lab *L, const char *id, int got_errno);
/* A true/false observation; `what` says what was observed and reaches
 * the TAP line's note ("the importer saw the exporter's pattern"). */
void claim_check_true(struct lab *L, const char *id, int got, const char *what);

/*
 * Record the claim as inconclusive: the measurement ran, but a condition it
 * rests on was not met (lab-08: only part of the buffer got huge pages), so
 * its value says nothing either way.  Never a way around a verdict the
 * value could give.
 */
void claim_inconclusive(struct lab *L, const char *id, const char *why_fmt, ...)
	LAB_PRINTF(3, 4);

/* Attach a measured series to the next claim decided (up to 8); the
 * ratio and median checks attach their series themselves. */
void claim_stats(struct lab *L, const struct lab_stats *s);
/* Attach a one-line explanation to the next claim decided (printf).  fmt
 * is a MSG() text, so that a learner reads the note in zh too; the record
 * (TAP YAML, JSON) keeps its English.  Arguments stay as they are in both:
 * pass numbers and names, not words a language would change. */
void claim_note(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* More of the same note, after "; " (a part another function knows). */
void claim_note_add(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* claim_note for a lab's own printf-like function, which passes its fmt on. */
void claim_vnote(struct lab *L, const char *fmt, va_list ap) LAB_PRINTF(2, 0);

/* Skip one claim: `reason` is a code of record.h; detail says what was detected
 * ("1 node, need 2"). */
void claim_skip(struct lab *L, const char *id, const char *reason,
		const char *detail_fmt, ...) LAB_PRINTF(4, 5);
/* Skip every claim not yet decided, with one reason. */
void claim_skip_rest(struct lab *L, const char *reason, const char *detail_fmt, ...)
	LAB_PRINTF(3, 4);

/* 1 if reason is one of the skip codes (record.h). */
int lab_skip_reason_valid(const char *reason);

/* Skip the whole lab: every undecided claim skips with reason; exit 77. */
LAB_NORETURN void lab_skip(struct lab *L, const char *reason, const char *detail_fmt, ...)
	LAB_PRINTF(3, 4);

/* ---- The notebook (notebook.c; series points: stats.c) ---- */

/* Setup broke (not a finding): "Bail out!" line, undecided claims become
 * `error`, JSON written, exit 99. */
LAB_NORETURN void lab_error(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* As lab_error with ": strerror(errno)" appended. */
LAB_NORETURN void lab_error_errno(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);

/* Narrative line (a TAP comment "# ..."), always shown by `make lab-NN`. */
void lab_note(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* Like lab_note, but on a terminal the line is rewritten in place; for
 * progress on long runs.  Not a note: in the JSON each starts a phase
 * ("phases", in English), which `make bench --phases` times. */
void lab_progress(struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);

/* A named fact for the record: the JSON "facts" object and a TAP comment. */
void lab_fact_num(struct lab *L, const char *key, double v, const char *unit);
void lab_fact_str(struct lab *L, const char *key, const char *v);

/* A point of a plotted series (JSON "series", every sample), for plots/. */
void lab_series_point(struct lab *L, const char *series, const char *x_unit,
		      double x, const struct lab_stats *y);

/* ---- Entry point ---- */

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

/* The run function of a .cu lab compiled without nvcc (DMALAB_HAVE_CUDA=0). */
#ifndef DMALAB_HAVE_CUDA
#define DMALAB_HAVE_CUDA 0
#endif
void lab_run_not_built(struct lab *L);

/* The next of a seeded pseudo-random sequence (splitmix64, Vigna): a lab
 * seeds it with --seed, so a run's random choices can be repeated. */
static inline uint64_t lab_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_LAB_H */
