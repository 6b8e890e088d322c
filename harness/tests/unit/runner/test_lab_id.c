/*
 * test_lab_id.c - lab_id_normalise (discover.c), the one reader of a lab id that
 * run, check, hint, exercise and try share: "4", "04", "004" and "lab-4" are
 * lab-04; anything else is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner.h"

static void test_lab_id(void **state)
{
	static const char *const as_04[] = { "4", "04", "004", "lab-4", "lab-04" };
	static const char *const bad[] = { "", "lab-", "x1", "4a", "-4", "1.lock", "123456789" };
	char id[12];

	(void)state;
	for (size_t i = 0; i < sizeof(as_04) / sizeof(as_04[0]); i++) {
		assert_int_equal(lab_id_normalise(as_04[i], id, sizeof(id)), 0);
		assert_string_equal(id, "04");
	}
	assert_int_equal(lab_id_normalise("110", id, sizeof(id)), 0);
	assert_string_equal(id, "110"); /* three digits kept: a lab-110 would be lab-110 */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(lab_id_normalise(bad[i], id, sizeof(id)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
