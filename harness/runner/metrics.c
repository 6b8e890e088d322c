/*
 * metrics.c - `dmalab metrics [RESULTS.json] [--out FILE]`: one run's headline
 * figures and claim verdicts in the Prometheus text exposition format
 * (0.0.4), for node_exporter's textfile collector.  The run is read back by
 * compare's reader (cmp_node_load), so a metric and a compare report name the
 * same figures.  `dmalab check` and `run` write RESULTS/dmalab.prom with their
 * last results.json.  The file is written beside itself and renamed into
 * place: the collector never reads half of it.
 *
 * Labels: host; gpu_uuid and gpu_model of GPU 0, the GPU the labs use unless
 * --device says otherwise ("" on a machine without one); lab; and per series
 * the figure's key and unit, or the claim's id and one verdict word.  A
 * verdict is a state set: one series per verdict word, 1 for the claim's.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lang.h"
#include "runner.h"
#include "savefile.h"

struct metrics_opts {
	const char *in, *out;
};

static void metrics_usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab metrics [RESULTS.json] [--out FILE]\n"
		"  a run's headline figures and claim verdicts as Prometheus gauges (text\n"
		"  exposition format), for node_exporter's textfile collector\n"
		"  (--collector.textfile.directory); make check writes results/dmalab.prom\n"
		"options:\n"
		"  --out FILE   where to write it (default: standard output); written whole,\n"
		"               then renamed into place; never the results file read\n"
		"  -h, --help   this text\n"
		"exit: 0 written, 2 a missing or bad results file, or FILE not writable or\n"
		"      the results file itself\n");
}

static void parse_metrics(struct metrics_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "out", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct metrics_opts){ "results/results.json", NULL };
	opterr = 0;
	optind = 1; /* argv[0] is "metrics" */
	while ((c = next_option(argc, argv, ":ho:", longs)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'h': metrics_usage(stdout); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
	if (optind < argc)
		o->in = argv[optind++];
	if (optind < argc)
		die_usage(MSG("metrics.err-two-files", "'%s': metrics reads one results file"),
			  argv[optind]);
	if (o->out && !*o->out)
		die_usage(MSG("metrics.err-empty-out", "option '--out' needs a file name, got ''"));
	if (o->out && cmp_same_file(o->in, o->out))
		die_usage(MSG("metrics.err-out-is-run", "--out '%s' is the results file read: it "
			"would be overwritten"), o->out);
}

/* host, gpu_uuid, gpu_model and lab: the labels every series has. */
static void put_common(FILE *f, const struct cmp_node *n, const char *lab)
{
	prom_label(f, "host", n->host, 1);
	prom_label(f, "gpu_uuid", n->key.ngpus ? n->gpu[0].uuid : "", 0);
	prom_label(f, "gpu_model", n->key.ngpus ? n->gpu[0].name : "", 0);
	prom_label(f, "lab", lab, 0);
}

static void put_figures(FILE *f, const struct cmp_node *n, const char *name, int part)
{
	for (int i = 0; i < n->nfig; i++) {
		const struct cmp_figure *g = &n->fig[i];
		double v = part == 0 ? g->value : part == 1 ? g->lo : g->hi;
		char lab[8];

		if (!isfinite(v))
			continue;
		cmp_key_lab(g->key, lab, sizeof(lab));
		fprintf(f, "%s{", name);
		put_common(f, n, lab);
		prom_label(f, "figure", g->key, 0);
		prom_label(f, "unit", g->unit, 0);
		fprintf(f, "} %.9g\n", v);
	}
}

static void put_verdicts(FILE *f, const struct cmp_node *n)
{
	for (int i = 0; i < n->nclaim; i++) {
		char lab[8];

		cmp_key_lab(n->claim[i].id, lab, sizeof(lab));
		for (int v = 0; v < CMP_NVERDICTS; v++) {
			fputs("dmalab_claim_verdict{", f);
			put_common(f, n, lab);
			prom_label(f, "claim", n->claim[i].id, 0);
			prom_label(f, "verdict", cmp_verdict_word(v), 0);
			fprintf(f, "} %d\n", (int)n->claim[i].verdict == v);
		}
	}
}

static void write_metrics(FILE *f, const struct cmp_node *n)
{
	prom_head(f, "dmalab_figure", "A headline figure of the last dmalab run: a claim's "
		 "measured value or a lab's rate, time or ratio (label unit).");
	put_figures(f, n, "dmalab_figure", 0);
	prom_head(f, "dmalab_figure_low", "The low end of the figure's 95 % interval.");
	put_figures(f, n, "dmalab_figure_low", 1);
	prom_head(f, "dmalab_figure_high", "The high end of the figure's 95 % interval.");
	put_figures(f, n, "dmalab_figure_high", 2);
	prom_head(f, "dmalab_claim_verdict", "1 for the claim's verdict in the last dmalab run, "
		 "0 for the other verdict words (a state set).");
	put_verdicts(f, n);
	prom_head(f, "dmalab_run_quick", "1 when the last run used --quick (smaller sizes).");
	fprintf(f, "dmalab_run_quick{");
	prom_label(f, "host", n->host, 1);
	fprintf(f, "} %d\n", n->quick);
}

/* Written whole or not at all (savefile.h): 0, or an error line and -1. */
static int save(const char *path, const struct cmp_node *n)
{
	struct savefile out;
	FILE *f = savefile_open(&out, path);

	if (!f)
		return error_errno("--out '%s': cannot write", path);
	write_metrics(f, n);
	if (savefile_commit(&out))
		return error_errno("--out '%s': not written", path);
	return 0;
}

int metrics_save(const char *results_path, const char *out)
{
	struct cmp_node n;
	char err[PATH_MAX + 300];
	int rc = 0;

	if (cmp_node_load(results_path, &n, err, sizeof(err)))
		return error("%s", err);
	if (out)
		rc = save(out, &n);
	else
		write_metrics(stdout, &n);
	cmp_node_free(&n);
	return rc;
}

int cmd_metrics(int argc, char **argv)
{
	struct metrics_opts o;

	usage_set_help("dmalab metrics");
	parse_metrics(&o, argc, argv);
	return metrics_save(o.in, o.out) ? 2 : 0;
}
