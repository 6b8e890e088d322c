/*
 * class.c - `dmalab class DIR` (make class CLASS=DIR): a trainer's page for
 * a folder of learners' runs.  Each results.json under DIR (the files
 * ending in .json, and results.json one folder down) is read as compare
 * reads a node (compare_node.c: its host, machine key and claims'
 * verdicts) and for what the learner did: the
 * name given with --learner, the exercises' states, the predictions'
 * scores, the questions the run confirmed.  One HTML page, no script, no
 * file beside it: a table per part, a learner per row.
 * Exit: 0 written (a file that is no run is skipped, said); 2 no page: no
 * learner's run in DIR (bad input, as a missing DIR is), the page not
 * written, or usage.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "exercise.h"
#include "lang.h"
#include "learn.h"
#include "runner.h"
#include "savefile.h"

#define CLASS_MAX_COLS 128

struct learner {
	struct cmp_node node;
	struct json *doc;
	char name[4 * 80 + 1]; /* --learner's 80 characters, up to 4 bytes each */
};

struct class_page {
	struct learner *l;
	int n;
	const char *ex[CLASS_MAX_COLS];   /* exercise ids, as first seen */
	int nex;
	const char *pred[CLASS_MAX_COLS]; /* predicted figures (claim ids) */
	int npred;
};

static void add_col(const char **cols, int *n, const char *id)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(cols[i], id))
			return;
	if (*n < CLASS_MAX_COLS)
		cols[(*n)++] = id;
}

static void collect_cols(struct class_page *pg, const struct json *doc)
{
	const struct json *e = json_get(doc, "exercises"), *lab, *p, *labs;

	for (e = e ? e->child : NULL; e; e = e->next)
		add_col(pg->ex, &pg->nex, json_get_str(e, "id", "?"));
	labs = json_get(doc, "labs");
	for (lab = labs ? labs->child : NULL; lab; lab = lab->next)
		for (p = json_get(lab, "predictions") ? json_get(lab, "predictions")->child : NULL;
		     p; p = p->next)
			add_col(pg->pred, &pg->npred, json_get_str(p, "name", "?"));
}

/* A run without --learner is named by its file: DIR/ada.json as "ada.json", and
 * DIR/ada/results.json by its folder, "ada" (every such file is results.json). */
static const char *file_name(const char *path, char *buf, size_t len)
{
	char *slash;

	snprintf(buf, len, "%s", path);
	slash = strrchr(buf, '/');
	if (slash && slash > buf && !strcmp(slash + 1, "results.json")) {
		*slash = '\0';
		slash = strrchr(buf, '/');
	}
	return slash ? slash + 1 : buf;
}

/* Reads path into the next learner; 0, or -1 when it is skipped with a
 * warning (a file that is no JSON or no run, such as a grade.json beside the
 * runs): one learner's broken file does not cost the trainer the page. */
static int load_learner(struct class_page *pg, const char *path)
{
	struct learner *l = &pg->l[pg->n];
	char base[PATH_MAX];
	const char *who;

	if (cmp_folder_run_load(path, &l->node, &l->doc))
		return -1;
	who = json_get_str(l->doc, "learner", NULL);
	/* a longer name is cut to the column's width */
	snprintf(l->name, sizeof(l->name), "%.*s", (int)sizeof(l->name) - 1,
		 who ? who : file_name(path, base, sizeof(base)));
	collect_cols(pg, l->doc);
	pg->n++;
	return 0;
}

static const char *const page_style =
	"body{font-family:sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse;margin-bottom:2em}"
	"th,td{border:1px solid #999;padding:4px 8px;text-align:left}"
	"th{background:#dde4ee}.done{background:#b9e4b9}.not_yet,.untried{background:#f4c2c2}"
	".not_started{background:#eee}.not_graded,.undecided{background:#f6e3a1}"
	".refused,.not_compiled{background:#e89a9a}"
	".dont_know{background:#eee;text-align:center}.q{font-size:90%}";

/*
 * A learner's cell of an exercise (e NULL: not in that run): its state.  One
 * not begun whose claims skip on the learner's machine (skips_here, forecast
 * as make exercises marks it) is "not graded here", the skips as its title.
 * 1 when done.
 */
