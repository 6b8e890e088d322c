/*
 * runner.h - the `dmalab` runner: shared types of its files.
 *
 *   main.c     the command table, options, signals
 *   discover.c  the built labs found and asked for --describe
 *   run.c      `run` and `check`: each lab spawned, its record read
 *   spawn.c    one lab in its own process group, with timeout (on proc.h)
 *   results.c  the run's model: the results directory, each lab's outcome
 *              (its TAP and JSON record, the status rules), the labs of
 *              results.json (merged with the earlier one for `run NN`), the
 *              file read back
 *   results_save.c  results.json written after every lab, then junit.xml
 *              and dmalab.prom
 *   output.c   human and TAP presentation, report card, summary line
 *   junit.c    junit.xml: the run as JUnit XML
 *   junit_learn.c  junit.xml's suites of the learner's predictions and exercises
 *   xml.c      the XML writer of junit.xml, and the escaping of the HTML pages
 *   predict.c  --predict: the learner's numbers asked before a lab, scored after
 *   class.c    `dmalab class DIR`: a trainer's HTML page of learners' runs
 *   bench.c    `dmalab bench`: each lab's wall time, samples and interval width
 *              reached, from a results.json (make bench)
 *   list.c     `dmalab list` (plans and predicted skips) and `dmalab claims`
 *   exercise.c, exercise_scan.c  `exercise`, `try`, `exercises`: the learner's
 *              copies of the labs' exercise regions (exercise.h)
 *   preflight.c  `dmalab preflight`: labs 01 and 02 short, a node's health
 *   counters.c, prom.c, messages.c  the GPU's error counters around a run, the
 *              Prometheus text of a run, `dmalab messages` (the zh table)
 *
 * Every message on stderr goes through die, error, warning (base/usage.h,
 * the one usage printer, which the labs' option errors use too).
 *
 * The runner never initialises CUDA while it still starts labs (a process
 * that has touched CUDA must not fork): only `list` asks the driver itself,
 * through gpu_topo.h, after every lab's --describe has been read; the
 * forecasts of exercise_here.c (exercises' marks, check's --predict and
 * --work) ask it in a child, `dmalab --role cuda-devices`.
 */
#ifndef DMALAB_RUNNER_H
#define DMALAB_RUNNER_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "clock.h"
#include "errata.h"
#include "gpu_counters.h"
#include "json.h"
#include "record.h"
#include "sysinfo.h"
#include "usage.h"

struct learn_results; /* learn.h */
struct ex_here;       /* exercise.h */

/* discover.c: "2", "02", "002", "lab-02" -> "02" in out: the value, at least two digits
 * (labs are named lab-NN), at most 8; -1 for anything else. */
int lab_id_normalise(const char *arg, char *out, size_t len);

#define DMALAB_VERSION "0.1.0"
#define KILL_GRACE_S 3.0 /* between SIGTERM and SIGKILL to a lab's group */

enum out_format { FMT_HUMAN, FMT_TAP, FMT_JSON, FMT_JUNIT, FMT_UNSET };

struct runner_opts {
	const char *command;    /* the command word: "list", "run", "check", ... */
	char labs_dir[PATH_MAX];
	const char *results_dir;
	enum out_format format;
	double timeout_mul;     /* > 0 */
	int quick;
	const char *errata_path; /* --errata; then the errata file the runner read
				  * (errata_read); the labs get it as DMALAB_ERRATA */
	char **ids;             /* lab ids asked for ("02"), NULL-terminated */
	int nids;
	int color;              /* human format on a tty without NO_COLOR */
	const char *learner;    /* --learner NAME: kept in results.json, or NULL */
	const char *work;       /* --work DIR: the learner's copies; results.json
				 * then lists every exercise's state, else NULL */
	int predict;            /* --predict: ask for the headline figures first */
	const char *predictions; /* --predictions FILE (or $PREDICTIONS): the
				  * answers as `name value` lines, not asked */
};

/* A learner's number for one headline figure of a lab (predict.c). */
struct prediction {
	char id[32];          /* the claim whose got it predicts: "02.1" */
	double predicted;     /* NaN: "don't know" */
};

