/*
 * compare_html.c - `dmalab compare --html-out FILE`: the fleet page, one
 * HTML file with no script and nothing beside it, written from the same
 * results in memory as the JSON (PROTOCOL.md 8), so the two always agree.
 *
 * One table of nodes, the bad ones first: missing (allocated, but no
 * results came back: jobs/fleet-nodes.json in FILE's folder, which make
 * fleet's merge writes before it compares), flagged (most bad items
 * first), unjudged, ok; input order within each.  A row: status, host
 * and the node's file (nodes may share a hostname), machine type and
 * GPUs, and a flagged node's bad items with their likely causes, its notes
 * folded below them (an ok node's notes say nothing of its health and are
 * left out).  Above the table the rules the compare
 * used and the totals.  Every text that comes from a file is escaped.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "learn.h"
#include "runner.h"
#include "savefile.h"

static const char *const page_style =
	"body{margin:0;font:14px/1.4 system-ui,-apple-system,\"Segoe UI\",sans-serif;"
	"color:#1d232a}"
	"main{max-width:1200px;margin:0 auto;padding:16px 24px 40px}"
	"h1{font-size:22px;margin:6px 0 10px}"
	"table{border-collapse:collapse;width:100%;font-size:13px;margin-top:10px}"
	"th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}"
	"th{background:#f3f5f7}"
	"tr.flagged td{background:#fff8f8}"
	".badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;"
	"font-weight:600;color:#fff}"
	".flagged{background:#cf222e}.ok{background:#1a7f37}.unjudged{background:#8c959f}"
	".missing{background:#6e2b8b}tr.missing td{background:#fbf6ff}"
	".item{margin:2px 0}.item.bad{font-weight:600}"
	".cause{color:#57606a;margin-left:14px;font-size:12px}"
	".muted{color:#57606a;font-size:12px}";

void html_put(FILE *f, const char *open, const char *text, const char *close)
{
	fputs(open, f);
	xml_put(f, text, 0);
	fputs(close, f);
}

/* jobs/fleet-nodes.json beside the page, or NULL: none (a plain compare),
 * or unreadable (said; the page is still worth having without it). */
static struct json *fleet_nodes(const char *page)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], err[600];
	struct json *doc;

	snprintf(dir, sizeof(dir), "%s", page);
	snprintf(path, sizeof(path), "%s/jobs/fleet-nodes.json", dirname(dir));
	if (access(path, F_OK))
		return NULL;
	doc = json_parse_file(path, err, sizeof(err));
	if (!doc)
		warning("%s: the page lists no missing nodes", err);
	return doc;
}

/* Its "missing" list, or NULL; *n: the nodes (objects) in it. */
static const struct json *missing_list(const struct json *nodes_doc, int *n)
{
	const struct json *m = json_get(nodes_doc, "missing");

	*n = 0;
	for (const struct json *e = m && m->type == JSON_ARR ? m->child : NULL; e; e = e->next)
		*n += e->type == JSON_OBJ;
	return m && m->type == JSON_ARR ? m : NULL;
}

/* A row's status and host cells; under the host, the node's file where there
 * is one (nodes that share a hostname are told apart by it). */
static void row_begin(FILE *f, const char *status, const char *host, const char *file)
{
	fprintf(f, "<tr class=\"%s\"><td><span class=\"badge %s\">%s</span></td>", status,
		status, status);
	html_put(f, "<td>", host, file ? "" : "</td>");
	if (file)
		html_put(f, "<div class=\"muted\">", file, "</div></td>");
}

/* The node's file as the page's reader finds it: its path from the page's
 * folder when it lies there (a fleet's node07.json), else as it was given. */
static const char *node_file(const char *node_path, const char *page_dir, char *buf,
			     size_t len)
{
	char real[PATH_MAX];
	size_t n = strlen(page_dir);

	if (n && realpath(node_path, real) && !strncmp(real, page_dir, n) && real[n] == '/')
		snprintf(buf, len, "%s", real + n + 1);
	else
		snprintf(buf, len, "%s", node_path);
	return buf;
}

/* A node that sent nothing: by name, or a job's count when Slurm named none. */
static void missing_row(FILE *f, const struct json *m)
{
	const char *node = json_get_str(m, "node", "");
	double count = json_get_num(m, "count", NAN);
	char host[300], many[32] = "?";

	if (isfinite(count))
		snprintf(many, sizeof(many), "%g", count);
	if (*node)
		snprintf(host, sizeof(host), "%s", node);
	else
		snprintf(host, sizeof(host), "%s node%s of job %s", many, count == 1 ? "" : "s",
			 json_get_str(m, "job", "?"));
	row_begin(f, "missing", host, NULL);
	html_put(f, "<td></td><td>0</td><td><div class=\"item bad\">no results: ",
		 json_get_str(m, "why", "?"), "</div></td></tr>\n");
}

/* The bad items; the causes after the last of a run of items that share
 * them, so a node with one cause says it once. */
static void bad_items(FILE *f, const struct cmp_result *r)
{
	char text[400];

	for (int k = 0; k < r->nbad; k++) {
		const struct cmp_item *it = &r->item[k];

		cmp_item_text(it, r->ref, text, sizeof(text));
		html_put(f, "<div class=\"item bad\">", text, "</div>");
		if (k + 1 < r->nbad && cmp_same_causes(it, it + 1))
			continue;
		for (int c = 0; c < it->ncauses; c++)
			html_put(f, "<div class=\"cause\">likely cause: ", it->cause[c], "</div>");
	}
}

