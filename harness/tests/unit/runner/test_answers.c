/*
 * test_answers.c - the answers files' parser (answers.h): good files, every
 * malformed input rejected with file:line, the question -> claims map, the
 * cross-check against built labs, runs copied from a chapter, the grading
 * rules, and the repository's own answers/ directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "answers.h"

static const char good[] =
	"# ch1: Pinned memory\n"
	"\n"
	"## ch1.Q1\n"
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
	assert_int_equal(c.q[0].nclaims, 0); /* the map fills them (ans_map_claim) */
	assert_null(c.q[0].claims);
	assert_string_equal(c.q[0].prompt[ANS_ZH], "什么是 DMA？");
	assert_string_equal(c.q[0].answer[ANS_EN],
			    "The device moves the bytes.\nThe CPU does not.\n\nSecond paragraph.");
	assert_string_equal(c.q[0].answer[ANS_ZH], "设备自己搬数据。");
	assert_string_equal(c.q[1].id, "ch1.E2");
	assert_int_equal(c.q[1].line, 14);
	ans_chapter_free(&c);
}

static void test_ans_parse_chapter_missing_key(void **state)
{
	(void)state;
	assert_edit_rejected("answer.zh: a\n", "",
			     "ch1.md:14: question ch1.E2 has no 'answer.zh:'");
	assert_edit_rejected("prompt.en: p\n", "prompt.en:\n",
			     "ch1.md:15: 'prompt.en:' has no value");
	assert_edit_rejected("## ch1.Q1\n", "", "ch1.md:3: 'prompt.en:' before the first");
	/* the claims of a question come from the labs' specs now */
	assert_edit_rejected("prompt.en: What", "claims: 01.1\nprompt.en: What",
			     "ch1.md:4: 'claims:' is not written here any more");
}

static void test_ans_parse_chapter_unknown_key(void **state)
{
	(void)state;
	assert_edit_rejected("prompt.en: p\n", "promt.en: p\n",
			     "ch1.md:15: unknown key 'promt.en' (want prompt.en, prompt.zh,");
	assert_edit_rejected("answer.en: a\n", "Answer: a\n",
			     "ch1.md:17: unexpected line 'Answer: a'");
	assert_edit_rejected("  The CPU does not.\n", "The CPU does not.\n",
			     "ch1.md:8: unexpected line 'The CPU does not.'");
	assert_edit_rejected("\n## ch1.Q1\n", "\n  stray\n## ch1.Q1\n",
			     "ch1.md:3: indented line outside a 'key:' value");
	assert_edit_rejected("prompt.en: p\n", "prompt.en: p\nprompt.en: q\n",
			     "ch1.md:16: second 'prompt.en:' in question ch1.E2 "
			     "(first at line 15)");
}

static void test_ans_parse_chapter_duplicate_id(void **state)
{
	(void)state;
	assert_edit_rejected("## ch1.E2\n", "## ch1.Q1\n",
			     "ch1.md:14: question ch1.Q1 is listed twice (first at line 3)");
}

static void test_ans_parse_chapter_bad_id(void **state)
{
	(void)state;
	assert_edit_rejected("## ch1.E2\n", "## ch2.E2\n",
			     "ch1.md:14: 'ch2.E2' is not a question id");
	assert_edit_rejected("## ch1.E2\n", "## ch1.e2\n", "is not a question id");
	assert_edit_rejected("## ch1.E2\n", "## ch1.E\n", "is not a question id");
	assert_edit_rejected("# ch1: Pinned memory\n", "# Chapter one\n",
			     "ch1.md:1: the title must be '# chN: <title>'");
	assert_edit_rejected("# ch1: Pinned memory\n", "",
			     "ch1.md:2: '## ch1.Q1' before the '# ' title");
	assert_edit_rejected("## ch1.E2\n", "# ch1: again\n## ch1.E2\n",
			     "title line after the first section");
}

