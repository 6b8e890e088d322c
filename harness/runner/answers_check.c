/*
 * answers_check.c - which claims back which question (from the labs' specs,
 * through --describe, and planned-claims.md), the answers files checked
 * against the built labs, and the rules that grade a question from its
 * claims (answers.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"

/* ------------------------------------------------------------------------ */
/* The question -> claims map                                                */

/* The next blank-separated word of *list (cut to 63 bytes) into word,
 * advancing *list: 1, or 0 at its end. */
static int next_word(const char **list, char word[64])
{
	size_t n;

	if (!*list || !*(*list += strspn(*list, " \t\n")))
		return 0;
	n = strcspn(*list, " \t\n");
	snprintf(word, 64, "%.*s", (int)(n < 63 ? n : 63), *list);
	*list += n;
	return 1;
}

/* Claim ids in the order of their numbers: "02.10" after "02.9". */
static int claim_cmp(const char *a, const char *b)
{
	long la = strtol(a, NULL, 10), lb = strtol(b, NULL, 10);
	const char *da = strchr(a, '.'), *db = strchr(b, '.');
	long ka = da ? strtol(da + 1, NULL, 10) : 0, kb = db ? strtol(db + 1, NULL, 10) : 0;

	if (la != lb)
		return la < lb ? -1 : 1;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return strcmp(a, b);
}

/* Adds claim to q in id order; 1 added, 0 already there, -1 out of memory. */
static int question_add(struct ans_question *q, const char *claim)
{
	char **c, *dup;
	int i, at = q->nclaims;

	for (i = 0; i < q->nclaims; i++) {
		int cmp = claim_cmp(claim, q->claims[i]);

		if (!cmp)
			return 0;
		if (cmp < 0 && at == q->nclaims)
			at = i;
	}
	c = realloc(q->claims, (size_t)(q->nclaims + 1) * sizeof(*c));
	if (!c)
		return -1;
	q->claims = c;
	dup = strdup(claim);
	if (!dup)
		return -1;
	memmove(&c[at + 1], &c[at], (size_t)(q->nclaims - at) * sizeof(*c));
	c[at] = dup;
	q->nclaims++;
	return 1;
}

/* Drops every claim of lab (NULL: of every lab) from every question. */
static void unmap_lab(struct ans_set *s, const char *lab)
{
	char owner[16];
	int j, n;

	for (int i = 0; i < s->nch; i++)
		for (int k = 0; k < s->ch[i].n; k++) {
			struct ans_question *q = &s->ch[i].q[k];

			for (j = 0, n = 0; j < q->nclaims; j++) {
				ans_claim_lab(q->claims[j], owner, sizeof(owner));
				if (lab && strcmp(owner, lab))
					q->claims[n++] = q->claims[j];
				else
					free(q->claims[j]);
			}
			q->nclaims = n;
		}
}

int ans_map_lab(const struct ans_set *s, const char *lab)
{
	for (int i = 0; i < s->nmapped; i++)
		if (!strcmp(s->mapped[i], lab))
			return 1;
	return 0;
}

/* Records lab as mapped; what was mapped of it before (its planned claims)
 * goes.  0, or -1 out of memory. */
static int mark_mapped(struct ans_set *s, const char *lab)
{
	char (*m)[8];

	if (ans_map_lab(s, lab))
		return 0;
	m = realloc(s->mapped, (size_t)(s->nmapped + 1) * sizeof(*m));
	if (!m)
		return -1;
	s->mapped = m;
	snprintf(m[s->nmapped++], sizeof(*m), "%.7s", lab);
	unmap_lab(s, lab);
	return 0;
}

/* Adds claim to the questions its list names: how many, or -1. */
static int map_questions(struct ans_set *s, const char *claim, const char *list)
{
	struct ans_question *q;
	char word[64];
	int backed = 0;

	while (next_word(&list, word))
		if ((q = (struct ans_question *)ans_find_question(s, word))) {
			if (question_add(q, claim) < 0)
				return -1;
			backed++;
		}
	return backed;
}

int ans_map_claim(struct ans_set *s, const char *lab, const char *claim,
		  const char *questions)
{
	return mark_mapped(s, lab) ? -1 : map_questions(s, claim, questions);
}

int ans_map_planned(struct ans_set *s)
{
	for (int i = 0; i < s->nplanned; i++) {
		const struct ans_planned_lab *l = &s->planned[i];

		for (int k = 0; k < l->n && !ans_map_lab(s, l->id); k++)
			if (map_questions(s, l->claims[k].id, l->claims[k].questions) < 0)
				return -1;
	}
	return 0;
}

void ans_map_clear(struct ans_set *s)
{
	unmap_lab(s, NULL);
	free(s->mapped);
	s->mapped = NULL;
	s->nmapped = 0;
}

/* ------------------------------------------------------------------------ */
/* Cross-check                                                               */

static int built_lab(const struct ans_built *b, int nb, const char *lab)
{
	for (int i = 0; i < nb; i++)
		if (!strcmp(b[i].lab, lab))
			return 1;
	return 0;
}

/* The errors of one claim's list of questions, printed: a word that is no
 * question of s, or no question at all.  whose: "lab-02" or
 * "planned-claims.md"; tag_allowed: its first word may be a section. */
