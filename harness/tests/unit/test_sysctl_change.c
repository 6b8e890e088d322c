/*
 * test_sysctl_change.c - sysctl_change.h on fake settings under a
 * temporary root: the journal is written before a change and names the
 * first old value once; the lab puts values back itself at its end, at
 * exit() and on SIGTERM (then dies by it); after a SIGKILL a replay puts
 * them back, the last changed first, and removes the journal; a journal
 * whose process lives is left alone; paths outside /proc/sys and
 * /sys/kernel/mm are refused, in a journal too.
 *
 * The module keeps one journal per process, so each case that changes
 * settings runs in a forked child; the parent checks the files.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab.h"
#include "unit_lab.h"
#include "sysctl_change.h"

#define NR "/proc/sys/vm/nr_hugepages"
#define OVER "/proc/sys/vm/nr_overcommit_hugepages"
#define THP "/sys/kernel/mm/transparent_hugepage/enabled"

static char root[64], journal[128];

static void put(const char *path, const char *text)
{
	char full[256];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	assert_non_null(f = fopen(full, "w"));
	fputs(text, f);
	fclose(f);
}

/* The value now, as sysctl_read gives it. */
static const char *now(const char *path)
{
	static char v[SYSCTL_VALUE_MAX];

	assert_int_equal(sysctl_read(root, path, v, sizeof(v)), 0);
	return v;
}

static int setup(void **state)
{
	char cmd[256];

	snprintf(root, sizeof(root), "/tmp/dmalab-sysctl-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/sys/vm %s/sys/kernel/mm/transparent_hugepage",
		 root, root);
	assert_int_equal(system(cmd), 0);
	snprintf(journal, sizeof(journal), "%s/lab-xx.restore", root);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static int fresh(void **state)
{
	put(NR, "0\n");
	put(OVER, "0\n");
	put(THP, "always [madvise] never\n");
	unlink(journal);
	return 0;
}

/* How a child ended: its exit code, or 128 + the signal it died by. */
static int ended(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A child that journals, changes NR to 4 (twice) and THP to never, then
 * does what `end` says: 0 restore and exit, 1 exit() only, 2 wait for a
 * signal.  Exit code 10 + n when step n failed. */
static pid_t change_child(int end)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) != 0)
		return pid;
	if (sysctl_change_open(journal, root, NULL, NULL) != 0)
		_exit(11);
	if (sysctl_change_set(NR, "2") || sysctl_change_set(NR, "4") ||
	    sysctl_change_set(THP, "never"))
		_exit(12);
	if (sysctl_change_pending() != 2)
		_exit(13);
	if (end == 0 && (sysctl_change_restore() || sysctl_change_pending()))
		_exit(14);
	if (end == 2) {
		printf("changed\n");
		fflush(stdout);
		pause();
	}
	exit(0); /* exit(): the atexit handler runs */
}

