/*
 * test_proc.c - child processes (proc.h): spawn and reap, the deadline's
 * group kill, exec errors, messages with a passed descriptor, a helper that
 * dies mid-conversation, the registry's cleanup at exit and on a signal,
 * and no zombie left behind (checked in /proc after every test); message
 * fields (proc_msg_scan), hex, a series sent as a message; and a lab's
 * side: helpers by name (proc_role_main), proc_call, proc_ask, proc_linger,
 * proc_check_opts and every mode of the plumbing self-test.
 *
 * The helpers are this test binary again: `--role NAME [--ctl-fd N]` runs
 * the helper side (main below) instead of the tests; the roles of the test
 * lab (lab 97 below) run through lab_main and proc_role_main.  /bin/sh
 * plays the programs that fork a grandchild.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc.h"
#include "unit_lab.h"

#define SELF "/proc/self/exe"

/* ---- the helper side ---- */

static int helper_main(int argc, char **argv)
{
	static struct role_io io;
	const char *role = argv[2];
	long long n;

	if (strcmp(role, "report") == 0) {
		printf("limit=65536 errno=12\nsecond line\n");
		return 0;
	}
	if (strcmp(role, "hang") == 0 && argc < 5) {
		for (;;)
			pause();
	}
	if (argc < 5 || role_io_open(&io, argv[4]) < 0 || proc_child_init() < 0)
		return 2;
	if (strcmp(role, "hang") == 0) {
		for (;;)
			pause();
	}
	if (strcmp(role, "die") == 0) {
		fprintf(stderr, "die helper: going down\n");
		role_sendf(&io, open("/dev/null", O_RDONLY), "ready pid=%d", (int)getpid());
		abort(); /* before the answer the lab waits for */
	}
	role_sendf(&io, -1, "ready pid=%d", (int)getpid());
	role_expect(&io, "ping");
	if (io.fd < 0)
		return 3;
	n = role_field(&io, "n");
	dprintf(io.fd, "pong %lld\n", n);
	role_sendf(&io, -1, "pong n=%lld", n + 1);
	role_expect(&io, "quit");
	return 0;
}

/* ---- checks ---- */

/* Processes whose parent is this one, alive or zombie. */
static int count_children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[512], *rp;
		int ppid = 0;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (rp = strrchr(buf, ')')) != NULL &&
		    sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == (int)getpid())
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* pid no longer exists at all (not even as a zombie). */
static int gone(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) < 0 && errno == ENOENT;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(count_children(), 0);
	return 0;
}

/* Lines of one stream, joined by '|'. */
struct lines {
	char text[512];
};

static void add_line(void *ctx, const char *line)
{
	struct lines *l = ctx;
	size_t n = strlen(l->text);

	snprintf(l->text + n, sizeof(l->text) - n, "%s|", line);
}

static struct lines out_lines, err_lines;

static void out_cb(void *ctx, const char *line) { (void)ctx; add_line(&out_lines, line); }
static void err_cb(void *ctx, const char *line) { (void)ctx; add_line(&err_lines, line); }

static struct proc p; /* large: not on the stack */

static void run_sh(const char *script, int flags, double timeout_s, double grace_s, int want_rc)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script, NULL };
	struct proc_opts o = { flags, out_cb, err_cb, NULL, NULL, NULL };

	memset(&out_lines, 0, sizeof(out_lines));
	memset(&err_lines, 0, sizeof(err_lines));
	assert_int_equal(proc_spawn(&p, argv, &o), 0);
	assert_true(p.pid > 0);
	assert_int_equal(proc_run(&p, timeout_s, grace_s), want_rc);
	assert_true(p.reaped);
	assert_int_equal(p.out.fd, -1);
	assert_int_equal(p.err.fd, -1);
}

static void status_is(const char *want)
{
	char st[128];

	assert_string_equal(proc_status_text(&p, st, sizeof(st)), want);
}

/* ---- spawning, running, reaping ---- */

static void test_spawn_and_reap(void **state)
{
	(void)state;
	run_sh("echo out1; echo err1 >&2; printf tail; exit 3",
	       PROC_OUT_PIPE | PROC_ERR_PIPE, 10, 1, 0);
	status_is("exited with code 3");
	assert_string_equal(out_lines.text, "out1|tail|");
	assert_string_equal(err_lines.text, "err1|");
	assert_string_equal(p.report, "out1");
	assert_false(p.timed_out);
	assert_true(p.duration_s >= 0 && p.duration_s < 10);
}

