/*
 * exercise.h - the learner's exercises: regions of a lab file that the
 * learner's copy has as stubs (README.md "A learner's first hour", labs/README.md).
 *
 *   exercise_scan.c  the regions found, masked, replaced by their stubs
 *   exercise.c       `dmalab exercise NN`, `dmalab try NN`, `dmalab exercises`
 *   exercise_here.c  which exercises this machine cannot grade, before a try
 *
 * The reference solution is the lab file itself; the learner's copy is
 * <work>/NN-name/lab.c|lab.cu.  Outside the regions' bodies the copy must be
 * the reference's text, so the claims table, the wants and the timing stay.
 */
#ifndef DMALAB_EXERCISE_H
#define DMALAB_EXERCISE_H

#include <stddef.h>
#include <stdio.h>

#define EX_MAX 16        /* regions in one lab file, at most */
#define EX_TEXT_MAX 1024

struct ex_region {
	char id[32];             /* "01.lock" */
	char claims[128];        /* "01.1 01.2 01.3": the claims that grade it */
	char what[EX_TEXT_MAX];  /* what to write, as the marker says it */
	int line;                /* the marker's line, 1-based */
	size_t body_start, body_end;  /* the learner's part: whole lines */
	size_t stub_start, stub_end;  /* the stub's lines inside the body; 0 0: none */
};

/* The regions of text t, in order; their count, or -1 with err (a marker
 * without its end, a marker that names no claim). */
int ex_scan(const char *t, size_t len, struct ex_region *out, int max, char *err, size_t errlen);
/* t with every region's body emptied (markers kept): what must match. */
char *ex_mask(const char *t, size_t len, const struct ex_region *r, int n);
/* t with every region's body replaced by its stub: the learner's copy; notes[i]
 * (lines, when notes and notes[i]) goes before region i's stub, inside its body. */
char *ex_stubbed(const char *t, size_t len, const struct ex_region *r, int n,
		 const char *const *notes);
/* The line of the first preprocessor directive inside a region, 0 if none. */
int ex_directive_line(const char *t, size_t len, const struct ex_region *r, int n);
/* The line of t (regions r, n of them) that is line masked_line of its mask. */
int ex_file_line(const char *t, const struct ex_region *r, int n, int masked_line);
/* The first line where a and b differ, 0 when equal. */
int ex_first_diff_line(const char *a, const char *b);

/* An exercise's state, worst first (a region takes the worst of its claims'),
 * then the states of a copy never tried.  The last try's copy refused or not
 * compiled: every region of it takes that state, whatever an older run said.
 * ex_state_keys: results.json's words; ex_state_text: what the learner reads, in
 * the learner's language (msg_english of it: JUnit's English). */
enum ex_state {
	EX_REFUSED, EX_NOT_COMPILED,
	EX_NOT_YET, EX_UNDECIDED, EX_NOT_GRADED, EX_DONE, EX_NOT_STARTED, EX_UNTRIED,
	EX_NSTATES
};
extern const char *const ex_state_keys[EX_NSTATES];
/* State st as the learner reads it (answers/messages.zh.md "ex.*" in zh). */
const char *ex_state_text(enum ex_state st);
/* The state whose results.json word is key; EX_NSTATES if none. */
enum ex_state ex_state_of_key(const char *key);
/* What the learner reads for results.json's word key ("not yet" for "not_yet"),
 * in the learner's language. */
const char *ex_state_word(const char *key);
/* 1 for an exercise not begun (not started, or never tried): one whose claims skip
 * on the machine of a run is "not graded here" (class, grade, junit), as make
 * exercises marks it before any try. */
int ex_not_begun(enum ex_state st);

struct ex_status {
	char id[32], lab[8], claims[128];
	enum ex_state state;     /* from the copy's last try (work/NN-name/results/) */
};
/* Every exercise of the labs under src (only lab `lab` unless NULL), with
 * its state from the learner's copies under work; *out is malloc'ed (free
 * it).  Their number, or -1 (*out NULL) without a lab source. */
int ex_status_all(const char *src, const char *work, const char *lab,
		  struct ex_status **out);
struct json_writer;
struct ex_here;
/* e's line as make exercises and make grade print it, after `indent` blanks:
 * its id, lab, state (word: as the learner reads it) padded to `width` columns
 * and claims, marked with what this machine lacks to grade it (h's forecast)
 * unless it is done.  1 when so marked, -1 when h cannot tell (its lab is not
 * built), else 0. */
int ex_status_print(FILE *f, int indent, const struct ex_status *e, const char *word,
		    int width, const struct ex_here *h);
/* The member "exercises": [{id, lab, claims, state, skips_here}] into the open
 * object; skips_here: the skips h forecasts for its claims on this machine
 * (ex_here_skips), null when none is foreseen or h is NULL. */
void ex_status_write(struct json_writer *w, const char *src, const char *work,
		     const struct ex_here *h);

/* exercise_here.c: what this machine lacks to grade an exercise (or to measure
 * a figure), forecast from the built labs under labs_dir (their --describe) and
 * the machine's facts.  CUDA is asked in a child process: ex_here_open may be
 * called by a process that starts labs after it. */
struct ex_here *ex_here_open(const char *labs_dir);
/* The child's side, `dmalab --role cuda-devices`: CUDA's device list on
 * stdout, as ex_here_open reads it; the exit code. */
int ex_here_cuda_role(void);
void ex_here_close(struct ex_here *h);
/* What this machine lacks for claims (of lab lab_id) to be decided, in the
 * learner's words, into out ("a GPU, 2 NUMA nodes"): 1; 0 when nothing is
 * lacking; -1 when lab lab_id is not built (or its --describe failed). */
int ex_here_lacks(const struct ex_here *h, const char *lab_id, const char *claims,
		  char *out, size_t len);
/* The same, its words added to the list already in out (none twice). */
int ex_here_lacks_add(const struct ex_here *h, const char *lab_id, const char *claims,
		      char *out, size_t len);
/* The same as the skip reason codes (record.h) the claims will give here,
 * between blanks ("no-cuda-driver single-numa-node"): what results.json keeps. */
int ex_here_skips(const struct ex_here *h, const char *lab_id, const char *claims,
		  char *out, size_t len);

/* exercise.c: `dmalab exercise NN`, `dmalab try NN`, `dmalab exercises` */
int cmd_exercise(int argc, char **argv);
int cmd_try(int argc, char **argv);
int cmd_exercises(int argc, char **argv);

#endif
