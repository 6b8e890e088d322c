/*
 * proc.c - child processes (proc.h): posix_spawn, pipes and a message
 * socket, deadlines with SIGTERM/grace/SIGKILL, a registry of live children
 * that exit() and the stop signals empty (cleanup.h).  The runner and the
 * labs' helpers (helper.c) both start theirs here.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "proc.h"
#include "usage.h"

extern char **environ;

#define POLL_MS 50     /* longest sleep while waiting: deadlines are checked */
#define IDLE_MS 5      /* sleep while no pipe is open but the child lives */
#define DRAIN_S 1.0    /* reading what is left in the pipes after the exit */
#define REAP_S 2.0     /* waiting for killed group members to disappear */
#define PARENT_ENV "DMALAB_PROC_PARENT" /* helper's check that its parent lives */

/* not clock.c's lab_now: the spawner calls nothing named lab_* (test-house) */
static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- The registry: children not reaped yet (read by the cleanup action) ---- */

/*
 * One thread starts and reaps children.  reg_owner is the process that
 * started each: a process forked from it inherits the table, and must not
 * kill children that are not its own.
 */
static volatile pid_t reg_pid[PROC_MAX], reg_owner[PROC_MAX];
static volatile int reg_group[PROC_MAX];

void proc_kill_all(void)
{
	int saved = errno;
	pid_t self = getpid();

	for (int i = 0; i < PROC_MAX; i++)
		if (reg_pid[i] > 0 && reg_owner[i] == self)
			kill(reg_group[i] ? -reg_pid[i] : reg_pid[i], SIGKILL);
	for (int i = 0; i < PROC_MAX; i++) {
		pid_t pid = reg_pid[i];

		if (pid <= 0 || reg_owner[i] != self)
			continue;
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		/* the group's other members, where they are ours (subreaper) */
		while (reg_group[i] && (waitpid(-pid, NULL, 0) > 0 || errno == EINTR))
			;
		reg_pid[i] = 0;
	}
	errno = saved;
}

static void kill_children(int sig)
{
	(void)sig;
	proc_kill_all();
}

/* At exit always; on the stop signals unless the caller has its own. */
static void arm_cleanup(int own_signals)
{
	static int sigchld_reset;

	/* An inherited SIG_IGN would reap children behind our back: their
	 * exit status (did the importer die by SIGSEGV?) must reach us. */
	if (!sigchld_reset)
		sigchld_reset = signal(SIGCHLD, SIG_DFL) != SIG_ERR;
	cleanup_push(kill_children, CLEANUP_AT_EXIT | (own_signals ? 0 : CLEANUP_ON_STOP));
}

static int reg_slot(pid_t pid)
{
	for (int i = 0; i < PROC_MAX; i++)
		if (reg_pid[i] == pid)
			return i;
	return -1;
}

/* ---- Output: pipes into lines, the kept tail ---- */

/* Keep the last PROC_OUT_KEEP bytes: the end says why a child stopped. */
static void keep_tail(struct proc *p, const char *b, size_t n)
{
	if (n > PROC_OUT_KEEP) {
		b += n - PROC_OUT_KEEP;
		n = PROC_OUT_KEEP;
		p->outlen = 0;
		p->out_cut = 1;
	}
	if (p->outlen + n > PROC_OUT_KEEP) {
		size_t drop = p->outlen + n - PROC_OUT_KEEP;

		memmove(p->outbuf, p->outbuf + drop, p->outlen - drop);
		p->outlen -= drop;
		p->out_cut = 1;
	}
	memcpy(p->outbuf + p->outlen, b, n);
	p->outlen += n;
	p->outbuf[p->outlen] = '\0';
}

static void deliver(struct proc *p, struct proc_stream *s)
{
	s->buf[s->len] = '\0';
	if (s->line)
		s->line(p->ctx, s->buf);
	s->len = 0;
}

