/*
 * answers.h - the chapters' questions, reference answers, planned claims and
 * lab hints (the .md files of answers/, described in answers/README.md), and the
 * rules that grade a question from the verdicts of its claims.  answers.c
 * parses the files; answers_check.c maps claims to questions, checks the
 * files against the built labs and grades; answers_seed.c finds Chinese an
 * answer shares with a chapter.
 *
 * Every file is read by the kit's one sections reader (sections.h): a
 * "# title" line, "## id" sections, "key: value" fields; strict, UTF-8.
 *
 * Which claims back a question is not written in these files: each claim
 * names its questions in its lab's spec (lab.h, claim_spec.question), and the
 * runner maps them from the labs' --describe (ans_map_claim); a planned claim
 * names them in planned-claims.md.  One registry, so a new lab touches only
 * its own folder.
 */
#ifndef DMALAB_ANSWERS_H
#define DMALAB_ANSWERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sections.h"
#include "record.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ans_lang { ANS_EN = 0, ANS_ZH = 1, ANS_NLANGS = 2 };

/* ch*.md: "# chN: title", then "## chN.Q1" sections */
struct ans_question {
	char id[24];             /* "ch1.Q2" */
	char **claims;           /* the claims that back it ("02.1"), in id order:
				  * filled by ans_map_claim and ans_map_planned,
				  * empty after parsing */
	int nclaims;
	char *prompt[ANS_NLANGS];
	char *answer[ANS_NLANGS];
	int line;                /* line of its "## id" heading */
};

struct ans_chapter {
	char id[16];             /* "ch1" */
	char *title;             /* the title line without "# chN:" */
	char *path;              /* the file, for messages */
	struct ans_question *q;
	int n;
};

/* planned-claims.md: "## NN" per lab not built yet, "title:",
 * "claim: NN.k [chN.Q1 chM.S2] text" */
struct ans_planned_claim {
	char id[24];
	char *questions;         /* what is in the brackets: "ch1.Q4 ch2.S5" */
	char *text;
};

struct ans_planned_lab {
	char id[8];              /* "07" */
	char *title;
	struct ans_planned_claim *claims;
	int n;
	int line;
};

/* hints.md: "## NN" per lab and "## NN.name" per exercise, "hint.en:" and
 * "hint.zh:" in pairs, in order */
struct ans_hint_lab {
	char id[32];             /* "03", or an exercise's "03.wait" */
	char **hint[ANS_NLANGS]; /* n each */
	int n;
	int line;
};

struct ans_set {
	struct ans_chapter *ch;
	int nch;
	struct ans_planned_lab *planned;
	int nplanned;
	struct ans_hint_lab *hints;
	int nhints;
	char (*mapped)[8];       /* labs whose claims ans_map_claim mapped */
	int nmapped;
};

/*
 * Parsers of one file's text (len bytes, may hold anything); `name` is used
 * in messages.  Return 0, or -1 with "name:line: what" in err.  On error a
 * chapter is left empty; planned claims and hints are appended to a set,
 * which may then hold part of the file (ans_set_free it).
 */
int ans_parse_chapter(const char *text, size_t len, const char *name,
		      struct ans_chapter *c, char *err, size_t errlen);
int ans_parse_planned(const char *text, size_t len, const char *name,
		      struct ans_set *s, char *err, size_t errlen);
int ans_parse_hints(const char *text, size_t len, const char *name,
		    struct ans_set *s, char *err, size_t errlen);
/*
 * Load a directory: every ch*.md (sorted; at least one), planned-claims.md
 * and hints.md (both optional).  0, or -1 with a message.  Chapter ids and
 * question ids must be unique across files.
 */
int ans_load_dir(const char *dir, struct ans_set *s, char *err, size_t errlen);
void ans_chapter_free(struct ans_chapter *c);
void ans_set_free(struct ans_set *s);

const struct ans_chapter *ans_find_chapter(const struct ans_set *s, const char *id);
const struct ans_question *ans_find_question(const struct ans_set *s, const char *id);
const struct ans_planned_lab *ans_find_planned_lab(const struct ans_set *s, const char *lab);
const struct ans_planned_claim *ans_find_planned(const struct ans_set *s, const char *claim);
const struct ans_hint_lab *ans_find_hints(const struct ans_set *s, const char *lab);
/* The lab of a claim id: "02.1" -> "02" into out (outlen bytes). */
void ans_claim_lab(const char *claim, char *out, size_t outlen);

/* 1 if s is a question id of any chapter: "ch1.Q2", "ch2.S10". */
int ans_question_id_ok(const char *s);

/*
 * A claim whose question list starts with this word measures something its
 * chapter does not say (the kit's own answer, the CUDA reference): it backs
 * no question, so no chapter is graded on it, and the report card and grade
 * list it apart, "beyond the chapter".
 */
