/*
 * history.c - `dmalab history PATH... [--min-runs N] [--all] [--json FILE]`:
 * each GPU's latest run against the band of its own earlier runs (README.md,
 * "History per GPU").  The band is compare's (cmp_spread: the prediction
 * interval, at least CMP_SPREAD_FLOOR); --quick runs are a separate series.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "lang.h"
#include "runner.h"
#include "sizes.h"
#include "want.h"

#define HIST_MIN_RUNS 4 /* the latest and 3 earlier: cmp_prediction needs 2, t(2) is wide */

struct hist_opts {
	int min_runs, all;
	const char *json_out;
};

/* One GPU's runs (one --quick), oldest first. */
struct hist_gpu {
	char id[300];            /* GPU 0's UUID, or the host; " (quick)" */
	struct cmp_node **run;
	int nrun;
	int nflagged;
};

struct hist_figure {
	const char *key, *unit;
	double *value;           /* per run; NaN where a run lacks it */
	double lo, hi;           /* the band from the earlier runs; NaN: too few */
	const char *verdict;     /* "low", "high" (bad), "moved" (a note), NULL inside */
};

static void history_usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab history PATH... [--min-runs N] [--all] [--json FILE]\n"
		"  the kept results.json files (PATH: files, or folders: their *.json and\n"
		"  */results.json, the runs dmalab class reads there)\n"
		"  per GPU (GPU 0's UUID; per host where a run names none: no GPU, or no UUID\n"
		"  recorded), each headline figure over time, and every GPU whose latest run\n"
		"  is outside its own earlier runs' 95 %% prediction interval (at least +-2 %%\n"
		"  of their median) in the bad direction\n"
		"options:\n"
		"  --min-runs N   runs a GPU needs before it is judged (default %d, at least 3)\n"
		"  --all          print every figure's series, not only those that moved\n"
		"  --json FILE    also write the series and the verdicts (dmalab-history/1);\n"
		"                 never over one of the runs it reads (refused, exit 2)\n"
		"  -h, --help     this text\n"
		"exit: 0 no GPU flagged, 1 a GPU flagged, 2 a missing or bad file, usage\n",
		HIST_MIN_RUNS);
}

static void parse_history(struct hist_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "min-runs", required_argument, NULL, 'n' }, { "all", no_argument, NULL, 'a' },
		{ "json", required_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long n;
	int c;

	*o = (struct hist_opts){ HIST_MIN_RUNS, 0, NULL };
	opterr = 0;
	optind = 1; /* argv[0] is "history" */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		switch (c) {
		case 'n':
			if (lab_parse_long(optarg, 3, 10000, &n) < 0)
				die_usage(MSG("history.err-min-runs",
					"--min-runs '%s': want a whole number from 3 to 10000"),
					  optarg);
			o->min_runs = (int)n;
			break;
		case 'a': o->all = 1; break;
		case 'j': o->json_out = optarg; break;
		case 'h': history_usage(stdout); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
	if (optind >= argc)
		die_usage(MSG("history.err-no-paths", "'history' needs results files or folders, "
			"e.g. dmalab history runs/node07/"));
}

/* ---- Reading ------------------------------------------------------------ */

/* A file named, or the runs of a folder as dmalab class reads them. */
static int add_path(glob_t *g, const char *path, int *appended)
{
	struct stat st;
	int rc;

	if (stat(path, &st) < 0)
		return error_errno("'%s'", path);
	if (S_ISDIR(st.st_mode))
		rc = cmp_folder_runs(path, g, *appended);
	else
		rc = glob(path, *appended ? GLOB_APPEND : 0, NULL, g) == GLOB_NOSPACE ? -1 : 0;
	if (rc)
		return error("'%s': out of memory", path);
	*appended = 1;
	return 0;
}

/* 1 when a run is grouped by its GPU (GPU 0's UUID), 0 by its host (no GPU,
 * or a record without its UUID). */
static int by_gpu(const struct cmp_node *n)
{
	return n->key.ngpus && n->gpu[0].uuid[0];
}

/* The group a run belongs to: its GPU, or its host; --quick apart. */
static void run_id(const struct cmp_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", by_gpu(n) ? n->gpu[0].uuid : n->host,
		 n->quick ? " (quick)" : "");
}

