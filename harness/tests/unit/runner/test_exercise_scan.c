/*
 * test_exercise_scan.c - the exercise regions of a lab file (exercise.h):
 * found with their claims and words, the stub put in, the text outside them
 * compared, malformed markers refused with their line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exercise.h"

static const char lab[] =
	"static const int want = 1;\n"
	"int f(void)\n"
	"{\n"
	"\t/* EXERCISE 09.f grades 09.1 09.2: return one,\n"
	"\t * not zero */\n"
	"\treturn 1;\n"
	"\t/* STUB\n"
	"\treturn 0; // write it\n"
	"\tEND STUB */\n"
	"\t/* END EXERCISE */\n"
	"}\n";

static int scan(const char *t, struct ex_region *r, char *err)
{
	return ex_scan(t, strlen(t), r, EX_MAX, err, 300);
}

static void test_ex_scan_finds_the_region(void **state)
{
	struct ex_region r[EX_MAX];
	char err[300];

	assert_int_equal(scan(lab, r, err), 1);
	assert_string_equal(r[0].id, "09.f");
	assert_string_equal(r[0].claims, "09.1 09.2");
	assert_string_equal(r[0].what, "return one, not zero");
	assert_int_equal(r[0].line, 4);
	assert_true(r[0].stub_start > r[0].body_start && r[0].stub_end < r[0].body_end);
}

/* A learner's copy (lab's regions r): it has no stub block, and masks to the lab's text. */
static void assert_copy_masks_as_lab(const char *copy, const struct ex_region *r)
{
	struct ex_region m[EX_MAX];
	char err[300], *a, *b;

	assert_int_equal(scan(copy, m, err), 1);
	assert_int_equal(m[0].stub_start, 0);
	a = ex_mask(lab, strlen(lab), r, 1);
	b = ex_mask(copy, strlen(copy), m, 1);
	assert_int_equal(ex_first_diff_line(a, b), 0);
	free(a);
	free(b);
}

static void test_ex_stubbed_puts_the_stub_in(void **state)
{
	struct ex_region r[EX_MAX];
	char err[300], *stub;

	assert_int_equal(scan(lab, r, err), 1);
	stub = ex_stubbed(lab, strlen(lab), r, 1, NULL);
	assert_non_null(strstr(stub, "\treturn 0; // write it\n\t/* END EXERCISE */"));
	assert_null(strstr(stub, "return 1;"));
	assert_null(strstr(stub, "STUB"));
	assert_copy_masks_as_lab(stub, r);
	free(stub);
}

/* A note (the zh text of what to write, and of what the stub's // comments
 * say) goes inside the body, before the stub, whose comments it leaves out:
 * the copy still scans, and masks to the reference's text. */
static void test_ex_stubbed_puts_a_note_in_the_body(void **state)
{
	const char *const notes[1] = { "\t/* a note */\n" };
	struct ex_region r[EX_MAX];
	char err[300], *stub;

	assert_int_equal(scan(lab, r, err), 1);
	stub = ex_stubbed(lab, strlen(lab), r, 1, notes);
	assert_non_null(strstr(stub, "\t/* a note */\n\treturn 0;\n\t/* END EXERCISE */"));
	assert_null(strstr(stub, "// write it"));
	assert_copy_masks_as_lab(stub, r);
	free(stub);
}

/* With a note, a line that only held a comment goes, a comment after code
 * goes with the blanks before it, a line without one stays as it is. */
static void test_ex_stubbed_note_leaves_comments_out(void **state)
{
	static const char two[] =
		"int g(int *p)\n"
		"{\n"
		"\t/* EXERCISE 09.g grades 09.3: set *p */\n"
		"\t*p = 2;\n"
		"\treturn 0;\n"
		"\t/* STUB\n"
		"\t// nothing set yet: *p keeps\n"
		"\t// what it held\n"
		"\t*p = 0;   // zero for now\n"
		"\treturn 0;\n"
		"\tEND STUB */\n"
		"\t/* END EXERCISE */\n"
		"}\n";
	const char *const notes[1] = { "\t/* n */\n" };
	struct ex_region r[EX_MAX];
	char err[300], *stub;

	assert_int_equal(scan(two, r, err), 1);
	stub = ex_stubbed(two, strlen(two), r, 1, notes);
	assert_non_null(strstr(stub, "\t/* n */\n\t*p = 0;\n\treturn 0;\n\t/* END EXERCISE */"));
	assert_null(strstr(stub, "//"));
	free(stub);
}

