/*
 * record.h - the record a lab leaves and the runner reads (PROTOCOL.md 2-4):
 * the status words, one claim, and the TAP 13 + YAML stream that carries
 * the claims from the lab's stdout to the runner.  Part of the base: it
 * knows no lab and no runner.
 */
#ifndef DMALAB_RECORD_H
#define DMALAB_RECORD_H

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct erratum;
struct json;

/*
 * Every status the kit writes: a claim's verdict (pending until decided),
 * a lab's outcome, a run's.  status_words[] holds the words as results.json
 * and the lab record spell them; no other list of them exists.
 */
enum status {
	ST_PENDING, ST_PASS, ST_FAIL, ST_SKIP, ST_INCONCLUSIVE, ST_ERROR, ST_NOT_RUN,
	ST_RUNNING, ST_INTERRUPTED, ST_INCOMPLETE, ST_ABORTED, ST_COUNT
};
extern const char *const status_words[ST_COUNT];
/* The status a word names; ST_COUNT when it names none. */
enum status status_parse(const char *word);
/* Decided: neither pending nor not_run. */
int status_decided(enum status s);
/* The status word as a person reads it, in the learner's language (a verdict
 * not yet decided reads as not_run); status_words' English otherwise. */
const char *status_text(enum status s);

/* A question of a chapter, from the statuses of its claims. */
enum question_status { Q_CONFIRMED, Q_CONTRADICTED, Q_PARTIAL, Q_UNVERIFIED, Q_COUNT };
extern const char *const question_words[Q_COUNT];

/*
 * One claim, as the lab decides it and the runner reads it back.  The
 * lab fills the verdict (status to erratum_expect) and writes it as a TAP
 * point; the runner fills the rest from --describe, the lab's JSON record
 * and the errata.  Numbers are NaN when absent; the has_* flags say which
 * the lab wrote (a NaN it measured is written as null).  id to
 * erratum_expect come first: the runner copies them as one block.
 */
/* A skip's or claim's detail, with room for a path and an errno's words; a
 * longer one is cut at a word, with "...", by text_vfit. */
#define CLAIM_DETAIL_MAX 512

struct claim {
	char id[32];
	enum status status;
	char op[24], unit[32], got_name[64], want_name[64], reason[64];
	char detail[CLAIM_DETAIL_MAX], note[512];
	double got, got_lo, got_hi, want, lo, hi, tol_abs, tol_rel;
	int has_got, has_interval, has_want, has_range, has_tol;
	/* the lab's word on a contradicted claim's erratum: "" none listed,
	 * "predicted", "not-predicted", "not-applicable" (its when: fails) */
	char erratum_status[16];
	char erratum_expect[256];

	/* from the spec (the lab's, or its --describe) and the errata; the
	 * runner's are malloc'd (claim_free), the lab's point into its spec */
	const char *question, *text;
	const char *chapter;       /* the chapter's figure */
	const char *sabotage;      /* what the sabotage build breaks */
	const char *erratum_when, *erratum_truth; /* as the lab said */
	const struct erratum *erratum; /* the errata text for the id */

	/* the runner's */
	const char *want_text;     /* the chapter's relation as text */
	const struct json *json;   /* the lab JSON's claim object, or NULL */
	int shown;                 /* already printed live (human format) */
};

/* A string field as JSON writes it: "" is absent (null). */
static inline const char *or_null(const char *s)
{
	return s && s[0] ? s : NULL;
}

/* An empty claim: pending, every number NaN. */
void claim_reset(struct claim *c);
/* "02.1": digits, a dot, digits, that fits a claim's id; prefix is unused (the
 * answers' and errata's sections check their ids with it, sections.h). */
int claim_id_ok(const char *s, const char *prefix);
/* fmt's text into out (len bytes); one too long is cut after its last whole
 * word that fits, and "..." says so. */
void text_vfit(char *out, size_t len, const char *fmt, va_list ap);
/* 1 when word (len bytes) is an item of list, whose items have any of the
 * characters of seps between them ("02.1, 02.3", " ,"). */
int text_list_has(const char *list, const char *word, size_t len, const char *seps);
/* Frees the runner's strings. */
void claim_free(struct claim *c);
/* A failed claim the lab called its known erratum (erratum "predicted"). */
int claim_known(const struct claim *c);

/* The writer: "ok N - ID text [question] # directive" and the YAML block
 * of the claim's fields, without its closing "  ..." (record_tap_end), so
 * that the lab can add its statistics. */