struct lab_entry {
	char id[16];          /* "02" */
	char path[PATH_MAX];  /* the executable */
	struct json *desc;    /* --describe document, NULL if it failed */
	char desc_error[512];
	const char *title;
	int timeout_s;
	int needs_gpus, needs_numa, needs_root, built_with_cuda;
	struct claim *claims;
	int nclaims;

	/* outcome */
	enum status status;   /* ST_PENDING: not yet */
	char skip_reason[64], skip_detail[CLAIM_DETAIL_MAX];
	/* timeout signal bad-exit setup vacuous bad-output missing aborted */
	const char *error_kind;
	char error_msg[512];
	int exit_code;        /* -1: none (signal, not started) */
	int signal;           /* 0: none */
	int timed_out;
	double duration_s;
	char started[32];     /* ISO 8601 UTC when it was started, "" not yet (junit.c) */
	char log_path[PATH_MAX];
	char json_path[PATH_MAX];
	struct json *record;  /* the lab JSON, NULL if absent or corrupt */
	char record_error[512];
	int counters_read;    /* GPUs whose counters_moved this run read (counters.c) */
	struct gpu_counters counters_moved[SYSINFO_MAX_GPUS]; /* per GPU of si */
	struct prediction *pred; /* --predict: asked before the run, or NULL */
	int npred;
};

struct run_state {
	struct runner_opts *opt;
	struct sysinfo si;
	struct errata errata;
	struct lab_entry *labs;
	int nlabs;
	char started[32];     /* ISO 8601 UTC */
	double t0;
	int aborted;          /* the signal that stopped the run, 0 if none */
	int finished;         /* every lab ran: results.json is final */
	struct learn_results *kept; /* `run`: the earlier results.json, or NULL */
	/* --predict, --work: the claims this machine will not decide, forecast
	 * before the first lab (exercise_here.c), or NULL */
	struct ex_here *here;
	int save_failed;      /* a results.json write failed: the run is an error */
	int saved;            /* a results.json of this run is on disk */
	struct gpu_counter_ops nvml;  /* counters.c: NVML's counters, or none */
	struct gpu_counters counters_last[SYSINFO_MAX_GPUS]; /* after the last lab */
	/* the lab's "ID note: ..." comment in the learner's language, shown in
	 * place of the record's English note when claim ID's line comes */
	char note_id[32];
	char note_shown[600];
};

/* The lab's status as results.json words it: a lab not yet run is "not_run". */
static inline const char *lab_status_word(const struct lab_entry *lab)
{
	return status_words[lab->status == ST_PENDING ? ST_NOT_RUN : lab->status];
}

/* discover.c: <directory of the dmalab program>/labs, where make builds the labs */
void default_labs_dir(const char *argv0, char *out, size_t len);
/* discover.c: this program's resolved path into self (PATH_MAX bytes): tools
 * such as valgrind refuse /proc/self/exe.  0, or -1 ("") when it cannot be read. */
int runner_self_path(char *self);

/* discover.c: --timeout-mul or DMALAB_TIMEOUT_MUL (named by what): a number
 * from 0.1 to 1000, the whole string; else die_usage(). */
double parse_timeout_mul(const char *s, const char *what);
/* discover.c: DMALAB_TIMEOUT_MUL through parse_timeout_mul; 1 when unset or "" */
double env_timeout_mul(void);

/* results.c: the results directory made when it is missing, but not its
 * parents: a --results whose folder above does not exist (a typo) is refused
 * rather than scattering results where nobody looks.  0, or an error line
 * and -1: the caller exits 2. */
int results_dir_make(const char *dir);

/* results.c: the results directory, checked and locked before any lab runs.
 * It must be a writable directory (a file is made and removed there), and
 * no other dmalab run may be using it (flock on DIR/.dmalab-lock, which
 * names the holder's pid).  0, or an error line and -1: the caller exits 2. */
int results_dir_claim(struct run_state *rs);

/* discover.c: the built labs and their plans */
int discover_labs(struct run_state *rs);
void lab_entries_free(struct run_state *rs);
/* Its claims, --describe and record freed. */
void lab_entry_free(struct lab_entry *e);
/* The lab of labs[0..n) with this id, or NULL. */
const struct lab_entry *lab_by_id(const struct lab_entry *labs, int n, const char *id);

/* spawn.c */
struct spawn_io {
	void (*out_line)(void *ctx, const char *line);
	void (*err_line)(void *ctx, const char *line);
	void *ctx;
	FILE *log;            /* every byte of stdout and stderr, may be NULL */
};

