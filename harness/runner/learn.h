/*
 * learn.h - the commands that tie the labs' verdicts to the chapters'
 * questions (answers/): grade, quiz, hint and answers.
 *
 *   learn.c    options, dispatch, running `dmalab check` as a child, the
 *              answers cross-check against the built labs
 *   results.c  reading a results.json back into lab entries and claims
 *   grade.c    `dmalab grade`: per question and chapter, grade.json
 *   gradescope.c  `grade --gradescope FILE`: Gradescope's autograder results.json
 *   grade_learner.c  the learner's predictions and exercises in grade, grade.json
 *              and the Gradescope file
 *   quiz.c     `dmalab quiz`: ask, compare, self-mark, quiz.json
 *   hint.c     `dmalab hint NN`: a lab's hints one at a time, hints.json
 *
 * Exit codes: 0 done, 1 results or progress could not be used, 2 usage or a
 * malformed answers file, 130 interrupted.
 */
#ifndef DMALAB_LEARN_H
#define DMALAB_LEARN_H

#include <limits.h>
#include <stdio.h>

#include "answers.h"
#include "errata.h"
#include "lang.h"
#include "runner.h"

struct learn_opts {
	const char *command;       /* grade quiz hint answers */
	const char *answers_dir;   /* default "answers" */
	const char *results_dir;   /* default "results" */
	const char *errata_path;   /* default <answers_dir>/errata.md */
	char labs_dir[PATH_MAX];   /* default <dir of dmalab>/labs */
	const char *from;          /* grade: read this results.json, run nothing */
	const char *gradescope;    /* grade: also write Gradescope's results.json here */
	const char *chapter;       /* only this chapter ("ch1"), or NULL */
	const char *script;        /* quiz: read the learner's input from this file */
	const char *lab;           /* hint: the lab id ("03") */
	const char *exercise;      /* hint NN.name: that exercise's hints ("03.fix-race") */
	const char *seeds_dir;     /* answers: the chapters' texts, or NULL */
	const char *work;          /* the learner's exercise copies (hint; passed to check) */
	const char *learner;       /* passed to `dmalab check` as --learner, or NULL */
	enum ans_lang lang;
	int shuffle;
	unsigned seed;
	int reset;                 /* quiz, hint: start over */
	int quick;                 /* passed to `dmalab check` */
	double timeout_mul;
};

/* What a results.json holds, as the runner's own lab entries. */
#define LEARN_MAX_MORE 16

struct learn_results {
	struct json *doc;
	struct lab_entry *labs;
	int nlabs;
	const char *started;       /* from the file, "" if absent */
	struct json *more[LEARN_MAX_MORE]; /* documents merged in (quiz runs) */
	int nmore;
};

struct learn_ctx {
	struct learn_opts *opt;
	struct ans_set ans;
	struct errata errata;
	struct learn_results res;
	int have_results;
	char res_error[600];       /* why results could not be read */
	struct runner_opts labs_opt;
	struct run_state labs;     /* the built labs, with their --describe */
	int have_labs;
};

/* learn.c */
/* `dmalab grade|quiz|hint|answers ...` (argv[1] the command): the options,
 * the answers, errata and results loaded, then cmd. */
int learn_main(int argc, char **argv, int (*cmd)(struct learn_ctx *lc));
/* `dmalab answers`: answers/ against the built labs */
int cmd_answers(struct learn_ctx *lc);
/* Runs `dmalab check [ids]` writing into results_dir; its exit code, or
 * -1 if it could not be started.  ids may be NULL. */
int learn_run_check(const struct learn_opts *o, const char *results_dir,
		    char *const *ids, int nids);
/* 1 if <labs_dir>/lab-<id> is an executable. */
int learn_lab_built(const struct learn_opts *o, const char *lab);
void learn_iso_now(char *buf, size_t len);
/* mkdir -p; 0 or -1 with errno. */
int learn_mkdirs(const char *dir);
/* Writes w to path atomically and releases w.  dir, the results folder, is
 * made if its parent exists (as check's --results is: a typo is refused, not
 * built); dir NULL: path is an export (Gradescope's), its folders made as
 * needed.  On failure says why.  0, or -1. */
int learn_write_json(struct json_writer *w, const char *dir, const char *path,
		     const char *verb);
