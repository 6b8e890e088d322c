/*
 * spawn.c - run one lab: fork+exec in its own process group, its stdout and
 * stderr read line by line through pipes and copied to a log, a deadline
 * enforced with SIGTERM, a grace period, then SIGKILL to the whole group.
 *
 * Every process of the group is reaped before spawn_lab() returns: the
 * runner is a child subreaper (main.c), so a lab's orphaned helpers are
 * re-parented to it and can be waited for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

#define POLL_MS 50
#define DRAIN_S 1.0   /* reading what is left in the pipes after the exit */
#define REAP_S  2.0   /* waiting for killed group members to disappear */

double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *signal_name(int sig)
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" },
		{ SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
		{ SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" },
		{ SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" },
		{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
	};
	static char other[24];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(other, sizeof(other), "signal %d", sig);
	return other;
}

/* ------------------------------------------------------------------------ */
/* Child side                                                                */

/* Undo what the runner changed for itself: ignored signals survive exec. */
static void reset_signals(void)
{
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGQUIT };
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Never returns.  exec_fd (close-on-exec) receives errno if exec fails. */
static void child_exec(char *const argv[], int out_fd, int err_fd, int exec_fd)
{
	int devnull = open("/dev/null", O_RDONLY);
	int e;

	setpgid(0, 0);
	reset_signals();
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	execv(argv[0], argv);
	e = errno;
	if (write(exec_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* ------------------------------------------------------------------------ */
/* Parent side                                                               */

struct linebuf {
	char buf[8192];
	size_t len;
	int fd;   /* -1 once EOF was seen */
	void (*line)(void *ctx, const char *line);
};

struct watch {
	pid_t pid;
	const struct spawn_io *io;
	struct linebuf lb[2];
	double start, deadline, kill_at;
	int leader_done, status;
	struct spawn_result *res;
};

static void deliver(struct watch *w, struct linebuf *b)
{
	b->buf[b->len] = '\0';
	if (b->line)
		b->line(w->io->ctx, b->buf);
	b->len = 0;
}

/* Reads what is there; hands complete lines (and over-long pieces) on. */
static void pump(struct watch *w, struct linebuf *b)
{
	char chunk[4096];
	ssize_t n = read(b->fd, chunk, sizeof(chunk));
	ssize_t i;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		if (b->len)
			deliver(w, b);
		close(b->fd);
		b->fd = -1;
		return;
	}
	if (w->io->log)
		fwrite(chunk, 1, (size_t)n, w->io->log);
	for (i = 0; i < n; i++) {
		if (chunk[i] == '\n') {
			deliver(w, b);
			continue;
		}
		b->buf[b->len++] = chunk[i];
		if (b->len == sizeof(b->buf) - 1)
			deliver(w, b);
	}
}

static void poll_pipes(struct watch *w, int timeout_ms)
{
	struct pollfd pfd[2];
	int i, n = 0, map[2];

	for (i = 0; i < 2; i++) {
		if (w->lb[i].fd < 0)
			continue;
		pfd[n].fd = w->lb[i].fd;
		pfd[n].events = POLLIN;
		map[n++] = i;
	}
	if (n == 0) {
		usleep((useconds_t)timeout_ms * 1000);
		return;
	}
	if (poll(pfd, (nfds_t)n, timeout_ms) <= 0)
		return; /* timeout, or EINTR: the caller looks at the flags */
	for (i = 0; i < n; i++)
		if (pfd[i].revents)
			pump(w, &w->lb[map[i]]);
}

static void signal_group(struct watch *w, int sig)
{
	kill(-w->pid, sig);
}

/* Waits until no process of the group is left (or REAP_S passed). */
static void reap_group(pid_t pgid)
{
	double until = mono_now() + REAP_S;

	for (;;) {
		pid_t r = waitpid(-pgid, NULL, WNOHANG);

		if (r > 0)
			continue;
		if (kill(-pgid, 0) != 0 || mono_now() > until)
			return;
		usleep(5000);
	}
}

/* The deadline and the runner's stop request: TERM, grace, then KILL. */
static void enforce_deadline(struct watch *w, double now)
{
	int stop = runner_stop_signal != 0;

	if (!w->kill_at && (stop || (w->deadline > 0 && now >= w->deadline))) {
		if (stop)
			w->res->aborted = 1;
		else
			w->res->timed_out = 1;
		signal_group(w, SIGTERM);
		w->kill_at = now + KILL_GRACE_S;
	}
	if (w->kill_at && now >= w->kill_at) {
		signal_group(w, SIGKILL);
		w->kill_at = now + 3600; /* sent once */
	}
}

/* After the leader exits, what is left of its group is killed: a lab must
 * reap its helpers, and a helper must not outlive the run. */
static void leader_exited(struct watch *w, double now)
{
	w->leader_done = 1;
	w->res->duration_s = now - w->start;
	if (kill(-w->pid, 0) == 0) {
		w->res->leftovers = !w->res->timed_out && !w->res->aborted;
		signal_group(w, SIGKILL);
	}
	if (WIFEXITED(w->status)) {
		w->res->exit_code = WEXITSTATUS(w->status);
	} else if (WIFSIGNALED(w->status)) {
		w->res->exit_code = -1;
		w->res->signal = WTERMSIG(w->status);
	}
}

static void watch_loop(struct watch *w)
{
	double drain_until = 0, now;
	int i;

	for (;;) {
		now = mono_now();
		if (!w->leader_done) {
			enforce_deadline(w, now);
			if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
				leader_exited(w, now);
				drain_until = now + DRAIN_S;
			}
		} else if ((w->lb[0].fd < 0 && w->lb[1].fd < 0) || now >= drain_until) {
			break;
		}
		poll_pipes(w, POLL_MS);
	}
	reap_group(w->pid);
	for (i = 0; i < 2; i++) /* held open by a process that left the group */
		if (w->lb[i].fd >= 0)
			close(w->lb[i].fd);
}

/* Reads both pipes until the lab and its group are gone. */
static void watch_pipes(struct watch *w, int out_fd, int err_fd)
{
	w->lb[0].fd = out_fd;
	w->lb[0].line = w->io->out_line;
	w->lb[1].fd = err_fd;
	w->lb[1].line = w->io->err_line;
	watch_loop(w);
}

/* errno of a failed exec, 0 if the child exec'd (its end closed on exec). */
static int read_exec_errno(int fd)
{
	int e = 0;
	ssize_t n;

	do
		n = read(fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int spawn_lab(char *const argv[], double timeout_s, const struct spawn_io *io,
	      struct spawn_result *res)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, ex[2] = { -1, -1 };
	struct watch w;

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		goto fail;
	memset(&w, 0, sizeof(w));
	w.io = io;
	w.res = res;
	w.start = mono_now();
	w.deadline = timeout_s > 0 ? w.start + timeout_s : 0;
	fflush(NULL);
	w.pid = fork();
	if (w.pid < 0)
		goto fail;
	if (w.pid == 0)
		child_exec(argv, out[1], err[1], ex[1]);
	setpgid(w.pid, w.pid); /* also here: no race with the first kill */
	close(out[1]);
	close(err[1]);
	close(ex[1]);
	res->exec_errno = read_exec_errno(ex[0]);
	watch_pipes(&w, out[0], err[0]);
	if (io->log)
		fflush(io->log);
	return 0;
fail:
	close_pair(out);
	close_pair(err);
	close_pair(ex);
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Capture (for --describe)                                                  */

struct capture {
	char *buf;
	size_t cap, len;
};

static void capture_line(void *ctx, const char *line)
{
	struct capture *c = ctx;
	int n = snprintf(c->buf + c->len, c->cap - c->len, "%s\n", line);

	if (n > 0)
		c->len += (size_t)n < c->cap - c->len ? (size_t)n : c->cap - c->len - 1;
}

int spawn_capture(char *const argv[], double timeout_s, char *buf, size_t cap,
		  struct spawn_result *res)
{
	struct capture c = { buf, cap, 0 };
	struct spawn_io io = { capture_line, NULL, &c, NULL };

	buf[0] = '\0';
	return spawn_lab(argv, timeout_s, &io, res);
}
