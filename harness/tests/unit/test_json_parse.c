/*
 * test_json_parse.c - the JSON reader: the grammar, the tree and accessors,
 * errors with line and column, and the round trip through jw_value.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json.h"

static struct json *parse(const char *text, char *err, size_t errlen)
{
	return json_parse(text, strlen(text), err, errlen);
}

/* Parses text that must be rejected; the message must contain `where`. */
static void assert_rejected(const char *text, const char *where)
{
	char err[256];
	struct json *j = parse(text, err, sizeof(err));

	if (j)
		fail_msg("accepted: %s", text);
	if (!strstr(err, where))
		fail_msg("'%s': message '%s' lacks '%s'", text, err, where);
}

static void test_json_parse_scalars(void **state)
{
	char err[128];
	struct json *j;

	(void)state;
	j = parse(" -12.5e1 ", err, sizeof(err));
	assert_non_null(j);
	assert_int_equal(j->type, JSON_NUM);
	assert_true(j->num == -125.0);
	json_free(j);
	j = parse("true", err, sizeof(err));
	assert_int_equal(j->type, JSON_BOOL);
	assert_true(j->num == 1);
	json_free(j);
	j = parse("null", err, sizeof(err));
	assert_int_equal(j->type, JSON_NULL);
	json_free(j);
	j = parse("\"a\\\"b\\\\c\\/\\n\"", err, sizeof(err));
	assert_string_equal(j->str, "a\"b\\c/\n");
	json_free(j);
}

static void test_json_parse_object_order_and_get(void **state)
{
	const char *text = "{\"b\": 1, \"a\": [1, 2, {\"x\": \"y\"}], \"c\": {}}";
	struct json *j = parse(text, NULL, 0);
	const struct json *a;

	(void)state;
	assert_non_null(j);
	assert_int_equal(j->count, 3);
	assert_string_equal(j->child->key, "b");
	assert_string_equal(j->child->next->key, "a");
	a = json_get(j, "a");
	assert_int_equal(a->type, JSON_ARR);
	assert_int_equal(a->count, 3);
	assert_string_equal(json_get_str(a->child->next->next, "x", NULL), "y");
	assert_null(json_get(j, "missing"));
	assert_null(json_get(a, "x")); /* not an object */
	assert_int_equal(json_get(j, "c")->count, 0);
	json_free(j);
}

static void test_json_get_defaults_on_wrong_type(void **state)
{
	struct json *j = parse("{\"n\": 3, \"s\": \"t\", \"z\": null}", NULL, 0);

	(void)state;
	assert_string_equal(json_get_str(j, "n", "dflt"), "dflt");
	assert_true(json_get_num(j, "s", 7) == 7);
	assert_true(isnan(json_get_num(j, "z", NAN)));
	assert_true(json_get_num(j, "n", 0) == 3);
	assert_true(json_get_num(NULL, "n", 5) == 5);
	json_free(j);
}

static void test_json_get_by(void **state)
{
	struct json *j = parse("{\"claims\": [3, {\"id\": 2}, {\"id\": \"01.1\"}, "
			       "{\"id\": \"01.2\", \"n\": 5}], \"o\": {\"id\": \"01.2\"}}",
			       NULL, 0);

	(void)state;
	assert_true(json_get_num(json_get_by(j, "claims", "id", "01.2"), "n", 0) == 5);
	assert_ptr_equal(json_get_by(j, "claims", "id", "01.1"), j->child->child->next->next);
	assert_null(json_get_by(j, "claims", "id", "2"));    /* a number is no string */
	assert_null(json_get_by(j, "claims", "id", "01.3"));
	assert_null(json_get_by(j, "o", "id", "01.2"));      /* not an array of them */
	assert_null(json_get_by(j, "missing", "id", "01.2"));
	assert_null(json_get_by(NULL, "claims", "id", "01.2"));
	json_free(j);
}

static void test_json_parse_unicode_escapes(void **state)
{
	struct json *j = parse("\"\\u00e9\\u20ac\\ud83d\\ude00\\udc00\"", NULL, 0);

	(void)state;
	assert_non_null(j);
	/* e-acute, euro sign, an emoji from a surrogate pair, lone half -> U+FFFD */
	assert_string_equal(j->str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd");
	json_free(j);
}

/* Every valid form is kept byte for byte: 2, 3 and 4 bytes, the edges. */
static void test_json_parse_utf8_kept(void **state)
{
	static const char *const ok[] = {
		"\xc2\x80", "\xdf\xbf",         /* U+0080, U+07FF */
		"\xe0\xa0\x80", "\xed\x9f\xbf", /* U+0800, U+D7FF below the surrogates */
		"\xee\x80\x80", "\xef\xbf\xbf", /* U+E000 above them, U+FFFF */
		"\xf0\x90\x80\x80",             /* U+10000 */
		"\xf4\x8f\xbf\xbf",             /* U+10FFFF, the last */
		"\xe6\xb8\xac\xe9\x87\x8f",     /* two CJK ideographs */
	};
	char text[32], err[128];
	struct json *j;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "\"%s\"", ok[i]);
		j = parse(text, err, sizeof(err));
		if (!j)
			fail_msg("refused valid UTF-8 #%zu: %s", i, err);
		assert_string_equal(j->str, ok[i]);
		json_free(j);
	}
}

