/*
 * record.c - the status words, one claim, and the TAP 13 stream that carries
 * claims from a lab to the runner (record.h, PROTOCOL.md section 2).
 */
#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errata.h"
#include "json.h"
#include "lang.h"
#include "record.h"

const char *const status_words[ST_COUNT] = {
	[ST_PENDING] = "pending", [ST_PASS] = "pass", [ST_FAIL] = "fail", [ST_SKIP] = "skip",
	[ST_INCONCLUSIVE] = "inconclusive", [ST_ERROR] = "error", [ST_NOT_RUN] = "not_run",
	[ST_RUNNING] = "running", [ST_INTERRUPTED] = "interrupted",
	[ST_INCOMPLETE] = "incomplete", [ST_ABORTED] = "aborted",
};

const char *const question_words[Q_COUNT] = {
	[Q_CONFIRMED] = "confirmed", [Q_CONTRADICTED] = "contradicted",
	[Q_PARTIAL] = "partial", [Q_UNVERIFIED] = "unverified",
};

enum status status_parse(const char *word)
{
	for (int s = 0; s < ST_COUNT && word; s++)
		if (!strcmp(word, status_words[s]))
			return (enum status)s;
	return ST_COUNT;
}

int status_decided(enum status s)
{
	return s != ST_PENDING && s != ST_NOT_RUN;
}

const char *status_text(enum status s)
{
	switch (s) {
	case ST_PASS: return MSG("status.pass", "pass");
	case ST_FAIL: return MSG("status.fail", "fail");
	case ST_SKIP: return MSG("status.skip", "skip");
	case ST_INCONCLUSIVE: return MSG("status.inconclusive", "inconclusive");
	case ST_ERROR: return MSG("status.error", "error");
	case ST_PENDING: case ST_NOT_RUN: return MSG("status.not-run", "not_run");
	default: return status_words[s];
	}
}

void claim_reset(struct claim *c)
{
	memset(c, 0, sizeof(*c));
	c->got = c->got_lo = c->got_hi = c->want = c->lo = c->hi = NAN;
	c->tol_abs = c->tol_rel = NAN;
}

int claim_id_ok(const char *s, const char *prefix)
{
	size_t n = strspn(s, "0123456789");

	(void)prefix;
	return n && s[n] == '.' && s[n + 1] && !s[n + 1 + strspn(s + n + 1, "0123456789")] &&
	       strlen(s) < sizeof(((struct claim *)0)->id);
}

int text_list_has(const char *list, const char *word, size_t len, const char *seps)
{
	for (const char *p = list + strspn(list, seps); *p; p += strspn(p, seps)) {
		size_t n = strcspn(p, seps);

		if (n == len && !strncmp(p, word, len))
			return 1;
		p += n;
	}
	return 0;
}

void claim_free(struct claim *c)
{
	const char **strs[] = { &c->question, &c->text, &c->chapter, &c->sabotage,
				&c->want_text, &c->erratum_when, &c->erratum_truth };
	size_t i;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		free((char *)*strs[i]);
		*strs[i] = NULL;
	}
}

int claim_known(const struct claim *c)
{
	return c->status == ST_FAIL && !strcmp(c->erratum_status, "predicted");
}

/* null, or what the erratum predicted and whether this run met it. */
static void json_erratum(struct json_writer *w, const struct claim *c)
{
	const struct erratum *e = c->erratum;

	jw_key(w, "erratum");
	if (!c->erratum_status[0]) {
		jw_null(w);
		return;
	}
	jw_obj_begin(w);
	jw_kstr(w, "status", c->erratum_status);
	jw_kstr(w, "expect", or_null(c->erratum_expect));
	jw_kstr(w, "when", c->erratum_when ? c->erratum_when : e ? e->when_text : NULL);
	jw_kstr(w, "truth", c->erratum_truth ? c->erratum_truth : e ? e->truth : NULL);
	jw_obj_end(w);
}

void record_json_claim(struct json_writer *w, const struct claim *c, enum status status)
{
	jw_obj_begin(w);
	jw_kstr(w, "id", c->id);
	jw_kstr(w, "question", c->question);
	jw_kstr(w, "text", c->text);
	jw_kstr(w, "status", status_words[status]);
	jw_kstr(w, "op", or_null(c->op));
	jw_knum(w, "got", c->got); /* NaN, absent, is null */
	jw_knum(w, "got_lo", c->got_lo);
	jw_knum(w, "got_hi", c->got_hi);
	jw_knum(w, "want", c->want);
	jw_knum(w, "lo", c->lo);
	jw_knum(w, "hi", c->hi);
	jw_key(w, "tol");
	if (c->has_tol) {
		jw_obj_begin(w);
		jw_knum(w, "abs", c->tol_abs);
		jw_knum(w, "rel", c->tol_rel);
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_kstr(w, "unit", or_null(c->unit));
	jw_kstr(w, "got_name", or_null(c->got_name));
	jw_kstr(w, "want_name", or_null(c->want_name));
	jw_kstr(w, "reason", or_null(c->reason));
	jw_kstr(w, "detail", or_null(c->detail));
	jw_kstr(w, "note", or_null(c->note));
	jw_kstr(w, "sabotage", c->sabotage);
	jw_kstr(w, "chapter", c->chapter);
	json_erratum(w, c);
	jw_key(w, "stats");
}

/* '#' starts a directive and '\' escapes, so both are escaped. */
void record_tap_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '#' || *s == '\\')
			fputc('\\', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
}

