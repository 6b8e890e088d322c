/*
 * answers.c - parser of the answers files (answers.h, answers/README.md).
 *
 * Two steps: a generic pass turns a file into sections of key/value fields,
 * checking the syntax every file shares; then one function per file kind
 * turns the sections into questions, planned claims or hints, checking what
 * the values mean.  Strict on purpose: a typo in a key must not silently
 * drop half an answer.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"

#define KEY_REQUIRED 1
#define KEY_REPEAT   2

struct key_spec {
	const char *name;
	int flags;
};

struct field {
	int key;                 /* index into the kind's keys */
	char *value;
	size_t len;
	int line;
};

struct section {
	char id[24];
	int line;
	struct field *f;
	int nf;
};

struct kind {
	const char *what;        /* "question" or "lab", in messages */
	const struct key_spec *keys;
	int nkeys;
	int (*id_ok)(const char *id, const char *prefix);
	const char *id_want;     /* what an id looks like, in messages */
};

struct doc {
	const char *name;
	const struct kind *kind;
	char *title;
	int title_line;
	char prefix[16];         /* chapter id from the title, for question ids */
	struct section *s;
	int ns;
	struct field *cur;       /* the value being read */
	int blanks;              /* blank lines pending inside cur */
	int line;
	char *err;
	size_t errlen;
};

static int derr(struct doc *d, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int derr(struct doc *d, int line, const char *fmt, ...)
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

/* ------------------------------------------------------------------------ */
/* Ids and UTF-8                                                             */

static int all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* "02.1": digits, a dot, digits. */
static int claim_id_ok(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot && all_digits(s, (size_t)(dot - s)) && all_digits(dot + 1, strlen(dot + 1)) &&
	       strlen(s) < sizeof(((struct ans_planned_claim *)0)->id);
}

/* "07": one to six digits. */
static int lab_id_ok(const char *s, const char *prefix)
{
	(void)prefix;
	return all_digits(s, strlen(s)) && strlen(s) <= 6;
}

/* "ch1.Q2": the chapter id, a dot, capital letters, digits. */
static int question_id_ok(const char *s, const char *prefix)
{
	size_t n = strlen(prefix), i;

	if (strncmp(s, prefix, n) || s[n] != '.' || !isupper((unsigned char)s[n + 1]))
		return 0;
	for (i = n + 1; isupper((unsigned char)s[i]); i++)
		;
	return all_digits(s + i, strlen(s + i)) && strlen(s) < 24;
}

int ans_question_id_ok(const char *s)
{
	char prefix[16];
	size_t n = strspn(s + (strncmp(s, "ch", 2) ? 0 : 2), "0123456789");

	if (strncmp(s, "ch", 2) || !n || n + 2 >= sizeof(prefix))
		return 0;
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(n + 2), s);
	return question_id_ok(s, prefix);
}

void ans_claim_lab(const char *claim, char *out, size_t outlen)
{
	size_t n = strcspn(claim, ".");

	snprintf(out, outlen, "%.*s", (int)n, claim);
}

/* Length of the UTF-8 sequence at s (at most len bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int ans_utf8_valid(const char *s, size_t len, size_t *bad)
{
	size_t i = 0, n;

	while (i < len) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (!n) {
			if (bad)
				*bad = i;
			return 0;
		}
		i += n;
	}
	return 1;
}

size_t ans_utf8_fix(char *s, size_t len)
{
	size_t i = 0, n, fixed = 0;

	while (i < len) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (!n) {
			s[i] = '?';
			fixed++;
			n = 1;
		}
		i += n;
	}
	return fixed;
}

/* ------------------------------------------------------------------------ */
/* Generic pass: sections of fields                                          */

static int append(struct doc *d, struct field *f, const char *s, size_t n)
{
	char *v = realloc(f->value, f->len + n + 1);

	if (!v)
		return derr(d, d->line, "out of memory");
	memcpy(v + f->len, s, n);
	f->len += n;
	v[f->len] = '\0';
	f->value = v;
	return 0;
}

