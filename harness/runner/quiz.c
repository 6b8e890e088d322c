/*
 * quiz.c - `dmalab quiz`: for interview practice.  Each question is asked,
 * the learner types an answer, then sees the reference answer beside what
 * this machine measured for the question's claims, and marks themselves.
 *
 * Progress lives in <results>/quiz.json (dmalab-quiz/1), rewritten
 * atomically after every answer and every mark, so Ctrl-C, Ctrl-D or a
 * crash loses nothing; the next run resumes at the first unmarked
 * question.  Input comes from the terminal or, with --answers FILE, from a
 * file: answers end at an empty line, then one line for the mark.  An
 * answer that starts with a number is also scored, by the prediction rule
 * (predict.c), against the measured headline figure it names by its unit
 * ("300 ms/GiB"), or the question's only one; the best kept as its
 * number_score.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cleanup.h"
#include "compare.h"
#include "learn.h"

#define QUIZ_MAX_ANSWER (64 * 1024) /* bytes kept of one typed answer */

struct quiz_item {
	char id[24];
	char *answer;            /* as typed, NULL when not answered yet */
	char mark[8];            /* "", "right", "wrong", "skip" */
	char at[32];
	double number_score;     /* a typed number scored against a measured figure
				  * (predict.c's rule, the best of the question's
				  * figures); NaN: none */
};

struct quiz {
	struct learn_ctx *lc;
	struct quiz_item *items;
	int n;
	char path[PATH_MAX + 16];
	FILE *in;
	int stop;                /* 1: Ctrl-D or quit; 2: interrupted */
	int echo;                /* input is not a terminal: show what was read */
	size_t fixed;            /* invalid UTF-8 bytes replaced so far */
};

static volatile sig_atomic_t quiz_interrupted;

/* ------------------------------------------------------------------------ */
/* quiz.json                                                                 */

static int save(struct quiz *z)
{
	struct json_writer w;

	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-quiz/1");
	jw_kstr(&w, "lang", z->lc->opt->lang == ANS_ZH ? "zh" : "en");
	jw_karr(&w, "questions");
	for (int i = 0; i < z->n; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "id", z->items[i].id);
		jw_kstr(&w, "answer", z->items[i].answer);
		jw_kstr(&w, "mark", z->items[i].mark[0] ? z->items[i].mark : NULL);
		jw_kstr(&w, "at", z->items[i].at[0] ? z->items[i].at : NULL);
		if (!isnan(z->items[i].number_score))
			jw_knum(&w, "number_score", z->items[i].number_score);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	return learn_write_json(&w, z->lc->opt->results_dir, z->path,
				"save the quiz progress to");
}

static struct quiz_item *add_item(struct quiz *z, const char *id)
{
	struct quiz_item *it = realloc(z->items, (size_t)(z->n + 1) * sizeof(*it));

	if (!it)
		return NULL;
	z->items = it;
	it = &z->items[z->n++];
	memset(it, 0, sizeof(*it));
	it->number_score = NAN;
	snprintf(it->id, sizeof(it->id), "%s", id);
	return it;
}

static struct quiz_item *find_item(struct quiz *z, const char *id)
{
	for (int i = 0; i < z->n; i++)
		if (!strcmp(z->items[i].id, id))
			return &z->items[i];
	return NULL;
}

static int load_items(struct quiz *z, const struct json *qs)
{
	for (const struct json *o = qs->child; o; o = o->next) {
		const char *id = json_get_str(o, "id", NULL), *mark = json_get_str(o, "mark", "");
		const char *answer = json_get_str(o, "answer", NULL);
		struct quiz_item *it;

		if (!id || strlen(id) >= sizeof(it->id) || find_item(z, id) ||
		    (*mark && !cmp_word_in("right wrong skip", mark)))
			return -1;
		it = add_item(z, id);
		if (!it)
			return -1;
		snprintf(it->mark, sizeof(it->mark), "%s", mark);
		snprintf(it->at, sizeof(it->at), "%s", json_get_str(o, "at", ""));
		it->answer = answer ? strdup(answer) : NULL;
		it->number_score = json_get_num(o, "number_score", NAN);
	}
	return 0;
}

