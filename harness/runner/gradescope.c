/*
 * gradescope.c - `dmalab grade --gradescope FILE`: the grade as the
 * results.json a Gradescope autograder leaves in /autograder/results/
 * (https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Output
 * format"; the schema harness/tests/fixtures/gradescope-results.schema.json
 * is written from it).
 *
 * One test per question, max_score 1 each; its score is grade's points
 * times decided / planned (README.md, "JUnit and Gradescope"): a course's
 * total cannot change with the machine.
 *
 * Every text is "text" format: the outputs hold '<' and '>' (want < 2 s),
 * which Gradescope's default top-level format would read as HTML.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

struct gs_test {
	char *name, *chapter, *output;
	double score;
};

void gs_free(struct gradescope *gs)
{
	for (int i = 0; i < gs->n; i++) {
		free(gs->tests[i].name);
		free(gs->tests[i].chapter);
		free(gs->tests[i].output);
	}
	free(gs->tests);
	memset(gs, 0, sizeof(*gs));
}

/* The question's score, from 0 to 1 (rounded to 4 decimals). */
static double gs_score(const struct gs_question *q)
{
	double s;

	if (!q->counted || q->planned <= 0)
		return 0;
	s = q->points * q->decided / q->planned;
	return round(s * 1e4) / 1e4;
}

/* The lines `dmalab grade` prints, then how the score came about. */
static char *test_output(const struct gs_question *q, double score)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fputs(q->output ? q->output : "", f);
	if (q->counted)
		fprintf(f, "\nscore: %.10g of 1 = %.4g (the confirmed share of its %d decided "
			"claim%s) x %d/%d (its claims decided here)\n", score, q->points,
			q->decided, q->decided == 1 ? "" : "s", q->decided, q->planned);
	else
		fprintf(f, "\nscore: 0 of 1: %d of its %d claim%s decided here, fewer than "
			"half (unverified)\n", q->decided, q->planned, q->planned == 1 ? "" : "s");
	if (fclose(f) == 0)
		return out;
	free(out);
	return NULL;
}

int gs_add_test(struct gradescope *gs, const char *name, const char *tag, double score,
		const char *output)
{
	struct gs_test *t = realloc(gs->tests, (size_t)(gs->n + 1) * sizeof(*t));

	if (!t)
		return -1;
	gs->tests = t;
	t = &gs->tests[gs->n];
	t->score = round(score * 1e4) / 1e4;
	t->name = strdup(name);
	t->chapter = strdup(tag ? tag : "");
	t->output = strdup(output ? output : "");
	if (!t->name || !t->chapter || !t->output) {
		free(t->name);
		free(t->chapter);
		free(t->output);
		return -1;
	}
	gs->n++;
	gs->nlearner += tag && (!strcmp(tag, "exercises") || !strcmp(tag, "predictions"));
	return 0;
}

