/*
 * grade.c - `dmalab grade`: every question of the chapters against this
 * machine's verdicts.  A question's claims are those whose spec names it
 * (the labs' --describe, learn_map), their verdicts from results.json (a
 * fresh `dmalab check`, or --from FILE).
 * Scores follow answers.h: only decided claims count, and a question with
 * fewer than half of its claims decided here is left out of the maximum,
 * never scored 0; so
 * every score says beside it how many of its claims were decided (a 100 %
 * on 1 claim of 11 reads as such).  An interrupted check grades nothing.
 * Writes <results>/grade.json atomically (dmalab-grade/1), and with
 * --gradescope FILE Gradescope's results.json from the same numbers
 * (gradescope.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "learn.h"

struct question_grade {
	const struct ans_question *q;
	struct claim_view *views;
	struct ans_tally t;
	const char *status;
	double points;
	int counted;
	int not_built;       /* every claim's lab is still to be built */
};

/* A chapter's or the whole grade's sums. */
struct score {
	double points;       /* over the questions counted */
	int counted, unverified, not_built; /* questions */
	int decided, planned; /* claim verdicts behind the questions: decided, all */
};

struct chapter_grade {
	const struct ans_chapter *ch;
	struct question_grade *qs;
	struct score sc;
};

static int question_decided(const struct question_grade *g)
{
	return g->t.confirmed + g->t.contradicted;
}

static void score_add(struct score *to, const struct score *s)
{
	to->points += s->points;
	to->counted += s->counted;
	to->unverified += s->unverified;
	to->not_built += s->not_built;
	to->decided += s->decided;
	to->planned += s->planned;
}

/* ------------------------------------------------------------------------ */
/* One claim                                                                 */

/* The evidence of a measured claim: got vs want, or why there is none. */
static void measured_evidence(const struct lab_entry *lab, const struct claim *c,
			      char *buf, size_t len)
{
	char gw[512];

	fmt_got_want(c, gw, sizeof(gw));
	if (gw[0])
		snprintf(buf, len, "%s", gw);
	else if (c->status == ST_ERROR || (lab->error_kind && !status_decided(c->status)))
		snprintf(buf, len, "lab-%s broke before deciding it%s%s", lab->id,
			 lab->error_msg[0] ? ": " : "", lab->error_msg);
	else if (!status_decided(c->status))
		snprintf(buf, len, "not run: lab-%s ended before deciding it", lab->id);
	else
		snprintf(buf, len, "%s", status_words[c->status]);
}

/* A planned claim's text on one line: the file wraps it, a table row cannot. */
static void planned_text(const char *text, char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = text; *p && n + 1 < len; p++) {
		if (*p != '\n') {
			buf[n++] = *p;
			continue;
		}
		buf[n++] = ' ';
		p += strspn(p + 1, " \t");
	}
	buf[n] = '\0';
}

/* A planned claim as the learner reads it: its zh text (the message table's
 * planned.<id>) in zh, else the file's English, each after its "planned:". */
static void planned_said(const char *id, const char *text, char *buf, size_t len)
{
	char key[64], joined[520];
	const char *zh;

	snprintf(key, sizeof(key), "planned.%s", id);
	zh = msg_zh(key); /* called in zh only: English keeps v->evidence */
	planned_text(zh ? zh : text, joined, sizeof(joined));
	snprintf(buf, len, MSG("grade.planned", "planned: %s"), joined);
}

/* v's evidence as the learner reads it: a measured claim's got vs want in the
 * kit's language (buf); else v->evidence, which grade.json keeps in English */
static const char *claim_view_said(const struct learn_ctx *lc, const struct claim_view *v,
				   char *buf, size_t len)
{
	const struct ans_planned_claim *pc = ans_find_planned(&lc->ans, v->id);

	buf[0] = '\0';
	if (v->c && lc->opt->lang != ANS_EN) {
		size_t n;

		fmt_got_want_human(v->c, buf, len);
		n = strlen(buf);
		if (v->c->status == ST_SKIP && *skip_meaning(v->c->reason) && n < len)
			snprintf(buf + n, len - n, "（%s）", skip_meaning(v->c->reason));
	} else if (v->state == ANS_NOT_BUILT && pc && lc->opt->lang != ANS_EN)
		planned_said(v->id, pc->text, buf, len);
	return buf[0] ? buf : v->evidence;
}

