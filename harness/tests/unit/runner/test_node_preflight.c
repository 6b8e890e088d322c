/*
 * test_node_preflight.c - `dmalab preflight`'s judging (runner/preflight.c)
 * on hand-made lab records: every verdict a machine without a GPU cannot
 * show (a slow pinned copy, a link of unknown rate, a GPU CUDA does not
 * list, a lab built without nvcc), the memlock floor, and the status line
 * and exit code.  The command itself, with real and made-up labs, is
 * harness/tests/test-preflight.sh.
 *
 * It builds preflight.c in, to reach its static checks, and links the
 * runner objects it calls (spawn.o, usage.o); the Makefile adds it to
 * `make unit`.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "preflight.c"

static struct preflight pf;

static struct json *parse(const char *text)
{
	char err[200];
	struct json *j = json_parse(text, strlen(text), err, sizeof(err));

	assert_non_null(j);
	return j;
}

/* A lab-02 record of GPU bdf: h2d and d2h GB/s on a link of theo GB/s (Gen5 x16). */
static struct json *lab02(const char *bdf, double h2d, double d2h, double theo)
{
	char text[1024];

	snprintf(text, sizeof(text), "{\"status\": \"pass\", \"skip\": null, \"facts\": {"
		 "\"gpu_pci_bus_id\": \"%s\", \"pcie_gen_max\": {\"value\": 5}, "
		 "\"pcie_width_max\": {\"value\": 16}, \"pcie_theoretical_gbs\": {\"value\": %g}, "
		 "\"h2d_pinned_gbs\": {\"value\": %g}, \"d2h_pinned_gbs\": {\"value\": %g}}}",
		 bdf, theo, h2d, d2h);
	return parse(text);
}

static struct json *skipped(const char *reason, const char *detail)
{
	char text[512];

	snprintf(text, sizeof(text), "{\"status\": \"skip\", \"skip\": {\"reason\": \"%s\", "
		 "\"detail\": \"%s\"}, \"facts\": {}}", reason, detail);
	return parse(text);
}

/* A fresh run with the defaults and n sysfs GPUs 0000:0N:00.0. */
static int setup(void **state)
{
	memset(&pf, 0, sizeof(pf));
	pf.o = (struct pf_opts){ 64 * MiB, -1, 256 * MiB, 0.70, 50, NULL, "/sys", "labs", 0 };
	for (int i = 0; i < 4; i++)
		snprintf(pf.sys.dev[i].bdf, sizeof(pf.sys.dev[i].bdf), "0000:0%d:00.0", i);
	snprintf(pf.sys.dev[1].name, sizeof(pf.sys.dev[1].name), "NVIDIA H200");
	return 0;
}

static int teardown(void **state)
{
	json_free(pf.lab01.rec);
	for (int i = 0; i < GPU_TOPO_MAX_GPUS; i++)
		json_free(pf.gpu[i].rec);
	return 0;
}

static const char *last_line(void)
{
	return pf.check[pf.n - 1].line;
}