static void test_merged_output_is_kept(void **state)
{
	char line[256];

	(void)state;
	run_sh("echo one; echo two >&2; kill -SEGV $$", PROC_OUT_PIPE | PROC_MERGE_ERR, 10, 1, 0);
	status_is("killed by SIGSEGV (11)");
	assert_string_equal(out_lines.text, "one|two|");
	assert_string_equal(err_lines.text, "");
	assert_string_equal(proc_output_line(&p, line, sizeof(line), 100), "one | two");
}

/* A child that forks a grandchild that sleeps: the deadline takes both. */
static void test_timeout_kills_group(void **state)
{
	pid_t grandchild;

	(void)state;
	run_sh("sleep 60 & echo $!; wait", PROC_GROUP | PROC_OUT_PIPE, 0.3, 0.5, 1);
	assert_true(p.timed_out);
	status_is("killed by SIGTERM (15)");
	grandchild = (pid_t)atoi(p.report);
	assert_true(grandchild > 0);
	assert_true(gone(grandchild));
	assert_true(gone(p.pid));
}

/* SIGTERM goes to the whole group: the leader ignores it, yet its child
 * dies of it and the leader ends on its own within the grace period. */
static void test_term_reaches_group(void **state)
{
	(void)state;
	run_sh("sleep 60 & trap '' TERM; wait $!; exit 5", PROC_GROUP | PROC_OUT_PIPE, 0.3, 5, 1);
	assert_true(p.timed_out);
	status_is("exited with code 5");
	assert_true(p.duration_s < 3);
}

/* SIGTERM ignored: SIGKILL after the grace period. */
static void test_grace_then_sigkill(void **state)
{
	double t0 = lab_now();

	(void)state;
	run_sh("trap '' TERM; echo ready; while :; do sleep 0.05; done",
	       PROC_GROUP | PROC_OUT_PIPE, 0.3, 0.4, 1);
	status_is("killed by SIGKILL (9)");
	assert_true(lab_now() - t0 >= 0.7);
}

/* Without a group a deadline with no grace is SIGKILL at once. */
static void test_timeout_without_grace(void **state)
{
	(void)state;
	run_sh("exec sleep 60", PROC_OUT_PIPE, 0.2, 0, 1);
	status_is("killed by SIGKILL (9)");
}

/* The leader exits, its background child stays: killed and reaped. */
static void test_leftovers_killed(void **state)
{
	pid_t grandchild;

	(void)state;
	run_sh("sleep 60 >/dev/null & echo $!", PROC_GROUP | PROC_OUT_PIPE, 10, 1, 0);
	status_is("exited with code 0");
	assert_true(p.leftovers);
	grandchild = (pid_t)atoi(p.report);
	assert_true(grandchild > 0 && gone(grandchild));
}

/* *stop set: ended as at a deadline, marked aborted. */
static void test_stop_flag(void **state)
{
	static volatile sig_atomic_t stop = 1;
	char *argv[] = { (char *)"/bin/sleep", (char *)"60", NULL };
	struct proc_opts o = { PROC_GROUP, NULL, NULL, NULL, NULL, &stop };

	(void)state;
	assert_int_equal(proc_spawn(&p, argv, &o), 0);
	assert_int_equal(proc_run(&p, 0, 0.5), 1);
	assert_true(p.aborted);
	assert_false(p.timed_out);
	status_is("killed by SIGTERM (15)");
}

static void test_exec_failure_errno(void **state)
{
	char *missing[] = { (char *)"/nonexistent/dmalab-prog", NULL };
	char path[] = "/tmp/dmalab-noexec-XXXXXX";
	char *noexec[] = { path, NULL };
	int fd;

	(void)state;
	errno = 0;
	assert_int_equal(proc_spawn(&p, missing, NULL), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(p.exec_errno, ENOENT);
	assert_int_equal(p.pid, 0);
	status_is("could not start: No such file or directory");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd); /* mode 0600: not executable */
	assert_int_equal(proc_spawn(&p, noexec, NULL), -1);
	assert_int_equal(p.exec_errno, EACCES);
	unlink(path);
	assert_int_equal(proc_run(&p, 1, 0), 0); /* nothing to wait for */
	assert_int_equal(proc_reap(&p, 0), 1);
}

/* ---- helpers and messages ---- */

