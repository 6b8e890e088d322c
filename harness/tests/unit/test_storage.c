/*
 * test_storage.c - storage.h in a temporary folder: the test file holds
 * the pattern and goes with storage_file_close, at exit(), on SIGTERM
 * (handed on to the handler before, then death by it) and on SIGSEGV; a
 * write that fails (RLIMIT_FSIZE standing in for a full disk) removes it
 * and names the step; a folder that is missing leaves nothing; the
 * default folder and the folder checks (missing, not a folder, no room);
 * the sweep removes the files of dead pids only; a file read once is all cached,
 * evicted it is at most that; the filesystem and block device facts and
 * the device counters from a fake /proc and /sys tree; the live facts of
 * the folder.
 *
 * Removal is armed per process, so the cases that end a process run in a
 * forked child; the parent checks the folder.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "buffer.h"
#include "lab.h"
#include "../../../labs/10-storage/storage.h"
#include "unit_lab.h"

#define SIZE (1 * MiB)
#define CHUNK (256 * KiB)

static char dir[64];
static uint32_t scratch[CHUNK / 4];

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Files in dir now. */
static int count_files(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	assert_non_null(p = popen(cmd, "r"));
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void touch(const char *name)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/dmalab-storage-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The wait status of a child that runs fn(end). */
static int in_child(void (*fn)(int end), int end)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE }, i;

		for (i = 0; i < 5; i++) /* cmocka's handlers out: the child dies as a lab would */
			signal(sigs[i], SIG_DFL);
		fn(end);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* ---- the file and its removal ---- */

static void test_create_holds_pattern(void **state)
{
	struct storage_file f;
	struct buf_check c;
	void *back = malloc(SIZE);
	const char *what = NULL;

	assert_int_equal(storage_file_create(&f, dir, "t", SIZE, CHUNK, 7, scratch, &what), 0);
	assert_true(exists(f.path));
	assert_non_null(strstr(f.path, "/t-"));
	assert_int_equal(f.bytes, SIZE);
	assert_int_equal(storage_io_all(f.fd, back, SIZE, 0, 0), 0);
	assert_int_equal(buf_verify(back, SIZE, 7, 1, &c), 0);
	assert_true(f.fd_direct >= 0 || f.direct_errno == EINVAL);
	assert_true(f.write_s > 0);
	/* reading past the end is an early end: EIO */
	errno = 0;
	assert_int_equal(storage_io_all(f.fd, back, CHUNK, SIZE - CHUNK / 2, 0), -1);
	assert_int_equal(errno, EIO);
	storage_file_close(&f);
	assert_int_equal(count_files(), 0);
	storage_file_close(&f); /* twice: nothing */
	free(back);
}

static void make_then(int end)
{
	struct storage_file f;

	if (storage_file_create(&f, dir, "t", SIZE, CHUNK, 1, scratch, NULL) < 0)
		_exit(3);
	if (end == 0)
		exit(0);     /* lab_error and lab_skip end so */
	raise(end);          /* SIGTERM: the runner's timeout; SIGSEGV: a crash */
	_exit(4);
}

static void test_removed_at_exit(void **state)
{
	int st = in_child(make_then, 0);

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(count_files(), 0);
}

static void test_removed_on_sigsegv(void **state)
{
	int st = in_child(make_then, SIGSEGV);

	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	assert_int_equal(count_files(), 0);
}

