/*
 * grade_learner.c - what the learner did, beside the machine's verdicts in
 * `dmalab grade`: each prediction's score under the claim it predicts, the
 * exercises done or not (results.json's "exercises", written by a check
 * given --work), and both as Gradescope tests (one per exercise, 1 point
 * when done; one per prediction, its score; a figure not measured here is
 * left out, as a question no claim backs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"
#include "lang.h"
#include "learn.h"

/* The prediction of claim id in doc's labs, or NULL. */
static const struct json *doc_prediction(const struct json *doc, const char *id)
{
	const struct json *lab, *p, *labs = json_get(doc, "labs");

	for (lab = labs ? labs->child : NULL; lab; lab = lab->next)
		for (p = json_get(lab, "predictions") ? json_get(lab, "predictions")->child : NULL;
		     p; p = p->next)
			if (!strcmp(json_get_str(p, "name", ""), id))
				return p;
	return NULL;
}

const struct json *learn_prediction(const struct learn_results *r, const char *id)
{
	const struct json *p = doc_prediction(r->doc, id);

	for (int i = 0; !p && i < r->nmore; i++)
		p = doc_prediction(r->more[i], id);
	return p;
}

void learn_prediction_text(const struct json *p, char *buf, size_t len)
{
	const struct json *iv = json_get(p, "interval");
	double pred = json_get_num(p, "predicted", NAN), score = json_get_num(p, "score", NAN);
	const char *unit = json_get_str(p, "unit", "");

	if (isnan(score) || !iv || iv->type != JSON_ARR || iv->count != 2)
		snprintf(buf, len, MSG("pred.not-scored", "your prediction: not scored (not "
				       "measured here)"));
	else if (isnan(pred))
		snprintf(buf, len, MSG("pred.unknown", "your prediction: don't know; measured "
				       "%.4g %s [%.4g, %.4g]: score 0"),
			 json_get_num(p, "measured", NAN), unit, iv->child->num,
			 iv->child->next->num);
	else
		snprintf(buf, len, MSG("pred.scored", "your prediction: %.4g %s; measured %.4g "
				       "[%.4g, %.4g]: score %.2f"),
			 pred, unit, json_get_num(p, "measured", NAN), iv->child->num,
			 iv->child->next->num, score);
}

void grade_print_exercises(const struct learn_ctx *lc, FILE *f)
{
	const struct json *ex = json_get(lc->res.doc, "exercises"), *e;
	int done = 0, n = 0, width = 12;
	struct ex_here *here;

	if (!ex || ex->type != JSON_ARR) {
		fputs(MSG("grade.ex-none", "exercises: none in these results (no copy handed "
			  "out yet: make exercise-NN; or a run without --work)"), f);
		fputs("\n\n", f);
		return;
	}
	if (lc->opt->from) /* a trainer's grade of a learner's file: the states are its */
		fprintf(f, MSG("grade.ex-head-from", "exercises (as %s recorded them):"),
			lc->opt->from);
	else
		fputs(MSG("grade.ex-head", "exercises (your copies' last make try-NN):"), f);
	fputc('\n', f);
	for (e = ex->child; e; e = e->next) /* the claims' column after the widest state */
		if (msg_width(ex_state_word(json_get_str(e, "state", "?"))) > width)
			width = msg_width(ex_state_word(json_get_str(e, "state", "?")));
	here = ex_here_open(lc->opt->labs_dir); /* marks as `make exercises` does */
	for (e = ex->child; e; e = e->next, n++) { /* as results.json got them: ex_status */
		const char *st = json_get_str(e, "state", "?");
		struct ex_status s = { .state = ex_state_of_key(st) };

		snprintf(s.id, sizeof(s.id), "%s", json_get_str(e, "id", "?"));
		snprintf(s.lab, sizeof(s.lab), "%s", json_get_str(e, "lab", "?"));
		snprintf(s.claims, sizeof(s.claims), "%s", json_get_str(e, "claims", ""));
		done += s.state == EX_DONE;
		ex_status_print(f, 2, &s, ex_state_word(st), width, here);
	}
	ex_here_close(here);
	fprintf(f, MSG("grade.ex-done", "exercises done: %d of %d"), done, n);
	fputs("\n\n", f);
}

static int gs_exercises(const struct learn_ctx *lc, struct gradescope *gs)
{
	const struct json *ex = json_get(lc->res.doc, "exercises"), *e;
	char name[96], out[500];
	int rc = 0;

	for (e = ex && ex->type == JSON_ARR ? ex->child : NULL; e && !rc; e = e->next) {
		const char *st = json_get_str(e, "state", "?");
		enum ex_state k = ex_state_of_key(st);
		const char *lab = json_get_str(e, "lab", "?");
		const char *skips = json_get_str(e, "skips_here", NULL);
		char when[64];

		snprintf(name, sizeof(name), "exercise %s (lab-%s)", json_get_str(e, "id", "?"),
			 lab);
		snprintf(when, sizeof(when), ex_not_begun(k) ?
			 "no make try-%s of it yet" : "the learner's last make try-%s", lab);
		snprintf(out, sizeof(out), "state: %s (%s); graded by claims %s: 1 point when "
			 "every one passes\n", ex_state_word(st), when,
			 json_get_str(e, "claims", ""));
		/* no skipped in Gradescope: 0 of 1 still (the total is the course's),
		 * said to be the machine's, as make exercises marks it */
		if (ex_not_begun(k) && skips) {
			gs->ungraded++;
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "not graded on the "
				 "machine of this run: its claims skip there (%s); grade it on a "
				 "machine that runs them\n", skips);
		}
		rc = gs_add_test(gs, name, "exercises", strcmp(st, "done") ? 0 : 1, out);
	}
	return rc;
}

static int gs_predictions(const struct json *doc, struct gradescope *gs)
{
	const struct json *lab, *p, *labs = json_get(doc, "labs");
	char name[300], out[400];
	int rc = 0;

	for (lab = labs ? labs->child : NULL; lab; lab = lab->next)
		for (p = json_get(lab, "predictions") ? json_get(lab, "predictions")->child : NULL;
		     p && !rc; p = p->next) {
			double score = json_get_num(p, "score", NAN);

			if (isnan(score)) { /* not measured here: left out */
				gs->left_out_predictions++;
				continue;
			}
			snprintf(name, sizeof(name), "prediction %s %s",
				 json_get_str(p, "name", "?"), json_get_str(p, "text", ""));
			learn_prediction_text(p, out, sizeof(out) - 120);
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "\nrule: %s\n",
				 "1 inside the measured interval, else 1 - |log10(p / m)|, m its "
				 "nearer end, at least 0; don't know: 0");
			rc = gs_add_test(gs, name, "predictions", score, out);
		}
	return rc;
}

void grade_json_learner(struct json_writer *w, const struct learn_results *r)
{
	const struct json *ex = json_get(r->doc, "exercises"), *lab, *p, *labs;

	jw_kstr(w, "learner", json_get_str(r->doc, "learner", NULL));
	jw_key(w, "exercises");
	if (ex)
		jw_value(w, ex);
	else
		jw_null(w);
	jw_karr(w, "predictions");
	labs = json_get(r->doc, "labs");
	for (lab = labs ? labs->child : NULL; lab; lab = lab->next)
		for (p = json_get(lab, "predictions") ? json_get(lab, "predictions")->child : NULL;
		     p; p = p->next)
			jw_value(w, p);
	jw_arr_end(w);
}

int gradescope_learner(const struct learn_ctx *lc, struct gradescope *gs)
{
	return gs_exercises(lc, gs) || gs_predictions(lc->res.doc, gs) ? -1 : 0;
}