static int exercise_cell(FILE *f, const struct json *e)
{
	const char *st = e ? json_get_str(e, "state", "?") : "not_listed";
	const char *skips = e ? json_get_str(e, "skips_here", NULL) : NULL;
	enum ex_state k = ex_state_of_key(st);
	char title[300];

	if (skips && ex_not_begun(k)) {
		snprintf(title, sizeof(title), MSG("class.skips-here", "its claims skip on this "
						   "learner's machine: %s"), skips);
		html_put(f, "<td class=\"not_graded\" title=\"", title, "\">");
		html_put(f, "", ex_state_text(EX_NOT_GRADED), "</td>");
		return 0;
	}
	fprintf(f, "<td class=\"%s\">", strspn(st, "abcdefghijklmnopqrstuvwxyz_") == strlen(st) ?
		st : "x");
	html_put(f, "", ex_state_word(st), "</td>");
	return k == EX_DONE;
}

/* A table's heading, a paragraph under it (NULL: none), and the head of its
 * first column (the learners). */
static void table_head(FILE *f, const char *id, const char *heading, const char *note)
{
	fprintf(f, "<h2 id=\"%s\">", id);
	html_put(f, "", heading, "</h2>\n");
	if (note)
		html_put(f, "<p>", note, "</p>\n");
	html_put(f, "<table><tr><th>", MSG("class.learner", "learner"), "</th>");
}

/* "3 of 16" in a cell, with the row's end. */
static void count_cell_end(FILE *f, int k, int n)
{
	fputs("<td>", f);
	fprintf(f, MSG("class.of", "%d of %d"), k, n);
	fputs("</td></tr>\n", f);
}

static void exercises_table(FILE *f, const struct class_page *pg)
{
	table_head(f, "exercises", MSG("class.exercises", "Exercises"), NULL);
	for (int k = 0; k < pg->nex; k++)
		html_put(f, "<th>", pg->ex[k], "</th>");
	html_put(f, "<th>", MSG("class.done", "done"), "</th></tr>\n");
	for (int i = 0; i < pg->n; i++) {
		int done = 0;

		html_put(f, "<tr><td>", pg->l[i].name, "</td>");
		for (int k = 0; k < pg->nex; k++)
			done += exercise_cell(f, json_get_by(pg->l[i].doc, "exercises", "id",
							  pg->ex[k]));
		count_cell_end(f, done, pg->nex);
	}
	fprintf(f, "</table>\n");
}

/* A "don't know" cell's title, and the legend under the table. */
static const char *dont_know(void)
{
	return MSG("class.dont-know", "? = the learner answered \"don't know\": it scores 0, "
		   "and counts as 0 in the mean");
}

/* A learner's cell of a figure (p NULL: not asked): its score, "?" for don't
 * know (which scores 0), or "not measured"; a score is added to *sum, *scored. */
static void prediction_cell(FILE *f, const struct json *p, double *sum, int *scored)
{
	double s = p ? json_get_num(p, "score", NAN) : NAN;

	if (!p) {
		fputs("<td>&mdash;</td>", f);
		return;
	}
	if (isnan(s)) {
		html_put(f, "<td>", MSG("class.not-measured", "not measured"), "</td>");
		return;
	}
	*sum += s, (*scored)++;
	if (isnan(json_get_num(p, "predicted", NAN))) {
		html_put(f, "<td class=\"dont_know\" title=\"", dont_know(), "\">?</td>");
		return;
	}
	fputs("<td title=\"", f);
	fprintf(f, MSG("class.pred-title", "predicted %g, measured %g"),
		json_get_num(p, "predicted", NAN), json_get_num(p, "measured", NAN));
	fprintf(f, "\">%.2f</td>", s);
}

/* 1 when some learner's run measured figure id (that learner's prediction of
 * it has a score). */
static int measured_by_any(const struct class_page *pg, const char *id)
{
	for (int i = 0; i < pg->n; i++) {
		struct learn_results run = { .doc = pg->l[i].doc };
		const struct json *p = learn_prediction(&run, id);

		if (p && !isnan(json_get_num(p, "score", NAN)))
			return 1;
	}
	return 0;
}

