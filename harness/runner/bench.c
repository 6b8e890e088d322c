/*
 * bench.c - `dmalab bench [RESULTS_JSON] [--series] [--phases [N]]
 * [--base OLD_RESULTS_JSON]`: the kit's own timing, from a results.json
 * (make bench).
 *
 * Per lab: its wall time (the runner's duration_s), how many measured series
 * it recorded, the samples they took (in all, and the least, median and most
 * of one series), the CV they reached (median and largest) and the width of
 * each median's 95 % interval as a share of the median (the quantity the
 * stopping rule bounds, LAB_STOP_WIDTH: series left wider than it were timed
 * by hand, fixed, or hit their cap, "noisy"); then the total.  --series lists
 * every series under its lab; --base adds an older run's wall time per lab
 * and the ratio, so that a slower time to the answer shows (a base unlike
 * this run, --quick in one alone or labs one alone ran, is said in a warning
 * line, and the all row's ratio is then over the labs both ran).  --phases lists
 * each lab's N (default 5) longest steps, as the lab's progress lines name
 * them, with their seconds and share of the lab's time: where to look first
 * to make it faster.  A series is one point of a lab's "series" (every sample
 * is kept there) or a claim's statistics that no point holds; a series of one
 * value (arithmetic, or a run timed once) is left out: nothing to stop.
 *
 * The file is read as it stands, whatever its schema, but an unfinished run
 * ("running", "incomplete") is refused as every other reader of results.json
 * refuses it: its table would read as a whole run's.  Values print as the
 * record has them: a missing one as "None" (an id, a name), "-" (a number)
 * or "?".
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "lang.h"
#include "learn.h"
#include "runner.h"
#include "sizes.h"
#include "want.h"

#define BENCH_PHASES 5 /* --phases without N */
#define NUM_LEN 330    /* any double in %.4f: 309 digits, a sign, a point, 4 decimals */

struct bench_opts {
	const char *path, *base_path;
	int series, phases;
};

/* One series of a lab: its label and its statistics in the record. */
struct bench_series {
	char label[NUM_LEN + 256];
	const struct json *stats;
	double width; /* of its median's 95 % interval, as a share of the median */
};

struct bench_lab {
	struct bench_series *s;
	int n;
	long long samples;
	int wide, noisy;
};

/* The columns' totals over the labs. */
struct bench_total {
	double wall;
	long long series, samples, wide, noisy;
};

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab bench [RESULTS_JSON] [--series] [--phases [N]] "
		"[--base OLD_RESULTS_JSON]\n"
		"  the kit's own timing from a results.json (default results/results.json):\n"
		"  per lab its wall time, series, samples (in all; least/median/most of one),\n"
		"  the CV reached (median, largest), the series whose median's 95 %% interval\n"
		"  is wider than %.0f %% of it (wide) and those that hit their cap (noisy)\n"
		"options:\n"
		"  --series        list every series under its lab\n"
		"  --phases [N]    each lab's N (default %d) longest steps, with their share\n"
		"  --base FILE     an older run's wall time per lab, and the ratio; a run\n"
		"                  unlike this one (--quick in one alone, labs one alone ran)\n"
		"                  is said in a line, and all's ratio is over the labs both ran\n"
		"  -h, --help      this text\n"
		"exit: 0 printed; 2 a file (or --base) that is not a dmalab results.json or\n"
		"      is an unfinished run's (status running or incomplete), or usage\n",
		100 * LAB_STOP_WIDTH, BENCH_PHASES);
}

/* s as a count of steps, 1 or more (digits only); 0 when it is none. */
static int phase_count(const char *s)
{
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return 0;
	return (int)fmin(strtod(s, NULL), 1e6); /* more steps than any lab has: all of them */
}

/* --phases's N: attached (--phases=N) or the next word when it is a count;
 * a next word that is neither a count, an option nor a .json file is a typo. */
static int parse_phases(const char *value, int argc, char **argv)
{
	const char *next = value ? value : optind < argc ? argv[optind] : "-";
	size_t len = strlen(next);
	int n = phase_count(next);

	if (n && !value)
		optind++;
	else if (!n && (value || (next[0] != '-' && (len < 5 || strcmp(next + len - 5, ".json")))))
		die_usage(MSG("bench.err-phases",
			"--phases '%s': want a whole number of steps, 1 or more"), next);
	return n ? n : BENCH_PHASES;
}