static void test_message_round_trip_with_fd(void **state)
{
	char msg[256], got[64];
	long long pid = 0;
	int pfd[2];
	ssize_t n;

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "echo", NULL, PROC_HELPER), 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), 10), PROC_RECV_MSG);
	assert_true(proc_msg_is(msg, "ready"));
	assert_int_equal(proc_msg_ll(msg, "pid", &pid), 0);
	assert_int_equal(pid, p.pid);
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	assert_int_equal(proc_msg_send(p.ctl, pfd[1], "ping n=41"), 0);
	close(pfd[1]);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), 10), PROC_RECV_MSG);
	assert_string_equal(msg, "pong n=42");
	n = read(pfd[0], got, sizeof(got) - 1);
	close(pfd[0]);
	got[n > 0 ? n : 0] = '\0';
	assert_string_equal(got, "pong 41\n");
	assert_int_equal(proc_msg_send(p.ctl, -1, "quit"), 0);
	assert_int_equal(proc_reap(&p, 10), 1);
	status_is("exited with code 0");
	assert_int_equal(p.ctl, -1);
}

/* The helper sends one message (with a descriptor) and dies before the
 * next: the message still arrives, then the end, then its cause. */
static void test_child_dies_mid_conversation(void **state)
{
	char msg[256], line[256];

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "die", NULL, PROC_HELPER), 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), 10), PROC_RECV_MSG);
	assert_true(proc_msg_is(msg, "ready"));
	assert_true(p.rx_fd >= 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), 10), PROC_RECV_CLOSED);
	assert_int_equal(proc_reap(&p, 10), 1);
	status_is("killed by SIGABRT (6)");
	assert_non_null(strstr(proc_output_line(&p, line, sizeof(line), 200),
			       "die helper: going down"));
	assert_int_equal(p.rx_fd, -1);
}

/* A helper that never answers: the wait times out, the reap kills it. */
static void test_recv_timeout_then_kill(void **state)
{
	char msg[64];

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "hang", NULL, PROC_HELPER), 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), 0.2), PROC_RECV_TIMEOUT);
	assert_int_equal(proc_reap(&p, 0), 0);
	status_is("killed by SIGKILL (9)");
}

static void test_report_line(void **state)
{
	long long v = 0;

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "report", NULL, PROC_OUT_PIPE), 0);
	assert_int_equal(proc_run(&p, 10, 0), 0);
	status_is("exited with code 0");
	assert_string_equal(p.report, "limit=65536 errno=12");
	assert_int_equal(proc_msg_ll(p.report, "limit", &v), 0);
	assert_int_equal(v, 65536);
}

/* ---- every child reaped on every path ---- */

/*
 * In a forked process: start a hanging helper, tell us its pid, then end
 * with exit(7) (atexit, as lab_error) or SIGTERM (the handler).  The helper
 * must be gone, not even a zombie, once that process is.
 */
static void end_with_helper(int by_signal)
{
	int pfd[2], status = 0;
	pid_t helper = 0, tester;

	assert_int_equal(pipe(pfd), 0);
	fflush(NULL); /* nothing buffered twice */
	tester = fork();
	assert_true(tester >= 0);
	if (tester == 0) {
		static struct proc h;

		close(pfd[0]);
		if (proc_spawn_role(&h, SELF, "hang", NULL, PROC_HELPER) < 0)
			_exit(90);
		if (write(pfd[1], &h.pid, sizeof(h.pid)) != sizeof(h.pid))
			_exit(91);
		if (by_signal)
			raise(SIGTERM);
		exit(7);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &helper, sizeof(helper)), sizeof(helper));
	close(pfd[0]);
	assert_int_equal(waitpid(tester, &status, 0), tester);
	if (by_signal) {
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGTERM);
	} else {
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 7);
	}
	assert_true(helper > 0);
	assert_true(gone(helper));
}

static void test_exit_reaps_children(void **state)
{
	(void)state;
	end_with_helper(0);
}

static void test_signal_reaps_children(void **state)
{
	(void)state;
	end_with_helper(1);
}

static void test_kill_all(void **state)
{
	static struct proc a, b;
	pid_t pa, pb;

	(void)state;
	assert_int_equal(proc_spawn_role(&a, SELF, "hang", NULL, PROC_OUT_PIPE), 0);
	assert_int_equal(proc_spawn_role(&b, SELF, "hang", NULL, PROC_HELPER), 0);
	pa = a.pid;
	pb = b.pid;
	proc_kill_all();
	assert_true(gone(pa));
	assert_true(gone(pb));
	proc_reap(&a, 0); /* closes what is left; the pids are no longer ours */
	proc_reap(&b, 0);
}

/* A forked copy inherits the registry and its atexit: its exit must leave
 * the children of the process it was forked from alone. */
