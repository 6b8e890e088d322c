/*
 * json_parse.c - the JSON reader (json.h): a strict RFC 8259 parser into a
 * tree.  Errors name the line and column (both from 1, the column counted
 * in bytes) where parsing stopped.  Strings must be valid UTF-8.  The writer is in json.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sections.h"

#define JSON_MAX_DEPTH 64

struct parser {
	const char *text;	/* the document's first byte, for offsets */
	const char *s, *end;
	const char *line_start;
	int line;
	char *err;
	size_t errlen;
	int failed;
};

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return -1;
	p->failed = 1;
	if (!p->errlen)
		return -1;
	n = snprintf(p->err, p->errlen, "line %d column %d: ", p->line,
		     (int)(p->s - p->line_start) + 1);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void skip_space(struct parser *p)
{
	while (p->s < p->end) {
		char c = *p->s;

		if (c == '\n') {
			p->line++;
			p->line_start = p->s + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		p->s++;
	}
}

static struct json *new_node(struct parser *p, enum json_type type)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j)
		fail(p, "out of memory");
	else
		j->type = type;
	return j;
}

static int hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;

	if (p->end - p->s < 4)
		return fail(p, "truncated \\u escape");
	for (int i = 0; i < 4; i++, p->s++) {
		char c = *p->s;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "bad hex digit '%c' in \\u escape", c);
	}
	*out = v;
	return 0;
}

static size_t utf8_encode(unsigned cp, char *out)
{
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	for (size_t i = n - 1; i > 0; i--, cp >>= 6)
		out[i] = (char)(0x80 | (cp & 0x3f));
	/* a lead byte of n > 1 starts with n one bits: 0xc0, 0xe0, 0xf0 */
	out[0] = (char)(n == 1 ? cp : ((0xff00u >> n) & 0xff) | cp);
	return n;
}

/* \uXXXX, with a UTF-16 surrogate pair joined; an unpaired half -> U+FFFD. */
static int unicode_escape(struct parser *p, struct json_writer *b)
{
	unsigned cp, lo;
	char out[4];

	if (hex4(p, &cp))
		return -1;
	if (cp >= 0xd800 && cp < 0xdc00 && p->end - p->s >= 6 &&
	    p->s[0] == '\\' && p->s[1] == 'u') {
		p->s += 2;
		if (hex4(p, &lo))
			return -1;
		if (lo >= 0xdc00 && lo < 0xe000)
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		else
			cp = 0xfffd; /* the second escape is lost: rare enough */
	} else if (cp >= 0xd800 && cp < 0xe000) {
		cp = 0xfffd;
	}
	return jw_bytes(b, out, utf8_encode(cp, out)) ? fail(p, "out of memory") : 0;
}

static int escape(struct parser *p, struct json_writer *b)
{
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	const char *hit;

	if (p->s >= p->end)
		return fail(p, "unterminated string");
	if (*p->s == 'u') {
		p->s++;
		return unicode_escape(p, b);
	}
	hit = strchr(from, *p->s);
	if (!*p->s || !hit)
		return fail(p, "bad escape '\\%c'", *p->s);
	p->s++;
	return jw_bytes(b, &to[hit - from], 1) ? fail(p, "out of memory") : 0;
}

/*
 * Copies the UTF-8 character at p->s (its first byte >= 0x80) into b.
 * JSON text is UTF-8 (RFC 8259 section 8.1,
 * https://www.rfc-editor.org/rfc/rfc8259#section-8.1): a byte that starts no
 * valid sequence (a stray continuation, an overlong form, a surrogate, past
 * U+10FFFF, cut short) is refused, naming its offset from the text's start.
 */
static int utf8_char(struct parser *p, struct json_writer *b)
{
	size_t n = json_utf8_len(p->s, (size_t)(p->end - p->s));

	if (n == 0)
		return fail(p, "invalid UTF-8 byte 0x%02x at byte offset %zu in string",
			    (unsigned char)*p->s, (size_t)(p->s - p->text));
	if (jw_bytes(b, p->s, n))
		return fail(p, "out of memory");
	p->s += n;
	return 0;
}

/* Parses a string token at p->s (which is at the opening quote). */
static char *parse_string_raw(struct parser *p)
{
	struct json_writer b; /* a growing buffer for the decoded string */

	jw_init(&b, 0);
	p->s++;
	if (jw_bytes(&b, "", 0))
		goto oom;
	while (p->s < p->end && *p->s != '"') {
		unsigned char c = (unsigned char)*p->s;

		if (c < 0x20) {
			fail(p, "control character 0x%02x in string", c);
			goto out;
		}
		if (c >= 0x80) {
			if (utf8_char(p, &b))
				goto out;
			continue;
		}
		p->s++;
		if (c == '\\') {
			if (escape(p, &b))
				goto out;
		} else if (jw_bytes(&b, (const char *)&c, 1)) {
			goto oom;
		}
	}
	if (p->s >= p->end) {
		fail(p, "unterminated string");
		goto out;
	}
	p->s++;
	return b.buf;
oom:
	fail(p, "out of memory");
out:
	free(b.buf);
	return NULL;
}