static void test_ans_parse_chapter_invalid_utf8(void **state)
{
	static const char nul[] = "# ch1: t\n## ch1.Q1\nprompt.en: p\0\n";

	(void)state;
	assert_edit_rejected("The CPU does not.", "The CPU \xff does not.",
			     "ch1.md:8: invalid UTF-8 (byte 0xff at column 11)");
	assert_edit_rejected("prompt.en: p\n", "prompt.en: \xc0\xaf\n", "ch1.md:15: invalid UTF-8");
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
				   "claim: 07.1 [ch2.S1] a cudaMalloc fails\n"
				   "claim: 07.2 [ch2.S1  ch2.S9] the context\n  takes some\n";
	struct ans_set s;
	char err[256];

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(ans_parse_planned(text, strlen(text), "p.md", &s, err, sizeof(err)), 0);
	assert_int_equal(s.nplanned, 1);
	assert_string_equal(s.planned[0].title, "pools");
	assert_int_equal(s.planned[0].n, 2);
	assert_string_equal(ans_find_planned(&s, "07.2")->text, "the context\ntakes some");
	assert_string_equal(ans_find_planned(&s, "07.2")->questions, "ch2.S1  ch2.S9");
	assert_string_equal(ans_find_planned(&s, "07.1")->questions, "ch2.S1");
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
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 08.1 [ch1.Q1] x\n",
				"p.md:4: claim 08.1 does not belong to lab 07");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ch1.Q1]\n",
				"p.md:4: claim 07.1 has no text");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ch1.Q1] x\n"
				"claim: 07.1 [ch1.Q1] y\n", "p.md:5: claim 07.1 is planned twice");
	assert_planned_rejected("# P\n## lab-07\n", "p.md:2: 'lab-07' is not a lab id");
	assert_planned_rejected("# P\n## 07\nclaim: 07.1 [ch1.Q1] x\n",
				"p.md:2: lab 07 has no 'title:'");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ch1.Q1] x\n## 07\n",
				"p.md:5: lab 07 is listed twice");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 x\n",
				"p.md:4: claim 07.1: want the questions it backs in brackets");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ch1.Q1 x\n", "in brackets");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ch1.q1] x\n",
				"p.md:4: claim 07.1: 'ch1.q1' is not a question id");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ ] x\n",
				"p.md:4: claim 07.1 backs no question");
	assert_planned_rejected("# P\n## 07\ntitle: t\nclaim: 07.1 [ch1.Q1\n  ch1.Q2] x\n",
				"in brackets");
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

/* An exercise's hints are a section of their own: "## 03.wait" beside "## 03". */
static void test_ans_parse_hints_exercise(void **state)
{
	static const char ok[] = "# H\n## 03\nhint.en: a\nhint.zh: 甲\n"
				 "## 03.wait\nhint.en: w\nhint.zh: 等\n"
				 "## 04.first-touch\nhint.en: t\nhint.zh: 触\n";
	static const char *const bad[] = { "3.wait", "03.", "03.a b", "003.wait", "03.w.x" };
	struct ans_set s;
	char err[256], text[128];
	size_t i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(ans_parse_hints(ok, strlen(ok), "h.md", &s, err, sizeof(err)), 0);
	assert_string_equal(ans_find_hints(&s, "03.wait")->hint[ANS_EN][0], "w");
	assert_string_equal(ans_find_hints(&s, "04.first-touch")->hint[ANS_ZH][0], "触");
	assert_string_equal(ans_find_hints(&s, "03")->hint[ANS_EN][0], "a");
	ans_set_free(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "# H\n## %s\nhint.en: a\nhint.zh: 甲\n", bad[i]);
		memset(&s, 0, sizeof(s));
		assert_int_equal(ans_parse_hints(text, strlen(text), "h.md", &s, err, sizeof(err)),
				 -1);
		ans_set_free(&s);
	}
}

static void test_utf8_valid_edges(void **state)
{
	size_t bad = 0;
	char fix[] = "a\xff\xe4\xb8\xad";

	(void)state;
	assert_true(utf8_valid("\xf0\x9f\x98\x80 ok", 7, NULL));
	assert_false(utf8_valid("ab\xf4\x90\x80\x80", 6, &bad)); /* above U+10FFFF */
	assert_int_equal(bad, 2);
	assert_false(utf8_valid("\xe0\x80\x80", 3, NULL));     /* overlong */
	assert_int_equal(utf8_fix(fix, strlen(fix)), 1);
	assert_string_equal(fix, "a?\xe4\xb8\xad");
}

/* ------------------------------------------------------------------------ */
/* Cross-check and rules                                                     */

