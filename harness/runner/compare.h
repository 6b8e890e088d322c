/*
 * compare.h - `dmalab baseline` and `dmalab compare`: runs of many machines
 * (one results.json per node) set against a baseline of one machine type,
 * or against the fleet itself, with the likely cause of each low figure.
 *
 *   compare_node.c  a results.json read into a node: its match key, its
 *                   headline figures, its claims' verdicts, its machine facts
 *   compare_ref.c   the statistics (median, MAD, spread, percent, the bad
 *                   direction of a unit, the majority verdict) and a
 *                   reference built from several nodes
 *   compare.c       `dmalab compare`: options, groups, judging each node
 *   compare_out.c   its human report and its JSON (dmalab-compare/1)
 *   compare_html.c  its fleet page (--html-out): one HTML file, bad nodes first
 *   baseline.c      `dmalab baseline`: the file (dmalab-baseline/1), read back
 *   explain.c       which machine facts can explain which lab's figures, and
 *                   the sentences that name them
 *   history.c       `dmalab history`: per GPU, each figure over the kept runs
 *   metrics.c       `dmalab metrics`: a run's figures as Prometheus gauges
 *
 * Words and the judging rule: PROTOCOL.md 7 and 8 (match key, headline figure,
 * reference, moved, bad, note, flagged, exit codes).  Why both spread and
 * percent by default: README.md, "Compare and baselines".
 */
#ifndef DMALAB_COMPARE_H
#define DMALAB_COMPARE_H

#include <glob.h>
#include <limits.h>
#include <stdio.h>

#include "json.h"

#define CMP_PCT_DEFAULT 10.0  /* --pct: percent from the median a figure must move */
#define CMP_MAD_K 3.0         /* fleet spread: median +- K x 1.4826 x MAD */
#define CMP_MAD_NORMAL 1.4826 /* MAD -> standard deviation for normal noise */
/* No spread is narrower than +-2 % of its median: one run's median is not
 * known better than that (the stopping rule stops at +-5 %, quiet series
 * reach +-1 to 2 %), so a tighter band would flag run-to-run noise. */
#define CMP_SPREAD_FLOOR 0.02
#define CMP_MIN_FLEET 3       /* nodes of one key needed to judge against the fleet */

#define CMP_KEY_LEN 80
#define CMP_UNIT_LEN 24
#define CMP_MAX_GPUS 8
#define CMP_MAX_FACTS 80
#define CMP_FACT_LEN 40
#define CMP_VALUE_LEN 128
#define CMP_FACT_VALUES 6     /* distinct values a reference keeps per fact */
#define CMP_MAX_CAUSES 8
#define CMP_CAUSE_LEN 240

/* Which way a figure is worse: from its unit (cmp_bad_dir).  NONE: the unit
 * says nothing (a ratio of two figures, a count), so a move is a note. */
enum cmp_bad { CMP_BAD_NONE, CMP_BAD_LOW, CMP_BAD_HIGH };

/* A claim's verdict as compare counts it: a failed claim that its lab called
 * the known erratum is its own verdict.  Order: the tie-break of a majority. */
enum cmp_verdict {
	CMP_V_PASS, CMP_V_KNOWN, CMP_V_FAIL, CMP_V_INCONCLUSIVE, CMP_V_SKIP,
	CMP_V_ERROR, CMP_V_NOT_RUN, CMP_NVERDICTS
};
/* "pass", "known_erratum", ...: the status words of record.h, and compare's own. */
const char *cmp_verdict_word(enum cmp_verdict v);

struct cmp_key {
	char gpu[128];       /* "NVIDIA H200", "A + B" when models differ, "cpu-only" */
	int ngpus;           /* 0 for cpu-only */
	int gen, width;      /* GPU 0's pcie_gen_max, pcie_width_max; 0 unknown */
};

struct cmp_figure {
	char key[CMP_KEY_LEN];   /* "02.3" or "02/h2d_pinned_gbs" */
	char unit[CMP_UNIT_LEN];
	double value;            /* finite */
	double lo, hi;           /* the run's interval (got_lo, got_hi); NaN when absent */
};

