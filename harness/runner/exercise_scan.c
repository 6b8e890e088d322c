/*
 * exercise_scan.c - the exercise regions of a lab file (exercise.h): found,
 * masked for the comparison with the reference, replaced by their stubs.
 *
 * A region, in the lab file itself:
 *
 *	/ * EXERCISE 01.lock grades 01.1 01.2: what to write, any lines * /
 *	...the reference code...
 *	/ * STUB
 *	...the stub's code, which compiles and keeps the signature...
 *	END STUB * /
 *	/ * END EXERCISE * /
 *
 * (without the blanks between / and *).  The body is every line between the
 * marker comment and the END line; the learner edits the body alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"

#define MARK_BEGIN "/* EXERCISE "
#define MARK_END "/* END EXERCISE */"
#define STUB_BEGIN "/* STUB"
#define STUB_END "END STUB */"

/* The start of the line after the one pos is on (or the text's end). */
static size_t next_line(const char *t, size_t len, size_t pos)
{
	const char *nl = memchr(t + pos, '\n', len - pos);

	return nl ? (size_t)(nl - t) + 1 : len;
}

/* When the line at pos starts, after blanks, with `word`: where the word ends;
 * else 0. */
static size_t line_starts(const char *t, size_t len, size_t pos, const char *word)
{
	size_t n = strlen(word);

	while (pos < len && (t[pos] == ' ' || t[pos] == '\t'))
		pos++;
	return len - pos >= n && !memcmp(t + pos, word, n) ? pos + n : 0;
}

/* 1 when the line at pos is `word` alone, blanks aside. */
static int line_is(const char *t, size_t len, size_t pos, const char *word)
{
	size_t end = next_line(t, len, pos), p = line_starts(t, len, pos, word);

	for (; p && p < end; p++)
		if (t[p] != ' ' && t[p] != '\t' && t[p] != '\n' && t[p] != '\r')
			return 0;
	return p != 0;
}

/* Lines from start to end (newlines between them). */
static int lines_in(const char *t, size_t start, size_t end)
{
	int n = 0;

	for (; start < end; start++)
		n += t[start] == '\n';
	return n;
}

/* The marker's words on one line: each line break with its " * " and blanks is one blank. */
static void flatten(char *out, size_t len, const char *in)
{
	size_t o = 0;

	while (*in && o + 1 < len) {
		if (*in == '\n' || *in == ' ' || *in == '\t' || *in == '\r') {
			in += strspn(in, " \t\r\n");
			if (*in == '*' && in[1] == ' ')
				in += 2;
			if (o && *in)
				out[o++] = ' ';
			continue;
		}
		out[o++] = *in++;
	}
	out[o] = '\0';
}

/* The marker's id, claims and words: "ID grades C1 C2...: words". */
static int parse_marker(const char *m, size_t n, struct ex_region *r, char *err, size_t errlen)
{
	char buf[EX_TEXT_MAX], *colon, *grades;
	int len;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, m, n);
	buf[n] = '\0';
	colon = strchr(buf, ':');
	grades = strstr(buf, " grades ");
	if (!colon || !grades || grades > colon ||
	    sscanf(buf, "%31s", r->id) != 1 || grades - buf <= 0) {
		snprintf(err, errlen, "line %d: the marker needs 'EXERCISE ID grades CLAIMS: "
			 "what to write'", r->line);
		return -1;
	}
	*colon = '\0';
	len = snprintf(r->claims, sizeof(r->claims), "%s", grades + strlen(" grades "));
	if (len <= 0 || (size_t)len >= sizeof(r->claims)) {
		snprintf(err, errlen, "line %d: exercise %s names no claim", r->line, r->id);
		return -1;
	}
	flatten(r->what, sizeof(r->what), colon + 1);
	return 0;
}

/* Finds the stub inside r's body (a learner's copy has none: stub_start 0); 0, or -1
 * with err when the block is opened and not closed. */
static int find_stub(const char *t, size_t len, struct ex_region *r, char *err, size_t errlen)
{
	r->stub_start = r->stub_end = 0;
	for (size_t pos = r->body_start; pos < r->body_end; pos = next_line(t, len, pos)) {
		if (!r->stub_start && line_is(t, len, pos, STUB_BEGIN))
			r->stub_start = next_line(t, len, pos);
		else if (r->stub_start && line_is(t, len, pos, STUB_END)) {
			r->stub_end = pos;
			return 0;
		}
	}
	if (!r->stub_start)
		return 0;
	snprintf(err, errlen, "line %d: exercise %s opens '%s' without '%s'", r->line, r->id,
		 STUB_BEGIN, STUB_END);
	return -1;
}