/* Under the table: the figures no learner's run measured, left out of it. */
static void say_unmeasured(FILE *f, int n, const char *ids)
{
	char line[1200];

	if (!n)
		return;
	if (n == 1)
		snprintf(line, sizeof(line), MSG("class.unmeasured-one",
			 "1 figure no learner's run measured is left out: %s"), ids);
	else
		snprintf(line, sizeof(line), MSG("class.unmeasured",
			 "%d figures no learner's run measured are left out: %s"), n, ids);
	html_put(f, "<p>", line, "</p>\n");
}

static void predictions_table(FILE *f, const struct class_page *pg)
{
	const char *col[CLASS_MAX_COLS];
	char unmeasured[1000] = "";
	int ncol = 0, left = 0;
	size_t used = 0;

	for (int k = 0; k < pg->npred; k++) {
		if (measured_by_any(pg, pg->pred[k])) {
			col[ncol++] = pg->pred[k];
			continue;
		}
		left++;
		if (used < sizeof(unmeasured))
			used += (size_t)snprintf(unmeasured + used, sizeof(unmeasured) - used,
						 "%s%s", used ? " " : "", pg->pred[k]);
	}
	table_head(f, "predictions", MSG("class.predictions", "Predictions"),
		   MSG("predict.rule", PREDICT_RULE));
	for (int k = 0; k < ncol; k++)
		html_put(f, "<th>", col[k], "</th>");
	html_put(f, "<th>", MSG("class.mean", "mean"), "</th></tr>\n");
	for (int i = 0; i < pg->n; i++) {
		struct learn_results run = { .doc = pg->l[i].doc };
		double sum = 0;
		int scored = 0;

		html_put(f, "<tr><td>", pg->l[i].name, "</td>");
		for (int k = 0; k < ncol; k++)
			prediction_cell(f, learn_prediction(&run, col[k]), &sum, &scored);
		if (scored)
			fprintf(f, "<td>%.2f</td></tr>\n", sum / scored);
		else
			fprintf(f, "<td>&mdash;</td></tr>\n");
	}
	html_put(f, "</table>\n<p>", dont_know(), "</p>\n");
	say_unmeasured(f, left, unmeasured);
}

/* A chapter's self-test question ("ch1.Q2", "ch2.S9"), not the claims'
 * other groups (a chapter's table, "beyond"): what a learner is asked. */
static int chapter_question(const char *id)
{
	size_t n = strspn(id + 2, "0123456789");

	return !strncmp(id, "ch", 2) && n && id[2 + n] == '.' &&
	       id[3 + n] >= 'A' && id[3 + n] <= 'Z';
}

static void questions_row(FILE *f, const struct learner *l)
{
	const struct json *q = json_get(l->doc, "questions");
	char key[300];
	int n = 0, confirmed = 0;

	cmp_key_text(&l->node.key, key, sizeof(key));
	html_put(f, "<tr><td>", l->name, "</td>");
	html_put(f, "<td>", l->node.host, "</td>");
	html_put(f, "<td>", key, "</td><td class=\"q\">");
	for (q = q ? q->child : NULL; q; q = q->next) {
		if (!chapter_question(json_get_str(q, "id", "")))
			continue;
		n++;
		if (!strcmp(json_get_str(q, "status", ""), "confirmed")) {
			html_put(f, confirmed++ ? " " : "", json_get_str(q, "id", "?"), "");
		}
	}
	fputs("</td>", f);
	count_cell_end(f, confirmed, n);
}

static void questions_table(FILE *f, const struct class_page *pg)
{
	table_head(f, "questions", MSG("class.questions", "Questions each machine confirmed"),
		   NULL);
	html_put(f, "<th>", MSG("class.host", "host"), "</th>");
	html_put(f, "<th>", MSG("class.machine", "machine"), "</th>");
	html_put(f, "<th>", MSG("class.confirmed", "confirmed"), "</th>");
	html_put(f, "<th>", MSG("class.of-questions", "of the chapters' questions in the run"),
		 "</th></tr>\n");
	for (int i = 0; i < pg->n; i++)
		questions_row(f, &pg->l[i]);
	fprintf(f, "</table>\n");
}