struct cmp_claim {
	char id[CMP_KEY_LEN];
	enum cmp_verdict verdict;
};

/* A machine fact as text ("thp" = "madvise", "gpu0.pcie_cur" = "Gen5 x16");
 * a fact the run did not record is absent. */
struct cmp_fact {
	char name[CMP_FACT_LEN];
	char value[CMP_VALUE_LEN];
};

struct cmp_gpu {
	int index;
	char name[96], uuid[80], bdf[32];
	int gen_cur, width_cur, gen_max, width_max; /* 0 unknown */
	int numa_node;           /* -1 unknown, -2 no sysfs entry */
};

struct cmp_node {
	char path[PATH_MAX];
	char host[256], started[32], version[32];
	int quick;
	int aborted;                      /* status "aborted": stopped before its end */
	struct cmp_key key;
	struct cmp_gpu gpu[CMP_MAX_GPUS]; /* the first CMP_MAX_GPUS of key.ngpus */
	int cpu_nodes[16], ncpu_nodes;    /* machine.cpu_nodes; 0 of them: unknown */
	struct cmp_figure *fig;
	int nfig;
	struct cmp_claim *claim;
	int nclaim;
	struct cmp_fact fact[CMP_MAX_FACTS];
	int nfact;
};

/* One figure of a reference: what its runs (or the fleet's nodes) showed. */
struct cmp_ref_fig {
	char key[CMP_KEY_LEN], unit[CMP_UNIT_LEN];
	int n;
	double median, min, max, mad;
	double lo_min, hi_max;   /* min of (lo or value), max of (hi or value) */
	int has_interval;        /* a run had got_lo / got_hi */
	double *values;          /* the runs' values in run order, nvalues of them (the
				  * reference owns them); NULL: not known (a baseline file
				  * written before they were kept) */
	int nvalues;
	double pred_lo, pred_hi; /* the 95 % prediction interval for one new run
				  * (cmp_prediction); NaN: not computed (the fleet rule,
				  * fewer than 2 values) */
	double spread_lo, spread_hi; /* the band outside which a value is flagged */
};

struct cmp_ref_claim {
	char id[CMP_KEY_LEN];
	int count[CMP_NVERDICTS];
	enum cmp_verdict majority;
};

struct cmp_ref_fact {
	char name[CMP_FACT_LEN];
	char value[CMP_FACT_VALUES][CMP_VALUE_LEN];
	int count[CMP_FACT_VALUES];
	int nvalues;
	int majority;            /* index into value */
};

enum cmp_spread_rule {
	CMP_SPREAD_FLEET,        /* median +- max(K x 1.4826 x MAD, floor) */
	CMP_SPREAD_RUNS,         /* the union of the runs' 95 % prediction interval for one
				  * new run (2 values or more), [min(lo or value), max(hi or
				  * value)] and the floor */
};

struct cmp_ref {
	const char *word;        /* "the fleet", "the baseline": the sentences' name for it */
	char name[128], path[PATH_MAX];
	struct cmp_key key;
	int quick;
	int nruns;
	int min_n;               /* a figure seen in fewer runs is not judged */
	struct cmp_ref_fig *fig; /* sorted by key */
	int nfig;
	struct cmp_ref_claim *claim; /* sorted by id */
	int nclaim;
	struct cmp_ref_fact *fact; /* sorted by name */
	int nfact;
};

/* One item of a node: a moved figure or a changed verdict, bad or a note. */
struct cmp_item {
	int is_verdict;
	char key[CMP_KEY_LEN], lab[8], unit[CMP_UNIT_LEN];
	/* figure */
	double value, median, spread_lo, spread_hi, pct; /* pct NaN when the median is 0 */
	int outside, beyond_pct, low;
	/* verdict */
	enum cmp_verdict verdict, ref_verdict;
	const char *change;      /* "worse", "better", "changed" */
	int bad;                 /* the figure moved its known bad way; the verdict got
				  * worse.  0: a note */
	double severity;         /* ranks the items (bad ones first): the worst is named */
	char cause[CMP_MAX_CAUSES][CMP_CAUSE_LEN];      /* English: the JSON's */
	char shown[CMP_MAX_CAUSES][2 * CMP_CAUSE_LEN];  /* cause[] in the reader's language */
	int ncauses;             /* 0: a note (only bad items are explained) */
	int explained;           /* a cause was found (else cause[0] says none was) */
};