static void folded_notes(FILE *f, const struct cmp_result *r)
{
	char text[400];

	if (!r->nnotes)
		return;
	fprintf(f, "<details><summary class=\"muted\">%d note%s</summary>", r->nnotes,
		r->nnotes == 1 ? "" : "s");
	for (int k = r->nbad; k < r->nitem; k++) {
		cmp_item_text(&r->item[k], r->ref, text, sizeof(text));
		html_put(f, "<div class=\"item\">", text, "</div>");
	}
	fputs("</details>", f);
}

static void node_row(FILE *f, const struct cmp_result *r, const char *page_dir)
{
	char key[200], gpus[600], file[PATH_MAX];

	cmp_key_text(&r->node->key, key, sizeof(key));
	cmp_node_gpus(r->node, gpus, sizeof(gpus));
	row_begin(f, r->status, r->node->host,
		  node_file(r->node->path, page_dir, file, sizeof(file)));
	html_put(f, "<td>", key, "");
	html_put(f, "<div class=\"muted\">", gpus, "</div></td>");
	fprintf(f, "<td>%d</td><td>", r->nbad);
	if (r->nbad) {
		bad_items(f, r);
		folded_notes(f, r);
	} else {
		fputs("<span class=\"muted\">nothing flagged</span>", f);
	}
	fputs("</td></tr>\n", f);
}

/* Flagged before unjudged before ok, more bad items first; else input order
 * (res is in input order). */
static int bad_first(const void *a, const void *b)
{
	const struct cmp_result *p = *(const struct cmp_result *const *)a;
	const struct cmp_result *q = *(const struct cmp_result *const *)b;

	if (cmp_status_rank(p) != cmp_status_rank(q))
		return cmp_status_rank(p) - cmp_status_rank(q);
	if (p->nbad != q->nbad)
		return q->nbad - p->nbad;
	return (p > q) - (p < q);
}

static void page_head(FILE *f, const struct cmp_totals *t, int nmissing,
		      const struct cmp_opts *o, const struct cmp_ref *baseline)
{
	char title[160], against[300], rules[1000], now[32];

	snprintf(title, sizeof(title), "dmalab fleet: %d of %d nodes flagged", t->flagged,
		 t->nodes);
	if (nmissing)
		snprintf(title + strlen(title), sizeof(title) - strlen(title), ", %d missing",
			 nmissing);
	snprintf(against, sizeof(against), "the fleet");
	if (baseline)
		snprintf(against, sizeof(against), "the baseline '%s' (%d run%s)", baseline->name,
			 baseline->nruns, baseline->nruns == 1 ? "" : "s");
	snprintf(rules, sizeof(rules), "Against %s. A rate that fell or a time that rose is "
		 "flagged when it lies outside the spread (%s) %s more than %g %% from the "
		 "median; a claim when its verdict is worse than the majority's. Other moves "
		 "are notes and never flag a node.", against, cmp_rule_text(baseline),
		 o->either ? "or" : "and", o->pct);
	learn_iso_now(now, sizeof(now));
	html_put(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
		 title, "</title>");
	fprintf(f, "<style>%s</style></head><body><main>\n", page_style);
	html_put(f, "<h1 id=\"title\">", title, "</h1>\n");
	html_put(f, "<p id=\"rules\">", rules, "</p>\n");
	fprintf(f, "<p id=\"totals\">%d ok, %d flagged, %d unjudged; written %s by dmalab %s."
		"</p>\n", t->ok, t->flagged, t->unjudged, now, DMALAB_VERSION);
}

/* The page at path: its folder, the nodes' files named from it. */
static void write_page(FILE *f, const char *path, const struct cmp_result *res,
		       const struct cmp_result **order, int n, const struct json *nodes_doc,
		       const struct cmp_opts *o, const struct cmp_ref *baseline)
{
	struct cmp_totals t = cmp_count(res, n);
	char copy[PATH_MAX], page_dir[PATH_MAX] = "";
	int nmissing;
	const struct json *missing = missing_list(nodes_doc, &nmissing);

	snprintf(copy, sizeof(copy), "%s", path);
	if (!realpath(dirname(copy), page_dir))
		page_dir[0] = '\0'; /* every file then as it was given */
	page_head(f, &t, nmissing, o, baseline);
	fputs("<table id=\"nodes\"><tr><th>status</th><th>host, file</th>"
	      "<th>machine type, GPUs</th><th>bad items</th>"
	      "<th>flagged items and their likely causes</th></tr>\n", f);
	for (const struct json *m = missing ? missing->child : NULL; m; m = m->next)
		if (m->type == JSON_OBJ)
			missing_row(f, m);
	for (int i = 0; i < n; i++)
		node_row(f, order[i], page_dir);
	fputs("</table>\n</main></body></html>\n", f);
}

int cmp_write_html(const char *path, const struct cmp_result *res, int n,
		   const struct cmp_opts *o, const struct cmp_ref *baseline)
{
	const struct cmp_result **order = cmp_calloc((size_t)n, sizeof(*order));
	struct json *nodes_doc = fleet_nodes(path);
	struct savefile page;
	FILE *f = savefile_open(&page, path);
	int rc = 0;

	if (!f)
		rc = error_errno("cannot write '%s'", path);
	if (f) {
		for (int i = 0; i < n; i++)
			order[i] = &res[i];
		qsort(order, (size_t)n, sizeof(*order), bad_first);
		write_page(f, path, res, order, n, nodes_doc, o, baseline);
		if (savefile_commit(&page))
			rc = error_errno("cannot write '%s'", path);
	}
	free(order);
	json_free(nodes_doc);
	return rc;
}