/* Ends the value being read: it must not be empty. */
static int end_field(struct doc *d)
{
	struct field *f = d->cur;

	d->cur = NULL;
	d->blanks = 0;
	if (f && !f->len)
		return derr(d, f->line, "'%s:' has no value", d->kind->keys[f->key].name);
	return 0;
}

static int end_section(struct doc *d)
{
	struct section *s = d->ns ? &d->s[d->ns - 1] : NULL;
	int k, i, seen;

	if (end_field(d))
		return -1;
	if (!s)
		return 0;
	for (k = 0; k < d->kind->nkeys; k++) {
		if (!(d->kind->keys[k].flags & KEY_REQUIRED))
			continue;
		for (i = 0, seen = 0; i < s->nf; i++)
			seen |= s->f[i].key == k;
		if (!seen)
			return derr(d, s->line, "%s %s has no '%s:'", d->kind->what, s->id,
				    d->kind->keys[k].name);
	}
	return 0;
}

static int start_section(struct doc *d, const char *id)
{
	struct section *s;
	int i;

	if (end_section(d))
		return -1;
	if (!d->title)
		return derr(d, d->line, "'## %s' before the '# ' title line", id);
	if (!d->kind->id_ok(id, d->prefix))
		return derr(d, d->line, "'%.40s' is not a %s id (want %s)", id,
			    d->kind->what, d->kind->id_want);
	for (i = 0; i < d->ns; i++)
		if (!strcmp(d->s[i].id, id))
			return derr(d, d->line, "%s %s is listed twice (first at line %d)",
				    d->kind->what, id, d->s[i].line);
	s = realloc(d->s, (size_t)(d->ns + 1) * sizeof(*s));
	if (!s)
		return derr(d, d->line, "out of memory");
	d->s = s;
	s = &d->s[d->ns++];
	memset(s, 0, sizeof(*s));
	snprintf(s->id, sizeof(s->id), "%s", id);
	s->line = d->line;
	return 0;
}

static void want_keys(const struct kind *k, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < k->nkeys && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", k->keys[i].name);
}

static int find_key(const struct kind *k, const char *name, size_t n)
{
	int i;

	for (i = 0; i < k->nkeys; i++)
		if (strlen(k->keys[i].name) == n && !strncmp(k->keys[i].name, name, n))
			return i;
	return -1;
}

static int add_field(struct doc *d, int key, const char *value)
{
	struct section *s = &d->s[d->ns - 1];
	struct field *f;
	int i;

	if (!(d->kind->keys[key].flags & KEY_REPEAT))
		for (i = 0; i < s->nf; i++)
			if (s->f[i].key == key)
				return derr(d, d->line, "second '%s:' in %s %s (first at line %d)",
					    d->kind->keys[key].name, d->kind->what, s->id,
					    s->f[i].line);
	f = realloc(s->f, (size_t)(s->nf + 1) * sizeof(*f));
	if (!f)
		return derr(d, d->line, "out of memory");
	s->f = f;
	f = &s->f[s->nf++];
	memset(f, 0, sizeof(*f));
	f->key = key;
	f->line = d->line;
	d->cur = f;
	return *value ? append(d, f, value, strlen(value)) : 0;
}

/* "key: value" at column 0; n is the length of the key. */
static int key_line(struct doc *d, const char *s, size_t n)
{
	char want[256];
	int key;

	if (end_field(d))
		return -1;
	key = find_key(d->kind, s, n);
	if (key < 0 && d->kind->id_ok == question_id_ok && n == 6 && !strncmp(s, "claims", 6))
		return derr(d, d->line, "'claims:' is not written here any more: a claim names "
			    "its questions in its lab's spec (answers/README.md)");
	if (key < 0) {
		want_keys(d->kind, want, sizeof(want));
		return derr(d, d->line, "unknown key '%.*s' (want %s)", (int)n, s, want);
	}
	if (!d->ns)
		return derr(d, d->line, "'%.*s:' before the first '## <id>' heading", (int)n, s);
	s += n + 1;
	while (*s == ' ' || *s == '\t')
		s++;
	return add_field(d, key, s);
}