/* The region whose marker starts at pos; returns where scanning goes on, or 0 (err). */
static size_t scan_region(const char *t, size_t len, size_t pos, int line, struct ex_region *r,
			  char *err, size_t errlen)
{
	const char *m = strstr(t + pos, MARK_BEGIN), *close;

	memset(r, 0, sizeof(*r));
	r->line = line;
	close = strstr(m, "*/");
	if (!close) {
		snprintf(err, errlen, "line %d: the exercise marker is not closed", line);
		return 0;
	}
	if (parse_marker(m + strlen(MARK_BEGIN), (size_t)(close - m) - strlen(MARK_BEGIN), r,
			 err, errlen))
		return 0;
	r->body_start = next_line(t, len, (size_t)(close - t));
	for (size_t p = r->body_start; p < len; p = next_line(t, len, p)) {
		if (line_starts(t, len, p, MARK_BEGIN)) {
			snprintf(err, errlen, "line %d: exercise %s is not ended before the next",
				 line, r->id);
			return 0;
		}
		if (line_is(t, len, p, MARK_END)) {
			r->body_end = p;
			return find_stub(t, len, r, err, errlen) ? 0 : next_line(t, len, p);
		}
	}
	snprintf(err, errlen, "line %d: exercise %s has no '%s' line", line, r->id, MARK_END);
	return 0;
}

int ex_scan(const char *t, size_t len, struct ex_region *out, int max, char *err, size_t errlen)
{
	size_t pos = 0, p;
	int n = 0, line = 1;

	while (pos < len) {
		if (!line_starts(t, len, pos, MARK_BEGIN)) {
			pos = next_line(t, len, pos);
			line++;
			continue;
		}
		if (n == max) {
			snprintf(err, errlen, "more than %d exercises in one file", max);
			return -1;
		}
		p = scan_region(t, len, pos, line, &out[n], err, errlen);
		if (!p)
			return -1;
		line += lines_in(t, pos, p);
		pos = p;
		n++;
	}
	return n;
}

/* The stub t[a..b) at o without its // comments (a line that only held one
 * goes): a zh copy, whose note says what they said; the end of o. */
static char *stub_uncommented(char *o, const char *t, size_t a, size_t b)
{
	while (a < b) {
		size_t end = a, cut, lead;

		while (end < b && t[end] != '\n')
			end++;
		for (cut = a; cut + 1 < end && !(t[cut] == '/' && t[cut + 1] == '/'); cut++)
			;
		if (cut + 1 >= end)
			cut = end; /* no comment on this line */
		lead = strspn(t + a, " \t");
		if (cut == end || a + lead < cut) {
			while (cut < end && cut > a && (t[cut - 1] == ' ' || t[cut - 1] == '\t'))
				cut--;
			o = mempcpy(o, t + a, cut - a);
			if (end < b)
				*o++ = '\n';
		}
		a = end < b ? end + 1 : end;
	}
	return o;
}

/* Text with each region's body emptied, or (stubs) replaced by notes[i] (when
 * notes and notes[i]: a zh copy, its stub's // comments left out) then its
 * stub; malloc'd, NULL out of memory. */
static char *rebuild(const char *t, size_t len, const struct ex_region *r, int n, int stubs,
		     const char *const *notes)
{
	size_t pos = 0, extra = 0;
	char *out, *o;

	for (int i = 0; stubs && notes && i < n; i++)
		extra += notes[i] ? strlen(notes[i]) : 0;
	if (!(out = o = malloc(len + extra + 1)))
		return NULL;
	for (int i = 0; i < n; i++) {
		o = mempcpy(o, t + pos, r[i].body_start - pos);
		if (stubs && notes && notes[i]) {
			o = mempcpy(o, notes[i], strlen(notes[i]));
			o = stub_uncommented(o, t, r[i].stub_start, r[i].stub_end);
		} else if (stubs) {
			o = mempcpy(o, t + r[i].stub_start, r[i].stub_end - r[i].stub_start);
		}
		pos = r[i].body_end;
	}
	o = mempcpy(o, t + pos, len - pos);
	*o = '\0';
	return out;
}

char *ex_mask(const char *t, size_t len, const struct ex_region *r, int n)
{
	return rebuild(t, len, r, n, 0, NULL);
}

char *ex_stubbed(const char *t, size_t len, const struct ex_region *r, int n,
		 const char *const *notes)
{
	return rebuild(t, len, r, n, 1, notes);
}

/* The first line where a and b differ (1-based), for the refusal. */
int ex_first_diff_line(const char *a, const char *b)
{
	int line = 1;

	for (; *a && *a == *b; a++, b++)
		line += *a == '\n';
	return *a == *b ? 0 : line;
}

/* The line (1-based) of the first preprocessor directive inside a region's body, 0 if none:
 * a #define there would reach the claims' checks that follow the region. */
int ex_directive_line(const char *t, size_t len, const struct ex_region *r, int n)
{
	size_t pos, p;

	for (int i = 0; i < n; i++)
		for (pos = r[i].body_start; pos < r[i].body_end; pos = next_line(t, len, pos)) {
			p = pos + strspn(t + pos, " \t");
			if (p < r[i].body_end && t[p] == '#')
				return 1 + lines_in(t, 0, pos);
		}
	return 0;
}

int ex_file_line(const char *t, const struct ex_region *r, int n, int masked_line)
{
	int line = masked_line, i;

	for (i = 0; i < n; i++) /* a body before the line: its lines were masked out */
		if (1 + lines_in(t, 0, r[i].body_start) <= line)
			line += lines_in(t, r[i].body_start, r[i].body_end);
	return line;
}
