/*
 * compare.c - `dmalab compare RESULTS.json... [--baseline FILE] [--pct P]
 * [--either] [--notes] [--format human|json] [--json-out FILE] [--html-out
 * FILE]`: each node (one results file) against a baseline, or against the
 * fleet, the other nodes of its match key; the judging rules are in compare.h.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "lang.h"
#include "usage.h"

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab compare RESULTS.json... [--baseline FILE] [--pct P] [--either]\n"
		"                      [--notes] [--format human|json] [--json-out FILE]\n"
		"                      [--html-out FILE]\n"
		"  each results file is one node; it is set against the baseline (made by\n"
		"  dmalab baseline from runs of one machine type), or without one against the\n"
		"  fleet: the nodes of the same GPU model, GPU count and PCIe max link (and\n"
		"  --quick), at least %d of them\n"
		"  a figure is an item when it is outside the spread and more than P %% from\n"
		"  the median (--either: or):\n"
		"    fleet spread:    median +- 3 x 1.4826 x MAD of the nodes' values\n"
		"    baseline spread: its runs' 95 %% prediction interval for one new run (on\n"
		"                     ln(value) when all are > 0), widened to [lowest got_lo\n"
		"                     (or got), highest got_hi (or got)] of the runs; of one\n"
		"                     run that range alone\n"
		"    either is at least +- %.0f %% of the median\n"
		"  a claim is an item when its verdict differs from the reference's majority\n"
		"  an item is bad when a rate (GB/s, TFLOP/s) is low, a time (ns .. s, ms/GiB)\n"
		"  high, or a verdict worse (fail, error, not run where the majority passed or\n"
		"  was the known erratum); every other item is a note: a figure that got\n"
		"  better, one of a unit with no bad direction (x, %%, fraction, counts), a\n"
		"  verdict that changed otherwise.  A node with a bad item is flagged; notes\n"
		"  never flag one, and are in the JSON (\"bad\": false)\n"
		"options:\n"
		"  --baseline FILE   compare against this baseline (dmalab-baseline/1), or\n"
		"                    against one earlier run (a results.json)\n"
		"  --pct P           percent from the median a figure must move (default %.0f)\n"
		"  --either          a figure outside the spread OR beyond P %% is an item\n"
		"                    (default: both; a narrow spread of few runs flags noise)\n"
		"  --notes           list a flagged node's notes too, after its bad items\n"
		"  --format FMT      human (default) or json on stdout\n"
		"  --json-out FILE   also write the JSON report (dmalab-compare/1) to FILE\n"
		"  --html-out FILE   also write the fleet page to FILE: one HTML file, bad nodes\n"
		"                    first; with the missing nodes of FILE's folder's\n"
		"                    jobs/fleet-nodes.json when make fleet wrote one\n"
		"  --allow-unjudged  with no baseline and fewer than %d nodes of any type,\n"
		"                    report every node unjudged and exit 0 (make fleet's merge)\n"
		"  -h, --help        this text\n"
		"exit: 0 no node flagged (notes do not count), 1 a node flagged, 2 could not\n"
		"      run (a missing or bad file, a node whose machine type differs from the\n"
		"      baseline's, nothing to compare against without --allow-unjudged)\n",
		CMP_MIN_FLEET, 100 * CMP_SPREAD_FLOOR, CMP_PCT_DEFAULT, CMP_MIN_FLEET);
}

static double parse_pct(const char *s)
{
	double v;

	if (parse_real(s, &v) < 0 || v <= 0 || v > 1000)
		die_usage(MSG("compare.err-pct",
			"bad --pct '%s' (want a number above 0, at most 1000)"), s);
	return v;
}

static void parse_compare(struct cmp_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "pct", required_argument, NULL, 'p' },
		{ "either", no_argument, NULL, 'e' }, { "notes", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "json-out", required_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "html-out", required_argument, NULL, 'H' },
		{ "allow-unjudged", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->pct = CMP_PCT_DEFAULT;
	opterr = 0;
	optind = 1; /* argv[0] is "compare" */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		switch (c) {
		case 'b': o->baseline = optarg; break;
		case 'p': o->pct = parse_pct(optarg); break;
		case 'e': o->either = 1; break;
		case 'n': o->notes = 1; break;
		case 'f':
			if (strcmp(optarg, "human") && strcmp(optarg, "json"))
				die_usage(MSG("compare.err-format",
					"bad --format '%s' (want human or json)"), optarg);
			o->json = !strcmp(optarg, "json");
			break;
		case 'j': o->json_out = optarg; break;
		case 'H': o->html_out = optarg; break;
		case 'u': o->allow_unjudged = 1; break;
		case 'h': compare_usage(stdout); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
	if (optind >= argc)
		die_usage(MSG("compare.err-no-runs", "'compare' needs at least one results file, "
			"e.g. dmalab compare results/results.json --baseline baselines/h200.json"));
	for (int i = optind; o->html_out && i < argc; i++)
		if (cmp_same_file(argv[i], o->html_out))
			die_usage(MSG("compare.err-html-is-run",
				"--html-out '%s' is one of the results files: it would be "
				"overwritten"), o->html_out);
	if (o->baseline && o->json_out && cmp_same_file(o->baseline, o->json_out))
		die_usage(MSG("compare.err-out-is-base", "%s '%s' is the baseline: it "
			"would be overwritten"), "--json-out", o->json_out);
	if (o->baseline && o->html_out && cmp_same_file(o->baseline, o->html_out))
		die_usage(MSG("compare.err-out-is-base", "%s '%s' is the baseline: it "
			"would be overwritten"), "--html-out", o->html_out);
}

