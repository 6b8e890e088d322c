/*
 * test_nvml_memory.c - lab-07's NVML memory reading without a GPU: bad input
 * refused before NVML is asked, and a GPU NVML does not list (or no NVML at
 * all) said so, with nothing filled in.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/07-alloc/nvml_memory.h"

static void test_nvml_memory_refuses_bad_input(void **state)
{
	struct gpu_nvml_memory m;

	(void)state;
	errno = 0;
	assert_int_equal(gpu_nvml_memory(NULL, &m), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(gpu_nvml_memory("0000:3b:00.0", NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(gpu_nvml_memory("not-a-bus-id", &m), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(m.why, "not a PCI bus id"));
	assert_int_equal(m.processes, -1);
}

/* No NVML here (ENOENT), or NVML without a GPU at a bus id no GPU has (ENODEV). */
static void test_nvml_memory_absent_gpu(void **state)
{
	struct gpu_nvml_memory m;
	void *h = dlopen("libnvidia-ml.so.1", RTLD_LAZY);

	(void)state;
	assert_int_equal(gpu_nvml_memory("0000:ff:1f.7", &m), -1);
	if (!h) {
		assert_int_equal(errno, ENOENT);
		assert_non_null(strstr(m.why, "NVML unavailable"));
	} else {
		assert_true(errno == ENODEV || errno == ENOENT);
		dlclose(h);
	}
	assert_true(m.why[0] != '\0');
	assert_int_equal(m.processes, -1);
	assert_true(m.used == 0 && m.total == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvml_memory_refuses_bad_input),
		cmocka_unit_test(test_nvml_memory_absent_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
