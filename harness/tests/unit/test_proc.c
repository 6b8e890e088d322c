/*
 * test_proc.c - child processes (proc.h): spawn and reap, the deadline's
 * group kill, exec errors, messages with a passed descriptor, a helper that
 * dies mid-conversation, the registry's cleanup at exit and on a signal,
 * and no zombie left behind (checked in /proc after every test); messages
 * as JSON lines (helper.h): fields, hex, a series, and bad input (a
 * truncated line, a missing or mistyped field, another tag) on either side;
 * and a lab's side: helpers by name (helper_role_main), helper_call,
 * helper_ask, helper_linger, helper_run, proc_check_opts and every mode of
 * the plumbing self-test.
 *
 * The helpers are this test binary again: `--role NAME` runs the helper
 * side (main below) instead of the tests; the roles of the test lab (lab 97
 * below) run through lab_main and helper_role_main.  /bin/sh plays the
 * programs that fork a grandchild.
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

#include "helper.h"
#include "unit_lab.h"

#define SELF "/proc/self/exe"

/* ---- the helper side ---- */

/* Roles that speak raw lines: a report on stdout, a hang, a death. */
static int helper_main(int argc, char **argv)
{
	const char *role = argv[2];

	if (strcmp(role, "report") == 0) {
		printf("limit=65536 errno=12\nsecond line\n");
		return 0;
	}
	if (strcmp(role, "hang") == 0) {
		for (;;)
			pause();
	}
	if (strcmp(role, "die") == 0 && proc_child_init() == 0) {
		fprintf(stderr, "die helper: going down\n");
		proc_msg_send(PROC_CTL_FD, open("/dev/null", O_RDONLY), "{\"msg\":\"ready\"}\n");
		abort(); /* before the answer the lab waits for */
	}
	return 2;
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
	grandchild = (pid_t)atoi(p.outbuf); /* the first line: its pid */
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
	grandchild = (pid_t)atoi(p.outbuf); /* the first line: its pid */
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

/* The echo helper (lab 97's, built in): the lines on the wire, a pipe passed. */
static void test_message_round_trip_with_fd(void **state)
{
	char msg[256], want[64], got[64];
	int pfd[2], fd;
	ssize_t n;

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "echo", NULL, PROC_HELPER), 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), &fd, 10), PROC_RECV_MSG);
	snprintf(want, sizeof(want), "{\"msg\":\"ready\",\"pid\":%d}\n", (int)p.pid);
	assert_string_equal(msg, want);
	assert_int_equal(fd, -1);
	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	assert_int_equal(proc_msg_send(p.ctl, pfd[1], "{\"msg\":\"ping\",\"n\":41}\n"), 0);
	close(pfd[1]);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), &fd, 10), PROC_RECV_MSG);
	assert_string_equal(msg, "{\"msg\":\"pong\",\"n\":42}\n");
	n = read(pfd[0], got, sizeof(got) - 1);
	close(pfd[0]);
	got[n > 0 ? n : 0] = '\0';
	assert_string_equal(got, "pong 41\n");
	assert_int_equal(proc_msg_send(p.ctl, -1, "{\"msg\":\"quit\"}\n"), 0);
	assert_int_equal(proc_reap(&p, 10), 1);
	status_is("exited with code 0");
	assert_int_equal(p.ctl, -1);
}

/* The helper sends one message (with a descriptor) and dies before the
 * next: the message still arrives, then the end, then its cause. */
static void test_child_dies_mid_conversation(void **state)
{
	char msg[256], line[256];
	int fd;

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "die", NULL, PROC_HELPER), 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), &fd, 10), PROC_RECV_MSG);
	assert_string_equal(msg, "{\"msg\":\"ready\"}\n");
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), &fd, 10), PROC_RECV_CLOSED);
	assert_int_equal(fd, -1);
	assert_int_equal(proc_reap(&p, 10), 1);
	status_is("killed by SIGABRT (6)");
	assert_non_null(strstr(proc_output_line(&p, line, sizeof(line), 200),
			       "die helper: going down"));
}

/* A helper that never answers: the wait times out, the reap kills it. */
static void test_recv_timeout_then_kill(void **state)
{
	char msg[64];
	int fd;

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "hang", NULL, PROC_HELPER), 0);
	assert_int_equal(proc_recv(&p, msg, sizeof(msg), &fd, 0.2), PROC_RECV_TIMEOUT);
	assert_int_equal(proc_reap(&p, 0), 0);
	status_is("killed by SIGKILL (9)");
}