static int continuation(struct doc *d, const char *s)
{
	if (!d->cur)
		return derr(d, d->line, "indented line outside a 'key:' value");
	while (*s == ' ' || *s == '\t')
		s++;
	if (d->cur->len && append(d, d->cur, d->blanks ? "\n\n" : "\n", d->blanks ? 2 : 1))
		return -1;
	d->blanks = 0;
	return append(d, d->cur, s, strlen(s));
}

/* "# ch1: title" names the chapter its question ids start with. */
static int chapter_title(struct doc *d, const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz");
	size_t k = n + strspn(s + n, "0123456789");

	if (strncmp(s, "ch", 2) || n != 2 || k == n || s[k] != ':' || !s[k + 1] ||
	    k >= sizeof(d->prefix))
		return derr(d, d->line, "the title must be '# chN: <title>', not '# %.40s'", s);
	memcpy(d->prefix, s, k);
	d->prefix[k] = '\0';
	return 0;
}

static int title_line(struct doc *d, const char *s)
{
	if (d->title)
		return derr(d, d->line, "a second '# ' title line (the first is line %d)",
			    d->title_line);
	s += 2 + strspn(s + 2, " ");
	if (d->kind->id_ok == question_id_ok && chapter_title(d, s))
		return -1;
	d->title = strdup(s);
	d->title_line = d->line;
	return d->title ? 0 : derr(d, d->line, "out of memory");
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
static int doc_line(struct doc *d, const char *s)
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
	if (!strncmp(s, "# ", 2)) {
		if (end_field(d))
			return -1;
		return d->ns ? derr(d, d->line, "'# ' title line after the first section")
			     : title_line(d, s);
	}
	n = key_length(s);
	if (n)
		return key_line(d, s, n);
	return derr(d, d->line, "unexpected line '%.40s' (want '## <id>', 'key: value' "
		    "or an indented continuation)", s);
}

/* Checks one raw line (NUL bytes were ruled out) and hands it on. */
static int raw_line(struct doc *d, const char *p, size_t n, char **buf, size_t *cap)
{
	size_t bad;

	if (!ans_utf8_valid(p, n, &bad))
		return derr(d, d->line, "invalid UTF-8 (byte 0x%02x at column %zu)",
			    (unsigned char)p[bad], bad + 1);
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n + 1 > *cap) {
		char *b = realloc(*buf, n + 1);

		if (!b)
			return derr(d, d->line, "out of memory");
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
	size_t i;

	for (i = 0; i < at; i++)
		line += text[i] == '\n';
	return line;
}

static int doc_parse(struct doc *d, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *nul = memchr(text, '\0', len);
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	if (nul)
		return derr(d, nul_line(text, (size_t)(nul - text)), "NUL byte in the file");
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
	if (!rc && !d->title)
		rc = derr(d, d->line ? d->line : 1, "no '# ' title line");
	return rc;
}

static void doc_free(struct doc *d)
{
	int i, k;

	for (i = 0; i < d->ns; i++) {
		for (k = 0; k < d->s[i].nf; k++)
			free(d->s[i].f[k].value);
		free(d->s[i].f);
	}
	free(d->s);
	free(d->title);
	d->s = NULL;
	d->ns = 0;
	d->title = NULL;
}

