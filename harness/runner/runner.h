/*
 * runner.h - the `dmalab` runner: shared types of its files.
 *
 *   main.c     options and commands (list, run, check, sysinfo)
 *   discover.c finding built labs and asking each for --describe
 *   spawn.c    one lab in its own process group, with timeout (on proc.h)
 *   tapscan.c  reading a lab's TAP stream line by line
 *   record.c   a lab's outcome: its JSON record or TAP, and the status rules
 *   results.c  results.json (questions, totals), written atomically
 *   merge.c    `run NN`: the labs of the earlier results.json it keeps
 *   output.c   human and TAP presentation, report card, summary line
 *   junit.c    junit.xml: the run as JUnit XML for CI dashboards
 *   list.c     `dmalab list`: plans and predicted skips
 *   claims.c   `dmalab claims`: every claim's relation, from --describe
 *   usage.c    die, error, warning: every message on stderr (usage.h)
 *
 * The runner never initialises CUDA while it still starts labs (a process
 * that has touched CUDA must not fork): only `list` asks the driver, through
 * gpu_topo.h, after every lab's --describe has been read.
 */
#ifndef DMALAB_RUNNER_H
#define DMALAB_RUNNER_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "errata.h"
#include "json.h"
#include "sysinfo.h"
#include "usage.h"

struct learn_results; /* learn.h */

#define DMALAB_VERSION "0.1.0"
#define KILL_GRACE_S 3.0 /* between SIGTERM and SIGKILL to a lab's group */

enum out_format { FMT_HUMAN, FMT_TAP, FMT_JSON, FMT_JUNIT, FMT_UNSET };

struct runner_opts {
	const char *command;    /* "list", "run", "check", "sysinfo" */
	char labs_dir[PATH_MAX];
	const char *results_dir;
	enum out_format format;
	double timeout_mul;     /* > 0 */
	int quick;
	const char *errata_path; /* the errata file the runner reads; the labs
				  * get it as DMALAB_ERRATA (main.c) */
	int errata_explicit;    /* --errata or DMALAB_ERRATA: a missing file is an error */
	int errata_builtin;     /* no file: the copy built into the library */
	char **ids;             /* lab ids asked for ("02"), NULL-terminated */
	int nids;
	int color;              /* human format on a tty without NO_COLOR */
};

/* One claim of a lab, as planned by --describe and then decided. */
struct claim_res {
	char *id, *question, *text;
	char status[16];     /* pass fail skip inconclusive error not_run pending */
	char *chapter;       /* the chapter's figure (--describe or the record) */
	char *want_text;     /* the chapter's relation as text (--describe) */
	/* The lab's word on a contradicted claim's erratum (its JSON record,
	 * or the TAP YAML): "" none listed, "predicted" (a known erratum),
	 * "not-predicted", "not-applicable" (its when: does not hold here). */
	char erratum_status[16];
	char *erratum_expect, *erratum_when, *erratum_truth; /* as the lab said */
	const struct erratum *erratum; /* the runner's errata text for the id
					* (truth, why, sources); NULL if none */
	char *op, *unit, *reason, *detail, *note, *got_name, *want_name;
	double got, got_lo, got_hi, want, lo, hi, tol_abs, tol_rel; /* NaN when absent */
	const struct json *json; /* the lab JSON's claim object, or NULL */
	int shown;           /* already printed live (human format) */
};

struct lab_entry {
	char id[16];          /* "02" */
	char path[PATH_MAX];  /* the executable */
	struct json *desc;    /* --describe document, NULL if it failed */
	char desc_error[512];
	const char *title;
	int timeout_s;
	int needs_gpus, needs_numa, needs_root, built_with_cuda;
	struct claim_res *claims;
	int nclaims;

	/* outcome */
	const char *status;   /* pass fail skip inconclusive error not_run; NULL: not yet */
	char skip_reason[64], skip_detail[256];
	const char *error_kind; /* timeout signal bad-exit setup vacuous bad-output missing aborted */
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
	int lock_fd;          /* the results directory's lock, held for the run */
	int save_failed;      /* a results.json write failed: the run is an error */
	int saved;            /* a results.json of this run is on disk */
};

/* main.c: set by the SIGINT/SIGTERM/SIGHUP handler */
extern volatile sig_atomic_t runner_stop_signal;
/* main.c: --timeout-mul or DMALAB_TIMEOUT_MUL (named by what): a number
 * > 0, at most 1000, the whole string; else die_usage(). */
double parse_timeout_mul(const char *s, const char *what);

/* resdir.c: the results directory, checked and locked before any lab runs.
 * It must be a writable directory (a file is made and removed there), and
 * no other dmalab run may be using it (flock on DIR/.dmalab-lock, which
 * names the holder's pid).  0, or an error line and -1: the caller exits 2. */
int results_dir_claim(struct run_state *rs);

/* discover.c */
int discover_labs(struct run_state *rs);
void lab_entries_free(struct run_state *rs);
struct lab_entry *find_lab(struct run_state *rs, const char *id);