void claim_view_make(const struct learn_ctx *lc, const char *id, struct claim_view *v)
{
	const struct lab_entry *lab = NULL;
	const struct ans_planned_claim *pc = ans_find_planned(&lc->ans, id);
	char joined[520];

	memset(v, 0, sizeof(*v));
	v->id = id;
	ans_claim_lab(id, v->lab, sizeof(v->lab));
	v->c = lc->have_results ? results_claim(&lc->res, id, &lab) : NULL;
	v->state = ANS_UNVERIFIED;
	v->status = "absent";
	if (v->c) {
		v->status = status_words[v->c->status];
		v->state = ans_claim_state(v->c->status);
		/* the lab's word decides whether it is the known erratum; the
		 * errata file gives its texts */
		v->erratum = v->c->erratum_status[0] ? errata_find(&lc->errata, id) : NULL;
		v->known = v->state == ANS_CONTRADICTED && claim_known(v->c);
		measured_evidence(lab, v->c, v->evidence, sizeof(v->evidence));
	} else if (pc && !learn_lab_built(lc->opt, v->lab)) {
		v->state = ANS_NOT_BUILT;
		v->status = "not_built";
		planned_text(pc->text, joined, sizeof(joined));
		snprintf(v->evidence, sizeof(v->evidence), "planned: %s", joined);
	} else {
		snprintf(v->evidence, sizeof(v->evidence), "not in these results (run make lab-%s)",
			 v->lab);
	}
}

/* ------------------------------------------------------------------------ */
/* Computing                                                                 */

static int grade_question(const struct learn_ctx *lc, const struct ans_question *q,
			  struct question_grade *g)
{
	memset(g, 0, sizeof(*g));
	g->q = q;
	g->views = calloc((size_t)q->nclaims, sizeof(*g->views));
	if (!g->views)
		return -1;
	for (int k = 0; k < q->nclaims; k++) {
		claim_view_make(lc, q->claims[k], &g->views[k]);
		ans_tally_add(&g->t, g->views[k].state, g->views[k].known);
	}
	g->status = ans_question_status(&g->t);
	g->counted = ans_question_points(&g->t, &g->points);
	g->not_built = g->t.claims && g->t.not_built == g->t.claims;
	return 0;
}

static int grade_chapter(const struct learn_ctx *lc, const struct ans_chapter *ch,
			 struct chapter_grade *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->ch = ch;
	cg->qs = calloc((size_t)ch->n, sizeof(*cg->qs));
	if (!cg->qs)
		return -1;
	for (int i = 0; i < ch->n; i++) {
		struct question_grade *g = &cg->qs[i];

		if (grade_question(lc, &ch->q[i], g))
			return -1;
		cg->sc.points += g->counted ? g->points : 0;
		cg->sc.counted += g->counted;
		cg->sc.unverified += !g->counted;
		cg->sc.not_built += !g->counted && g->not_built;
		cg->sc.decided += question_decided(g);
		cg->sc.planned += g->t.claims;
	}
	return 0;
}

static void chapter_grade_free(struct chapter_grade *cg)
{
	for (int i = 0; cg->qs && i < cg->ch->n; i++)
		free(cg->qs[i].views);
	free(cg->qs);
}

/* ------------------------------------------------------------------------ */
/* Human output                                                              */

/* A verdict word in the learner's language: the message table's, the same as
 * the lab's, the report card's and the plots' (the JSON keeps the English). */
