/*
 * fuzz_errata.c - the errata parser (errata.c: errata_parse on the input as
 * a C string, errata_load on it as a file, so NUL bytes and an empty file
 * too) and the relation parser it uses (want.c: lab_want_parse on every
 * line, then lab_want_text and lab_relation_verdict on what it accepts).
 *
 * Checked: errata_parse and errata_load agree on text without NUL bytes;
 * every parsed erratum is found again by its id, has says, truth, an expect
 * relation and 1-8 sources, and its expect.name (if any) points into the
 * erratum itself; an accepted relation is one of the ops it names, with
 * in_range's lo <= hi and near's tolerance >= 0.
 */
#include <math.h>

#include "errata.h"
#include "fuzz_util.h"
#include "lab.h"

static void check(const struct errata *e)
{
	for (int i = 0; i < e->n; i++) {
		const struct erratum *c = &e->items[i];

		if (errata_find(e, c->id) != c || !c->says || !c->truth || !c->expect_text ||
		    c->nsources < 1 || c->nsources > ERRATA_MAX_SOURCES)
			abort();
		if (c->expect.name && c->expect.name != c->expect_name)
			abort();
	}
}

static void want(const char *s)
{
	struct claim_want w;
	struct lab_est est = { 1.0, 0.5, 2.0, 0 };
	char name[32], text[128];

	if (lab_want_parse(s, &w, name, sizeof(name)) < 0)
		return;
	if (!w.op || (!strcmp(w.op, "in_range") && !(w.a <= w.b)) ||
	    (!strcmp(w.op, "near") && !(w.abs_tol >= 0)))
		abort();
	if (w.name && (w.name != name || strcmp(w.op, "eq")))
		abort();
	lab_want_text(&w, text, sizeof(text));
	lab_want_text(&w, text, 2);
	lab_relation_verdict(&w, est, "ENOMEM");
	est.value = est.lo = est.hi = NAN;
	lab_relation_verdict(&w, est, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), err[256], *line;
	struct errata e, f;
	int rc, rc_file;

	rc = errata_parse(text, "fuzz", &e, err, sizeof(err));
	if (rc == 0)
		check(&e);
	rc_file = errata_load(fuzz_file("errata.md", data, size), &f, err, sizeof(err));
	if (rc_file == 0)
		check(&f);
	if (!memchr(data, '\0', size) && rc != rc_file)
		abort();
	errata_free(&e);
	errata_free(&f);
	errata_parse(text, "fuzz", &e, err, 1);
	errata_free(&e);

	for (line = text; line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		want(line);
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return 0;
}