static void test_report_line(void **state)
{
	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "report", NULL, PROC_OUT_PIPE), 0);
	assert_int_equal(proc_run(&p, 10, 0), 0);
	status_is("exited with code 0");
	assert_string_equal(p.outbuf, "limit=65536 errno=12\nsecond line\n");
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


/* ---- messages: fields, hex, a series, bad input ---- */

/* A message made with the writer, read back field by field on a helper's side. */
static void test_msg_fields(void **state)
{
	static struct role_io tx, rx;
	const unsigned char bytes[5] = { 0x00, 0x7f, 0x80, 0xab, 0xff };
	unsigned char back[5];
	struct json_writer w;
	struct msg *m;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	tx.ctl = sv[0];
	rx.ctl = sv[1];
	tx.msg.fd = rx.msg.fd = -1;
	msg_begin(&w, "t");
	jw_kint(&w, "n", -12);
	jw_kint(&w, "raw", 0x7f0012345678LL);
	jw_knum(&w, "d", 1.5);
	jw_kstr(&w, "s", "cuda \"Success\"");
	msg_put_hex(&w, "h", bytes, sizeof(bytes));
	role_send(&tx, &w, -1);
	m = role_expect(&rx, "t");
	assert_string_equal(m->text, "{\"msg\":\"t\",\"n\":-12,\"raw\":139638282147448,\"d\":1.5,"
			    "\"s\":\"cuda \\\"Success\\\"\",\"h\":\"007f80abff\"}");
	assert_string_equal(msg_tag(m), "t");
	assert_int_equal(msg_int(m, "n"), -12);
	assert_true(msg_int(m, "raw") == 0x7f0012345678LL);
	assert_true(msg_num(m, "d") == 1.5);
	assert_string_equal(msg_str(m, "s"), "cuda \"Success\"");
	msg_hex(m, "h", back, sizeof(back));
	assert_memory_equal(back, bytes, sizeof(bytes));
	assert_int_equal(m->fd, -1);
	json_free(m->obj);
	m->obj = NULL;
	close(sv[0]);
	close(sv[1]);
}

/* What a helper does with the lab's line: read field `key` as `kind`. */
static const char *bad_line, *bad_key, *bad_kind;

static void read_bad(void)
{
	static struct role_io io;
	unsigned char h[2];
	struct msg *m;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0 ||
	    proc_msg_send(sv[0], -1, bad_line) < 0)
		_exit(90);
	io.ctl = sv[1];
	io.msg.fd = -1;
	m = role_expect(&io, "t");
	if (strcmp(bad_kind, "int") == 0)
		msg_int(m, bad_key);
	else if (strcmp(bad_kind, "str") == 0)
		msg_str(m, bad_key);
	else if (strcmp(bad_kind, "hex") == 0)
		msg_hex(m, bad_key, h, sizeof(h));
	_exit(0);
}

/* The exit code of a helper given line, reading key as kind; its stderr in err. */
static int helper_given(const char *line, const char *key, const char *kind, char *err, size_t len)
{
	char path[] = "/tmp/dmalab-proc-bad-XXXXXX", *text;
	int fd = mkstemp(path), status;
	pid_t pid;

	assert_true(fd >= 0);
	bad_line = line;
	bad_key = key;
	bad_kind = kind;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd, 2);
		read_bad();
	}
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	text = unit_slurp(path);
	snprintf(err, len, "%s", text ? text : "");
	free(text);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A helper given a line that is not what it expects ends with code 3 and says why;
 * "quit" instead ends it with 0. */
static void test_msg_bad_input_in_a_helper(void **state)
{
	static const struct { const char *line, *key, *kind, *says; int rc; } cases[] = {
		{ "{\"msg\":\"t\",\"a\":4", "a", "int",
		  "got '{\"msg\":\"t\",\"a\":4', not a message", 3 },
		{ "{\"msg\":\"t\"}\n", "a", "int", "message '{\"msg\":\"t\"}' lacks a valid a", 3 },
		{ "{\"msg\":\"t\",\"a\":\"4\"}", "a", "int", "lacks a valid a", 3 },
		{ "{\"msg\":\"t\",\"a\":1.5}", "a", "int", "lacks a valid a", 3 },
		{ "{\"msg\":\"t\",\"a\":1e300}", "a", "int", "lacks a valid a", 3 },
		{ "{\"msg\":\"t\",\"a\":4}", "a", "str", "lacks a valid a", 3 },
		{ "{\"msg\":\"t\",\"h\":\"00f\"}", "h", "hex", "lacks a valid h", 3 },
		{ "{\"msg\":\"t\",\"h\":\"00FF\"}", "h", "hex", "lacks a valid h", 3 },
		{ "{\"a\":1}", "a", "int", "not an object with a \"msg\" string", 3 },
		{ "[1]", "a", "int", "not a message", 3 },
		{ "{\"msg\":\"u\"}", "a", "int", "got '{\"msg\":\"u\"}', expected 't'", 3 },
		{ "{\"msg\":\"quit\"}", "a", "int", "", 0 },
		{ "{\"msg\":\"t\",\"a\":4}\n", "a", "int", "", 0 },
	};
	char err[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = helper_given(cases[i].line, cases[i].key, cases[i].kind, err, sizeof(err));

		if (rc != cases[i].rc || !strstr(err, cases[i].says))
			fail_msg("line '%s': exit %d, stderr '%s'", cases[i].line, rc, err);
	}
}