struct cmp_result {
	struct cmp_node *node;
	const struct cmp_ref *ref; /* NULL: unjudged (a fleet group too small) */
	const char *status;      /* "flagged" (nbad > 0), "ok", "unjudged" */
	struct cmp_item *item;   /* bad items first, each part worst first */
	int nitem;
	int worst;               /* index into item of the worst bad item, -1 none */
	int nbad, nnotes;        /* nbad + nnotes == nitem */
};

struct cmp_opts {
	const char *baseline;    /* --baseline FILE, or NULL: the fleet */
	double pct;              /* --pct P */
	int either;              /* --either: outside the spread OR beyond P % moves */
	int notes;               /* --notes: the human report lists flagged nodes' notes */
	int json;                /* --format json */
	const char *json_out;    /* --json-out FILE */
	const char *html_out;    /* --html-out FILE: the fleet page */
	int allow_unjudged;      /* --allow-unjudged: no reference for any node is not
				  * an error (a fleet of one or two, make fleet's merge) */
};

/* compare_node.c */
/* Reads path (a dmalab-results/1 file) into n.  0, or -1 with "path: why" in
 * err (errlen bytes); n is then empty.  A run with no lab is accepted. */
int cmp_node_load(const char *path, struct cmp_node *n, char *err, size_t errlen);
void cmp_node_free(struct cmp_node *n);
/* The value of fact `name`, or NULL when the run did not record it. */
const char *cmp_node_fact(const struct cmp_node *n, const char *name);
const struct cmp_figure *cmp_node_figure(const struct cmp_node *n, const char *key);
/* 1 when a and b name one existing file (device and inode). */
int cmp_same_file(const char *a, const char *b);
/* The runs a folder holds, the one way the runner reads a folder of them
 * (dmalab class, history): each DIR/NAME.json (a fleet's node files, a
 * learner's file) and DIR/NAME/results.json (what make check
 * RESULTS=DIR/NAME writes), each kind sorted, appended to g when append is
 * 1.  0, or -1 out of memory.  Files that are no run are the caller's to
 * pass over. */
int cmp_folder_runs(const char *dir, glob_t *g, int append);
/* Reads path, found in a folder, into n, and its document into *doc when doc
 * is not NULL (the caller's to free).  0, or -1 with "skipping 'path': why"
 * on stderr: a broken file, no run (a grade.json, a fleet's fleet.json) or an
 * unfinished run in a folder costs no page (dmalab class, history). */
int cmp_folder_run_load(const char *path, struct cmp_node *n, struct json **doc);
/* calloc and realloc for n + 1 elements (never 0 bytes; room to append one
 * to n) that end the command when memory runs out: compare, baseline,
 * history, bench and class have nothing to save first (not for what runs
 * during a check: cmp_node_load returns its error). */
void *cmp_calloc(size_t n, size_t size);
void *cmp_realloc(void *p, size_t n, size_t size);
/* 1 when word (non-empty, no space) is one of the space-separated list. */
int cmp_word_in(const char *list, const char *word);
/* "NVIDIA H200 x1 PCIe Gen5 x16", "cpu-only" */
void cmp_key_text(const struct cmp_key *k, char *buf, size_t len);
int cmp_key_equal(const struct cmp_key *a, const struct cmp_key *b);
/* 1 when unit is a rate, time or ratio (a lab fact of that unit is a figure). */
int cmp_headline_unit(const char *unit);
/* The lab of a figure key: "02.3" and "02/x" -> "02". */
void cmp_key_lab(const char *key, char *lab, size_t len);
/* "pass" -> CMP_V_PASS ...; CMP_NVERDICTS for an unknown word. */
enum cmp_verdict cmp_verdict_parse(const char *word);

