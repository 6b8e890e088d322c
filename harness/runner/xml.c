/*
 * xml.c - the runner's XML 1.0 writer (runner.h): a document built element by
 * element in memory, then written atomically, for junit.xml (junit.c,
 * junit_learn.c); and xml_put, the escaping that class.c's and
 * compare_html.c's HTML pages put their text through too.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#define XML_REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* What a character XML 1.0 allows as it is (2.2 Char) becomes, or NULL
 * to copy it: an entity, a character reference, or U+FFFD. */
static const char *xml_replacement(const unsigned char *p, size_t n, int in_attr)
{
	switch (n == 1 ? *p : 0) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	case '\r': return "&#13;"; /* a parser would make it LF (2.11) */
	case '\t': return in_attr ? "&#9;" : NULL; /* else a blank (3.3.3) */
	case '\n': return in_attr ? "&#10;" : NULL;
	}
	if (n == 1 && *p < 0x20)
		return XML_REPLACEMENT; /* no reference to it is allowed either */
	if (n == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
		return XML_REPLACEMENT; /* U+FFFE, U+FFFF */
	return NULL;
}

void xml_put(FILE *f, const char *s, int in_attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = json_utf8_len((const char *)p, SIZE_MAX);
		const char *rep = n ? xml_replacement(p, n, in_attr) : XML_REPLACEMENT;

		if (rep)
			fputs(rep, f);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1; /* a byte that starts no UTF-8 sequence: one U+FFFD */
	}
}

/* ------------------------------------------------------------------------ */
/* The writer                                                                */

int xw_init(struct xml_writer *x)
{
	memset(x, 0, sizeof(*x));
	x->f = open_memstream(&x->buf, &x->len);
	if (!x->f) {
		x->failed = 1;
		return -1;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", x->f);
	return 0;
}

void xw_release(struct xml_writer *x)
{
	if (x->f)
		fclose(x->f);
	free(x->buf);
	memset(x, 0, sizeof(*x));
}

static void xw_indent(struct xml_writer *x)
{
	fputc('\n', x->f);
	for (int i = 0; i < x->depth; i++)
		fputs("  ", x->f);
}

/* Ends the parent's start tag before its first content. */
static void xw_close_start(struct xml_writer *x)
{
	if (x->in_start_tag)
		fputc('>', x->f);
	x->in_start_tag = 0;
}

void xw_begin(struct xml_writer *x, const char *name)
{
	if (x->failed || x->depth >= XML_MAX_DEPTH) {
		x->failed = 1;
		return;
	}
	xw_close_start(x);
	if (x->depth) {
		x->has_elements[x->depth - 1] = 1;
		if (!x->has_text[x->depth - 1])
			xw_indent(x);
	}
	fprintf(x->f, "<%s", name);
	x->open[x->depth] = name;
	x->has_elements[x->depth] = x->has_text[x->depth] = 0;
	x->depth++;
	x->in_start_tag = 1;
}

void xw_attr(struct xml_writer *x, const char *name, const char *value)
{
	if (x->failed || !x->in_start_tag) {
		x->failed = 1;
		return;
	}
	fprintf(x->f, " %s=\"", name);
	xml_put(x->f, value, 1);
	fputc('"', x->f);
}

void xw_attr_int(struct xml_writer *x, const char *name, long long value)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", value);
	xw_attr(x, name, num);
}

void xw_attr_fixed(struct xml_writer *x, const char *name, double value, int decimals)
{
	char num[64];

	snprintf(num, sizeof(num), "%.*f", decimals, isfinite(value) ? value : 0.0);
	xw_attr(x, name, num);
}

void xw_text(struct xml_writer *x, const char *text)
{
	if (x->failed || !x->depth) {
		x->failed = 1;
		return;
	}
	xw_close_start(x);
	x->has_text[x->depth - 1] = 1;
	xml_put(x->f, text, 0);
}

void xw_end(struct xml_writer *x)
{
	int d;

	if (x->failed || !x->depth) {
		x->failed = 1;
		return;
	}
	d = --x->depth;
	if (x->in_start_tag) {
		fputs("/>", x->f);
		x->in_start_tag = 0;
		return;
	}
	if (x->has_elements[d] && !x->has_text[d])
		xw_indent(x);
	fprintf(x->f, "</%s>", x->open[d]);
}

const char *xw_document(struct xml_writer *x, size_t *len)
{
	if (x->failed || x->depth || !x->f || fflush(x->f) != 0 || ferror(x->f))
		return NULL;
	*len = x->len;
	return x->buf;
}

int xw_write_file(struct xml_writer *x, const char *path)
{
	struct json_writer w;
	size_t len;
	const char *doc = xw_document(x, &len);

	if (!doc) {
		errno = ENOMEM;
		return -1;
	}
	/* results.json's atomic write (a temporary file beside path, then
	 * rename), given the XML as its buffer: the writer itself is unused */
	memset(&w, 0, sizeof(w));
	w.buf = (char *)doc;
	w.len = len;
	return jw_write_file(&w, path);
}