/* Read what is there (never blocks); hand complete lines on; close at EOF. */
static void pump(struct proc *p, struct proc_stream *s)
{
	char chunk[4096];

	while (s->fd >= 0) {
		ssize_t n = read(s->fd, chunk, sizeof(chunk)), i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			if (s->len)
				deliver(p, s);
			close(s->fd);
			s->fd = -1;
			return;
		}
		if (p->log)
			fwrite(chunk, 1, (size_t)n, p->log);
		keep_tail(p, chunk, (size_t)n);
		for (i = 0; i < n; i++) {
			if (chunk[i] == '\n') {
				deliver(p, s);
				continue;
			}
			s->buf[s->len++] = chunk[i];
			if (s->len == sizeof(s->buf) - 1)
				deliver(p, s);
		}
	}
}

/* Wait up to timeout_ms for output (read it) or the message socket (want_ctl):
 * 1 when the socket is readable, 0 otherwise, -1 on a poll error. */
static int wait_io(struct proc *p, int want_ctl, int timeout_ms)
{
	struct proc_stream *map[3] = { NULL, NULL, NULL }, *streams[2] = { &p->out, &p->err };
	struct pollfd pf[3];
	int n = 0, r, ctl_at = -1;

	if (want_ctl && p->ctl >= 0) {
		ctl_at = n;
		pf[n++] = (struct pollfd){ .fd = p->ctl, .events = POLLIN };
	}
	for (int k = 0; k < 2; k++) {
		if (streams[k]->fd < 0)
			continue;
		map[n] = streams[k];
		pf[n++] = (struct pollfd){ .fd = streams[k]->fd, .events = POLLIN };
	}
	if (n == 0) {
		poll(NULL, 0, timeout_ms < IDLE_MS ? timeout_ms : IDLE_MS);
		return 0;
	}
	r = poll(pf, (nfds_t)n, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	for (int i = 0; i < n; i++)
		if (map[i] && pf[i].revents)
			pump(p, map[i]);
	return ctl_at >= 0 && pf[ctl_at].revents ? 1 : 0;
}

static void drain(struct proc *p)
{
	pump(p, &p->out);
	pump(p, &p->err);
}

/* ---- Starting ---- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The spawn itself; for a helper (role), ctl_child is its end of the socket or -1. */
static int spawn(struct proc *p, char *const argv[], const struct proc_opts *o,
		 int role, int ctl_child)
{
	static const int dfl_sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGQUIT };
	int flags = o ? o->flags : 0;
	int op[2] = { -1, -1 }, ep[2] = { -1, -1 }, rc, slot;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl, old;

	arm_cleanup(flags & PROC_OWN_SIGNALS);
	if ((slot = reg_slot(0)) < 0)
		rc = EAGAIN;
	else if ((flags & PROC_OUT_PIPE) && pipe2(op, O_CLOEXEC) < 0)
		rc = errno;
	else if ((flags & PROC_ERR_PIPE) && !(flags & PROC_MERGE_ERR) && pipe2(ep, O_CLOEXEC) < 0)
		rc = errno;
	else
		rc = 0;
	if (rc) {
		close_fd(&op[0]);
		close_fd(&op[1]);
		close_fd(&ctl_child);
		close_fd(&p->ctl);
		errno = rc;
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	/* a helper's PROC_CTL_FD is its socket or nothing of ours; first: the
	 * pipes' ends are above the socket's */
	if (ctl_child >= 0)
		posix_spawn_file_actions_adddup2(&fa, ctl_child, PROC_CTL_FD);
	else if (role)
		posix_spawn_file_actions_addopen(&fa, PROC_CTL_FD, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (op[1] >= 0)
		posix_spawn_file_actions_adddup2(&fa, op[1], 1);
	if (op[1] >= 0 && (flags & PROC_MERGE_ERR))
		posix_spawn_file_actions_adddup2(&fa, op[1], 2);
	if (ep[1] >= 0)
		posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	/* Undo what we changed for ourselves: ignored signals survive exec. */
	sigemptyset(&dfl);
	for (size_t i = 0; i < sizeof(dfl_sigs) / sizeof(dfl_sigs[0]); i++)
		sigaddset(&dfl, dfl_sigs[i]);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 ((flags & PROC_GROUP) ? POSIX_SPAWN_SETPGROUP : 0));

	p->start = now_s();
	fflush(NULL); /* our narrative before anything the child prints */
	/* held from the spawn to its tracking (and from a reap to its untracking):
	 * the cleanup action never misses a child nor kills a reused pid */
	cleanup_hold(&old);
	rc = posix_spawn(&p->pid, argv[0], &fa, &at, argv, environ);
	if (rc == 0) {
		reg_group[slot] = (flags & PROC_GROUP) != 0;
		reg_owner[slot] = getpid();
		reg_pid[slot] = p->pid;
	}
	cleanup_release(&old);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close_fd(&op[1]);
	close_fd(&ep[1]);
	close_fd(&ctl_child);
	if (rc) {
		p->pid = 0;
		p->exec_errno = rc;
		close_fd(&op[0]);
		close_fd(&ep[0]);
		close_fd(&p->ctl);
		errno = rc;
		return -1;
	}
	p->out.fd = op[0];
	p->err.fd = ep[0];
	if (op[0] >= 0)
		fcntl(op[0], F_SETFL, O_NONBLOCK);
	if (ep[0] >= 0)
		fcntl(ep[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static void proc_init(struct proc *p, const char *name, const struct proc_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->ctl = p->out.fd = p->err.fd = -1;
	if (!o)
		return;
	p->flags = o->flags;
	p->out.line = o->out_line;
	p->err.line = o->err_line;
	p->ctx = o->ctx;
	p->log = o->log;
	p->stop = o->stop;
}

int proc_spawn(struct proc *p, char *const argv[], const struct proc_opts *o)
{
	proc_init(p, argv[0], o);
	if (p->flags & PROC_CTL) {
		errno = EINVAL;
		return -1;
	}
	return spawn(p, argv, o, 0, -1);
}

/* A socketpair, both ends close-on-exec; the helper's (sv[1]) is never
 * PROC_CTL_FD itself, where dup2 onto it would keep the flag. */
static int ctl_pair(int sv[2])
{
	int moved;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if (sv[1] != PROC_CTL_FD)
		return 0;
	moved = fcntl(sv[1], F_DUPFD_CLOEXEC, PROC_CTL_FD + 1);
	close(sv[1]);
	sv[1] = moved;
	if (moved >= 0)
		return 0;
	close_fd(&sv[0]);
	return -1;
}

int proc_spawn_role(struct proc *p, const char *self, const char *role,
		    const char *const extra[], int flags)
{
	struct proc_opts o;
	int sv[2] = { -1, -1 }, n = 0;
	char parent[24], *argv[24];

	memset(&o, 0, sizeof(o));
	o.flags = flags;
	proc_init(p, role, &o);
	if (!strchr(self, '/'))
		self = "/proc/self/exe"; /* started through PATH: this very binary */
	argv[n++] = (char *)self;
	argv[n++] = (char *)"--role";
	argv[n++] = (char *)role;
	while (extra && *extra && n < 23)
		argv[n++] = (char *)*extra++;
	argv[n] = NULL;
	/* for proc_child_init; this process's own children all read the same */
	snprintf(parent, sizeof(parent), "%d", (int)getpid());
	if (setenv(PARENT_ENV, parent, 1) < 0 || ((flags & PROC_CTL) && ctl_pair(sv) < 0))
		return -1;
	p->ctl = sv[0];
	return spawn(p, argv, &o, 1, sv[1]);
}

int proc_child_init(void)
{
	const char *s = getenv(PARENT_ENV);
	pid_t parent = s ? (pid_t)atoi(s) : 0;

	/* Die with the parent, whichever way it goes (even SIGKILL). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	unsetenv(PARENT_ENV); /* ours alone, not for what we may run */
	/* It may have gone before the prctl: then nobody waits for us. */
	return parent && parent != getppid() ? -1 : 0;
}

/* ---- Waiting and killing ---- */

/* Send sig to p (its whole group with PROC_GROUP).  0, or -1 with errno. */
static int proc_kill(struct proc *p, int sig)
{
	if (p->pid <= 0 || p->reaped) {
		errno = ESRCH;
		return -1;
	}
	return kill((p->flags & PROC_GROUP) ? -p->pid : p->pid, sig);
}

/* waitpid with the untracking in one step; 1 when p is reaped now. */
static int try_reap(struct proc *p, int options)
{
	sigset_t old;
	pid_t r;
	int slot;

	cleanup_hold(&old);
	do
		r = waitpid(p->pid, &p->status, options);
	while (r < 0 && errno == EINTR && !(options & WNOHANG));
	if (r == p->pid || (r < 0 && errno != EINTR)) {
		if (r < 0)
			p->status = 0; /* not ours to wait for (someone else reaped it) */
		p->reaped = 1;
		/* a group is untracked only once its members are gone (end_group) */
		if (!(p->flags & PROC_GROUP) && (slot = reg_slot(p->pid)) >= 0)
			reg_pid[slot] = 0;
	}
	cleanup_release(&old);
	return p->reaped;
}

/* The leader is reaped: kill what is left of its group (a child must reap
 * its own helpers, and none may outlive it). */
static void leader_exited(struct proc *p)
{
	p->duration_s = now_s() - p->start;
	if ((p->flags & PROC_GROUP) && kill(-p->pid, 0) == 0) {
		p->leftovers = !p->timed_out && !p->aborted;
		kill(-p->pid, SIGKILL);
	}
}

/* Wait until no process of the group is left (or REAP_S passed). */
static void end_group(struct proc *p)
{
	double until = now_s() + REAP_S;
	sigset_t old;
	int slot;

	if (!(p->flags & PROC_GROUP))
		return;
	for (;;) {
		if (waitpid(-p->pid, NULL, WNOHANG) > 0)
			continue;
		if (kill(-p->pid, 0) != 0 || now_s() > until)
			break;
		poll(NULL, 0, IDLE_MS);
	}
	cleanup_hold(&old);
	if ((slot = reg_slot(p->pid)) >= 0)
		reg_pid[slot] = 0;
	cleanup_release(&old);
}

static void close_all(struct proc *p)
{
	drain(p);
	close_fd(&p->out.fd); /* held open by a process that left the group */
	close_fd(&p->err.fd);
	close_fd(&p->ctl);
}

int proc_run(struct proc *p, double timeout_s, double grace_s)
{
	double deadline = timeout_s > 0 ? p->start + timeout_s : 0, kill_at = 0;
	double drain_until = 0, now;

	if (p->pid <= 0)
		return 0;
	for (;;) {
		now = now_s();
		if (!p->reaped) {
			int stop = p->stop && *p->stop;

			if (!kill_at && (stop || (deadline > 0 && now >= deadline))) {
				if (stop)
					p->aborted = 1;
				else
					p->timed_out = 1;
				if (grace_s > 0)
					proc_kill(p, SIGTERM);
				kill_at = grace_s > 0 ? now + grace_s : now;
			}
			if (kill_at && now >= kill_at) {
				proc_kill(p, SIGKILL);
				kill_at = now + 3600; /* sent once */
			}
			if (try_reap(p, WNOHANG)) {
				leader_exited(p);
				drain_until = now + DRAIN_S;
			}
		} else if ((p->out.fd < 0 && p->err.fd < 0) || now >= drain_until) {
			break;
		}
		wait_io(p, 0, POLL_MS);
	}
	end_group(p);
	close_all(p);
	if (p->log)
		fflush(p->log);
	return p->timed_out || p->aborted;
}

double proc_timeout_mul(void)
{
	const char *s = getenv("DMALAB_TIMEOUT_MUL");
	double v;

	return !s || parse_real(s, &v) < 0 || v < 0.1 || v > 1000 ? 1 : v;
}

int proc_recv(struct proc *p, char *buf, size_t len, int *fd, double timeout_s)
{
	double end = now_s() + timeout_s * proc_timeout_mul();

	*fd = -1;
	for (;;) {
		double left = end - now_s();
		ssize_t n;
		int r;

		if (p->ctl < 0) {
			errno = EBADF;
			return PROC_RECV_ERROR;
		}
		if (left <= 0)
			return PROC_RECV_TIMEOUT;
		r = wait_io(p, 1, (int)(left * 1e3) + 1);
		if (r < 0)
			return PROC_RECV_ERROR;
		if (r == 0)
			continue;
		n = proc_msg_recv(p->ctl, buf, len, fd);
		if (n < 0)
			return PROC_RECV_ERROR;
		return n == 0 ? PROC_RECV_CLOSED : PROC_RECV_MSG;
	}
}

int proc_reap(struct proc *p, double timeout_s)
{
	double end = now_s() + timeout_s * proc_timeout_mul();
	int own = 1;

	if (p->reaped || p->pid <= 0) {
		close_all(p);
		return 1;
	}
	while (!try_reap(p, WNOHANG)) {
		if (now_s() >= end) {
			own = 0;
			proc_kill(p, SIGKILL);
			try_reap(p, 0);
			break;
		}
		drain(p);
		poll(NULL, 0, IDLE_MS);
	}
	leader_exited(p);
	end_group(p);
	close_all(p);
	return own;
}

/* ---- Words ---- */

const char *proc_signal_name(int sig)
{
	static char name[24];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(name, sizeof(name), "SIG%s", abbrev);
	else
		snprintf(name, sizeof(name), "signal %d", sig);
	return name;
}

const char *proc_status_text(const struct proc *p, char *buf, size_t len)
{
	if (p->exec_errno)
		snprintf(buf, len, "could not start: %s", strerror(p->exec_errno));
	else if (p->pid <= 0)
		snprintf(buf, len, "not started");
	else if (!p->reaped)
		snprintf(buf, len, "still running");
	else if (WIFEXITED(p->status))
		snprintf(buf, len, "exited with code %d", WEXITSTATUS(p->status));
	else if (WIFSIGNALED(p->status))
		snprintf(buf, len, "killed by %s (%d)", proc_signal_name(WTERMSIG(p->status)),
			 WTERMSIG(p->status));
	else
		snprintf(buf, len, "wait status 0x%x", p->status);
	return buf;
}

const char *proc_output_line(const struct proc *p, char *buf, size_t len, size_t max)
{
	const char *s = p->outbuf;
	size_t n = p->outlen, o = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	if (n > max) {
		s += n - max;
		n = max;
	}
	if (n == 0) {
		snprintf(buf, len, "(nothing)");
		return buf;
	}
	if ((p->out_cut || s != p->outbuf) && o + 4 < len)
		o += (size_t)snprintf(buf + o, len - o, "...");
	for (; n && o + 4 < len; s++, n--) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n') {
			memcpy(buf + o, " | ", 3);
			o += 3;
		} else {
			buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* ---- Messages ---- */

/* One message: its text in one piece, room for up to 4 descriptors. */
struct msg_frame {
	struct msghdr m;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
};

static void frame_init(struct msg_frame *f, void *text, size_t len, size_t ctl_len)
{
	memset(f, 0, sizeof(*f));
	f->iov.iov_base = text;
	f->iov.iov_len = len;
	f->m.msg_iov = &f->iov;
	f->m.msg_iovlen = 1;
	if (ctl_len) {
		f->m.msg_control = f->u.buf;
		f->m.msg_controllen = ctl_len;
	}
}

int proc_msg_send(int sock, int pass_fd, const char *text)
{
	struct msg_frame f;
	ssize_t n;

	/* never 0 bytes: every message has a tag */
	frame_init(&f, (void *)text, strlen(text), pass_fd >= 0 ? CMSG_SPACE(sizeof(int)) : 0);
	if (pass_fd >= 0) {
		struct cmsghdr *c = CMSG_FIRSTHDR(&f.m);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &f.m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)f.iov.iov_len ? 0 : -1;
}

/* Take the first descriptor a message carried; close any others. */
static int take_fd(struct msghdr *m)
{
	int fd = -1;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		size_t i, k;
		int v;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			memcpy(&v, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = v;
			else
				close(v);
		}
	}
	return fd;
}

ssize_t proc_msg_recv(int sock, char *buf, size_t len, int *fd)
{
	struct msg_frame f;
	ssize_t n;

	frame_init(&f, buf, len - 1, sizeof(f.u.buf));
	do
		n = recvmsg(sock, &f.m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = n > 0 ? take_fd(&f.m) : -1;
	if (n < 0)
		return -1;
	if (f.m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EMSGSIZE;
		return -1;
	}
	buf[n] = '\0';
	return n;
}