static void test_read_choice_and_refusals(void **state)
{
	char v[16];

	assert_string_equal(now(THP), "madvise");
	assert_string_equal(now(NR), "0");
	assert_int_equal(sysctl_read(root, "/etc/passwd", v, sizeof(v)), -1);
	assert_int_equal(errno, EINVAL);
	assert_false(sysctl_path_allowed("/proc/sys/../../etc/shadow"));
	assert_false(sysctl_path_allowed("/proc/sys/vm/a b"));
	assert_false(sysctl_path_allowed("/sys/class/foo"));
	assert_true(sysctl_path_allowed(NR));
	assert_true(sysctl_path_allowed(THP));
	put(NR, "1234567890123456789\n");
	assert_int_equal(sysctl_read(root, NR, v, 8), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(sysctl_change_set(NR, "1"), -1); /* no journal in this process */
	assert_int_equal(errno, ENOTCONN);
}

/* A setting is read by sysfs.h's reader: one line, whole, or refused. */
static void test_read_one_line_or_refused(void **state)
{
	char v[SYSCTL_VALUE_MAX], big[5000], gone[256];

	put(THP, "always madvise never\n"); /* no brackets: all of it */
	assert_string_equal(now(THP), "always madvise never");
	put(THP, "[always] madvise never");
	assert_string_equal(now(THP), "always");
	put(NR, "3\nx\n");
	errno = 0;
	assert_int_equal(sysctl_read(root, NR, v, sizeof(v)), -1); /* not one line */
	assert_int_equal(errno, EINVAL);
	memset(big, '[', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[1] = ']';
	put(NR, big); /* "[]" at its start, but longer than the reader takes */
	errno = 0;
	assert_int_equal(sysctl_read(root, NR, v, sizeof(v)), -1);
	assert_int_equal(errno, ERANGE);
	snprintf(gone, sizeof(gone), "%s%s", root, OVER);
	unlink(gone);
	errno = 0;
	assert_int_equal(sysctl_read(root, OVER, v, sizeof(v)), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_restore_itself(void **state)
{
	assert_int_equal(ended(change_child(0)), 0);
	assert_string_equal(now(NR), "0");
	assert_string_equal(now(THP), "madvise");
	assert_int_equal(access(journal, F_OK), -1); /* all back: removed */
}

static void test_restore_at_exit(void **state)
{
	assert_int_equal(ended(change_child(1)), 0);
	assert_string_equal(now(NR), "0");
	assert_string_equal(now(THP), "madvise");
	assert_int_equal(access(journal, F_OK), -1);
}

/* Starts a child that waits with its settings changed; returns its pid. */
static pid_t changed_and_waiting(void)
{
	int fd[2], out;
	pid_t pid;
	char buf[16] = "";

	assert_int_equal(pipe(fd), 0);
	out = dup(1);
	dup2(fd[1], 1);
	pid = change_child(2);
	dup2(out, 1);
	close(out);
	close(fd[1]);
	assert_true(read(fd[0], buf, sizeof(buf) - 1) > 0); /* "changed" */
	close(fd[0]);
	assert_string_equal(now(NR), "4");
	return pid;
}

static void test_restore_on_sigterm(void **state)
{
	pid_t pid = changed_and_waiting();

	kill(pid, SIGTERM);
	assert_int_equal(ended(pid), 128 + SIGTERM); /* died by it, after restoring */
	assert_string_equal(now(NR), "0");
	assert_string_equal(now(THP), "madvise");
	assert_int_equal(access(journal, F_OK), -1);
}

struct seen {
	int n, wrote;
	char first[SYSCTL_PATH_MAX], now_nr[SYSCTL_VALUE_MAX];
};

static void record(void *ctx, const struct sysctl_replay_item *it)
{
	struct seen *s = ctx;

	if (!s->n++)
		snprintf(s->first, sizeof(s->first), "%s", it->path);
	if (!strcmp(it->path, NR))
		snprintf(s->now_nr, sizeof(s->now_nr), "%s", it->now);
	s->wrote += it->wrote;
	assert_int_equal(it->err, 0);
}

static void test_replay_after_sigkill(void **state)
{
	pid_t pid = changed_and_waiting();
	struct seen s = { 0 };

	assert_int_equal(sysctl_replay(journal, root, record, &s), -1); /* alive */
	assert_int_equal(errno, EBUSY);
	assert_string_equal(now(NR), "4");
	kill(pid, SIGKILL);
	assert_int_equal(ended(pid), 128 + SIGKILL);
	assert_string_equal(now(NR), "4"); /* nothing in the lab could run */
	assert_int_equal(sysctl_replay(journal, root, record, &s), 2);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.first, THP); /* the last changed first */
	assert_string_equal(s.now_nr, "4");
	assert_string_equal(now(NR), "0"); /* the first old value, not the 2 between */
	assert_string_equal(now(THP), "madvise");
	assert_int_equal(access(journal, F_OK), -1);
	assert_int_equal(sysctl_replay(journal, root, record, &s), 0); /* none left */
}

/* A journal's "restored" lines are skipped; a value already back is not written. */
static void test_replay_skips_restored(void **state)
{
	char text[512];
	char p[64];
	struct seen s = { 0 };

	snprintf(text, sizeof(text), "dmalab-restore 1 999999999\nset %s 0\nset %s madvise\n"
		 "restored %s\n", NR, THP, THP);
	unit_write_temp(text, p, sizeof(p));
	put(THP, "always madvise [never]\n"); /* someone else's change: left alone */
	assert_int_equal(sysctl_replay(p, root, record, &s), 0); /* NR is 0 already */
	assert_int_equal(s.n, 1);
	assert_int_equal(s.wrote, 0);
	assert_string_equal(now(THP), "never");
	assert_int_equal(access(p, F_OK), -1);
}

/* A path outside the allowed trees is never written, even from a journal. */
static void test_replay_refuses_other_paths(void **state)
{
	char p[64], text[256];
	int n = 0;

	snprintf(text, sizeof(text), "dmalab-restore 1 999999999\nset /etc/dmalab-x root\n");
	unit_write_temp(text, p, sizeof(p));
	assert_int_equal(sysctl_replay(p, root, NULL, &n), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(access(p, F_OK), 0); /* kept: it did not go back */
	unlink(p);
	unit_write_temp("not a journal\n", p, sizeof(p));
	assert_int_equal(sysctl_replay(p, root, NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
	unlink(p);
}

/* Opening replays a stale journal first; a live one is refused. */
static void test_open_replays_stale(void **state)
{
	pid_t pid = changed_and_waiting(), child;

	kill(pid, SIGKILL);
	ended(pid);
	fflush(stdout);
	if ((child = fork()) == 0)
		_exit(sysctl_change_open(journal, root, NULL, NULL) == 2 ? 0 : 1); /* NR, THP */
	assert_int_equal(ended(child), 0);
	assert_string_equal(now(NR), "0");
	unlink(journal);
	pid = changed_and_waiting();
	if ((child = fork()) == 0) {
		int r = sysctl_change_open(journal, root, NULL, NULL);

		_exit(r == -1 && errno == EBUSY ? 0 : 1);
	}
	assert_int_equal(ended(child), 0);
	kill(pid, SIGTERM);
	ended(pid);
	assert_string_equal(now(NR), "0");
}

static void test_journal_path(void **state)
{
	char buf[256];

	setenv(SYSCTL_RESTORE_ENV, "/x/lab-08.restore", 1);
	assert_string_equal(sysctl_journal_path("08", buf, sizeof(buf)), "/x/lab-08.restore");
	unsetenv(SYSCTL_RESTORE_ENV);
	setenv("TMPDIR", "/var/tmp", 1);
	assert_string_equal(sysctl_journal_path("08", buf, sizeof(buf)),
			    "/var/tmp/dmalab-lab-08.restore");
	unsetenv("TMPDIR");
	assert_string_equal(sysctl_journal_path("08", buf, sizeof(buf)),
			    "/tmp/dmalab-lab-08.restore");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_read_choice_and_refusals, fresh),
		cmocka_unit_test_setup(test_read_one_line_or_refused, fresh),
		cmocka_unit_test_setup(test_restore_itself, fresh),
		cmocka_unit_test_setup(test_restore_at_exit, fresh),
		cmocka_unit_test_setup(test_restore_on_sigterm, fresh),
		cmocka_unit_test_setup(test_replay_after_sigkill, fresh),
		cmocka_unit_test_setup(test_replay_skips_restored, fresh),
		cmocka_unit_test_setup(test_replay_refuses_other_paths, fresh),
		cmocka_unit_test_setup(test_open_replays_stale, fresh),
		cmocka_unit_test(test_journal_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
