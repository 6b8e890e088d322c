/*
 * claims.c - `dmalab claims`: one table of every claim of every built lab,
 * read from each lab's --describe (PROTOCOL.md 1): what the chapter says,
 * the relation the rule of README.md ("How a verdict is made") made of it,
 * its tolerance and unit, the rule, and what the sabotage build breaks.
 *
 * Nothing is measured and nothing of this machine is printed, so the human
 * table is the same everywhere (a CUDA lab built as a stub without nvcc
 * has the same spec) and is kept as harness/tests/golden/claims.txt: a
 * changed relation is a reviewed diff (`make test-claims`).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"

/* "+- 25 %", "+- 0.5 MiB", "+- (0.5 MiB + 10 %)", or "none". */
static void fmt_tolerance(const struct json *want, char *buf, size_t len)
{
	double a = json_get_num(want, "abs_tol", 0), r = json_get_num(want, "rel_tol", 0);
	const char *unit = json_get_str(want, "unit", "");
	const char *sp = *unit ? " " : "";

	if (strcmp(json_get_str(want, "op", ""), "near") != 0 || (isnan(a) && isnan(r)))
		snprintf(buf, len, "none");
	else if (a > 0 && r > 0)
		snprintf(buf, len, "+- (%g%s%s + %g %%)", a, sp, unit, 100 * r);
	else if (r > 0)
		snprintf(buf, len, "+- %g %%", 100 * r);
	else
		snprintf(buf, len, "+- %g%s%s", a, sp, unit);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void human_claim(const struct json *c)
{
	const struct json *want = json_get(c, "want");
	char tol[128];

	fmt_tolerance(want, tol, sizeof(tol));
	printf("%s [%s] %s\n", json_get_str(c, "id", "?"), json_get_str(c, "question", "?"),
	       json_get_str(c, "text", ""));
	printf("  chapter:   %s\n", or_dash(json_get_str(c, "chapter", NULL)));
	printf("  relation:  %s\n", or_dash(json_get_str(want, "text", NULL)));
	printf("  tolerance: %s\n", tol);
	printf("  unit:      %s\n", or_dash(json_get_str(want, "unit", NULL)));
	printf("  rule:      %s\n", or_dash(json_get_str(c, "rule", NULL)));
	printf("  sabotage:  %s\n", json_get_str(c, "sabotage", NULL) ?
	       json_get_str(c, "sabotage", NULL) : "none (no sabotage build breaks it)");
	printf("  root:      %s%s\n", json_get_str(c, "needs_root", NULL) ? "needed: " :
	       "not needed", json_get_str(c, "needs_root", ""));
}

static void json_claim(struct json_writer *w, const struct lab_entry *lab,
		       const struct json *c)
{
	const struct json *want = json_get(c, "want");
	char tol[128];

	fmt_tolerance(want, tol, sizeof(tol));
	jw_obj_begin(w);
	jw_kstr(w, "lab", lab->id);
	jw_kstr(w, "lab_title", lab->title);
	jw_kstr(w, "id", json_get_str(c, "id", NULL));
	jw_kstr(w, "question", json_get_str(c, "question", NULL));
	jw_kstr(w, "text", json_get_str(c, "text", NULL));
	jw_kstr(w, "chapter", json_get_str(c, "chapter", NULL));
	jw_kstr(w, "relation", json_get_str(want, "text", NULL));
	jw_kstr(w, "tolerance", tol);
	jw_kstr(w, "unit", json_get_str(want, "unit", NULL));
	jw_kstr(w, "rule", json_get_str(c, "rule", NULL));
	jw_key(w, "want");
	if (want)
		jw_value(w, want);
	else
		jw_null(w);
	jw_kstr(w, "sabotage", json_get_str(c, "sabotage", NULL));
	jw_kstr(w, "needs_root", json_get_str(c, "needs_root", NULL));
	jw_obj_end(w);
}

static int count_claims(const struct run_state *rs, int *nlabs)
{
	int i, n = 0;

	*nlabs = 0;
	for (i = 0; i < rs->nlabs; i++) {
		const struct json *claims = json_get(rs->labs[i].desc, "claims");

		if (rs->labs[i].desc_error[0] || !claims)
			continue;
		n += (int)claims->count;
		++*nlabs;
	}
	return n;
}

static void print_human(const struct run_state *rs)
{
	int i, nlabs, n = count_claims(rs, &nlabs);

	printf("dmalab claims: %d claims of %d labs, from each lab's --describe\n", n, nlabs);
	printf("(the relation is what the chapter says, by the rule named; README.md, "
	       "\"How a verdict is made\")\n");
	for (i = 0; i < rs->nlabs; i++) {
		const struct lab_entry *lab = &rs->labs[i];
		const struct json *c;

		printf("\nlab-%s  %s\n", lab->id, lab->title);
		if (lab->desc_error[0]) {
			printf("  error: %s\n", lab->desc_error);
			continue;
		}
		for (c = json_get(lab->desc, "claims")->child; c; c = c->next) {
			printf("\n");
			human_claim(c);
		}
	}
}

static int print_json(const struct run_state *rs)
{
	struct json_writer w;
	int i, rc;

	jw_init(&w, 1);
	jw_arr_begin(&w);
	for (i = 0; i < rs->nlabs; i++) {
		const struct json *c;

		if (rs->labs[i].desc_error[0])
			continue;
		for (c = json_get(rs->labs[i].desc, "claims")->child; c; c = c->next)
			json_claim(&w, &rs->labs[i], c);
	}
	jw_arr_end(&w);
	rc = w.failed ? -1 : 0;
	if (!rc)
		printf("%.*s\n", (int)w.len, w.buf);
	jw_release(&w);
	return rc;
}

/* 0; 1 when a lab's --describe could not be read (said on stderr too). */
int cmd_claims(struct run_state *rs)
{
	int i, bad = 0;

	for (i = 0; i < rs->nlabs; i++)
		if (rs->labs[i].desc_error[0]) {
			error("lab-%s: %s", rs->labs[i].id, rs->labs[i].desc_error);
			bad++;
		}
	if (rs->opt->format == FMT_JSON) {
		if (print_json(rs))
			return 1;
	} else {
		print_human(rs);
	}
	return bad ? 1 : 0;
}