/* ------------------------------------------------------------------------ */
/* Judging one node */

static struct cmp_item *new_item(struct cmp_result *res, const char *key)
{
	struct cmp_item *it = &res->item[res->nitem++];

	memset(it, 0, sizeof(*it));
	snprintf(it->key, sizeof(it->key), "%s", key);
	cmp_key_lab(key, it->lab, sizeof(it->lab));
	it->pct = NAN;
	return it;
}

/*
 * The rank of a moved figure within its part (bad items sort before notes,
 * by_severity).  By |ln(value / median)|, so that a rate 30 % low and the
 * time 43 % high it makes weigh the same.  A verdict that broke counts as a
 * figure 10 % off.
 */
static double figure_severity(const struct cmp_item *it)
{
	double r = it->value / it->median;
	double size = isfinite(r) && r > 0 ? fabs(log(r)) : fabs(it->pct) / 100;

	size = isfinite(size) ? fmin(size, 1e6) : 0;
	return it->bad ? 100 + 100 * size : size;
}

/*
 * Whether a figure moved.  Both tests by default: the spread of three runs
 * of a quiet machine is a few percent wide, and P % alone fires on figures
 * that vary that much from run to run; an H200's healthy fourth run had 38
 * of its 117 figures outside the spread or beyond 10 %, mostly by a little,
 * and 16 outside and beyond (README.md, "Compare and baselines").  Without a
 * percent (a median of 0) the spread alone decides.
 */
static int figure_moved(int outside, int beyond, double pct, int either)
{
	if (either)
		return outside || beyond;
	return outside && (beyond || !isfinite(pct));
}

static void judge_figure(struct cmp_result *res, const struct cmp_figure *f,
			 const struct cmp_ref *ref, double pct_limit, int either)
{
	const struct cmp_ref_fig *rf = cmp_ref_figure(ref, f->key);
	double pct;
	int outside, beyond;
	enum cmp_bad dir;
	struct cmp_item *it;

	if (!rf || rf->n < ref->min_n)
		return;
	pct = cmp_pct_off(f->value, rf->median);
	outside = f->value < rf->spread_lo || f->value > rf->spread_hi;
	beyond = isfinite(pct) && fabs(pct) > pct_limit;
	if (!figure_moved(outside, beyond, pct, either))
		return;
	it = new_item(res, f->key);
	snprintf(it->unit, sizeof(it->unit), "%s", f->unit);
	it->value = f->value;
	it->median = rf->median;
	it->spread_lo = rf->spread_lo;
	it->spread_hi = rf->spread_hi;
	it->pct = pct;
	it->outside = outside;
	it->beyond_pct = beyond;
	it->low = f->value < rf->median;
	dir = cmp_bad_dir(f->unit);
	/* a ratio of two figures (x), a share (%): its claim says which way is
	 * good, not its unit; the figures it divides are judged themselves */
	it->bad = dir != CMP_BAD_NONE && (dir == CMP_BAD_LOW) == it->low;
	it->severity = figure_severity(it);
}