static void load_good_set(struct ans_set *s)
{
	static const char planned[] = "# P\n## 11\ntitle: t\nclaim: 11.1 [ch1.E2] x\n";
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
	const struct ans_built b[] = { { "01", "01.1", "ch1.Q1" },
				       { "01", "01.2", "ch1.Q1 ch1.E2" },
				       { "02", "02.4", "ch1.table ch1.E2" } };
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
	const struct ans_built b[] = { { "01", "01.1", "ch1.Q1" }, { "01", "01.9", "ch1.E9" },
				       { "01", "01.3", "ch1.Q1 table" },
				       { "02", "02.4", "ch1.table" }, { "11", "11.2", NULL } };
	struct ans_set s;
	char out[2048] = "";

	(void)state;
	load_good_set(&s);
	/* 01.9 names a question no file has; 01.3 a word that is no question
	 * id after its first; 02.4 only its section and 11.2 nothing; lab 11
	 * is built now, so its planned 11.1 no longer backs E2 */
	assert_int_equal(cross_check(&s, b, 5, out, sizeof(out)), 5);
	assert_non_null(strstr(out, "error: claim 01.9 of lab-01 names question ch1.E9, "
				    "which no answers file has"));
	assert_non_null(strstr(out, "error: claim 01.3 of lab-01 names question table, "
				    "which is not a question id"));
	assert_non_null(strstr(out, "error: claim 02.4 of lab-02 backs no question"));
	assert_non_null(strstr(out, "error: claim 11.2 of lab-11 backs no question"));
	assert_non_null(strstr(out, "error: ch1.md:14: no claim backs ch1.E2"));
	assert_non_null(strstr(out, "warning: lab-11 is built now"));
	ans_set_free(&s);
}

static void test_ans_cross_check_planned(void **state)
{
	static const char planned[] = "# P\n## 12\ntitle: t\nclaim: 12.1 [ch1.Q1 ch9.Q1] x\n";
	const struct ans_built b[] = { { "01", "01.1", "ch1.Q1" } };
	struct ans_set s;
	char out[2048] = "", err[256];

	(void)state;
	load_good_set(&s);
	assert_int_equal(ans_parse_planned(planned, strlen(planned), "p.md", &s, err,
					   sizeof(err)), 0);
	/* a planned claim names a question of no chapter; E2 is backed by 11.1 */
	assert_int_equal(cross_check(&s, b, 1, out, sizeof(out)), 1);
	assert_non_null(strstr(out,
			       "error: claim 12.1 of planned-claims.md names question ch9.Q1"));
	ans_set_free(&s);
}

/* Maps every built claim, then the planned claims of the labs not built,
 * as learn_map does with the labs' --describe.  0, or -1 out of memory. */
static int ans_map_built(struct ans_set *s, const struct ans_built *b, int nb)
{
	int i;

	ans_map_clear(s);
	for (i = 0; i < nb; i++)
		if (ans_map_claim(s, b[i].lab, b[i].claim, b[i].questions) < 0)
			return -1;
	return ans_map_planned(s);
}

static void test_ans_map(void **state)
{
	const struct ans_built b[] = { { "02", "02.10", "ch1.Q1" },
				       { "01", "01.2", "ch1.Q1 ch1.E2" },
				       { "02", "02.9", "ch1.table ch1.Q1 ch9.Q9" } };
	const struct ans_question *q1, *e2;
	struct ans_set s;

	(void)state;
	load_good_set(&s);
	assert_int_equal(ans_map_built(&s, b, 3), 0);
	q1 = ans_find_question(&s, "ch1.Q1");
	e2 = ans_find_question(&s, "ch1.E2");
	/* in the order of the ids' numbers, whatever order the labs came in */
	assert_int_equal(q1->nclaims, 3);
	assert_string_equal(q1->claims[0], "01.2");
	assert_string_equal(q1->claims[1], "02.9");
	assert_string_equal(q1->claims[2], "02.10");
	/* 11 is not built: its planned claim backs E2 */
	assert_int_equal(e2->nclaims, 2);
	assert_string_equal(e2->claims[0], "01.2");
	assert_string_equal(e2->claims[1], "11.1");
	assert_true(ans_map_lab(&s, "02"));
	assert_false(ans_map_lab(&s, "11"));
	/* lab 11 measured after all (its results): the planned claim goes */
	assert_int_equal(ans_map_claim(&s, "11", "11.7", "ch1.E2"), 1);
	assert_int_equal(ans_map_claim(&s, "11", "11.7", "ch1.E2"), 1); /* once only */
	assert_int_equal(e2->nclaims, 2);
	assert_string_equal(e2->claims[1], "11.7");
	assert_int_equal(ans_map_claim(&s, "12", "12.1", "ch1.table nowhere"), 0);
	ans_map_clear(&s);
	assert_int_equal(q1->nclaims, 0);
	assert_false(ans_map_lab(&s, "02"));
	ans_set_free(&s);
}

static void test_ans_question_id_ok(void **state)
{
	(void)state;
	assert_true(ans_question_id_ok("ch1.Q2"));
	assert_true(ans_question_id_ok("ch12.SE10"));
	assert_false(ans_question_id_ok("ch1.table"));
	assert_false(ans_question_id_ok("ch1.Q"));
	assert_false(ans_question_id_ok("chx.Q1"));
	assert_false(ans_question_id_ok("Q1"));
	assert_false(ans_question_id_ok(""));
}