/* The page up to its first table, in the learner's language (DMALAB_LANG). */
static void page_head(FILE *f, const struct class_page *pg, const char *dir)
{
	char line[PATH_MAX + 200];

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">",
		dmalab_lang() == DMALAB_ZH ? "zh" : "en");
	html_put(f, "<title>", MSG("class.title", "dmalab class"), "</title>");
	fprintf(f, "<style>%s</style></head>\n<body>\n", page_style);
	snprintf(line, sizeof(line), MSG("class.head", "dmalab class: %s"), dir);
	html_put(f, "<h1>", line, "</h1>\n");
	if (pg->n == 1)
		snprintf(line, sizeof(line), "%s", MSG("class.intro-one", "1 learner; exercises as "
			 "the learner's last make try-NN left them, predictions scored against "
			 "the learner's own run."));
	else
		snprintf(line, sizeof(line), MSG("class.intro", "%d learners; exercises as each "
			 "learner's last make try-NN left them, predictions scored against that "
			 "learner's own run."), pg->n);
	html_put(f, "<p>", line, "</p>\n");
}

static int write_page(const struct class_page *pg, const char *dir, const char *out)
{
	struct savefile page;
	FILE *f = savefile_open(&page, out);

	if (!f)
		return error_errno(MSG("class.err-write", "cannot write '%s'"), out);
	page_head(f, pg, dir);
	exercises_table(f, pg);
	predictions_table(f, pg);
	questions_table(f, pg);
	fprintf(f, "</body></html>\n");
	if (savefile_commit(&page))
		return error_errno(MSG("class.err-write", "cannot write '%s'"), out);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct learner *)a)->name, ((const struct learner *)b)->name);
}

/* Runs of one name (a learner's file copied twice, or one name given twice):
 * all are on the page, and the trainer is told, a line a name (pg->l sorted
 * by name). */
static void warn_same_learner(const struct class_page *pg)
{
	for (int i = 0, j; i < pg->n; i = j) {
		char files[2048] = "";
		size_t used = 0;

		for (j = i + 1; j < pg->n && !strcmp(pg->l[j].name, pg->l[i].name); j++)
			;
		if (j - i == 2)
			warning(MSG("class.two-runs", "the learner '%s' has two runs here ('%s' "
				    "and '%s'): both are on the page"), pg->l[i].name,
				pg->l[i].node.path, pg->l[i + 1].node.path);
		if (j - i < 3)
			continue;
		for (int k = i; k < j && used < sizeof(files); k++)
			used += (size_t)snprintf(files + used, sizeof(files) - used, "%s'%s'",
						 k > i ? ", " : "", pg->l[k].node.path);
		warning(MSG("class.runs", "the learner '%s' has %d runs here (%s): all are on "
			    "the page"), pg->l[i].name, j - i, files);
	}
}

/* English's plural ending; Chinese has none (its message keeps the %s). */
static const char *plural(int n)
{
	return n == 1 || dmalab_lang() == DMALAB_ZH ? "" : "s";
}

/* What the page holds, in a line: the predictions are the numbers the
 * learners gave (a "don't know" is counted apart), not the figures' columns. */
static void say_written(const struct class_page *pg, const char *out)
{
	int given[CLASS_MAX_COLS] = { 0 }, made = 0, learners = 0, figures = 0, dont_know = 0;

	for (int i = 0; i < pg->n; i++) {
		struct learn_results run = { .doc = pg->l[i].doc };
		int gave = 0;

		for (int k = 0; k < pg->npred; k++) {
			const struct json *p = learn_prediction(&run, pg->pred[k]);

			if (p && isnan(json_get_num(p, "predicted", NAN)))
				dont_know++;
			else if (p)
				made++, gave = given[k] = 1;
		}
		learners += gave;
	}
	for (int k = 0; k < pg->npred; k++)
		figures += given[k];
	printf(MSG("class.said", "class: %d learner%s, %d exercise%s, %d prediction%s by %d "
		   "learner%s over %d figure%s"), pg->n, plural(pg->n), pg->nex, plural(pg->nex),
	       made, plural(made), learners, plural(learners), figures, plural(figures));
	if (dont_know)
		printf(MSG("class.said-dont-know", " (and %d \"don't know\")"), dont_know);
	printf(MSG("class.said-wrote", ": wrote %s"), out);
	putchar('\n');
}