static void test_fork_leaves_parents_children(void **state)
{
	int status = 0;
	pid_t copy;

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "hang", NULL, PROC_HELPER), 0);
	fflush(NULL);
	copy = fork();
	assert_true(copy >= 0);
	if (copy == 0)
		exit(0);
	assert_int_equal(waitpid(copy, &status, 0), copy);
	assert_int_equal(kill(p.pid, 0), 0);
	assert_int_equal(proc_reap(&p, 0.2), 0); /* still hanging: we kill it */
	status_is("killed by SIGKILL (9)");
}

/* ---- words ---- */

static void test_msg_fields(void **state)
{
	char out[16];
	long long v = 0;

	(void)state;
	assert_true(proc_msg_is("ready pid=4", "ready"));
	assert_true(proc_msg_is("quit", "quit"));
	assert_false(proc_msg_is("readyx pid=4", "ready"));
	assert_string_equal(proc_msg_str("tag a=1 bb=xyz", "bb", out, sizeof(out)), "xyz");
	assert_string_equal(proc_msg_str("limit=-1 errno=12", "limit", out, sizeof(out)), "-1");
	assert_null(proc_msg_str("tag xa=1", "a", out, sizeof(out)));
	assert_null(proc_msg_str("tag a=0123456789abcdefgh", "a", out, sizeof(out)));
	assert_int_equal(proc_msg_ll("h raw=0x7f00", "raw", &v), 0);
	assert_int_equal(v, 0x7f00);
	assert_int_equal(proc_msg_ll("h n=-12", "n", &v), 0);
	assert_int_equal(v, -12);
	assert_int_equal(proc_msg_ll("h n=12x", "n", &v), -1);
	assert_int_equal(proc_msg_ll("h n=", "n", &v), -1);
	assert_int_equal(proc_msg_ll("h m=1", "n", &v), -1);
}

