/*
 * compare_out.c - the report of `dmalab compare` (compare.h).
 *
 * Human: the rules in three lines, one line per node (flagged first: host,
 * machine type, status, bad items, notes, the worst bad item), the flagged
 * nodes' bad items with their causes (their notes too with --notes), and a
 * summary line last.  An ok node is one line, whatever its notes, so 200
 * nodes stay readable.
 * JSON (dmalab-compare/1, PROTOCOL.md 8): everything, for dashboards.
 * The pieces the fleet page shares (compare_html.c) are compare.h's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "learn.h"

const char *cmp_rule_text(const struct cmp_ref *baseline)
{
	static char text[300];

	if (baseline)
		snprintf(text, sizeof(text), "spread = the baseline's runs' 95 %% prediction "
			 "interval for one new run, widened to [lowest got_lo or got, highest "
			 "got_hi or got] of them, at least +- %g %% of the median",
			 100 * CMP_SPREAD_FLOOR);
	else
		snprintf(text, sizeof(text), "spread = median +- %g x %g x MAD over the nodes of "
			 "one machine type, at least +- %g %% of the median", CMP_MAD_K,
			 CMP_MAD_NORMAL, 100 * CMP_SPREAD_FLOOR);
	return text;
}

void cmp_item_text(const struct cmp_item *it, const struct cmp_ref *ref, char *buf, size_t len)
{
	if (it->is_verdict)
		snprintf(buf, len, "%s %s, %s's %s", it->key, cmp_verdict_word(it->verdict),
			 ref ? ref->word : "the reference", cmp_verdict_word(it->ref_verdict));
	else if (isfinite(it->pct))
		snprintf(buf, len, "%s %.4g%s%s, %.1f %% %s", it->key, it->value,
			 *it->unit ? " " : "", it->unit, fabs(it->pct), it->low ? "low" : "high");
	else
		snprintf(buf, len, "%s %.4g%s%s, outside %.4g..%.4g", it->key, it->value,
			 *it->unit ? " " : "", it->unit, it->spread_lo, it->spread_hi);
}

void cmp_node_gpus(const struct cmp_node *n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int g = 0; g < n->key.ngpus && g < CMP_MAX_GPUS && used < len; g++)
		used += (size_t)snprintf(buf + used, len - used, "%sGPU %d %s%s%s",
					 g ? ", " : "", n->gpu[g].index, n->gpu[g].uuid,
					 *n->gpu[g].uuid ? " at " : "", n->gpu[g].bdf);
}

int cmp_status_rank(const struct cmp_result *r)
{
	return !strcmp(r->status, "flagged") ? 0 : !strcmp(r->status, "unjudged") ? 1 : 2;
}

static void column_widths(const struct cmp_result *res, int n, int *hw, int *kw)
{
	char key[200];

	*hw = 4;
	*kw = 12;
	for (int i = 0; i < n; i++) {
		int h = (int)strlen(res[i].node->host);

		cmp_key_text(&res[i].node->key, key, sizeof(key));
		*hw = h > *hw ? (h < 32 ? h : 32) : *hw;
		*kw = (int)strlen(key) > *kw ? ((int)strlen(key) < 40 ? (int)strlen(key) : 40)
		      : *kw;
	}
}

static void print_table(FILE *f, const struct cmp_result *res, int n)
{
	char key[200], worst[400];
	int hw, kw;

	column_widths(res, n, &hw, &kw);
	fprintf(f, "%-*s  %-*s  %-8s  %7s  %5s  %s\n", hw, "host", kw, "machine type", "status",
		"flagged", "notes", "worst");
	for (int rank = 0; rank < 3; rank++)
		for (int i = 0; i < n; i++) {
			const struct cmp_result *r = &res[i];

			if (cmp_status_rank(r) != rank)
				continue;
			cmp_key_text(&r->node->key, key, sizeof(key));
			worst[0] = '\0';
			if (r->worst >= 0)
				cmp_item_text(&r->item[r->worst], r->ref, worst, sizeof(worst));
			fprintf(f, "%-*.*s  %-*.*s  %-8s  %7d  %5d%s%s\n", hw, hw, r->node->host,
				kw, kw, key, r->status, r->nbad, r->nnotes, *worst ? "  " : "",
				worst);
		}
}

int cmp_same_causes(const struct cmp_item *a, const struct cmp_item *b)
{
	if (a->ncauses != b->ncauses)
		return 0;
	for (int c = 0; c < a->ncauses; c++)
		if (strcmp(a->cause[c], b->cause[c]))
			return 0;
	return 1;
}

/* Why a figure item is bad or only a note, after its direction. */
static const char *figure_judgement(const struct cmp_item *it)
{
	if (it->bad)
		return ", worse";
	return cmp_bad_dir(it->unit) == CMP_BAD_NONE ? ", no bad direction" : ", better";
}

