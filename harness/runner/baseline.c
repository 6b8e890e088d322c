/*
 * baseline.c - `dmalab baseline RESULTS.json... --out FILE [--name NAME]`:
 * what several runs of one machine type measured, as one file
 * (dmalab-baseline/1, PROTOCOL.md 7) that `dmalab compare --baseline`
 * reads back.  The file holds data only: per figure n, median, min, max,
 * the extremes of the runs' intervals and the runs' values; the band
 * compare flags outside is its own rule (compare_ref.c, cmp_spread),
 * applied when it is read.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lang.h"
#include "learn.h"

static void baseline_usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab baseline RESULTS.json... --out FILE [--name NAME]\n"
		"  one baseline from several runs of one machine type (same GPU model, GPU\n"
		"  count and PCIe max link, or all without a GPU; all with --quick or all\n"
		"  without): per claim the verdicts seen, per headline figure n, median, min,\n"
		"  max, the runs' interval ends and each run's value, and the machine facts of\n"
		"  the runs; dmalab compare --baseline FILE sets nodes against it (the more\n"
		"  runs, the narrower its 95 %% prediction interval: use 5 to 10; each run\n"
		"  once, so one file twice, or two files of one run, is refused; so is an\n"
		"  aborted run, whose labs not run are no verdicts)\n"
		"options:\n"
		"  --out FILE     where to write it (JSON, dmalab-baseline/1)\n"
		"  --name NAME    its name in reports (default: the machine type)\n"
		"  -h, --help     this text\n"
		"exit: 0 written, 2 a missing or bad file, runs of different machine types,\n"
		"      a run given twice, an aborted run\n");
}

struct baseline_opts {
	const char *out, *name;
};

static void parse_baseline(struct baseline_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "out", required_argument, NULL, 'o' }, { "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1; /* argv[0] is "baseline" */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'n':
			if (!*optarg)
				die_usage(MSG("baseline.err-name",
					  "option '--name' needs a name, got ''"));
			o->name = optarg;
			break;
		case 'h': baseline_usage(stdout); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
	if (optind >= argc)
		die_usage(MSG("baseline.err-no-runs", "'baseline' needs results files, e.g. "
			"dmalab baseline run1.json run2.json run3.json --out baselines/h200.json"));
	if (!o->out || !*o->out)
		die_usage(MSG("baseline.err-no-out", "'baseline' needs --out FILE"));
	for (int i = optind; i < argc; i++) {
		if (cmp_same_file(argv[i], o->out))
			die_usage(MSG("baseline.err-out-is-run",
				"--out '%s' is one of the runs: it would be overwritten"), o->out);
		for (int k = optind; k < i; k++)
			if (cmp_same_file(argv[k], argv[i]))
				die_usage(MSG("baseline.err-same-file", "'%s' and '%s' are one "
					"file: a baseline counts each run once"), argv[k], argv[i]);
	}
}

/* Each run once: two files of one run (a copy: the same host and start)
 * would narrow the interval as if it had been measured twice; -1 when so. */
static int check_distinct_runs(const struct cmp_node *nodes, int n)
{
	for (int i = 1; i < n; i++) {
		const struct cmp_node *y = &nodes[i];

		for (const struct cmp_node *x = nodes; x < y; x++)
			if (y->started[0] && !strcmp(x->started, y->started) &&
			    !strcmp(x->host, y->host))
				return error(MSG("baseline.err-same-run", "'%s' and '%s' are one "
					"run (%s, started %s): a baseline counts each run once"),
					x->path, y->path, y->host, y->started);
	}
	return 0;
}

/* Whole runs only: an aborted run's labs not run would count as not_run in
 * the claims' majorities; -1 and a line naming it when one is. */
static int check_whole_runs(const struct cmp_node *nodes, int n)
{
	for (int i = 0; i < n; i++)
		if (nodes[i].aborted)
			return error(MSG("baseline.err-aborted", "'%s' is an aborted run (stopped "
				"before its end): a baseline takes whole runs; run the labs "
				"again"), nodes[i].path);
	return 0;
}

