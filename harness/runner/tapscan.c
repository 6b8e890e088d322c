/*
 * tapscan.c - reads a lab's TAP 13 stream (PROTOCOL.md section 2) line by
 * line: comments (the narrative), test points with their YAML block, and
 * "Bail out!".  A predicted erratum's line ends "# TODO known erratum NN.k":
 * still a failed claim, whose erratum status is in its YAML.  Used live, to
 * show each verdict as it comes, and after the lab, as the record of last
 * resort when its JSON file is missing.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runner.h"

void tap_scan_init(struct tap_scan *ts, const struct tap_sink *sink)
{
	memset(ts, 0, sizeof(*ts));
	if (sink)
		ts->sink = *sink;
	ts->plan = -1;
}

void tap_scan_free(struct tap_scan *ts)
{
	free(ts->points);
	ts->points = NULL;
	ts->npoints = 0;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/* Undoes the "\#" and "\\" escapes of a TAP description. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (*s == '\\' && (s[1] == '#' || s[1] == '\\'))
			s++;
		*d++ = *s;
	}
	*d = '\0';
}

/* Splits "desc # DIRECTIVE text" at the first unescaped " #". */
static void split_directive(struct tap_point *pt, char *rest)
{
	char *p, *hash = NULL;

	for (p = rest; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '#') {
			hash = p;
			break;
		}
	}
	if (hash) {
		char *d = hash + 1;

		*hash = '\0';
		while (*d == ' ')
			d++;
		if (strncasecmp(d, "SKIP", 4) == 0 || strncasecmp(d, "TODO", 4) == 0) {
			snprintf(pt->directive, sizeof(pt->directive), "%.4s", d);
			d += 4;
			while (*d == ' ' || *d == ':')
				d++;
		}
		copy(pt->dir_text, sizeof(pt->dir_text), d);
	}
	p = rest + strlen(rest);
	while (p > rest && p[-1] == ' ')
		*--p = '\0';
	unescape(rest);
	copy(pt->desc, sizeof(pt->desc), rest);
	sscanf(pt->desc, "%31s", pt->id);
}

/* "ok 3 - 02.3 text [q] # SKIP reason: detail" -> pt.  0, or -1 if not TAP. */
static int parse_point(const char *line, struct tap_point *pt)
{
	char rest[1024];
	const char *p = line;

	memset(pt, 0, sizeof(*pt));
	if (strncmp(p, "not ok", 6) == 0) {
		p += 6;
	} else if (strncmp(p, "ok", 2) == 0) {
		pt->ok = 1;
		p += 2;
	} else {
		return -1;
	}
	if (*p && *p != ' ')
		return -1;
	while (*p == ' ')
		p++;
	pt->number = (int)strtol(p, (char **)&p, 10);
	while (*p == ' ' || *p == '-')
		p++;
	copy(rest, sizeof(rest), p);
	split_directive(pt, rest);
	return 0;
}

/* A YAML scalar without its quotes: "..." (JSON escapes) or '...'. */
static void yaml_unquote(char *dst, size_t len, const char *v)
{
	size_t n = strlen(v), o = 0;
	char q = v[0];

	if (n < 2 || (q != '"' && q != '\'') || v[n - 1] != q) {
		copy(dst, len, v);
		return;
	}
	for (v++, n -= 2; n && o + 1 < len; v++, n--) {
		if (q == '"' && *v == '\\' && n > 1) {
			v++, n--;
			dst[o++] = *v == 'n' ? ' ' : *v == 't' ? ' ' : *v;
		} else if (q == '\'' && *v == '\'' && n > 1) {
			v++, n--;
			dst[o++] = '\'';
		} else {
			dst[o++] = *v;
		}
	}
	dst[o] = '\0';
}

/* A YAML "  key: value" line at the block's first level. */
static void yaml_line(struct tap_point *pt, const char *line)
{
	static const struct { const char *key; size_t off, len; } keys[] = {
#define K(k, f) { k, offsetof(struct tap_point, f), sizeof(((struct tap_point *)0)->f) }
		K("status", yaml_status), K("got", got), K("want", want),
		K("lo", lo), K("hi", hi), K("op", op), K("unit", unit),
		K("tol", tol), K("got_name", got_name), K("want_name", want_name),
		K("reason", reason), K("detail", detail), K("note", note),
		K("got_lo", got_lo), K("got_hi", got_hi),
		K("erratum", erratum), K("erratum_expect", erratum_expect),
#undef K
	};
	const char *colon = strchr(line, ':');
	size_t i, n;

	if (strncmp(line, "  ", 2) != 0 || line[2] == ' ' || !colon)
		return;
	n = (size_t)(colon - line - 2);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].key) != n || strncmp(line + 2, keys[i].key, n))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		yaml_unquote((char *)pt + keys[i].off, keys[i].len, colon);
		return;
	}
}

static void emit_point(struct tap_scan *ts)
{
	struct tap_point *np;

	if (!ts->have_cur)
		return;
	ts->have_cur = 0;
	ts->in_yaml = 0;
	np = realloc(ts->points, (size_t)(ts->npoints + 1) * sizeof(*np));
	if (np) {
		ts->points = np;
		ts->points[ts->npoints++] = ts->cur;
	}
	if (ts->sink.point)
		ts->sink.point(ts->sink.ctx, &ts->cur);
}

/* Inside a YAML block: returns 1 if the line belonged to it. */
static int scan_yaml(struct tap_scan *ts, const char *line)
{
	if (!ts->have_cur)
		return 0;
	if (!ts->in_yaml) {
		if (strcmp(line, "  ---") != 0)
			return 0;
		ts->in_yaml = 1;
		return 1;
	}
	if (strcmp(line, "  ...") == 0) {
		emit_point(ts);
		return 1;
	}
	if (line[0] != ' ')
		return 0; /* an unterminated block: what follows is TAP again */
	yaml_line(&ts->cur, line);
	return 1;
}

static void scan_other(struct tap_scan *ts, const char *line)
{
	const char *p;

	if (line[0] == '#') {
		for (p = line + 1; *p == ' '; p++)
			;
		if (ts->sink.comment)
			ts->sink.comment(ts->sink.ctx, p);
	} else if (strncmp(line, "Bail out!", 9) == 0) {
		for (p = line + 9; *p == ' '; p++)
			;
		copy(ts->bail, sizeof(ts->bail), *p ? p : "(no reason given)");
		if (ts->sink.bail)
			ts->sink.bail(ts->sink.ctx, ts->bail);
	} else if (strncmp(line, "1..", 3) == 0 && isdigit((unsigned char)line[3])) {
		ts->plan = atoi(line + 3);
	} else if (strcmp(line, "TAP version 13") != 0) {
		ts->nother += line[0] != '\0';
		return;
	}
	ts->ntap++;
}

void tap_scan_line(struct tap_scan *ts, const char *line)
{
	struct tap_point pt;

	ts->nlines++;
	if (scan_yaml(ts, line)) {
		ts->ntap++;
		return;
	}
	emit_point(ts);
	if (parse_point(line, &pt) == 0) {
		ts->cur = pt;
		ts->have_cur = 1;
		ts->ntap++;
		return;
	}
	scan_other(ts, line);
}

void tap_scan_end(struct tap_scan *ts)
{
	emit_point(ts);
}