static void judge_claim(struct cmp_result *res, const struct cmp_claim *c,
			const struct cmp_ref *ref)
{
	const struct cmp_ref_claim *rc = cmp_ref_claim_find(ref, c->id);
	const char *change;
	struct cmp_item *it;

	if (!rc || rc->majority == CMP_NVERDICTS)
		return;
	change = cmp_verdict_change(c->verdict, rc->majority);
	if (!change)
		return;
	it = new_item(res, c->id);
	it->is_verdict = 1;
	it->verdict = c->verdict;
	it->ref_verdict = rc->majority;
	it->change = change;
	it->bad = !strcmp(change, "worse");
	it->severity = it->bad ? 110 : !strcmp(change, "changed") ? 50 : 1;
}

/* Bad items first, each part worst first; equal ones by key, so that the
 * order never depends on qsort. */
static int by_severity(const void *a, const void *b)
{
	const struct cmp_item *p = a, *q = b;

	if (p->bad != q->bad)
		return q->bad - p->bad;
	if (p->severity != q->severity)
		return (p->severity < q->severity) - (p->severity > q->severity);
	return strcmp(p->key, q->key) ? strcmp(p->key, q->key) : p->is_verdict - q->is_verdict;
}

void cmp_judge(struct cmp_node *n, const struct cmp_ref *ref, double pct, int either,
	       struct cmp_result *res)
{
	memset(res, 0, sizeof(*res));
	res->node = n;
	res->ref = ref;
	res->worst = -1;
	res->status = "unjudged";
	if (!ref)
		return;
	res->item = cmp_calloc((size_t)(n->nfig + n->nclaim), sizeof(*res->item));
	for (int i = 0; i < n->nfig; i++)
		judge_figure(res, &n->fig[i], ref, pct, either);
	for (int i = 0; i < n->nclaim; i++)
		judge_claim(res, &n->claim[i], ref);
	qsort(res->item, (size_t)res->nitem, sizeof(*res->item), by_severity);
	for (int i = 0; i < res->nitem; i++) {
		struct cmp_item *it = &res->item[i];

		res->nbad += it->bad;
		/* why a figure fell or a verdict broke; a note needs no cause */
		if (it->bad)
			cmp_explain(n, ref, it);
	}
	res->nnotes = res->nitem - res->nbad;
	res->worst = res->nbad ? 0 : -1;
	res->status = res->nbad ? "flagged" : "ok";
}

void cmp_result_free(struct cmp_result *res)
{
	free(res->item);
	memset(res, 0, sizeof(*res));
}

/* ------------------------------------------------------------------------ */
/* Loading the nodes, the reference(s) */

struct compare_run {
	struct cmp_opts opt;
	struct cmp_node *nodes;
	int n;
	struct cmp_ref baseline;
	struct cmp_ref *groups;  /* fleet: one per match key with enough nodes */
	int ngroups;
	struct cmp_result *res;
};

/* 1 when path is a compare report or (baseline_too) a baseline, not a run:
 * a fleet directory's fleet.json or a baseline kept beside the nodes. */
static int report_not_run(const char *path, int baseline_too)
{
	char why[400];
	struct json *doc = json_parse_file(path, why, sizeof(why));
	const char *schema = json_get_str(doc, "schema", "");
	int other = !strcmp(schema, "dmalab-compare/1") ||
		    (baseline_too && !strcmp(schema, "dmalab-baseline/1"));

	json_free(doc);
	return other;
}

