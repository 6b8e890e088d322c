/*
 * test_lang.c - lang.h: the setting's order (DMALAB_LANG, then the locale),
 * a table text used only when its printf conversions are the English's, the
 * English kept for JSON, and the columns a Chinese text takes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