int gs_add(struct gradescope *gs, const struct gs_question *q)
{
	char *name, *out;
	int rc;

	if (q->planned <= 0) {
		gs->left_out++;
		return 0;
	}
	if (asprintf(&name, "%s %s", q->id, q->prompt ? q->prompt : "") < 0)
		name = NULL;
	out = test_output(q, gs_score(q));
	rc = name && out ? gs_add_test(gs, name, q->chapter, gs_score(q), out) : -1;
	free(name);
	free(out);
	if (!rc) {
		gs->decided += q->decided;
		gs->planned += q->planned;
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The file                                                                  */

static double total_score(const struct gradescope *gs)
{
	double sum = 0;

	for (int i = 0; i < gs->n; i++)
		sum += gs->tests[i].score;
	return round(sum * 1e4) / 1e4;
}

/* "host 'gpu1', 1 GPU: NVIDIA H200 (0000:3b:00.0)", from the results. */
static void machine_line(const struct json *machine, FILE *f)
{
	const struct json *gpus = json_get(machine, "gpus"), *g;
	int n = gpus && gpus->type == JSON_ARR ? (int)gpus->count : 0;

	fprintf(f, "measured on host '%s', ", json_get_str(machine, "hostname", "unknown"));
	if (!n) {
		fprintf(f, "no GPU: its GPU claims were skipped, so they score nothing\n");
		return;
	}
	fprintf(f, "%d GPU%s:", n, n == 1 ? "" : "s");
	for (g = gpus->child; g; g = g->next)
		fprintf(f, " %s (%s)%s", json_get_str(g, "name", "?"), json_get_str(g, "bdf", "?"),
			g->next ? "," : "");
	fputc('\n', f);
}

static char *top_output(const struct gradescope *gs, const struct learn_ctx *lc, const char *source)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fprintf(f, "dmalab %s: the chapters' questions against the run started %s (%s)\n",
		DMALAB_VERSION, lc->res.started, source);
	machine_line(json_get(lc->res.doc, "machine"), f);
	fprintf(f, "Gradescope's hosted graders have no GPU: run this autograder on a GPU "
		"machine of the course registered as a self-hosted runner (the kit's README, "
		"\"JUnit and Gradescope\").\n");
	fprintf(f, "score: %.10g of %d: one point per question, the confirmed share of its "
		"decided claims times the share of its claims decided here", total_score(gs),
		gs->n);
	if (gs->nlearner)
		fprintf(f, "; of the %d, %d are the learner's: an exercise done (1) or not (0), "
			"a prediction's score", gs->n, gs->nlearner);
	if (gs->ungraded)
		fprintf(f, "; %d exercise%s not begun cannot be graded on the machine of this run "
			"(%s claims skip there: 0 each here, not the learner's failing)",
			gs->ungraded, gs->ungraded == 1 ? "" : "s", gs->ungraded == 1 ? "its" :
			"their");
	fputc('\n', f);
	/* grade's own maximum leaves such a question out; a course's total keeps it */
	fprintf(f, "rule: a question is scored when at least half of its claims are decided "
		"(pass or fail); below that it is unverified, and here it scores 0 of its 1 "
		"point: the maximum stays one point per question\n");
	fprintf(f, "claims decided: %d of %d", gs->decided, gs->planned);
	if (gs->left_out)
		fprintf(f, "; %d question%s without a claim behind %s left out", gs->left_out,
			gs->left_out == 1 ? "" : "s", gs->left_out == 1 ? "it" : "them");
	if (gs->left_out_predictions)
		fprintf(f, "; %d prediction%s of a figure not measured here left out",
			gs->left_out_predictions, gs->left_out_predictions == 1 ? "" : "s");
	fputc('\n', f);
	if (fclose(f) == 0)
		return out;
	free(out);
	return NULL;
}

static void write_test(struct json_writer *w, const struct gs_test *t)
{
	jw_obj_begin(w);
	jw_kstr(w, "name", t->name);
	jw_knum(w, "score", t->score);
	jw_knum(w, "max_score", 1);
	jw_kstr(w, "status", t->score >= 1 ? "passed" : "failed");
	jw_kstr(w, "output", t->output);
	jw_key(w, "tags");
	jw_arr_begin(w);
	jw_str(w, t->chapter);
	jw_arr_end(w);
	jw_kstr(w, "visibility", "visible");
	jw_obj_end(w);
}

static void write_document(struct json_writer *w, const struct gradescope *gs,
			   const struct learn_ctx *lc, const char *top)
{
	double took = json_get_num(lc->res.doc, "duration_s", NAN);

	jw_obj_begin(w);
	jw_knum(w, "score", total_score(gs));
	if (isfinite(took)) /* the labs' run, in seconds */
		jw_kint(w, "execution_time", (long long)ceil(took));
	jw_kstr(w, "output", top);
	jw_kstr(w, "output_format", "text");
	jw_kstr(w, "test_output_format", "text");
	jw_kstr(w, "test_name_format", "text");
	jw_kstr(w, "visibility", "visible");
	jw_key(w, "tests");
	jw_arr_begin(w);
	for (int i = 0; i < gs->n; i++)
		write_test(w, &gs->tests[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

int gs_write(const struct gradescope *gs, const struct learn_ctx *lc, const char *source)
{
	const char *path = lc->opt->gradescope;
	char *top = top_output(gs, lc, source);
	struct json_writer w;
	int rc;

	jw_init(&w, 1);
	if (top)
		write_document(&w, gs, lc, top);
	else
		w.failed = 1; /* out of memory: nothing is written */
	rc = learn_write_json(&w, NULL, path, "write");
	if (!rc)
		printf("Gradescope results written to %s\n", path);
	free(top);
	return rc;
}