struct spawn_result {
	int exit_code;        /* -1 if killed by a signal */
	int signal;
	int timed_out;
	int aborted;          /* the runner was asked to stop */
	int exec_errno;       /* exec failed in the child (exit 127) */
	int leftovers;        /* processes of the group still alive at the end */
	double duration_s;
	char err_line[400];   /* spawn_capture: the first line on stderr, "" when none */
};

/* Run argv in a new process group; timeout_s <= 0: none.  0, or -1 (fork). */
int spawn_lab(char *const argv[], double timeout_s, const struct spawn_io *io,
	      struct spawn_result *res);
/* Run argv and collect its stdout (at most cap-1 bytes) within timeout_s; the
 * first line of its stderr in res->err_line. */
int spawn_capture(char *const argv[], double timeout_s, char *buf, size_t cap,
		  struct spawn_result *res);
const char *signal_name(int sig);
/* set by the SIGINT/SIGTERM/SIGHUP handler base/cleanup.c runs (main.c
 * registers it with cleanup_catch) */
extern volatile sig_atomic_t runner_stop_signal;
/* Set by `dmalab try` for its `dmalab check` of the learner's copy: the run's
 * failed claims are the copy's, not findings about the machine. */
#define TRY_COPY_ENV "DMALAB_TRY_COPY"

/* results.c: a lab's outcome */
struct claim *lab_claim(struct lab_entry *lab, const char *id);
void claim_from_point(struct claim *c, const struct tap_point *pt);
/* The runner's errata text of the erratum the lab named, and its truth,
 * expect and when where the lab's record left them out. */
void claim_find_erratum(struct claim *c, const struct errata *errata);
void record_finish(struct run_state *rs, struct lab_entry *lab,
		   const struct spawn_result *sr, const struct tap_scan *ts);
void record_not_run(struct lab_entry *lab, const char *kind, const char *why);

/* A lab of results.json: run now, or kept from the earlier file. */
struct file_lab {
	const struct lab_entry *lab;
	const struct json *kept; /* its object in the earlier file; NULL: run now */
};

/* results.c: `run NN` keeps the earlier file's other labs */
void results_keep_load(struct run_state *rs);
void results_keep_free(struct run_state *rs);
/* The labs results.json lists; *out is malloc'ed.  Their number, or -1. */
int results_file_labs(const struct run_state *rs, struct file_lab **out);

/* results.c: the totals and the run's status */
/* Labs and claims by status (pass to not_run); a failed claim that is a
 * known erratum is counted in erratum, not in claim[ST_FAIL]. */
struct totals {
	int labs, lab[ST_COUNT];
	int claims, claim[ST_COUNT], erratum;
	int unexplained; /* failed claims with an erratum this run did not bear out */
};
void totals_count(const struct run_state *rs, struct totals *t);
/* Adds lab (its status and its claims') to t. */
void totals_add_lab(const struct lab_entry *lab, struct totals *t);
/* The status of a run whose labs t counts: aborted, running (not finished
 * yet), fail (a lab failed or broke) or pass. */
enum status totals_status(const struct run_state *rs, const struct totals *t);
enum status run_status(const struct run_state *rs);

/* results_save.c: writes results.json, junit.xml and dmalab.prom; final: the run's last
 * save, which also prints the document --format json or junit asks for.
 * 0 or -1. */
int results_save(struct run_state *rs, int final);

/* xml.c: a small XML 1.0 writer, for junit.xml.
 *
 * Escaping (xml_put): & < > " ' become entities everywhere; in an
 * attribute also TAB, LF and CR become character references, since a parser
 * would otherwise turn them into blanks (XML 1.0, 3.3.3); CR is a reference
 * in text too (2.11 would make it LF).  Characters XML 1.0 forbids even as
 * references (2.2: controls below 0x20 other than TAB LF CR, U+FFFE, U+FFFF)
 * and bytes that are not UTF-8 become U+FFFD, so the document always parses.
 * https://www.w3.org/TR/xml/#charsets
 *
 * Writer: elements are opened and closed in order; attributes go right
 * after xw_begin; an element with no content is written <name/>.  Two
 * spaces of indentation per level, except inside an element that holds
 * text (whose text is kept exactly).  Misuse sets `failed`; after it, or
 * out of memory, xw_document gives NULL and xw_write_file fails.
 */