static void doc_init(struct doc *d, const struct kind *k, const char *name,
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

/* Takes the value of a field (the doc no longer owns it). */
static char *take(struct field *f)
{
	char *v = f->value;

	f->value = NULL;
	return v;
}

/* ------------------------------------------------------------------------ */
/* Chapters: questions                                                       */

enum { Q_PROMPT_EN, Q_PROMPT_ZH, Q_ANSWER_EN, Q_ANSWER_ZH };

static const struct key_spec question_keys[] = {
	[Q_PROMPT_EN] = { "prompt.en", KEY_REQUIRED },
	[Q_PROMPT_ZH] = { "prompt.zh", KEY_REQUIRED },
	[Q_ANSWER_EN] = { "answer.en", KEY_REQUIRED },
	[Q_ANSWER_ZH] = { "answer.zh", KEY_REQUIRED },
};

static const struct kind question_kind = {
	"question", question_keys, 4, question_id_ok, "<chapter>.<letters><digits>, like ch1.Q1"
};

static int to_question(struct doc *d, struct section *s, struct ans_question *q)
{
	int i;

	(void)d;
	snprintf(q->id, sizeof(q->id), "%s", s->id);
	q->line = s->line;
	for (i = 0; i < s->nf; i++) {
		struct field *f = &s->f[i];

		if (f->key == Q_PROMPT_EN || f->key == Q_PROMPT_ZH)
			q->prompt[f->key == Q_PROMPT_ZH] = take(f);
		else if (f->key == Q_ANSWER_EN || f->key == Q_ANSWER_ZH)
			q->answer[f->key == Q_ANSWER_ZH] = take(f);
	}
	return 0;
}

static void question_free(struct ans_question *q)
{
	int i;

	for (i = 0; i < q->nclaims; i++)
		free(q->claims[i]);
	free(q->claims);
	for (i = 0; i < ANS_NLANGS; i++) {
		free(q->prompt[i]);
		free(q->answer[i]);
	}
}

void ans_chapter_free(struct ans_chapter *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		question_free(&c->q[i]);
	free(c->q);
	free(c->title);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

static int to_chapter(struct doc *d, struct ans_chapter *c)
{
	const char *rest = d->title + strlen(d->prefix) + 1; /* after "chN:" */
	int i;

	snprintf(c->id, sizeof(c->id), "%s", d->prefix);
	c->title = strdup(rest + strspn(rest, " "));
	c->path = strdup(d->name);
	c->q = calloc((size_t)d->ns + 1, sizeof(*c->q));
	if (!c->title || !c->path || !c->q)
		return derr(d, 1, "out of memory");
	if (!d->ns)
		return derr(d, d->title_line, "chapter %s has no question", c->id);
	for (i = 0; i < d->ns; i++, c->n++)
		if (to_question(d, &d->s[i], &c->q[i])) {
			c->n++;
			return -1;
		}
	return 0;
}

int ans_parse_chapter(const char *text, size_t len, const char *name,
		      struct ans_chapter *c, char *err, size_t errlen)
{
	struct doc d;
	int rc;

	memset(c, 0, sizeof(*c));
	doc_init(&d, &question_kind, name, err, errlen);
	rc = doc_parse(&d, text, len);
	if (!rc)
		rc = to_chapter(&d, c);
	doc_free(&d);
	if (rc)
		ans_chapter_free(c);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Planned claims and hints                                                  */

enum { P_TITLE, P_CLAIM };

static const struct key_spec planned_keys[] = {
	[P_TITLE] = { "title", KEY_REQUIRED },
	[P_CLAIM] = { "claim", KEY_REQUIRED | KEY_REPEAT },
};

static const struct kind planned_kind = {
	"lab", planned_keys, 2, lab_id_ok, "the lab's number, like 07"
};

enum { H_EN, H_ZH };

static const struct key_spec hint_keys[] = {
	[H_EN] = { "hint.en", KEY_REQUIRED | KEY_REPEAT },
	[H_ZH] = { "hint.zh", KEY_REQUIRED | KEY_REPEAT },
};

static const struct kind hint_kind = {
	"lab", hint_keys, 2, lab_id_ok, "the lab's number, like 03"
};

/* "[ch1.Q4 ch2.S5]" at v: the question ids it backs, into pc->questions;
 * returns the length of the brackets and what they hold, or -1. */
static int planned_questions(struct doc *d, struct field *f, const char *v,
			     struct ans_planned_claim *pc)
{
	const char *close = *v == '[' ? strchr(v, ']') : NULL;
	const char *p = v + 1;
	char word[64];
	size_t n;

	if (!close || memchr(v, '\n', (size_t)(close - v)))
		return derr(d, f->line, "claim %s: want the questions it backs in brackets "
			    "after its id: '%s [ch1.Q1] text'", pc->id, pc->id);
	while ((p += strspn(p, " \t")) < close) {
		n = strcspn(p, " \t]");
		snprintf(word, sizeof(word), "%.*s", (int)(n < 63 ? n : 63), p);
		if (!ans_question_id_ok(word))
			return derr(d, f->line, "claim %s: '%.40s' is not a question id (like "
				    "ch1.Q1)", pc->id, word);
		p += n;
	}
	pc->questions = strndup(v + 1, (size_t)(close - v - 1));
	if (!pc->questions)
		return derr(d, f->line, "out of memory");
	if (!pc->questions[strspn(pc->questions, " \t")])
		return derr(d, f->line, "claim %s backs no question: '[]'", pc->id);
	return (int)(close - v + 1);
}

/* "07.1 [ch2.S1] text": the id must belong to the section's lab. */
static int planned_claim(struct doc *d, const struct ans_set *s, const char *lab,
			 struct field *f, struct ans_planned_claim *pc)
{
	size_t n = strcspn(f->value, " \t\n");
	char owner[16], id[sizeof(pc->id)];
	int qlen;

	snprintf(id, sizeof(id), "%.*s", (int)(n < 23 ? n : 23), f->value);
	if (n >= sizeof(id) || !claim_id_ok(id))
		return derr(d, f->line, "'claim:' must start with a claim id (like %s.1)", lab);
	ans_claim_lab(id, owner, sizeof(owner));
	if (strcmp(owner, lab))
		return derr(d, f->line, "claim %s does not belong to lab %s", id, lab);
	if (ans_find_planned(s, id))
		return derr(d, f->line, "claim %s is planned twice", id);
	memcpy(pc->id, id, sizeof(id));
	n += strspn(f->value + n, " \t\n");
	qlen = planned_questions(d, f, f->value + n, pc);
	if (qlen < 0)
		return -1;
	n += (size_t)qlen;
	n += strspn(f->value + n, " \t\n");
	if (!f->value[n])
		return derr(d, f->line, "claim %s has no text", pc->id);
	pc->text = strdup(f->value + n);
	return pc->text ? 0 : derr(d, f->line, "out of memory");
}

static int to_planned_lab(struct doc *d, struct ans_set *set, struct section *s)
{
	struct ans_planned_lab *l = &set->planned[set->nplanned];
	int i;

	memset(l, 0, sizeof(*l));
	snprintf(l->id, sizeof(l->id), "%.7s", s->id);
	l->line = s->line;
	l->claims = calloc((size_t)s->nf, sizeof(*l->claims));
	if (!l->claims)
		return derr(d, s->line, "out of memory");
	set->nplanned++; /* owned by the set from here on, for freeing */
	for (i = 0; i < s->nf; i++) {
		if (s->f[i].key == P_TITLE)
			l->title = take(&s->f[i]);
		else if (planned_claim(d, set, l->id, &s->f[i], &l->claims[l->n++]))
			return -1;
	}
	return 0;
}

static int to_hint_lab(struct doc *d, struct ans_set *set, struct section *s)
{
	struct ans_hint_lab *h = &set->hints[set->nhints];
	int i, n[ANS_NLANGS] = { 0, 0 };

	memset(h, 0, sizeof(*h));
	snprintf(h->id, sizeof(h->id), "%.7s", s->id);
	h->line = s->line;
	h->hint[0] = calloc((size_t)s->nf + 1, sizeof(char *)); /* NULL-terminated */
	h->hint[1] = calloc((size_t)s->nf + 1, sizeof(char *));
	set->nhints++;
	if (!h->hint[0] || !h->hint[1])
		return derr(d, s->line, "out of memory");
	for (i = 0; i < s->nf; i++) {
		int lang = s->f[i].key == H_ZH;

		h->hint[lang][n[lang]++] = take(&s->f[i]);
	}
	h->n = n[0] < n[1] ? n[0] : n[1];
	if (n[0] != n[1])
		return derr(d, s->line, "lab %s has %d 'hint.en:' but %d 'hint.zh:' (they "
			    "go in pairs)", s->id, n[0], n[1]);
	return 0;
}

static void planned_free(struct ans_planned_lab *l)
{
	int k;

	for (k = 0; k < l->n; k++) {
		free(l->claims[k].text);
		free(l->claims[k].questions);
	}
	free(l->claims);
	free(l->title);
}

static void hints_free(struct ans_hint_lab *h)
{
	int k, lang;

	for (lang = 0; lang < ANS_NLANGS; lang++) {
		for (k = 0; h->hint[lang] && h->hint[lang][k]; k++)
			free(h->hint[lang][k]);
		free(h->hint[lang]);
	}
}

/* Sections of lab ids, appended to one of the set's arrays. */
static int parse_labs(const char *text, size_t len, const char *name, struct ans_set *s,
		      const struct kind *k, char *err, size_t errlen)
{
	struct doc d;
	void *grown;
	int rc, i, hints = k == &hint_kind;

	doc_init(&d, k, name, err, errlen);
	rc = doc_parse(&d, text, len);
	for (i = 0; !rc && i < d.ns; i++) {
		if (hints ? (const void *)ans_find_hints(s, d.s[i].id)
			  : (const void *)ans_find_planned_lab(s, d.s[i].id)) {
			rc = derr(&d, d.s[i].line, "lab %s is listed twice", d.s[i].id);
			break;
		}
		grown = hints ? realloc(s->hints, (size_t)(s->nhints + 1) * sizeof(*s->hints))
			      : realloc(s->planned, (size_t)(s->nplanned + 1) * sizeof(*s->planned));
		if (!grown) {
			rc = derr(&d, d.s[i].line, "out of memory");
			break;
		}
		if (hints)
			s->hints = grown;
		else
			s->planned = grown;
		rc = hints ? to_hint_lab(&d, s, &d.s[i]) : to_planned_lab(&d, s, &d.s[i]);
	}
	doc_free(&d);
	return rc;
}

int ans_parse_planned(const char *text, size_t len, const char *name,
		      struct ans_set *s, char *err, size_t errlen)
{
	return parse_labs(text, len, name, s, &planned_kind, err, errlen);
}

int ans_parse_hints(const char *text, size_t len, const char *name,
		    struct ans_set *s, char *err, size_t errlen)
{
	return parse_labs(text, len, name, s, &hint_kind, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* The set                                                                   */

void ans_set_free(struct ans_set *s)
{
	int i;

	for (i = 0; i < s->nch; i++)
		ans_chapter_free(&s->ch[i]);
	for (i = 0; i < s->nplanned; i++)
		planned_free(&s->planned[i]);
	for (i = 0; i < s->nhints; i++)
		hints_free(&s->hints[i]);
	free(s->ch);
	free(s->planned);
	free(s->hints);
	free(s->mapped);
	memset(s, 0, sizeof(*s));
}

const struct ans_chapter *ans_find_chapter(const struct ans_set *s, const char *id)
{
	int i;

	for (i = 0; i < s->nch; i++)
		if (!strcmp(s->ch[i].id, id))
			return &s->ch[i];
	return NULL;
}

const struct ans_question *ans_find_question(const struct ans_set *s, const char *id)
{
	int i, k;

	for (i = 0; i < s->nch; i++)
		for (k = 0; k < s->ch[i].n; k++)
			if (!strcmp(s->ch[i].q[k].id, id))
				return &s->ch[i].q[k];
	return NULL;
}

const struct ans_planned_lab *ans_find_planned_lab(const struct ans_set *s, const char *lab)
{
	int i;

	for (i = 0; i < s->nplanned; i++)
		if (!strcmp(s->planned[i].id, lab))
			return &s->planned[i];
	return NULL;
}

const struct ans_planned_claim *ans_find_planned(const struct ans_set *s, const char *claim)
{
	int i, k;

	for (i = 0; i < s->nplanned; i++)
		for (k = 0; k < s->planned[i].n; k++)
			if (!strcmp(s->planned[i].claims[k].id, claim))
				return &s->planned[i].claims[k];
	return NULL;
}

const struct ans_hint_lab *ans_find_hints(const struct ans_set *s, const char *lab)
{
	int i;

	for (i = 0; i < s->nhints; i++)
		if (!strcmp(s->hints[i].id, lab))
			return &s->hints[i];
	return NULL;
}

/* The whole file into a buffer; -1 with "path: why" in err. */
static char *read_all(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *grown;
	size_t cap = 0, n;

	*len = 0;
	if (!f) {
		int saved = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return NULL;
	}
	do {
		if (*len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap);
			if (!grown)
				break;
			buf = grown;
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n > 0);
	if (ferror(f) || !buf || *len + 1 > cap) {
		snprintf(err, errlen, "%s: cannot read it", path);
		free(buf);
		buf = NULL;
	} else {
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* A chapter file into the set; chapter and question ids unique. */
static int load_chapter(const char *path, struct ans_set *s, char *err, size_t errlen)
{
	struct ans_chapter c, *grown;
	size_t len;
	char *text = read_all(path, &len, err, errlen);
	int rc, i;

	if (!text)
		return -1;
	rc = ans_parse_chapter(text, len, path, &c, err, errlen);
	free(text);
	if (rc)
		return -1;
	for (i = 0; i < c.n; i++)
		if (ans_find_chapter(s, c.id) || ans_find_question(s, c.q[i].id)) {
			snprintf(err, errlen, "%s:%d: %s is also defined in an earlier file",
				 path, c.q[i].line, ans_find_chapter(s, c.id) ? c.id : c.q[i].id);
			ans_chapter_free(&c);
			return -1;
		}
	grown = realloc(s->ch, (size_t)(s->nch + 1) * sizeof(*grown));
	if (!grown) {
		ans_chapter_free(&c);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	s->ch = grown;
	s->ch[s->nch++] = c;
	return 0;
}

/* An optional file of labs: absent is fine. */
static int load_labs(const char *dir, const char *file, struct ans_set *s,
		     int (*parse)(const char *, size_t, const char *, struct ans_set *,
				  char *, size_t),
		     char *err, size_t errlen)
{
	char path[4096];
	size_t len;
	char *text;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	text = read_all(path, &len, err, errlen);
	if (!text)
		return errno == ENOENT ? 0 : -1;
	rc = parse(text, len, path, s, err, errlen);
	free(text);
	return rc;
}

int ans_load_dir(const char *dir, struct ans_set *s, char *err, size_t errlen)
{
	char pattern[4096];
	glob_t g;
	size_t i;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	snprintf(pattern, sizeof(pattern), "%s/ch[0-9]*.md", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		snprintf(err, errlen, "%s: no chapter file (ch*.md) there", dir);
		return -1;
	}
	for (i = 0; i < g.gl_pathc && !rc; i++)
		rc = load_chapter(g.gl_pathv[i], s, err, errlen);
	globfree(&g);
	if (!rc)
		rc = load_labs(dir, "planned-claims.md", s, ans_parse_planned, err, errlen);
	if (!rc)
		rc = load_labs(dir, "hints.md", s, ans_parse_hints, err, errlen);
	if (rc)
		ans_set_free(s);
	return rc;
}