/*
 * Bytes that are not UTF-8 inside a string are refused (RFC 8259 8.1),
 * naming the bad byte and its offset from the text's first byte.
 */
static void test_json_parse_rejects_invalid_utf8(void **state)
{
	(void)state;
	assert_rejected("\"a\x80z\"", "invalid UTF-8 byte 0x80 at byte offset 2");
	assert_rejected("\"\xc0\xaf\"", "byte 0xc0 at byte offset 1");      /* overlong "/" */
	assert_rejected("\"\xc1\xbf\"", "byte 0xc1");                       /* overlong */
	assert_rejected("\"\xe0\x80\xaf\"", "byte 0xe0");                  /* overlong 3-byte */
	assert_rejected("\"\xf0\x80\x80\xaf\"", "byte 0xf0");             /* overlong 4-byte */
	assert_rejected("\"\xed\xa0\x80\"", "byte 0xed");                  /* surrogate U+D800 */
	assert_rejected("\"\xed\xbf\xbf\"", "byte 0xed");                  /* surrogate U+DFFF */
	assert_rejected("\"\xf4\x90\x80\x80\"", "byte 0xf4");             /* U+110000 */
	assert_rejected("\"\xf5\x80\x80\x80\"", "byte 0xf5");
	assert_rejected("\"\xff\"", "byte 0xff");
	assert_rejected("\"\xe6\xb8\"", "byte 0xe6 at byte offset 1");     /* cut by the quote */
	assert_rejected("[\"ok\",\n \"\xc3", "line 2 column 3: invalid UTF-8"); /* cut by the end */
	assert_rejected("{\"k\xe9y\": 1}", "byte 0xe9 at byte offset 3");     /* a key, Latin-1 */
}

static void test_json_parse_rejects_with_line_column(void **state)
{
	(void)state;
	assert_rejected("{\"a\": 1,\n  \"b\" 2}", "line 2 column 7");
	assert_rejected("[1, 2", "line 1 column 6");
	assert_rejected("", "line 1 column 1");
	assert_rejected("{} x", "line 1 column 4: unexpected text");
}

static void test_json_parse_rejects_bad_grammar(void **state)
{
	(void)state;
	assert_rejected("[01]", "',' or ']' expected");
	assert_rejected("[1.]", "digit expected");
	assert_rejected("[-]", "digit expected");
	assert_rejected("[1e]", "digit expected");
	assert_rejected("{\"a\": tru}", "'true' expected");
	assert_rejected("{a: 1}", "object key");
	assert_rejected("[1,]", "unexpected character ']'");
	assert_rejected("\"tab\there\"", "control character");
	assert_rejected("\"\\x\"", "bad escape");
	assert_rejected("\"\\u12g4\"", "bad hex digit");
	assert_rejected("\"open", "unterminated string");
	assert_rejected("NaN", "unexpected character 'N'");
}

/* n nested arrays: "[[...]]" */
static struct json *nested(int n, char *err, size_t errlen)
{
	char text[512];

	memset(text, '[', (size_t)n);
	memset(text + n, ']', (size_t)n);
	return json_parse(text, (size_t)(2 * n), err, errlen);
}

static void test_json_parse_depth_limit(void **state)
{
	char err[128];
	struct json *j = nested(64, err, sizeof(err));

	(void)state;
	assert_non_null(j);
	json_free(j);
	assert_null(nested(65, err, sizeof(err)));
	assert_non_null(strstr(err, "nesting deeper than 64"));
}

static void test_json_parse_file_names_path(void **state)
{
	char path[] = "/tmp/dmalab-json-XXXXXX";
	char err[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\n\"a\": }", 8), 8);
	close(fd);
	assert_null(json_parse_file(path, err, sizeof(err)));
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "line 2 column 6: unexpected character"));
	unlink(path);
	assert_null(json_parse_file(path, err, sizeof(err)));
	assert_non_null(strstr(err, "No such file"));
}

static void test_jw_value_round_trip(void **state)
{
	const char *text = "{\"s\":\"a\\\"b\",\"n\":[1,2.5,-3e-07,null],"
			   "\"t\":true,\"f\":false,\"o\":{}}";
	struct json *j = parse(text, NULL, 0);
	struct json_writer w;

	(void)state;
	assert_non_null(j);
	jw_init(&w, 0);
	jw_value(&w, j);
	assert_string_equal(w.buf, text);
	jw_release(&w);
	json_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_parse_scalars),
		cmocka_unit_test(test_json_parse_object_order_and_get),
		cmocka_unit_test(test_json_get_defaults_on_wrong_type),
		cmocka_unit_test(test_json_get_by),
		cmocka_unit_test(test_json_parse_unicode_escapes),
		cmocka_unit_test(test_json_parse_utf8_kept),
		cmocka_unit_test(test_json_parse_rejects_invalid_utf8),
		cmocka_unit_test(test_json_parse_rejects_with_line_column),
		cmocka_unit_test(test_json_parse_rejects_bad_grammar),
		cmocka_unit_test(test_json_parse_depth_limit),
		cmocka_unit_test(test_json_parse_file_names_path),
		cmocka_unit_test(test_jw_value_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
