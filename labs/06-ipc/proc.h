/*
 * proc.h - the helper processes of lab-06.
 *
 * A helper is this same program started again with `--role NAME --ctl-fd N`.
 * The lab talks to it over a socketpair of whole messages (SOCK_SEQPACKET:
 * one send is one receive, never merged or split), can pass a file descriptor
 * along with a message (SCM_RIGHTS), keeps the tail of what the helper prints
 * (its stdout and stderr go to a pipe) to explain a failure, and reaps it on
 * every path: normal end, lab_error/lab_skip (atexit), SIGINT/SIGTERM/SIGHUP
 * (a handler that kills and reaps every helper, then dies by the same signal).
 *
 * Helpers are started with posix_spawn, never with a bare fork(): the lab
 * already holds a CUDA context when it starts them, and a forked copy of a
 * process with a CUDA context is not usable; posix_spawn goes straight to exec.
 *
 * Plain C that also compiles as C++ (lab.cu is built by nvcc or by gcc -x c).
 * Messages are text: a tag, then `key=value` words ("ready pid=42").
 */
#ifndef LAB06_PROC_H
#define LAB06_PROC_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab.h"

extern char **environ;

#define PROC_MSG_MAX 32768 /* bytes of one message, NUL included */
#define PROC_OUT_KEEP 2000 /* bytes of a helper's output kept (the tail) */
#define PROC_MAX 8         /* helpers alive at once */

struct proc {
	const char *role;
	pid_t pid;         /* kept after reaping, for messages */
	int ctl;           /* our end of the socketpair; -1 once closed */
	int out;           /* read end of the helper's stdout+stderr; -1 at EOF */
	int reaped;        /* 1 once waited for; status is then valid */
	int status;        /* wait status */
	int rx_fd;         /* descriptor that came with the last message, or -1 */
	size_t outlen;
	int out_cut;       /* 1 if the start of the output was dropped */
	char outbuf[PROC_OUT_KEEP + 1];
};

/* Helpers not reaped yet.  The signal handler reads this table. */
static volatile pid_t proc_pids[PROC_MAX];

/* Kill and reap every helper still tracked.  Async-signal-safe. */
static inline void proc_kill_all(void)
{
	int i, saved = errno;

	for (i = 0; i < PROC_MAX; i++)
		if (proc_pids[i] > 0)
			kill(proc_pids[i], SIGKILL);
	for (i = 0; i < PROC_MAX; i++) {
		pid_t pid = proc_pids[i];

		if (pid <= 0)
			continue;
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		proc_pids[i] = 0;
	}
	errno = saved;
}

static inline void proc_on_signal(int sig)
{
	proc_kill_all();
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns: we die by it */
}

static const int proc_fatal_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define PROC_NFATAL ((int)(sizeof(proc_fatal_sigs) / sizeof(proc_fatal_sigs[0])))