/* ------------------------------------------------------------------------ */
/* Runs copied from a chapter                                                */

static void test_ans_seed_shared(void **state)
{
	static const char chapter[] = "第一节。锁页内存不能被换出，所以设备可以放心地读写它。"
				      "调用 cudaMemcpyAsync 时，驱动先把数据拷进中转缓冲区。";
	static const char copied[] = "它说锁页内存不能被换出所以设备 可以。";
	struct ans_seed sd;
	char err[256], run[256];

	(void)state;
	assert_int_equal(ans_seed_init("c.txt", chapter, strlen(chapter), 12, &sd, err,
				       sizeof(err)), 0);
	/* ideographs only: the comma and the blanks drop out on both sides */
	assert_int_equal(ans_seed_shared(&sd, copied, strlen(copied), run, sizeof(run)), 15);
	assert_string_equal(run, "锁页内存不能被换出所以设备可以");
	/* an API name in between does not hide a copy */
	{
		const char *t = "调用cudaMemcpy时驱动先把数据拷进中转";
		assert_int_equal(ans_seed_shared(&sd, t, strlen(t), run, sizeof(run)), 13);
	}
	/* eleven in a row is no copy */
	{
		const char *t = "锁页内存不能被换出所以";
		assert_int_equal(ans_seed_shared(&sd, t, strlen(t), run, sizeof(run)), 0);
		assert_string_equal(run, "");
	}
	/* the run is cut to whole characters when the buffer is short */
	{
		const char *t = "锁页内存不能被换出所以设备可以放心";
		assert_int_equal(ans_seed_shared(&sd, t, strlen(t), run, 10), 17);
		assert_string_equal(run, "锁页内");
	}
	assert_int_equal(ans_seed_shared(&sd, "", 0, NULL, 0), 0);
	ans_seed_free(&sd);
	assert_int_equal(ans_seed_init("s.txt", "短", 3, 12, &sd, err, sizeof(err)), 0);
	assert_int_equal(ans_seed_shared(&sd, "短", 3, run, sizeof(run)), 0);
	ans_seed_free(&sd);
	assert_int_equal(ans_seed_load("/nonexistent/c.txt", 12, &sd, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/c.txt: No such file"));
}

/*
 * What ans_seed_shared must answer, found the slow and obvious way: every
 * place of the answer against every place of the seed.  The longest run,
 * the first place in the answer that reaches it; 0 when shorter than min.
 * Texts of 3-byte ideographs only, so a code point is 3 bytes.
 */
static size_t shared_by_brute_force(const char *seed, const char *text, size_t min,
				    size_t *first)
{
	size_t ns = strlen(seed) / 3, nt = strlen(text) / 3, i, j, k, best = 0;

	*first = 0;
	for (i = 0; i < nt; i++)
		for (j = 0; j < ns; j++) {
			for (k = 0; i + k < nt && j + k < ns &&
				    !memcmp(text + 3 * (i + k), seed + 3 * (j + k), 3); k++)
				;
			if (k > best)
				best = k, *first = i;
		}
	return best >= min ? best : 0;
}

/* A text of n ideographs drawn from the first `kinds` of a small set. */
static void random_ideographs(char *out, size_t n, int kinds, unsigned *rng)
{
	static const char set[] = "锁页内存拷贝";
	size_t i;

	for (i = 0; i < n; i++) {
		*rng = *rng * 1103515245u + 12345u;
		memcpy(out + 3 * i, set + 3 * ((*rng >> 16) % (unsigned)kinds), 3);
	}
	out[3 * n] = '\0';
}

/* The same length and run as the brute force, over texts that repeat a
 * lot (two or three kinds of ideograph), for runs of 1 to 5. */
static void test_ans_seed_shared_as_brute_force(void **state)
{
	char seed[3 * 80 + 1], text[3 * 60 + 1], err[256], run[3 * 60 + 1], want[3 * 60 + 1];
	unsigned rng = 14;
	size_t first, n;
	struct ans_seed sd;
	int round;

	(void)state;
	for (round = 0; round < 600; round++) {
		size_t min = 1 + (size_t)round % 5;

		random_ideographs(seed, 20 + (size_t)round % 61, 2 + round % 2, &rng);
		random_ideographs(text, 1 + (size_t)round % 60, 2 + round % 2, &rng);
		assert_int_equal(ans_seed_init("r.txt", seed, strlen(seed), min, &sd, err,
					       sizeof(err)), 0);
		n = shared_by_brute_force(seed, text, min, &first);
		assert_int_equal(ans_seed_shared(&sd, text, strlen(text), run, sizeof(run)), n);
		memcpy(want, text + 3 * first, 3 * n);
		want[3 * n] = '\0';
		assert_string_equal(run, want);
		ans_seed_free(&sd);
	}
}

/* One ideograph 6826 times (20 KB) on both sides, every place a match: once
 * cubic (3e11 steps), now 5e7; alarm() ends the test if it hangs. */
static void test_ans_seed_shared_worst_case_fast(void **state)
{
	enum { N = 6826 };
	char *text = malloc(3 * N + 1), err[256], run[64];
	struct ans_seed sd;
	struct timespec t0, t1;
	size_t i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < N; i++)
		memcpy(text + 3 * i, "锁", 3);
	text[3 * N] = '\0';
	alarm(20);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ans_seed_init("w.txt", text, 3 * N, 12, &sd, err, sizeof(err)), 0);
	assert_int_equal(ans_seed_shared(&sd, text, 3 * N, run, sizeof(run)), N);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	/* cut to 63 bytes */
	assert_string_equal(run, "锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁");
	assert_true((double)(t1.tv_sec - t0.tv_sec) +
		    1e-9 * (double)(t1.tv_nsec - t0.tv_nsec) < 5.0);
	ans_seed_free(&sd);
	free(text);
}

