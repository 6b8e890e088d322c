/*
 * test_json.c - the JSON writer: escaping, invalid UTF-8, non-finite
 * numbers, commas in nested containers; and what it writes parses back.
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

/* The compact JSON of one string value. */
static void str_is(const char *in, const char *want)
{
	struct json_writer w;

	jw_init(&w, 0);
	jw_str(&w, in);
	assert_false(w.failed);
	if (strcmp(w.buf, want) != 0)
		fail_msg("jw_str wrote %s, want %s", w.buf, want);
	jw_release(&w);
}

/* Parse w's buffer; fails the test with the parser's message. */
static struct json *parse_back(const struct json_writer *w)
{
	char err[256];
	struct json *j = json_parse(w->buf, w->len, err, sizeof(err));

	if (!j)
		fail_msg("writer output does not parse: %s\n%s", err, w->buf);
	return j;
}

static void test_jw_str_quote_and_backslash(void **state)
{
	(void)state;
	str_is("say \"hi\"", "\"say \\\"hi\\\"\"");
	str_is("C:\\dir\\", "\"C:\\\\dir\\\\\"");
	str_is("", "\"\"");
	str_is("a/b", "\"a/b\"");
}

static void test_jw_str_control_chars(void **state)
{
	(void)state;
	str_is("a\nb", "\"a\\u000ab\"");
	str_is("\t\r\x01\x1f", "\"\\u0009\\u000d\\u0001\\u001f\"");
	str_is("\x7f", "\"\x7f\""); /* DEL is not a control char in JSON */
}

static void test_jw_str_valid_utf8_kept(void **state)
{
	(void)state;
	str_is("\xe5\x9b\xba\xe5\xae\x9a", "\"\xe5\x9b\xba\xe5\xae\x9a\""); /* two CJK */
	str_is("\xc2\xb5s", "\"\xc2\xb5s\"");                               /* micro sign */
	str_is("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");                 /* U+1F600 */
}

static void test_jw_str_invalid_utf8_replaced(void **state)
{
	(void)state;
	str_is("a\x80z", "\"a\\ufffdz\"");       /* lone continuation byte */
	str_is("a\xc3", "\"a\\ufffd\"");         /* cut sequence at the end */
	str_is("\xc0\xaf", "\"\\ufffd\\ufffd\""); /* overlong 2-byte "/" */
	str_is("\xff", "\"\\ufffd\"");
}

/* Encodings RFC 3629 forbids although their bytes look well formed. */
static void test_jw_str_invalid_utf8_strict(void **state)
{
	struct json_writer w;
	static const char *const bad[] = {
		"\xe0\x80\xaf",     /* overlong 3-byte "/" */
		"\xed\xa0\x80",     /* UTF-16 surrogate U+D800 */
		"\xf0\x80\x80\xaf", /* overlong 4-byte "/" */
		"\xf4\x90\x80\x80", /* above U+10FFFF */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		jw_init(&w, 0);
		jw_str(&w, bad[i]);
		if (strncmp(w.buf, "\"\\ufffd", 7) != 0)
			fail_msg("invalid UTF-8 sequence %zu was copied, not replaced", i);
		jw_release(&w);
	}
}

static void test_jw_str_null_and_long(void **state)
{
	struct json_writer w;
	char *s = malloc(5000);
	struct json *j;

	(void)state;
	assert_non_null(s);
	memset(s, 'q', 4999);
	s[4999] = '\0';
	s[10] = '"';
	jw_init(&w, 0);
	jw_arr_begin(&w);
	jw_str(&w, NULL);
	jw_str(&w, s);
	jw_arr_end(&w);
	j = parse_back(&w);
	assert_int_equal(j->child->type, JSON_NULL);
	assert_string_equal(j->child->next->str, s);
	json_free(j);
	jw_release(&w);
	free(s);
}

static void test_jw_key_long(void **state)
{
	struct json_writer w;
	char key[400];
	struct json *j;

	(void)state;
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	jw_init(&w, 0);
	jw_obj_begin(&w);
	jw_kint(&w, key, 1);
	jw_obj_end(&w);
	j = parse_back(&w); /* a key cut without its closing quote would not */
	json_free(j);
	jw_release(&w);
}

static void test_jw_num_non_finite_is_null(void **state)
{
	struct json_writer w;

	(void)state;
	jw_init(&w, 0);
	jw_arr_begin(&w);
	jw_num(&w, NAN);
	jw_num(&w, INFINITY);
	jw_num(&w, -INFINITY);
	jw_num(&w, 1.5);
	jw_num(&w, -3);
	jw_arr_end(&w);
	assert_string_equal(w.buf, "[null,null,null,1.5,-3]");
	jw_release(&w);
}

static void test_jw_num_extremes_parse(void **state)
{
	struct json_writer w;
	struct json *j;

	(void)state;
	jw_init(&w, 0);
	jw_arr_begin(&w);
	jw_num(&w, 1e300);
	jw_num(&w, -1e-300);
	jw_num(&w, 2.0e-8);
	jw_num(&w, 63.015384615);
	jw_arr_end(&w);
	j = parse_back(&w);
	assert_true(j->child->num == 1e300);
	assert_true(fabs(j->child->next->next->num - 2.0e-8) < 1e-20);
	assert_true(fabs(j->child->next->next->next->num - 63.015384615) < 1e-6);
	json_free(j);
	jw_release(&w);
}

