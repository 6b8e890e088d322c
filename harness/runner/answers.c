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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"
#include "sections.h"

/* ------------------------------------------------------------------------ */
/* Ids                                                                       */

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
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

/* ------------------------------------------------------------------------ */
/* Chapters: questions                                                       */

enum { Q_PROMPT_EN, Q_PROMPT_ZH, Q_ANSWER_EN, Q_ANSWER_ZH };

static const struct sec_key question_keys[] = {
	[Q_PROMPT_EN] = { "prompt.en", SEC_REQUIRED },
	[Q_PROMPT_ZH] = { "prompt.zh", SEC_REQUIRED },
	[Q_ANSWER_EN] = { "answer.en", SEC_REQUIRED },
	[Q_ANSWER_ZH] = { "answer.zh", SEC_REQUIRED },
};

/* "# ch1: title" names the chapter its question ids start with. */
static int chapter_title(struct sec_doc *d, const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz");
	size_t k = n + strspn(s + n, "0123456789");

	if (strncmp(s, "ch", 2) || n != 2 || k == n || s[k] != ':' || !s[k + 1] ||
	    k >= sizeof(d->prefix))
		return sec_error(d, d->line, "the title must be '# chN: <title>', not '# %.40s'",
				 s);
	memcpy(d->prefix, s, k);
	d->prefix[k] = '\0';
	return 0;
}

static const struct sec_kind question_kind = {
	.what = "question",
	.keys = question_keys,
	.nkeys = 4,
	.id_ok = question_id_ok,
	.id_want = "<chapter>.<letters><digits>, like ch1.Q1",
	.title = chapter_title,
	.retired_key = "claims",
	.retired_why = "is not written here any more: a claim names its questions in its "
		       "lab's spec (answers/README.md)",
};

static void to_question(struct sec_section *s, struct ans_question *q)
{
	snprintf(q->id, sizeof(q->id), "%.23s", s->id); /* question_id_ok: < 24 */
	q->line = s->line;
	for (int i = 0; i < s->nf; i++) {
		struct sec_field *f = &s->f[i];

		if (f->key == Q_PROMPT_EN || f->key == Q_PROMPT_ZH)
			q->prompt[f->key == Q_PROMPT_ZH] = sec_take(f);
		else if (f->key == Q_ANSWER_EN || f->key == Q_ANSWER_ZH)
			q->answer[f->key == Q_ANSWER_ZH] = sec_take(f);
	}
}

static void question_free(struct ans_question *q)
{
	for (int i = 0; i < q->nclaims; i++)
		free(q->claims[i]);
	free(q->claims);
	for (int i = 0; i < ANS_NLANGS; i++) {
		free(q->prompt[i]);
		free(q->answer[i]);
	}
}