/*
 * The question -> claims map (answers.h): the claims of the built labs as
 * their --describe names them, then those of labs in the results that are
 * not built here (as the results name them), then the planned claims of the
 * labs neither built nor in the results.  Call again after loading results.
 * 0, or -1 out of memory.
 */
int learn_map(struct learn_ctx *lc);

/* results.c: results.json read back */
int results_load(const char *path, struct learn_results *r, char *err, size_t errlen);
void results_unload(struct learn_results *r);
/* 1 and why in err when doc is a run that never finished (results_load refuses it). */
int results_unfinished(const struct json *doc, const char *path, char *err, size_t errlen);
/* Moves the labs of `more` that r does not have into r. */
void results_merge(struct learn_results *r, struct learn_results *more);
const struct claim *results_claim(const struct learn_results *r, const char *id,
				      const struct lab_entry **lab);

/* grade.c: a claim as the learner sees it */
struct claim_view {
	const char *id;
	char lab[16];
	enum ans_state state;
	const char *status;        /* the verdict, "not_built", or "absent" */
	int known;                 /* contradicted and a known erratum */
	const struct erratum *erratum;
	const struct claim *c; /* NULL when not measured */
	char evidence[600];        /* got vs want, or why there is none */
};
void claim_view_make(const struct learn_ctx *lc, const char *id, struct claim_view *v);
/* v's line as grade and quiz print it, `indent` blanks first: its id, its
 * word ("confirmed", "skipped", "not built yet"...) and its evidence as the
 * learner reads it (got vs want in the kit's language), its lab */
void claim_view_print(const struct learn_ctx *lc, const struct claim_view *v, int indent,
		      FILE *f);
int cmd_grade(struct learn_ctx *lc);

/* One Gradescope test per question, worth 1 point (its top). */
struct gs_question {
	const char *id, *chapter;  /* "ch1.Q1", "ch1" */
	const char *prompt;        /* in the grade's language */
	const char *status;        /* confirmed contradicted partial unverified */
	double points;             /* grade's points: confirmed / decided, in [0, 1] */
	int counted;               /* grade scored it (else unverified, points 0) */
	int decided, planned;      /* claims decided here; claims behind it */
	const char *output;        /* what `dmalab grade` prints for it */
};
struct gs_test;
struct gradescope {
	struct gs_test *tests;
	int n;
	int left_out;              /* questions no claim backs */
	int left_out_predictions;  /* predictions of figures not measured here */
	int ungraded;              /* exercises not begun whose claims skip on the
				    * run's machine (its results.json's skips_here) */
	int nlearner;              /* tests: exercises and predictions */
	int decided, planned;      /* claims, over the tests */
};
void gs_free(struct gradescope *gs);
/* Adds a question (its strings are copied).  0, or -1 out of memory. */
int gs_add(struct gradescope *gs, const struct gs_question *q);
/* Adds a test of 1 point (score in [0, 1], tag its one tag); 0, or -1. */
int gs_add_test(struct gradescope *gs, const char *name, const char *tag, double score,
		const char *output);
/* Writes lc->opt->gradescope atomically (its directory made if missing),
 * naming the graded results file `source`; says where.  0, or -1 (said). */
int gs_write(const struct gradescope *gs, const struct learn_ctx *lc, const char *source);

/* grade_learner.c: the learner's predictions and exercises in a grade */
/* The prediction of claim id in the results (labs[].predictions), or NULL. */
const struct json *learn_prediction(const struct learn_results *r, const char *id);
/* "your prediction: 3 x; measured 6.25 [6.02, 6.38]: score 0.68" */
void learn_prediction_text(const struct json *p, char *buf, size_t len);
void grade_print_exercises(const struct learn_ctx *lc, FILE *f);
/* grade.json's "learner", "exercises" (null when the run has none) and
 * "predictions" (every lab's, in order). */
void grade_json_learner(struct json_writer *w, const struct learn_results *r);
/* A Gradescope test per exercise and per scored prediction; 0, or -1. */
int gradescope_learner(const struct learn_ctx *lc, struct gradescope *gs);

/* quiz.c, hint.c */
int cmd_quiz(struct learn_ctx *lc);
int cmd_hint(struct learn_ctx *lc);

#endif