/* What a job can lock: the capability, else the hard limit; a low soft limit is raised. */
static void test_memlock_rights(void **state)
{
	assert_int_equal(judge_memlock(&pf, 64 * KiB, 64 * KiB, 1), 0); /* root */
	assert_int_equal(pf.check[0].st, PF_PASS);
	assert_string_equal(last_line(), "RLIMIT_MEMLOCK soft 64 KiB, hard 64 KiB, CAP_IPC_LOCK "
			    "yes: the capability lifts the limit (need 64 MiB)");
	assert_int_equal(judge_memlock(&pf, 8 * MiB, 8 * MiB, 0), 0);
	assert_int_equal(pf.check[1].st, PF_FAIL);
	assert_string_equal(last_line(), "RLIMIT_MEMLOCK soft 8 MiB, hard 8 MiB, CAP_IPC_LOCK no: "
			    "hard < 64 MiB (--memlock-min): the job cannot lock more; mlock and "
			    "RDMA registrations (NCCL over InfiniBand) fail beyond it");
	assert_int_equal(judge_memlock(&pf, 64 * KiB, -1, 0), 1); /* a user may raise it */
	assert_int_equal(pf.check[2].st, PF_PASS);
	assert_non_null(strstr(last_line(), "soft < 64 MiB, so the job must raise it (ulimit -l "
			       "unlimited)"));
	assert_int_equal(judge_memlock(&pf, 128 * MiB, 128 * MiB, 0), 0);
	assert_int_equal(pf.check[3].st, PF_PASS);
	pf.o.memlock_min = -1; /* --memlock-min unlimited: a finite hard limit fails */
	assert_int_equal(judge_memlock(&pf, -1, 128 * MiB, 0), 0);
	assert_int_equal(pf.check[4].st, PF_PASS); /* the soft one is unlimited already */
	assert_int_equal(judge_memlock(&pf, 128 * MiB, 128 * MiB, 0), 0);
	assert_int_equal(pf.check[5].st, PF_FAIL);
}

/* A lab-01 that broke is unhealthy. */
static void test_mlock_without_a_record(void **state)
{
	snprintf(pf.lab01.why, sizeof(pf.lab01.why), "stopped after 50.0 s (--timeout 50)");
	check_mlock(&pf);
	assert_int_equal(pf.check[0].st, PF_FAIL);
	assert_non_null(strstr(pf.check[0].line, "stopped after 50.0 s"));
}

static void test_mlock_claims(void **state)
{
	pf.lab01.rec = parse("{\"claims\": [{\"id\": \"01.1\", \"status\": \"pass\"}, "
			     "{\"id\": \"01.3\", \"status\": \"pass\"}]}");
	check_mlock(&pf);
	assert_int_equal(pf.check[0].st, PF_PASS);
	json_free(pf.lab01.rec);
	pf.lab01.rec = parse("{\"claims\": [{\"id\": \"01.1\", \"status\": \"pass\"}, "
			     "{\"id\": \"01.3\", \"status\": \"fail\", \"text\": \"munlock brings "
			     "VmLck back\", \"got\": 1, \"want\": 0}]}");
	check_mlock(&pf);
	assert_int_equal(pf.check[1].st, PF_FAIL);
	assert_string_equal(last_line(), "lab-01 01.3: munlock brings VmLck back: got 1, want 0");
}

static void test_rates(void **state)
{
	pf.gpu[0].rec = lab02("0000:00:06.0", 55.5, 53.1, 63.0);
	pf.gpu[1].rec = lab02("0000:01:00.0", 24.1, 53.1, 63.0);
	pf.gpu[2].rec = lab02("0000:02:00.0", 55.5, 53.1, 0); /* the link unknown */
	for (int i = 0; i < 3; i++)
		check_gpu(&pf, i, &rate_checks[0]);
	check_gpu(&pf, 0, &rate_checks[1]);
	assert_int_equal(pf.check[0].st, PF_PASS);
	assert_string_equal(pf.check[0].line, "GPU 0 (0000:00:06.0) pinned H2D 55.5 GB/s >= "
			    "0.70 x 63.0 GB/s (Gen5 x16): 0.88");
	assert_int_equal(pf.check[1].st, PF_FAIL);
	assert_string_equal(pf.check[1].line, "GPU 1 (0000:01:00.0) pinned H2D 24.1 GB/s < "
			    "0.70 x 63.0 GB/s (Gen5 x16)");
	assert_int_equal(pf.check[2].st, PF_FAIL);
	assert_non_null(strstr(pf.check[2].line, "the link's theoretical rate is unknown"));
	assert_int_equal(pf.check[3].st, PF_PASS);
	assert_string_equal(pf.check[3].name, "d2h");
}