static void class_usage(void)
{
	printf("usage: dmalab class DIR [--out FILE]\n"
		"  one HTML page (default DIR/class.html) of the learners' runs in DIR\n"
		"  (DIR/*.json, DIR/*/results.json): per learner the exercises done or not,\n"
		"  the predictions' scores, the questions the learner's machine confirmed;\n"
		"  learners are named by the --learner NAME of their run (make check\n"
		"  LEARNER=NAME), else by the file's name (DIR/NAME/results.json: NAME)\n"
		"exit: 0 written (a file that is no run is skipped, said); 2 no page: no\n"
		"      learner's run in DIR, no such folder, the page not written, an --out\n"
		"      that names a run's results.json, usage\n");
}

/* The folder named on the command line; --out FILE in *out. */
static const char *parse_class(int argc, char **argv, const char **out)
{
	static const struct option longs[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	usage_set_help("dmalab class");
	opterr = 0;
	optind = 1; /* argv[0] is "class" */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		switch (c) {
		case 'o': *out = optarg; break;
		case 'h': class_usage(); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
	if (optind == argc)
		die_usage(MSG("class.err-no-dir",
			      "'class' needs the folder of the learners' runs"));
	if (optind + 1 < argc)
		die_usage(MSG("class.err-two-dirs", "'%s': class reads one folder"),
			  argv[optind + 1]);
	return argv[optind];
}

static int class_run(const char *dir, const char *out, glob_t *g)
{
	struct class_page pg = { 0 };
	int i, bad = 0, rc;

	pg.l = cmp_calloc(g->gl_pathc, sizeof(*pg.l));
	for (i = 0; i < (int)g->gl_pathc; i++)
		if (!cmp_same_file(g->gl_pathv[i], out))
			bad += load_learner(&pg, g->gl_pathv[i]) != 0;
	qsort(pg.l, (size_t)pg.n, sizeof(*pg.l), by_name);
	warn_same_learner(&pg);
	rc = !pg.n ? error(MSG("class.err-no-runs", "no learner's results.json in '%s'%s"), dir,
			   bad ? MSG("class.err-skipped", " (the files above were skipped)") : ""),
	     2 :
	     write_page(&pg, dir, out) ? 2 : 0;
	if (!rc)
		say_written(&pg, out);
	if (!rc && bad) {
		printf(MSG("class.said-skipped", "class: %d file%s skipped (said above)"), bad,
		       plural(bad));
		putchar('\n');
	}
	for (i = 0; i < pg.n; i++) {
		cmp_node_free(&pg.l[i].node);
		json_free(pg.l[i].doc);
	}
	free(pg.l);
	return rc;
}

/* 1 when the page would be written over a run (--out naming a learner's
 * results.json): the trainer would lose it, and the page would leave it out. */
static int out_is_a_run(const char *out)
{
	char err[PATH_MAX + 300];
	struct cmp_node n;
	struct stat st;

	if (stat(out, &st) || cmp_node_load(out, &n, err, sizeof(err)))
		return 0;
	cmp_node_free(&n);
	return 1;
}

int cmd_class(int argc, char **argv)
{
	const char *out = NULL, *dir = parse_class(argc, argv, &out);
	char def[PATH_MAX];
	struct stat st;
	glob_t g;
	int rc;

	if (stat(dir, &st))
		return error(MSG("class.err-no-folder", "class: no such folder '%s'"), dir), 2;
	if (!S_ISDIR(st.st_mode))
		return error(MSG("class.err-file", "class: '%s' is a file, not a folder: name "
				 "the folder that holds the learners' runs"), dir), 2;
	snprintf(def, sizeof(def), "%s/class.html", dir);
	out = out ? out : def;
	if (out_is_a_run(out))
		return error(MSG("class.err-out-run", "class: --out '%s' is a run's results.json: "
				 "the page would take its place; name another file"), out), 2;
	if (cmp_folder_runs(dir, &g, 0))
		return error("out of memory"), 2;
	rc = class_run(dir, out, &g);
	globfree(&g);
	return rc;
}