static void parse_bench(struct bench_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "series", no_argument, NULL, 's' },
		{ "phases", optional_argument, NULL, 'p' },
		{ "base", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct bench_opts){ "results/results.json", NULL, 0, 0 };
	opterr = 0;
	optind = 1; /* argv[0] is "bench" */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		switch (c) {
		case 's': o->series = 1; break;
		case 'p': o->phases = parse_phases(optarg, argc, argv); break;
		case 'b': o->base_path = optarg; break;
		case 'h': bench_usage(stdout); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		die_usage(MSG("bench.err-two-files",
			"'%s': bench reads one results file (an older one: --base)"),
			  argv[optind]);
}

/* ---- The record's values ------------------------------------------------ */

/* 0 for a missing value, null, false, 0, "" and an empty list or object. */
static int present(const struct json *v)
{
	if (!v || v->type == JSON_NULL)
		return 0;
	if (v->type == JSON_NUM || v->type == JSON_BOOL)
		return v->num != 0;
	return v->type == JSON_STR ? v->str[0] != '\0' : v->count > 0;
}

/* A number in the fewest digits that read back as it (integers whole). */
static const char *num_text(double x, char *buf, size_t len)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	if (x == trunc(x) && fabs(x) < 1e16)
		snprintf(buf, len, "%.0f", x);
	return buf;
}

/* 1 for a JSON true alone ("noisy": true). */
static int is_true(const struct json *v)
{
	return v && v->type == JSON_BOOL && v->num;
}

/* A scalar of the record as text: a missing one or null is "None". */
static const char *text_of(const struct json *v, char *buf, size_t len)
{
	if (!v || v->type == JSON_NULL)
		return "None";
	if (v->type == JSON_STR)
		return v->str;
	if (v->type == JSON_BOOL)
		return v->num ? "True" : "False";
	return v->type == JSON_NUM ? num_text(v->num, buf, len) : "?";
}

/* text_of member key, or `dflt` where the record has nothing there. */
static const char *member_text(const struct json *obj, const char *key, const char *dflt,
			       char *buf, size_t len)
{
	const struct json *v = json_get(obj, key);

	return present(v) ? text_of(v, buf, len) : dflt;
}

/* The same scalar, a missing one the same as null (a series' identity). */
static int same_value(const struct json *a, const struct json *b)
{
	int a_none = !a || a->type == JSON_NULL, b_none = !b || b->type == JSON_NULL;
	int a_num = a && (a->type == JSON_NUM || a->type == JSON_BOOL);
	int b_num = b && (b->type == JSON_NUM || b->type == JSON_BOOL);

	if (a_none || b_none)
		return a_none && b_none;
	if (a_num || b_num)
		return a_num && b_num && a->num == b->num;
	return a->type == JSON_STR && b->type == JSON_STR && !strcmp(a->str, b->str);
}

/* A series' sample count as a whole number (0 when it has none). */
static long long count_of(const struct json *stats)
{
	double n = json_get_num(stats, "n", 0);

	return isfinite(n) ? (long long)fmax(fmin(n, 1e18), -1e18) : 0; /* no overflow */
}

/* ---- A lab's series ----------------------------------------------------- */

/* A point's x: a size in bytes as the kit writes sizes, a number as unit=x, else its text. */
static void fmt_x(const struct json *x, const struct json *unit, char *buf, size_t len)
{
	int is_num = x && (x->type == JSON_NUM || x->type == JSON_BOOL);
	char unit_buf[32], x_buf[32];
	const char *u = present(unit) ? text_of(unit, unit_buf, sizeof(unit_buf)) : "x";

	if (!is_num)
		snprintf(buf, len, "%s", text_of(x, x_buf, sizeof(x_buf)));
	else if (strcmp(u, "bytes") || !(x->num >= 1 && x->num < 0x1p64))
		snprintf(buf, len, "%s=%g", u, x->num);
	else
		lab_fmt_size((uint64_t)x->num, buf, len);
}

/* (hi - lo) / |median| of the samples' 95 % median interval; +Inf when they
 * are too few, not all numbers, or not all finite. */