void record_tap_point(FILE *out, int number, const struct claim *c);
/* s as a TAP description: '#' and '\' escaped, line breaks as spaces (NULL:
 * nothing).  The runner's TAP writes its descriptions with it too. */
void record_tap_text(FILE *out, const char *s);
void record_tap_end(FILE *out);

/* The claim as a member of a JSON claims array, up to its "stats" array,
 * which the caller writes and closes the object after; status is the one
 * written (an interrupted record's undecided claims are not_run). */
struct json_writer;
void record_json_claim(struct json_writer *w, const struct claim *c, enum status status);

/* The reader: one test point with its YAML block. */
struct tap_point {
	int ok;
	int number;
	char desc[512];
	char directive[16];   /* "SKIP", "TODO" or "" */
	char dir_text[256];   /* after the directive */
	struct claim c;       /* id and verdict; the YAML's or the directive's */
};

struct tap_sink {
	void (*comment)(void *ctx, const char *text); /* without the "# " */
	void (*point)(void *ctx, const struct tap_point *pt);
	void (*bail)(void *ctx, const char *msg);
	void *ctx;
};

struct tap_scan {
	struct tap_sink sink;
	int plan;             /* -1 none */
	int nlines, nother;   /* lines seen, lines that are not TAP */
	struct tap_point cur;
	int have_cur, in_yaml, yaml_status;
	struct tap_point *points;
	int npoints;
	char bail[256];
};

void tap_scan_init(struct tap_scan *ts, const struct tap_sink *sink);
void tap_scan_line(struct tap_scan *ts, const char *line);
void tap_scan_end(struct tap_scan *ts);
void tap_scan_free(struct tap_scan *ts);

/*
 * Fixed skip reason codes (the runner, `dmalab list` and the tests rely on
 * this list; add here, never invent one in a lab):
 */
#define SKIP_NOT_BUILT_NO_NVCC "not-built:no-nvcc"   /* built without nvcc */
#define SKIP_NO_CUDA_DRIVER    "no-cuda-driver"      /* libcuda / driver missing */
#define SKIP_NO_CUDA_DEVICE    "no-cuda-device"      /* driver but no GPU */
/* driver and GPU, but CUDA fails to start (detail: why) */
#define SKIP_CUDA_CANNOT_START "cuda-cannot-start"
#define SKIP_TOO_FEW_GPUS      "too-few-gpus"        /* needs more GPUs */
#define SKIP_SINGLE_GPU        "single-gpu"          /* a GPU-to-GPU claim, one GPU here */
#define SKIP_GPU_TOO_SMALL     "gpu-too-small"       /* not enough free GPU memory */
#define SKIP_SINGLE_NUMA_NODE  "single-numa-node"    /* needs >= 2 memory nodes */
#define SKIP_NUMA_UNAVAILABLE  "numa-unavailable"    /* libnuma: no NUMA support */
#define SKIP_NOT_ROOT          "not-root"            /* needs uid 0 */
#define SKIP_NO_CAPABILITY     "no-capability"       /* a capability is missing */
/* what the claim needs is not there or cannot be measured here: a feature the
 * kernel, driver or device lacks, a link or mode the chapter gives no figure
 * for, a host (a VM's) that backs huge pages with small ones (detail: which) */
#define SKIP_UNSUPPORTED       "unsupported"
#define SKIP_UNKNOWN_TOPOLOGY  "unknown-topology"    /* e.g. GPU NUMA node is -1 */
#define SKIP_DEPENDS_ON_CLAIM  "depends-on-claim"    /* a claim it builds on skipped */
#define SKIP_NOT_ENOUGH_MEMORY "not-enough-memory"   /* host memory too small */
#define SKIP_NOT_ENOUGH_SPACE  "not-enough-space"    /* too little room for a file (lab-10) */
/* an optional library (cuBLAS, cuFile) is absent */
#define SKIP_NO_LIBRARY        "no-library"
/* no InfiniBand/RoCE device in /sys/class/infiniband */
#define SKIP_NO_RDMA_DEVICE    "no-rdma-device"
/* a machine-wide resource the claim must change is in use (hugetlb pool) */
#define SKIP_IN_USE            "in-use"
/* an option of this run left the claim's measurement out (lab-04 --chase-only) */
#define SKIP_NOT_REQUESTED     "not-requested"

#ifdef __cplusplus
}
#endif
#endif