/* A message longer than the buffer is refused whole, never cut. */
static void test_msg_too_long(void **state)
{
	char buf[8];
	int sv[2], fd = 7;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(proc_msg_send(sv[0], -1, "stats n=123456"), 0);
	assert_int_equal(proc_msg_send(sv[0], -1, "ok"), 0);
	errno = 0;
	assert_int_equal(proc_msg_recv(sv[1], buf, sizeof(buf), &fd), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(fd, -1);
	assert_int_equal(proc_msg_recv(sv[1], buf, sizeof(buf), &fd), 2);
	assert_string_equal(buf, "ok");
	close(sv[0]);
	assert_int_equal(proc_msg_recv(sv[1], buf, sizeof(buf), &fd), 0);
	close(sv[1]);
}

static void test_signal_names(void **state)
{
	(void)state;
	assert_string_equal(proc_signal_name(SIGKILL), "SIGKILL");
	assert_string_equal(proc_signal_name(SIGSEGV), "SIGSEGV");
	assert_string_equal(proc_signal_name(40), "signal 40");
}

/* ---- message fields, hex, series ---- */

/* proc_msg_scan for formats the compiler would (rightly) refuse: no format attribute here. */
static const char *(*const scan_unchecked)(const char *, const char *, ...) = proc_msg_scan;

static void test_msg_scan(void **state)
{
	const char *msg = "t w=abc n=-7 u=4000000000 z=0x10 ll=-9000000000 ull=18446744073709551615 "
			  "x=0x7f00ab d=2.5e-6 long=0123456789";
	char w[PROC_WORD_MAX], w3[4];
	unsigned long long ull = 0, x = 0;
	long long ll = 0;
	unsigned u = 0;
	size_t z = 0;
	double d = 0;
	int n = 0;
	const char *bad;

	(void)state;
	assert_null(proc_msg_scan(msg, "w=%s n=%d u=%u z=%zu ll=%lld ull=%llu x=%llx d=%lg", w, &n, &u,
				  &z, &ll, &ull, &x, &d));
	assert_string_equal(w, "abc");
	assert_int_equal(n, -7);
	assert_int_equal(u, 4000000000u);
	assert_int_equal(z, 16);
	assert_true(ll == -9000000000LL);
	assert_true(ull == 18446744073709551615ULL);
	assert_true(x == 0x7f00ab);
	assert_true(d == 2.5e-6);
	assert_null(proc_msg_scan("h raw=7f00", "raw=%llx", &x)); /* hex without 0x */
	assert_true(x == 0x7f00);
	assert_null(proc_msg_scan(msg, "w=%3s", w3));
	assert_string_equal(w3, "abc");
	/* the failing word comes back; fields before it are written */
	n = 0;
	bad = proc_msg_scan(msg, "n=%d missing=%d", &n, &n);
	assert_non_null(bad);
	assert_string_equal(bad, "missing=%d");
	assert_int_equal(n, -7);
	assert_non_null(proc_msg_scan(msg, "long=%3s", w3));             /* too long for %3s */
	assert_non_null(proc_msg_scan(msg, "u=%d", &n));                 /* out of int's range */
	assert_non_null(proc_msg_scan(msg, "n=%u", &u));                 /* a sign on an unsigned */
	assert_non_null(proc_msg_scan(msg, "w=%lld", &ll));              /* not a number */
	assert_non_null(proc_msg_scan("t n=12x", "n=%d", &n));           /* not whole */
	assert_non_null(proc_msg_scan("t n=", "n=%d", &n));              /* empty */
	assert_non_null(proc_msg_scan("t d=1.5x", "d=%lg", &d));
	assert_non_null(scan_unchecked(msg, "n", &n));                    /* not key=%CONV */
	assert_non_null(scan_unchecked(msg, "n=%q", &n));
	assert_non_null(scan_unchecked(msg, "n=%3d", &n));                /* a width only on %s */
	assert_null(scan_unchecked(msg, ""));
}

static void test_hex(void **state)
{
	const unsigned char in[5] = { 0x00, 0x7f, 0x80, 0xab, 0xff };
	unsigned char out[5] = { 0 };
	char hex[11];

	(void)state;
	assert_string_equal(proc_hex(in, sizeof(in), hex), "007f80abff");
	assert_int_equal(proc_unhex(hex, out, sizeof(out)), 0);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(proc_unhex("007f80abf", out, sizeof(out)), -1);   /* odd length */
	assert_int_equal(proc_unhex("007f80abff00", out, sizeof(out)), -1); /* too long */
	assert_int_equal(proc_unhex("007F80abff", out, sizeof(out)), -1);   /* upper case */
	assert_int_equal(proc_unhex("0g7f80abff", out, sizeof(out)), -1);
}

/* A series sent by role_send_stats comes back whole through proc_msg_stats. */
static void test_stats_message(void **state)
{
	static const double v[9] = { 3e-5, 2.9e-5, 3.1e-5, 4e-5, 3e-5, 2.8e-5, 3.3e-5, 3.0e-5, 3.05e-5 };
	struct lab_stats a, b;
	struct role_io io;
	char buf[PROC_MSG_MAX], why[256];
	int sv[2], fd, i;

	(void)state;
	lab_stats_from(&a, "x", "s", v, 9, 1e-8);
	a.warmup = 2;
	a.remeasured = 1;
	a.noisy = 1;
	a.cv_max = 0.1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	io.ctl = sv[0];
	io.fd = -1;
	role_send_stats(&io, "small", &a);
	assert_true(proc_msg_recv(sv[1], buf, sizeof(buf), &fd) > 0);
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(proc_msg_stats(buf, "small", "ipc_small", &b, why, sizeof(why)), 0);
	assert_string_equal(b.name, "ipc_small");
	assert_string_equal(b.unit, "s");
	assert_int_equal(b.n, 9);
	for (i = 0; i < 9; i++)
		assert_true(b.samples[i] == v[i]);
	assert_true(b.median == a.median);
	assert_int_equal(b.warmup, 2);
	assert_int_equal(b.remeasured, 1);
	assert_int_equal(b.noisy, 1);
	assert_true(b.cv_max == 0.1);
	assert_true(b.clock_res_s == 1e-8);
	assert_int_equal(proc_msg_stats(buf, "large", "l", &b, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "expected which=large"));
	assert_int_equal(proc_msg_stats("stats which=small n=2 res=1e-9 warmup=2 noisy=0 remeasured=0 "
					"too_short=0 cv_max=0.1 s=1e-5,x", "small", "s", &b, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "bad sample 1"));
	assert_int_equal(proc_msg_stats("stats which=small n=1 res=1e-9 s=1e-5", "small", "s", &b, why,
					sizeof(why)), -1);
	assert_non_null(strstr(why, "warmup="));
	assert_int_equal(proc_msg_stats("shared a=1", "small", "s", &b, why, sizeof(why)), -1);
}

/* ---- a lab's side: lab 97, its helpers by name, the plumbing test ---- */

static int role_answer(struct lab *L, struct role_io *io)
{
	static const double v[7] = { 1e-3, 1.1e-3, 0.9e-3, 1e-3, 1.2e-3, 1e-3, 1.05e-3 };
	unsigned char bytes[4];
	struct lab_stats st;
	char hex[9];
	int a;

	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "q");
	role_scan(io, "a=%d", &a);
	role_field_hex(io, "h", bytes, sizeof(bytes));
	bytes[0]++;
	role_sendf(io, -1, "ans a=%d h=%s", a + 1, proc_hex(bytes, sizeof(bytes), hex));
	lab_stats_from(&st, "t", "s", v, 7, 1e-9);
	role_send_stats(io, "t", &st);
	role_expect(io, "quit");
	return 0;
}

