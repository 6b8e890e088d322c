/*
 * json.c - the JSON writer (json.h).  The reader is in json_parse.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "savefile.h"

void jw_init(struct json_writer *w, int pretty)
{
	memset(w, 0, sizeof(*w));
	w->pretty = pretty;
}

void jw_release(struct json_writer *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

int jw_bytes(struct json_writer *w, const char *s, size_t n)
{
	if (w->failed)
		return -1;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 64;
		char *p;

		while (cap < w->len + n + 1)
			cap *= 2;
		p = realloc(w->buf, cap);
		if (!p) {
			w->failed = 1;
			return -1;
		}
		w->buf = p;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
	return 0;
}

static void jw_puts(struct json_writer *w, const char *s)
{
	jw_bytes(w, s, strlen(s));
}

static void jw_newline(struct json_writer *w)
{
	if (!w->pretty)
		return;
	jw_puts(w, "\n");
	for (int i = 0; i < w->depth; i++)
		jw_puts(w, "  ");
}

/* Called before every value or key: separates it from the previous one. */
static void jw_before_value(struct json_writer *w)
{
	if (w->depth > 0 && w->depth < 64) {
		if (w->need_comma[w->depth])
			jw_puts(w, ",");
		w->need_comma[w->depth] = 1;
		jw_newline(w);
	}
}

static void jw_value_start(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	jw_before_value(w);
}

static void jw_open(struct json_writer *w, const char *c)
{
	jw_value_start(w);
	jw_puts(w, c);
	if (w->depth < 63)
		w->depth++;
	w->need_comma[w->depth] = 0;
}

static void jw_close(struct json_writer *w, const char *c)
{
	int had = w->need_comma[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (had)
		jw_newline(w);
	jw_puts(w, c);
}

void jw_obj_begin(struct json_writer *w) { jw_open(w, "{"); }
void jw_obj_end(struct json_writer *w) { jw_close(w, "}"); }
void jw_arr_begin(struct json_writer *w) { jw_open(w, "["); }
void jw_arr_end(struct json_writer *w) { jw_close(w, "]"); }

/*
 * RFC 3629 section 4 (https://www.rfc-editor.org/rfc/rfc3629#section-4):
 * no overlong forms, no surrogates, nothing above U+10FFFF.  A byte past
 * avail is never read; a NUL ends a sequence as it is no continuation byte.
 */
size_t json_utf8_len(const char *text, size_t avail)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (avail == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (avail < 2 || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (i >= avail || (s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * The one escaper: passes s as a JSON string (with quotes) to emit, piece by
 * piece; a byte that is not valid UTF-8 becomes U+FFFD.
 */
static void escape_each(const char *s, void (*emit)(void *, const void *, size_t),
			void *ctx)
{
	const unsigned char *p = (const unsigned char *)s;
	char tmp[8];

	emit(ctx, "\"", 1);
	while (*p) {
		size_t n = json_utf8_len((const char *)p, SIZE_MAX);

		if (n == 0) {
			emit(ctx, "\\ufffd", 6);
			p++;
		} else if (*p == '"' || *p == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)*p++;
			emit(ctx, tmp, 2);
		} else if (*p < 0x20) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", *p++);
			emit(ctx, tmp, 6);
		} else {
			emit(ctx, p, n);
			p += n;
		}
	}
	emit(ctx, "\"", 1);
}

static void emit_file(void *out, const void *piece, size_t n)
{
	fwrite(piece, 1, n, out);
}

void json_escape(FILE *out, const char *s)
{
	escape_each(s, emit_file, out);
}

static void emit_writer(void *w, const void *piece, size_t n)
{
	jw_bytes(w, piece, n);
}

void jw_str(struct json_writer *w, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	jw_value_start(w);
	escape_each(s, emit_writer, w);
}

void jw_key(struct json_writer *w, const char *key)
{
	jw_before_value(w);
	w->after_key = 0;
	escape_each(key, emit_writer, w);
	jw_puts(w, w->pretty ? ": " : ":");
	w->after_key = 1;
}

void jw_num(struct json_writer *w, double v)
{
	char b[40];

	if (!isfinite(v)) {
		jw_null(w);
		return;
	}
	jw_value_start(w);
	/* a number that is not whole keeps 9 digits, which can make it whole
	 * ("9.99e+13" of 99900000000414.9): it is then written as one, so that
	 * the value read back writes the same text again.  A whole number (a
	 * byte count) is written exactly, however large: every double under
	 * 2^63 that is whole has an exact decimal, "%.0f" gives it */
	if (!(fabs(v) < 9.2e18 && v == floor(v))) {
		snprintf(b, sizeof(b), "%.9g", v);
		v = strtod(b, NULL);
	}
	if (fabs(v) < 9.2e18 && v == floor(v))
		snprintf(b, sizeof(b), "%.0f", v + 0.0); /* -0 -> 0 */
	jw_puts(w, b);
}

void jw_int(struct json_writer *w, long long v)
{
	char b[32];

	jw_value_start(w);
	snprintf(b, sizeof(b), "%lld", v);
	jw_puts(w, b);
}

void jw_bool(struct json_writer *w, int v)
{
	jw_value_start(w);
	jw_puts(w, v ? "true" : "false");
}

void jw_null(struct json_writer *w)
{
	jw_value_start(w);
	jw_puts(w, "null");
}

void jw_raw(struct json_writer *w, const char *json)
{
	jw_value_start(w);
	jw_puts(w, json);
}

void jw_kstr(struct json_writer *w, const char *k, const char *s) { jw_key(w, k); jw_str(w, s); }
void jw_knum(struct json_writer *w, const char *k, double v) { jw_key(w, k); jw_num(w, v); }
void jw_kint(struct json_writer *w, const char *k, long long v) { jw_key(w, k); jw_int(w, v); }
void jw_kbool(struct json_writer *w, const char *k, int v) { jw_key(w, k); jw_bool(w, v); }

void jw_value(struct json_writer *w, const struct json *v)
{
	switch (v ? v->type : JSON_NULL) {
	case JSON_NULL: jw_null(w); break;
	case JSON_BOOL: jw_bool(w, v->num != 0); break;
	case JSON_NUM: jw_num(w, v->num); break;
	case JSON_STR: jw_str(w, v->str); break;
	case JSON_ARR:
	case JSON_OBJ:
		jw_open(w, v->type == JSON_OBJ ? "{" : "[");
		for (const struct json *c = v->child; c; c = c->next) {
			if (v->type == JSON_OBJ)
				jw_key(w, c->key);
			jw_value(w, c);
		}
		jw_close(w, v->type == JSON_OBJ ? "}" : "]");
		break;
	}
}

void jw_kobj(struct json_writer *w, const char *k)
{
	jw_key(w, k);
	jw_obj_begin(w);
}

void jw_karr(struct json_writer *w, const char *k)
{
	jw_key(w, k);
	jw_arr_begin(w);
}

int jw_write_file(const struct json_writer *w, const char *path)
{
	struct savefile s;

	if (w->failed) {
		errno = ENOMEM;
		return -1;
	}
	if (!savefile_open(&s, path))
		return -1;
	fwrite(w->buf ? w->buf : "", 1, w->len, s.f);
	fputs("\n", s.f);
	return savefile_commit(&s);
}