/* tapscan.c */
struct tap_point {
	int ok;
	int number;
	char id[32];
	char desc[512];
	char directive[16];   /* "SKIP", "TODO" or "" */
	char dir_text[256];   /* after the directive */
	char yaml_status[16];
	char got[64], want[64], lo[64], hi[64], op[24], unit[32], tol[64];
	char got_name[64], want_name[64], reason[64], detail[256];
	char got_lo[64], got_hi[64], note[256];
	char erratum[32], erratum_expect[128]; /* the lab's erratum status, expect */
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
	int nlines, ntap, nother; /* lines seen, TAP lines, other lines */
	struct tap_point cur;
	int have_cur, in_yaml;
	struct tap_point *points;
	int npoints;
	char bail[256];
};

void tap_scan_init(struct tap_scan *ts, const struct tap_sink *sink);
void tap_scan_line(struct tap_scan *ts, const char *line);
void tap_scan_end(struct tap_scan *ts);
void tap_scan_free(struct tap_scan *ts);

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
};

/* Run argv in a new process group; timeout_s <= 0: none.  0, or -1 (fork). */
int spawn_lab(char *const argv[], double timeout_s, const struct spawn_io *io,
	      struct spawn_result *res);
/* Run argv and collect its stdout (at most cap-1 bytes) within timeout_s. */
int spawn_capture(char *const argv[], double timeout_s, char *buf, size_t cap,
		  struct spawn_result *res);
double mono_now(void);
const char *signal_name(int sig);

/* record.c */
void claim_res_reset(struct claim_res *c);
void claim_res_free(struct claim_res *c);
struct claim_res *lab_claim(struct lab_entry *lab, const char *id);
void claim_from_point(struct claim_res *c, const struct tap_point *pt);
/* A claim object of a lab record or results.json (also used by grade, quiz). */
void claim_from_json(struct claim_res *c, const struct json *o);
void record_finish(struct run_state *rs, struct lab_entry *lab,
		   const struct spawn_result *sr, const struct tap_scan *ts);
void record_not_run(struct lab_entry *lab, const char *kind, const char *why);
int claim_res_decided(const struct claim_res *c);
/* A failed claim the lab called its known erratum (erratum "predicted"). */
int claim_res_known(const struct claim_res *c);
/* The lab's erratum object of a claim: {status, expect, when, truth} (or
 * `true`, the older results.json) into c's erratum fields. */
void claim_erratum_from_json(struct claim_res *c, const struct json *e);
/* One line on a contradicted claim's erratum, or "" when none is listed:
 * "known erratum 02.2: predicts >= 3, and this run meets it". */
void fmt_erratum(const struct claim_res *c, char *buf, size_t len);
/* A relation as written in errata.md ("ge 3") in lab_want_text's words. */
void fmt_expect(const char *expect, char *buf, size_t len);

/* A lab of results.json: run now, or kept from the earlier file. */
struct file_lab {
	const struct lab_entry *lab;
	const struct json *kept; /* its object in the earlier file; NULL: run now */
};

/* merge.c */
void results_keep_load(struct run_state *rs);
void results_keep_free(struct run_state *rs);
/* The labs results.json lists; *out is malloc'ed.  Their number, or -1. */
int results_file_labs(const struct run_state *rs, struct file_lab **out);

/* results.c */
struct totals {
	int labs, lab_pass, lab_fail, lab_skip, lab_inconclusive, lab_error, lab_not_run;
	int claims, pass, fail, erratum, skip, inconclusive, error, not_run;
};
void totals_count(const struct run_state *rs, struct totals *t);
const char *run_status(const struct run_state *rs);
int results_write(struct run_state *rs, struct json_writer *w);
/* Writes results.json and junit.xml; final: the run's last save, which also
 * prints the document --format json or junit asks for.  0 or -1. */
int results_save(struct run_state *rs, int final);

/* junit.c: the run as JUnit XML (Jenkins' junit-10.xsd); junit_save writes
 * <results>/junit.xml atomically and, with print_stdout, the same bytes on
 * stdout; a failed write is said once and sets save_failed.  0 or -1. */
struct xml_writer;
int junit_write(struct run_state *rs, struct xml_writer *x);
int junit_save(struct run_state *rs, int print_stdout);

/* output.c */
void out_run_begin(struct run_state *rs, int nlabs);
void out_lab_begin(struct run_state *rs, struct lab_entry *lab, char *const argv[]);
void out_lab_comment(struct run_state *rs, const char *text);
void out_lab_point(struct run_state *rs, struct lab_entry *lab, const struct tap_point *pt);
void out_lab_stderr(struct run_state *rs, const char *line);
void out_lab_end(struct run_state *rs, struct lab_entry *lab, int number);
void out_run_end(struct run_state *rs);
void out_report_card(struct run_state *rs, FILE *f, const char *prefix);
void fmt_got_want(const struct claim_res *c, char *buf, size_t len);
/* explain.c: "320 KiB", "8 MiB", "512 bytes" from a byte count. */
void fmt_bytes(double b, char *buf, size_t len);
FILE *out_progress_stream(struct run_state *rs);

/* run.c */
int cmd_run(struct run_state *rs);

/* list.c */
int cmd_list(struct run_state *rs);

/* claims.c */
int cmd_claims(struct run_state *rs);

/* preflight.c: `dmalab preflight ARGS` (argv[0] "preflight"), labs from labs_dir
 * unless --labs-dir; its exit code: 0 healthy, 1 unhealthy, 2 could not run. */
int cmd_preflight(int argc, char **argv, const char *labs_dir);

#endif