static inline void proc_install_cleanup(void)
{
	static int done;
	struct sigaction sa;
	int i;

	if (done)
		return;
	done = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = proc_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < PROC_NFATAL; i++)
		sigaddset(&sa.sa_mask, proc_fatal_sigs[i]);
	for (i = 0; i < PROC_NFATAL; i++) {
		struct sigaction old;

		/* A signal the shell told us to ignore (a background job) stays so. */
		if (sigaction(proc_fatal_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(proc_fatal_sigs[i], &sa, NULL);
	}
	/* An inherited SIG_IGN would reap helpers behind our back: their exit
	 * status (did the importer die by SIGSEGV?) must reach waitpid. */
	signal(SIGCHLD, SIG_DFL);
	atexit(proc_kill_all); /* lab_error, lab_skip and the normal end exit() */
}

static inline void proc_track(pid_t pid, int on)
{
	int i;

	for (i = 0; i < PROC_MAX; i++) {
		if (on && proc_pids[i] == 0) {
			proc_pids[i] = pid;
			return;
		}
		if (!on && proc_pids[i] == pid) {
			proc_pids[i] = 0;
			return;
		}
	}
}

/* Hold off SIGINT, SIGTERM and SIGHUP; *old gets the mask to restore. */
static inline void proc_block_fatal(sigset_t *old)
{
	sigset_t s;
	int i;

	sigemptyset(&s);
	for (i = 0; i < PROC_NFATAL; i++)
		sigaddset(&s, proc_fatal_sigs[i]);
	sigprocmask(SIG_BLOCK, &s, old);
}

/*
 * Start `self --role ROLE --ctl-fd N [extra...]` (extra: NULL-terminated,
 * at most 16 words).  Its stdin is /dev/null, its stdout and stderr go to
 * p->out.  Returns 0, or -1 with errno.  Fatal signals are held off between
 * the spawn and the tracking, so an interrupt never leaves it untracked.
 */
static inline int proc_spawn(struct proc *p, const char *self, const char *role,
		      const char *const *extra)
{
	int sv[2], op[2], rc, n = 0;
	char fdarg[16];
	char *argv[24];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, old;

	memset(p, 0, sizeof(*p));
	p->role = role;
	p->ctl = p->out = p->rx_fd = -1;
	/* The helper's end must survive exec; ours must not leak into others. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		return -1;
	if (fcntl(sv[0], F_SETFD, FD_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	argv[n++] = (char *)self;
	argv[n++] = (char *)"--role";
	argv[n++] = (char *)role;
	argv[n++] = (char *)"--ctl-fd";
	argv[n++] = fdarg;
	while (extra && *extra && n < 23)
		argv[n++] = (char *)*extra++;
	argv[n] = NULL;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, op[1], 1);
	posix_spawn_file_actions_adddup2(&fa, op[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);

	proc_install_cleanup();
	proc_block_fatal(&old);
	rc = posix_spawnp(&p->pid, self, &fa, &at, argv, environ);
	if (rc == 0)
		proc_track(p->pid, 1);
	sigprocmask(SIG_SETMASK, &old, NULL);

	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	close(op[1]);
	if (rc) {
		close(sv[0]);
		close(op[0]);
		errno = rc;
		return -1;
	}
	fcntl(op[0], F_SETFL, O_NONBLOCK);
	p->ctl = sv[0];
	p->out = op[0];
	return 0;
}

/* Keep the last PROC_OUT_KEEP bytes: the end says why a helper stopped. */
static inline void proc_keep(struct proc *p, const char *b, size_t n)
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

/* Read whatever the helper printed so far (never blocks). */
static inline void proc_drain(struct proc *p)
{
	char b[4096];
	ssize_t n;

	while (p->out >= 0) {
		n = read(p->out, b, sizeof(b));
		if (n > 0) {
			proc_keep(p, b, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			close(p->out);
			p->out = -1;
		}
		break;
	}
}

/* Send one message, with a descriptor when pass_fd >= 0.  0, or -1 + errno. */
static inline int msg_send(int sock, int pass_fd, const char *text)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m;
	struct iovec iov;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	iov.iov_base = (void *)text;
	iov.iov_len = strlen(text); /* never 0: every message has a tag */
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)iov.iov_len ? 0 : -1;
}

/* Take the first descriptor a message carried; close any others. */
static inline int msg_take_fd(struct msghdr *m)
{
	struct cmsghdr *c;
	int fd = -1;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
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

/*
 * Receive one message into buf (NUL-terminated).  *fd gets a descriptor that
 * came with it, or -1.  Returns the length, 0 when the peer closed its end,
 * -1 on error (EMSGSIZE: longer than len - 1).
 */
static inline ssize_t msg_recv(int sock, char *buf, size_t len, int *fd)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m;
	struct iovec iov;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	iov.iov_base = buf;
	iov.iov_len = len - 1;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = n > 0 ? msg_take_fd(&m) : -1;
	if (n < 0)
		return -1;
	if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EMSGSIZE;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

/* 1 if msg starts with the word tag. */
static inline int msg_is(const char *msg, const char *tag)
{
	size_t n = strlen(tag);

	return strncmp(msg, tag, n) == 0 && (msg[n] == ' ' || msg[n] == '\0');
}

/* The value of `key=` in msg, copied into out; NULL if absent. */
static inline const char *msg_str(const char *msg, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);
	const char *p = msg;

	while ((p = strchr(p, ' ')) != NULL) {
		size_t n;

		p++;
		if (strncmp(p, key, k) != 0 || p[k] != '=')
			continue;
		p += k + 1;
		n = strcspn(p, " ");
		if (n >= len)
			return NULL;
		memcpy(out, p, n);
		out[n] = '\0';
		return out;
	}
	return NULL;
}

/* Integer value of `key=` (decimal, or hex with 0x); 0, or -1 if absent/bad. */
static inline int msg_ll(const char *msg, const char *key, long long *v)
{
	char s[64], *end;

	if (!msg_str(msg, key, s, sizeof(s)) || !s[0])
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/*
 * Wait up to timeout_s for a message from p, collecting its output meanwhile.
 * Returns 1 (a message in buf; a passed descriptor in p->rx_fd), 0 (the
 * helper closed its end: it exited), -1 (timeout), -2 (error, errno).
 */
static inline int proc_recv(struct proc *p, char *buf, size_t len, double timeout_s)
{
	double end = lab_now() + timeout_s;

	for (;;) {
		struct pollfd pf[2];
		double left = end - lab_now();
		ssize_t n;
		int r, fd;

		if (left <= 0)
			return -1;
		pf[0].fd = p->ctl;
		pf[0].events = POLLIN;
		pf[1].fd = p->out; /* -1 at EOF: poll ignores it */
		pf[1].events = POLLIN;
		pf[0].revents = pf[1].revents = 0;
		r = poll(pf, 2, (int)(left * 1e3) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -2;
		if (pf[1].revents)
			proc_drain(p);
		if (!pf[0].revents)
			continue;
		n = msg_recv(p->ctl, buf, len, &fd);
		if (n < 0)
			return -2;
		if (n == 0)
			return 0;
		if (p->rx_fd >= 0)
			close(p->rx_fd);
		p->rx_fd = fd;
		return 1;
	}
}

/*
 * Wait up to timeout_s for p to exit, then SIGKILL it and wait.  Closes our
 * ends.  Returns 1 if it exited on its own, 0 if it had to be killed.
 */
static inline int proc_reap(struct proc *p, double timeout_s)
{
	double end = lab_now() + timeout_s;
	int own = 1;

	if (p->reaped || p->pid <= 0)
		return 1;
	for (;;) {
		pid_t r = waitpid(p->pid, &p->status, WNOHANG);

		if (r == p->pid)
			break;
		if (r < 0 && errno != EINTR) {
			p->status = 0;
			break;
		}
		if (lab_now() >= end) {
			own = 0;
			kill(p->pid, SIGKILL);
			while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		proc_drain(p);
		poll(NULL, 0, 5);
	}
	proc_track(p->pid, 0);
	p->reaped = 1;
	proc_drain(p);
	if (p->out >= 0)
		close(p->out);
	if (p->ctl >= 0)
		close(p->ctl);
	if (p->rx_fd >= 0)
		close(p->rx_fd);
	p->out = p->ctl = p->rx_fd = -1;
	return own;
}

static inline const char *proc_sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGKILL: return "SIGKILL";
	case SIGABRT: return "SIGABRT";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGPIPE: return "SIGPIPE";
	default: return "a signal";
	}
}

/* "exited with code 3", "killed by SIGSEGV (11)", or "still running". */
static inline const char *proc_status_str(const struct proc *p, char *buf, size_t len)
{
	if (!p->reaped)
		snprintf(buf, len, "still running");
	else if (WIFEXITED(p->status))
		snprintf(buf, len, "exited with code %d", WEXITSTATUS(p->status));
	else if (WIFSIGNALED(p->status))
		snprintf(buf, len, "killed by %s (%d)", proc_sig_name(WTERMSIG(p->status)),
			 WTERMSIG(p->status));
	else
		snprintf(buf, len, "wait status 0x%x", p->status);
	return buf;
}

/* The last `max` bytes of the helper's output on one line ("a | b"). */
static inline const char *proc_output_line(const struct proc *p, char *buf, size_t len, size_t max)
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

/*
 * A helper broke the lab's setup: kill and reap it, show its whole kept
 * output as narrative, and stop the lab with lab_error naming what happened.
 */
static inline LAB_NORETURN void proc_fail(struct lab *L, struct proc *p, const char *fmt, ...)
	LAB_PRINTF(3, 4);
static inline void proc_fail(struct lab *L, struct proc *p, const char *fmt, ...)
{
	char why[256], st[64], out[PROC_OUT_KEEP * 2];
	const char *line, *next;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!p->reaped) {
		kill(p->pid, SIGKILL);
		proc_reap(p, 0);
	}
	for (line = p->outbuf; p->outlen && *line; line = next) {
		const char *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		lab_note(L, "%s helper printed: %.*s", p->role,
			 (int)((nl ? nl : next) - line), line);
	}
	lab_error(L, "helper '%s' (pid %d) %s; %s; it printed: %s", p->role, (int)p->pid,
		  why, proc_status_str(p, st, sizeof(st)),
		  proc_output_line(p, out, sizeof(out), 220));
}

/* Send a message to p or stop the lab. */
static inline void proc_sendf(struct lab *L, struct proc *p, int pass_fd, const char *fmt, ...)
	LAB_PRINTF(4, 5);
static inline void proc_sendf(struct lab *L, struct proc *p, int pass_fd, const char *fmt, ...)
{
	static char msg[PROC_MSG_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		lab_error(L, "BUG: message to helper '%s' too long (%d bytes)", p->role, n);
	if (msg_send(p->ctl, pass_fd, msg) < 0)
		proc_fail(L, p, "could not be sent '%.40s' (%s)", msg, strerror(errno));
}

/*
 * Wait for the message `tag` from p or stop the lab: a timeout kills the
 * helper, an early exit or an unexpected message is reported with what it
 * printed.  Returns buf.
 */
static inline char *proc_expect(struct lab *L, struct proc *p, const char *tag, char *buf,
			 size_t len, double timeout_s)
{
	int r = proc_recv(p, buf, len, timeout_s);

	if (r == -1)
		proc_fail(L, p, "sent no '%s' within %.0f s and was killed", tag, timeout_s);
	if (r == 0) {
		proc_reap(p, 2.0);
		proc_fail(L, p, "ended before sending '%s'", tag);
	}
	if (r < 0)
		proc_fail(L, p, "could not be read (%s)", strerror(errno));
	if (!msg_is(buf, tag))
		proc_fail(L, p, "sent '%.60s' where '%s' was expected", buf, tag);
	return buf;
}

/* An integer field of a helper's message, or stop the lab. */
static inline long long proc_field(struct lab *L, struct proc *p, const char *msg, const char *key)
{
	long long v;

	if (msg_ll(msg, key, &v) < 0)
		proc_fail(L, p, "sent '%.60s' without a valid %s=", msg, key);
	return v;
}

/* A text field of a helper's message, or stop the lab. */
static inline const char *proc_field_str(struct lab *L, struct proc *p, const char *msg,
				  const char *key, char *out, size_t len)
{
	if (!msg_str(msg, key, out, len))
		proc_fail(L, p, "sent '%.60s' without %s=", msg, key);
	return out;
}

/* Tell p to quit and reap it; stop the lab if it does not end cleanly. */
static inline void proc_finish(struct lab *L, struct proc *p, double timeout_s)
{
	char st[64];

	if (msg_send(p->ctl, -1, "quit") < 0 && errno != EPIPE && errno != ECONNRESET)
		proc_fail(L, p, "could not be told to quit (%s)", strerror(errno));
	if (!proc_reap(p, timeout_s))
		proc_fail(L, p, "did not quit within %.0f s and was killed", timeout_s);
	if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		proc_fail(L, p, "ended badly (%s)", proc_status_str(p, st, sizeof(st)));
}

/* ------------------------------------------------------------------------ */
/* The helper's side                                                         */

struct role_io {
	int ctl;  /* the socket to the lab */
	int fd;   /* descriptor that came with the last message, or -1 */
	char msg[PROC_MSG_MAX];
};

/* Send a message to the lab; a lab that went away ends the helper. */
static inline void role_sendf(struct role_io *io, int pass_fd, const char *fmt, ...) LAB_PRINTF(3, 4);
static inline void role_sendf(struct role_io *io, int pass_fd, const char *fmt, ...)
{
	char msg[PROC_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (msg_send(io->ctl, pass_fd, msg) < 0) {
		fprintf(stderr, "helper: cannot send to the lab: %s\n", strerror(errno));
		exit(3);
	}
}

/*
 * Wait for the next message; it must be `tag` (or "quit", which ends the
 * helper with 0, as does the lab closing its end).  Returns io->msg.
 */
static inline const char *role_expect(struct role_io *io, const char *tag)
{
	ssize_t n;

	if (io->fd >= 0)
		close(io->fd);
	n = msg_recv(io->ctl, io->msg, sizeof(io->msg), &io->fd);
	if (n == 0)
		exit(0);
	if (n < 0) {
		fprintf(stderr, "helper: cannot read from the lab: %s\n", strerror(errno));
		exit(3);
	}
	if (msg_is(io->msg, "quit") && strcmp(tag, "quit") != 0)
		exit(0);
	if (!msg_is(io->msg, tag)) {
		fprintf(stderr, "helper: got '%.60s', expected '%s'\n", io->msg, tag);
		exit(3);
	}
	return io->msg;
}

/* Integer field of the lab's message, or end the helper (exit 3). */
static inline long long role_field(const struct role_io *io, const char *key)
{
	long long v;

	if (msg_ll(io->msg, key, &v) < 0) {
		fprintf(stderr, "helper: message '%.60s' lacks %s=\n", io->msg, key);
		exit(3);
	}
	return v;
}

#endif /* LAB06_PROC_H */