/* compare_ref.c: statistics (the median is want.h's lab_median). */
/* Median absolute deviation from `median` of v (n values); scratch holds n. */
double cmp_mad(const double *v, int n, double median, double *scratch);
/* 100 x (value - median) / |median|; NaN when the median is 0 or not finite. */
double cmp_pct_off(double value, double median);
/* GB/s, GiB/s, MB/s, TFLOP/s: low is bad; ns, us, ms, s, ms/GiB: high is bad;
 * any other unit (x, %, fraction, counts): CMP_BAD_NONE. */
enum cmp_bad cmp_bad_dir(const char *unit);
/* The 0.975 quantile of Student's t with df degrees of freedom (df >= 1,
 * else NaN): the table's row, or the row of the next smaller df it lists
 * (a wider interval); 1.96 (the normal's) above 120. */
double cmp_t975(int df);
/* The 95 % prediction interval for one new value from n earlier values v
 * (in the values' unit): when every value is > 0, exp(m +- t s sqrt(1 +
 * 1/n)) with m the mean and s the sample standard deviation of ln(v), else
 * the same on the plain scale; t = cmp_t975(n - 1).  0 with *lo, *hi set,
 * or -1 (n < 2 or a value not finite) with both NaN. */
int cmp_prediction(const double *v, int n, double *lo, double *hi);
/* The band of one reference figure by rule (fields median, mad, lo_min,
 * hi_max, values, nvalues of f are read; pred_lo, pred_hi, spread_lo,
 * spread_hi written). */
void cmp_spread(struct cmp_ref_fig *f, enum cmp_spread_rule rule);
/* The verdict with the most counts; ties go to the earlier verdict of enum
 * cmp_verdict; CMP_NVERDICTS when every count is 0. */
enum cmp_verdict cmp_majority(const int count[CMP_NVERDICTS]);
/* "worse" (now fail, error or not run; the reference's was pass or the
 * known erratum), "better" (now pass or the known erratum; the reference's
 * was a fail, error or not run), else "changed" (inconclusive -> fail is
 * one); NULL when equal. */
const char *cmp_verdict_change(enum cmp_verdict now, enum cmp_verdict ref);
/* A reference from nodes (all of one key): figures, claims, facts. */
void cmp_ref_build(struct cmp_ref *r, struct cmp_node *const *nodes, int n,
		  enum cmp_spread_rule rule);
void cmp_ref_free(struct cmp_ref *r);
const struct cmp_ref_fig *cmp_ref_figure(const struct cmp_ref *r, const char *key);
const struct cmp_ref_claim *cmp_ref_claim_find(const struct cmp_ref *r, const char *id);
/* The most common value of fact `name` in the reference, or NULL. */
const char *cmp_ref_fact(const struct cmp_ref *r, const char *name);
/* Sorts r's arrays (after they were filled, e.g. from a baseline file). */
void cmp_ref_sort(struct cmp_ref *r);

/* compare.c */
int cmd_compare(int argc, char **argv);
/* Sets res (its items, status, worst, counts) for node n against ref (NULL:
 * unjudged); pct: --pct in percent; either: --either (1: outside the spread
 * or beyond pct moves a figure; 0: both are needed). */
void cmp_judge(struct cmp_node *n, const struct cmp_ref *ref, double pct, int either,
	       struct cmp_result *res);
void cmp_result_free(struct cmp_result *res);

/* compare_out.c */
/* The spread rule in words (static storage). */
const char *cmp_rule_text(const struct cmp_ref *baseline);
/* One line naming an item: "02/h2d_pinned_gbs 38.8 GB/s, 30.0 % low". */
void cmp_item_text(const struct cmp_item *it, const struct cmp_ref *ref, char *buf, size_t len);
/* "GPU 0 GPU-uuid at 0000:00:06.0, GPU 1 ..."; "" with no GPU. */
void cmp_node_gpus(const struct cmp_node *n, char *buf, size_t len);
/* Flagged nodes first (0), then unjudged (1), then ok (2). */
int cmp_status_rank(const struct cmp_result *r);
/* 1 when two items name the same causes: the reports say them once, after
 * the last of a run of items that share them. */
