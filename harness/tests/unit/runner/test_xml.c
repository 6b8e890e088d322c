/*
 * test_xml.c - the XML writer of junit.xml (xml.c): escaping (the five markup
 * characters, TAB LF CR in attributes, characters XML 1.0 forbids, bytes
 * that are not UTF-8), elements and attributes in order, and the atomic
 * file write.
 */
#include <dirent.h>
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

#include "runner.h"

#define FFFD "\xef\xbf\xbd"

static void escaped_is(const char *in, int in_attr, const char *want)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	xml_put(f, in, in_attr);
	assert_int_equal(fclose(f), 0);
	if (strcmp(out, want) != 0)
		fail_msg("xml_put(%s) gave '%s', want '%s'", in_attr ? "attr" : "text", out,
			 want);
	assert_int_equal(len, strlen(want));
	free(out);
}

static void test_xml_escape_markup(void **state)
{
	(void)state;
	escaped_is("a & b < c > d \"e\" 'f'", 1,
		   "a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;");
	escaped_is("want < 2 s & more", 0, "want &lt; 2 s &amp; more");
	escaped_is("&amp;", 0, "&amp;amp;"); /* an entity in the input stays text */
	escaped_is("]]>", 0, "]]&gt;");
}

static void test_xml_escape_whitespace(void **state)
{
	(void)state;
	/* a parser turns TAB and LF in an attribute into blanks: references keep them */
	escaped_is("a\tb\nc", 1, "a&#9;b&#10;c");
	escaped_is("a\tb\nc", 0, "a\tb\nc");
	escaped_is("line\r\n", 0, "line&#13;\n"); /* CR would become LF */
	escaped_is("line\r\n", 1, "line&#13;&#10;");
}

static void test_xml_escape_forbidden_characters(void **state)
{
	(void)state;
	/* controls XML 1.0 forbids even as references become U+FFFD */
	escaped_is("a\x01" "b\x1f" "c\x0b" "d\x7f", 0, "a" FFFD "b" FFFD "c" FFFD "d\x7f");
	escaped_is("\x1b[31mred", 1, FFFD "[31mred");
	escaped_is("x\xef\xbf\xbe" "y\xef\xbf\xbf", 0, "x" FFFD "y" FFFD); /* U+FFFE, U+FFFF */
}

static void test_xml_escape_utf8(void **state)
{
	(void)state;
	escaped_is("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", 0,
		   "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"); /* é, 中, an emoji */
	escaped_is("a\xff" "b", 0, "a" FFFD "b");
	escaped_is("\xe2\x82", 0, FFFD FFFD); /* a sequence cut short */
	escaped_is("\xed\xa0\x80", 1, FFFD FFFD FFFD); /* an encoded surrogate */
	escaped_is("\xc0\xaf", 0, FFFD FFFD); /* overlong '/' */
}

static void test_xml_escape_null(void **state)
{
	(void)state;
	escaped_is(NULL, 0, "");
	escaped_is("<<<<", 0, "&lt;&lt;&lt;&lt;");
}

static const char *document(struct xml_writer *x)
{
	size_t len;
	const char *doc = xw_document(x, &len);

	assert_non_null(doc);
	assert_int_equal(strlen(doc), len);
	return doc;
}

static void test_xw_elements_attributes_text(void **state)
{
	struct xml_writer x;

	(void)state;
	assert_int_equal(xw_init(&x), 0);
	xw_begin(&x, "suites");
	xw_attr_int(&x, "tests", 3);
	xw_attr_fixed(&x, "time", 1.23456, 3);
	xw_begin(&x, "case");
	xw_attr(&x, "name", "01.1 a < b");
	xw_end(&x);
	xw_begin(&x, "case");
	xw_attr(&x, "name", NULL);
	xw_begin(&x, "failure");
	xw_attr(&x, "message", "got \"3\"");
	xw_text(&x, "line 1\nline 2 & 3");
	xw_end(&x);
	xw_end(&x);
	xw_end(&x);
	assert_string_equal(document(&x),
			    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			    "<suites tests=\"3\" time=\"1.235\">\n"
			    "  <case name=\"01.1 a &lt; b\"/>\n"
			    "  <case name=\"\">\n"
			    "    <failure message=\"got &quot;3&quot;\">line 1\n"
			    "line 2 &amp; 3</failure>\n"
			    "  </case>\n"
			    "</suites>");
	xw_release(&x);
}

static void test_xw_misuse_fails(void **state)
{
	struct xml_writer x;
	size_t len;

	(void)state;
	assert_int_equal(xw_init(&x), 0);
	xw_begin(&x, "a");
	assert_null(xw_document(&x, &len)); /* an element still open */
	xw_text(&x, "t");
	xw_attr(&x, "late", "1"); /* after content: no place for an attribute */
	assert_true(x.failed);
	xw_release(&x);
	assert_int_equal(xw_init(&x), 0);
	xw_end(&x); /* nothing to close */
	assert_true(x.failed);
	xw_release(&x);
}

static void test_xw_attr_fixed_not_finite(void **state)
{
	struct xml_writer x;

	(void)state;
	assert_int_equal(xw_init(&x), 0);
	xw_begin(&x, "t");
	xw_attr_fixed(&x, "time", NAN, 3); /* never "nan" in a number attribute */
	xw_end(&x);
	assert_non_null(strstr(document(&x), "<t time=\"0.000\"/>"));
	xw_release(&x);
}

/* Files in dir whose name starts with prefix. */
static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static void test_xw_write_file_atomic(void **state)
{
	char dir[] = "/tmp/dmalab-xml.XXXXXX", path[64], buf[256];
	struct xml_writer x;
	FILE *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	assert_int_equal(xw_init(&x), 0);
	xw_begin(&x, "r");
	xw_end(&x);
	assert_int_equal(xw_write_file(&x, path), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r/>\n");
	assert_int_equal(count_files(dir, "junit.xml"), 1); /* no temporary file left */
	xw_begin(&x, "open");
	assert_int_equal(xw_write_file(&x, path), -1); /* an open element: not written */
	xw_release(&x);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_escape_markup),
		cmocka_unit_test(test_xml_escape_whitespace),
		cmocka_unit_test(test_xml_escape_forbidden_characters),
		cmocka_unit_test(test_xml_escape_utf8),
		cmocka_unit_test(test_xml_escape_null),
		cmocka_unit_test(test_xw_elements_attributes_text),
		cmocka_unit_test(test_xw_misuse_fails),
		cmocka_unit_test(test_xw_attr_fixed_not_finite),
		cmocka_unit_test(test_xw_write_file_atomic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