static struct hist_gpu *group_of(struct hist_gpu **g, int *ng, const char *id)
{
	for (int i = 0; i < *ng; i++)
		if (!strcmp((*g)[i].id, id))
			return &(*g)[i];
	*g = cmp_realloc(*g, (size_t)*ng, sizeof(**g));
	memset(&(*g)[*ng], 0, sizeof(**g));
	snprintf((*g)[*ng].id, sizeof((*g)[*ng].id), "%s", id);
	return &(*g)[(*ng)++];
}

static int by_start(const void *a, const void *b)
{
	const struct cmp_node *x = *(struct cmp_node *const *)a, *y = *(struct cmp_node *const *)b;
	int c = strcmp(x->started, y->started);

	return c ? c : strcmp(x->path, y->path);
}

/* Each run once: a copy of the latest run in a second file (results/results.json and
 * the folder it was kept in) would be an earlier run of its own, and the band around
 * it would hold it.  A copy (the same host and start as the run before it) is passed
 * over, said on stderr. */
static void drop_copies(struct hist_gpu *h)
{
	int k = 0;

	for (int i = 0; i < h->nrun; i++) {
		const struct cmp_node *x = k ? h->run[k - 1] : NULL;
		struct cmp_node *y = h->run[i];

		if (x && y->started[0] && !strcmp(x->started, y->started) &&
		    !strcmp(x->host, y->host))
			error(MSG("history.skip-copy", "skipping '%s': the same run as '%s' (%s, "
				  "started %s): each run counts once"), y->path, x->path, y->host,
			      y->started);
		else
			h->run[k++] = y;
	}
	h->nrun = k;
}

/* 1 when path was named on the command line, not found in a folder. */
static int named(char **paths, int npaths, const char *path)
{
	for (int i = 0; i < npaths; i++)
		if (!strcmp(paths[i], path))
			return 1;
	return 0;
}

/* Every file read into nodes and grouped.  A file named that is no
 * results.json is an error (exit 2), so that a typo does not shrink a history
 * silently; in a folder such files (a fleet's fleet.json, a broken or
 * unfinished run) are passed over, each said on stderr as dmalab class says it. */
static int load_groups(char **paths, int npaths, const char *json_out, struct cmp_node **nodes,
		       int *nnodes, struct hist_gpu **g, int *ng)
{
	char err[PATH_MAX + 300], id[sizeof(((struct hist_gpu *)0)->id)];
	glob_t gl = { 0 };
	int appended = 0, rc = 0;

	for (int i = 0; i < npaths && !rc; i++)
		rc = add_path(&gl, paths[i], &appended);
	*nodes = rc ? NULL : cmp_calloc(gl.gl_pathc, sizeof(**nodes));
	for (size_t i = 0; !rc && i < gl.gl_pathc; i++) {
		const char *path = gl.gl_pathv[i];
		int n = *nnodes;

		if (!named(paths, npaths, path))
			*nnodes += !cmp_folder_run_load(path, &(*nodes)[*nnodes], NULL);
		else if (cmp_node_load(path, &(*nodes)[*nnodes], err, sizeof(err)) == 0)
			(*nnodes)++;
		else
			rc = error("%s", err);
		/* a run read, and the report written over it (an earlier report is no run) */
		if (*nnodes > n && json_out && cmp_same_file(path, json_out))
			die_usage(MSG("history.err-json-is-run", "--json '%s' is one of the runs "
				"read: it would be overwritten"), json_out);
	}
	if (!rc && !*nnodes)
		rc = error("no results files in %s%s", paths[0], npaths > 1 ? " ..." : "");
	globfree(&gl);
	for (int i = 0; !rc && i < *nnodes; i++) {
		struct hist_gpu *h;

		run_id(&(*nodes)[i], id, sizeof(id));
		h = group_of(g, ng, id);
		h->run = cmp_realloc(h->run, (size_t)h->nrun, sizeof(*h->run));
		h->run[h->nrun++] = &(*nodes)[i];
	}
	for (int i = 0; !rc && i < *ng; i++) {
		qsort((*g)[i].run, (size_t)(*g)[i].nrun, sizeof(*(*g)[i].run), by_start);
		drop_copies(&(*g)[i]);
	}
	return rc ? -1 : 0;
}