static struct ans_tally tally(int pass, int fail, int known, int unverified, int not_built)
{
	struct ans_tally t;
	int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < pass; i++)
		ans_tally_add(&t, ans_claim_state(ST_PASS), 0);
	for (i = 0; i < fail; i++)
		ans_tally_add(&t, ans_claim_state(ST_FAIL), i < known);
	for (i = 0; i < unverified; i++)
		ans_tally_add(&t, ans_claim_state(i % 2 ? ST_SKIP : ST_NOT_RUN), 0);
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
	t = tally(0, 1, 0, 2, 0); /* one contradiction of three claims: too few decided */
	assert_string_equal(ans_question_status(&t), "unverified");
	assert_int_equal(ans_question_points(&t, &pts), 0);
	t = tally(1, 0, 0, 1, 1); /* 1 of 3 */
	assert_string_equal(ans_question_status(&t), "unverified");
	assert_int_equal(ans_question_points(&t, &pts), 0);
	t = tally(1, 0, 0, 1, 0); /* 1 of 2: half is enough */
	assert_string_equal(ans_question_status(&t), "partial");
	assert_int_equal(ans_question_points(&t, &pts), 1);
	t = tally(0, 0, 0, 2, 1);
	assert_string_equal(ans_question_status(&t), "unverified");
	assert_int_equal(ans_question_points(&t, &pts), 0); /* out of the maximum */
	t = tally(0, 0, 0, 0, 2);
	assert_string_equal(ans_question_status(&t), "unverified");
	assert_int_equal(t.not_built, 2);
	assert_int_equal(ans_claim_state(ST_INCONCLUSIVE), ANS_UNVERIFIED);
	assert_int_equal(ans_claim_state(ST_ERROR), ANS_UNVERIFIED);
	assert_int_equal(ans_claim_state(ST_PENDING), ANS_UNVERIFIED);
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
		assert_int_equal(q->nclaims, 0); /* the labs' specs say which back it */
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
	assert_null(ans_find_planned_lab(&s, "09")); /* a built lab has no planned claims */
	assert_non_null(ans_find_planned_lab(&s, "15")); /* two NUMA nodes with a GPU */
	assert_int_equal(ans_map_planned(&s), 0);
	assert_int_equal(ans_find_question(&s, "ch2.S3")->nclaims, 0); /* the labs name them */
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
		cmocka_unit_test(test_ans_parse_hints_exercise),
		cmocka_unit_test(test_utf8_valid_edges),
		cmocka_unit_test(test_ans_cross_check_good),
		cmocka_unit_test(test_ans_cross_check_problems),
		cmocka_unit_test(test_ans_cross_check_planned),
		cmocka_unit_test(test_ans_map),
		cmocka_unit_test(test_ans_question_id_ok),
		cmocka_unit_test(test_ans_seed_shared),
		cmocka_unit_test(test_ans_seed_shared_as_brute_force),
		cmocka_unit_test(test_ans_seed_shared_worst_case_fast),
		cmocka_unit_test(test_ans_question_status_rules),
		cmocka_unit_test(test_ans_load_dir_repository),
		cmocka_unit_test(test_ans_load_dir_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
