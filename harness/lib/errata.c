/*
 * errata.c - parser for answers/errata.md (errata.h).
 *
 * Strict on purpose: a typo in a key would otherwise silently drop an
 * erratum and turn a known finding into a failed run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errata.h"

struct errata_parser {
	const char *name;
	int line;
	struct errata *e;
	struct erratum *cur;
	char *err;
	size_t errlen;
};

static int perr(struct errata_parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct errata_parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->errlen)
		return -1;
	n = snprintf(p->err, p->errlen, "%s:%d: ", p->name, line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "NN.k": digits, a dot, digits. */
static int claim_id_valid(const char *s)
{
	const char *dot = strchr(s, '.');
	size_t i;

	if (!dot || dot == s || !dot[1])
		return 0;
	for (i = 0; s[i]; i++)
		if (s + i != dot && !isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* An entry is complete when it says what is wrong, what is right, and where
 * that is documented. */
static int finish_entry(struct errata_parser *p)
{
	struct erratum *c = p->cur;

	if (!c)
		return 0;
	p->cur = NULL;
	if (!c->says)
		return perr(p, c->line, "erratum %s has no 'says:' line", c->id);
	if (!c->expect_text)
		return perr(p, c->line, "erratum %s has no 'expect:' line (the relation it "
			    "predicts)", c->id);
	if (!c->truth)
		return perr(p, c->line, "erratum %s has no 'truth:' line", c->id);
	if (!c->nsources)
		return perr(p, c->line, "erratum %s has no 'source:' line", c->id);
	return 0;
}

static int start_entry(struct errata_parser *p, const char *id)
{
	struct erratum *items;

	if (finish_entry(p))
		return -1;
	if (strlen(id) >= sizeof(p->cur->id) || !claim_id_valid(id))
		return perr(p, p->line, "'%s' is not a claim id (like 02.2)", id);
	if (errata_find(p->e, id))
		return perr(p, p->line, "erratum %s is listed twice", id);
	items = realloc(p->e->items, (size_t)(p->e->n + 1) * sizeof(*items));
	if (!items)
		return perr(p, p->line, "out of memory");
	p->e->items = items;
	p->cur = &items[p->e->n++];
	memset(p->cur, 0, sizeof(*p->cur));
	strcpy(p->cur->id, id);
	p->cur->line = p->line;
	return 0;
}

static int set_once(struct errata_parser *p, char **field, const char *key,
		    const char *value)
{
	if (*field)
		return perr(p, p->line, "second '%s:' line for erratum %s", key, p->cur->id);
	*field = strdup(value);
	return *field ? 0 : perr(p, p->line, "out of memory");
}

static int expect_line(struct errata_parser *p, struct erratum *c, const char *value)
{
	if (set_once(p, &c->expect_text, "expect", value))
		return -1;
	if (lab_want_parse(value, &c->expect, c->expect_name, sizeof(c->expect_name)) < 0)
		return perr(p, p->line, "'expect: %.60s' is not a relation (like 'ge 3', "
			    "'in_range 1 2', 'near 2 0.5', 'eq ENOMEM', 'eq false')", value);
	return 0;
}

/* "FACT OP NUMBER": the lab fact the erratum's applicability depends on. */
static int when_line(struct errata_parser *p, struct erratum *c, const char *value)
{
	size_t n = strcspn(value, " \t");
	char dummy[8];

	if (set_once(p, &c->when_text, "when", value))
		return -1;
	if (n == 0 || n >= sizeof(c->when_fact) ||
	    lab_want_parse(value + n + strspn(value + n, " \t"), &c->when, dummy,
			   sizeof(dummy)) < 0 || c->when.name)
		return perr(p, p->line, "'when: %.60s' is not 'FACT OP NUMBER' (like "
			    "'pcie_gen_max ge 4')", value);
	memcpy(c->when_fact, value, n);
	c->when_fact[n] = '\0';
	return 0;
}

static int key_line(struct errata_parser *p, const char *key, const char *value)
{
	struct erratum *c = p->cur;

	if (!c)
		return perr(p, p->line, "'%s:' before the first '## <claim id>' heading", key);
	if (!*value)
		return perr(p, p->line, "'%s:' has no value", key);
	if (strcmp(key, "says") == 0)
		return set_once(p, &c->says, key, value);
	if (strcmp(key, "truth") == 0)
		return set_once(p, &c->truth, key, value);
	if (strcmp(key, "why") == 0)
		return set_once(p, &c->why, key, value);
	if (strcmp(key, "expect") == 0)
		return expect_line(p, c, value);
	if (strcmp(key, "when") == 0)
		return when_line(p, c, value);
	if (c->nsources == ERRATA_MAX_SOURCES)
		return perr(p, p->line, "more than %d sources", ERRATA_MAX_SOURCES);
	c->source[c->nsources] = strdup(value);
	if (!c->source[c->nsources])
		return perr(p, p->line, "out of memory");
	c->nsources++;
	return 0;
}

/* One line, without its newline and trailing blanks. */
static int parse_line(struct errata_parser *p, const char *s)
{
	static const char *const keys[] = { "says", "expect", "when", "truth", "why", "source" };
	size_t i, n;

	if (!*s || (s[0] == '#' && (s[1] == ' ' || !s[1])))
		return 0;
	if (strncmp(s, "## ", 3) == 0) {
		while (*s == '#' || *s == ' ')
			s++;
		return start_entry(p, s);
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		n = strlen(keys[i]);
		if (strncmp(s, keys[i], n) == 0 && s[n] == ':') {
			s += n + 1;
			while (*s == ' ' || *s == '\t')
				s++;
			return key_line(p, keys[i], s);
		}
	}
	return perr(p, p->line, "unexpected line '%.40s' (want '## <claim id>', "
		    "'says:', 'expect:', 'when:', 'truth:', 'why:' or 'source:')", s);
}

int errata_parse(const char *text, const char *name, struct errata *e,
		 char *err, size_t errlen)
{
	struct errata_parser p = { name, 0, e, NULL, err, errlen };
	char line[2048];
	const char *s = text;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	while (*s && !rc) {
		size_t n = strcspn(s, "\n");

		p.line++;
		if (n >= sizeof(line)) {
			rc = perr(&p, p.line, "line longer than %zu bytes", sizeof(line) - 1);
			break;
		}
		memcpy(line, s, n);
		while (n && isspace((unsigned char)line[n - 1]))
			n--;
		line[n] = '\0';
		rc = parse_line(&p, line);
		s += strcspn(s, "\n");
		if (*s)
			s++;
	}
	if (!rc)
		rc = finish_entry(&p);
	if (rc)
		errata_free(e);
	/* items moved while they grew: point each name at its own buffer */
	for (int i = 0; !rc && i < e->n; i++)
		e->items[i].expect.name = e->items[i].expect_name[0] ? e->items[i].expect_name : NULL;
	return rc;
}

int errata_load(const char *path, struct errata *e, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	int rc, saved;

	memset(e, 0, sizeof(*e));
	if (!f) {
		saved = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	/* up to the first NUL: an empty file reads nothing (the buffer getdelim
	 * made holds no text then), a NUL byte means it is no text file */
	n = getdelim(&text, &len, '\0', f);
	rc = n < 0 && ferror(f) ? -1 : 0;
	fclose(f);
	if (rc || (n > 0 && text[n - 1] == '\0')) {
		if (rc)
			snprintf(err, errlen, "%s: read error", path);
		else
			snprintf(err, errlen, "%s: a NUL byte at offset %zd: not a text file",
				 path, n - 1);
		free(text);
		errno = rc ? EIO : EINVAL;
		return -1;
	}
	rc = errata_parse(n > 0 ? text : "", path, e, err, errlen);
	free(text);
	if (rc)
		errno = EINVAL;
	return rc;
}

const struct erratum *errata_find(const struct errata *e, const char *claim_id)
{
	int i;

	for (i = 0; e && i < e->n; i++)
		if (strcmp(e->items[i].id, claim_id) == 0)
			return &e->items[i];
	return NULL;
}

void errata_free(struct errata *e)
{
	int i, k;

	for (i = 0; i < e->n; i++) {
		free(e->items[i].says);
		free(e->items[i].truth);
		free(e->items[i].why);
		free(e->items[i].expect_text);
		free(e->items[i].when_text);
		for (k = 0; k < e->items[i].nsources; k++)
			free(e->items[i].source[k]);
	}
	free(e->items);
	e->items = NULL;
	e->n = 0;
}

/* answers/errata.md, built in by errata_text.S (NUL-terminated). */
extern const char dmalab_errata_text[];

const struct errata *errata_builtin(char *err, size_t errlen)
{
	static struct errata cached;
	static int state; /* 0 not read, 1 ok, -1 failed */
	static char why[512];
	const char *path = getenv("DMALAB_ERRATA");

	if (!state) {
		if (path && path[0])
			state = errata_load(path, &cached, why, sizeof(why)) ? -1 : 1;
		else
			state = errata_parse(dmalab_errata_text, "answers/errata.md (built in)",
					     &cached, why, sizeof(why)) ? -1 : 1;
	}
	if (state < 0) {
		snprintf(err, errlen, "%s", why);
		return NULL;
	}
	return &cached;
}