/* One item; its causes after the last of a run of items that share them
 * (next: the next item printed, or NULL), so a node with one cause says it
 * once. */
static void print_item(FILE *f, const struct cmp_item *it, const struct cmp_item *next,
		       const struct cmp_ref *ref)
{
	if (it->is_verdict)
		fprintf(f, "  %-26s verdict %s, %s's %s: %s\n", it->key,
			cmp_verdict_word(it->verdict), ref->word, cmp_verdict_word(it->ref_verdict),
			it->change);
	else
		fprintf(f, "  %-26s %10.4g %-7s median %.4g  spread %.4g..%.4g  %+.1f %%  %s%s\n",
			it->key, it->value, it->unit, it->median, it->spread_lo, it->spread_hi,
			it->pct, it->low ? "low" : "high", figure_judgement(it));
	if (next && cmp_same_causes(it, next))
		return;
	for (int c = 0; c < it->ncauses; c++)
		fprintf(f, "    %s %s\n", c ? "          " : "likely cause:", it->cause[c]);
}

/* The flagged nodes: their bad items (first in item[]), with notes their
 * notes under a line of their own. */
static void print_details(FILE *f, const struct cmp_result *res, int n, int notes)
{
	char key[200], gpus[600];

	for (int i = 0; i < n; i++) {
		const struct cmp_result *r = &res[i];
		int shown = notes ? r->nitem : r->nbad;

		if (strcmp(r->status, "flagged"))
			continue;
		cmp_key_text(&r->node->key, key, sizeof(key));
		cmp_node_gpus(r->node, gpus, sizeof(gpus));
		fprintf(f, "\n%s: %s%s%s (%s)\n", r->node->host, key, *gpus ? ", " : "", gpus,
			r->node->path);
		for (int k = 0; k < shown; k++) {
			if (k == r->nbad)
				fprintf(f, "  notes (not bad: better, no bad direction, or a "
					"verdict that changed otherwise):\n");
			print_item(f, &r->item[k], k + 1 < shown ? &r->item[k + 1] : NULL, r->ref);
		}
	}
}

struct cmp_totals cmp_count(const struct cmp_result *res, int n)
{
	struct cmp_totals t = { .nodes = n };

	for (int i = 0; i < n; i++) {
		t.flagged += !strcmp(res[i].status, "flagged");
		t.unjudged += !strcmp(res[i].status, "unjudged");
		t.notes += res[i].nnotes;
	}
	t.ok = n - t.flagged - t.unjudged;
	return t;
}

void cmp_print_human(FILE *f, const struct cmp_result *res, int n, const struct cmp_opts *o,
		     const struct cmp_ref *baseline)
{
	struct cmp_totals t = cmp_count(res, n);

	if (baseline)
		fprintf(f, "dmalab compare: %d node%s against the baseline '%s' (%d run%s, %s)\n",
			n, n == 1 ? "" : "s", baseline->name, baseline->nruns,
			baseline->nruns == 1 ? "" : "s", baseline->path);
	else
		fprintf(f, "dmalab compare: %d node%s against the fleet (each figure's median over "
			"the nodes of one machine type)\n", n, n == 1 ? "" : "s");
	fprintf(f, "flagged: a rate low or a time high, outside the spread %s more than %g %% "
		"from the median; a verdict worse than the majority's\nnotes, which never flag: "
		"such moves the good way or of a unit with no bad direction (x, %%, counts), other "
		"verdict changes%s\n(%s)\n\n",
		o->either ? "or" : "and", o->pct,
		o->notes ? "" : " (--notes lists a flagged node's)", cmp_rule_text(baseline));
	print_table(f, res, n);
	print_details(f, res, n, o->notes);
	fprintf(f, "\nsummary: %d of %d node%s flagged, %d ok", t.flagged, n, n == 1 ? "" : "s",
		t.ok);
	if (t.unjudged)
		fprintf(f, ", %d unjudged", t.unjudged);
	fprintf(f, " (P = %g %%, %soutside the spread %s beyond P); %d note%s\n", o->pct,
		o->either ? "--either: " : "", o->either ? "or" : "and", t.notes,
		t.notes == 1 ? "" : "s");
}