static void test_ex_mask_sees_an_edited_want(void **state)
{
	struct ex_region r[EX_MAX], m[EX_MAX];
	char err[300], *edited = strdup(lab), *a, *b;

	edited[strlen("static const int want = ")] = '2';
	assert_int_equal(scan(lab, r, err), 1);
	assert_int_equal(scan(edited, m, err), 1);
	a = ex_mask(lab, strlen(lab), r, 1);
	b = ex_mask(edited, strlen(edited), m, 1);
	assert_int_equal(ex_first_diff_line(a, b), 1);
	assert_int_equal(ex_directive_line(lab, strlen(lab), r, 1), 0);
	free(a);
	free(b);
	free(edited);
}

static void test_ex_directive_line_finds_a_define(void **state)
{
	static const char def[] = "/* EXERCISE 09.f grades 09.1: w */\n"
		"  #define claim_check(a, b, c) 0\n/* END EXERCISE */\n";
	struct ex_region r[EX_MAX];
	char err[300];

	assert_int_equal(scan(def, r, err), 1);
	assert_int_equal(ex_directive_line(def, strlen(def), r, 1), 2);
}

static void test_ex_file_line_skips_the_bodies(void **state)
{
	struct ex_region r[EX_MAX], m[EX_MAX];
	char err[300], *edited = malloc(sizeof(lab) + 1), *a, *b;

	snprintf(edited, sizeof(lab) + 1, "%.*s};\n", (int)(sizeof(lab) - 3), lab);
	assert_int_equal(scan(lab, r, err), 1);
	assert_int_equal(scan(edited, m, err), 1);
	a = ex_mask(lab, strlen(lab), r, 1);
	b = ex_mask(edited, strlen(edited), m, 1);
	assert_int_equal(ex_first_diff_line(a, b), 7);         /* "}" in the mask */
	assert_int_equal(ex_file_line(edited, m, 1, 7), 11);  /* and in the file */
	assert_int_equal(ex_file_line(edited, m, 1, 1), 1);   /* before the region */
	free(a);
	free(b);
	free(edited);
}

static void test_ex_scan_refuses_malformed(void **state)
{
	struct ex_region r[EX_MAX];
	char err[300];

	assert_int_equal(scan("x\n/* EXERCISE 09.f: no claims */\n/* END EXERCISE */\n", r, err),
			 -1);
	assert_non_null(strstr(err, "line 2"));
	assert_int_equal(scan("/* EXERCISE 09.f grades 09.1: w */\nint x;\n", r, err), -1);
	assert_non_null(strstr(err, "END EXERCISE"));
	assert_int_equal(scan("/* EXERCISE 09.f grades 09.1: w */\n/* EXERCISE 09.g grades "
			      "09.2: v */\n/* END EXERCISE */\n", r, err), -1);
	assert_non_null(strstr(err, "not ended"));
	assert_int_equal(scan("/* EXERCISE 09.f grades 09.1: w */\n/* STUB\nx\n"
			      "/* END EXERCISE */\n", r, err), -1);
	assert_non_null(strstr(err, "END STUB"));
	assert_int_equal(scan("/* EXERCISE 09.f grades 09.1: w\n", r, err), -1);
	assert_non_null(strstr(err, "not closed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ex_scan_finds_the_region),
		cmocka_unit_test(test_ex_stubbed_puts_the_stub_in),
		cmocka_unit_test(test_ex_stubbed_puts_a_note_in_the_body),
		cmocka_unit_test(test_ex_stubbed_note_leaves_comments_out),
		cmocka_unit_test(test_ex_mask_sees_an_edited_want),
		cmocka_unit_test(test_ex_directive_line_finds_a_define),
		cmocka_unit_test(test_ex_file_line_skips_the_bodies),
		cmocka_unit_test(test_ex_scan_refuses_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
