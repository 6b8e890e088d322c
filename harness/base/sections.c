/*
 * sections.c - the one reader of "# title / ## id / key: value" files
 * (sections.h): answers/ch*.md, planned-claims.md, hints.md, errata.md and
 * messages.zh.md; plots/ gets the last two through dmalab (grade.json's
 * errata, `dmalab messages`), not a reader of its own.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sections.h"

int sec_error(struct sec_doc *d, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!d->errlen)
		return -1;
	n = snprintf(d->err, d->errlen, "%s:%d: ", d->name, line);
	if (n >= 0 && (size_t)n < d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err + n, d->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int utf8_valid(const char *s, size_t len, size_t *bad)
{
	size_t i = 0, n;

	while (i < len) {
		n = json_utf8_len(s + i, len - i);
		if (!n) {
			if (bad)
				*bad = i;
			return 0;
		}
		i += n;
	}
	return 1;
}

size_t utf8_fix(char *s, size_t len)
{
	size_t i = 0, n, fixed = 0;

	while (i < len) {
		n = json_utf8_len(s + i, len - i);
		if (!n) {
			s[i] = '?';
			fixed++;
			n = 1;
		}
		i += n;
	}
	return fixed;
}

static int append(struct sec_doc *d, struct sec_field *f, const char *s, size_t n)
{
	char *v = realloc(f->value, f->len + n + 1);

	if (!v)
		return sec_error(d, d->line, "out of memory");
	memcpy(v + f->len, s, n);
	f->len += n;
	v[f->len] = '\0';
	f->value = v;
	return 0;
}

/* Ends the value being read: it must not be empty. */
static int end_field(struct sec_doc *d)
{
	struct sec_field *f = d->cur;

	d->cur = NULL;
	d->blanks = 0;
	if (f && !f->len)
		return sec_error(d, f->line, "'%s:' has no value", d->kind->keys[f->key].name);
	return 0;
}

static int end_section(struct sec_doc *d)
{
	struct sec_section *s = d->ns ? &d->s[d->ns - 1] : NULL;
	int i, seen;

	if (end_field(d))
		return -1;
	if (!s)
		return 0;
	for (int k = 0; k < d->kind->nkeys; k++) {
		if (!(d->kind->keys[k].flags & SEC_REQUIRED))
			continue;
		for (i = 0, seen = 0; i < s->nf; i++)
			seen |= s->f[i].key == k;
		if (!seen)
			return sec_error(d, s->line, "%s %s has no '%s:'", d->kind->what, s->id,
				    d->kind->keys[k].name);
	}
	return 0;
}

static int start_section(struct sec_doc *d, const char *id)
{
	struct sec_section *s;

	if (end_section(d))
		return -1;
	if (!d->title && !d->kind->comments)
		return sec_error(d, d->line, "'## %s' before the '# ' title line", id);
	if (strlen(id) >= sizeof(d->s->id))
		return sec_error(d, d->line, "'%.40s...' is longer than an id may be (%zu "
				 "characters)", id, sizeof(d->s->id) - 1);
	if (!d->kind->id_ok(id, d->prefix))
		return sec_error(d, d->line, "'%.40s' is not a %s id (want %s)", id,
				 d->kind->id_what ? d->kind->id_what : d->kind->what,
				 d->kind->id_want);
	for (int i = 0; i < d->ns; i++)
		if (!strcmp(d->s[i].id, id))
			return sec_error(d, d->line, "%s %s is listed twice (first at line %d)",
				    d->kind->what, id, d->s[i].line);
	s = realloc(d->s, (size_t)(d->ns + 1) * sizeof(*s));
	if (!s)
		return sec_error(d, d->line, "out of memory");
	d->s = s;
	s = &d->s[d->ns++];
	memset(s, 0, sizeof(*s));
	snprintf(s->id, sizeof(s->id), "%s", id);
	s->line = d->line;
	return 0;
}

static void want_keys(const struct sec_kind *k, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < k->nkeys && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", k->keys[i].name);
}

static int find_key(const struct sec_kind *k, const char *name, size_t n)
{
	for (int i = 0; i < k->nkeys; i++)
		if (strlen(k->keys[i].name) == n && !strncmp(k->keys[i].name, name, n))
			return i;
	return -1;
}

static int add_field(struct sec_doc *d, int key, const char *value)
{
	struct sec_section *s = &d->s[d->ns - 1];
	struct sec_field *f;

	if (!(d->kind->keys[key].flags & SEC_REPEAT))
		for (int i = 0; i < s->nf; i++)
			if (s->f[i].key == key)
				return sec_error(d, d->line,
					    "second '%s:' in %s %s (first at line %d)",
					    d->kind->keys[key].name, d->kind->what, s->id,
					    s->f[i].line);
	f = realloc(s->f, (size_t)(s->nf + 1) * sizeof(*f));
	if (!f)
		return sec_error(d, d->line, "out of memory");
	s->f = f;
	f = &s->f[s->nf++];
	memset(f, 0, sizeof(*f));
	f->key = key;
	f->line = d->line;
	d->cur = f;
	return *value ? append(d, f, value, strlen(value)) : 0;
}

