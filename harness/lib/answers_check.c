/*
 * answers_check.c - the answers files against the built labs, and the rules
 * that grade a question from its claims (answers.h).
 */
#include <stdio.h>
#include <string.h>

#include "answers.h"

static int built_lab(const struct ans_built *b, int nb, const char *lab)
{
	int i;

	for (i = 0; i < nb; i++)
		if (!strcmp(b[i].lab, lab))
			return 1;
	return 0;
}

static const struct ans_built *built_claim(const struct ans_built *b, int nb,
					   const char *claim)
{
	int i;

	for (i = 0; i < nb; i++)
		if (!strcmp(b[i].claim, claim))
			return &b[i];
	return NULL;
}

static int question_names(const struct ans_question *q, const char *claim)
{
	int i;

	for (i = 0; i < q->nclaims; i++)
		if (!strcmp(q->claims[i], claim))
			return 1;
	return 0;
}

/* The first question naming the claim, or NULL. */
static const struct ans_question *backed(const struct ans_set *s, const char *claim)
{
	int i, k;

	for (i = 0; i < s->nch; i++)
		for (k = 0; k < s->ch[i].n; k++)
			if (question_names(&s->ch[i].q[k], claim))
				return &s->ch[i].q[k];
	return NULL;
}

/* Every claim a question names exists, built or planned. */
static int check_named(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	char lab[16];
	int i, k, j, errors = 0;

	for (i = 0; i < s->nch; i++) {
		for (k = 0; k < s->ch[i].n; k++) {
			const struct ans_question *q = &s->ch[i].q[k];

			for (j = 0; j < q->nclaims; j++) {
				ans_claim_lab(q->claims[j], lab, sizeof(lab));
				if (built_lab(b, nb, lab) ? built_claim(b, nb, q->claims[j]) != NULL
							  : ans_find_planned(s, q->claims[j]) != NULL)
					continue;
				fprintf(out, "error: %s:%d: %s names claim %s, which %s\n",
					s->ch[i].path, q->line, q->id, q->claims[j],
					built_lab(b, nb, lab) ? "the built lab does not have"
							      : "no lab has and none plans");
				errors++;
			}
		}
	}
	return errors;
}

/* Every built claim backs a question; its lab's own tag should agree. */
static int check_built(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	const struct ans_question *tagged;
	int i, errors = 0;

	for (i = 0; i < nb; i++) {
		if (!backed(s, b[i].claim)) {
			fprintf(out, "error: claim %s of lab-%s backs no question: add it to "
				"the 'claims:' of one\n", b[i].claim, b[i].lab);
			errors++;
			continue;
		}
		tagged = b[i].question ? ans_find_question(s, b[i].question) : NULL;
		if (tagged && !question_names(tagged, b[i].claim))
			fprintf(out, "warning: lab-%s tags claim %s with %s, but %s does not "
				"list it\n", b[i].lab, b[i].claim, b[i].question, tagged->id);
	}
	return errors;
}

/* Every planned claim of a lab not built backs a question. */
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
		for (k = 0; k < l->n; k++) {
			if (backed(s, l->claims[k].id))
				continue;
			fprintf(out, "error: planned claim %s backs no question\n", l->claims[k].id);
			errors++;
		}
	}
	return errors;
}

int ans_cross_check(const struct ans_set *s, const struct ans_built *b, int nb, FILE *out)
{
	return check_named(s, b, nb, out) + check_built(s, b, nb, out) +
	       check_planned(s, b, nb, out);
}

/* ------------------------------------------------------------------------ */
/* Grading rules                                                             */

enum ans_state ans_claim_state(const char *status)
{
	if (status && !strcmp(status, "pass"))
		return ANS_CONFIRMED;
	if (status && !strcmp(status, "fail"))
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
	else
		t->unverified++;
}

const char *ans_question_status(const struct ans_tally *t)
{
	if (t->contradicted)
		return "contradicted";
	if (!t->confirmed)
		return "unverified";
	return t->confirmed == t->claims ? "confirmed" : "partial";
}

int ans_question_points(const struct ans_tally *t, double *points)
{
	int decided = t->confirmed + t->contradicted;

	*points = decided ? (double)t->confirmed / decided : 0;
	return decided > 0;
}