static int check_claim(const struct ans_set *s, FILE *out, const char *claim,
		       const char *whose, int tag_allowed, const char *list)
{
	const char *p = list;
	char word[64];
	int first = 1, backed = 0, errors = 0;

	for (; next_word(&p, word); first = 0) {
		if (ans_find_question(s, word)) {
			backed++;
			continue;
		}
		if (first && tag_allowed && !ans_question_id_ok(word))
			continue; /* the claim's own section, shown in the claims table */
		fprintf(out, "error: claim %s of %s names question %s, which %s\n", claim, whose,
			word, ans_question_id_ok(word) ? "no answers file has"
			: "is not a question id (like ch1.Q2)");
		errors++;
	}
	if (backed || errors || (tag_allowed && ans_beyond_chapter(list)))
		return errors;
	fprintf(out, "error: claim %s of %s backs no question: name one in %s\n", claim, whose,
		tag_allowed ? "its spec's question" : "its brackets");
	return 1;
}

/* Every built claim names questions that exist, at least one. */
static int check_built(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	char whose[32];
	int i, errors = 0;

	for (i = 0; i < nb; i++) {
		snprintf(whose, sizeof(whose), "lab-%.20s", b[i].lab);
		errors += check_claim(s, out, b[i].claim, whose, 1, b[i].questions);
	}
	return errors;
}

/* So does every planned claim of a lab not built. */
static int check_planned(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	int i, k, errors = 0;

	for (i = 0; i < s->nplanned; i++) {
		const struct ans_planned_lab *l = &s->planned[i];

		if (built_lab(b, nb, l->id)) {
			fprintf(out, "warning: lab-%s is built now: its planned claims (line %d "
				"of planned-claims.md) are no longer used\n", l->id, l->line);
			continue;
		}
		for (k = 0; k < l->n; k++)
			errors += check_claim(s, out, l->claims[k].id, "planned-claims.md", 0,
					      l->claims[k].questions);
	}
	return errors;
}

/* 1 if the claim's list names the question. */
static int names(const char *list, const char *id)
{
	char word[64];

	while (next_word(&list, word))
		if (!strcmp(word, id))
			return 1;
	return 0;
}

/* Every question is backed by a built claim or a planned one of a lab not built. */
static int check_backed(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	int i, k, j, p, errors = 0, backed;

	for (i = 0; i < s->nch; i++)
		for (k = 0; k < s->ch[i].n; k++) {
			const struct ans_question *q = &s->ch[i].q[k];

			for (j = 0, backed = 0; j < nb && !backed; j++)
				backed = names(b[j].questions, q->id);
			for (j = 0; j < s->nplanned && !backed; j++)
				for (p = 0; !built_lab(b, nb, s->planned[j].id) &&
					    p < s->planned[j].n && !backed; p++)
					backed = names(s->planned[j].claims[p].questions, q->id);
			if (backed)
				continue;
			fprintf(out, "error: %s:%d: no claim backs %s: a lab's claim must name it "
				"in its spec (or a planned claim in its brackets)\n",
				s->ch[i].path, q->line, q->id);
			errors++;
		}
	return errors;
}

int ans_cross_check(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	return check_built(s, b, nb, out) + check_planned(s, b, nb, out) +
	       check_backed(s, b, nb, out);
}

/* ------------------------------------------------------------------------ */
/* Grading rules                                                             */

enum ans_state ans_claim_state(enum status status)
{
	if (status == ST_PASS)
		return ANS_CONFIRMED;
	if (status == ST_FAIL)
		return ANS_CONTRADICTED;
	return ANS_UNVERIFIED;
}

const char *ans_state_name(enum ans_state st)
{
	static const char *const names[] = { "confirmed", "contradicted", "unverified",
					     "not_built" };

	return st <= ANS_NOT_BUILT ? names[st] : "?";
}

void ans_tally_add(struct ans_tally *t, enum ans_state st, int known_erratum)
{
	t->claims++;
	if (st == ANS_CONFIRMED)
		t->confirmed++;
	else if (st == ANS_CONTRADICTED)
		t->contradicted++, t->known_errata += known_erratum != 0;
	else if (st == ANS_NOT_BUILT)
		t->not_built++;
}

/* 1 when enough of the question's claims are decided for it to count. */
static int ans_question_enough(const struct ans_tally *t)
{
	int decided = t->confirmed + t->contradicted;

	return decided > 0 && decided * ANS_DECIDED_SHARE_DEN >= t->claims * ANS_DECIDED_SHARE_NUM;
}

const char *ans_question_status(const struct ans_tally *t)
{
	if (!ans_question_enough(t))
		return question_words[Q_UNVERIFIED];
	if (t->contradicted)
		return question_words[Q_CONTRADICTED];
	if (!t->confirmed)
		return question_words[Q_UNVERIFIED];
	return question_words[t->confirmed == t->claims ? Q_CONFIRMED : Q_PARTIAL];
}

int ans_question_points(const struct ans_tally *t, double *points)
{
	int decided = t->confirmed + t->contradicted;

	*points = ans_question_enough(t) ? (double)t->confirmed / decided : 0;
	return ans_question_enough(t);
}