static const char *verdict_word_lang(const char *en)
{
	const char *const pairs[][2] = {
		{ "confirmed", MSG("question.confirmed", "confirmed") },
		{ "contradicted", MSG("question.contradicted", "contradicted") },
		{ "partial", MSG("question.partial", "partial") },
		{ "unverified", MSG("question.unverified", "unverified") },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (!strcmp(en, pairs[i][0]))
			return pairs[i][1];
	return en;
}

/* "confirmed", "contradicted", "skipped", "unverified", "not built yet", in the
 * learner's language */
static const char *claim_view_word(const struct claim_view *v)
{
	/* "not built yet": a claim's word fits its 13-column field; the question says "lab" */
	if (v->state == ANS_NOT_BUILT)
		return MSG("grade.not-built-yet", "not built yet");
	switch (v->state == ANS_UNVERIFIED && v->c ? v->c->status : ST_COUNT) {
	case ST_SKIP: return MSG("verdict.skip", "skipped");
	case ST_INCONCLUSIVE: return MSG("verdict.inconclusive", "inconclusive");
	case ST_NOT_RUN: case ST_PENDING: return MSG("verdict.not-run", "not run");
	case ST_ERROR: return MSG("verdict.error", "error");
	default: return verdict_word_lang(ans_state_name(v->state));
	}
}

void claim_view_print(const struct learn_ctx *lc, const struct claim_view *v, int indent, FILE *f)
{
	const char *word = claim_view_word(v);
	char said[600];

	fprintf(f, "%*s%-6s %s%*s %s [lab-%s]\n", indent, "", v->id, word, word_pad(word, 13),
		"", claim_view_said(lc, v, said, sizeof(said)), v->lab);
}

static void print_erratum(const struct claim_view *v, FILE *f)
{
	const char *truth = v->c->erratum_truth ? v->c->erratum_truth :
			    v->erratum ? v->erratum->truth : NULL;
	char line[600];

	fmt_erratum(v->c, line, sizeof(line));
	if (line[0])
		fprintf(f, "                    %s\n", line);
	if (!v->known)
		return;
	if (truth)
		fprintf(f, "                    known erratum: %s\n", truth);
	else
		fprintf(f, "                    known erratum (marked so in the results)\n");
	if (!v->erratum)
		return;
	if (v->erratum->why)
		fprintf(f, "                    why: %s\n", v->erratum->why);
	for (int i = 0; i < v->erratum->nsources; i++)
		fprintf(f, "                    source: %s\n", v->erratum->source[i]);
}

/* A question as `dmalab grade` prints it (also a Gradescope test's output). */
static void print_question(const struct learn_ctx *lc, const struct question_grade *g,
			   FILE *f)
{
	const char *qual = "";

	if (g->t.contradicted && g->t.known_errata == g->t.contradicted)
		qual = MSG("grade.known-erratum", " (known erratum)");
	else if (!g->counted && g->not_built)
		qual = MSG("grade.not-built", " (lab not built yet)");
	else if (!g->q->nclaims) /* its labs neither built here nor in the results */
		qual = MSG("grade.no-claim", " (no claim of these labs backs it)");
	fprintf(f, "  %-7s %s%s", g->q->id, verdict_word_lang(g->status), qual);
	if (g->t.claims && lc->opt->lang == ANS_ZH)
		fprintf(f, "；%d 条论断中 %d 条得出结论", g->t.claims, question_decided(g));
	else if (g->t.claims)
		fprintf(f, "; %d of %d claim%s decided", question_decided(g), g->t.claims,
			g->t.claims == 1 ? "" : "s");
	if (question_decided(g) && !g->counted)
		fprintf(f, "%s", MSG("grade.few-decided", " (fewer than half: not scored)"));
	fprintf(f, "\n");
	fprintf(f, "          %s\n", g->q->prompt[lc->opt->lang]);
	for (int k = 0; k < g->q->nclaims; k++) {
		const struct claim_view *v = &g->views[k];

		const struct json *p = learn_prediction(&lc->res, v->id);
		char said[400];

		claim_view_print(lc, v, 6, f);
		if (v->state == ANS_CONTRADICTED && v->c->erratum_status[0])
			print_erratum(v, f);
		if (p) {
			learn_prediction_text(p, said, sizeof(said));
			fprintf(f, "             %s\n", said);
		}
	}
}

static void print_score(const char *what, const struct score *s)
{
	const char *pct = MSG("grade.score-pct", " (%.0f%%)");

	printf(MSG("grade.score-of", "%s: %.2f of %d"), what, s->points, s->counted);
	if (s->counted)
		printf(pct, 100.0 * s->points / s->counted);
	printf(MSG("grade.score-over", " over the questions measured here; %d unverified"),
	       s->unverified);
	if (s->not_built)
		printf(MSG("grade.score-wait", " (%d wait for a lab not built yet)"), s->not_built);
	printf(MSG("grade.score-measured", "; measured: %d of %d claim verdicts decided"),
	       s->decided, s->planned);
	if (s->planned)
		printf(pct, 100.0 * s->decided / s->planned);
	printf("\n");
}

static void print_chapter(const struct learn_ctx *lc, const struct chapter_grade *cg)
{
	char what[64], key[40];

	snprintf(key, sizeof(key), "chapter.%s", cg->ch->id); /* the title in the kit's language */
	printf("%s: %s\n", cg->ch->id, msg_text(key, cg->ch->title));
	for (int i = 0; i < cg->ch->n; i++)
		print_question(lc, &cg->qs[i], stdout);
	snprintf(what, sizeof(what), MSG("grade.score", "score %s"), cg->ch->id);
	print_score(what, &cg->sc);
	printf("\n");
}

/* The measured claims that back no question (answers.h, ANS_BEYOND): shown
 * after the chapters, with their verdicts, and scored nowhere.  Each one's
 * view in turn, from *i, *k on: 1, or 0 after the last. */
static int next_beyond(const struct learn_ctx *lc, int *i, int *k, struct claim_view *v)
{
	for (; *i < lc->res.nlabs; (*i)++, *k = 0)
		for (; *k < lc->res.labs[*i].nclaims; (*k)++)
			if (ans_beyond_chapter(lc->res.labs[*i].claims[*k].question)) {
				claim_view_make(lc, lc->res.labs[*i].claims[(*k)++].id, v);
				return 1;
			}
	return 0;
}

static void print_beyond(const struct learn_ctx *lc)
{
	struct claim_view v;
	int i = 0, k = 0, n = 0;

	while (next_beyond(lc, &i, &k, &v)) {
		if (!n++)
			printf("%s\n", MSG("grade.beyond", "beyond the chapter (measured, said by "
					    "no chapter; not scored):"));
		claim_view_print(lc, &v, 6, stdout);
	}
	if (n)
		printf("\n");
}

/* Each question of the chapter to the Gradescope file (gradescope.c), with
 * the lines printed above as its output.  0, or -1 out of memory. */
static int gradescope_chapter(const struct learn_ctx *lc, const struct chapter_grade *cg,
			      struct gradescope *gs)
{
	int i, rc = 0;

	for (i = 0; i < cg->ch->n && !rc; i++) {
		const struct question_grade *g = &cg->qs[i];
		struct gs_question q = { g->q->id, cg->ch->id, g->q->prompt[lc->opt->lang],
					 g->status, g->points, g->counted, question_decided(g),
					 g->t.claims, NULL };
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		if (!f)
			return -1;
		print_question(lc, g, f);
		rc = fclose(f) ? -1 : 0;
		q.output = text;
		rc = rc ? rc : gs_add(gs, &q);
		free(text);
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* grade.json                                                                */

static void json_view(struct json_writer *w, const struct claim_view *v)
{
	jw_obj_begin(w);
	jw_kstr(w, "id", v->id);
	jw_kstr(w, "lab", v->lab);
	jw_kstr(w, "state", ans_state_name(v->state));
	jw_kstr(w, "status", v->status);
	jw_kbool(w, "known_erratum", v->known);
	jw_knum(w, "got", v->c ? v->c->got : NAN);
	jw_knum(w, "want", v->c ? v->c->want : NAN);
	jw_kstr(w, "unit", v->c ? v->c->unit : NULL);
	jw_kstr(w, "want_text", v->c ? v->c->want_text : NULL);
	jw_kstr(w, "evidence", v->evidence);
	if (v->known && (v->erratum || v->c->erratum_truth)) {
		jw_kstr(w, "truth", v->c->erratum_truth ? v->c->erratum_truth : v->erratum->truth);
		jw_kstr(w, "why", v->erratum ? v->erratum->why : NULL);
	}
	/* what the erratum predicted, and whether this run met it */
	jw_key(w, "erratum");
	if (v->c && v->state == ANS_CONTRADICTED && v->c->erratum_status[0]) {
		jw_obj_begin(w);
		jw_kstr(w, "status", v->c->erratum_status);
		jw_kstr(w, "expect", or_null(v->c->erratum_expect));
		jw_kstr(w, "when", v->c->erratum_when);
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_obj_end(w);
}

static void json_question(struct json_writer *w, const struct question_grade *g)
{
	jw_obj_begin(w);
	jw_kstr(w, "id", g->q->id);
	jw_kstr(w, "status", g->status);
	jw_kbool(w, "counted", g->counted);
	jw_knum(w, "points", g->counted ? g->points : NAN);
	jw_kbool(w, "known_erratum", g->t.contradicted && g->t.known_errata == g->t.contradicted);
	jw_kbool(w, "lab_not_built", g->not_built);
	jw_kint(w, "claims_decided", question_decided(g));
	jw_kint(w, "claims_planned", g->t.claims);
	jw_karr(w, "claims");
	for (int k = 0; k < g->q->nclaims; k++)
		json_view(w, &g->views[k]);
	jw_arr_end(w);
	jw_obj_end(w);
}

static void json_score(struct json_writer *w, const struct score *s)
{
	jw_knum(w, "score", s->points);
	jw_kint(w, "max", s->counted);
	jw_knum(w, "percent", s->counted ? 100.0 * s->points / s->counted : NAN);
	jw_kint(w, "unverified", s->unverified);
	jw_kint(w, "lab_not_built", s->not_built);
	jw_kint(w, "claims_decided", s->decided);
	jw_kint(w, "claims_planned", s->planned);
}

static void json_chapter(struct json_writer *w, const struct chapter_grade *cg)
{
	jw_obj_begin(w);
	jw_kstr(w, "id", cg->ch->id);
	jw_kstr(w, "title", cg->ch->title);
	json_score(w, &cg->sc);
	jw_karr(w, "questions");
	for (int i = 0; i < cg->ch->n; i++)
		json_question(w, &cg->qs[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

/* Every erratum the grade read (--errata, else answers/errata.md, else the
 * copy built in), as the file says it: plots/report.py lists them. */
static void json_errata(struct json_writer *w, const struct errata *e)
{
	jw_karr(w, "errata");
	for (int i = 0; i < e->n; i++) {
		const struct erratum *it = &e->items[i];

		jw_obj_begin(w);
		jw_kstr(w, "id", it->id);
		jw_kstr(w, "says", it->says);
		jw_kstr(w, "truth", it->truth);
		jw_kstr(w, "why", it->why);
		jw_kstr(w, "expect", it->expect_text);
		jw_kstr(w, "when", it->when_text);
		jw_karr(w, "source");
		for (int k = 0; k < it->nsources; k++)
			jw_str(w, it->source[k]);
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* ------------------------------------------------------------------------ */

/* Fresh results from a `dmalab check` child, or the --from file. */
static int grade_results(struct learn_ctx *lc, char *path, size_t len)
{
	int rc;

	if (lc->opt->from) {
		snprintf(path, len, "%s", lc->opt->from);
	} else {
		snprintf(path, len, "%s/results.json", lc->opt->results_dir);
		rc = learn_run_check(lc->opt, lc->opt->results_dir, NULL, 0);
		/* 2: check refused (it said why) and left any older file alone */
		if (rc < 0 || rc == 127 || rc == 2) {
			error("could not run the labs (dmalab check)");
			return 1;
		}
		if (rc > 128) { /* Ctrl-C: nothing graded, grade.json left as it was */
			error("the run was stopped by %s: nothing graded, %s/grade.json left "
			      "as it was", signal_name(rc - 128), lc->opt->results_dir);
			return rc;
		}
		printf("\n");
	}
	if (results_load(path, &lc->res, lc->res_error, sizeof(lc->res_error))) {
		error(MSG("grade.err-cannot", "cannot grade: %s"), lc->res_error);
		if (!lc->opt->from)
			return 1;
		/* a file named on the command line: bad input, as for bench and compare */
		advise(MSG("grade.advise-from", "make a results file with `make check`, or run "
			   "`make grade` without FROM to run the labs first"));
		return 2;
	}
	lc->have_results = 1;
	/* the claims of a lab in the results that is not built here */
	return learn_map(lc) ? 1 : 0;
}

static int write_grade(struct learn_ctx *lc, const char *source, struct chapter_grade *cgs,
		       int n, const struct score *total)
{
	struct json_writer w;
	struct claim_view v;
	char path[PATH_MAX + 16], now[32];
	int rc, i = 0, k = 0;

	learn_iso_now(now, sizeof(now));
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-grade/1");
	jw_kstr(&w, "graded", now);
	jw_kstr(&w, "results", source);
	jw_kstr(&w, "results_started", lc->res.started);
	jw_kstr(&w, "chapter", lc->opt->chapter);
	jw_karr(&w, "chapters");
	for (int c = 0; c < n; c++)
		json_chapter(&w, &cgs[c]);
	jw_arr_end(&w);
	jw_karr(&w, "beyond_chapter");
	while (next_beyond(lc, &i, &k, &v))
		json_view(&w, &v);
	jw_arr_end(&w);
	json_errata(&w, &lc->errata);
	jw_kobj(&w, "overall");
	json_score(&w, total);
	jw_obj_end(&w);
	grade_json_learner(&w, &lc->res);
	jw_obj_end(&w);
	snprintf(path, sizeof(path), "%s/grade.json", lc->opt->results_dir);
	rc = learn_write_json(&w, lc->opt->results_dir, path, "write");
	if (!rc) {
		printf(MSG("grade.written", "grade written to %s"), path);
		putchar('\n');
	}
	return rc;
}

int cmd_grade(struct learn_ctx *lc)
{
	struct chapter_grade *cgs = calloc((size_t)lc->ans.nch + 1, sizeof(*cgs));
	char source[PATH_MAX];
	struct score total = { 0 };
	struct gradescope gs = { 0 };
	int i, n = 0, rc;

	if (!cgs)
		return 1;
	rc = grade_results(lc, source, sizeof(source));
	for (i = 0; !rc && i < lc->ans.nch; i++) {
		if (lc->opt->chapter && strcmp(lc->opt->chapter, lc->ans.ch[i].id))
			continue;
		if (grade_chapter(lc, &lc->ans.ch[i], &cgs[n++])) {
			rc = 1;
			break;
		}
		print_chapter(lc, &cgs[n - 1]);
		score_add(&total, &cgs[n - 1].sc);
		if (lc->opt->gradescope && gradescope_chapter(lc, &cgs[n - 1], &gs))
			rc = 1;
	}
	if (!rc) {
		print_beyond(lc);
		grade_print_exercises(lc, stdout);
		if (lc->opt->gradescope && gradescope_learner(lc, &gs))
			rc = 1;
		printf(MSG("grade.against", "graded against %s (run started %s)"), source,
		       lc->res.started);
		printf("\n%s\n", MSG("grade.rule", "rule: a question is scored when at least half "
				      "of its claims are decided (pass or fail); below that it is "
				      "unverified, left out of the maximum"));
		print_score(MSG("grade.overall", "overall"), &total);
		rc = write_grade(lc, source, cgs, n, &total) || rc ? 1 : 0;
		if (!rc && lc->opt->gradescope)
			rc = gs_write(&gs, lc, source) ? 1 : 0;
	}
	gs_free(&gs);
	for (i = 0; i < n; i++)
		chapter_grade_free(&cgs[i]);
	free(cgs);
	return rc;
}
