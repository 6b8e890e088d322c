/*
 * test_procfs.c - the /proc and /sys readers of procfs.h, and lab-01's own
 * (labs/01-mlock/memlock.c: the lock snapshot, the drift, the confinement),
 * on fixture files.
 *
 * Fixtures live in harness/tests/fixtures/ (run from the repository root, or
 * set DMALAB_FIXTURES to that directory).  The locking rights are changed
 * only in forked children, so the test process keeps its own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include <cmocka.h>

#include "../../../labs/01-mlock/memlock.h" /* procfs.h, and lab-01's locking helpers */
#include "sysfs.h"


static const char *fixture(const char *rel, char *buf, size_t len)
{
	const char *dir = getenv("DMALAB_FIXTURES");

	snprintf(buf, len, "%s/%s", dir ? dir : "harness/tests/fixtures", rel);
	return buf;
}

/* ---- procfs_read_kb_field ---- */

static void test_procfs_read_kb_field_status_kb(void **state)
{
	char p[512];
	uint64_t v = 7;

	(void)state;
	assert_int_equal(procfs_read_kb_field(fixture("two-node/proc/self/status", p, sizeof(p)),
					      "VmRSS", &v), 0);
	assert_int_equal(v, 1024 * 1024);
	assert_int_equal(procfs_read_kb_field(p, "VmLck", &v), 0);
	assert_int_equal(v, 0);
}

static void test_procfs_read_kb_field_meminfo_count(void **state)
{
	char p[512];
	uint64_t v = 0;

	(void)state;
	fixture("two-node/proc/meminfo", p, sizeof(p));
	assert_int_equal(procfs_read_kb_field(p, "HugePages_Total", &v), 0);
	assert_int_equal(v, 8); /* a count: no "kB", not scaled */
	assert_int_equal(procfs_read_kb_field(p, "Hugepagesize", &v), 0);
	assert_int_equal(v, 2 * 1024 * 1024);
}