/* Byte counts past 1e15 stay exact integers (a 9-digit %g would round them). */
static void test_jw_num_large_whole_numbers_exact(void **state)
{
	struct json_writer w;

	(void)state;
	jw_init(&w, 0);
	jw_arr_begin(&w);
	jw_num(&w, 1125899906842624.0);          /* 1 PiB */
	jw_num(&w, 4611686018427389952.0);       /* 2^62 + 2048, whole */
	jw_num(&w, -4503599627370497.0);         /* 2^52 + 1 */
	jw_num(&w, 1e300);                       /* too large for %.0f: %g */
	jw_arr_end(&w);
	assert_string_equal(w.buf,
			    "[1125899906842624,4611686018427389952,-4503599627370497,1e+300]");
	jw_release(&w);
}

/* A number its 9 digits make whole is written as a whole number, so the
 * value read back writes the same text (fuzz crasher json_parse/rounds-whole). */
static void test_jw_num_rounded_to_whole_writes_again(void **state)
{
	static const double v[] = { 99900000000414.9177, 1234567890.5, -5e9 - 0.25 };
	static const char *want[] = { "99900000000000", "1234567890", "-5000000000" };
	struct json_writer w, again;
	struct json *j;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		jw_init(&w, 0);
		jw_num(&w, v[i]);
		assert_string_equal(w.buf, want[i]);
		j = parse_back(&w);
		jw_init(&again, 0);
		jw_value(&again, j);
		assert_string_equal(again.buf, w.buf);
		jw_release(&again);
		json_free(j);
		jw_release(&w);
	}
}

static void test_jw_nesting_commas(void **state)
{
	struct json_writer w;

	(void)state;
	jw_init(&w, 0);
	jw_obj_begin(&w);
	jw_kint(&w, "a", 1);
	jw_key(&w, "b");
	jw_arr_begin(&w);
	jw_int(&w, 1);
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_arr_begin(&w);
	jw_arr_end(&w);
	jw_bool(&w, 0);
	jw_arr_end(&w);
	jw_key(&w, "c");
	jw_obj_begin(&w);
	jw_kstr(&w, "d", "e");
	jw_knum(&w, "f", NAN);
	jw_obj_end(&w);
	jw_kbool(&w, "g", 1);
	jw_obj_end(&w);
	assert_string_equal(w.buf,
			    "{\"a\":1,\"b\":[1,{},[],false],"
			    "\"c\":{\"d\":\"e\",\"f\":null},\"g\":true}");
	jw_release(&w);
}

static void test_jw_pretty_parses_same(void **state)
{
	struct json_writer w;
	struct json *j;

	(void)state;
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_key(&w, "list");
	jw_arr_begin(&w);
	for (int i = 0; i < 3; i++) {
		jw_obj_begin(&w);
		jw_kint(&w, "i", i);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_kstr(&w, "s", "x\ny");
	jw_obj_end(&w);
	assert_non_null(strchr(w.buf, '\n'));
	j = parse_back(&w);
	assert_int_equal(json_get(j, "list")->count, 3);
	assert_string_equal(json_get_str(j, "s", ""), "x\ny");
	json_free(j);
	jw_release(&w);
}

/* json_escape's text, written to a memory stream. */
static char *escaped(const char *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	json_escape(f, s);
	fclose(f);
	return buf;
}

static void test_json_escape_file(void **state)
{
	char *out;
	size_t need;

	(void)state;
	out = escaped("a\"b", &need);
	assert_int_equal(need, 6); /* "a\"b" with its quotes */
	assert_string_equal(out, "\"a\\\"b\"");
	free(out);
	out = escaped("", &need);
	assert_int_equal(need, 2);
	assert_string_equal(out, "\"\"");
	free(out);
	/* a control byte as \u, a byte that is not UTF-8 as U+FFFD */
	out = escaped("\x01\xff\\", &need);
	assert_string_equal(out, "\"\\u0001\\ufffd\\\\\"");
	free(out);
}

static void test_jw_write_file_atomic(void **state)
{
	struct json_writer w;
	char path[] = "/tmp/dmalab-json-XXXXXX", err[256], tmp[64];
	struct json *j;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	jw_init(&w, 0);
	jw_obj_begin(&w);
	jw_kint(&w, "n", 7);
	jw_obj_end(&w);
	assert_int_equal(jw_write_file(&w, path), 0);
	j = json_parse_file(path, err, sizeof(err));
	assert_non_null(j);
	assert_true(json_get_num(j, "n", 0) == 7);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1); /* no temp file left behind */
	json_free(j);
	jw_release(&w);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jw_str_quote_and_backslash),
		cmocka_unit_test(test_jw_str_control_chars),
		cmocka_unit_test(test_jw_str_valid_utf8_kept),
		cmocka_unit_test(test_jw_str_invalid_utf8_replaced),
		cmocka_unit_test(test_jw_str_invalid_utf8_strict),
		cmocka_unit_test(test_jw_str_null_and_long),
		cmocka_unit_test(test_jw_key_long),
		cmocka_unit_test(test_jw_num_non_finite_is_null),
		cmocka_unit_test(test_jw_num_extremes_parse),
		cmocka_unit_test(test_jw_num_large_whole_numbers_exact),
		cmocka_unit_test(test_jw_num_rounded_to_whole_writes_again),
		cmocka_unit_test(test_jw_nesting_commas),
		cmocka_unit_test(test_jw_pretty_parses_same),
		cmocka_unit_test(test_json_escape_file),
		cmocka_unit_test(test_jw_write_file_atomic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