/* ---- Judging ------------------------------------------------------------ */

/* f's series over h's runs, and its verdict on the latest run: outside the
 * band of the earlier runs' values (compare's for a baseline's runs). */
static void judge_figure(const struct hist_gpu *h, const struct hist_opts *o,
			 struct hist_figure *f)
{
	double *v = cmp_calloc(2 * (size_t)h->nrun, sizeof(*v)), last = f->value[h->nrun - 1];
	struct cmp_ref_fig band = { .values = v, .lo_min = INFINITY, .hi_max = -INFINITY };
	enum cmp_bad dir = cmp_bad_dir(f->unit);

	for (int i = 0; i < h->nrun - 1; i++)
		if (isfinite(f->value[i]))
			v[band.nvalues++] = f->value[i];
	f->lo = f->hi = NAN;
	f->verdict = NULL;
	if (band.nvalues + 1 >= o->min_runs && isfinite(last)) {
		memcpy(v + h->nrun, v, (size_t)band.nvalues * sizeof(*v));
		band.median = lab_median(v + h->nrun, band.nvalues); /* sorts the copy */
		cmp_spread(&band, CMP_SPREAD_RUNS);
		if (isfinite(band.pred_lo)) { /* else too few values: no band */
			f->lo = band.spread_lo;
			f->hi = band.spread_hi;
		}
	}
	free(v);
	if (!(last < f->lo || last > f->hi))
		return; /* inside, or no band */
	if (dir == CMP_BAD_LOW && last < f->lo)
		f->verdict = "low";
	else if (dir == CMP_BAD_HIGH && last > f->hi)
		f->verdict = "high";
	else
		f->verdict = "moved";
}

/* The figures of h's latest run, each with its series over h's runs. */
static struct hist_figure *figures_of(const struct hist_gpu *h, const struct hist_opts *o,
				      int *nf)
{
	const struct cmp_node *latest = h->run[h->nrun - 1];
	struct hist_figure *f = cmp_calloc((size_t)latest->nfig, sizeof(*f));

	for (int k = 0; k < latest->nfig; k++) {
		f[k].key = latest->fig[k].key;
		f[k].unit = latest->fig[k].unit;
		f[k].value = cmp_calloc((size_t)h->nrun, sizeof(double));
		for (int i = 0; i < h->nrun; i++) {
			const struct cmp_figure *g = cmp_node_figure(h->run[i], f[k].key);

			f[k].value[i] = g ? g->value : NAN;
		}
		judge_figure(h, o, &f[k]);
	}
	*nf = latest->nfig;
	return f;
}

/* ---- Output ------------------------------------------------------------- */

static void print_series(const struct hist_gpu *h, const struct hist_figure *f)
{
	const struct cmp_figure *g = cmp_node_figure(h->run[h->nrun - 1], f->key);

	printf("  %-28s %s", f->key, f->verdict ? f->verdict : "ok");
	for (int i = 0; i < h->nrun; i++)
		printf(" %.4g", f->value[i]);
	printf(" %s", f->unit);
	if (g && isfinite(g->lo))
		printf(" (latest's interval [%.4g, %.4g])", g->lo, g->hi);
	if (isfinite(f->lo))
		printf("; earlier runs' band [%.4g, %.4g]", f->lo, f->hi);
	putchar('\n');
}