#define ANS_BEYOND "beyond"
static inline int ans_beyond_chapter(const char *questions)
{
	size_t n = sizeof(ANS_BEYOND) - 1;

	return questions && !strncmp(questions, ANS_BEYOND, n) &&
	       (questions[n] == '\0' || questions[n] == ' ');
}

/*
 * The question -> claims map.  ans_map_claim adds claim (of lab) to every
 * question of s that `questions` names (blank-separated ids, as a claim's
 * spec or a planned claim writes them; words that name no question of s are
 * left to ans_cross_check), keeping each question's claims in id order, and
 * records the lab as mapped: its planned claims, if any were mapped, are
 * dropped.  Returns the number of questions it backs now, or -1 when out of
 * memory.  ans_map_planned maps the planned claims of every lab not mapped
 * (0, or -1 out of memory); ans_map_lab says whether a lab is mapped;
 * ans_map_clear empties the map.
 */
int ans_map_claim(struct ans_set *s, const char *lab, const char *claim,
		  const char *questions);
int ans_map_planned(struct ans_set *s);
int ans_map_lab(const struct ans_set *s, const char *lab);
void ans_map_clear(struct ans_set *s);

/*
 * Cross-check against the built labs (from their --describe): each word of
 * a built claim's questions, and of a planned claim's of a lab not built,
 * must be a question of s (only a built claim's first word may be a section
 * that is no question id, "ch1.table"); every such claim must back at least
 * one question, and every question must be backed by one.  Problems are
 * printed to out as "error: ..." or "warning: ..." lines; returns the number
 * of errors.
 */
struct ans_built {
	const char *lab;         /* "02" */
	const char *claim;       /* "02.1" */
	const char *questions;   /* its spec's list, "ch1.Q2 ch2.S9"; may be NULL */
};
int ans_cross_check(const struct ans_set *s, const struct ans_built *b, int nb,
		    FILE *out);

/*
 * Text the chapters wrote, to keep the answers in their own words: a run
 * of at least `min` Chinese characters (CJK ideographs) that an answer shares
 * with a chapter is a copy.  Only ideographs count; everything else (Latin
 * letters, so code and API names, digits, punctuation, blanks, line breaks)
 * is left out of both texts before they are compared, so a run goes on
 * across "cudaMemcpyAsync" or a comma.
 */
struct ans_seed {
	char name[256];          /* for messages: the file's name */
	uint32_t *cp;            /* its ideographs, in order */
	size_t n;
	size_t min;
};
/* Reads a chapter's text (UTF-8; invalid bytes are skipped).  0, or -1 with
 * "path: why" in err. */
int ans_seed_load(const char *path, size_t min, struct ans_seed *sd, char *err,
		  size_t errlen);
/* The same from text in memory; 0, or -1 out of memory (err says so). */
int ans_seed_init(const char *name, const char *text, size_t len, size_t min,
		  struct ans_seed *sd, char *err, size_t errlen);
void ans_seed_free(struct ans_seed *sd);
/*
 * The longest run of at least sd->min ideographs that text (len bytes,
 * UTF-8) shares with the seed: its length in ideographs, or 0 when there is
 * none; the run itself into run (runlen bytes, UTF-8, cut to fit), when run
 * is not NULL.
 */
size_t ans_seed_shared(const struct ans_seed *sd, const char *text, size_t len,
		       char *run, size_t runlen);

/*
 * Grading.  A claim's state comes from its verdict (results.json status):
 * pass -> confirmed, fail -> contradicted, anything else -> unverified; a
 * claim of a lab that is not built is not_built.  A question is unverified
 * when fewer than half of its claims are decided (confirmed or contradicted:
 * one decided claim of three says too little about the question); otherwise
 * contradicted if one claim is, confirmed if all are, else partial.  It
 * scores the share of its decided claims that are confirmed; an unverified
 * question is left out of the maximum, never scored 0.
 */
#define ANS_DECIDED_SHARE_NUM 1 /* the least share of decided claims: 1/2 */
#define ANS_DECIDED_SHARE_DEN 2
enum ans_state { ANS_CONFIRMED, ANS_CONTRADICTED, ANS_UNVERIFIED, ANS_NOT_BUILT };

struct ans_tally {
	int claims, confirmed, contradicted, known_errata, not_built;
};

enum ans_state ans_claim_state(enum status status);
const char *ans_state_name(enum ans_state st);   /* "confirmed", ..., "not_built" */
void ans_tally_add(struct ans_tally *t, enum ans_state st, int known_erratum);
const char *ans_question_status(const struct ans_tally *t);
/* 1 and *points in [0, 1] when the question counts; 0 when it is left out. */
int ans_question_points(const struct ans_tally *t, double *points);

#ifdef __cplusplus
}
#endif
#endif