/* Ready, then dies by SIGABRT when told "go": a death the lab asks about. */
static int role_dier(struct lab *L, struct role_io *io)
{
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "go");
	abort();
}

/* Ready, then exits 5 at once: proc_linger sees it go. */
static int role_leaver(struct lab *L, struct role_io *io)
{
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	return 5;
}

static const struct claim_spec lab97_claims[] = {
	{ "97.1", "t", "proc_call, proc_scan, role_scan and hex across processes", "", "", WANT_TRUE, NULL },
	{ "97.2", "t", "a series measured in a helper comes back whole", "", "", WANT_TRUE, NULL },
	{ "97.3", "t", "proc_ask: a helper that dies on the way is reaped, NULL", "", "", WANT_TRUE, NULL },
	{ "97.4", "t", "proc_linger: 0 for a helper that ended, 1 for one that stays", "", "", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_extra_opt lab97_opts[] = {
	PROC_CTL_OPT, PROC_TIMEOUT_OPT, PROC_PLUMBING_OPT, { NULL, NULL, NULL }
};

static int lab97_role(struct lab *L, const char *role)
{
	static const struct proc_role roles[] = {
		{ "answer", role_answer }, { "dier", role_dier }, { "leaver", role_leaver }, { NULL, NULL }
	};

	return proc_role_main(L, role, roles);
}

static int lab97_check(const struct lab *L)
{
	return proc_check_opts(L);
}

static void lab97_run(struct lab *L)
{
	static struct proc a, d, l, s;
	unsigned char bytes[4] = { 1, 2, 3, 4 }, back[4];
	char m[256], hex[PROC_WORD_MAX], hx[9];
	struct lab_stats st;
	const char *r;
	int n = 0, alive;

	if (proc_plumbing_test(L))
		return;
	proc_start_role(L, &a, "answer", NULL, PROC_HELPER);
	proc_expect(L, &a, "ready", m, sizeof(m), 10);
	r = proc_call(L, &a, -1, "ans", 10, "q a=41 h=%s", proc_hex(bytes, sizeof(bytes), hx));
	proc_scan(L, &a, r, "a=%d h=%s", &n, hex);
	claim_check_true(L, "97.1", n == 42 && proc_unhex(hex, back, 4) == 0 && back[0] == 2 &&
			 back[3] == 4, r);
	proc_expect_stats(L, &a, "t", "remote", &st, 10);
	claim_check_true(L, "97.2", st.n == 7 && st.samples[4] == 1.2e-3 && st.median == 1e-3 &&
			 strcmp(st.name, "remote") == 0, "stats");
	proc_finish(L, &a, 10);
	proc_start_role(L, &d, "dier", NULL, PROC_HELPER);
	proc_expect(L, &d, "ready", m, sizeof(m), 10);
	r = proc_ask(L, &d, "go", "after", m, sizeof(m), 10);
	claim_check_true(L, "97.3", !r && d.reaped && WIFSIGNALED(d.status) &&
			 WTERMSIG(d.status) == SIGABRT, "dier");
	proc_start_role(L, &l, "leaver", NULL, PROC_HELPER);
	proc_start_role(L, &s, "answer", NULL, PROC_HELPER);
	proc_expect(L, &l, "ready", m, sizeof(m), 10);
	proc_expect(L, &s, "ready", m, sizeof(m), 10);
	alive = proc_linger(L, &s, 0.2, 10);
	claim_check_true(L, "97.4", proc_linger(L, &l, 10, 10) == 0 && WIFEXITED(l.status) &&
			 WEXITSTATUS(l.status) == 5 && alive == 1 && !s.reaped, "linger");
	proc_reap(&s, 0);
}

static const struct lab_spec lab97 = {
	.id = "97", .title = "proc test", .timeout_s = 30, .claims = lab97_claims,
	.extra_opts = lab97_opts, .role = lab97_role, .default_iters = 7, .check_opts = lab97_check,
};

/* lab 97 with args in a child: its exit code; its stdout in out, stderr in err (may be NULL). */
static int run_lab97(const char *const args[], char *out, char *err, size_t len)
{
	char po[] = "/tmp/dmalab-proc-out-XXXXXX", pe[] = "/tmp/dmalab-proc-err-XXXXXX";
	int fo = mkstemp(po), fe = mkstemp(pe), status, argc = 1;
	char *argv[16] = { (char *)"lab-97" }, *text;
	pid_t pid;

	assert_true(fo >= 0 && fe >= 0);
	while (args && args[argc - 1])
		argv[argc] = (char *)args[argc - 1], argc++;
	argv[argc] = NULL;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		_exit(lab_main(&lab97, lab97_run, argc, argv, 0));
	}
	close(fo);
	close(fe);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	text = unit_slurp(po);
	snprintf(out ? out : (char[1]){ 0 }, out ? len : 1, "%s", text ? text : "");
	free(text);
	text = unit_slurp(pe);
	snprintf(err ? err : (char[1]){ 0 }, err ? len : 1, "%s", text ? text : "");
	free(text);
	unlink(po);
	unlink(pe);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char lab_out[16384], lab_err[16384];

static void test_lab_side(void **state)
{
	(void)state;
	assert_int_equal(run_lab97(NULL, lab_out, lab_err, sizeof(lab_out)), 0);
	assert_non_null(strstr(lab_out, "ok 1 - 97.1"));
	assert_non_null(strstr(lab_out, "ok 4 - 97.4"));
	assert_null(strstr(lab_out, "not ok"));
}

static void test_plumbing_ok(void **state)
{
	const char *args[] = { "--plumbing-test", "ok", NULL };

	(void)state;
	assert_int_equal(run_lab97(args, lab_out, lab_err, sizeof(lab_out)), 77);
	assert_non_null(strstr(lab_out, "plumbing test: helper pid"));
	assert_non_null(strstr(lab_out, "SKIP unsupported: --plumbing-test ok"));
}

/* Each misbehaviour ends in lab_error (99) that says what happened, in time. */
static void test_plumbing_failures(void **state)
{
	static const struct { const char *mode, *says; } cases[] = {
		{ "hang", "sent no 'ready' within 1 s and was killed; killed by SIGKILL" },
		{ "crash", "ended before sending 'ready'; killed by SIGABRT" },
		{ "exit", "ended before sending 'ready'; exited with code 3" },
		{ "garbage", "sent 'nonsense 1' where 'ready' was expected" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "--plumbing-test", cases[i].mode, "--child-timeout", "1", NULL };
		double t0 = lab_now();

		assert_int_equal(run_lab97(args, lab_out, lab_err, sizeof(lab_out)), 99);
		if (!strstr(lab_err, cases[i].says))
			fail_msg("--plumbing-test %s: stderr '%s'", cases[i].mode, lab_err);
		assert_non_null(strstr(lab_err, "echo helper: pid"));
		assert_true(lab_now() - t0 < 5);
	}
}

static void test_check_opts(void **state)
{
	static const struct { const char *opt, *val, *says; } cases[] = {
		{ "--child-timeout", "0", "lab-97: --child-timeout '0': must be whole seconds from 1 to 600 (see --help)\n" },
		{ "--child-timeout", "601", "lab-97: --child-timeout '601': must be whole seconds from 1 to 600 (see --help)\n" },
		{ "--plumbing-test", "fly", "lab-97: --plumbing-test 'fly': must be ok, hang, crash, exit or garbage (see --help)\n" },
		{ "--ctl-fd", "5", "lab-97: --ctl-fd '5': only helpers take it (the lab starts them itself) (see --help)\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { cases[i].opt, cases[i].val, NULL };

		assert_int_equal(run_lab97(args, NULL, lab_err, sizeof(lab_err)), 2);
		assert_string_equal(lab_err, cases[i].says);
	}
}

/* proc_role_main: without a socket, and a role it does not know. */
static void test_role_main_refuses(void **state)
{
	const char *extra[] = { "--child-timeout", "3", NULL };
	char line[512];

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "answer", NULL, PROC_OUT_PIPE | PROC_MERGE_ERR), 0);
	proc_run(&p, 10, 0);
	status_is("exited with code 2");
	assert_non_null(strstr(p.outbuf, "lab-97: --role answer needs --ctl-fd N"));
	assert_int_equal(proc_spawn_role(&p, SELF, "nope", extra, PROC_HELPER), 0);
	proc_run(&p, 10, 0);
	status_is("exited with code 2");
	proc_output_line(&p, line, sizeof(line), 400);
	assert_non_null(strstr(line, "lab-97: --role 'nope': unknown here (helpers: answer, dier, leaver, echo)"));
}

/* ---- proc_report_main: a reporting helper by name ---- */

static int report_five(struct lab *L) { (void)L; printf("five=5"); return 5; }
static int report_six(struct lab *L) { (void)L; return 6; }
static const struct proc_report_role report_roles[] = {
	{ "five", report_five }, { "six", report_six }, { NULL, NULL }
};
static const char *report_role_name;
static void run_report_role(struct lab *L) { exit(proc_report_main(L, report_role_name, report_roles)); }
static const struct claim_spec report_claims[] = {
	{ "96.1", "ch1.Q1", "a claim", "ch1", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_spec report_spec = {
	.id = "96", .title = "report roles", .timeout_s = 10, .claims = report_claims,
	.default_iters = 7,
};

static void test_report_main(void **state)
{
	(void)state;
	report_role_name = "five";
	assert_int_equal(unit_run_lab_exit(&report_spec, run_report_role), 5);
	report_role_name = "six";
	assert_int_equal(unit_run_lab_exit(&report_spec, run_report_role), 6);
	report_role_name = "seven";
	assert_int_equal(unit_run_lab_exit(&report_spec, run_report_role), 2);
}

/* DMALAB_TIMEOUT_MUL scales helper timeouts; junk or out of range: 1. */
static void test_timeout_mul_from_env(void **state)
{
	(void)state;
	unsetenv("DMALAB_TIMEOUT_MUL");
	assert_true(proc_timeout_mul() == 1);
	setenv("DMALAB_TIMEOUT_MUL", "10", 1);
	assert_true(proc_timeout_mul() == 10);
	setenv("DMALAB_TIMEOUT_MUL", "2.5", 1);
	assert_true(proc_timeout_mul() == 2.5);
	setenv("DMALAB_TIMEOUT_MUL", "1e-300", 1);
	assert_true(proc_timeout_mul() == 1);
	setenv("DMALAB_TIMEOUT_MUL", "3x", 1);
	assert_true(proc_timeout_mul() == 1);
	unsetenv("DMALAB_TIMEOUT_MUL");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeout_mul_from_env),
		cmocka_unit_test_teardown(test_spawn_and_reap, teardown),
		cmocka_unit_test_teardown(test_merged_output_is_kept, teardown),
		cmocka_unit_test_teardown(test_timeout_kills_group, teardown),
		cmocka_unit_test_teardown(test_term_reaches_group, teardown),
		cmocka_unit_test_teardown(test_grace_then_sigkill, teardown),
		cmocka_unit_test_teardown(test_timeout_without_grace, teardown),
		cmocka_unit_test_teardown(test_leftovers_killed, teardown),
		cmocka_unit_test_teardown(test_stop_flag, teardown),
		cmocka_unit_test_teardown(test_exec_failure_errno, teardown),
		cmocka_unit_test_teardown(test_message_round_trip_with_fd, teardown),
		cmocka_unit_test_teardown(test_child_dies_mid_conversation, teardown),
		cmocka_unit_test_teardown(test_recv_timeout_then_kill, teardown),
		cmocka_unit_test_teardown(test_report_line, teardown),
		cmocka_unit_test_teardown(test_exit_reaps_children, teardown),
		cmocka_unit_test_teardown(test_signal_reaps_children, teardown),
		cmocka_unit_test_teardown(test_kill_all, teardown),
		cmocka_unit_test_teardown(test_fork_leaves_parents_children, teardown),
		cmocka_unit_test(test_report_main),
		cmocka_unit_test(test_msg_fields),
		cmocka_unit_test(test_msg_too_long),
		cmocka_unit_test(test_signal_names),
		cmocka_unit_test(test_msg_scan),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_stats_message),
		cmocka_unit_test_teardown(test_lab_side, teardown),
		cmocka_unit_test_teardown(test_plumbing_ok, teardown),
		cmocka_unit_test_teardown(test_plumbing_failures, teardown),
		cmocka_unit_test_teardown(test_check_opts, teardown),
		cmocka_unit_test_teardown(test_role_main_refuses, teardown),
	};

	if (argc >= 3 && strcmp(argv[1], "--role") == 0 &&
	    (strcmp(argv[2], "echo") == 0 || strcmp(argv[2], "answer") == 0 || strcmp(argv[2], "dier") == 0 ||
	     strcmp(argv[2], "leaver") == 0 || strcmp(argv[2], "nope") == 0))
		return lab_main(&lab97, lab97_run, argc, argv, 0);
	if (argc >= 3 && strcmp(argv[1], "--role") == 0)
		return helper_main(argc, argv);
	/* as the runner: the group's orphans come to us to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
