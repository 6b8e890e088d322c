/*
 * lab_internal.h - the state behind `struct lab`, shared by the library's
 * files (lab_main.c, notebook.c, claim.c, report.c, opts.c, ...).  Not for
 * labs.  From the top down, the files call: lab_main, opts, need, claim,
 * stats, notebook, interrupt, report, knobs; helper, buffer and chase call
 * into that chain, and estimate (under claim and stats) calls nothing.
 * test-house fails a circle among them.
 */
#ifndef DMALAB_LAB_INTERNAL_H
#define DMALAB_LAB_INTERNAL_H

#include "errata.h"
#include "lab.h"
#include "record.h"

#define LAB_MAX_EXTRA 16
#define LAB_MAX_ATTACHED 8

/* A claim of the running lab: its spec, its record, what it attached. */
struct claim_rec {
	const struct claim_spec *spec;
	struct claim r;          /* r.status ST_PENDING until decided */
	char question[64];       /* the claim's own question: r.question */
	struct lab_stats stats[LAB_MAX_ATTACHED]; /* copies (stats_kept) */
	int nstats;
};

struct lab_fact {
	char key[64];
	char unit[16];
	char *str; /* NULL: numeric */
	double num;
};

struct lab_point {
	double x;
	struct lab_stats y; /* a copy (stats_kept) */
};

struct lab_series {
	char name[64];
	char x_unit[16];
	struct lab_point *pts;
	int npts, cap;
};

struct lab {
	const struct lab_spec *spec;
	struct lab_opts opt;
	const char *self;
	const char *extra_val[LAB_MAX_EXTRA];
	struct claim_rec *claims;
	int nclaims;
	int tap_next;            /* next TAP test number */
	enum status status;      /* ST_RUNNING until the lab ends */
	char skip_reason[48];
	char skip_detail[CLAIM_DETAIL_MAX];
	char error[512];
	int record_lost;         /* errno of a failed --json write */
	struct lab_stats pending[LAB_MAX_ATTACHED];
	int npending;
	char pending_note[512];  /* English: the record's (TAP YAML, JSON) */
	char pending_note_shown[512]; /* the learner's language (lang.h) */
	struct lab_fact *facts;
	int nfacts;
	struct lab_series *series;
	int nseries;
	char **notes;
	int nnotes;
	double last_progress;
	struct lab_phase *phases; /* what lab_progress said, and when */
	int nphases;
	double started;          /* lab_now() when run() began */
	int build_flags;         /* LAB_BUILT_* */
};

/* A step of the lab as lab_progress names it; `make bench --phases` shows
 * where a lab's time goes.  Seconds from the lab's start. */
#define LAB_MAX_PHASES 256
struct lab_phase {
	char what[96];
	double start_s;
};

/* report.c */
/* The claim's own question: the first of its spec's blank-separated list
 * (lab.h), into buf; "" when there is none. */
const char *claim_own_question(const struct claim_spec *c, char *buf, size_t len);
void report_tap_header(struct lab *L);
/* note_shown: the claim's note in the learner's language ("" none), a
 * comment in zh before the test line, which keeps the English. */
void report_tap_claim(struct lab *L, struct claim_rec *c, const char *note_shown);
/* -1 when the record could not be written (L->record_lost: the errno). */
int report_json_write(struct lab *L);
/* The record as a signal would leave it (status "interrupted", undecided
 * claims "not_run"), cut after the key "interrupted_by": malloc'd, *len
 * bytes (no NUL counted); NULL when out of memory. */
char *report_json_interrupted(const struct lab *L, size_t *len);
/* --describe: the spec as JSON (PROTOCOL.md), for `dmalab claims` and list */
void report_describe(const struct lab_spec *spec, int build_flags, FILE *out);

/* interrupt.c: the record a lab stopped by a signal leaves; interrupt_render
 * after every record while the lab runs. */
void interrupt_arm(struct lab *L);
void interrupt_render(const struct lab *L);
void interrupt_disarm(void);
/* knobs.c */
/* The sabotage build's knobs: broken (say 0) or listed (say 1); 0 or 2. */
int lab_apply_knobs(const struct lab_spec *spec, int build_flags, int say);
/* opts.c: parse argv into L; returns 0, or the exit code (2 usage, 0 help). */
int lab_parse_args(struct lab *L, int argc, char **argv, int *describe);
/* stats.c */
/* A copy of *s whose samples are in the library's storage (copied there if
 * they were not): what a claim or a series point keeps until exit. */
struct lab_stats stats_kept(const struct lab_stats *s);
/* The running lab, for lab_error when the samples' storage runs out. */
void stats_storage_owner(struct lab *L);
/* notebook.c */
LAB_NORETURN void lab_finish_exit(struct lab *L, int code);
/* A new phase of the lab's timing from now on (lab_progress starts one). */
void lab_phase_begin(struct lab *L, const char *what, double now);

#endif
