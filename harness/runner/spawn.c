/*
 * spawn.c - run one lab (proc.h does the work): started in its own process
 * group, its stdout and stderr read line by line through pipes and copied to
 * a log, a deadline enforced with SIGTERM, a grace period, then SIGKILL to
 * the whole group.
 *
 * Every process of the group is reaped before spawn_lab() returns: the
 * runner is a child subreaper (main.c), so a lab's orphaned helpers are
 * re-parented to it and can be waited for.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "proc.h"
#include "runner.h"

volatile sig_atomic_t runner_stop_signal; /* runner.h says who sets it */

const char *signal_name(int sig)
{
	return proc_signal_name(sig);
}

int spawn_lab(char *const argv[], double timeout_s, const struct spawn_io *io,
	      struct spawn_result *res)
{
	/* the runner stops a lab itself when it is signalled (main.c) */
	struct proc_opts o = {
		PROC_GROUP | PROC_OUT_PIPE | PROC_ERR_PIPE | PROC_OWN_SIGNALS,
		io->out_line, io->err_line, io->ctx, io->log, &runner_stop_signal,
	};
	static struct proc p; /* its line buffers are large for a stack */

	memset(res, 0, sizeof(*res));
	res->exit_code = -1;
	if (proc_spawn(&p, argv, &o) < 0) {
		if (!p.exec_errno)
			return -1;
		res->exec_errno = p.exec_errno; /* as a child that exits 127 */
		res->exit_code = 127;
		return 0;
	}
	proc_run(&p, timeout_s, KILL_GRACE_S);
	res->timed_out = p.timed_out;
	res->aborted = p.aborted;
	res->leftovers = p.leftovers;
	res->duration_s = p.duration_s;
	if (WIFEXITED(p.status))
		res->exit_code = WEXITSTATUS(p.status);
	else if (WIFSIGNALED(p.status))
		res->signal = WTERMSIG(p.status);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Capture (for --describe)                                                  */

struct capture {
	char *buf;
	size_t cap, len;
	char *err;        /* the first stderr line goes here */
	size_t err_cap;
};

static void capture_line(void *ctx, const char *line)
{
	struct capture *c = ctx;
	int n = snprintf(c->buf + c->len, c->cap - c->len, "%s\n", line);

	if (n > 0)
		c->len += (size_t)n < c->cap - c->len ? (size_t)n : c->cap - c->len - 1;
}

static void capture_err_line(void *ctx, const char *line)
{
	struct capture *c = ctx;

	if (!c->err[0])
		snprintf(c->err, c->err_cap, "%s", line);
}

int spawn_capture(char *const argv[], double timeout_s, char *buf, size_t cap,
		  struct spawn_result *res)
{
	struct capture c = { buf, cap, 0, res->err_line, sizeof(res->err_line) };
	struct spawn_io io = { capture_line, capture_err_line, &c, NULL };

	buf[0] = '\0';
	return spawn_lab(argv, timeout_s, &io, res);
}