/* "key: value" at column 0; n is the length of the key. */
static int key_line(struct sec_doc *d, const char *s, size_t n)
{
	char want[256];
	int key;

	if (end_field(d))
		return -1;
	key = find_key(d->kind, s, n);
	if (key < 0 && d->kind->retired_key && strlen(d->kind->retired_key) == n &&
	    !strncmp(s, d->kind->retired_key, n))
		return sec_error(d, d->line, "'%s:' %s", d->kind->retired_key,
				 d->kind->retired_why);
	if (key < 0) {
		want_keys(d->kind, want, sizeof(want));
		return sec_error(d, d->line, "unknown key '%.*s' (want %s)", (int)n, s, want);
	}
	if (!d->ns)
		return sec_error(d, d->line, "'%.*s:' before the first '## <id>' heading",
				 (int)n, s);
	s += n + 1;
	while (*s == ' ' || *s == '\t')
		s++;
	return add_field(d, key, s);
}

static int continuation(struct sec_doc *d, const char *s)
{
	if (!d->cur)
		return sec_error(d, d->line, "indented line outside a 'key:' value");
	while (*s == ' ' || *s == '\t')
		s++;
	if (d->cur->len && append(d, d->cur, d->blanks ? "\n\n" : "\n", d->blanks ? 2 : 1))
		return -1;
	d->blanks = 0;
	return append(d, d->cur, s, strlen(s));
}

static int title_line(struct sec_doc *d, const char *s)
{
	if (d->title)
		return sec_error(d, d->line, "a second '# ' title line (the first is line %d)",
			    d->title_line);
	s += 2 + strspn(s + 2, " ");
	if (d->kind->title && d->kind->title(d, s))
		return -1;
	d->title = strdup(s);
	d->title_line = d->line;
	return d->title ? 0 : sec_error(d, d->line, "out of memory");
}

/* A key is lower-case letters, digits and dots, then ':'; returns its length. */
static size_t key_length(const char *s)
{
	size_t n = 0;

	while (islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '.')
		n++;
	return n && s[n] == ':' ? n : 0;
}

/* One line without its end of line and trailing blanks. */
static int doc_line(struct sec_doc *d, const char *s)
{
	size_t n;

	if (!*s) {
		d->blanks += d->cur != NULL;
		return 0;
	}
	if (*s == ' ' || *s == '\t')
		return continuation(d, s);
	if (!strncmp(s, "## ", 3))
		return start_section(d, s + 3 + strspn(s + 3, " "));
	if (d->kind->comments && s[0] == '#' && (s[1] == ' ' || !s[1]))
		return 0;
	if (!strncmp(s, "# ", 2)) {
		if (end_field(d))
			return -1;
		return d->ns ? sec_error(d, d->line, "'# ' title line after the first section")
			     : title_line(d, s);
	}
	n = key_length(s);
	if (n)
		return key_line(d, s, n);
	return sec_error(d, d->line, "unexpected line '%.40s' (want '## <id>', 'key: value' "
		    "or an indented continuation)", s);
}

/* Checks one raw line (NUL bytes were ruled out) and hands it on. */
static int raw_line(struct sec_doc *d, const char *p, size_t n, char **buf, size_t *cap)
{
	size_t bad;

	if (!utf8_valid(p, n, &bad))
		return sec_error(d, d->line, "invalid UTF-8 (byte 0x%02x at column %zu)",
			    (unsigned char)p[bad], bad + 1);
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n + 1 > *cap) {
		char *b = realloc(*buf, n + 1);

		if (!b)
			return sec_error(d, d->line, "out of memory");
		*buf = b;
		*cap = n + 1;
	}
	memcpy(*buf, p, n);
	(*buf)[n] = '\0';
	return doc_line(d, *buf);
}

static int nul_line(const char *text, size_t at)
{
	int line = 1;

	for (size_t i = 0; i < at; i++)
		line += text[i] == '\n';
	return line;
}

int sec_parse(struct sec_doc *d, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *nul = memchr(text, '\0', len);
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	if (nul)
		return sec_error(d, nul_line(text, (size_t)(nul - text)), "NUL byte in the file");
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3; /* a byte-order mark some editors write */
	while (p < end && !rc) {
		nl = memchr(p, '\n', (size_t)(end - p));
		d->line++;
		rc = raw_line(d, p, (size_t)((nl ? nl : end) - p), &buf, &cap);
		p = nl ? nl + 1 : end;
	}
	free(buf);
	if (!rc)
		rc = end_section(d);
	if (!rc && !d->title && !d->kind->comments)
		rc = sec_error(d, d->line ? d->line : 1, "no '# ' title line");
	return rc;
}

void sec_free(struct sec_doc *d)
{
	for (int i = 0; i < d->ns; i++) {
		for (int k = 0; k < d->s[i].nf; k++)
			free(d->s[i].f[k].value);
		free(d->s[i].f);
	}
	free(d->s);
	free(d->title);
	d->s = NULL;
	d->ns = 0;
	d->title = NULL;
}

void sec_init(struct sec_doc *d, const struct sec_kind *k, const char *name,
		     char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->kind = k;
	d->name = name;
	d->err = err;
	d->errlen = errlen;
	if (errlen)
		err[0] = '\0';
}

char *sec_take(struct sec_field *f)
{
	char *v = f->value;

	f->value = NULL;
	return v;
}

char *sec_read_all(const char *path, size_t *len, int *opened)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *grown;
	size_t cap = 0, n;

	*len = 0;
	*opened = f != NULL;
	if (!f)
		return NULL;
	errno = 0;
	do {
		if (*len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = grown;
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n > 0);
	if (ferror(f)) {
		int e = errno ? errno : EIO; /* fread's reason: EISDIR for a directory */

		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

char *sec_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	int opened, e;
	char *buf = sec_read_all(path, len, &opened);

	if (buf)
		return buf;
	e = errno;
	if (opened)
		snprintf(err, errlen, "%s: cannot read it", path);
	else
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	errno = e;
	return NULL;
}