/* A corrupt progress file is kept aside, never overwritten. */
static void set_aside(struct quiz *z, const char *why)
{
	char bad[PATH_MAX + 32];

	snprintf(bad, sizeof(bad), "%s.corrupt", z->path);
	if (rename(z->path, bad) == 0)
		warning("'%s' is not a quiz progress file (%s): kept as '%s', starting a new quiz",
			z->path, why, bad);
}

static void free_items(struct quiz *z)
{
	for (int i = 0; i < z->n; i++)
		free(z->items[i].answer);
	free(z->items);
	z->items = NULL;
	z->n = 0;
}

/* Reads the progress; 0 if none or set aside. */
static void load_progress(struct quiz *z)
{
	char err[400];
	struct json *doc;
	const struct json *qs;

	doc = json_parse_file(z->path, err, sizeof(err));
	if (!doc) {
		if (errno != ENOENT && access(z->path, F_OK) == 0)
			set_aside(z, err);
		return;
	}
	qs = json_get(doc, "questions");
	if (strcmp(json_get_str(doc, "schema", ""), "dmalab-quiz/1") || !qs ||
	    qs->type != JSON_ARR || load_items(z, qs)) {
		free_items(z);
		set_aside(z, "unexpected content");
	}
	json_free(doc);
}

/* Questions not in the progress yet, in chapter order or shuffled. */
static int add_new_questions(struct quiz *z)
{
	const struct ans_set *s = &z->lc->ans;
	int i, k, first = z->n;
	unsigned seed = z->lc->opt->seed;

	for (i = 0; i < s->nch; i++)
		for (k = 0; k < s->ch[i].n; k++)
			if (!find_item(z, s->ch[i].q[k].id) && !add_item(z, s->ch[i].q[k].id))
				return -1;
	if (!z->lc->opt->shuffle)
		return 0;
	for (i = z->n - 1; i > first; i--) {
		struct quiz_item t;

		seed = seed * 1103515245u + 12345u;
		k = first + (int)((seed >> 8) % (unsigned)(i - first + 1));
		t = z->items[i];
		z->items[i] = z->items[k];
		z->items[k] = t;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Input                                                                     */

/*
 * One line of input into buf (cap bytes, NUL-terminated, without the end
 * of line); bytes beyond cap - 1 are counted in *dropped, never stored.
 * Returns the stored length, or -1 at end of input or on Ctrl-C.
 */
static long read_line(struct quiz *z, char *buf, size_t cap, size_t *dropped)
{
	size_t n = 0;
	int c, any = 0;

	while ((c = getc(z->in)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (n + 1 < cap)
			buf[n++] = (char)c;
		else
			(*dropped)++;
	}
	buf[n] = '\0';
	if (quiz_interrupted)
		z->stop = 2;
	if (c == EOF && (!any || quiz_interrupted)) {
		if (!z->stop)
			z->stop = 1;
		return -1;
	}
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	z->fixed += utf8_fix(buf, n);
	if (z->echo)
		printf("> %s\n", buf); /* a scripted session reads like a transcript */
	return (long)n;
}

static int append_text(char **text, size_t *len, const char *s, size_t n)
{
	char *t = realloc(*text, *len + n + 2);

	if (!t)
		return -1;
	if (*len)
		t[(*len)++] = '\n';
	memcpy(t + *len, s, n);
	*len += n;
	t[*len] = '\0';
	*text = t;
	return 0;
}

/* Lines up to an empty line or the end of input; NULL if nothing at all
 * was read before the end.  Invalid UTF-8 and overlong input are noted. */
static char *read_answer(struct quiz *z)
{
	char *line = malloc(QUIZ_MAX_ANSWER), *text = NULL;
	size_t len = 0, dropped = 0, fixed = z->fixed;
	long n;

	if (!line)
		return NULL;
	while ((n = read_line(z, line, QUIZ_MAX_ANSWER, &dropped)) > 0) {
		if (len + (size_t)n + 1 >= QUIZ_MAX_ANSWER) {
			dropped += (size_t)n;
			continue;
		}
		if (append_text(&text, &len, line, (size_t)n))
			break;
	}
	free(line);
	if (n == 0 && !text)
		text = strdup(""); /* an empty answer is an answer */
	if (dropped) {
		printf(MSG("quiz.too-long", "(answer too long: bytes not kept: %zu)"), dropped);
		putchar('\n');
	}
	if (z->fixed > fixed) {
		printf(MSG("quiz.bad-utf8", "(invalid UTF-8 bytes replaced by '?': %zu)"),
		       z->fixed - fixed);
		putchar('\n');
	}
	return text;
}

/* y/n/s/q in a few spellings; 0 when not understood. */
static char mark_of(const char *s)
{
	static const struct { const char *word; char mark; } words[] = {
		{ "y", 'y' }, { "yes", 'y' }, { "n", 'n' }, { "no", 'n' }, { "s", 's' },
		{ "skip", 's' }, { "q", 'q' }, { "quit", 'q' }, { "对", 'y' }, { "是", 'y' },
		{ "错", 'n' }, { "否", 'n' }, { "跳过", 's' }, { "退出", 'q' },
	};
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == n && !strncasecmp(s, words[i].word, n))
			return words[i].mark;
	return 0;
}

/* Asks until a mark is understood; 0 at the end of input. */
static char ask_mark(struct quiz *z, const char *question, const char *choices)
{
	char line[256];
	size_t dropped;
	char m;

	for (;;) {
		printf("%s %s ", question, choices);
		fflush(stdout);
		dropped = 0;
		if (read_line(z, line, sizeof(line), &dropped) < 0) {
			printf("\n");
			return 0;
		}
		m = dropped ? 0 : mark_of(line);
		if (m && strchr(choices, m))
			return m;
		printf("%s\n", MSG("quiz.letters",
				   "(please answer with one of the letters shown)"));
	}
}

/* ------------------------------------------------------------------------ */
/* Results: loaded once, offered to run when missing                         */

/* Labs the quiz ran (offer_missing_labs), now or earlier, fill gaps of
 * results.json.  0, or -1 when they left no results. */
static int merge_quiz_runs(struct learn_ctx *lc)
{
	struct learn_results more;
	char path[PATH_MAX + 32], err[600];

	snprintf(path, sizeof(path), "%s/quiz-runs/results.json", lc->opt->results_dir);
	if (results_load(path, &more, err, sizeof(err)))
		return -1;
	results_merge(&lc->res, &more);
	return 0;
}

static void load_results(struct quiz *z)
{
	struct learn_ctx *lc = z->lc;
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/results.json", lc->opt->results_dir);
	if (results_load(path, &lc->res, lc->res_error, sizeof(lc->res_error)) == 0) {
		lc->have_results = 1;
		merge_quiz_runs(lc);
		learn_map(lc); /* the claims of labs not built here */
		return;
	}
	printf("%s\n  %s\n", MSG("quiz.no-results", "No usable results of this machine:"),
	       lc->res_error);
	if (ask_mark(z, MSG("quiz.run-all", "Run the labs now (dmalab check, a minute or two)?"),
		     "[y/n]") != 'y') {
		printf("%s\n\n", MSG("quiz.goes-on", "The quiz goes on without measurements "
				     "(make check adds them)."));
		return;
	}
	if (learn_run_check(lc->opt, lc->opt->results_dir, NULL, 0) < 0 ||
	    results_load(path, &lc->res, lc->res_error, sizeof(lc->res_error))) {
		printf("%s %s\n\n", MSG("quiz.still-none", "Still no results:"), lc->res_error);
		return;
	}
	lc->have_results = 1;
	learn_map(lc);
}

/* Built labs of the question that the results lack, run on request into
 * <results>/quiz-runs and merged in. */
static void offer_missing_labs(struct quiz *z, const struct ans_question *q)
{
	struct learn_ctx *lc = z->lc;
	struct claim_view v;
	char dir[PATH_MAX], *ids[16], names[16 * 20] = "";
	static char labs[16][16];
	int k, n = 0, i;

	for (k = 0; k < q->nclaims && n < 16; k++) {
		claim_view_make(lc, q->claims[k], &v);
		if (strcmp(v.status, "absent") || !learn_lab_built(lc->opt, v.lab))
			continue;
		for (i = 0; i < n && strcmp(labs[i], v.lab); i++)
			;
		if (i == n)
			snprintf(labs[n++], sizeof(labs[0]), "%s", v.lab);
	}
	if (!n || !lc->have_results)
		return;
	for (i = 0; i < n; i++) {
		ids[i] = labs[i];
		snprintf(names + strlen(names), sizeof(names) - strlen(names), " lab-%s", labs[i]);
	}
	printf("%s%s\n", MSG("quiz.missing", "No results yet for"), names);
	if (ask_mark(z, MSG("quiz.run-them", "Run them now?"), "[y/n]") != 'y')
		return;
	snprintf(dir, sizeof(dir), "%s/quiz-runs", lc->opt->results_dir);
	if (learn_run_check(lc->opt, dir, ids, n) < 0 || merge_quiz_runs(lc))
		printf("%s\n", MSG("quiz.run-none", "(the run left no results)"));
}

/* ------------------------------------------------------------------------ */
/* One question                                                              */

static void print_block(const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		printf("  %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* An answer that starts with a number ("6.5", "300 ms/GiB because..."; "about 6 x"
 * does not): 1, with the word written after it in unit ("" none; a trailing ',', '.'
 * or ';' dropped); -1 for a number below 0, its text in unit. */
static int typed_number(const char *answer, double *v, char *unit, size_t len)
{
	char *end;
	size_t n;

	if (!answer)
		return 0;
	*v = strtod(answer, &end);
	if (end == answer || !isfinite(*v))
		return 0;
	if (*v < 0) {
		snprintf(unit, len, "%.*s", (int)(end - answer), answer);
		return -1;
	}
	end += strspn(end, " \t");
	n = strcspn(end, " \t\n");
	while (n && strchr(",.;", end[n - 1]))
		n--;
	snprintf(unit, len, "%.*s", (int)n, end);
	return 1;
}

/* The headline figures of q this run measured (the claims a number is scored on);
 * with a unit, those in it alone (any case). */
static int measured_figures(const struct learn_ctx *lc, const struct ans_question *q,
			    const char *unit)
{
	struct claim_view v;
	double lo, hi;
	int k, n = 0;

	for (k = 0; k < q->nclaims; k++) {
		claim_view_make(lc, q->claims[k], &v);
		n += v.c && predict_is_figure(v.c->op, v.c->unit) &&
		     predict_interval(v.c, &lo, &hi) && (!unit || !strcasecmp(unit, v.c->unit));
	}
	return n;
}

/* A typed number against claim c when c is a measured headline figure:
 * its score by the prediction rule, printed; NaN when not scored. */
static double score_number(struct quiz *z, const struct claim *c, double number)
{
	double lo, hi, s;

	if (!c || !predict_is_figure(c->op, c->unit) || !predict_interval(c, &lo, &hi))
		return NAN;
	s = predict_score(number, lo, hi);
	printf("         %s %g: %.2f (%s)\n", MSG("quiz.your-number", "your number"), number, s,
	       MSG("quiz.number-rule", "1 inside the interval, else 1 - |log10(p / m)|"));
	return s;
}

/*
 * Whether the typed number is scored against claim c: in the unit written with
 * it, only a figure in that unit; with none, only the question's one figure
 * (two figures in two units cannot both be what the learner meant).
 */
static int number_meant_for(const struct claim *c, const char *unit, int figures)
{
	return c && (*unit ? !strcasecmp(unit, c->unit) : figures == 1);
}

static void show_measured(struct quiz *z, struct quiz_item *it, const struct ans_question *q)
{
	struct learn_ctx *lc = z->lc;
	struct claim_view v;
	double number = 0, s;
	char unit[32];
	int k, has_number = typed_number(it->answer, &number, unit, sizeof(unit));
	int figures = has_number > 0 ? measured_figures(lc, q, NULL) : 0;

	it->number_score = NAN; /* of this answer only */
	printf("--- %s ---\n", MSG("quiz.measured", "what this machine measured"));
	if (!lc->have_results)
		printf("  %s\n", MSG("quiz.no-measured", "(no results: run make check)"));
	for (k = 0; k < q->nclaims; k++) {
		claim_view_make(lc, q->claims[k], &v);
		claim_view_print(lc, &v, 2, stdout);
		if (v.state == ANS_CONTRADICTED && v.c->erratum_status[0]) {
			char line[600];

			fmt_erratum(v.c, line, sizeof(line));
			printf("         %s\n", line);
		}
		if (v.known && (v.c->erratum_truth || v.erratum))
			printf("         %s %s\n", MSG("quiz.erratum", "known erratum:"),
			       v.c->erratum_truth ? v.c->erratum_truth : v.erratum->truth);
		s = has_number > 0 && number_meant_for(v.c, unit, figures) ?
			score_number(z, v.c, number) : NAN;
		if (!isnan(s) && !(s <= it->number_score))
			it->number_score = s;
	}
	if (has_number < 0) {
		printf(MSG("quiz.negative", "  (your number is not scored: '%s' is not a number "
			   ">= 0)"), unit);
		putchar('\n');
	} else if (has_number && !*unit && figures > 1) {
		printf("  %s\n", MSG("quiz.several", "(your number is not scored: this question "
				     "has several figures; write its unit after it, as above, to "
				     "score it)"));
	} else if (has_number && *unit && figures && !measured_figures(lc, q, unit)) {
		printf(MSG("quiz.no-unit", "  (your number is not scored: no figure above is in "
			   "'%s'; write a figure's unit after it, or nothing when there is one "
			   "figure)"), unit);
		putchar('\n');
	}
}

static void set_mark(struct quiz_item *it, char m)
{
	snprintf(it->mark, sizeof(it->mark), "%s",
		 m == 'y' ? "right" : m == 'n' ? "wrong" : "skip");
	learn_iso_now(it->at, sizeof(it->at));
}

/* Asks one question; 0, or -1 when the quiz stops. */
static int ask(struct quiz *z, struct quiz_item *it, const struct ans_question *q,
	       int number, int total)
{
	struct learn_ctx *lc = z->lc;
	enum ans_lang l = lc->opt->lang;
	char *text;
	char m;

	printf("\n[%d/%d] %s\n%s\n", number, total, q->id, q->prompt[l]);
	if (it->answer && *it->answer) {
		printf("%s\n", MSG("quiz.earlier", "Your earlier answer:"));
		print_block(it->answer);
	}
	printf("%s\n", MSG("quiz.answer", "Your answer (end with an empty line; Ctrl-D stops, "
			   "progress is kept):"));
	fflush(stdout);
	text = read_answer(z);
	if (text && (*text || !it->answer)) {
		free(it->answer);
		it->answer = text;
	} else {
		free(text);
	}
	if (save(z) || z->stop)
		return -1;
	printf("--- %s ---\n", MSG("quiz.reference", "reference answer"));
	print_block(q->answer[l]);
	offer_missing_labs(z, q);
	show_measured(z, it, q);
	m = ask_mark(z, MSG("quiz.right", "Did you get it right? yes, no, skip, quit"),
		     "[y/n/s/q]");
	if (!m || m == 'q') {
		if (!z->stop)
			z->stop = 1;
		return -1;
	}
	set_mark(it, m);
	return save(z);
}

/* ------------------------------------------------------------------------ */
/* The session                                                               */

/* An item this run asks about: a known question of the chosen chapter. */
static const struct ans_question *selected(struct quiz *z, const struct quiz_item *it)
{
	const char *chapter = z->lc->opt->chapter;
	size_t n = chapter ? strlen(chapter) : 0;

	if (chapter && (strncmp(it->id, chapter, n) || it->id[n] != '.'))
		return NULL;
	return ans_find_question(&z->lc->ans, it->id);
}

static void print_scores(struct quiz *z)
{
	const struct ans_set *s = &z->lc->ans;
	int right, wrong, skip, open;

	for (int i = 0; i < s->nch; i++) {
		if (z->lc->opt->chapter && strcmp(z->lc->opt->chapter, s->ch[i].id))
			continue;
		right = wrong = skip = open = 0;
		for (int k = 0; k < s->ch[i].n; k++) {
			const struct quiz_item *it = find_item(z, s->ch[i].q[k].id);
			const char *m = it ? it->mark : "";

			right += !strcmp(m, "right");
			wrong += !strcmp(m, "wrong");
			skip += !strcmp(m, "skip");
			open += !*m;
		}
		printf(MSG("quiz.score", "score %s: %d of %d marked right"), s->ch[i].id, right,
		       right + wrong);
		if (right + wrong)
			printf(MSG("quiz.pct", " (%.0f%%)"), 100.0 * right / (right + wrong));
		printf(MSG("quiz.open", ", %d skipped, %d still to answer"), skip, open);
		putchar('\n');
	}
}

static int count_selected(struct quiz *z, int *open)
{
	int i, total = 0;

	*open = 0;
	for (i = 0; i < z->n; i++)
		if (selected(z, &z->items[i])) {
			total++;
			*open += !z->items[i].mark[0];
		}
	return total;
}

static void run_session(struct quiz *z)
{
	int i, number = 0, open, total = count_selected(z, &open);

	if (!open) {
		printf("%s\n", MSG("quiz.all-marked", "Every question is marked already; "
				   "--reset (make quiz RESET=1) starts over."));
		return;
	}
	if (open < total) {
		printf(MSG("quiz.resuming", "Resuming: %d of %d questions still to answer."),
		       open, total);
		putchar('\n');
	}
	load_results(z);
	for (i = 0; i < z->n && !z->stop; i++) {
		const struct ans_question *q = selected(z, &z->items[i]);

		if (!q)
			continue;
		number++;
		if (!z->items[i].mark[0] && ask(z, &z->items[i], q, number, total))
			break;
	}
}

static int open_input(struct quiz *z)
{
	z->in = z->lc->opt->script ? fopen(z->lc->opt->script, "r") : stdin;
	if (z->in) {
		z->echo = !isatty(fileno(z->in));
		return 0;
	}
	return error_errno("cannot read --answers '%s'", z->lc->opt->script);
}

int cmd_quiz(struct learn_ctx *lc)
{
	static const int interrupt = SIGINT;
	struct quiz z;

	memset(&z, 0, sizeof(z));
	z.lc = lc;
	snprintf(z.path, sizeof(z.path), "%s/quiz.json", lc->opt->results_dir);
	if (open_input(&z))
		return 2;
	if (!lc->opt->reset)
		load_progress(&z);
	if (add_new_questions(&z) || save(&z)) {
		free_items(&z);
		return 1;
	}
	cleanup_catch(&quiz_interrupted, &interrupt, 1); /* a read in progress returns */
	run_session(&z);
	cleanup_catch(NULL, NULL, 0);
	if (z.stop)
		printf("\n%s %s\n", MSG("quiz.stopped", "Stopped; progress saved in"), z.path);
	print_scores(&z);
	if (z.in != stdin)
		fclose(z.in);
	free_items(&z);
	return z.stop == 2 ? 130 : 0;
}