static double samples_width(const struct json *samples)
{
	const struct json *v = samples && samples->type == JSON_ARR ? samples->child : NULL;
	int n = 0, total = v ? (int)samples->count : 0;
	double *x = total ? malloc(sizeof(*x) * (size_t)total) : NULL, w = INFINITY;

	for (; x && v && v->type == JSON_NUM; v = v->next)
		x[n++] = v->num;
	if (x && n == total)
		w = lab_median_width(x, n, lab_median_rank(n, LAB_CONFIDENCE));
	free(x);
	return w;
}

/* 1 when a series of the same name, count and median is listed already. */
static int listed(const struct bench_lab *b, const struct json *stats)
{
	static const char *const keys[] = { "name", "n", "median" };

	for (int i = 0; i < b->n; i++) {
		int k = 0;

		while (k < 3 && same_value(json_get(b->s[i].stats, keys[k]),
					   json_get(stats, keys[k])))
			k++;
		if (k == 3)
			return 1;
	}
	return 0;
}

static struct bench_series *add_series(struct bench_lab *b, const struct json *stats)
{
	struct bench_series *s;

	b->s = cmp_realloc(b->s, (size_t)b->n, sizeof(*b->s));
	s = &b->s[b->n++];
	s->stats = stats;
	s->width = samples_width(json_get(stats, "samples"));
	b->samples += count_of(stats);
	b->wide += !(s->width <= LAB_STOP_WIDTH);
	b->noisy += is_true(json_get(stats, "noisy"));
	return s;
}

/* Each point of one named series ("name @ x") that took two samples or more. */
static void add_points(struct bench_lab *b, const struct json *series)
{
	const struct json *points = json_get(series, "points");
	char x[NUM_LEN];

	for (const struct json *p = present(points) && points->type == JSON_ARR ?
		     points->child : NULL; p; p = p->next) {
		const struct json *stats = json_get(p, "stats");

		if (count_of(stats) < 2)
			continue;
		fmt_x(json_get(p, "x"), json_get(series, "x_unit"), x, sizeof(x));
		snprintf(add_series(b, stats)->label, sizeof(b->s->label), "%s @ %s",
			 series->key, x);
	}
}

/* A claim's statistics that no point holds ("name (claim id)"). */
static void add_claim(struct bench_lab *b, const struct json *claim)
{
	const struct json *stats = json_get(claim, "stats");
	char name[64], id[64];

	for (const struct json *st = stats && stats->type == JSON_ARR ? stats->child : NULL;
	     st; st = st->next) {
		if (st->type != JSON_OBJ || count_of(st) < 2 || listed(b, st))
			continue;
		snprintf(add_series(b, st)->label, sizeof(b->s->label), "%s (claim %s)",
			 text_of(json_get(st, "name"), name, sizeof(name)),
			 text_of(json_get(claim, "id"), id, sizeof(id)));
	}
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const struct json *const *)a)->key,
		      (*(const struct json *const *)b)->key);
}

/* The lab's series, each once: its points by series name, then its claims'. */
static void lab_series(const struct json *lab, struct bench_lab *b)
{
	const struct json *series = json_get(lab, "series"), *claims = json_get(lab, "claims");
	const struct json **byname = NULL, *m;
	size_t n = 0;

	memset(b, 0, sizeof(*b));
	if (series && series->type == JSON_OBJ && series->count) {
		byname = cmp_calloc(series->count, sizeof(*byname));
		for (m = series->child; m; m = m->next)
			byname[n++] = m;
		qsort(byname, n, sizeof(*byname), by_key);
	}
	for (size_t i = 0; i < n; i++)
		add_points(b, byname[i]);
	free(byname);
	for (m = claims && claims->type == JSON_ARR ? claims->child : NULL; m; m = m->next)
		add_claim(b, m);
}

/* ---- The table ---------------------------------------------------------- */

/* v in printf's spec, or "-" when it is no finite number. */
static const char *fmt_num(const char *spec, double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return "-";
	snprintf(buf, len, spec, v);
	return buf;
}

/* "least/median/most" samples of one series ("-" for none), and the median
 * and the largest CV of the lab's series (NaN for none). */