static void mark(int sig)
{
	touch("handler-ran");
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A handler installed before (interrupt.c's) still runs, then the signal kills. */
static void handler_then_make(int end)
{
	signal(SIGTERM, mark);
	make_then(end);
}

static void test_removed_on_sigterm_and_handed_on(void **state)
{
	char path[128];
	int st = in_child(handler_then_make, SIGTERM);

	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	snprintf(path, sizeof(path), "%s/handler-ran", dir);
	assert_true(exists(path));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(count_files(), 0);
}

/* RLIMIT_FSIZE below the file: the write fails (EFBIG), as a full disk
 * (ENOSPC) would, and the half-written file goes.  SIGXFSZ at its default
 * (death): storage lets it pass by itself. */
static void write_fails(int end)
{
	struct rlimit r = { SIZE / 2, SIZE / 2 };
	struct storage_file f;
	const char *what = NULL;

	signal(SIGXFSZ, SIG_DFL);
	if (setrlimit(RLIMIT_FSIZE, &r) < 0)
		_exit(5);
	if (storage_file_create(&f, dir, "t", SIZE, CHUNK, 1, scratch, &what) == 0)
		_exit(6);
	_exit(errno == EFBIG && what && !strcmp(what, "writing") ? 0 : 7);
}

static void test_failed_write_removes(void **state)
{
	int st = in_child(write_fails, 0);

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(count_files(), 0);
}

static void test_missing_folder(void **state)
{
	struct storage_file f;
	char missing[128];
	const char *what = NULL;

	snprintf(missing, sizeof(missing), "%s/nope", dir);
	assert_int_equal(storage_file_create(&f, missing, "t", SIZE, CHUNK, 1, scratch, &what), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(what, "creating");
	assert_int_equal(storage_file_create(&f, dir, "t", SIZE, 3, 1, scratch, NULL), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(count_files(), 0);
}

static void test_dir_default_and_check(void **state)
{
	char buf[64], why[200], file[128];

	assert_string_equal(storage_dir_default(NULL, buf, sizeof(buf)), "results");
	assert_string_equal(storage_dir_default("x.json", buf, sizeof(buf)), ".");
	assert_string_equal(storage_dir_default("/x.json", buf, sizeof(buf)), "/");
	assert_string_equal(storage_dir_default("results/lab-10.json", buf, sizeof(buf)),
			    "results");
	assert_int_equal(storage_dir_check(dir, 0, why, sizeof(why)), 0);
	snprintf(file, sizeof(file), "%s/missing", dir);
	assert_int_equal(storage_dir_check(file, 1, why, sizeof(why)), 0); /* made later */
	assert_int_equal(storage_dir_check(file, 0, why, sizeof(why)), -1);
	assert_int_equal(errno, ENOENT);
	touch("plain");
	snprintf(file, sizeof(file), "%s/plain", dir);
	assert_int_equal(storage_dir_check(file, 0, why, sizeof(why)), -1);
	assert_int_equal(errno, ENOTDIR);
}

/* Room is not a mistake in the folder: a missing default folder is measured
 * on its parent, and a lack names both sizes and the folder. */
static void test_dir_room(void **state)
{
	char why[200], missing[128], want[160];

	assert_int_equal(storage_dir_room(dir, SIZE, why, sizeof(why)), 0);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	assert_int_equal(storage_dir_room(missing, SIZE, why, sizeof(why)), 0);
	assert_int_equal(storage_dir_room(missing, UINT64_MAX / 2, why, sizeof(why)), -1);
	assert_int_equal(errno, ENOSPC);
	snprintf(want, sizeof(want), " free in %s, ", missing);
	assert_non_null(strstr(why, want));
	assert_non_null(strstr(why, " needed"));
}

/* ---- stale files ---- */

static void count_stale(const char *path, long pid, void *ctx)
{
	(*(int *)ctx)++;
}

static void test_sweep_dead_pids_only(void **state)
{
	char name[64];
	pid_t dead = fork();
	int seen = 0;

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0); /* reaped: the pid names no process */
	snprintf(name, sizeof(name), "lab10-%ld.dat", (long)dead);
	touch(name);
	snprintf(name, sizeof(name), "lab10-%ld.cufile.log", (long)dead);
	touch(name);
	snprintf(name, sizeof(name), "lab10-%ld.dat", (long)getpid()); /* alive: kept */
	touch(name);
	touch("lab10-x.dat");       /* no pid: kept */
	touch("lab10-1.DAT");       /* not a suffix of ours: kept */
	touch("other-5.dat");       /* another prefix: kept */
	assert_int_equal(storage_sweep_stale(dir, "lab10", count_stale, &seen), 2);
	assert_int_equal(seen, 2);
	assert_int_equal(count_files(), 4);
	assert_int_equal(storage_sweep_stale("/nonexistent-dmalab", "lab10", NULL, NULL), -1);
}

/* ---- the page cache ---- */

static void test_cached_then_evicted(void **state)
{
	struct storage_file f;
	long pages = SIZE / sysconf(_SC_PAGESIZE), n;
	void *back = malloc(SIZE);

	assert_int_equal(storage_file_create(&f, dir, "t", SIZE, CHUNK, 2, scratch, NULL), 0);
	assert_int_equal(storage_io_all(f.fd, back, SIZE, 0, 0), 0);
	assert_int_equal(storage_cached_pages(&f), pages); /* written and read: all there */
	n = storage_evict(&f);
	assert_true(n >= 0 && n <= pages); /* 0 on a disk; tmpfs keeps them all */
	storage_file_close(&f);
	free(back);
}

/* ---- what the file lies on, from a fake tree ---- */

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void fake_tree(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p proc/self sys/dev/block "
		 "sys/devices/virtual/block/vda/vda1 sys/devices/virtual/block/vda/queue && "
		 "ln -s ../../devices/virtual/block/vda/vda1 sys/dev/block/253:1 && "
		 "ln -s ../../devices/virtual/block/vda sys/dev/block/253:0", dir);
	assert_int_equal(system(cmd), 0);
	put("proc/self/mountinfo",
	    "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	    "23 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n");
	put("sys/devices/virtual/block/vda/queue/rotational", "1\n");
	put("sys/devices/virtual/block/vda/queue/read_ahead_kb", "8192\n");
	put("sys/devices/virtual/block/vda/queue/max_sectors_kb", "4096\n");
	put("sys/devices/virtual/block/vda/queue/max_segments", "254\n");
	put("sys/devices/virtual/block/vda/vda1/stat",
	    "     100        0     8192       50    0 0 0 0    0   40   60 0 0 0 0 0 0\n");
	put("sys/devices/virtual/block/vda/stat",
	    "     300        0    24576      900    0 0 0 0    0  400  900 0 0 0 0 0 0\n");
}

static void test_where_partition_and_disk(void **state)
{
	struct storage_where w;

	fake_tree();
	assert_int_equal(storage_where_read(dir, makedev(253, 1), &w), 0);
	assert_string_equal(w.fs, "ext4");
	assert_string_equal(w.source, "/dev/vda1");
	assert_string_equal(w.device, "vda1");
	assert_non_null(strstr(w.stat_path, "253:1/stat"));
	assert_int_equal(w.rotational, 1);          /* the disk's queue */
	assert_int_equal(w.read_ahead_kb, 8192);
	assert_int_equal(w.max_sectors_kb, 4096);
	assert_int_equal(w.max_segments, 254);
	assert_int_equal(storage_where_read(dir, makedev(253, 0), &w), 0);
	assert_string_equal(w.device, "vda");
	assert_string_equal(w.fs, "?");             /* nothing mounted from it */
	assert_int_equal(w.max_sectors_kb, 4096);
	assert_int_equal(storage_where_read(dir, makedev(0, 21), &w), 0);
	assert_string_equal(w.fs, "proc");          /* a virtual filesystem */
	assert_string_equal(w.device, "");
	assert_string_equal(w.stat_path, "");
	assert_int_equal(w.rotational, -1);
	assert_int_equal(storage_where_read(dir, makedev(0, 21), NULL), -1);
}

static void test_counters_and_load(void **state)
{
	struct storage_counters a, b, sum = { 0 };
	struct storage_load l;
	struct storage_where w;

	fake_tree();
	assert_int_equal(storage_where_read(dir, makedev(253, 1), &w), 0);
	assert_int_equal(storage_counters_read(w.stat_path, &a), 0);
	assert_int_equal(a.reads, 100);
	assert_int_equal(a.sectors, 8192);
	assert_int_equal(a.read_ms, 50);
	assert_int_equal(a.busy_ms, 40);
	/* a pass of 0.5 s: 100 more reads of 4 MiB, 1000 ms in flight, 450 ms busy */
	b = a;
	b.reads += 100;
	b.sectors += 100 * 8192;
	b.read_ms += 1000;
	b.busy_ms += 450;
	b.at = a.at + 0.5;
	storage_counters_add(&sum, &a, &b);
	storage_counters_add(&sum, &a, &b); /* two such passes */
	l = storage_load_of(&sum);
	assert_true(l.req_kib > 4095.9 && l.req_kib < 4096.1);
	assert_true(l.depth > 1.99 && l.depth < 2.01);
	assert_true(l.busy > 0.89 && l.busy < 0.91);
	memset(&sum, 0, sizeof(sum));
	l = storage_load_of(&sum);
	assert_true(l.req_kib < 0 && l.depth < 0 && l.busy < 0);
	assert_int_equal(storage_counters_read("", &a), -1);
	put("short-stat", "1 2 3\n");
	snprintf(w.stat_path, sizeof(w.stat_path), "%s/short-stat", dir);
	assert_int_equal(storage_counters_read(w.stat_path, &a), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_where_live(void **state)
{
	struct storage_where w;
	struct stat st;

	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(storage_where_read(NULL, st.st_dev, &w), 0);
	assert_true(w.fs[0] != '\0');
	assert_true(!w.device[0] || w.max_sectors_kb != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_holds_pattern, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_at_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_on_sigsegv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_on_sigterm_and_handed_on, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_default_and_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_room, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_dead_pids_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cached_then_evicted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_where_partition_and_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_and_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_where_live, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