static int load_nodes(struct compare_run *cr, char **paths, int npaths)
{
	char err[600];
	int i, bad = 0;

	cr->nodes = cmp_calloc((size_t)npaths, sizeof(*cr->nodes));
	for (i = 0; i < npaths; i++) {
		if (cr->opt.json_out && cmp_same_file(paths[i], cr->opt.json_out)) {
			/* `compare DIR/[glob] --json-out DIR/fleet.json`, run again;
			 * a node's run there would be lost from the report and the disk */
			if (!report_not_run(paths[i], 0))
				die_usage(MSG("compare.err-json-is-run", "--json-out '%s' is one "
					"of the results files and no compare report: it would "
					"be overwritten"), cr->opt.json_out);
			continue;
		}
		if (cmp_node_load(paths[i], &cr->nodes[cr->n], err, sizeof(err))) {
			if (report_not_run(paths[i], 1)) {
				warning("skipping '%s': a compare report or baseline, not a run",
					paths[i]);
				continue;
			}
			error("%s", err);
			bad++;
			continue;
		}
		cr->n++;
	}
	if (bad)
		return error("%d of %d results files could not be read", bad, npaths);
	if (!cr->n)
		return error("no results file to compare");
	return 0;
}

/* Every node must be of the baseline's machine type and --quick. */
static int check_baseline_keys(const struct compare_run *cr)
{
	char want[200], got[200];
	int i, bad = 0;

	cmp_key_text(&cr->baseline.key, want, sizeof(want));
	for (i = 0; i < cr->n; i++) {
		const struct cmp_node *n = &cr->nodes[i];

		cmp_key_text(&n->key, got, sizeof(got));
		if (!cmp_key_equal(&n->key, &cr->baseline.key)) {
			error("'%s' (%s) is %s, the baseline '%s' is %s: compare it against a "
			      "baseline of its own machine type", n->path, n->host, got,
			      cr->baseline.name, want);
			bad++;
		} else if (n->quick != cr->baseline.quick) {
			error("'%s' (%s) ran %s, the baseline '%s' %s", n->path, n->host,
			      n->quick ? "with --quick" : "without --quick", cr->baseline.name,
			      cr->baseline.quick ? "with --quick" : "without --quick");
			bad++;
		}
	}
	return bad ? -1 : 0;
}

static const struct cmp_ref *group_of(const struct compare_run *cr, const struct cmp_node *n)
{
	for (int g = 0; g < cr->ngroups; g++)
		if (cmp_key_equal(&cr->groups[g].key, &n->key) && cr->groups[g].quick == n->quick)
			return &cr->groups[g];
	return NULL;
}

/* Fleet: one reference per (match key, quick) of at least CMP_MIN_FLEET nodes. */
static void build_groups(struct compare_run *cr)
{
	struct cmp_node **members = cmp_calloc((size_t)cr->n, sizeof(*members));
	char key[200];
	int k, m;

	cr->groups = cmp_calloc((size_t)cr->n, sizeof(*cr->groups));
	for (int i = 0; i < cr->n; i++) {
		const struct cmp_node *lead = &cr->nodes[i];
		int first = 1;

		for (k = 0, m = 0; k < cr->n; k++) {
			const struct cmp_node *o = &cr->nodes[k];

			if (!cmp_key_equal(&o->key, &lead->key) || o->quick != lead->quick)
				continue;
			first &= k >= i; /* the group is built at its first node */
			members[m++] = &cr->nodes[k];
		}
		if (!first || m < CMP_MIN_FLEET)
			continue;
		cmp_ref_build(&cr->groups[cr->ngroups], members, m, CMP_SPREAD_FLEET);
		cmp_key_text(&lead->key, key, sizeof(key));
		snprintf(cr->groups[cr->ngroups].name, sizeof(cr->groups[0].name),
			 "fleet: %.100s%s", key, lead->quick ? ", quick" : "");
		cr->ngroups++;
	}
	free(members);
}

