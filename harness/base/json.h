/*
 * json.h - a small JSON writer (invalid UTF-8 becomes U+FFFD, non-finite
 * numbers null; commas are the writer's) and reader (a tree, numbers as
 * doubles, members in order; errors with line and column).
 */
#ifndef DMALAB_JSON_H
#define DMALAB_JSON_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct json_writer {
	char *buf;
	size_t len, cap;
	int depth;
	int need_comma[64]; /* per depth: a value was already written */
	int pretty;         /* indent with 2 spaces per level */
	int failed;         /* out of memory: buf is unusable */
	int after_key;      /* a key was written; its value comes next */
};

void jw_init(struct json_writer *w, int pretty);
void jw_release(struct json_writer *w);
void jw_obj_begin(struct json_writer *w);
void jw_obj_end(struct json_writer *w);
void jw_arr_begin(struct json_writer *w);
void jw_arr_end(struct json_writer *w);
void jw_key(struct json_writer *w, const char *key); /* inside an object */
void jw_str(struct json_writer *w, const char *s);  /* NULL -> null */
void jw_num(struct json_writer *w, double v);       /* NaN/Inf -> null */
void jw_int(struct json_writer *w, long long v);
void jw_bool(struct json_writer *w, int v);
void jw_null(struct json_writer *w);
/* n bytes of s appended to the buffer as they are (no comma, no quotes), as a
 * growing string: 0, or -1 out of memory (failed is set). */
int jw_bytes(struct json_writer *w, const char *s, size_t n);
/* Insert an already-serialised JSON value verbatim. */
void jw_raw(struct json_writer *w, const char *json);
/* Convenience: key + value. */
void jw_kstr(struct json_writer *w, const char *k, const char *s);
void jw_knum(struct json_writer *w, const char *k, double v);
void jw_kint(struct json_writer *w, const char *k, long long v);
void jw_kbool(struct json_writer *w, const char *k, int v);
/* key + the opening of an object or array value; closed by jw_obj_end/jw_arr_end */
void jw_kobj(struct json_writer *w, const char *k);
void jw_karr(struct json_writer *w, const char *k);
/*
 * Length in bytes (1 to 4) of the valid UTF-8 sequence at s, 0 when it is
 * not one; avail: the bytes readable at s (SIZE_MAX for a NUL-terminated s).
 */
size_t json_utf8_len(const char *s, size_t avail);
/* Writes s to out as a JSON string (with quotes), whatever its length. */
void json_escape(FILE *out, const char *s);
/*
 * Write the buffer to path whole or not at all (savefile.h: a temporary file
 * beside it, then rename; no fsync).  Returns 0, or -1 with errno set.
 */
int jw_write_file(const struct json_writer *w, const char *path);

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
	enum json_type type;
	double num;          /* JSON_NUM; JSON_BOOL as 0/1 */
	char *str;           /* JSON_STR (NUL-terminated, UTF-8) */
	char *key;           /* member name when inside an object */
	struct json *child;  /* first element/member */
	struct json *next;   /* next sibling */
	size_t count;        /* number of children */
};

/*
 * Parse text (len bytes).  Returns the tree, or NULL with a message
 * "line L column C: what" in err (errlen bytes).  Depth is limited to 64.
 */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Read and parse a file; NULL with "path: message" in err on failure. */
struct json *json_parse_file(const char *path, char *err, size_t errlen);
void json_free(struct json *j);
/* Member of an object by name, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* Accessors returning a default when the member is absent or mistyped. */
const char *json_get_str(const struct json *obj, const char *key, const char *dflt);
double json_get_num(const struct json *obj, const char *key, double dflt);
/* The element of obj's array member arr whose string member key is value, or
 * NULL: a claim of a lab's record or --describe by its id. */
const struct json *json_get_by(const struct json *obj, const char *arr, const char *key,
			       const char *value);
/* Serialise a parsed value back (used to copy lab records verbatim). */
void jw_value(struct json_writer *w, const struct json *v);

#ifdef __cplusplus
}
#endif
#endif