/* A GPU whose lab broke (a CUDA error) fails; one it skipped is not run. */
static void test_gpu_lab_broke_or_skipped(void **state)
{
	/* run_lab keeps the record's "error" as why */
	snprintf(pf.gpu[0].why, sizeof(pf.gpu[0].why), "cudaMemcpyAsync: cudaErrorUnknown");
	pf.gpu[1].rec = skipped(SKIP_NOT_ENOUGH_MEMORY, "256 MiB wanted");
	check_gpu(&pf, 0, &rate_checks[0]);
	check_gpu(&pf, 1, &rate_checks[0]);
	assert_int_equal(pf.check[0].st, PF_FAIL);
	assert_string_equal(pf.check[0].line, "GPU 0 (0000:00:00.0) lab-02: cudaMemcpyAsync: "
			    "cudaErrorUnknown");
	assert_int_equal(pf.check[1].st, PF_NOT_RUN);
}

static void test_gpus_listed_or_not(void **state)
{
	pf.gpu[0].rec = lab02("0000:00:00.0", 55, 55, 63);
	pf.gpu[1].exit_code = 2; /* --device 1: CUDA lists one GPU */
	pf.sys.n = 2;
	assert_int_equal(check_gpus(&pf), 1);
	assert_int_equal(pf.check[0].st, PF_FAIL);
	assert_string_equal(last_line(), "GPU 0000:01:00.0 (NVIDIA H200) is in sysfs but CUDA "
			    "does not list it (1 of the 2 missing)");
	pf.sys.n = 1;
	assert_int_equal(check_gpus(&pf), 1);
	assert_int_equal(pf.check[1].st, PF_PASS);
	assert_string_equal(last_line(), "1 NVIDIA GPU in sysfs, visible to CUDA");
	pf.o.expect_gpus = 8;
	check_gpus(&pf);
	assert_string_equal(last_line(),
			    "expected 8 NVIDIA GPUs (--expect-gpus), found 1 in sysfs");
}

static void test_gpus_without_cuda(void **state)
{
	pf.gpu[0].rec = skipped(SKIP_NO_CUDA_DRIVER, "no NVIDIA driver: libcuda.so.1 not found");
	pf.sys.n = 2;
	assert_int_equal(check_gpus(&pf), 0);
	assert_int_equal(pf.check[0].st, PF_FAIL);
	assert_string_equal(last_line(), "2 NVIDIA GPUs in sysfs (0000:00:00.0, ...) but lab-02 "
			    "opened none: no-cuda-driver: no NVIDIA driver: "
			    "libcuda.so.1 not found");
	json_free(pf.gpu[0].rec);
	pf.gpu[0].rec = skipped(SKIP_NOT_BUILT_NO_NVCC, "built without nvcc");
	assert_int_equal(check_gpus(&pf), 0);
	assert_int_equal(pf.check[1].st, PF_NOT_RUN);
}

static void test_status_line_and_exit_code(void **state)
{
	char line[LINE_LEN + 64];

	add(&pf, "gpus", PF_NA, "no NVIDIA GPU");
	assert_string_equal(status_line(&pf, line, sizeof(line)),
			    "preflight: healthy (no NVIDIA GPU: memlock and mlock only)");
	assert_int_equal(exit_code(&pf), 0);
	add(&pf, "h2d", PF_NOT_RUN, "lab-02 skipped");
	assert_string_equal(status_line(&pf, line, sizeof(line)),
			    "preflight: could not run: lab-02 skipped");
	assert_int_equal(exit_code(&pf), 2);
	add(&pf, "memlock", PF_FAIL, "RLIMIT_MEMLOCK low");
	add(&pf, "h2d", PF_FAIL, "slow");
	add(&pf, "d2h", PF_FAIL, "slow");
	assert_string_equal(status_line(&pf, line, sizeof(line)),
			    "preflight: unhealthy: RLIMIT_MEMLOCK low (and 2 more failed checks)");
	assert_int_equal(exit_code(&pf), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_memlock_rights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mlock_without_a_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mlock_claims, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_lab_broke_or_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpus_listed_or_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpus_without_cuda, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_line_and_exit_code, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
