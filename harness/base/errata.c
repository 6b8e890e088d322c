/*
 * errata.c - parser for answers/errata.md (errata.h).
 *
 * Strict on purpose: a typo in a key would otherwise silently drop an
 * erratum and turn a known finding into a failed run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errata.h"
#include "record.h"
#include "sections.h"

enum { E_SAYS, E_EXPECT, E_WHEN, E_TRUTH, E_WHY, E_SOURCE };

static const struct sec_key errata_keys[] = {
	[E_SAYS] = { "says", SEC_REQUIRED },
	[E_EXPECT] = { "expect", SEC_REQUIRED },
	[E_WHEN] = { "when", 0 },
	[E_TRUTH] = { "truth", SEC_REQUIRED },
	[E_WHY] = { "why", 0 },
	[E_SOURCE] = { "source", SEC_REQUIRED | SEC_REPEAT },
};

static const struct sec_kind errata_kind = {
	.what = "erratum",
	.keys = errata_keys,
	.nkeys = 6,
	.id_ok = claim_id_ok,
	.id_want = "like 02.2",
	.id_what = "claim",
	.comments = 1,
};

static int expect_field(struct sec_doc *d, struct erratum *c, struct sec_field *f)
{
	c->expect_text = sec_take(f);
	if (lab_want_parse(c->expect_text, &c->expect, c->expect_name,
			   sizeof(c->expect_name)) < 0)
		return sec_error(d, f->line, "'expect: %.60s' is not a relation (like 'ge 3', "
				 "'in_range 1 2', 'near 2 0.5', 'eq ENOMEM', 'eq false')",
				 c->expect_text);
	return 0;
}

/*
 * The facts a when: may name: values read from the machine, exact by
 * nature.  A value the run measures (a rate, a share of time) is recorded
 * as a point without its interval, so a when: on it would turn on noise and
 * could never be wrong about the run it comes from (issue 27).
 */
static const char *const reading_facts[] = {
	"pcie_gen_max", "pcie_width_max", "pcie_gen_cur", "pcie_width_cur", NULL
};

static int is_reading_fact(const char *name, size_t n)
{
	for (int i = 0; reading_facts[i]; i++)
		if (strlen(reading_facts[i]) == n && !strncmp(reading_facts[i], name, n))
			return 1;
	return 0;
}

/* "FACT OP NUMBER": the lab fact the erratum's applicability depends on. */
static int when_field(struct sec_doc *d, struct erratum *c, struct sec_field *f)
{
	const char *value = c->when_text = sec_take(f);
	size_t n = strcspn(value, " \t");
	char dummy[8];

	if (n == 0 || n >= sizeof(c->when_fact) ||
	    lab_want_parse(value + n + strspn(value + n, " \t"), &c->when, dummy,
			   sizeof(dummy)) < 0 || c->when.name)
		return sec_error(d, f->line, "'when: %.60s' is not 'FACT OP NUMBER' (like "
				 "'pcie_gen_max ge 4')", value);
	if (!is_reading_fact(value, n))
		return sec_error(d, f->line, "'when: %.60s' names no fact read from the machine "
				 "(like pcie_gen_max): a value measured in the run has no interval "
				 "here, and a when: on it could not be wrong", value);
	memcpy(c->when_fact, value, n);
	c->when_fact[n] = '\0';
	return 0;
}

static int to_erratum(struct sec_doc *d, struct sec_section *s, struct erratum *c)
{
	int rc = 0;

	snprintf(c->id, sizeof(c->id), "%.31s", s->id); /* claim_id_valid: < 32 */
	c->line = s->line;
	for (int i = 0; i < s->nf && !rc; i++) {
		struct sec_field *f = &s->f[i];

		if (f->key == E_EXPECT)
			rc = expect_field(d, c, f);
		else if (f->key == E_WHEN)
			rc = when_field(d, c, f);
		else if (f->key == E_SOURCE && c->nsources == ERRATA_MAX_SOURCES)
			rc = sec_error(d, f->line, "more than %d sources", ERRATA_MAX_SOURCES);
		else if (f->key == E_SOURCE)
			c->source[c->nsources++] = sec_take(f);
		else
			*(f->key == E_SAYS ? &c->says : f->key == E_TRUTH ? &c->truth
					   : &c->why) = sec_take(f);
	}
	return rc;
}