static void yaml_str(FILE *out, const char *key, const char *v, int indent)
{
	fprintf(out, "%*s%s: ", indent, "", key);
	json_escape(out, v);
	fputc('\n', out);
}

static void yaml_num(FILE *out, const char *key, double v)
{
	if (isfinite(v))
		fprintf(out, "  %s: %.10g\n", key, v);
	else
		fprintf(out, "  %s: null\n", key);
}

static void tap_directive(FILE *out, const struct claim *c)
{
	if (c->status == ST_SKIP || c->status == ST_INCONCLUSIVE) {
		fprintf(out, " # SKIP %s: ", c->reason);
		record_tap_text(out, c->detail);
	} else if (c->status == ST_ERROR) {
		fprintf(out, " # error: ");
		record_tap_text(out, c->detail);
	} else if (!strcmp(c->erratum_status, "predicted")) {
		/* TAP's TODO: an expected failure, which a harness does not count */
		fprintf(out, " # TODO known erratum %s", c->id);
	}
}

/* The YAML block's strings, in the order they are written; "" is left out. */
static void tap_yaml_str(FILE *out, const char *key, const char *v)
{
	if (v[0])
		yaml_str(out, key, v, 2);
}

static void tap_yaml(FILE *out, const struct claim *c)
{
	fprintf(out, "  ---\n  status: %s\n", status_words[c->status]);
	if (c->op[0])
		fprintf(out, "  op: %s\n", c->op);
	if (c->has_got)
		yaml_num(out, "got", c->got);
	if (c->has_interval) {
		yaml_num(out, "got_lo", c->got_lo);
		yaml_num(out, "got_hi", c->got_hi);
	}
	tap_yaml_str(out, "got_name", c->got_name);
	if (c->has_want)
		yaml_num(out, "want", c->want);
	tap_yaml_str(out, "want_name", c->want_name);
	if (c->has_range) {
		yaml_num(out, "lo", c->lo);
		yaml_num(out, "hi", c->hi);
	}
	if (c->has_tol)
		fprintf(out, "  tol: {abs: %.6g, rel: %.6g}\n", c->tol_abs, c->tol_rel);
	tap_yaml_str(out, "unit", c->unit);
	tap_yaml_str(out, "reason", c->reason);
	tap_yaml_str(out, "detail", c->detail);
	tap_yaml_str(out, "note", c->note);
	if (c->erratum_status[0]) {
		yaml_str(out, "erratum", c->erratum_status, 2);
		yaml_str(out, "erratum_expect", c->erratum_expect, 2);
	}
}

void record_tap_point(FILE *out, int number, const struct claim *c)
{
	int ok = c->status != ST_FAIL && c->status != ST_ERROR;

	fprintf(out, "%s %d - %s ", ok ? "ok" : "not ok", number, c->id);
	record_tap_text(out, c->text);
	fprintf(out, " [%s]", c->question);
	tap_directive(out, c);
	fprintf(out, "\n");
	tap_yaml(out, c);
}

void record_tap_end(FILE *out)
{
	fprintf(out, "  ...\n");
	fflush(out);
}

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
		snprintf(pt->dir_text, sizeof(pt->dir_text), "%s", d);
	}
	p = rest + strlen(rest);
	while (p > rest && p[-1] == ' ')
		*--p = '\0';
	unescape(rest);
	snprintf(pt->desc, sizeof(pt->desc), "%s", rest);
	sscanf(pt->desc, "%31s", pt->c.id);
}

/* "ok 3 - 02.3 text [q] # SKIP reason: detail" -> pt.  0, or -1 if not TAP. */
static int parse_point(const char *line, struct tap_point *pt)
{
	char rest[1024];
	const char *p = line;

	memset(pt, 0, sizeof(*pt));
	claim_reset(&pt->c);
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
	snprintf(rest, sizeof(rest), "%s", p);
	split_directive(pt, rest);
	return 0;
}

