/*
 * xml.h - a small XML 1.0 writer for the reports other tools read (the
 * runner's junit.xml).
 *
 * Escaping (xml_escape): & < > " ' become entities everywhere; in an
 * attribute also TAB, LF and CR become character references, since a parser
 * would otherwise turn them into blanks (XML 1.0, 3.3.3); CR is a reference
 * in text too (2.11 would make it LF).  Characters XML 1.0 forbids even as
 * references (2.2: controls below 0x20 other than TAB LF CR, U+FFFE, U+FFFF)
 * and bytes that are not UTF-8 become U+FFFD, so the document always parses.
 * https://www.w3.org/TR/xml/#charsets
 *
 * Writer: elements are opened and closed in order; attributes go right
 * after xw_begin; an element with no content is written <name/>.  Two
 * spaces of indentation per level, except inside an element that holds
 * text (whose text is kept exactly).  Out of memory sets `failed`: the
 * document is then unusable and xw_write_file fails.
 */
#ifndef DMALAB_XML_H
#define DMALAB_XML_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XML_MAX_DEPTH 16

/*
 * Escapes s (NUL-terminated; NULL is "") for an attribute value (in_attr
 * != 0) or for element text, into out (outlen bytes, always NUL-terminated
 * when outlen > 0).  Returns the length the whole escaped text needs, not
 * counting the NUL: a return >= outlen means out was cut short.
 */
size_t xml_escape(const char *s, int in_attr, char *out, size_t outlen);

struct xml_writer {
	FILE *f;              /* open_memstream over buf/len */
	char *buf;
	size_t len;
	int depth;
	const char *open[XML_MAX_DEPTH]; /* element names, outermost first */
	int has_elements[XML_MAX_DEPTH]; /* the element holds child elements */
	int has_text[XML_MAX_DEPTH];     /* the element holds text */
	int in_start_tag;     /* "<name attr=..." written, ">" not yet */
	int failed;
};

/* Starts a document with its XML declaration (UTF-8).  0, or -1 (no memory). */
int xw_init(struct xml_writer *x);
void xw_release(struct xml_writer *x);
/* Opens element `name` (a constant or a string that outlives the element). */
void xw_begin(struct xml_writer *x, const char *name);
/* An attribute of the element just opened; a NULL value writes "". */
void xw_attr(struct xml_writer *x, const char *name, const char *value);
void xw_attr_int(struct xml_writer *x, const char *name, long long value);
/* A number with `decimals` digits after the point (seconds: 3). */
void xw_attr_fixed(struct xml_writer *x, const char *name, double value, int decimals);
/* Text inside the element open now (escaped). */
void xw_text(struct xml_writer *x, const char *text);
/* Closes the element opened last. */
void xw_end(struct xml_writer *x);
/* The document so far (every element must be closed): its bytes and
 * length, or NULL after a failure.  Valid until xw_release. */
const char *xw_document(struct xml_writer *x, size_t *len);
/* Writes the document and a final newline to path atomically (a temporary
 * file beside it, then rename, as results.json).  0, or -1 with errno. */
int xw_write_file(struct xml_writer *x, const char *path);

#ifdef __cplusplus
}
#endif
#endif