static void test_procfs_read_kb_field_missing_key(void **state)
{
	char p[512];
	uint64_t v = 0;

	(void)state;
	fixture("two-node/proc/self/status", p, sizeof(p));
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmNope", &v), -1);
	assert_int_equal(errno, ENOENT);
	/* A key that is only a prefix of a real one must not match it. */
	assert_int_equal(procfs_read_kb_field(p, "VmRS", &v), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_procfs_read_kb_field_missing_file(void **state)
{
	uint64_t v = 0;

	(void)state;
	errno = 0;
	assert_int_equal(procfs_read_kb_field("/nonexistent/status", "VmRSS", &v), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_procfs_read_kb_field_garbage(void **state)
{
	char p[512];
	uint64_t v = 0;

	(void)state;
	fixture("procfs/status-garbage", p, sizeof(p));
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmLck", &v), -1); /* "abc kB" */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmRSS", &v), -1); /* empty */
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(procfs_read_kb_field(p, "VmHuge", &v), -1); /* "5 MB" */
	assert_int_equal(errno, EINVAL);
}

static void test_procfs_read_kb_field_live(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(procfs_read_kb_field("/proc/self/status", "VmRSS", &v), 0);
	assert_true(v > 0);
	assert_int_equal(procfs_read_kb_field("/proc/meminfo", "MemTotal", &v), 0);
	assert_true(v > 0);
}

/* ---- sysfs_read_long (sysfs_read_str: test_sysfs.c) ---- */

static void test_sysfs_read_long_values(void **state)
{
	char p[512];
	long v = 0;

	(void)state;
	assert_int_equal(sysfs_read_long(fixture("procfs/long-42", p, sizeof(p)), &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(sysfs_read_long(fixture("procfs/long-minus1", p, sizeof(p)), &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(sysfs_read_long(fixture("procfs/long-hex", p, sizeof(p)), &v), 0);
	assert_int_equal(v, 0x10de);
}

static void test_sysfs_read_long_garbage(void **state)
{
	char p[512];
	long v = 0;

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_read_long(fixture("procfs/long-garbage", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sysfs_read_long(fixture("procfs/empty", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sysfs_read_long(fixture("procfs/missing", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, ENOENT);
}

/* ---- sysfs_thp_mode ---- */

static void test_sysfs_thp_mode_each(void **state)
{
	char p[512], mode[16];

	(void)state;
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-always", p, sizeof(p)),
					mode, sizeof(mode)), 0);
	assert_string_equal(mode, "always");
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-madvise", p, sizeof(p)),
					mode, sizeof(mode)), 0);
	assert_string_equal(mode, "madvise");
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-never", p, sizeof(p)),
					mode, sizeof(mode)), 0);
	assert_string_equal(mode, "never");
}

static void test_sysfs_thp_mode_no_bracket(void **state)
{
	char p[512], mode[16];

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-no-bracket", p, sizeof(p)),
					mode, sizeof(mode)), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_sysfs_thp_mode_small_buffer(void **state)
{
	char p[512], mode[4];

	(void)state;
	errno = 0;
	assert_int_equal(sysfs_thp_mode(fixture("procfs/thp-madvise", p, sizeof(p)),
					mode, sizeof(mode)), -1);
	assert_int_equal(errno, ERANGE);
}

/* ---- procfs_cap_effective ---- */

static void test_procfs_cap_effective_set(void **state)
{
	char p[512];
	int has = 0;

	(void)state;
	fixture("two-node/proc/self/status", p, sizeof(p));
	assert_int_equal(procfs_cap_effective(p, 14, &has), 0); /* CAP_IPC_LOCK */
	assert_int_equal(has, 1);
	assert_int_equal(procfs_cap_effective(p, 40, &has), 0); /* last of 0x1ff... */
	assert_int_equal(has, 1);
	assert_int_equal(procfs_cap_effective(p, 41, &has), 0);
	assert_int_equal(has, 0);
}

static void test_procfs_cap_effective_clear(void **state)
{
	char p[512];
	int has = 1;

	(void)state;
	fixture("one-node/proc/self/status", p, sizeof(p));
	assert_int_equal(procfs_cap_effective(p, 14, &has), 0);
	assert_int_equal(has, 0);
}

static void test_procfs_cap_effective_errors(void **state)
{
	char p[512];
	int has = 0;

	(void)state;
	errno = 0;
	assert_int_equal(procfs_cap_effective(fixture("procfs/status-garbage", p, sizeof(p)),
					      14, &has), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(procfs_cap_effective(fixture("two-node/proc/meminfo", p, sizeof(p)),
					      14, &has), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(procfs_cap_effective(p, 64, &has), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(procfs_cap_effective(p, -1, &has), -1);
}

/* ---- procfs_vm_read ---- */

static void test_procfs_vm_read(void **state)
{
	struct procfs_vm v;
	char p[512];

	(void)state;
	assert_int_equal(procfs_vm_read(fixture("procfs/lock/proc/self/status", p, sizeof(p)),
					&v), 0);
	assert_int_equal(v.lck, 65536ULL * 1024);
	assert_int_equal(v.pin, 8ULL * 1024);
	assert_int_equal(v.rss, 66560ULL * 1024);
	/* no VmPin line: 0, not an error */
	assert_int_equal(procfs_vm_read(fixture("one-node/proc/self/status", p, sizeof(p)), &v), 0);
	assert_int_equal(v.lck, 0);
	assert_int_equal(v.pin, 0);
	assert_int_equal(v.rss, 900ULL * 1024);
	/* the live file has the three */
	assert_int_equal(procfs_vm_read(NULL, &v), 0);
	assert_true(v.rss > 0);
}

static void test_procfs_vm_read_errors(void **state)
{
	struct procfs_vm v;
	char p[512];

	(void)state;
	errno = 0;
	assert_int_equal(procfs_vm_read(fixture("procfs/status-garbage", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, EINVAL); /* "VmLck: abc kB" */
	errno = 0;
	assert_int_equal(procfs_vm_read(fixture("two-node/proc/meminfo", p, sizeof(p)), &v), -1);
	assert_int_equal(errno, ENOENT); /* no VmLck, no VmRSS */
	errno = 0;
	assert_int_equal(procfs_vm_read("/nonexistent/status", &v), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(procfs_vm_read(NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
}

/* ---- folding and the drift of /proc/meminfo ---- */

static void test_procfs_stat_refresh(void **state)
{
	char path[] = "/tmp/dmalab-stat-refresh-XXXXXX", got[8] = "";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(procfs_stat_refresh(path), 1); /* a writable file takes the "1" */
	assert_int_equal(sysfs_read_str(path, got, sizeof(got)), 0);
	assert_string_equal(got, "1");
	unlink(path);
	assert_int_equal(procfs_stat_refresh(path), 0); /* gone: nothing folded */
	assert_int_equal(procfs_stat_refresh("/nonexistent/stat_refresh"), 0);
}

static void test_procfs_zones_populated(void **state)
{
	char p[512];

	(void)state;
	/* DMA, DMA32 and Normal of node 0, Normal of node 1; Movable and Device
	 * have no managed pages */
	assert_int_equal(procfs_zones_populated(fixture("procfs/zoneinfo-two-nodes", p,
							sizeof(p))), 4);
	assert_int_equal(procfs_zones_populated(fixture("procfs/zoneinfo-empty-zones", p,
							sizeof(p))), 0);
	assert_int_equal(procfs_zones_populated(fixture("procfs/empty", p, sizeof(p))), 0);
	errno = 0;
	assert_int_equal(procfs_zones_populated("/nonexistent/zoneinfo"), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_procfs_meminfo_slack(void **state)
{
	char p[512];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	/* two reads x 16 CPUs x 4 zones x 125 pages x 4 KiB */
	assert_int_equal(procfs_meminfo_slack(fixture("procfs/zoneinfo-two-nodes", p, sizeof(p)),
					      16, 4096), 2ULL * 16 * 4 * 125 * 4096);
	/* no zone found, or no file: 8 zones */
	assert_int_equal(procfs_meminfo_slack(fixture("procfs/zoneinfo-empty-zones", p, sizeof(p)),
					      2, 4096), 2ULL * 2 * 8 * 125 * 4096);
	assert_int_equal(procfs_meminfo_slack("/nonexistent/zoneinfo", 1, 4096),
			 2ULL * 1 * 8 * 125 * 4096);
	/* 0s: the online CPUs and the system's page size (p: no zone, so 8) */
	assert_int_equal(procfs_meminfo_slack(p, 0, 0), 2ULL * (uint64_t)cpus * 8 * 125 * page);
}

/* ---- procfs_lock_snapshot ---- */

static void test_procfs_lock_snapshot_fixture(void **state)
{
	struct procfs_lock_snapshot s;
	char root[512];

	(void)state;
	assert_int_equal(procfs_lock_snapshot(fixture("procfs/lock", root, sizeof(root)), &s), 0);
	assert_int_equal(s.folded, 0); /* no proc/sys/vm/stat_refresh there */
	assert_int_equal(s.mlocked, 4096ULL * 1024);
	assert_int_equal(s.unevictable, 12852ULL * 1024);
	assert_int_equal(s.self.lck, 65536ULL * 1024);
	assert_int_equal(s.self.pin, 8ULL * 1024);
	assert_int_equal(s.self.rss, 66560ULL * 1024);
}

/* dir/rel with the text, directories made on the way. */
static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	for (const char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(s - rel), rel);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_procfs_lock_snapshot_folded(void **state)
{
	char dir[] = "/tmp/dmalab-lock-XXXXXX", path[600], got[8] = "";
	struct procfs_lock_snapshot s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put_file(dir, "proc/meminfo", "Mlocked:  8 kB\nUnevictable:  12 kB\n");
	put_file(dir, "proc/self/status", "VmLck:  4 kB\nVmRSS:  100 kB\n");
	put_file(dir, "proc/sys/vm/stat_refresh", "");
	assert_int_equal(procfs_lock_snapshot(dir, &s), 0);
	assert_int_equal(s.folded, 1);
	assert_int_equal(s.mlocked, 8192);
	assert_int_equal(s.unevictable, 12288);
	assert_int_equal(s.self.lck, 4096);
	assert_int_equal(s.self.pin, 0);
	snprintf(path, sizeof(path), "%s/proc/sys/vm/stat_refresh", dir);
	assert_int_equal(sysfs_read_str(path, got, sizeof(got)), 0);
	assert_string_equal(got, "1");
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

static void test_procfs_lock_snapshot_errors(void **state)
{
	struct procfs_lock_snapshot s;
	char root[512], deep[5000];

	(void)state;
	errno = 0; /* two-node's meminfo has no Unevictable */
	assert_int_equal(procfs_lock_snapshot(fixture("two-node", root, sizeof(root)), &s), -1);
	assert_int_equal(errno, ENOENT);
	memset(deep, 'a', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	errno = 0;
	assert_int_equal(procfs_lock_snapshot(deep, &s), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	errno = 0;
	assert_int_equal(procfs_lock_snapshot(NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
	/* the live files */
	assert_int_equal(procfs_lock_snapshot(NULL, &s), 0);
	assert_true(s.self.rss > 0);
	assert_int_equal(procfs_lock_snapshot("", &s), 0);
}

/* ---- the right to lock ---- */

static void test_procfs_limit_text(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(procfs_limit_text(-1, buf, sizeof(buf)), "unlimited");
	assert_string_equal(procfs_limit_text(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(procfs_limit_text(64 * 1024, buf, sizeof(buf)), "64 KiB");
	assert_string_equal(procfs_limit_text(8 * 1024 * 1024, buf, sizeof(buf)), "8 MiB");
}

static void test_procfs_memlock_limit(void **state)
{
	struct rlimit rl;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	if (rl.rlim_cur == RLIM_INFINITY)
		assert_int_equal(procfs_memlock_limit(), -1);
	else
		assert_int_equal(procfs_memlock_limit(), (int64_t)rl.rlim_cur);
}

/* Runs fn in a child; its exit code (0: it passed). */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static int lockable_in_child(void)
{
	char with_cap[512], without[512], lock[512];
	struct rlimit rl;

	fixture("two-node/proc/self/status", with_cap, sizeof(with_cap));  /* CAP_IPC_LOCK */
	fixture("one-node/proc/self/status", without, sizeof(without));    /* VmLck 0 */
	fixture("procfs/lock/proc/self/status", lock, sizeof(lock));      /* VmLck 64 MiB */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return 1;
	if (procfs_lockable_bytes(with_cap) != UINT64_MAX)
		return 2;
	rl.rlim_cur = 8 * 1024 * 1024; /* the soft limit may go down without privilege */
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return 3;
	if (procfs_lockable_bytes(without) != (uint64_t)rl.rlim_cur)
		return 4;
	if (procfs_lockable_bytes(lock) != 0) /* 64 MiB locked, over the limit */
		return 5;
	if (procfs_lockable_bytes("/nonexistent/status") != (uint64_t)rl.rlim_cur)
		return 6; /* no CapEff, no VmLck: the limit, nothing locked */
	return 0;
}

static void test_procfs_lockable_bytes(void **state)
{
	(void)state;
	assert_int_equal(in_child(lockable_in_child), 0);
}

static int drop_cap_in_child(void)
{
	errno = 0;
	if (procfs_drop_cap(-1) != -1 || errno != EINVAL || procfs_drop_cap(64) != -1)
		return 1;
	if (procfs_drop_cap(CAP_IPC_LOCK) < 0)
		return 2;
	if (procfs_self_has_cap(CAP_IPC_LOCK))
		return 3;
	return 0;
}

static void test_procfs_drop_cap(void **state)
{
	int had = procfs_self_has_cap(CAP_IPC_LOCK);

	(void)state;
	assert_int_equal(in_child(drop_cap_in_child), 0);
	assert_int_equal(procfs_self_has_cap(CAP_IPC_LOCK), had); /* only the child lost it */
}

/* What confining to want must leave: want, or a lower hard limit that
 * cannot be raised (no CAP_SYS_RESOURCE). */
static int64_t confined_to(int64_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return -2;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= (rlim_t)want ||
	    procfs_self_has_cap(CAP_SYS_RESOURCE))
		return want;
	return (int64_t)rl.rlim_max;
}

static int confine_in_child(void)
{
	int64_t now = 0, want = confined_to(64 * 1024);
	const char *what = NULL;
	struct rlimit rl;
	void *p;

	if (procfs_memlock_confine(64 * 1024, &now, &what) < 0)
		return 1;
	if (now != want || procfs_memlock_limit() != want)
		return 2;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_max != (rlim_t)want)
		return 3;
	if (procfs_self_has_cap(CAP_IPC_LOCK) || procfs_lockable_bytes(NULL) > 64 * 1024)
		return 4;
	/* what a container sees: past the limit, mlock says ENOMEM (EPERM at 0) */
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mlock(p, 1 << 20) == 0 || errno != (want ? ENOMEM : EPERM))
		return 5;
	/* lowering again is always allowed */
	return procfs_memlock_confine(0, NULL, NULL) == 0 && procfs_memlock_limit() == 0 ? 0 : 6;
}

static void test_procfs_memlock_confine(void **state)
{
	(void)state;
	assert_int_equal(in_child(confine_in_child), 0);
}

/* A hard limit below the request, and no CAP_SYS_RESOURCE to raise it:
 * the hard limit is kept as the soft one too. */
static int confine_hard_below_in_child(void)
{
	struct rlimit rl = { 32 * 1024, 32 * 1024 };
	const char *what = NULL;
	int64_t now = 0;

	if (confined_to(32 * 1024) < 32 * 1024) /* already lower (ulimit -l 0) */
		rl.rlim_cur = rl.rlim_max = (rlim_t)confined_to(32 * 1024);
	if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return 1;
	if (procfs_drop_cap(CAP_SYS_RESOURCE) < 0)
		return 2;
	if (procfs_memlock_confine(64 * 1024, &now, &what) < 0)
		return 3;
	return now == (int64_t)rl.rlim_max ? 0 : 4;
}

static void test_procfs_memlock_confine_hard_below(void **state)
{
	(void)state;
	assert_int_equal(in_child(confine_hard_below_in_child), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procfs_read_kb_field_status_kb),
		cmocka_unit_test(test_procfs_read_kb_field_meminfo_count),
		cmocka_unit_test(test_procfs_read_kb_field_missing_key),
		cmocka_unit_test(test_procfs_read_kb_field_missing_file),
		cmocka_unit_test(test_procfs_read_kb_field_garbage),
		cmocka_unit_test(test_procfs_read_kb_field_live),
		cmocka_unit_test(test_sysfs_read_long_values),
		cmocka_unit_test(test_sysfs_read_long_garbage),
		cmocka_unit_test(test_sysfs_thp_mode_each),
		cmocka_unit_test(test_sysfs_thp_mode_no_bracket),
		cmocka_unit_test(test_sysfs_thp_mode_small_buffer),
		cmocka_unit_test(test_procfs_cap_effective_set),
		cmocka_unit_test(test_procfs_cap_effective_clear),
		cmocka_unit_test(test_procfs_cap_effective_errors),
		cmocka_unit_test(test_procfs_vm_read),
		cmocka_unit_test(test_procfs_vm_read_errors),
		cmocka_unit_test(test_procfs_stat_refresh),
		cmocka_unit_test(test_procfs_zones_populated),
		cmocka_unit_test(test_procfs_meminfo_slack),
		cmocka_unit_test(test_procfs_lock_snapshot_fixture),
		cmocka_unit_test(test_procfs_lock_snapshot_folded),
		cmocka_unit_test(test_procfs_lock_snapshot_errors),
		cmocka_unit_test(test_procfs_limit_text),
		cmocka_unit_test(test_procfs_memlock_limit),
		cmocka_unit_test(test_procfs_lockable_bytes),
		cmocka_unit_test(test_procfs_drop_cap),
		cmocka_unit_test(test_procfs_memlock_confine),
		cmocka_unit_test(test_procfs_memlock_confine_hard_below),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