#define XML_MAX_DEPTH 16

/* Writes s (NULL is "") escaped on f, for an attribute value (in_attr != 0)
 * or for element text: the XML writer's and the HTML pages' (class.c,
 * compare_html.c) one way to put text. */
void xml_put(FILE *f, const char *s, int in_attr);

struct xml_writer {
	FILE *f;              /* open_memstream over buf/len */
	char *buf;
	size_t len;
	int depth;
	const char *open[XML_MAX_DEPTH]; /* element names, outermost first */
	int has_elements[XML_MAX_DEPTH]; /* the element holds child elements */
	int has_text[XML_MAX_DEPTH];     /* the element holds text */
	int in_start_tag;     /* "<name attr=..." written, ">" not yet */
	int failed;
};

/* Starts a document with its XML declaration (UTF-8).  0, or -1 (no memory). */
int xw_init(struct xml_writer *x);
void xw_release(struct xml_writer *x);
/* Opens element `name` (a constant or a string that outlives the element). */
void xw_begin(struct xml_writer *x, const char *name);
/* An attribute of the element just opened; a NULL value writes "". */
void xw_attr(struct xml_writer *x, const char *name, const char *value);
void xw_attr_int(struct xml_writer *x, const char *name, long long value);
/* A number with `decimals` digits after the point (seconds: 3). */
void xw_attr_fixed(struct xml_writer *x, const char *name, double value, int decimals);
/* Text inside the element open now (escaped). */
void xw_text(struct xml_writer *x, const char *text);
/* Closes the element opened last. */
void xw_end(struct xml_writer *x);
/* The document so far (every element must be closed): its bytes and
 * length, or NULL after a failure.  Valid until xw_release. */
const char *xw_document(struct xml_writer *x, size_t *len);
/* Writes the document and a final newline to path atomically (a temporary
 * file beside it, then rename, as results.json).  0, or -1 with errno. */
int xw_write_file(struct xml_writer *x, const char *path);

/* junit.c: the run as JUnit XML (Jenkins' junit-10.xsd); junit_save writes
 * <results>/junit.xml atomically and, with print_stdout, the same bytes on
 * stdout; a failed write is said once and sets save_failed.  0 or -1. */
int junit_save(struct run_state *rs, int print_stdout);
/* junit_learn.c: the suites "predictions" (this run's) and "exercises"
 * (with --work) after the labs', numbered from id. */
void junit_learner_suites(struct xml_writer *x, const struct run_state *rs, int id);
/* Adds their test cases and failures to *tests and *failures. */
void junit_learner_count(const struct run_state *rs, int *tests, int *failures);

/* output.c */
void out_run_begin(struct run_state *rs, int nlabs);
void out_lab_begin(struct run_state *rs, struct lab_entry *lab, char *const argv[]);
/* A lab's comment text ("# " taken off) that is claim ID's note, "ID note: ...":
 * the id into id and the note from its word on, as the learner's language
 * shows it; NULL for any other comment. */
const char *claim_note_split(const char *text, char *id, size_t idlen);
void out_lab_comment(struct run_state *rs, const char *text);
void out_lab_point(struct run_state *rs, struct lab_entry *lab, const struct tap_point *pt);
void out_lab_stderr(struct run_state *rs, const char *line);
void out_lab_end(struct run_state *rs, struct lab_entry *lab, int number);
void out_run_end(struct run_state *rs);
void fmt_got_want(const struct claim *c, char *buf, size_t len);
void fmt_got_want_human(const struct claim *c, char *buf, size_t len);
/* One line on a contradicted claim's erratum, or "" when none is listed:
 * "known erratum 02.2: predicts >= 3, and this run meets it". */
void fmt_erratum(const struct claim *c, char *buf, size_t len);
/* In zh, what a skip reason code means (skip.<code>, the code's ':' as '-');
 * "" in English or for a code the table lacks: the code itself stays. */
const char *skip_meaning(const char *code);
/* Spaces that pad s to width columns (a Chinese character takes two). */
int word_pad(const char *s, int width);
FILE *out_progress_stream(struct run_state *rs);
/* explain.c: "320 KiB", "1.5 GiB", "-8 MiB" from a byte count (lab_fmt_size's words). */
void fmt_bytes(double b, char *buf, size_t len);