static void lab_spread(const struct bench_lab *b, char *buf, size_t len, double *cv_median,
		       double *cv_most)
{
	double *n = cmp_calloc(2 * (size_t)b->n, sizeof(*n)), *cv = n + b->n, median;
	int ncv = 0;

	*cv_most = NAN;
	for (int i = 0; i < b->n; i++) {
		n[i] = (double)count_of(b->s[i].stats);
		cv[ncv] = json_get_num(b->s[i].stats, "cv", NAN);
		if (!isnan(cv[ncv]))
			*cv_most = fmax(*cv_most, cv[ncv++]); /* fmax passes over a NaN */
	}
	median = lab_median(n, b->n); /* sorts n */
	if (b->n)
		snprintf(buf, len, "%.0f/%g/%.0f", n[0], median, n[b->n - 1]);
	else
		snprintf(buf, len, "-");
	*cv_median = ncv ? lab_median(cv, ncv) : NAN;
	free(n);
}

/* The list's last lab of this id, or NULL: the one a run's figures are taken
 * from (make lab-NN merges a newer one after an older). */
static const struct json *lab_of(const struct json *labs, const struct json *id)
{
	const struct json *found = NULL;

	for (const struct json *l = labs ? labs->child : NULL; l; l = l->next)
		if (same_value(json_get(l, "id"), id))
			found = l;
	return found;
}

/* A run's total: each lab id once, over the ids the other run has too. */
static double total_wall(const struct json *labs, const struct json *other)
{
	double sum = 0;

	for (const struct json *l = labs ? labs->child : NULL; l; l = l->next) {
		const struct json *id = json_get(l, "id");
		double wall = json_get_num(l, "duration_s", NAN);

		if (lab_of(labs, id) == l && !isnan(wall) && lab_of(other, id))
			sum += wall;
	}
	return sum;
}

/* " 03 04": the ids of labs, each once, that other has too (in_other 1) or
 * lacks (0); how many. */
static int ids_where(const struct json *labs, const struct json *other, int in_other,
		     char *buf, size_t len)
{
	size_t n = 0;
	int count = 0;

	buf[0] = '\0';
	for (const struct json *l = labs ? labs->child : NULL; l; l = l->next) {
		const struct json *id = json_get(l, "id");
		char text[64];

		if (lab_of(labs, id) != l || (lab_of(other, id) != NULL) != in_other)
			continue;
		count++;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " %s",
					      text_of(id, text, sizeof(text)));
	}
	return count;
}

