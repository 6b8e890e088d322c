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
	static const char *const keys[] = { "says", "truth", "why", "source" };
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
		    "'says:', 'truth:', 'why:' or 'source:')", s);
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
	return rc;
}

int errata_load(const char *path, struct errata *e, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int rc, saved;

	memset(e, 0, sizeof(*e));
	if (!f) {
		saved = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	rc = getdelim(&text, &len, '\0', f) < 0 && ferror(f) ? -1 : 0;
	fclose(f);
	if (rc) {
		snprintf(err, errlen, "%s: read error", path);
		free(text);
		errno = EIO;
		return -1;
	}
	rc = errata_parse(text ? text : "", path, e, err, errlen);
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
		for (k = 0; k < e->items[i].nsources; k++)
			free(e->items[i].source[k]);
	}
	free(e->items);
	e->items = NULL;
	e->n = 0;
}