/* ------------------------------------------------------------------------ */
/* JSON */

void cmp_write_key(struct json_writer *w, const struct cmp_key *k, int quick)
{
	char text[200];

	cmp_key_text(k, text, sizeof(text));
	jw_kobj(w, "key");
	jw_kstr(w, "gpu", k->gpu);
	jw_kint(w, "gpus", k->ngpus);
	jw_kint(w, "pcie_gen_max", k->gen);
	jw_kint(w, "pcie_width_max", k->width);
	jw_obj_end(w);
	jw_kstr(w, "key_text", text);
	jw_kbool(w, "quick", quick);
}

/* "key": [lo, hi], or null when an end is not finite (not computed). */
static void write_range(struct json_writer *w, const char *key, double lo, double hi)
{
	jw_key(w, key);
	if (!isfinite(lo) || !isfinite(hi)) {
		jw_null(w);
		return;
	}
	jw_arr_begin(w);
	jw_num(w, lo);
	jw_num(w, hi);
	jw_arr_end(w);
}

static void write_group(struct json_writer *w, const struct cmp_ref *r)
{
	jw_obj_begin(w);
	jw_kstr(w, "name", r->name);
	cmp_write_key(w, &r->key, r->quick);
	jw_kint(w, "runs", r->nruns);
	jw_karr(w, "figures");
	for (int i = 0; i < r->nfig; i++) {
		const struct cmp_ref_fig *f = &r->fig[i];

		jw_obj_begin(w);
		jw_kstr(w, "key", f->key);
		jw_kstr(w, "unit", f->unit);
		jw_kint(w, "n", f->n);
		jw_knum(w, "median", f->median);
		jw_knum(w, "mad", f->mad);
		jw_knum(w, "min", f->min);
		jw_knum(w, "max", f->max);
		write_range(w, "spread", f->spread_lo, f->spread_hi);
		/* a baseline's of 2 runs or more, else null */
		write_range(w, "prediction", f->pred_lo, f->pred_hi);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void write_item(struct json_writer *w, const struct cmp_item *it, const struct cmp_ref *ref)
{
	char text[400];

	cmp_item_text(it, ref, text, sizeof(text));
	jw_obj_begin(w);
	jw_kstr(w, "kind", it->is_verdict ? "verdict" : "figure");
	jw_kstr(w, "key", it->key);
	jw_kstr(w, "lab", it->lab);
	jw_kstr(w, "text", text);
	jw_kbool(w, "bad", it->bad);
	if (it->is_verdict) {
		jw_kstr(w, "verdict", cmp_verdict_word(it->verdict));
		jw_kstr(w, "reference", cmp_verdict_word(it->ref_verdict));
		jw_kstr(w, "change", it->change);
	} else {
		jw_kstr(w, "unit", it->unit);
		jw_knum(w, "value", it->value);
		jw_knum(w, "median", it->median);
		write_range(w, "spread", it->spread_lo, it->spread_hi);
		jw_knum(w, "pct", it->pct);
		jw_kstr(w, "direction", it->low ? "low" : "high");
		jw_kbool(w, "outside_spread", it->outside);
		jw_kbool(w, "beyond_pct", it->beyond_pct);
	}
	jw_kbool(w, "explained", it->explained);
	jw_karr(w, "causes");
	for (int c = 0; c < it->ncauses; c++)
		jw_str(w, it->cause[c]);
	jw_arr_end(w);
	jw_obj_end(w);
}

/* Every figure of the node beside its reference, flagged or not. */
static void write_figures(struct json_writer *w, const struct cmp_result *r)
{
	jw_karr(w, "figures");
	for (int i = 0; r->ref && i < r->node->nfig; i++) {
		const struct cmp_figure *f = &r->node->fig[i];
		const struct cmp_ref_fig *rf = cmp_ref_figure(r->ref, f->key);

		jw_obj_begin(w);
		jw_kstr(w, "key", f->key);
		jw_kstr(w, "unit", f->unit);
		jw_knum(w, "value", f->value);
		jw_knum(w, "median", rf && rf->n >= r->ref->min_n ? rf->median : NAN);
		jw_knum(w, "pct", rf && rf->n >= r->ref->min_n ? cmp_pct_off(f->value, rf->median)
							       : NAN);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void write_node(struct json_writer *w, const struct cmp_result *r)
{
	const struct cmp_node *n = r->node;
	char worst[400] = "";

	if (r->worst >= 0)
		cmp_item_text(&r->item[r->worst], r->ref, worst, sizeof(worst));
	jw_obj_begin(w);
	jw_kstr(w, "path", n->path);
	jw_kstr(w, "host", n->host);
	jw_kstr(w, "started", n->started);
	jw_karr(w, "gpus");
	for (int g = 0; g < n->key.ngpus && g < CMP_MAX_GPUS; g++) {
		jw_obj_begin(w);
		jw_kint(w, "index", n->gpu[g].index);
		jw_kstr(w, "name", n->gpu[g].name);
		jw_kstr(w, "uuid", n->gpu[g].uuid);
		jw_kstr(w, "bdf", n->gpu[g].bdf);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	cmp_write_key(w, &n->key, n->quick);
	jw_kstr(w, "reference", r->ref ? r->ref->name : NULL);
	jw_kstr(w, "status", r->status);
	jw_kint(w, "flagged", r->nbad);
	jw_kint(w, "bad", r->nbad);
	jw_kint(w, "notes", r->nnotes);
	jw_kstr(w, "worst", r->worst >= 0 ? worst : NULL);
	jw_karr(w, "items");
	for (int g = 0; g < r->nitem; g++)
		write_item(w, &r->item[g], r->ref);
	jw_arr_end(w);
	write_figures(w, r);
	jw_obj_end(w);
}

static void write_rules(struct json_writer *w, const struct cmp_opts *o,
			const struct cmp_ref *baseline)
{
	jw_kobj(w, "rules");
	jw_knum(w, "pct", o->pct);
	jw_kstr(w, "figure_rule", o->either ? "either" : "both");
	jw_kstr(w, "spread", cmp_rule_text(baseline));
	jw_knum(w, "mad_k", CMP_MAD_K);
	jw_knum(w, "spread_floor_pct", 100 * CMP_SPREAD_FLOOR);
	jw_kint(w, "min_fleet", CMP_MIN_FLEET);
	jw_obj_end(w);
}

static void write_totals(struct json_writer *w, const struct cmp_result *res, int n)
{
	struct cmp_totals t = cmp_count(res, n);

	jw_kobj(w, "totals");
	jw_kint(w, "nodes", t.nodes);
	jw_kint(w, "ok", t.ok);
	jw_kint(w, "flagged", t.flagged);
	jw_kint(w, "unjudged", t.unjudged);
	jw_obj_end(w);
}

void cmp_write_json(struct json_writer *w, const struct cmp_result *res, int n,
		    const struct cmp_opts *o, const struct cmp_ref *refs, int nrefs,
		    const struct cmp_ref *baseline)
{
	char now[32];

	learn_iso_now(now, sizeof(now));
	jw_obj_begin(w);
	jw_kstr(w, "schema", "dmalab-compare/1");
	jw_kobj(w, "dmalab");
	jw_kstr(w, "version", DMALAB_VERSION);
	jw_obj_end(w);
	jw_kstr(w, "created", now);
	jw_kstr(w, "against", baseline ? "baseline" : "fleet");
	jw_key(w, "baseline");
	if (baseline) {
		jw_obj_begin(w);
		jw_kstr(w, "name", baseline->name);
		jw_kstr(w, "path", baseline->path);
		jw_kint(w, "runs", baseline->nruns);
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	write_rules(w, o, baseline);
	write_totals(w, res, n);
	jw_karr(w, "references");
	for (int i = 0; i < nrefs; i++)
		write_group(w, &refs[i]);
	jw_arr_end(w);
	jw_karr(w, "nodes");
	for (int i = 0; i < n; i++)
		write_node(w, &res[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}
