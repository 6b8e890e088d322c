/*
 * test_lang.c - lang.h: the setting's order (DMALAB_LANG, then the locale),
 * a table text used only when its printf conversions are the English's, the
 * English kept for JSON, the columns a Chinese text takes, and a table read
 * entry by entry (msg_table_each: continuations, the built-in copy, errors).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lang.h"

static void clear_env(void)
{
	unsetenv("DMALAB_LANG");
	unsetenv("LC_ALL");
	unsetenv("LC_MESSAGES");
	unsetenv("LANG");
}

static void test_setting_order(void **state)
{
	(void)state;
	clear_env();
	assert_int_equal(dmalab_lang(), DMALAB_EN);
	setenv("LANG", "zh_CN.UTF-8", 1);
	assert_int_equal(dmalab_lang(), DMALAB_ZH);
	setenv("LC_MESSAGES", "C", 1); /* the first one set decides */
	assert_int_equal(dmalab_lang(), DMALAB_EN);
	setenv("DMALAB_LANG", "zh", 1);
	assert_int_equal(dmalab_lang(), DMALAB_ZH);
	setenv("DMALAB_LANG", "en", 1);
	setenv("LC_ALL", "zh_TW", 1);
	assert_int_equal(dmalab_lang(), DMALAB_EN);
	clear_env();
}

static void test_conversions(void **state)
{
	(void)state;
	assert_true(msg_same_conversions("VmLck %+.1f MiB of %s", "VmLck %.0f MiB，%s"));
	assert_true(msg_same_conversions("100%% of %d", "全部 %d（100%%）"));
	assert_false(msg_same_conversions("%d of %s", "%s 的 %d"));
	assert_false(msg_same_conversions("%d", "%ld"));
	assert_false(msg_same_conversions("%d pages", "页"));
	assert_false(msg_same_conversions("%*d", "%d"));
}

static void test_table_and_english(void **state)
{
	const char *en = "mlock of %s of fresh, untouched memory: VmLck, VmRSS and the machine's "
			 "Mlocked";
	const char *shown;

	(void)state;
	clear_env();
	assert_ptr_equal(MSG("01.fresh", en), en);
	setenv("DMALAB_LANG", "zh", 1);
	shown = MSG("01.fresh", en);
	assert_ptr_not_equal(shown, en);
	assert_non_null(strstr(shown, "mlock"));
	assert_ptr_equal(msg_english(shown), en);
	assert_ptr_equal(msg_english(en), en);
	/* a table text whose conversions differ is not used */
	assert_string_equal(MSG("01.fresh", "mlock of %d"), "mlock of %d");
	assert_string_equal(MSG("no.such.id", "plain"), "plain");
	assert_string_equal(msg_claim_text("99.9", "as is"), "as is");
	assert_string_not_equal(msg_claim_text("01.1", "english"), "english");
	assert_string_equal(msg_lab_title("04", "NUMA"), "NUMA：指针追逐、带宽与首次访问");
	assert_string_equal(msg_lab_title("99", "as is"), "as is");
	clear_env();
	assert_string_equal(msg_claim_text("01.1", "english"), "english");
	assert_string_equal(msg_lab_title("04", "NUMA"), "NUMA");
}

/* Joins what msg_table_each hands over as "id=zh;" into arg (a 256-byte buffer). */
static int join_entry(const char *id, const char *zh, void *arg)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%s=%s;", id, zh);
	return 0;
}

/* text written to a file of its own, read back entry by entry into out */
static int table_of(const char *text, char *out, char *err, size_t errlen)
{
	char path[] = "/tmp/dmalab-test-lang.XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	out[0] = '\0';
	rc = msg_table_each(path, join_entry, out, err, errlen);
	unlink(path);
	return rc;
}

static void test_table_each(void **state)
{
	char out[256], err[256];
	const char *first;

	(void)state;
	assert_int_equal(table_of("# a comment\n\n## b.1\nzh: 一\n  二\n\n## a-2\nzh: 三\n",
				  out, err, sizeof(err)), 0);
	assert_string_equal(out, "b.1=一\n二;a-2=三;");
	assert_int_not_equal(table_of("## b.1\nen: one\n", out, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":2: unknown key 'en' (want zh)"));
	/* an id is read whole, or refused: never cut short */
	assert_int_equal(table_of("## plot.l11-chapter-recompute\nzh: x\n", out, err,
				  sizeof(err)), 0);
	assert_string_equal(out, "plot.l11-chapter-recompute=x;");
	assert_int_not_equal(table_of("## a.very.long.message.id.of.forty.chars.xy\nzh: x\n", out,
				      err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":1: 'a.very.long.message.id.of.forty.chars.xy...' is longer "
			       "than an id may be (39 characters)"));
	assert_int_not_equal(table_of("## Bad\nzh: x\n", out, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":1: 'Bad' is not a message id"));
	assert_int_not_equal(msg_table_each("/nonexistent/zh.md", join_entry, out, err,
					    sizeof(err)), 0);
	assert_string_equal(err, "/nonexistent/zh.md: No such file or directory");
	/* the copy built in: the entries msg_zh looks up */
	out[0] = '\0';
	assert_int_equal(msg_table_each(NULL, join_entry, out, err, sizeof(err)), 0);
	first = strchr(out, '=');
	assert_non_null(first);
	snprintf(err, sizeof(err), "%.*s", (int)(first - out), out);
	assert_non_null(msg_zh(err));
}

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(msg_width("confirmed"), 9);
	assert_int_equal(msg_width("成立"), 4);
	assert_int_equal(msg_width("被推翻（勘误）"), 14);
	assert_int_equal(msg_width("1 → 2 ± 3"), 9); /* arrows and signs are narrow */
	assert_int_equal(msg_width(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setting_order),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_table_and_english),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_table_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