int errata_parse(const char *text, const char *name, struct errata *e,
		 char *err, size_t errlen)
{
	struct sec_doc d;
	int rc;

	memset(e, 0, sizeof(*e));
	sec_init(&d, &errata_kind, name, err, errlen);
	rc = sec_parse(&d, text, strlen(text));
	if (!rc && d.ns) {
		e->items = calloc((size_t)d.ns, sizeof(*e->items));
		rc = e->items ? 0 : sec_error(&d, 1, "out of memory");
	}
	for (int i = 0; !rc && i < d.ns; i++, e->n++)
		rc = to_erratum(&d, &d.s[i], &e->items[i]);
	sec_free(&d);
	if (rc)
		errata_free(e);
	return rc;
}

int errata_load(const char *path, struct errata *e, char *err, size_t errlen)
{
	size_t len;
	char *text = sec_read_file(path, &len, err, errlen);
	int rc;

	memset(e, 0, sizeof(*e));
	if (!text)
		return -1;
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: a NUL byte at offset %zu: not a text file", path,
			 strlen(text));
		free(text);
		errno = EINVAL;
		return -1;
	}
	rc = errata_parse(text, path, e, err, errlen);
	free(text);
	if (rc)
		errno = EINVAL;
	return rc;
}

/* 1 when [el, eh] takes in every value on one side of [wl, wh], up to its edge. */
static int covers_a_side(double wl, double wh, double el, double eh)
{
	return (isfinite(wl) && el == -INFINITY && eh >= wl) ||
	       (isfinite(wh) && eh == INFINITY && el <= wh);
}

int errata_check_want(const struct erratum *e, const struct claim_want *want, char *err,
		      size_t errlen)
{
	double wl, wh, el, eh;
	char w[96];
	int plain;

	if (!strcmp(want->op, "true"))
		plain = !strcmp(e->expect.op, "eq") && !e->expect.name && e->expect.a == 0;
	else
		plain = lab_want_edges(want, &wl, &wh) == 0 &&
			lab_want_edges(&e->expect, &el, &eh) == 0 && covers_a_side(wl, wh, el, eh);
	if (!plain)
		return 0;
	snprintf(err, errlen, "erratum %s: 'expect: %s' holds for every failure of the want "
		 "(%s) on its side: the plain complement predicts nothing a contradicted run "
		 "could refute", e->id, e->expect_text, lab_want_text(want, w, sizeof(w)));
	return -1;
}

const struct erratum *errata_find(const struct errata *e, const char *claim_id)
{
	for (int i = 0; e && i < e->n; i++)
		if (strcmp(e->items[i].id, claim_id) == 0)
			return &e->items[i];
	return NULL;
}

void errata_free(struct errata *e)
{
	for (int i = 0; i < e->n; i++) {
		free(e->items[i].says);
		free(e->items[i].truth);
		free(e->items[i].why);
		free(e->items[i].expect_text);
		free(e->items[i].when_text);
		for (int k = 0; k < e->items[i].nsources; k++)
			free(e->items[i].source[k]);
	}
	free(e->items);
	e->items = NULL;
	e->n = 0;
}

/* answers/errata.md, built in by errata_text.S (NUL-terminated). */
extern const char dmalab_errata_text[];

int errata_read(const char *named, const char *fallback, const char **path,
		struct errata *e, char *err, size_t errlen)
{
	const char *env = getenv("DMALAB_ERRATA");

	*path = named ? named : env && env[0] ? env : fallback;
	if (*path) {
		if (errata_load(*path, e, err, errlen) == 0)
			return 0;
		if (errno != ENOENT || *path != fallback)
			return -1; /* a file named must exist */
	}
	*path = NULL;
	return errata_parse(dmalab_errata_text, "answers/errata.md (built in)", e, err, errlen);
}

const struct errata *errata_builtin(char *err, size_t errlen)
{
	static struct errata cached;
	static int state; /* 0 not read, 1 ok, -1 failed */
	static char why[512];
	const char *path;

	if (!state)
		state = errata_read(NULL, NULL, &path, &cached, why, sizeof(why)) ? -1 : 1;
	if (state < 0) {
		snprintf(err, errlen, "%s", why);
		return NULL;
	}
	return &cached;
}
