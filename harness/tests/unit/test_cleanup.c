/*
 * test_cleanup.c - cleanup.h: the chain's actions run at exit and on a
 * signal, the last registered first, each in the process that registered
 * it only, with the signal handed on to the handler there before and the
 * process still dying by it; a crash runs only the actions that asked for
 * crashes; an ignored signal stays ignored.  Temporary files: a registered
 * file goes at exit and on a signal, tempfile_remove and tempfile_forget,
 * its path announced under DMALAB_TEMP_LIST (never a relative one or one
 * with "/../"), and the runner's sweep of the list.  savefile.h's temporary
 * file is on the list: a stop leaves neither it nor the file.
 *
 * Each case that ends a process runs in a forked child; the parent reads
 * what the actions wrote into a pipe.
 */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "savefile.h"

static char dir[64], list[128];
static int report_fd = -1; /* the child's actions write one letter each here */

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* dir/name, made when make_it (an empty file). */
static const char *in_dir(const char *name, char *buf, size_t len, int make_it)
{
	FILE *f;

	snprintf(buf, len, "%s/%s", dir, name);
	if (make_it) {
		assert_non_null(f = fopen(buf, "w"));
		fclose(f);
	}
	return buf;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/dmalab-test-cleanup.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(list, sizeof(list), "%s/lab-10.tempfiles", dir);
	setenv(TEMPFILES_ENV, list, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[96];

	unsetenv(TEMPFILES_ENV);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void say(char c)
{
	if (write(report_fd, &c, 1) != 1)
		_exit(93);
}

static void action_a(int sig) { say(sig ? 'a' : 'A'); }
static void action_b(int sig) { say(sig ? 'b' : 'B'); }
static void action_crash(int sig) { say(sig ? 'c' : 'C'); }
static void handler_before(int sig)
{
	say('h');
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Run fn in a child (cmocka's crash handlers out, as in a lab): its wait
 * status, and in said what its actions wrote. */
static int in_child(void (*fn)(void), char *said, size_t len)
{
	int pfd[2], status, sigs[] = { SIGSEGV, SIGBUS, SIGABRT }, i;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		report_fd = pfd[1];
		for (i = 0; i < 3; i++)
			signal(sigs[i], SIG_DFL);
		fn();
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	n = read(pfd[0], said, len - 1);
	said[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	return status;
}

static void push_a_b(void)
{
	assert_int_equal(cleanup_push(action_a, CLEANUP_AT_EXIT | CLEANUP_ON_STOP), 0);
	assert_int_equal(cleanup_push(action_b, CLEANUP_ON_STOP), 0);
	assert_int_equal(cleanup_push(action_crash, CLEANUP_ON_CRASH), 0);
}

static void exit_7(void)
{
	push_a_b();
	exit(7);
}

static void sigterm_after_handler(void)
{
	signal(SIGTERM, handler_before);
	push_a_b();
	raise(SIGTERM);
}

static void sigsegv(void)
{
	push_a_b();
	raise(SIGSEGV);
}

/* A forked copy of a process with actions runs none of them at its exit. */
static void forked_copy_exits(void)
{
	pid_t pid;

	push_a_b();
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exit(0);
	waitpid(pid, NULL, 0);
	say('|');
	_exit(0);
}

static void ignored_sighup(void)
{
	signal(SIGHUP, SIG_IGN);
	push_a_b();
	raise(SIGHUP);
	say('.'); /* still here */
}

/* SIGINT let pass: no action, the process goes on; then the chain's again. */
static void sigint_passed_then_taken(void)
{
	static const int sigint = SIGINT;

	push_a_b();
	cleanup_let_pass(&sigint, 1);
	raise(SIGINT);
	say('.');
	cleanup_let_pass(NULL, 0);
	raise(SIGINT);
	say('!'); /* not reached */
}

static void test_actions_at_exit(void **state)
{
	char said[16];
	int st = in_child(exit_7, said, sizeof(said));

	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
	assert_string_equal(said, "A");
}

static void test_actions_on_a_signal_then_the_handler_before(void **state)
{
	char said[16];
	int st = in_child(sigterm_after_handler, said, sizeof(said));

	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	assert_string_equal(said, "bah"); /* the last registered first */
}

static void test_a_crash_runs_the_crash_actions_only(void **state)
{
	char said[16];
	int st = in_child(sigsegv, said, sizeof(said));

	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	assert_string_equal(said, "c");
}

static void test_a_forked_copy_runs_none(void **state)
{
	char said[16];

	in_child(forked_copy_exits, said, sizeof(said));
	assert_string_equal(said, "|");
}

static void test_an_ignored_signal_stays_ignored(void **state)
{
	char said[16];
	int st = in_child(ignored_sighup, said, sizeof(said));

	assert_true(WIFEXITED(st));
	assert_string_equal(said, ".");
}

static void test_a_signal_let_pass_then_taken(void **state)
{
	char said[16];
	int st = in_child(sigint_passed_then_taken, said, sizeof(said));

	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGINT);
	assert_string_equal(said, ".ba");
}

/* ---- temporary files ---- */

static char file_a[128], file_b[128];

/* Registered before they are made, as a lab does. */
static void files_then_exit(void)
{
	assert_int_equal(tempfile_add(file_a), 0);
	assert_int_equal(tempfile_add(file_b), 0);
	in_dir("a.dat", file_a, sizeof(file_a), 1);
	in_dir("b.log", file_b, sizeof(file_b), 1);
	exit(0);
}

static void files_then_sigterm(void)
{
	assert_int_equal(tempfile_add(in_dir("a.dat", file_a, sizeof(file_a), 1)), 0);
	raise(SIGTERM);
}

static void test_files_go_at_exit_and_are_listed(void **state)
{
	char said[16], line[512];
	FILE *f;

	in_dir("a.dat", file_a, sizeof(file_a), 0);
	in_dir("b.log", file_b, sizeof(file_b), 0);
	in_child(files_then_exit, said, sizeof(said));
	assert_false(exists(file_a));
	assert_false(exists(file_b));
	assert_non_null(f = fopen(list, "r"));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_true(strncmp(line, file_a, strlen(file_a)) == 0 && line[strlen(file_a)] == '\n');
	assert_non_null(fgets(line, sizeof(line), f));
	assert_true(strncmp(line, file_b, strlen(file_b)) == 0);
	assert_null(fgets(line, sizeof(line), f));
	fclose(f);
}

static void test_files_go_on_a_signal(void **state)
{
	char said[16];
	int st;

	in_dir("a.dat", file_a, sizeof(file_a), 0);
	st = in_child(files_then_sigterm, said, sizeof(said));
	assert_true(WIFSIGNALED(st));
	assert_false(exists(file_a));
}

static void test_remove_and_forget(void **state)
{
	char a[128], b[128];

	assert_int_equal(tempfile_add(in_dir("a.dat", a, sizeof(a), 1)), 0);
	assert_int_equal(tempfile_remove(a), 0);
	assert_false(exists(a));
	assert_int_equal(tempfile_remove(a), 0); /* gone already: no error */
	assert_int_equal(tempfile_add(in_dir("b.dat", b, sizeof(b), 1)), 0);
	tempfile_forget(b);
	assert_true(exists(b)); /* and not removed at this test's exit */
}

static void test_at_most_tempfile_max(void **state)
{
	char path[128], name[16];
	int i;

	for (i = 0; i < TEMPFILE_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(tempfile_add(in_dir(name, path, sizeof(path), 0)), 0);
	}
	assert_int_equal(tempfile_add(in_dir("one-more", path, sizeof(path), 0)), -1);
	assert_int_equal(errno, ENOSPC);
	for (i = 0; i < TEMPFILE_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		tempfile_forget(in_dir(name, path, sizeof(path), 0));
	}
}

static void count_told(void *ctx, const char *path, int err)
{
	if (!err)
		(*(int *)ctx)++;
}

/* What the runner does with the list of a lab it reaped. */
static void test_sweep(void **state)
{
	char a[128], b[128], sub[128], line[300];
	int told = 0;
	FILE *f;

	assert_non_null(f = fopen(list, "w"));
	fprintf(f, "%s\n%s/gone.dat\n", in_dir("a.dat", a, sizeof(a), 1), dir);
	fprintf(f, "%s\n", in_dir("b.log", b, sizeof(b), 1));
	assert_int_equal(mkdir(in_dir("sub", sub, sizeof(sub), 0), 0700), 0);
	snprintf(line, sizeof(line), "%s\nrelative.dat\n%s/../x.dat\n", sub, dir);
	fputs(line, f);
	fclose(f);
	assert_int_equal(tempfile_sweep(list, count_told, &told), 2);
	assert_int_equal(told, 2);
	assert_false(exists(a));
	assert_false(exists(b));
	assert_true(exists(sub)); /* a folder is never the runner's to remove */
	assert_false(exists(list));
	assert_int_equal(tempfile_sweep(list, count_told, &told), 0); /* no list: nothing */
}

/* Registered, but never listed: a relative path, one with "/../"; nor without a list. */
static void test_unsafe_paths_not_listed(void **state)
{
	char path[160];

	assert_int_equal(tempfile_add("results/lab10-1.dat"), 0);
	tempfile_forget("results/lab10-1.dat");
	snprintf(path, sizeof(path), "%s/../etc-passwd", dir);
	assert_int_equal(tempfile_add(path), 0);
	tempfile_forget(path);
	assert_false(exists(list));
	unsetenv(TEMPFILES_ENV);
	assert_int_equal(tempfile_add(in_dir("a.dat", path, sizeof(path), 1)), 0);
	tempfile_forget(path);
	assert_false(exists(list));
}

/* ---- savefile.h's temporary file, on the list ---- */

static struct savefile saved;

/* Files in dir whose names start with name: the file and its temporaries. */
static size_t files_named(const char *name)
{
	char pattern[160];
	glob_t g;
	size_t n;

	snprintf(pattern, sizeof(pattern), "%s/%s*", dir, name);
	n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

static void savefile_then_sigterm(void)
{
	FILE *f = savefile_open(&saved, file_a);

	assert_non_null(f);
	fputs("{\"half\":", f);
	fflush(f);
	raise(SIGTERM);
}

static void savefile_committed_then_exit(void)
{
	FILE *f = savefile_open(&saved, file_a);

	assert_non_null(f);
	fputs("whole\n", f);
	assert_int_equal(savefile_commit(&saved), 0);
	exit(0);
}

static void test_a_stopped_savefile_leaves_nothing(void **state)
{
	char said[16];

	in_dir("out.json", file_a, sizeof(file_a), 0);
	assert_true(WIFSIGNALED(in_child(savefile_then_sigterm, said, sizeof(said))));
	assert_int_equal(files_named("out.json"), 0);
}

static void test_a_committed_savefile_stays_alone(void **state)
{
	char said[16], text[16] = "";
	FILE *f;

	in_dir("out.json", file_a, sizeof(file_a), 0);
	assert_int_equal(WEXITSTATUS(in_child(savefile_committed_then_exit, said,
					      sizeof(said))), 0);
	assert_int_equal(files_named("out.json"), 1); /* no temporary beside it */
	assert_non_null(f = fopen(file_a, "r"));
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_string_equal(text, "whole\n");
}

/* One more open savefile than the list holds: refused with ENOSPC and no
 * temporary file; the ones open still commit, each to its own file. */
static void test_one_savefile_past_the_list_is_refused(void **state)
{
	struct savefile open_ones[TEMPFILE_MAX], extra;
	char paths[TEMPFILE_MAX + 1][128], name[16];
	int i;

	for (i = 0; i <= TEMPFILE_MAX; i++) {
		snprintf(name, sizeof(name), "s%d.json", i);
		in_dir(name, paths[i], sizeof(paths[i]), 0);
	}
	for (i = 0; i < TEMPFILE_MAX; i++)
		assert_non_null(savefile_open(&open_ones[i], paths[i]));
	errno = 0;
	assert_null(savefile_open(&extra, paths[TEMPFILE_MAX]));
	assert_int_equal(errno, ENOSPC);
	snprintf(name, sizeof(name), "s%d.json", TEMPFILE_MAX);
	assert_int_equal(files_named(name), 0);
	for (i = 0; i < TEMPFILE_MAX; i++) {
		fputs("whole\n", open_ones[i].f);
		assert_int_equal(savefile_commit(&open_ones[i]), 0);
	}
	assert_int_equal(files_named("s"), TEMPFILE_MAX); /* no temporary left */
}

#define FILE_TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_actions_at_exit),
		cmocka_unit_test(test_actions_on_a_signal_then_the_handler_before),
		cmocka_unit_test(test_a_crash_runs_the_crash_actions_only),
		cmocka_unit_test(test_a_forked_copy_runs_none),
		cmocka_unit_test(test_an_ignored_signal_stays_ignored),
		cmocka_unit_test(test_a_signal_let_pass_then_taken),
		FILE_TEST(test_files_go_at_exit_and_are_listed),
		FILE_TEST(test_files_go_on_a_signal),
		FILE_TEST(test_remove_and_forget),
		FILE_TEST(test_at_most_tempfile_max),
		FILE_TEST(test_one_savefile_past_the_list_is_refused),
		FILE_TEST(test_sweep),
		FILE_TEST(test_unsafe_paths_not_listed),
		FILE_TEST(test_a_stopped_savefile_leaves_nothing),
		FILE_TEST(test_a_committed_savefile_stays_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