/* run.c */
int cmd_run(struct run_state *rs);

/* class.c: `dmalab class DIR` (argv[0] is "class"); the exit code */
int cmd_class(int argc, char **argv);

/* bench.c: `dmalab bench` (argv[0] is "bench"), the kit's own timing from a
 * results.json; the exit code */
int cmd_bench(int argc, char **argv);

/* messages.c: `dmalab messages [FILE]` (argv[0] is "messages"), a message
 * table as JSON, for plots/; the exit code */
int cmd_messages(int argc, char **argv);

/*
 * predict.c: predictions (README.md "Predictions").  A lab's headline
 * figures are its claims measured on a scale: every claim but an exact fact
 * (op eq, ne, true, errno_eq, cuda_err_eq) and one without a unit.  Before
 * its run the learner gives a number for each (Enter or "?": don't know);
 * after it each is scored against the claim's measured 95 % interval
 * [lo, hi] by PREDICT_RULE (predict_score).
 */
extern const char PREDICT_RULE[];
/* 1 when a claim of this relation and unit is a headline figure. */
int predict_is_figure(const char *op, const char *unit);
/* The score of prediction p against [lo, hi]: 1 inside; outside,
 * max(0, 1 - |log10(p / m)|) with m the nearer bound (0 when p or m is not
 * positive); NaN for "don't know" (p NaN), which grades as 0. */
double predict_score(double p, double lo, double hi);
/* 1 when claim c was measured (pass, fail or inconclusive, a finite got),
 * with its 95 % interval in lo, hi ([got, got] when it has none); else 0. */
int predict_interval(const struct claim *c, double *lo, double *hi);
/* Prediction p of lab after its run: its claim into *c, the interval into lo, hi;
 * its score (0 for "don't know"), or NaN when the figure was not measured. */
double predict_scored(const struct lab_entry *lab, const struct prediction *p,
		      const struct claim **c, double *lo, double *hi);
/* Asks (or reads --predictions) for every selected lab's figures; 0, or 2
 * after a usage error (a bad line in the file, said).  A figure rs->here
 * forecasts this machine will not measure is not asked (one line says how
 * many, and what the machine lacks); the file may still name it. */
int predict_ask(struct run_state *rs);
/* The lab's predictions scored, on the progress stream; after its run. */
void predict_report(struct run_state *rs, const struct lab_entry *lab);
/* The member "predictions": [{name, text, unit, predicted, measured,
 * interval, score}] of a lab that was asked. */
void predict_write(const struct lab_entry *lab, struct json_writer *w);

/* list.c */
int cmd_list(struct run_state *rs);
int cmd_claims(struct run_state *rs);
struct gpu_topo;
#define CLAIM_FORECAST_MAX 4
/* The skips (record.h reasons) claim id of lab will give on this machine, as
 * `list` forecasts them from the lab's --describe and the machine's facts,
 * into why; their number (0: none foreseen), -1 when lab has no claim id. */
int claim_forecast(const struct sysinfo *si, const struct gpu_topo *t,
		   const struct lab_entry *lab, const char *id,
		   const char *why[CLAIM_FORECAST_MAX]);

/* preflight.c: `dmalab preflight ARGS` (argv[0] "preflight"), labs from labs_dir
 * unless --labs-dir; its exit code: 0 healthy, 1 unhealthy, 2 could not run. */
int cmd_preflight(int argc, char **argv, const char *labs_dir);

/* counters.c: the GPUs' error counters around every lab (gpu_counters.h).
 * counters_begin reads them before the first lab, counters_after_lab after
 * each (what moved is the lab's), counters_end closes NVML; counters_write
 * writes a lab's "counters_moved" member (per GPU index, the counters known). */
void counters_begin(struct run_state *rs);
void counters_after_lab(struct run_state *rs, struct lab_entry *lab);
void counters_end(struct run_state *rs);
void counters_write(const struct lab_entry *lab, struct json_writer *w);

/* prom.c: the Prometheus text format's pieces.  prom_label writes
 * `name="value"` (a comma before it unless first), the value's backslash,
 * quote and newline escaped; prom_head the HELP and TYPE lines of a gauge. */
void prom_label(FILE *f, const char *name, const char *value, int first);
void prom_head(FILE *f, const char *name, const char *help);

#endif
