/*
 * test_answers.c - the answers files' parser (answers.h): good files, every
 * malformed input rejected with file:line, the cross-check against built
 * labs, the grading rules, and the repository's own answers/ directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "answers.h"

static const char good[] =
	"# ch1: Pinned memory\n"
	"\n"
	"## ch1.Q1\n"
	"claims: 01.1, 01.2\n"
	"prompt.en: What is DMA?\n"
	"prompt.zh: 什么是 DMA？\n"
	"answer.en:\n"
	"  The device moves the bytes.\n"
	"  The CPU does not.\n"
	"\n"
	"\n"
	"  Second paragraph.\n"
	"answer.zh: 设备自己搬数据。\r\n"
	"\n"
	"## ch1.E2\n"
	"claims: 11.1\n"
	"  02.4\n"
	"prompt.en: p\n"
	"prompt.zh: p\n"
	"answer.en: a\n"
	"answer.zh: a\n";

/* The good chapter with `from` replaced by `to` (first occurrence). */
static char *edited(const char *from, const char *to)
{
	const char *at = strstr(good, from);
	char *out;

	assert_non_null(at);
	out = malloc(sizeof(good) + strlen(to));
	assert_non_null(out);
	sprintf(out, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	return out;
}

static void assert_chapter_rejected(const char *text, size_t len, const char *want)
{
	struct ans_chapter c;
	char err[512];

	if (ans_parse_chapter(text, len, "ch1.md", &c, err, sizeof(err)) == 0)
		fail_msg("accepted:\n%s", text);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	assert_int_equal(c.n, 0);
	assert_null(c.q);
}

/* Replaces `from` by `to` in the good file; the result must be rejected. */
static void assert_edit_rejected(const char *from, const char *to, const char *want)
{
	char *text = edited(from, to);

	assert_chapter_rejected(text, strlen(text), want);
	free(text);
}

static void test_ans_parse_chapter_good(void **state)
{
	struct ans_chapter c;
	char err[256];

	(void)state;
	assert_int_equal(ans_parse_chapter(good, strlen(good), "ch1.md", &c, err, sizeof(err)), 0);
	assert_string_equal(c.id, "ch1");
	assert_string_equal(c.title, "Pinned memory");
	assert_int_equal(c.n, 2);
	assert_string_equal(c.q[0].id, "ch1.Q1");
	assert_int_equal(c.q[0].line, 3);
	assert_int_equal(c.q[0].nclaims, 2);
	assert_string_equal(c.q[0].claims[1], "01.2");
	assert_string_equal(c.q[0].prompt[ANS_ZH], "什么是 DMA？");
	assert_string_equal(c.q[0].answer[ANS_EN],
			    "The device moves the bytes.\nThe CPU does not.\n\nSecond paragraph.");
	assert_string_equal(c.q[0].answer[ANS_ZH], "设备自己搬数据。");
	assert_int_equal(c.q[1].nclaims, 2); /* continued on the next line */
	assert_string_equal(c.q[1].claims[1], "02.4");
	ans_chapter_free(&c);
}

static void test_ans_parse_chapter_missing_key(void **state)
{
	(void)state;
	assert_edit_rejected("answer.zh: a\n", "", "ch1.md:15: question ch1.E2 has no 'answer.zh:'");
	assert_edit_rejected("claims: 01.1, 01.2\n", "", "ch1.md:3: question ch1.Q1 has no 'claims:'");
	assert_edit_rejected("prompt.en: p\n", "prompt.en:\n", "ch1.md:18: 'prompt.en:' has no value");
	assert_edit_rejected("claims: 11.1\n  02.4\n", "claims: ,\n", "'claims:' names no claim");
	assert_edit_rejected("## ch1.Q1\n", "", "ch1.md:3: 'claims:' before the first");
}

static void test_ans_parse_chapter_unknown_key(void **state)
{
	(void)state;
	assert_edit_rejected("prompt.en: p\n", "promt.en: p\n",
			     "ch1.md:18: unknown key 'promt.en' (want claims, prompt.en,");
	assert_edit_rejected("answer.en: a\n", "Answer: a\n", "ch1.md:20: unexpected line 'Answer: a'");
	assert_edit_rejected("  The CPU does not.\n", "The CPU does not.\n",
			     "ch1.md:9: unexpected line 'The CPU does not.'");
	assert_edit_rejected("\n## ch1.Q1\n", "\n  stray\n## ch1.Q1\n",
			     "ch1.md:3: indented line outside a 'key:' value");
	assert_edit_rejected("prompt.en: p\n", "prompt.en: p\nprompt.en: q\n",
			     "ch1.md:19: second 'prompt.en:' in question ch1.E2 (first at line 18)");
}

static void test_ans_parse_chapter_duplicate_id(void **state)
{
	(void)state;
	assert_edit_rejected("## ch1.E2\n", "## ch1.Q1\n",
			     "ch1.md:15: question ch1.Q1 is listed twice (first at line 3)");
	assert_edit_rejected("claims: 01.1, 01.2\n", "claims: 01.1, 01.1\n",
			     "ch1.md:4: claim 01.1 is listed twice in ch1.Q1");
}

static void test_ans_parse_chapter_bad_id(void **state)
{
	(void)state;
	assert_edit_rejected("## ch1.E2\n", "## ch2.E2\n", "ch1.md:15: 'ch2.E2' is not a question id");
	assert_edit_rejected("## ch1.E2\n", "## ch1.e2\n", "is not a question id");
	assert_edit_rejected("## ch1.E2\n", "## ch1.E\n", "is not a question id");
	assert_edit_rejected("claims: 01.1, 01.2\n", "claims: 01.1, one\n",
			     "ch1.md:4: 'one' is not a claim id");
	assert_edit_rejected("claims: 11.1\n", "claims: 11.\n", "'11.' is not a claim id");
	assert_edit_rejected("# ch1: Pinned memory\n", "# Chapter one\n",
			     "ch1.md:1: the title must be '# chN: <title>'");
	assert_edit_rejected("# ch1: Pinned memory\n", "", "ch1.md:2: '## ch1.Q1' before the '# ' title");
	assert_edit_rejected("## ch1.E2\n", "# ch1: again\n## ch1.E2\n", "title line after the first section");
}

static void test_ans_parse_chapter_invalid_utf8(void **state)
{
	static const char nul[] = "# ch1: t\n## ch1.Q1\nclaims: 01.1\0\n";

	(void)state;
	assert_edit_rejected("The CPU does not.", "The CPU \xff does not.",
			     "ch1.md:9: invalid UTF-8 (byte 0xff at column 11)");
	assert_edit_rejected("prompt.en: p\n", "prompt.en: \xc0\xaf\n", "ch1.md:18: invalid UTF-8");
	assert_edit_rejected("prompt.en: p\n", "prompt.en: \xed\xa0\x80\n", "invalid UTF-8");
	assert_edit_rejected("prompt.en: p\n", "prompt.en: \xe4\xbb\n", "invalid UTF-8");
	assert_chapter_rejected(nul, sizeof(nul) - 1, "ch1.md:3: NUL byte");
}

static void test_ans_parse_chapter_empty(void **state)
{
	(void)state;
	assert_chapter_rejected("", 0, "ch1.md:1: no '# ' title line");
	assert_chapter_rejected("# ch1: t\n", 9, "ch1.md:1: chapter ch1 has no question");
}

static void test_ans_parse_planned_good(void **state)
{
	static const char text[] = "# Planned\n## 07\ntitle: pools\n"
				   "claim: 07.1 a cudaMalloc fails\nclaim: 07.2 the context\n  takes some\n";
	struct ans_set s;
	char err[256];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(ans_parse_planned(text, strlen(text), "p.md", &s, err, sizeof(err)), 0);
	assert_int_equal(s.nplanned, 1);
	assert_string_equal(s.planned[0].title, "pools");
	assert_int_equal(s.planned[0].n, 2);
	assert_string_equal(ans_find_planned(&s, "07.2")->text, "the context\ntakes some");
	assert_null(ans_find_planned(&s, "07.3"));
	ans_set_free(&s);
}

static void assert_planned_rejected(const char *text, const char *want)
{
	struct ans_set s;
	char err[256];

	memset(&s, 0, sizeof(s));
	if (ans_parse_planned(text, strlen(text), "p.md", &s, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	ans_set_free(&s);
}

static void test_ans_parse_planned_bad(void **state)
{
	(void)state;
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 08.1 x\n", "p.md:4: claim 08.1 does not belong to lab 07");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1\n", "p.md:4: claim 07.1 has no text");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 x\nclaim: 07.1 y\n", "p.md:5: claim 07.1 is planned twice");
	assert_planned_rejected("# P\n## lab-07\n", "p.md:2: 'lab-07' is not a lab id");
	assert_planned_rejected("# P\n## 07\nclaim: 07.1 x\n", "p.md:2: lab 07 has no 'title:'");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 x\n## 07\n", "p.md:5: lab 07 is listed twice");
}

static void test_ans_parse_hints_pairs(void **state)
{
	static const char ok[] = "# H\n## 03\nhint.en: a\nhint.zh: 甲\nhint.en: b\nhint.zh: 乙\n";
	static const char odd[] = "# H\n## 03\nhint.en: a\nhint.zh: 甲\nhint.en: b\n";
	struct ans_set s;
	char err[256];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(ans_parse_hints(ok, strlen(ok), "h.md", &s, err, sizeof(err)), 0);
	assert_int_equal(ans_find_hints(&s, "03")->n, 2);
	assert_string_equal(ans_find_hints(&s, "03")->hint[ANS_ZH][1], "乙");
	ans_set_free(&s);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ans_parse_hints(odd, strlen(odd), "h.md", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "h.md:2: lab 03 has 2 'hint.en:' but 1 'hint.zh:'"));
	ans_set_free(&s);
}

static void test_ans_utf8_valid_edges(void **state)
{
	size_t bad = 0;
	char fix[] = "a\xff\xe4\xb8\xad";

	(void)state;
	assert_true(ans_utf8_valid("\xf0\x9f\x98\x80 ok", 7, NULL));
	assert_false(ans_utf8_valid("ab\xf4\x90\x80\x80", 6, &bad)); /* above U+10FFFF */
	assert_int_equal(bad, 2);
	assert_false(ans_utf8_valid("\xe0\x80\x80", 3, NULL));     /* overlong */
	assert_int_equal(ans_utf8_fix(fix, strlen(fix)), 1);
	assert_string_equal(fix, "a?\xe4\xb8\xad");
}

/* ------------------------------------------------------------------------ */
/* Cross-check and rules                                                     */

static void load_good_set(struct ans_set *s)
{
	static const char planned[] = "# P\n## 11\ntitle: t\nclaim: 11.1 x\n";
	char err[256];

	memset(s, 0, sizeof(*s));
	s->ch = calloc(1, sizeof(*s->ch));
	assert_non_null(s->ch);
	assert_int_equal(ans_parse_chapter(good, strlen(good), "ch1.md", &s->ch[0], err,
					   sizeof(err)), 0);
	s->nch = 1;
	assert_int_equal(ans_parse_planned(planned, strlen(planned), "p.md", s, err,
					   sizeof(err)), 0);
}

/* Runs the cross-check; returns its errors, with its report in out. */
static int cross_check(const struct ans_set *s, const struct ans_built *b, int nb,
		       char *out, size_t len)
{
	FILE *f = fmemopen(out, len, "w");
	int errors;

	assert_non_null(f);
	errors = ans_cross_check(s, b, nb, f);
	fclose(f);
	return errors;
}

static void test_ans_cross_check_good(void **state)
{
	const struct ans_built b[] = { { "01", "01.1", "ch1.Q1" }, { "01", "01.2", "ch1.Q1" },
				       { "02", "02.4", "ch1.table" } };
	struct ans_set s;
	char out[1024] = "";

	(void)state;
	load_good_set(&s);
	assert_int_equal(cross_check(&s, b, 3, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	ans_set_free(&s);
}

static void test_ans_cross_check_problems(void **state)
{
	const struct ans_built b[] = { { "01", "01.1", "ch1.Q1" }, { "01", "01.9", "ch1.E2" },
				       { "02", "02.4", "ch1.table" }, { "11", "11.2", NULL } };
	struct ans_set s;
	char out[2048] = "";

	(void)state;
	load_good_set(&s);
	/* 01.2 named but not built; 01.9 and 11.2 back nothing; 11.1 is named
	 * but lab 11 is now built without it; 01.9 tagged E2, not listed there */
	assert_int_equal(cross_check(&s, b, 4, out, sizeof(out)), 4);
	assert_non_null(strstr(out, "error: ch1.md:3: ch1.Q1 names claim 01.2, which the built lab does not have"));
	assert_non_null(strstr(out, "error: ch1.md:15: ch1.E2 names claim 11.1"));
	assert_non_null(strstr(out, "error: claim 01.9 of lab-01 backs no question"));
	assert_non_null(strstr(out, "error: claim 11.2 of lab-11 backs no question"));
	assert_non_null(strstr(out, "warning: lab-11 is built now"));
	ans_set_free(&s);
}

static void test_ans_cross_check_unknown_and_unplanned(void **state)
{
	const struct ans_built b[] = { { "01", "01.1", "ch1.Q1" }, { "01", "01.2", "ch1.Q2" } };
	struct ans_set s;
	char out[2048] = "";

	(void)state;
	load_good_set(&s);
	/* 02.4: lab 02 neither built nor planned; planned 11.1 is backed */
	assert_int_equal(cross_check(&s, b, 2, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "ch1.E2 names claim 02.4, which no lab has and none plans"));
	ans_set_free(&s);
}

static struct ans_tally tally(int pass, int fail, int known, int unverified, int not_built)
{
	struct ans_tally t;
	int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < pass; i++)
		ans_tally_add(&t, ans_claim_state("pass"), 0);
	for (i = 0; i < fail; i++)
		ans_tally_add(&t, ans_claim_state("fail"), i < known);
	for (i = 0; i < unverified; i++)
		ans_tally_add(&t, ans_claim_state(i % 2 ? "skip" : "not_run"), 0);
	for (i = 0; i < not_built; i++)
		ans_tally_add(&t, ANS_NOT_BUILT, 0);
	return t;
}

static void test_ans_question_status_rules(void **state)
{
	struct ans_tally t;
	double pts = -1;

	(void)state;
	t = tally(3, 0, 0, 0, 0);
	assert_string_equal(ans_question_status(&t), "confirmed");
	assert_int_equal(ans_question_points(&t, &pts), 1);
	assert_true(pts == 1.0);
	t = tally(2, 0, 0, 1, 1);
	assert_string_equal(ans_question_status(&t), "partial");
	assert_int_equal(ans_question_points(&t, &pts), 1);
	assert_true(pts == 1.0);
	t = tally(3, 1, 1, 1, 0);
	assert_string_equal(ans_question_status(&t), "contradicted");
	assert_int_equal(t.known_errata, 1);
	assert_int_equal(ans_question_points(&t, &pts), 1);
	assert_true(pts == 0.75);
	t = tally(0, 0, 0, 2, 1);
	assert_string_equal(ans_question_status(&t), "unverified");
	assert_int_equal(ans_question_points(&t, &pts), 0); /* out of the maximum */
	t = tally(0, 0, 0, 0, 2);
	assert_string_equal(ans_question_status(&t), "unverified");
	assert_int_equal(t.not_built, 2);
	assert_int_equal(ans_claim_state("inconclusive"), ANS_UNVERIFIED);
	assert_int_equal(ans_claim_state("error"), ANS_UNVERIFIED);
	assert_int_equal(ans_claim_state(NULL), ANS_UNVERIFIED);
	assert_string_equal(ans_state_name(ANS_NOT_BUILT), "not_built");
}

/* ------------------------------------------------------------------------ */
/* The repository's answers/: run from the top of the tree (make unit)       */

static void assert_chapter_complete(const struct ans_set *s, const char *const *ids)
{
	const struct ans_question *q;
	int i, lang;

	for (i = 0; ids[i]; i++) {
		q = ans_find_question(s, ids[i]);
		if (!q)
			fail_msg("answers/ has no question %s", ids[i]);
		for (lang = 0; lang < ANS_NLANGS; lang++) {
			assert_true(strlen(q->prompt[lang]) > 10);
			assert_true(strlen(q->answer[lang]) > 100);
		}
		assert_true(q->nclaims >= 1);
	}
}

static void test_ans_load_dir_repository(void **state)
{
	static const char *const ch1[] = { "ch1.Q1", "ch1.Q2", "ch1.Q3", "ch1.Q4", "ch1.Q5",
					   "ch1.E1", "ch1.E2", "ch1.E3", NULL };
	static const char *const ch2[] = { "ch2.S1", "ch2.S2", "ch2.S3", "ch2.S4", "ch2.S5",
					   "ch2.S6", "ch2.S7", "ch2.S8", "ch2.S9", NULL };
	struct ans_set s;
	char err[512];

	(void)state;
	if (ans_load_dir("answers", &s, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(s.nch, 2);
	assert_chapter_complete(&s, ch1);
	assert_chapter_complete(&s, ch2);
	assert_int_equal(s.ch[0].n + s.ch[1].n, 17);
	assert_non_null(ans_find_planned_lab(&s, "07"));
	assert_non_null(ans_find_hints(&s, "03"));
	ans_set_free(&s);
}

static void test_ans_load_dir_missing(void **state)
{
	struct ans_set s;
	char err[256];

	(void)state;
	assert_int_equal(ans_load_dir("/nonexistent/answers", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/answers: no chapter file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ans_parse_chapter_good),
		cmocka_unit_test(test_ans_parse_chapter_missing_key),
		cmocka_unit_test(test_ans_parse_chapter_unknown_key),
		cmocka_unit_test(test_ans_parse_chapter_duplicate_id),
		cmocka_unit_test(test_ans_parse_chapter_bad_id),
		cmocka_unit_test(test_ans_parse_chapter_invalid_utf8),
		cmocka_unit_test(test_ans_parse_chapter_empty),
		cmocka_unit_test(test_ans_parse_planned_good),
		cmocka_unit_test(test_ans_parse_planned_bad),
		cmocka_unit_test(test_ans_parse_hints_pairs),
		cmocka_unit_test(test_ans_utf8_valid_edges),
		cmocka_unit_test(test_ans_cross_check_good),
		cmocka_unit_test(test_ans_cross_check_problems),
		cmocka_unit_test(test_ans_cross_check_unknown_and_unplanned),
		cmocka_unit_test(test_ans_question_status_rules),
		cmocka_unit_test(test_ans_load_dir_repository),
		cmocka_unit_test(test_ans_load_dir_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