/* Two files of one node (same host and GPUs) are both judged, but said. */
static void warn_duplicates(const struct compare_run *cr)
{
	for (int i = 0; i < cr->n; i++)
		for (int k = 0; k < i; k++) {
			const struct cmp_node *a = &cr->nodes[i], *b = &cr->nodes[k];
			int same = !strcmp(a->host, b->host) && a->key.ngpus == b->key.ngpus, g;

			for (g = 0; same && g < a->key.ngpus && g < CMP_MAX_GPUS; g++)
				same = !strcmp(a->gpu[g].uuid, b->gpu[g].uuid) &&
				       !strcmp(a->gpu[g].bdf, b->gpu[g].bdf);
			if (same) {
				warning("'%s' and '%s' are the same node (%s): each is judged",
					b->path, a->path, a->host);
				break;
			}
		}
}

static int judge_all(struct compare_run *cr)
{
	int i, judged = 0;

	if (!cr->opt.baseline)
		build_groups(cr);
	cr->res = cmp_calloc((size_t)cr->n, sizeof(*cr->res));
	for (i = 0; i < cr->n; i++) {
		const struct cmp_ref *ref = cr->opt.baseline ? &cr->baseline
							     : group_of(cr, &cr->nodes[i]);

		cmp_judge(&cr->nodes[i], ref, cr->opt.pct, cr->opt.either, &cr->res[i]);
		judged += ref != NULL;
	}
	if (judged < cr->n)
		warning("%d of %d nodes unjudged: fewer than %d nodes of their machine type and no "
			"--baseline", cr->n - judged, cr->n, CMP_MIN_FLEET);
	/* A gate must not pass when nothing was judged; make fleet's merge of a
	 * fleet of one or two nodes still wants its report (every node unjudged). */
	if (!judged && !cr->opt.allow_unjudged)
		return error("nothing to compare against: give --baseline FILE, or results of at "
			     "least %d nodes of one machine type", CMP_MIN_FLEET);
	if (!judged)
		warning("nothing to compare against: every node is unjudged (--allow-unjudged)");
	return 0;
}

static int report(struct compare_run *cr)
{
	const struct cmp_ref *baseline = cr->opt.baseline ? &cr->baseline : NULL;
	struct json_writer w;
	int i, rc = 0;

	jw_init(&w, 1);
	cmp_write_json(&w, cr->res, cr->n, &cr->opt, baseline ? baseline : cr->groups,
		       baseline ? 1 : cr->ngroups, baseline);
	if (w.failed)
		rc = error("out of memory writing the JSON report");
	else if (cr->opt.json_out && jw_write_file(&w, cr->opt.json_out))
		rc = error_errno("cannot write '%s'", cr->opt.json_out);
	else if (cr->opt.html_out)
		rc = cmp_write_html(cr->opt.html_out, cr->res, cr->n, &cr->opt, baseline);
	if (!rc && cr->opt.json)
		fwrite(w.buf, 1, w.len, stdout);
	else if (!rc)
		cmp_print_human(stdout, cr->res, cr->n, &cr->opt, baseline);
	jw_release(&w);
	for (i = 0; !rc && i < cr->n; i++)
		if (!strcmp(cr->res[i].status, "flagged"))
			return 1;
	return rc ? 2 : 0;
}

static void compare_free(struct compare_run *cr)
{
	for (int i = 0; cr->res && i < cr->n; i++)
		cmp_result_free(&cr->res[i]);
	for (int i = 0; i < cr->ngroups; i++)
		cmp_ref_free(&cr->groups[i]);
	for (int i = 0; i < cr->n; i++)
		cmp_node_free(&cr->nodes[i]);
	cmp_ref_free(&cr->baseline);
	free(cr->res);
	free(cr->groups);
	free(cr->nodes);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_run cr;
	char err[600];
	int rc = 2;

	memset(&cr, 0, sizeof(cr));
	usage_set_help("dmalab compare");
	parse_compare(&cr.opt, argc, argv);
	if (cr.opt.baseline && cmp_baseline_load(cr.opt.baseline, &cr.baseline, err, sizeof(err)))
		error("%s", err);
	else if (!load_nodes(&cr, argv + optind, argc - optind) &&
		 !(cr.opt.baseline && check_baseline_keys(&cr))) {
		warn_duplicates(&cr);
		if (!judge_all(&cr))
			rc = report(&cr);
	}
	compare_free(&cr);
	return rc;
}