/* Appends "; " (when buf holds a part already) and fmt's text to buf. */
static void __attribute__((format(printf, 3, 4)))
add_part(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len)
		n += (size_t)snprintf(buf + n, len - n, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* A --base run unlike this one (--quick in one alone, labs one of them alone
 * ran): one warning line naming the difference, so that its ratios are not read
 * as like for like.  1 when the labs differ (the all row is then over the labs
 * both ran, and says so). */
static int warn_unlike(const struct json *d, const char *path, const struct json *labs,
		       const struct json *base, const char *base_path,
		       const struct json *base_labs)
{
	int quick = present(json_get(d, "quick")), base_quick = present(json_get(base, "quick"));
	char why[1200] = "", only[512], only_base[512];
	int nonly = ids_where(labs, base_labs, 0, only, sizeof(only));
	int nonly_base = ids_where(base_labs, labs, 0, only_base, sizeof(only_base));

	if (quick && !base_quick)
		add_part(why, sizeof(why), MSG("bench.unlike-quick", "'%s' ran with --quick, "
			 "--base '%s' without"), path, base_path);
	if (!quick && base_quick)
		add_part(why, sizeof(why), MSG("bench.unlike-full", "'%s' ran without --quick, "
			 "--base '%s' with"), path, base_path);
	if (nonly)
		add_part(why, sizeof(why), MSG("bench.unlike-labs", "labs only '%s' ran:%s"), path,
			 only);
	if (nonly_base)
		add_part(why, sizeof(why), MSG("bench.unlike-labs-base", "labs only --base '%s' "
			 "ran:%s"), base_path, only_base);
	if (nonly || nonly_base)
		warning(MSG("bench.warn-unlike-labs", "the x column compares unlike runs (%s); "
			    "the all row's x is over the labs both ran"), why);
	else if (why[0])
		warning(MSG("bench.warn-unlike", "the x column compares unlike runs (%s)"), why);
	return nonly || nonly_base;
}

/* " base s x" columns: the older wall time and this one's ratio to it. */
static void print_base(double old, double ratio)
{
	char a[NUM_LEN], b[NUM_LEN];

	printf(" %8s %6s", fmt_num("%.2f", old, a, sizeof(a)),
	       fmt_num("%.2f", ratio, b, sizeof(b)));
}

struct bench_phase {
	const struct json *step;
	double s;
	int order; /* as the lab listed it: equal lengths keep it */
};

static int longest_first(const void *a, const void *b)
{
	const struct bench_phase *x = a, *y = b;

	return x->s != y->s ? (x->s < y->s) - (x->s > y->s) : x->order - y->order;
}

/* The lab's n longest steps, each with its share of the lab's wall time. */
static void print_phases(const struct json *lab, int n, double wall)
{
	const struct json *phases = json_get(lab, "phases");
	struct bench_phase *p = NULL;
	int np = 0;

	for (const struct json *v = n && phases && phases->type == JSON_ARR ? phases->child :
	     NULL; v; v = v->next) {
		if (v->type != JSON_OBJ || isnan(json_get_num(v, "s", NAN)))
			continue;
		p = cmp_realloc(p, (size_t)np, sizeof(*p));
		p[np] = (struct bench_phase){ v, json_get_num(v, "s", NAN), np };
		np++;
	}
	if (np)
		qsort(p, (size_t)np, sizeof(*p), longest_first);
	for (int i = 0; i < np && i < n; i++) {
		char share[NUM_LEN] = "-", what[64];

		if (wall != 0 && !isnan(wall))
			snprintf(share, sizeof(share), "%.0f%%", /* half to even; no "-0" */
				 nearbyint(100 * p[i].s / wall) + 0.0);
		printf("       %6.2f s %4s  %s\n", p[i].s, share,
		       member_text(p[i].step, "what", "?", what, sizeof(what)));
	}
	free(p);
}

static void print_series(const struct bench_lab *b)
{
	for (int i = 0; i < b->n; i++) {
		char n[32], cv[NUM_LEN], width[NUM_LEN] = "inf";

		if (isfinite(b->s[i].width))
			snprintf(width, sizeof(width), "%.1f %%", 100 * b->s[i].width);
		printf("       %-44s n %4s  cv %8s  width %s%s\n", b->s[i].label,
		       text_of(json_get(b->s[i].stats, "n"), n, sizeof(n)),
		       fmt_num("%.4f", json_get_num(b->s[i].stats, "cv", NAN), cv, sizeof(cv)),
		       width, is_true(json_get(b->s[i].stats, "noisy")) ? "  noisy" : "");
	}
}

/* One lab's row, its longest steps and (--series) its series. */
static void print_lab(const struct json *lab, const struct bench_opts *o,
		      const struct json *base, struct bench_total *t)
{
	char id[64], status[64], wall_s[NUM_LEN], spread[64], cv_med[NUM_LEN];
	char cv_max[NUM_LEN];
	double wall = json_get_num(lab, "duration_s", NAN), median, most;
	struct bench_lab b;

	lab_series(lab, &b);
	lab_spread(&b, spread, sizeof(spread), &median, &most);
	printf("%-4s %-12s %8s %7d %8lld %12s %6s %6s %7d %7d",
	       text_of(json_get(lab, "id"), id, sizeof(id)),
	       text_of(json_get(lab, "status"), status, sizeof(status)),
	       fmt_num("%.2f", wall, wall_s, sizeof(wall_s)), b.n, b.samples, spread,
	       fmt_num("%.4f", median, cv_med, sizeof(cv_med)),
	       fmt_num("%.3f", most, cv_max, sizeof(cv_max)), b.wide, b.noisy);
	if (o->base_path) {
		double old = json_get_num(lab_of(base, json_get(lab, "id")), "duration_s", NAN);

		print_base(old, wall != 0 && old != 0 ? wall / old : NAN); /* NaN: none */
	}
	putchar('\n');
	print_phases(lab, o->phases, wall);
	if (o->series)
		print_series(&b);
	t->wall += isnan(wall) ? 0 : wall;
	t->series += b.n, t->samples += b.samples, t->wide += b.wide, t->noisy += b.noisy;
	free(b.s);
}

static void print_head(const struct json *d, const char *path, int with_base)
{
	char command[64], started[64];

	printf("bench: %s (%s, started %s%s)\n", path,
	       member_text(d, "command", "?", command, sizeof(command)),
	       member_text(d, "started", "?", started, sizeof(started)),
	       present(json_get(d, "quick")) ? ", --quick" : "");
	printf("%-4s %-12s %8s %7s %8s %12s %6s %6s %7s %7s", "lab", "status", "wall s",
	       "series", "samples", "min/med/max", "cv med", "cv max", "wide", "noisy");
	if (with_base)
		printf(" %8s %6s", "base s", "x");
	putchar('\n');
}

/* The totals; with a base, its total and the ratio over the labs both ran
 * (all of them when they ran the same: labs_differ 0). */
static void print_foot(const struct json *d, const struct json *labs, const struct json *base,
		       int with_base, int labs_differ, const struct bench_total *t)
{
	char wall_s[NUM_LEN], both[512];
	const char *runner_s;
	double runner;

	printf("%-4s %-12s %8s %7lld %8lld %12s %6s %6s %7lld %7lld", "all", "",
	       fmt_num("%.2f", t->wall, wall_s, sizeof(wall_s)), t->series, t->samples,
	       "", "", "", t->wide, t->noisy);
	if (with_base) {
		double old = total_wall(base, labs), now = total_wall(labs, base);

		print_base(old, old != 0 ? now / old : NAN);
		if (labs_differ) {
			ids_where(labs, base, 1, both, sizeof(both));
			printf(MSG("bench.all-both", "  (base s, x: the labs both ran,%s)"), both);
		}
	}
	putchar('\n');
	runner = json_get_num(d, "duration_s", NAN);
	runner_s = fmt_num("%.1f", runner, wall_s, sizeof(wall_s));
	if (runner < t->wall) /* make lab-NN merged its lab into an older run's file */
		printf(MSG("bench.foot-merged", "the labs above come from more than one run "
			   "(make lab-NN adds its lab to results.json; the last run took %s s): "
			   "no one runner's wall time"), runner_s);
	else
		printf(MSG("bench.foot-runner", "runner's wall time: %s s (the labs' sum above, "
			   "plus its own start and end)"), runner_s);
	printf(MSG("bench.foot-wide", "; wide: the median's 95 %% interval spans more than "
		   "%.0f %% of it"), 100 * LAB_STOP_WIDTH);
	putchar('\n');
}

/* ---- The command -------------------------------------------------------- */

/* The document at path, with its "labs" list in *labs; NULL after an error. */
static struct json *load(const char *path, const struct json **labs)
{
	char err[PATH_MAX + 300];
	struct json *d = json_parse_file(path, err, sizeof(err));

	if (!d) {
		error("%s%s", err, access(path, R_OK) ? MSG("bench.err-missing",
			" (make check writes it)") : MSG("bench.err-not-json",
			" (not a dmalab results.json)"));
		return NULL;
	}
	*labs = json_get(d, "labs");
	if (!*labs || (*labs)->type != JSON_ARR)
		error(MSG("bench.err-no-labs", "%s: not a dmalab results.json (no \"labs\" "
			  "list)"), path);
	else if (results_unfinished(d, path, err, sizeof(err)))
		error("%s", err);
	else
		return d;
	json_free(d);
	return NULL;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_total t = { 0 };
	const struct json *labs, *base_labs = NULL;
	struct json *d, *base = NULL;
	int labs_differ = 0;

	usage_set_help("dmalab bench");
	parse_bench(&o, argc, argv);
	d = load(o.path, &labs);
	if (!d)
		return 2;
	if (o.base_path && !(base = load(o.base_path, &base_labs))) {
		json_free(d);
		return 2;
	}
	if (base)
		labs_differ = warn_unlike(d, o.path, labs, base, o.base_path, base_labs);
	print_head(d, o.path, o.base_path != NULL);
	for (const struct json *lab = labs->child; lab; lab = lab->next)
		print_lab(lab, &o, base_labs, &t);
	print_foot(d, labs, base_labs, o.base_path != NULL, labs_differ, &t);
	json_free(base);
	json_free(d);
	return 0;
}