/* One machine type, one --quick: else a line naming both runs, -1. */
static int check_same_type(const struct cmp_node *nodes, int n)
{
	char a[200], b[200];

	for (int i = 1; i < n; i++) {
		const struct cmp_node *x = &nodes[0], *y = &nodes[i];

		cmp_key_text(&x->key, a, sizeof(a));
		cmp_key_text(&y->key, b, sizeof(b));
		if (!x->key.ngpus != !y->key.ngpus)
			return error("'%s' is %s, '%s' is %s: a baseline does not mix CPU-only "
				     "runs with GPU runs", x->path, a, y->path, b);
		if (!cmp_key_equal(&x->key, &y->key))
			return error("'%s' is %s, '%s' is %s: a baseline is of one machine type "
				     "(GPU model, count, PCIe max gen and width)", x->path, a,
				     y->path, b);
		if (x->quick != y->quick)
			return error("'%s' ran %s --quick, '%s' %s: a baseline does not mix them",
				     x->path, x->quick ? "with" : "without", y->path,
				     y->quick ? "with" : "without");
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Writing */

static void write_stats(struct json_writer *w, const struct cmp_ref_fig *f)
{
	jw_kstr(w, "unit", f->unit);
	jw_kint(w, "n", f->n);
	jw_knum(w, "median", f->median);
	jw_knum(w, "min", f->min);
	jw_knum(w, "max", f->max);
	/* every run's value, so that a later rule can use more than n, median,
	 * min and max (compare's prediction interval needs the mean and the
	 * standard deviation of their logarithms) */
	jw_karr(w, "values");
	for (int i = 0; i < f->nvalues; i++)
		jw_num(w, f->values[i]);
	jw_arr_end(w);
	if (!f->has_interval)
		return; /* the interval ends only where a run had one */
	jw_knum(w, "got_lo_min", f->lo_min);
	jw_knum(w, "got_hi_max", f->hi_max);
}

static void write_runs(struct json_writer *w, const struct cmp_node *nodes, int n)
{
	jw_karr(w, "runs");
	for (int i = 0; i < n; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "path", nodes[i].path);
		jw_kstr(w, "started", nodes[i].started);
		jw_kstr(w, "hostname", nodes[i].host);
		jw_kstr(w, "dmalab", nodes[i].version);
		jw_kbool(w, "quick", nodes[i].quick);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void write_machine(struct json_writer *w, const struct cmp_ref *r)
{
	jw_kobj(w, "machine");
	for (int i = 0; i < r->nfact; i++) {
		jw_kobj(w, r->fact[i].name);
		for (int v = 0; v < r->fact[i].nvalues; v++)
			jw_kint(w, r->fact[i].value[v], r->fact[i].count[v]);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void write_claims(struct json_writer *w, const struct cmp_ref *r)
{
	jw_karr(w, "claims");
	for (int i = 0; i < r->nclaim; i++) {
		const struct cmp_ref_fig *f = cmp_ref_figure(r, r->claim[i].id);

		jw_obj_begin(w);
		jw_kstr(w, "id", r->claim[i].id);
		jw_kobj(w, "verdicts");
		for (int v = 0; v < CMP_NVERDICTS; v++)
			if (r->claim[i].count[v])
				jw_kint(w, cmp_verdict_word(v), r->claim[i].count[v]);
		jw_obj_end(w);
		jw_kstr(w, "majority", cmp_verdict_word(r->claim[i].majority));
		if (f)
			write_stats(w, f);
		else
			jw_kint(w, "n", 0);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void write_baseline(struct json_writer *w, const struct cmp_ref *r,
			   const struct cmp_node *nodes, int n)
{
	char now[32];

	learn_iso_now(now, sizeof(now));
	jw_obj_begin(w);
	jw_kstr(w, "schema", "dmalab-baseline/1");
	jw_kstr(w, "name", r->name);
	jw_kstr(w, "created", now);
	jw_kobj(w, "dmalab");
	jw_kstr(w, "version", DMALAB_VERSION);
	jw_obj_end(w);
	cmp_write_key(w, &r->key, r->quick);
	write_runs(w, nodes, n);
	write_machine(w, r);
	write_claims(w, r);
	jw_karr(w, "figures");
	for (int i = 0; i < r->nfig; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "key", r->fig[i].key);
		write_stats(w, &r->fig[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static int make_baseline(const struct baseline_opts *o, struct cmp_node *nodes, int n)
{
	struct cmp_node **list = cmp_calloc((size_t)n, sizeof(*list));
	struct json_writer w;
	struct cmp_ref r;
	int i, rc = 0;

	for (i = 0; i < n; i++)
		list[i] = &nodes[i];
	cmp_ref_build(&r, list, n, CMP_SPREAD_RUNS);
	if (o->name)
		snprintf(r.name, sizeof(r.name), "%s", o->name);
	else
		cmp_key_text(&r.key, r.name, sizeof(r.name));
	jw_init(&w, 1);
	write_baseline(&w, &r, nodes, n);
	if (w.failed)
		rc = error("out of memory writing '%s'", o->out);
	else if (jw_write_file(&w, o->out))
		rc = error_errno("cannot write '%s'", o->out);
	else
		printf("baseline: wrote %s ('%s': %d run%s, %d figures, %d claims)\n", o->out,
		       r.name, n, n == 1 ? "" : "s", r.nfig, r.nclaim);
	jw_release(&w);
	cmp_ref_free(&r);
	free(list);
	return rc;
}

int cmd_baseline(int argc, char **argv)
{
	struct baseline_opts o;
	struct cmp_node *nodes;
	char err[600];
	int i, n = 0, rc = 2;

	usage_set_help("dmalab baseline");
	parse_baseline(&o, argc, argv);
	nodes = cmp_calloc((size_t)(argc - optind), sizeof(*nodes));
	for (i = optind; i < argc; i++, n++)
		if (cmp_node_load(argv[i], &nodes[n], err, sizeof(err))) {
			error("%s", err);
			break;
		}
	if (i == argc && !check_whole_runs(nodes, n) && !check_distinct_runs(nodes, n) &&
	    !check_same_type(nodes, n) && !make_baseline(&o, nodes, n))
		rc = 0;
	for (i = 0; i < n; i++)
		cmp_node_free(&nodes[i]);
	free(nodes);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Reading */

static int load_key(struct cmp_ref *r, const struct json *doc)
{
	const struct json *k = json_get(doc, "key");

	if (!k || k->type != JSON_OBJ || !json_get_str(k, "gpu", NULL))
		return -1;
	snprintf(r->key.gpu, sizeof(r->key.gpu), "%s", json_get_str(k, "gpu", ""));
	r->key.ngpus = (int)json_get_num(k, "gpus", 0);
	r->key.gen = (int)json_get_num(k, "pcie_gen_max", 0);
	r->key.width = (int)json_get_num(k, "pcie_width_max", 0);
	r->quick = json_get_num(doc, "quick", 0) != 0;
	return 0;
}

static void load_facts(struct cmp_ref *r, const struct json *machine)
{
	const struct json *f, *v;

	for (f = machine && machine->type == JSON_OBJ ? machine->child : NULL;
	     f && r->nfact < CMP_MAX_FACTS; f = f->next) {
		struct cmp_ref_fact *rf = &r->fact[r->nfact++];

		snprintf(rf->name, sizeof(rf->name), "%s", f->key);
		for (v = f->type == JSON_OBJ ? f->child : NULL; v && rf->nvalues < CMP_FACT_VALUES;
		     v = v->next) {
			snprintf(rf->value[rf->nvalues], sizeof(rf->value[0]), "%s", v->key);
			rf->count[rf->nvalues] = v->type == JSON_NUM ? (int)v->num : 0;
			if (rf->count[rf->nvalues] > rf->count[rf->majority])
				rf->majority = rf->nvalues;
			rf->nvalues++;
		}
	}
}

static int load_claims(struct cmp_ref *r, const struct json *claims)
{
	const struct json *c, *v;

	for (c = claims->child; c; c = c->next) {
		struct cmp_ref_claim *rc = &r->claim[r->nclaim];

		if (!json_get_str(c, "id", NULL))
			return -1;
		snprintf(rc->id, sizeof(rc->id), "%s", json_get_str(c, "id", ""));
		for (v = json_get(c, "verdicts") ? json_get(c, "verdicts")->child : NULL; v;
		     v = v->next)
			if (cmp_verdict_parse(v->key) < CMP_NVERDICTS && v->type == JSON_NUM)
				rc->count[cmp_verdict_parse(v->key)] = (int)v->num;
		rc->majority = cmp_majority(rc->count);
		r->nclaim++;
	}
	return 0;
}

/* A figure's "values" (absent in files written before they were kept: f
 * keeps none).  0, or -1 when they are not an array of numbers. */
static int load_values(struct cmp_ref_fig *f, const struct json *values)
{
	if (!values)
		return 0;
	if (values->type != JSON_ARR)
		return -1;
	f->values = cmp_calloc(values->count, sizeof(*f->values));
	for (const struct json *v = values->child; v; v = v->next) {
		if (v->type != JSON_NUM || !isfinite(v->num))
			return -1;
		f->values[f->nvalues++] = v->num;
	}
	return 0;
}

static int load_figures(struct cmp_ref *r, const struct json *figs)
{
	for (const struct json *e = figs->child; e; e = e->next) {
		struct cmp_ref_fig *f = &r->fig[r->nfig];
		double median = json_get_num(e, "median", NAN);

		if (!json_get_str(e, "key", NULL))
			return -1;
		if (!isfinite(median))
			continue; /* a figure no run measured */
		snprintf(f->key, sizeof(f->key), "%s", json_get_str(e, "key", ""));
		snprintf(f->unit, sizeof(f->unit), "%s", json_get_str(e, "unit", ""));
		f->n = (int)json_get_num(e, "n", 1);
		f->median = median;
		f->min = json_get_num(e, "min", median);
		f->max = json_get_num(e, "max", median);
		f->has_interval = json_get(e, "got_lo_min") || json_get(e, "got_hi_max");
		f->lo_min = json_get_num(e, "got_lo_min", f->min);
		f->hi_max = json_get_num(e, "got_hi_max", f->max);
		r->nfig++; /* first: cmp_ref_free frees its values on an error */
		if (load_values(f, json_get(e, "values")))
			return -1;
		cmp_spread(f, CMP_SPREAD_RUNS);
	}
	return 0;
}

static int load_arrays(struct cmp_ref *r, const struct json *doc)
{
	const struct json *claims = json_get(doc, "claims"), *figs = json_get(doc, "figures");
	const struct json *runs = json_get(doc, "runs");

	if (!claims || claims->type != JSON_ARR || !figs || figs->type != JSON_ARR)
		return -1;
	r->nruns = runs && runs->type == JSON_ARR ? (int)runs->count : 0;
	r->claim = cmp_calloc(claims->count, sizeof(*r->claim));
	r->fig = cmp_calloc(figs->count, sizeof(*r->fig));
	r->fact = cmp_calloc(CMP_MAX_FACTS, sizeof(*r->fact));
	load_facts(r, json_get(doc, "machine"));
	return load_claims(r, claims) || load_figures(r, figs) ? -1 : 0;
}

/* A results.json given as the baseline: a baseline of that one run. */
static int baseline_of_run(const char *path, struct cmp_ref *r, char *err, size_t errlen)
{
	struct cmp_node n;
	struct cmp_node *list[1] = { &n };

	if (cmp_node_load(path, &n, err, errlen))
		return -1;
	cmp_ref_build(r, list, 1, CMP_SPREAD_RUNS);
	snprintf(r->name, sizeof(r->name), "%.90s of %.24s", n.host, n.started);
	cmp_node_free(&n);
	return 0;
}

int cmp_baseline_load(const char *path, struct cmp_ref *r, char *err, size_t errlen)
{
	struct json *doc;
	char why[400];
	int rc;

	memset(r, 0, sizeof(*r));
	doc = json_parse_file(path, why, sizeof(why));
	if (!doc) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (!strcmp(json_get_str(doc, "schema", ""), "dmalab-results/1")) {
		json_free(doc);
		rc = baseline_of_run(path, r, err, errlen);
		snprintf(r->path, sizeof(r->path), "%s", path);
		return rc;
	}
	if (strcmp(json_get_str(doc, "schema", ""), "dmalab-baseline/1") || load_key(r, doc) ||
	    load_arrays(r, doc)) {
		snprintf(err, errlen, "%s: not a dmalab-baseline/1 document or a results.json "
			 "(make one with dmalab baseline)", path);
		json_free(doc);
		cmp_ref_free(r);
		return -1;
	}
	r->word = "the baseline";
	r->min_n = 1;
	snprintf(r->name, sizeof(r->name), "%s", json_get_str(doc, "name", path));
	snprintf(r->path, sizeof(r->path), "%s", path);
	json_free(doc);
	cmp_ref_sort(r);
	return 0;
}
