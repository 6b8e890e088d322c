/*
 * predict.c - `dmalab run NN --predict` (make lab-NN PREDICT=1): before a
 * lab runs, the learner types a number for each of its headline figures
 * (runner.h); after it, each number is scored against the figure's measured
 * interval and kept in results.json ("predictions" of the lab).  Answering
 * first, then looking, is what the chapters ask of a reader; the score says
 * how far off the guess was, on a log scale, since these figures span
 * decades (a 1 us fault, a 55 GB/s link).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "exercise.h"
#include "lang.h"
#include "runner.h"

/* no '%' in it: a message (class.c's page) would read one as a printf conversion */
const char PREDICT_RULE[] = "a prediction inside the measured 95-percent interval scores 1; "
	"outside, 1 - |log10(p / m)| with m the nearer end, at least 0 (a factor 2 off "
	"scores 0.70, 10 off scores 0); \"don't know\" scores 0; a figure not measured here "
	"is not scored";

int predict_is_figure(const char *op, const char *unit)
{
	static const char *const exact[] = { "eq", "int_eq", "ne", "true", "errno_eq",
					     "cuda_err_eq" };

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(op, exact[i]))
			return 0;
	return unit && *unit && strcmp(unit, "errno") && strcmp(unit, "cudaError_t");
}

double predict_score(double p, double lo, double hi)
{
	double m, s;

	if (isnan(p))
		return NAN;
	if (p >= lo && p <= hi)
		return 1;
	m = p < lo ? lo : hi;
	if (!(p > 0) || !(m > 0))
		return 0;
	s = 1 - fabs(log10(p / m));
	return s > 0 ? round(s * 1e4) / 1e4 : 0;
}

/* A range a reader can guess in, by unit: shown beside the question, never
 * the chapter's figure (that would answer it).  x reaches 1000: the labs'
 * ratios run from 0.8 (03.1's call / copy) to 04.1's random-chase latency
 * over the cached one, 160-206x on a plain VM (labs/04-numa/README.md): "to 100"
 * would tell a reader the right answer is implausible. */