static void print_gpu(struct hist_gpu *h, const struct hist_figure *f, int nf,
		      const struct hist_opts *o)
{
	const struct cmp_node *first = h->run[0], *latest = h->run[h->nrun - 1];

	for (int k = 0; k < nf; k++)
		h->nflagged += f[k].verdict && strcmp(f[k].verdict, "moved");
	printf("%s: %s on %s, %d run%s from %s to %s: %s\n", h->id,
	       latest->key.ngpus ? latest->gpu[0].name : "no GPU", latest->host, h->nrun,
	       h->nrun == 1 ? "" : "s", first->started, latest->started,
	       h->nrun < o->min_runs ? "too few runs to judge" :
	       h->nflagged ? "FLAGGED: the latest run left its own band" : "ok");
	for (int k = 0; k < nf; k++)
		if (o->all || f[k].verdict)
			print_series(h, &f[k]);
}

static void write_gpu_json(struct json_writer *w, const struct hist_gpu *h,
			   const struct hist_figure *f, int nf)
{
	jw_obj_begin(w);
	jw_kstr(w, "id", h->id);
	jw_kstr(w, "host", h->run[h->nrun - 1]->host);
	jw_kstr(w, "status", h->nflagged ? "flagged" : "ok");
	jw_karr(w, "runs");
	for (int i = 0; i < h->nrun; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "path", h->run[i]->path);
		jw_kstr(w, "started", h->run[i]->started);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_karr(w, "figures");
	for (int k = 0; k < nf; k++) {
		jw_obj_begin(w);
		jw_kstr(w, "key", f[k].key);
		jw_kstr(w, "unit", f[k].unit);
		jw_karr(w, "values");
		for (int i = 0; i < h->nrun; i++)
			jw_num(w, f[k].value[i]);
		jw_arr_end(w);
		jw_knum(w, "band_lo", f[k].lo);
		jw_knum(w, "band_hi", f[k].hi);
		jw_kstr(w, "verdict", f[k].verdict ? f[k].verdict : "ok");
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* The last line: the groups by what they are, GPUs, and hosts where no GPU
 * UUID named one (history: 1 host (no GPU UUID), 0 flagged). */
static void print_total(const struct hist_gpu *g, int ng, int flagged)
{
	int hosts = 0;

	for (int i = 0; i < ng; i++)
		hosts += !by_gpu(g[i].run[0]);
	printf("history: ");
	if (ng > hosts)
		printf("%d GPU%s%s", ng - hosts, ng - hosts == 1 ? "" : "s", hosts ? " and " : "");
	if (hosts)
		printf("%d host%s (no GPU UUID)", hosts, hosts == 1 ? "" : "s");
	printf(", %d flagged\n", flagged);
}

static void free_figures(struct hist_figure *f, int nf)
{
	for (int k = 0; k < nf; k++)
		free(f[k].value);
	free(f);
}

int cmd_history(int argc, char **argv)
{
	struct hist_opts o;
	struct cmp_node *nodes = NULL;
	struct hist_gpu *g = NULL;
	struct json_writer w;
	int nnodes = 0, ng = 0, flagged = 0, rc = 0;

	usage_set_help("dmalab history");
	parse_history(&o, argc, argv);
	if (load_groups(argv + optind, argc - optind, o.json_out, &nodes, &nnodes, &g, &ng) < 0)
		rc = 2;
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-history/1");
	jw_karr(&w, "gpus");
	for (int i = 0; !rc && i < ng; i++) {
		int nf;
		struct hist_figure *f = figures_of(&g[i], &o, &nf);

		print_gpu(&g[i], f, nf, &o);
		flagged += g[i].nflagged > 0;
		write_gpu_json(&w, &g[i], f, nf);
		free_figures(f, nf);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	if (!rc)
		print_total(g, ng, flagged);
	if (!rc && o.json_out && (w.failed || jw_write_file(&w, o.json_out) != 0)) {
		error_errno("--json '%s': not written", o.json_out);
		rc = 2;
	}
	jw_release(&w);
	for (int i = 0; i < ng; i++)
		free(g[i].run);
	for (int i = 0; i < nnodes; i++)
		cmp_node_free(&nodes[i]);
	free(nodes);
	free(g);
	return rc ? rc : flagged ? 1 : 0;
}