/* A YAML scalar without its quotes: "..." (JSON escapes) or '...'. */
static void yaml_unquote(char *dst, size_t len, const char *v)
{
	size_t n = strlen(v), o = 0;
	char q = v[0];

	if (n < 2 || (q != '"' && q != '\'') || v[n - 1] != q) {
		snprintf(dst, len, "%s", v);
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

static double yaml_number(const char *s)
{
	char *end;
	double v;

	if (!*s)
		return NAN;
	v = strtod(s, &end);
	return end != s && !*end ? v : NAN;
}

/* A YAML "  key: value" line at the block's first level, into the claim. */
static void yaml_line(struct tap_scan *ts, const char *line)
{
#define S(k, f) { k, offsetof(struct claim, f), sizeof(((struct claim *)0)->f), -1 }
#define N(k, f, h) { k, offsetof(struct claim, f), 0, offsetof(struct claim, h) }
	static const struct { const char *key; size_t off, len; long has; } keys[] = {
		S("op", op), S("unit", unit), S("got_name", got_name),
		S("want_name", want_name), S("reason", reason), S("detail", detail),
		S("note", note), S("erratum", erratum_status), S("erratum_expect", erratum_expect),
		N("got", got, has_got), N("got_lo", got_lo, has_interval),
		N("got_hi", got_hi, has_interval), N("want", want, has_want),
		N("lo", lo, has_range), N("hi", hi, has_range),
	};
#undef S
#undef N
	struct claim *c = &ts->cur.c;
	const char *colon = strchr(line, ':'), *v;
	char text[512];
	size_t i, n;

	if (strncmp(line, "  ", 2) != 0 || line[2] == ' ' || !colon)
		return;
	n = (size_t)(colon - line - 2);
	for (v = colon + 1; *v == ' '; v++)
		;
	yaml_unquote(text, sizeof(text), v);
	if (n == 6 && !strncmp(line + 2, "status", n)) {
		c->status = status_parse(text);
		ts->yaml_status = c->status != ST_COUNT;
	} else if (n == 3 && !strncmp(line + 2, "tol", n)) {
		c->has_tol = sscanf(text, "{abs: %lf, rel: %lf}", &c->tol_abs, &c->tol_rel) == 2;
		if (!c->has_tol)
			c->tol_abs = c->tol_rel = NAN;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].key) != n || strncmp(line + 2, keys[i].key, n))
			continue;
		if (keys[i].has < 0) {
			snprintf((char *)c + keys[i].off, keys[i].len, "%s", text);
		} else {
			*(double *)((char *)c + keys[i].off) = yaml_number(text);
			*(int *)((char *)c + keys[i].has) = 1;
		}
		return;
	}
}

/* The point's status when its YAML names none: from the directive. */
static enum status directive_status(const struct tap_point *pt)
{
	if (strcmp(pt->directive, "SKIP") == 0)
		return strncmp(pt->dir_text, "inconclusive", 12) ? ST_SKIP : ST_INCONCLUSIVE;
	if (strstr(pt->dir_text, "error") == pt->dir_text)
		return ST_ERROR;
	return pt->ok ? ST_PASS : ST_FAIL;
}

/*
 * What the YAML left out, from the line: the status; a skip's reason and
 * detail ("# SKIP reason: detail"); a predicted erratum ("# TODO known
 * erratum NN.k" alone, in a stream without YAML).
 */
static void settle_point(struct tap_scan *ts)
{
	struct tap_point *pt = &ts->cur;
	struct claim *c = &pt->c;
	const char *colon;

	if (!ts->yaml_status)
		c->status = directive_status(pt);
	if (!c->erratum_status[0] && !strcmp(pt->directive, "TODO") &&
	    !strncmp(pt->dir_text, "known erratum", 13))
		snprintf(c->erratum_status, sizeof(c->erratum_status), "predicted");
	if (c->status != ST_SKIP && c->status != ST_INCONCLUSIVE)
		return;
	if (!c->reason[0])
		snprintf(c->reason, sizeof(c->reason), "%.63s", pt->dir_text);
	c->reason[strcspn(c->reason, ":")] = '\0';
	colon = strchr(pt->dir_text, ':');
	if (!c->detail[0] && colon)
		snprintf(c->detail, sizeof(c->detail), "%s", colon + 1 + (colon[1] == ' '));
}

static void emit_point(struct tap_scan *ts)
{
	struct tap_point *np;

	if (!ts->have_cur)
		return;
	settle_point(ts);
	ts->have_cur = 0;
	ts->in_yaml = 0;
	ts->yaml_status = 0;
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
	yaml_line(ts, line);
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
		snprintf(ts->bail, sizeof(ts->bail), "%s", *p ? p : "(no reason given)");
		if (ts->sink.bail)
			ts->sink.bail(ts->sink.ctx, ts->bail);
	} else if (strncmp(line, "1..", 3) == 0 && isdigit((unsigned char)line[3])) {
		ts->plan = atoi(line + 3);
	} else if (strcmp(line, "TAP version 13") != 0) {
		ts->nother += line[0] != '\0';
	}
}

void tap_scan_line(struct tap_scan *ts, const char *line)
{
	struct tap_point pt;

	ts->nlines++;
	if (scan_yaml(ts, line))
		return;
	emit_point(ts);
	if (parse_point(line, &pt) == 0) {
		ts->cur = pt;
		ts->have_cur = 1;
		return;
	}
	scan_other(ts, line);
}

void tap_scan_end(struct tap_scan *ts)
{
	emit_point(ts);
}

void text_vfit(char *out, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(out, len, fmt, ap);
	size_t cut;

	if (n < 0 || (size_t)n < len || len < 8)
		return;
	cut = len - 4; /* room for "..." and the NUL */
	while (cut > 0 && out[cut] != ' ')
		cut--;
	while (cut > 0 && out[cut - 1] == ' ')
		cut--;
	if (!cut) /* one word longer than out: cut it where it must be */
		cut = len - 4;
	memcpy(out + cut, "...", 4);
}