void ans_chapter_free(struct ans_chapter *c)
{
	for (int i = 0; i < c->n; i++)
		question_free(&c->q[i]);
	free(c->q);
	free(c->title);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

static int to_chapter(struct sec_doc *d, struct ans_chapter *c)
{
	const char *rest = d->title + strlen(d->prefix) + 1; /* after "chN:" */

	snprintf(c->id, sizeof(c->id), "%s", d->prefix);
	c->title = strdup(rest + strspn(rest, " "));
	c->path = strdup(d->name);
	c->q = calloc((size_t)d->ns + 1, sizeof(*c->q));
	if (!c->title || !c->path || !c->q)
		return sec_error(d, 1, "out of memory");
	if (!d->ns)
		return sec_error(d, d->title_line, "chapter %s has no question", c->id);
	for (int i = 0; i < d->ns; i++)
		to_question(&d->s[i], &c->q[c->n++]);
	return 0;
}

int ans_parse_chapter(const char *text, size_t len, const char *name,
		      struct ans_chapter *c, char *err, size_t errlen)
{
	struct sec_doc d;
	int rc;

	memset(c, 0, sizeof(*c));
	sec_init(&d, &question_kind, name, err, errlen);
	rc = sec_parse(&d, text, len);
	if (!rc)
		rc = to_chapter(&d, c);
	sec_free(&d);
	if (rc)
		ans_chapter_free(c);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Planned claims and hints                                                  */

enum { P_TITLE, P_CLAIM };

static const struct sec_key planned_keys[] = {
	[P_TITLE] = { "title", SEC_REQUIRED },
	[P_CLAIM] = { "claim", SEC_REQUIRED | SEC_REPEAT },
};

static const struct sec_kind planned_kind = {
	.what = "lab", .keys = planned_keys, .nkeys = 2, .id_ok = lab_id_ok,
	.id_want = "the lab's number, like 07",
};

enum { H_EN, H_ZH };

static const struct sec_key hint_keys[] = {
	[H_EN] = { "hint.en", SEC_REQUIRED | SEC_REPEAT },
	[H_ZH] = { "hint.zh", SEC_REQUIRED | SEC_REPEAT },
};

/* "03" (the lab's hints) or "03.fix-race" (an exercise's id as its EXERCISE
 * marker names it: letters, digits, '-' and '_' after the lab's number). */
static int hint_id_ok(const char *s, const char *prefix)
{
	const char *dot = strchr(s, '.');

	if (!dot)
		return lab_id_ok(s, prefix);
	if (dot - s != 2 || !all_digits(s, 2) || !dot[1] || strlen(s) >= 32)
		return 0;
	for (size_t i = 1; dot[i]; i++)
		if (!isalnum((unsigned char)dot[i]) && dot[i] != '-' && dot[i] != '_')
			return 0;
	return 1;
}

static const struct sec_kind hint_kind = {
	.what = "lab", .keys = hint_keys, .nkeys = 2, .id_ok = hint_id_ok,
	.id_want = "the lab's number, like 03, or an exercise's id, like 03.fix-race",
};

/* "[ch1.Q4 ch2.S5]" at v: the question ids it backs, into pc->questions;
 * returns the length of the brackets and what they hold, or -1. */
static int planned_questions(struct sec_doc *d, struct sec_field *f, const char *v,
			     struct ans_planned_claim *pc)
{
	const char *close = *v == '[' ? strchr(v, ']') : NULL;
	const char *p = v + 1;
	char word[64];
	size_t n;

	if (!close || memchr(v, '\n', (size_t)(close - v)))
		return sec_error(d, f->line, "claim %s: want the questions it backs in brackets "
			    "after its id: '%s [ch1.Q1] text'", pc->id, pc->id);
	while ((p += strspn(p, " \t")) < close) {
		n = strcspn(p, " \t]");
		snprintf(word, sizeof(word), "%.*s", (int)(n < 63 ? n : 63), p);
		if (!ans_question_id_ok(word))
			return sec_error(d, f->line, "claim %s: '%.40s' is not a question id (like "
				    "ch1.Q1)", pc->id, word);
		p += n;
	}
	pc->questions = strndup(v + 1, (size_t)(close - v - 1));
	if (!pc->questions)
		return sec_error(d, f->line, "out of memory");
	if (!pc->questions[strspn(pc->questions, " \t")])
		return sec_error(d, f->line, "claim %s backs no question: '[]'", pc->id);
	return (int)(close - v + 1);
}

/* "07.1 [ch2.S1] text": the id must belong to the section's lab. */
static int planned_claim(struct sec_doc *d, const struct ans_set *s, const char *lab,
			 struct sec_field *f, struct ans_planned_claim *pc)
{
	size_t n = strcspn(f->value, " \t\n");
	char owner[16], id[sizeof(pc->id)];
	int qlen;

	snprintf(id, sizeof(id), "%.*s", (int)(n < 23 ? n : 23), f->value);
	if (n >= sizeof(id) || !claim_id_ok(id, NULL))
		return sec_error(d, f->line, "'claim:' must start with a claim id (like %s.1)",
				 lab);
	ans_claim_lab(id, owner, sizeof(owner));
	if (strcmp(owner, lab))
		return sec_error(d, f->line, "claim %s does not belong to lab %s", id, lab);
	if (ans_find_planned(s, id))
		return sec_error(d, f->line, "claim %s is planned twice", id);
	memcpy(pc->id, id, sizeof(id));
	n += strspn(f->value + n, " \t\n");
	qlen = planned_questions(d, f, f->value + n, pc);
	if (qlen < 0)
		return -1;
	n += (size_t)qlen;
	n += strspn(f->value + n, " \t\n");
	if (!f->value[n])
		return sec_error(d, f->line, "claim %s has no text", pc->id);
	pc->text = strdup(f->value + n);
	return pc->text ? 0 : sec_error(d, f->line, "out of memory");
}

static int to_planned_lab(struct sec_doc *d, struct ans_set *set, struct sec_section *s)
{
	struct ans_planned_lab *l = realloc(set->planned, (size_t)(set->nplanned + 1) * sizeof(*l));

	if (!l)
		return sec_error(d, s->line, "out of memory");
	set->planned = l;
	l += set->nplanned;
	memset(l, 0, sizeof(*l));
	snprintf(l->id, sizeof(l->id), "%.7s", s->id);
	l->line = s->line;
	l->claims = calloc((size_t)s->nf, sizeof(*l->claims));
	if (!l->claims)
		return sec_error(d, s->line, "out of memory");
	set->nplanned++; /* owned by the set from here on, for freeing */
	for (int i = 0; i < s->nf; i++) {
		if (s->f[i].key == P_TITLE)
			l->title = sec_take(&s->f[i]);
		else if (planned_claim(d, set, l->id, &s->f[i], &l->claims[l->n++]))
			return -1;
	}
	return 0;
}

static int to_hint_lab(struct sec_doc *d, struct ans_set *set, struct sec_section *s)
{
	struct ans_hint_lab *h = realloc(set->hints, (size_t)(set->nhints + 1) * sizeof(*h));
	int i, n[ANS_NLANGS] = { 0, 0 };

	if (!h)
		return sec_error(d, s->line, "out of memory");
	set->hints = h;
	h += set->nhints;
	memset(h, 0, sizeof(*h));
	snprintf(h->id, sizeof(h->id), "%.31s", s->id);
	h->line = s->line;
	h->hint[0] = calloc((size_t)s->nf + 1, sizeof(char *)); /* NULL-terminated */
	h->hint[1] = calloc((size_t)s->nf + 1, sizeof(char *));
	set->nhints++;
	if (!h->hint[0] || !h->hint[1])
		return sec_error(d, s->line, "out of memory");
	for (i = 0; i < s->nf; i++) {
		int lang = s->f[i].key == H_ZH;

		h->hint[lang][n[lang]++] = sec_take(&s->f[i]);
	}
	h->n = n[0] < n[1] ? n[0] : n[1];
	if (n[0] != n[1])
		return sec_error(d, s->line, "lab %s has %d 'hint.en:' but %d 'hint.zh:' (they "
			    "go in pairs)", s->id, n[0], n[1]);
	return 0;
}

static void planned_free(struct ans_planned_lab *l)
{
	for (int k = 0; k < l->n; k++) {
		free(l->claims[k].text);
		free(l->claims[k].questions);
	}
	free(l->claims);
	free(l->title);
}

static void hints_free(struct ans_hint_lab *h)
{
	for (int lang = 0; lang < ANS_NLANGS; lang++) {
		for (int k = 0; h->hint[lang] && h->hint[lang][k]; k++)
			free(h->hint[lang][k]);
		free(h->hint[lang]);
	}
}

/* Sections of lab ids, appended to one of the set's arrays. */
static int parse_labs(const char *text, size_t len, const char *name, struct ans_set *s,
		      const struct sec_kind *k, char *err, size_t errlen)
{
	struct sec_doc d;
	int rc, i, hints = k == &hint_kind;

	sec_init(&d, k, name, err, errlen);
	rc = sec_parse(&d, text, len);
	for (i = 0; !rc && i < d.ns; i++) {
		if (hints ? (const void *)ans_find_hints(s, d.s[i].id)
			  : (const void *)ans_find_planned_lab(s, d.s[i].id))
			rc = sec_error(&d, d.s[i].line, "lab %s is listed twice", d.s[i].id);
		else
			rc = hints ? to_hint_lab(&d, s, &d.s[i]) : to_planned_lab(&d, s, &d.s[i]);
	}
	sec_free(&d);
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
	for (int i = 0; i < s->nch; i++)
		ans_chapter_free(&s->ch[i]);
	for (int i = 0; i < s->nplanned; i++)
		planned_free(&s->planned[i]);
	for (int i = 0; i < s->nhints; i++)
		hints_free(&s->hints[i]);
	free(s->ch);
	free(s->planned);
	free(s->hints);
	free(s->mapped);
	memset(s, 0, sizeof(*s));
}

const struct ans_chapter *ans_find_chapter(const struct ans_set *s, const char *id)
{
	for (int i = 0; i < s->nch; i++)
		if (!strcmp(s->ch[i].id, id))
			return &s->ch[i];
	return NULL;
}

const struct ans_question *ans_find_question(const struct ans_set *s, const char *id)
{
	for (int i = 0; i < s->nch; i++)
		for (int k = 0; k < s->ch[i].n; k++)
			if (!strcmp(s->ch[i].q[k].id, id))
				return &s->ch[i].q[k];
	return NULL;
}

const struct ans_planned_lab *ans_find_planned_lab(const struct ans_set *s, const char *lab)
{
	for (int i = 0; i < s->nplanned; i++)
		if (!strcmp(s->planned[i].id, lab))
			return &s->planned[i];
	return NULL;
}

const struct ans_planned_claim *ans_find_planned(const struct ans_set *s, const char *claim)
{
	for (int i = 0; i < s->nplanned; i++)
		for (int k = 0; k < s->planned[i].n; k++)
			if (!strcmp(s->planned[i].claims[k].id, claim))
				return &s->planned[i].claims[k];
	return NULL;
}

const struct ans_hint_lab *ans_find_hints(const struct ans_set *s, const char *lab)
{
	for (int i = 0; i < s->nhints; i++)
		if (!strcmp(s->hints[i].id, lab))
			return &s->hints[i];
	return NULL;
}

/* A chapter file into the set; chapter and question ids unique. */
static int load_chapter(const char *path, struct ans_set *s, char *err, size_t errlen)
{
	struct ans_chapter c, *grown;
	size_t len;
	char *text = sec_read_file(path, &len, err, errlen);
	int rc;

	if (!text)
		return -1;
	rc = ans_parse_chapter(text, len, path, &c, err, errlen);
	free(text);
	if (rc)
		return -1;
	for (int i = 0; i < c.n; i++)
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
	text = sec_read_file(path, &len, err, errlen);
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
	int rc = 0;

	memset(s, 0, sizeof(*s));
	snprintf(pattern, sizeof(pattern), "%s/ch[0-9]*.md", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		snprintf(err, errlen, "%s: no chapter file (ch*.md) there", dir);
		return -1;
	}
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
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