/* ---- a lab's side: lab 97, its helpers by name, the plumbing test ---- */

static void say_ready(struct role_io *io)
{
	struct json_writer w;

	msg_begin(&w, "ready");
	jw_kint(&w, "pid", getpid());
	role_send(io, &w, -1);
}

static int role_answer(struct lab *L, struct role_io *io)
{
	static const double v[7] = { 1e-3, 1.1e-3, 0.9e-3, 1e-3, 1.2e-3, 1e-3, 1.05e-3 };
	unsigned char bytes[4];
	struct json_writer w;
	struct lab_stats st;
	struct msg *m;

	say_ready(io);
	m = role_expect(io, "q");
	msg_hex(m, "h", bytes, sizeof(bytes));
	bytes[0]++;
	msg_begin(&w, "ans");
	jw_kint(&w, "a", msg_int(m, "a") + 1);
	msg_put_hex(&w, "h", bytes, sizeof(bytes));
	role_send(io, &w, -1);
	lab_stats_from(&st, "t", "s", v, 7, 1e-9);
	st.warmup = 2;
	st.remeasured = 1;
	st.cv_max = 0.1;
	role_send_stats(io, "t", &st);
	role_expect(io, "quit");
	return 0;
}

/* Ready, then dies by SIGABRT when told "go": a death the lab asks about. */
static int role_dier(struct lab *L, struct role_io *io)
{
	say_ready(io);
	role_expect(io, "go");
	abort();
}

/* Ready, then exits 5 at once: helper_linger sees it go. */
static int role_leaver(struct lab *L, struct role_io *io)
{
	say_ready(io);
	return 5;
}

/* Answers "ans" with the bad line --bad names. */
static int role_liar(struct lab *L, struct role_io *io)
{
	static const struct { const char *name, *line; } lies[] = {
		{ "truncated", "{\"msg\":\"ans\",\"a\":4" }, { "missing", "{\"msg\":\"ans\"}\n" },
		{ "type", "{\"msg\":\"ans\",\"a\":[4]}\n" },
		{ "tag", "{\"msg\":\"and\",\"a\":4}\n" },
		{ "stats", "{\"msg\":\"stats\",\"which\":\"t\",\"res\":1e-9,\"s\":[1e-3,-1]}\n" },
	};
	const char *bad = lab_opt(L, "bad");
	size_t i;

	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++)
		if (strcmp(bad, lies[i].name) == 0)
			proc_msg_send(io->ctl, -1, lies[i].line);
	role_expect(io, "quit");
	return 0;
}

/* A reporting helper: what --report names. */
static int role_reporter(struct lab *L, struct role_io *io)
{
	const char *what = lab_opt(L, "report");
	struct json_writer w;

	if (strcmp(what, "skip") == 0)
		return role_skip(io, SKIP_UNSUPPORTED, "no %s here", "such thing");
	if (strcmp(what, "error") == 0)
		return role_error(io, "setup broke: %s", "why");
	msg_begin(&w, "report");
	jw_kint(&w, "v", 5);
	role_send(io, &w, -1);
	return 0;
}