int cmp_same_causes(const struct cmp_item *a, const struct cmp_item *b);
struct cmp_totals {
	int nodes, ok, flagged, unjudged, notes;
};
struct cmp_totals cmp_count(const struct cmp_result *res, int n);
void cmp_print_human(FILE *f, const struct cmp_result *res, int n, const struct cmp_opts *o,
		     const struct cmp_ref *baseline);
/* The whole compare as dmalab-compare/1 into w; refs: every group's reference. */
void cmp_write_json(struct json_writer *w, const struct cmp_result *res, int n,
		    const struct cmp_opts *o, const struct cmp_ref *refs, int nrefs,
		    const struct cmp_ref *baseline);
/* The members "key" {gpu, gpus, pcie_gen_max, pcie_width_max}, "key_text"
 * and "quick" into the open object of w. */
void cmp_write_key(struct json_writer *w, const struct cmp_key *k, int quick);

/* compare_html.c */
/* open, then text escaped, then close: the one way text from a file reaches
 * the HTML pages (the fleet page, class.c's). */
void html_put(FILE *f, const char *open, const char *text, const char *close);
/* The fleet page (--html-out) into path (savefile.h), with the missing
 * nodes of jobs/fleet-nodes.json in path's folder when make fleet wrote one.
 * 0, or an error line and -1. */
int cmp_write_html(const char *path, const struct cmp_result *res, int n,
		   const struct cmp_opts *o, const struct cmp_ref *baseline);

/* baseline.c */
int cmd_baseline(int argc, char **argv);
/* Reads a dmalab-baseline/1 file into r; a results.json is read as the
 * baseline of that one run.  0, or -1 with why in err. */
int cmp_baseline_load(const char *path, struct cmp_ref *r, char *err, size_t errlen);

/* explain.c */
/* The likely causes of item it of node n against ref (whose facts are the
 * reference values): sentences into it->cause, it->ncauses >= 1; when no
 * fact explains it, cause[0] is "no cause among the facts the kit reads"
 * and it->explained is 0. */
void cmp_explain(const struct cmp_node *n, const struct cmp_ref *ref, struct cmp_item *it);
/* The machine facts explain.c reads, by kind. */
enum {
	CMP_EXPLAIN_PCIE = 1 << 0,      /* each GPU's current link against its maximum */
	CMP_EXPLAIN_NUMA = 1 << 1,      /* the GPU's NUMA node, the run's CPUs' nodes */
	CMP_EXPLAIN_IOMMU = 1 << 2,     /* the machine's and each GPU's IOMMU mode */
	CMP_EXPLAIN_CLOCKS = 1 << 3,    /* NVML's clocks-event reasons */
	CMP_EXPLAIN_PROCS = 1 << 4,     /* other compute processes on the GPU */
	CMP_EXPLAIN_THP = 1 << 5,       /* transparent huge pages */
	CMP_EXPLAIN_MEMLOCK = 1 << 6,   /* RLIMIT_MEMLOCK and CAP_IPC_LOCK */
	CMP_EXPLAIN_HUGEPAGES = 1 << 7, /* reserved huge pages */
	CMP_EXPLAIN_SYSTEM = 1 << 8,    /* kernel and NVIDIA driver versions */
	CMP_EXPLAIN_VIRT = 1 << 9,      /* a virtual machine: the host backs guest memory */
};
/* The fact kinds (CMP_EXPLAIN_* bits) that can explain figure `key` (or
 * claim id) of lab `lab`: explain.c's table. */
unsigned cmp_explain_kinds(const char *lab, const char *key);
#define CMP_NO_CAUSE "no cause among the facts the kit reads"

/* history.c: `dmalab history` (argv[0] is "history"); the exit code */
int cmd_history(int argc, char **argv);

/* metrics.c: `dmalab metrics` (argv[0] is "metrics"); the exit code */
int cmd_metrics(int argc, char **argv);
/* results_path's run as Prometheus text into out (savefile.h), or to
 * standard output when out is NULL: 0, or an error line and -1. */
int metrics_save(const char *results_path, const char *out);

#endif
