/*
 * test_need.c - need.h: checked sizes near 2^64, host memory
 * capped by the cgroup's limit on fake /proc and /sys trees (v2, v1,
 * hybrid, a container's own root, no limit), and the usage errors' words.
 *
 * Each tree is written under a fresh temporary directory, so a case shows
 * every file it depends on.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "need.h"
#include "unit_lab.h"

/* ---- checked arithmetic ---- */

static void test_add_and_mul_near_the_top(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(need_add(UINT64_MAX - 5, 5, &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	errno = 0;
	assert_int_equal(need_add(UINT64_MAX - 5, 6, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(v, 7); /* untouched */
	assert_int_equal(need_add(UINT64_MAX, 1, &v), -1);
	assert_int_equal(need_mul(4, UINT64_MAX / 4, &v), 0);
	assert_true(v == UINT64_MAX / 4 * 4);
	assert_int_equal(need_mul(4, UINT64_MAX / 4 + 1, &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(need_mul(0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(need_mul(1ULL << 32, 1ULL << 32, &v), -1);
}

static void test_need_saturates(void **state)
{
	(void)state;
	assert_int_equal(need_bytes(1, 1 * GiB, 256 * MiB), GiB + 256 * MiB);
	assert_int_equal(need_bytes(3, 64 * MiB, 0), 192 * MiB);
	assert_true(need_bytes(1, UINT64_MAX - 10, 256 * MiB) == UINT64_MAX);
	assert_true(need_bytes(2, 1ULL << 63, 0) == UINT64_MAX);
}

static void test_fits(void **state)
{
	(void)state;
	assert_true(need_fits(2, 512 * MiB, 1 * GiB));
	assert_false(need_fits(2, 512 * MiB + 1, 1 * GiB));
	/* a --size next to 2^64 times 2 wraps to a small number unless checked */
	assert_false(need_fits(2, (1ULL << 63) + 1, 1 * GiB));
	assert_false(need_fits(4, UINT64_MAX / 2, UINT64_MAX - 1));
}

/* ---- host memory on fake trees ---- */

struct tree {
	char root[64];
};

/* Writes root/rel (making its directories) with text. */
static void put(struct tree *t, const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	for (s = path + strlen(t->root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tree_new(struct tree *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/dmalab-need-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	put(t, "proc/meminfo", "MemTotal:       16777216 kB\n"   /* 16 GiB */
			      "MemFree:         1048576 kB\n"
			      "MemAvailable:    8388608 kB\n");  /* 8 GiB */
}

static void tree_free(struct tree *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	assert_int_equal(system(cmd), 0);
}

static void test_host_no_cgroup_file(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.mem_total, 16 * GiB);
	assert_int_equal(h.mem_available, 8 * GiB);
	assert_true(h.cgroup_max == UINT64_MAX);
	assert_int_equal(h.cgroup_version, 0);
	assert_int_equal(h.ram, 16 * GiB);
	assert_int_equal(h.available, 8 * GiB);
	assert_string_equal(h.ram_name, "RAM");
	assert_string_equal(h.available_name, "MemAvailable");
	tree_free(&t);
}

static void test_host_v2_parent_limit_binds(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/self/cgroup", "0::/lab.slice/run.scope\n");
	put(&t, "sys/fs/cgroup/lab.slice/run.scope/memory.max", "max\n");
	put(&t, "sys/fs/cgroup/lab.slice/memory.max", "4294967296\n"); /* 4 GiB */
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.cgroup_version, 2);
	assert_string_equal(h.cgroup_path, "/lab.slice/run.scope");
	assert_int_equal(h.cgroup_max, 4 * GiB);
	assert_int_equal(h.ram, 4 * GiB);
	assert_int_equal(h.available, 4 * GiB);
	assert_string_equal(h.ram_name, "the cgroup's memory limit");
	assert_string_equal(h.available_name, "the cgroup's memory limit");
	tree_free(&t);
}

static void test_host_v2_limit_above_available(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/self/cgroup", "0::/job\n");
	put(&t, "sys/fs/cgroup/job/memory.max", "12884901888\n"); /* 12 GiB */
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.ram, 12 * GiB);                /* capped */
	assert_int_equal(h.available, 8 * GiB);           /* MemAvailable is lower */
	assert_string_equal(h.available_name, "MemAvailable");
	tree_free(&t);
}

static void test_host_v2_max_everywhere(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/self/cgroup", "0::/\n");
	put(&t, "sys/fs/cgroup/memory.max", "max\n");
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.cgroup_version, 2);
	assert_true(h.cgroup_max == UINT64_MAX);
	assert_int_equal(h.ram, 16 * GiB);
	tree_free(&t);
}

static void test_host_v1_limit(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/self/cgroup", "5:cpu,cpuacct:/\n"
				    "4:memory:/batch/job7\n"
				    "0::/\n");
	put(&t, "sys/fs/cgroup/memory/batch/job7/memory.limit_in_bytes", "2147483648\n");
	put(&t, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	/* the hybrid's v2 tree has no memory controller, and must not count */
	put(&t, "sys/fs/cgroup/memory.max", "1024\n");
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.cgroup_version, 1);
	assert_string_equal(h.cgroup_path, "/batch/job7");
	assert_int_equal(h.cgroup_max, 2 * GiB);
	assert_int_equal(h.available, 2 * GiB);
	tree_free(&t);
}

static void test_host_v1_unlimited(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/self/cgroup", "4:memory:/process_api/e40c\n");
	put(&t, "sys/fs/cgroup/memory/process_api/e40c/memory.limit_in_bytes",
	    "9223372036854771712\n");
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.cgroup_version, 1);
	assert_true(h.cgroup_max == UINT64_MAX); /* v1's "no limit" */
	assert_int_equal(h.available, 8 * GiB);
	tree_free(&t);
}

static void test_host_container_sees_own_root(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	/* no cgroup namespace: the host's path, but the container's own tree */
	put(&t, "proc/self/cgroup", "0::/docker/0123abcd\n");
	put(&t, "sys/fs/cgroup/memory.max", "1073741824\n");
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.cgroup_max, 1 * GiB);
	assert_int_equal(h.ram, 1 * GiB);
	tree_free(&t);
}

static void test_host_garbage_limit_ignored(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/self/cgroup", "0::/a\n");
	put(&t, "sys/fs/cgroup/a/memory.max", "lots\n");
	assert_int_equal(need_host_read(t.root, &h), 0);
	assert_int_equal(h.cgroup_version, 0);
	assert_true(h.cgroup_max == UINT64_MAX);
	tree_free(&t);
}

static void test_host_missing_memavailable(void **state)
{
	struct tree t;
	struct need_host h;

	(void)state;
	tree_new(&t);
	put(&t, "proc/meminfo", "MemTotal:       16777216 kB\n");
	errno = 0;
	assert_int_equal(need_host_read(t.root, &h), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(h.mem_total, 16 * GiB); /* the rest is still there */
	assert_int_equal(h.available, 0);
	tree_free(&t);
}

static void test_host_live_is_sane(void **state)
{
	struct need_host h;

	(void)state;
	assert_int_equal(need_host_read(NULL, &h), 0);
	assert_true(h.mem_total > 0);
	assert_true(h.available > 0 && h.available <= h.ram);
}

static void test_shortfall(void **state)
{
	char d[128] = "untouched";

	(void)state;
	assert_null(need_shortfall(2, 64 * MiB, 128 * MiB, "MemAvailable", d, sizeof(d)));
	assert_string_equal(d, "untouched");
	assert_string_equal(need_shortfall(2, 64 * MiB, 100 * MiB, "MemAvailable", d,
						sizeof(d)), SKIP_NOT_ENOUGH_MEMORY);
	assert_string_equal(d, "64 MiB wanted, MemAvailable 100 MiB");
	assert_non_null(need_shortfall(2, UINT64_MAX, UINT64_MAX, "RAM", d, sizeof(d)));
}

/* ---- usage errors ---- */

static void test_too_small_text(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(lab_size_too_small(buf, sizeof(buf), "size", 1 * MiB, 64 * MiB,
						" for the large handle of 06.3"),
			    "--size '1M': too small: need at least 64 MiB for the large "
			    "handle of 06.3");
	assert_string_equal(lab_size_too_small(buf, sizeof(buf), "size", 1000, 4 * MiB, NULL),
			    "--size '1000': too small: need at least 4 MiB");
}

/* A lab whose check_opts applies a 64 MiB floor to --size. */
static int floor_check(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);

	if (o->size_given && lab_size_floor(L, "size", o->size, 64 * MiB,
						  ", so that the claim can hold"))
		return 2;
	if (o->size_given && o->size % 4)
		return lab_usage_error(L, "size", "x", "must be a multiple of %d bytes", 4);
	return 0;
}

static void run_nothing(struct lab *L)
{
	claim_skip_rest(L, SKIP_UNSUPPORTED, "nothing to do");
}

static const struct claim_spec one_claim[] = {
	{ "98.1", "ch1.Q1", "a claim", "ch1", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_spec floor_spec = {
	.id = "98", .title = "need test", .timeout_s = 10, .claims = one_claim,
	.default_size = 256 * MiB, .default_iters = 7, .check_opts = floor_check,
};

/* lab_main with `opt arg` in a child; its exit code, its stderr in err. */
static int run_with(const char *opt, const char *arg, char *err, size_t len)
{
	char path[] = "/tmp/dmalab-need-err-XXXXXX";
	int fd = mkstemp(path), status;
	pid_t pid;
	char *text;

	assert_true(fd >= 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)"lab-98", (char *)opt, (char *)arg, NULL };
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		dup2(fd, 2);
		_exit(lab_main(&floor_spec, run_nothing, 3, argv, 0));
	}
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	text = unit_slurp(path);
	unlink(path);
	assert_non_null(text);
	snprintf(err, len, "%s", text);
	free(text);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_with_size(const char *arg, char *err, size_t len)
{
	return run_with("--size", arg, err, len);
}

/* --size past 1 PiB: a usage error naming it, before any arithmetic on it. */
static void test_size_ceiling(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(run_with_size("18446744073709551615", err, sizeof(err)), 2);
	assert_string_equal(err, "lab-98: --size '18446744073709551615': larger than 1 PiB "
				 "(1024T), the most a lab takes (see --help)\n");
	assert_int_equal(run_with_size("1025T", err, sizeof(err)), 2);
	assert_int_equal(run_with_size("1024T", err, sizeof(err)), 77); /* accepted; skips */
}

/* --json: a directory, a place no file can be made, and a good path (no
 * FILE.tmp of the user's is touched: the probe's name is its own). */
static void test_json_path_checked(void **state)
{
	char err[512], dir[] = "/tmp/dmalab-json-XXXXXX", path[600], mine[640];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(run_with("--json", dir, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "is a directory"));
	assert_int_equal(run_with("--json", "/proc/version", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "cannot create a file in /proc"));
	snprintf(path, sizeof(path), "%s/rec.json", dir);
	snprintf(mine, sizeof(mine), "%s.tmp", path);
	f = fopen(mine, "w");
	assert_non_null(f);
	fputs("the user's own file\n", f);
	fclose(f);
	assert_int_equal(run_with("--json", path, err, sizeof(err)), 77);
	f = fopen(mine, "r");
	assert_non_null(f);      /* still there, still the user's */
	assert_non_null(fgets(err, sizeof(err), f));
	assert_string_equal(err, "the user's own file\n");
	fclose(f);
	assert_int_equal(unlink(mine), 0);
	assert_int_equal(unlink(path), 0); /* the record was written */
	assert_int_equal(rmdir(dir), 0);   /* and nothing else left */
}

static void test_size_floor_message(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(run_with_size("1M", err, sizeof(err)), 2);
	assert_string_equal(err, "lab-98: --size '1M': too small: need at least 64 MiB, so "
				 "that the claim can hold (see --help)\n");
	assert_int_equal(run_with_size("65M", err, sizeof(err)), 77); /* ran: skipped */
	assert_string_equal(err, "");
	assert_int_equal(run_with_size("67108867", err, sizeof(err)), 2);
	assert_string_equal(err, "lab-98: --size 'x': must be a multiple of 4 bytes "
				 "(see --help)\n");
}

/* need_ram_require: a KiB fits and the lab goes on; 2^63 bytes skip it. */
static void run_ram_small(struct lab *L)
{
	need_ram_require(L, 4, 1024);
	claim_check_true(L, "98.1", 1, "went on");
}

static void run_ram_huge(struct lab *L)
{
	need_ram_require(L, 2, UINT64_C(1) << 63);
	claim_check_true(L, "98.1", 1, "should not get here");
}

static void test_ram_require(void **state)
{
	struct unit_lab u;
	const struct json *c;

	(void)state;
	unit_run_lab(&floor_spec, run_ram_small, &u);
	assert_int_equal(u.exit_code, 0);
	assert_string_equal(unit_status(&u, "98.1"), "pass");
	unit_lab_free(&u);
	unit_run_lab(&floor_spec, run_ram_huge, &u);
	assert_int_equal(u.exit_code, 77);
	assert_string_equal(unit_status(&u, "98.1"), "skip");
	c = unit_claim(&u, "98.1");
	assert_string_equal(json_get_str(c, "reason", ""), SKIP_NOT_ENOUGH_MEMORY);
	assert_non_null(strstr(json_get_str(c, "detail", ""), "need 2 x 8388608 TiB"));
	unit_lab_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_mul_near_the_top),
		cmocka_unit_test(test_need_saturates),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_host_no_cgroup_file),
		cmocka_unit_test(test_host_v2_parent_limit_binds),
		cmocka_unit_test(test_host_v2_limit_above_available),
		cmocka_unit_test(test_host_v2_max_everywhere),
		cmocka_unit_test(test_host_v1_limit),
		cmocka_unit_test(test_host_v1_unlimited),
		cmocka_unit_test(test_host_container_sees_own_root),
		cmocka_unit_test(test_host_garbage_limit_ignored),
		cmocka_unit_test(test_host_missing_memavailable),
		cmocka_unit_test(test_host_live_is_sane),
		cmocka_unit_test(test_shortfall),
		cmocka_unit_test(test_too_small_text),
		cmocka_unit_test(test_size_floor_message),
		cmocka_unit_test(test_ram_require),
		cmocka_unit_test(test_size_ceiling),
		cmocka_unit_test(test_json_path_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
