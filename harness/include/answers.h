/*
 * answers.h - the chapters' questions, reference answers, planned claims and
 * lab hints (the .md files of answers/, described in answers/README.md), and the
 * rules that grade a question from the verdicts of its claims.
 *
 * Every file has the same small structure:
 *
 *	# <title>                          first non-blank line, once
 *	## <id>                            one section per question or lab
 *	key: value                         a key at column 0
 *	  more of the value                continuation lines are indented
 *
 * The parser is strict: an unknown key, a missing or repeated key, a bad or
 * repeated id, an indented line outside a value, a NUL byte or invalid UTF-8
 * is an error "FILE:LINE: what".  All strings are UTF-8; values keep their
 * line breaks (leading blanks of continuation lines are dropped, and a run
 * of blank lines inside a value becomes one empty line).
 */
#ifndef DMALAB_ANSWERS_H
#define DMALAB_ANSWERS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ans_lang { ANS_EN = 0, ANS_ZH = 1, ANS_NLANGS = 2 };

/* ch*.md: "# chN: title", then "## chN.Q1" sections */
struct ans_question {
	char id[24];             /* "ch1.Q2" */
	char **claims;           /* claim ids as listed ("02.1") */
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

/* planned-claims.md: "## NN" per lab not built yet, "title:", "claim: NN.k text" */
struct ans_planned_claim {
	char id[24];
	char *text;
};

struct ans_planned_lab {
	char id[8];              /* "07" */
	char *title;
	struct ans_planned_claim *claims;
	int n;
	int line;
};

/* hints.md: "## NN" per lab, "hint.en:" and "hint.zh:" in pairs, in order */
struct ans_hint_lab {
	char id[8];
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

/*
 * UTF-8: 1 if s[0..len) is valid (no overlongs, surrogates or code points
 * above U+10FFFF); else 0 and *bad (if not NULL) is the offset of the first
 * bad byte.  ans_utf8_fix replaces each invalid byte by '?' in place and
 * returns how many it replaced.
 */
int ans_utf8_valid(const char *s, size_t len, size_t *bad);
size_t ans_utf8_fix(char *s, size_t len);

/*
 * Cross-check against the built labs (from their --describe): every claim a
 * question names must be a claim of a built lab, or a planned claim of a lab
 * not built; every built claim and every planned claim of an unbuilt lab
 * must back at least one question.  Problems are printed to out as
 * "error: ..." or "warning: ..." lines; returns the number of errors.
 */
struct ans_built {
	const char *lab;         /* "02" */
	const char *claim;       /* "02.1" */
	const char *question;    /* the lab's own tag, "ch1.Q2"; may be NULL */
};
int ans_cross_check(const struct ans_set *s, const struct ans_built *b, int nb,
		    FILE *out);

/*
 * Grading.  A claim's state comes from its verdict (results.json status):
 * pass -> confirmed, fail -> contradicted, anything else -> unverified; a
 * claim of a lab that is not built is not_built.  A question is
 * contradicted if one claim is, unverified if none is confirmed, confirmed if
 * all are, else partial.  It scores the share of its decided claims
 * (confirmed + contradicted) that are confirmed; a question without a
 * decided claim is left out of the maximum, never scored 0.
 */
enum ans_state { ANS_CONFIRMED, ANS_CONTRADICTED, ANS_UNVERIFIED, ANS_NOT_BUILT };

struct ans_tally {
	int claims, confirmed, contradicted, known_errata, unverified, not_built;
};

enum ans_state ans_claim_state(const char *status);
const char *ans_state_name(enum ans_state st);   /* "confirmed", ..., "not_built" */
void ans_tally_add(struct ans_tally *t, enum ans_state st, int known_erratum);
const char *ans_question_status(const struct ans_tally *t);
/* 1 and *points in [0, 1] when the question counts; 0 when it is left out. */
int ans_question_points(const struct ans_tally *t, double *points);

#ifdef __cplusplus
}
#endif
#endif
