/*
 * junit_learn.c - the learner's part of junit.xml: a test case per
 * prediction of this run (passed inside the measured interval, else a
 * failure whose message is its score; skipped when the figure was not
 * measured) and one per exercise when --work names the copies (passed when
 * done; a failure when the learner's last try got it wrong: not yet, does
 * not compile, refused; else skipped: not started or never tried, not
 * graded here, undecided).  A CI job or a course's runner then shows them
 * beside the claims, and a failure there is one the learner made.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"
#include "lang.h"
#include "runner.h"

/* A test case: outcome NULL passes, else "failure" or "skipped". */
static void testcase(struct xml_writer *x, const char *classname, const char *name,
		     const char *outcome, const char *message)
{
	xw_begin(x, "testcase");
	xw_attr(x, "classname", classname);
	xw_attr(x, "name", name);
	if (outcome) {
		xw_begin(x, outcome);
		xw_attr(x, "message", message);
		if (!strcmp(outcome, "failure"))
			xw_attr(x, "type", "learner");
		xw_end(x);
	}
	xw_end(x);
}

static void suite_begin(struct xml_writer *x, const char *name, int tests, int failures,
			int skipped, int id)
{
	xw_begin(x, "testsuite");
	xw_attr(x, "name", name);
	xw_attr_int(x, "tests", tests);
	xw_attr_int(x, "failures", failures);
	xw_attr_int(x, "errors", 0);
	xw_attr_int(x, "skipped", skipped);
	xw_attr_int(x, "id", id);
}

/* The score of p after the run, NaN when the figure was not measured. */
static double scored(const struct lab_entry *lab, const struct prediction *p, char *msg, size_t len)
{
	const struct claim *c;
	double lo, hi, s = predict_scored(lab, p, &c, &lo, &hi);

	if (isnan(s))
		snprintf(msg, len, "not measured here: not scored");
	else if (isnan(p->predicted))
		snprintf(msg, len, "score 0: don't know; measured %.4g %s [%.4g, %.4g]", c->got,
			 c->unit, lo, hi);
	else
		snprintf(msg, len, "score %.2f: predicted %.4g, measured %.4g %s [%.4g, %.4g]", s,
			 p->predicted, c->got, c->unit, lo, hi);
	return s;
}

/* This run's predictions as test cases: written on x, or only counted when x
 * is NULL.  Their number; *failed and *skipped of them. */
static int predictions(struct xml_writer *x, const struct run_state *rs, int *failed,
		       int *skipped)
{
	char msg[300], name[64];
	int n = 0;

	*failed = *skipped = 0;
	for (int i = 0; i < rs->nlabs; i++)
		for (int k = 0; k < rs->labs[i].npred; k++, n++) {
			const struct prediction *p = &rs->labs[i].pred[k];
			double s = scored(&rs->labs[i], p, msg, sizeof(msg));

			*skipped += isnan(s);
			*failed += !isnan(s) && s < 1;
			snprintf(name, sizeof(name), "prediction %s", p->id);
			if (x)
				testcase(x, "dmalab.predictions", name,
					 isnan(s) ? "skipped" : s < 1 ? "failure" : NULL, msg);
		}
	return n;
}

/* An exercise's test outcome: NULL passes (done), "failure" for a try the
 * learner got wrong, "skipped" for one not tried or not decided. */
static const char *exercise_outcome(enum ex_state st)
{
	if (st == EX_DONE)
		return NULL;
	return st == EX_NOT_YET || st == EX_NOT_COMPILED || st == EX_REFUSED ? "failure" :
	       "skipped";
}

static int count_exercises(const struct run_state *rs, struct ex_status **ex, int *failed,
			   int *skipped)
{
	int n = rs->opt->work ? ex_status_all("labs", rs->opt->work, NULL, ex) : 0, i;

	*failed = *skipped = 0;
	for (i = 0; i < n; i++) {
		const char *outcome = exercise_outcome((*ex)[i].state);

		*skipped += outcome && !strcmp(outcome, "skipped");
		*failed += outcome && !strcmp(outcome, "failure");
	}
	return n < 0 ? 0 : n; /* -1: no lab source, no exercise */
}

void junit_learner_count(const struct run_state *rs, int *tests, int *failures)
{
	struct ex_status *ex = NULL;
	int failed, skipped;

	*tests += predictions(NULL, rs, &failed, &skipped);
	*failures += failed;
	*tests += count_exercises(rs, &ex, &failed, &skipped);
	*failures += failed;
	free(ex);
}

static void exercise_suite(struct xml_writer *x, const struct run_state *rs, int id)
{
	struct ex_status *ex = NULL;
	int failed, skipped, n = count_exercises(rs, &ex, &failed, &skipped), i;
	char name[64], msg[300], skips[128];

	if (n)
		suite_begin(x, "exercises", n, failed, skipped, id);
	for (i = 0; i < n; i++) {
		enum ex_state st = ex[i].state;

		snprintf(name, sizeof(name), "exercise %s", ex[i].id);
		/* in English: JUnit's messages keep it in every language */
		snprintf(msg, sizeof(msg), "%s (claims %s; make try-%s)",
			 msg_english(ex_state_text(st)), ex[i].claims, ex[i].lab);
		/* one not begun that this machine cannot grade: said, as make exercises does */
		if (ex_not_begun(st) &&
		    ex_here_skips(rs->here, ex[i].lab, ex[i].claims, skips, sizeof(skips)) > 0)
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "; not graded "
				 "here: its claims skip here (%s)", skips);
		testcase(x, "dmalab.exercises", name, exercise_outcome(st), msg);
	}
	if (n)
		xw_end(x);
	free(ex);
}

void junit_learner_suites(struct xml_writer *x, const struct run_state *rs, int id)
{
	int failed, skipped, n = predictions(NULL, rs, &failed, &skipped);

	if (n) {
		suite_begin(x, "predictions", n, failed, skipped, id);
		predictions(x, rs, &failed, &skipped);
		xw_end(x);
	}
	exercise_suite(x, rs, id + 1);
}