static int digits(struct parser *p)
{
	const char *start = p->s;

	while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
		p->s++;
	return p->s > start ? 0 : fail(p, "digit expected");
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *p, struct json *j)
{
	const char *start = p->s;
	char tmp[64];

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s < p->end && *p->s == '0')
		p->s++;
	else if (digits(p))
		return -1;
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		if (digits(p))
			return -1;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (digits(p))
			return -1;
	}
	if ((size_t)(p->s - start) >= sizeof(tmp))
		return fail(p, "number too long");
	memcpy(tmp, start, (size_t)(p->s - start));
	tmp[p->s - start] = '\0';
	j->num = strtod(tmp, NULL); /* overflow gives +-HUGE_VAL: kept */
	return 0;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
		return fail(p, "bad literal, '%s' expected", word);
	p->s += n;
	return 0;
}

static struct json *parse_value(struct parser *p, int depth);

static void append_child(struct json *parent, struct json **tail, struct json *c)
{
	if (*tail)
		(*tail)->next = c;
	else
		parent->child = c;
	*tail = c;
	parent->count++;
}

/* One "key": value member; returns the value with its key set. */
static struct json *parse_member(struct parser *p, int depth)
{
	struct json *v;
	char *key;

	skip_space(p);
	if (p->s >= p->end || *p->s != '"') {
		fail(p, "object key (a string) expected");
		return NULL;
	}
	key = parse_string_raw(p);
	if (!key)
		return NULL;
	skip_space(p);
	if (p->s >= p->end || *p->s != ':') {
		fail(p, "':' expected after object key");
		free(key);
		return NULL;
	}
	p->s++;
	v = parse_value(p, depth);
	if (!v) {
		free(key);
		return NULL;
	}
	v->key = key;
	return v;
}

/* Elements of an array or members of an object, after the opening bracket. */
static int parse_container(struct parser *p, struct json *j, int depth)
{
	char close = j->type == JSON_OBJ ? '}' : ']';
	struct json *tail = NULL, *c;

	skip_space(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		c = j->type == JSON_OBJ ? parse_member(p, depth) : parse_value(p, depth);
		if (!c)
			return -1;
		append_child(j, &tail, c);
		skip_space(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			return 0;
		}
		return fail(p, "',' or '%c' expected", close);
	}
}

static int parse_scalar(struct parser *p, struct json *j)
{
	switch (*p->s) {
	case '"':
		j->type = JSON_STR;
		j->str = parse_string_raw(p);
		return j->str ? 0 : -1;
	case 't':
		j->type = JSON_BOOL;
		j->num = 1;
		return literal(p, "true");
	case 'f':
		j->type = JSON_BOOL;
		return literal(p, "false");
	case 'n':
		return literal(p, "null");
	default:
		if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
			j->type = JSON_NUM;
			return parse_number(p, j);
		}
		return fail(p, "unexpected character '%c'", *p->s);
	}
}

static struct json *parse_value(struct parser *p, int depth)
{
	struct json *j;
	int rc;

	skip_space(p);
	if (p->s >= p->end) {
		fail(p, "value expected, found end of input");
		return NULL;
	}
	if (depth >= JSON_MAX_DEPTH) {
		fail(p, "nesting deeper than %d", JSON_MAX_DEPTH);
		return NULL;
	}
	j = new_node(p, JSON_NULL);
	if (!j)
		return NULL;
	if (*p->s == '{' || *p->s == '[') {
		j->type = *p->s == '{' ? JSON_OBJ : JSON_ARR;
		p->s++;
		rc = parse_container(p, j, depth + 1);
	} else {
		rc = parse_scalar(p, j);
	}
	if (rc) {
		json_free(j);
		return NULL;
	}
	return j;
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser p = { text, text, text + len, text, 1, err, errlen, 0 };
	struct json *j;

	if (errlen)
		err[0] = '\0';
	j = parse_value(&p, 0);
	if (!j)
		return NULL;
	skip_space(&p);
	if (p.s < p.end) {
		fail(&p, "unexpected text after the document");
		json_free(j);
		return NULL;
	}
	return j;
}

struct json *json_parse_file(const char *path, char *err, size_t errlen)
{
	char msg[256];
	struct json *j;
	size_t len;
	int opened;
	char *text = sec_read_all(path, &len, &opened);

	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	j = json_parse(text, len, msg, sizeof(msg));
	free(text);
	if (!j)
		snprintf(err, errlen, "%s: %s", path, msg);
	return j;
}

void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;

		json_free(j->child);
		free(j->str);
		free(j->key);
		free(j);
		j = next;
	}
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJ)
		return NULL;
	for (const struct json *c = obj->child; c; c = c->next)
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

const struct json *json_get_by(const struct json *obj, const char *arr, const char *key,
			       const char *value)
{
	const struct json *c = json_get(obj, arr);

	for (c = c ? c->child : NULL; c; c = c->next)
		if (!strcmp(json_get_str(c, key, ""), value))
			return c;
	return NULL;
}

const char *json_get_str(const struct json *obj, const char *key, const char *dflt)
{
	const struct json *v = json_get(obj, key);

	return v && v->type == JSON_STR ? v->str : dflt;
}

double json_get_num(const struct json *obj, const char *key, double dflt)
{
	const struct json *v = json_get(obj, key);

	return v && (v->type == JSON_NUM || v->type == JSON_BOOL) ? v->num : dflt;
}