static const char *plausible(const char *unit)
{
	static const struct { const char *unit, *range; } t[] = {
		{ "%", "0 to 100" }, { "fraction", "0 to 1" }, { "x", "0.01 to 1000" },
		{ "GB/s", "0.1 to 1000" }, { "GiB/s", "0.1 to 1000" },
		{ "ms/GiB", "0.1 to 100000" }, { "ns", "1 to 1e6" }, { "us", "0.01 to 1e6" },
		{ "ms", "0.001 to 1e6" }, { "s", "1e-6 to 1e4" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(unit, t[i].unit))
			return t[i].range;
	return "any number >= 0";
}

/* The most a figure in unit can be: a fraction's whole is 1 (a reader who types
 * 100 for all of it means 1, and would score 0 without a word). */
static double unit_most(const char *unit)
{
	return strcmp(unit, "fraction") ? INFINITY : 1;
}

/* "12.5" -> 12.5; "", "?" -> NaN (don't know); 0, or -1 for anything else
 * (a negative number, one above most). */
static int parse_value(const char *s, double most, double *v)
{
	char *end;

	s += strspn(s, " \t");
	if (!*s || !strcmp(s, "?")) {
		*v = NAN;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	end += strspn(end, " \t");
	return !errno && !*end && isfinite(*v) && *v >= 0 && *v <= most ? 0 : -1;
}

static void chomp(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

/* The describe object of each headline figure of lab e, in order. */
static int lab_figures(const struct lab_entry *e, const struct json **out, int max)
{
	const struct json *c = json_get(e->desc, "claims");
	int n = 0;

	for (c = c ? c->child : NULL; c && n < max; c = c->next) {
		const struct json *want = json_get(c, "want");

		if (predict_is_figure(json_get_str(want, "op", ""), json_get_str(want, "unit", "")))
			out[n++] = c;
	}
	return n;
}

/* One answer typed on stdin; NaN at the end of input (then for every later
 * figure, unasked) or after 3 bad tries. */
static double ask_one(const struct json *c)
{
	static int input_ended;
	const char *unit = json_get_str(json_get(c, "want"), "unit", "");
	double most = unit_most(unit);
	char *line = NULL;
	size_t cap = 0;
	double v = NAN;

	for (int tries = 0; tries < 3 && !input_ended; tries++) {
		fprintf(stderr, "  %s %s\n     ", json_get_str(c, "id", "?"),
			msg_claim_text(json_get_str(c, "id", "?"), json_get_str(c, "text", "")));
		/* spaces and line ends outside the messages: the table keeps neither */
		fprintf(stderr, MSG("predict.ask", "your number, in %s (plausible: %s; Enter or ? "
				    "= don't know):"), unit, plausible(unit));
		fputc(' ', stderr);
		fflush(stderr);
		if (getline(&line, &cap, stdin) < 0) {
			fprintf(stderr, "\n  %s\n", MSG("predict.eof", "(end of input: don't know, "
							 "for the rest)"));
			input_ended = 1;
			break;
		}
		chomp(line);
		if (!isatty(STDIN_FILENO)) /* a script's answer, shown as if typed */
			fprintf(stderr, "%s\n", line);
		if (!parse_value(line, most, &v))
			break;
		fputs("     ", stderr);
		if (isfinite(most))
			fprintf(stderr, tries < 2 ?
				MSG("predict.again-most", "'%s' is not a number from 0 to %g; "
				    "again") :
				MSG("predict.given-up-most", "'%s' is not a number from 0 to %g; "
				    "recorded as don't know"), line, most);
		else
			fprintf(stderr, tries < 2 ?
				MSG("predict.again", "'%s' is not a number >= 0; again") :
				MSG("predict.given-up", "'%s' is not a number >= 0; recorded as "
				    "don't know"), line);
		fputc('\n', stderr);
		v = NAN;
	}
	free(line);
	return v;
}

/* --predictions FILE, read whole before anything is asked: its "ID VALUE"
 * lines in order, each value as written, parsed when a lab asks for its id. */
struct pred_line {
	char id[64];
	char *value;
	int no;
};

struct pred_file {
	const char *path;
	struct pred_line *lines;
	int n;
};

static void pred_file_free(struct pred_file *pf)
{
	for (int i = 0; i < pf->n; i++)
		free(pf->lines[i].value);
	free(pf->lines);
}

/* The file's line for figure id, or NULL. */
static const struct pred_line *line_of(const struct pred_file *pf, const char *id)
{
	for (int i = 0; i < pf->n; i++)
		if (!strcmp(pf->lines[i].id, id))
			return &pf->lines[i];
	return NULL;
}

/* The value the file gives for figure id (in unit); NaN when it names none.
 * -1 after a bad value (said). */
static int file_value(const struct pred_file *pf, const char *id, const char *unit, double *v)
{
	const struct pred_line *l = line_of(pf, id);
	double most = unit_most(unit);
	char want[48] = "a number >= 0";

	if (isfinite(most))
		snprintf(want, sizeof(want), "a number from 0 to %g", most);
	*v = NAN;
	if (l && parse_value(l->value, most, v))
		return error("'%s' line %d: bad value '%s' for %s (want %s, or ? for don't "
			     "know)", pf->path, l->no, l->value, id, want);
	return 0;
}

/* 1 when figure id of lab e will not be measured here (rs->here's forecast,
 * as `make exercises` marks an exercise): what the machine lacks is added to
 * the list in lacks. */
static int not_measured_here(const struct run_state *rs, const struct lab_entry *e,
			     const char *id, char *lacks, size_t len)
{
	return ex_here_lacks_add(rs->here, e->id, id, lacks, len) > 0;
}

/* The figures of lab e to ask for, into fig: those measured here, and with a
 * file those it names too (it may predict a figure this machine skips). */
static int figures_asked(const struct run_state *rs, const struct pred_file *pf,
			 const struct lab_entry *e, const struct json **fig, int max)
{
	int n = lab_figures(e, fig, max), kept = 0;
	char lacks[256] = "";

	for (int i = 0; i < n; i++) {
		const char *id = json_get_str(fig[i], "id", "");

		if ((pf && line_of(pf, id)) || !not_measured_here(rs, e, id, lacks,
								      sizeof(lacks)))
			fig[kept++] = fig[i];
	}
	return kept;
}

static int ask_lab(const struct run_state *rs, const struct pred_file *pf, struct lab_entry *e)
{
	const struct json *fig[64];
	int n = figures_asked(rs, pf, e, fig, 64), i;

	if (!n)
		return 0;
	e->pred = calloc((size_t)n, sizeof(*e->pred));
	if (!e->pred)
		return error("out of memory"), 1;
	if (!pf) {
		fprintf(stderr, MSG("predict.head", "lab-%s: %s. Before it runs, what will this "
				    "machine measure?"), e->id, msg_lab_title(e->id, e->title));
		fputc('\n', stderr);
	}
	for (i = 0; i < n; i++) {
		struct prediction *p = &e->pred[i];

		snprintf(p->id, sizeof(p->id), "%s", json_get_str(fig[i], "id", ""));
		if (!pf)
			p->predicted = ask_one(fig[i]);
		else if (file_value(pf, p->id, json_get_str(json_get(fig[i], "want"), "unit", ""),
				    &p->predicted))
			return 2;
		e->npred++;
	}
	return 0;
}

static int is_asked(const struct run_state *rs, const char *id)
{
	for (int i = 0; i < rs->nlabs; i++)
		for (int k = 0; k < rs->labs[i].npred; k++)
			if (!strcmp(rs->labs[i].pred[k].id, id))
				return 1;
	return 0;
}

/* A name in --predictions that no lab of the run asks for is a typo or
 * another lab's: said, not fatal. */
static void warn_unused(const struct run_state *rs, const struct pred_file *pf)
{
	for (int i = 0; i < pf->n; i++)
		if (!is_asked(rs, pf->lines[i].id))
			warning("'%s' line %d: %s is no headline figure of the labs run here "
				"(dmalab claims lists the claims)", pf->path, pf->lines[i].no,
				pf->lines[i].id);
}

/* A line "ID VALUE" into pf; 0 for a blank or # line, -1 (said) for one that
 * is not of that form, an id given twice or out of memory. */
static int file_line(struct pred_file *pf, const char *line, int no)
{
	char id[64], value[64], extra[2];
	struct pred_line *grown;
	int n = sscanf(line, " %63s %63s %1s", id, value, extra), at = 0;

	if (n <= 0 || id[0] == '#')
		return 0;
	if (n != 2)
		return error("'%s' line %d: '%s' is not `ID VALUE` (e.g. 02.1 6.5, or 02.1 ? "
			     "for don't know)", pf->path, no, line);
	if (line_of(pf, id))
		return error("'%s' line %d: %s is given twice (keep one line for it)", pf->path,
			     no, id);
	grown = realloc(pf->lines, (size_t)(pf->n + 1) * sizeof(*grown));
	if (!grown)
		return error("out of memory");
	pf->lines = grown;
	sscanf(line, " %*63s %n", &at);
	grown[pf->n] = (struct pred_line){ .value = strdup(line + at), .no = no };
	snprintf(grown[pf->n].id, sizeof(grown->id), "%s", id);
	return grown[pf->n++].value ? 0 : error("out of memory");
}

/* Reads pf->path whole: a folder, a line that is not "ID VALUE" or an id
 * given twice is said with its line; -1 then. */
static int read_file(struct pred_file *pf)
{
	char *line = NULL;
	int no = 0, rc = 0;
	size_t cap = 0;
	struct stat st;
	FILE *f;

	if (!stat(pf->path, &st) && S_ISDIR(st.st_mode))
		return error("predictions '%s' is a folder: name the file of `ID VALUE` lines",
			     pf->path);
	if (!(f = fopen(pf->path, "r")))
		return error("cannot read predictions '%s': %s", pf->path, strerror(errno));
	while (!rc && getline(&line, &cap, f) >= 0) {
		chomp(line);
		rc = file_line(pf, line, ++no);
	}
	free(line);
	fclose(f);
	return rc;
}

/* Before the questions: how many figures are not asked, and what this
 * machine lacks to measure them. */
static void say_left_out(const struct run_state *rs)
{
	const struct json *fig[64];
	char lacks[256] = "";
	int i, k, n, left = 0;

	for (i = 0; i < rs->nlabs; i++) {
		n = rs->labs[i].desc_error[0] ? 0 : lab_figures(&rs->labs[i], fig, 64);
		for (k = 0; k < n; k++)
			left += not_measured_here(rs, &rs->labs[i], json_get_str(fig[k], "id", ""),
						  lacks, sizeof(lacks));
	}
	if (!left)
		return;
	/* the line end outside the message: the table keeps none */
	if (left == 1)
		fprintf(stderr, MSG("predict.left-one", "(1 figure not asked: this machine cannot "
				    "measure it (needs %s))"), lacks);
	else
		fprintf(stderr, MSG("predict.left-out", "(%d figures not asked: this machine "
				    "cannot measure them (needs %s))"), left, lacks);
	fputc('\n', stderr);
}

int predict_ask(struct run_state *rs)
{
	struct pred_file file = { rs->opt->predictions, NULL, 0 };
	const struct pred_file *pf = file.path ? &file : NULL;
	int i, rc = pf && read_file(&file) ? 2 : 0;

	if (!rc && !pf)
		say_left_out(rs);
	for (i = 0; i < rs->nlabs && !rc && !runner_stop_signal; i++)
		if (!rs->labs[i].desc_error[0])
			rc = ask_lab(rs, pf, &rs->labs[i]);
	if (!rc && pf)
		warn_unused(rs, pf);
	pred_file_free(&file);
	return rc;
}

int predict_interval(const struct claim *c, double *lo, double *hi)
{
	if (!c || !isfinite(c->got) ||
	    !(c->status == ST_PASS || c->status == ST_FAIL || c->status == ST_INCONCLUSIVE))
		return 0;
	*lo = isfinite(c->got_lo) && isfinite(c->got_hi) ? c->got_lo : c->got;
	*hi = isfinite(c->got_lo) && isfinite(c->got_hi) ? c->got_hi : c->got;
	return 1;
}

double predict_scored(const struct lab_entry *lab, const struct prediction *p,
		      const struct claim **c, double *lo, double *hi)
{
	*c = lab_claim((struct lab_entry *)lab, p->id);
	if (!predict_interval(*c, lo, hi))
		return NAN;
	return isnan(p->predicted) ? 0 : predict_score(p->predicted, *lo, *hi);
}

void predict_report(struct run_state *rs, const struct lab_entry *lab)
{
	FILE *f = out_progress_stream(rs);
	const struct claim *c;
	double lo, hi;

	for (int i = 0; i < lab->npred; i++) {
		const struct prediction *p = &lab->pred[i];
		double s = predict_scored(lab, p, &c, &lo, &hi);

		if (!i)
			fprintf(f, "# your predictions for lab-%s (1 inside the interval, else "
				"1 - |log10(p / m)|, m its nearer end, at least 0):\n", lab->id);
		if (isnan(s))
			fprintf(f, "#   %-6s not measured here: not scored\n", p->id);
		else if (isnan(p->predicted))
			fprintf(f, "#   %-6s don't know; measured %.4g %s [%.4g, %.4g]: 0\n", p->id,
				c->got, c->unit, lo, hi);
		else
			fprintf(f, "#   %-6s you said %.4g, measured %.4g %s [%.4g, %.4g]: %.2f\n",
				p->id, p->predicted, c->got, c->unit, lo, hi, s);
	}
}

static void write_one(const struct lab_entry *lab, const struct prediction *p,
		      struct json_writer *w)
{
	const struct claim *c;
	double lo, hi, score = predict_scored(lab, p, &c, &lo, &hi);
	int have = !isnan(score);

	jw_obj_begin(w);
	jw_kstr(w, "name", p->id);
	jw_kstr(w, "text", c ? c->text : NULL);
	jw_kstr(w, "unit", c ? c->unit : NULL);
	jw_knum(w, "predicted", p->predicted);
	jw_knum(w, "measured", have ? c->got : NAN);
	jw_key(w, "interval");
	if (have) {
		jw_arr_begin(w);
		jw_num(w, lo);
		jw_num(w, hi);
		jw_arr_end(w);
	} else {
		jw_null(w);
	}
	jw_knum(w, "score", score);
	jw_obj_end(w);
}

void predict_write(const struct lab_entry *lab, struct json_writer *w)
{
	if (!lab->pred)
		return;
	jw_karr(w, "predictions");
	for (int i = 0; i < lab->npred; i++)
		write_one(lab, &lab->pred[i], w);
	jw_arr_end(w);
}