static const struct claim_spec lab97_claims[] = {
	{ "97.1", "t", "helper_call, fields and hex across processes", "", "", WANT_TRUE, NULL },
	{ "97.2", "t", "a series measured in a helper comes back whole", "", "", WANT_TRUE, NULL },
	{ "97.3", "t", "helper_ask: a helper that dies on the way is reaped, NULL", "", "",
	  WANT_TRUE, NULL },
	{ "97.4", "t", "helper_linger: 0 for a helper that ended, 1 for one that stays", "", "",
	  WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_extra_opt lab97_opts[] = {
	PROC_TIMEOUT_OPT, PROC_PLUMBING_OPT,
	{ "bad", "WHAT", "the liar's bad answer" }, { "report", "WHAT", "report, skip or error" },
	{ NULL, NULL, NULL }
};

static int lab97_role(struct lab *L, const char *role)
{
	static const struct helper_role roles[] = {
		{ "answer", role_answer }, { "dier", role_dier }, { "leaver", role_leaver },
		{ "liar", role_liar }, { "reporter", role_reporter }, { NULL, NULL }
	};

	return helper_role_main(L, role, roles);
}

static int lab97_check(const struct lab *L)
{
	return proc_check_opts(L);
}

/* --bad: a liar's answer stops the lab; --report: a reporting helper decides 97.1. */
static void lab97_bad_or_report(struct lab *L, const char *bad, const char *report)
{
	static struct helper h;
	const char *extra[] = { bad ? "--bad" : "--report", bad ? bad : report, NULL };
	struct msg *m;

	if (report) {
		m = helper_run(L, &h, "reporter", extra, 10);
		if (!helper_report_skip(&h, "97.1"))
			claim_check_true(L, "97.1", msg_int(m, "v") == 5, "reported");
		claim_skip_rest(L, SKIP_UNSUPPORTED, "only 97.1 in this run");
		return;
	}
	helper_start(L, &h, "liar", extra);
	if (strcmp(bad, "stats") == 0) {
		struct lab_stats st;

		helper_expect_stats(&h, "t", "t", &st, 10);
	}
	m = helper_expect(&h, "ans", 10);
	msg_int(m, "a");
	helper_finish(&h, 10);
}

static void lab97_run(struct lab *L)
{
	static struct helper a, d, l, s;
	const char *bad = lab_opt(L, "bad"), *report = lab_opt(L, "report");
	unsigned char bytes[4] = { 1, 2, 3, 4 }, back[4];
	struct json_writer w;
	struct lab_stats st;
	struct msg *m;
	int alive;

	if (proc_plumbing_test(L))
		return;
	if (bad || report) {
		lab97_bad_or_report(L, bad, report);
		return;
	}
	helper_start(L, &a, "answer", NULL);
	helper_expect(&a, "ready", 10);
	msg_begin(&w, "q");
	jw_kint(&w, "a", 41);
	msg_put_hex(&w, "h", bytes, sizeof(bytes));
	m = helper_call(&a, &w, -1, "ans", 10);
	msg_hex(m, "h", back, sizeof(back));
	claim_check_true(L, "97.1", msg_int(m, "a") == 42 && back[0] == 2 && back[3] == 4, m->text);
	helper_expect_stats(&a, "t", "remote", &st, 10);
	claim_check_true(L, "97.2", st.n == 7 && st.samples[4] == 1.2e-3 && st.median == 1e-3 &&
			 strcmp(st.name, "remote") == 0 && st.warmup == 2 && st.remeasured == 1 &&
			 st.cv_max == 0.1 && st.clock_res_s == 1e-9, "stats");
	helper_finish(&a, 10);
	helper_start(L, &d, "dier", NULL);
	helper_expect(&d, "ready", 10);
	m = helper_ask(&d, "go", "after", 10);
	claim_check_true(L, "97.3", !m && d.proc.reaped && WIFSIGNALED(d.proc.status) &&
			 WTERMSIG(d.proc.status) == SIGABRT, "dier");
	helper_start(L, &l, "leaver", NULL);
	helper_start(L, &s, "answer", NULL);
	helper_expect(&l, "ready", 10);
	helper_expect(&s, "ready", 10);
	alive = helper_linger(&s, 0.2, 10);
	claim_check_true(L, "97.4", helper_linger(&l, 10, 10) == 0 && WIFEXITED(l.proc.status) &&
			 WEXITSTATUS(l.proc.status) == 5 && alive == 1 && !s.proc.reaped, "linger");
	proc_reap(&s.proc, 0);
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
		{ "garbage", "sent 'nonsense 1', not a message (line 1 column 1: " },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "--plumbing-test", cases[i].mode, "--child-timeout", "1",
				       NULL };
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
		{ "--child-timeout", "0",
		  "lab-97: --child-timeout '0': must be whole seconds from 1 to 600 "
		  "(see --help)\n" },
		{ "--child-timeout", "601",
		  "lab-97: --child-timeout '601': must be whole seconds from 1 to 600 "
		  "(see --help)\n" },
		{ "--plumbing-test", "fly",
		  "lab-97: --plumbing-test 'fly': must be ok, hang, crash, exit or garbage "
		  "(see --help)\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { cases[i].opt, cases[i].val, NULL };

		assert_int_equal(run_lab97(args, NULL, lab_err, sizeof(lab_err)), 2);
		assert_string_equal(lab_err, cases[i].says);
	}
}

/* helper_role_main: without a socket, and a role it does not know. */
static void test_role_main_refuses(void **state)
{
	const char *extra[] = { "--child-timeout", "3", NULL };
	char line[512];

	(void)state;
	assert_int_equal(proc_spawn_role(&p, SELF, "answer", NULL,
					 PROC_OUT_PIPE | PROC_MERGE_ERR), 0);
	proc_run(&p, 10, 0);
	status_is("exited with code 2");
	assert_non_null(strstr(p.outbuf, "lab-97: --role answer needs the socket the lab gives its "
			       "helpers as descriptor 3"));
	assert_int_equal(proc_spawn_role(&p, SELF, "nope", extra, PROC_HELPER), 0);
	proc_run(&p, 10, 0);
	status_is("exited with code 2");
	proc_output_line(&p, line, sizeof(line), 400);
	assert_non_null(strstr(line, "lab-97: --role 'nope': unknown here (helpers: answer, dier, "
			       "leaver, liar, reporter, echo)"));
}


/* The lab's side given a bad line: lab_error (99), quoting it and saying what was wrong. */
static void test_lab_side_bad_input(void **state)
{
	static const struct { const char *bad, *says; } cases[] = {
		{ "truncated", "sent '{\"msg\":\"ans\",\"a\":4', not a message (line 1 column " },
		{ "missing", "sent '{\"msg\":\"ans\"}' without a valid a; killed by SIGKILL (9)" },
		{ "type", "sent '{\"msg\":\"ans\",\"a\":[4]}' without a valid a" },
		{ "tag", "sent '{\"msg\":\"and\",\"a\":4}' where 'ans' was expected" },
		{ "stats", "sent a bad sample 1 in '{\"msg\":\"stats\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = { "--bad", cases[i].bad, NULL };

		assert_int_equal(run_lab97(args, lab_out, lab_err, sizeof(lab_out)), 99);
		if (!strstr(lab_err, cases[i].says))
			fail_msg("--bad %s: stderr '%s'", cases[i].bad, lab_err);
	}
}

/* helper_run: a report decides the claim, a skip skips it, an error stops the lab. */
static void test_helper_run(void **state)
{
	const char *report[] = { "--report", "report", NULL };
	const char *skip[] = { "--report", "skip", NULL }, *error[] = { "--report", "error", NULL };

	(void)state;
	if (run_lab97(report, lab_out, lab_err, sizeof(lab_out)) != 0 ||
	    !strstr(lab_out, "ok 1 - 97.1"))
		fail_msg("--report report: stdout '%s', stderr '%s'", lab_out, lab_err);
	run_lab97(skip, lab_out, lab_err, sizeof(lab_out));
	assert_non_null(strstr(lab_out, "97.1 helper_call, fields and hex across processes [t] "
			       "# SKIP unsupported: no such thing here"));
	assert_int_equal(run_lab97(error, lab_out, lab_err, sizeof(lab_out)), 99);
	if (!strstr(lab_err, "helper 'reporter' (pid ") ||
	    !strstr(lab_err, ") reported: setup broke: why; exited with code 1"))
		fail_msg("--report error: stderr '%s'", lab_err);
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
		cmocka_unit_test(test_msg_fields),
		cmocka_unit_test(test_msg_bad_input_in_a_helper),
		cmocka_unit_test(test_msg_too_long),
		cmocka_unit_test(test_signal_names),
		cmocka_unit_test_teardown(test_lab_side, teardown),
		cmocka_unit_test_teardown(test_plumbing_ok, teardown),
		cmocka_unit_test_teardown(test_plumbing_failures, teardown),
		cmocka_unit_test_teardown(test_check_opts, teardown),
		cmocka_unit_test_teardown(test_role_main_refuses, teardown),
		cmocka_unit_test_teardown(test_lab_side_bad_input, teardown),
		cmocka_unit_test_teardown(test_helper_run, teardown),
	};

	if (argc >= 3 && strcmp(argv[1], "--role") == 0 && (strcmp(argv[2], "report") == 0 ||
	    strcmp(argv[2], "hang") == 0 || strcmp(argv[2], "die") == 0))
		return helper_main(argc, argv);
	if (argc >= 3 && strcmp(argv[1], "--role") == 0)
		return lab_main(&lab97, lab97_run, argc, argv, 0);
	/* as the runner: the group's orphans come to us to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
