/*
 * role.c - a lab's helper processes (proc.h, the lab's side): starting the
 * lab itself with --role, asking and answering over the message socket,
 * failures turned into lab errors or skips, a lab's helpers by name and the
 * plumbing self-test.  The spawner and the message protocol under it are
 * proc.c's, which the runner links too; this file is the lab runtime's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab.h"
#include "need.h"
#include "proc.h"

int proc_msg_stats(const char *msg, const char *which, const char *name,
		   struct lab_stats *s, char *why, size_t len)
{
	static char list[PROC_MSG_MAX];
	static double v[LAB_MAX_SAMPLES];
	char w[16], *q, *end;
	int i, n, warmup, noisy, remeasured, too_short;
	double res, cv_max;
	const char *bad;

	if (!proc_msg_is(msg, "stats")) {
		snprintf(why, len, "sent '%.60s' where 'stats' was expected", msg);
		return -1;
	}
	bad = proc_msg_scan(msg, "which=%15s n=%d res=%lg", w, &n, &res);
	if (bad || strcmp(w, which) != 0 || n < 1 || n > LAB_MAX_SAMPLES || !(res > 0)) {
		snprintf(why, len, "sent stats '%.60s', expected which=%s with 1 to %d samples "
			 "and res > 0", msg, which, LAB_MAX_SAMPLES);
		return -1;
	}
	bad = proc_msg_scan(msg, "warmup=%d noisy=%d remeasured=%d too_short=%d cv_max=%lg",
			    &warmup, &noisy, &remeasured, &too_short, &cv_max);
	if (bad || !proc_msg_str(msg, "s", list, sizeof(list))) {
		snprintf(why, len, "sent stats without a valid %.*s", bad ? (int)strcspn(bad, "=") + 1 : 2,
			 bad ? bad : "s=");
		return -1;
	}
	for (i = 0, q = list; i < n; i++, q = end + (*end == ',')) {
		v[i] = strtod(q, &end);
		if (end == q || !(v[i] > 0)) {
			snprintf(why, len, "sent a bad sample %d in '%.60s'", i, msg);
			return -1;
		}
	}
	lab_stats_from(s, name, "s", v, n, res);
	s->too_short |= too_short;
	s->warmup = warmup;
	s->noisy = noisy;
	s->remeasured = remeasured;
	s->cv_max = cv_max;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The lab's side                                                            */

void proc_fail(struct lab *L, struct proc *p, const char *fmt, ...)
{
	char why[256], st[128], out[PROC_OUT_KEEP * 2];
	const char *line, *next;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!p->reaped)
		proc_reap(p, 0);
	for (line = p->outbuf; p->outlen && *line; line = next) {
		const char *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		lab_note(L, "%s helper printed: %.*s", p->name,
			 (int)((nl ? nl : next) - line), line);
	}
	lab_error(L, "helper '%s' (pid %d) %s; %s; it printed: %s", p->name, (int)p->pid,
		  why, proc_status_text(p, st, sizeof(st)),
		  proc_output_line(p, out, sizeof(out), 220));
}

void proc_start_role(struct lab *L, struct proc *p, const char *role,
		     const char *const extra[], int flags)
{
	if (proc_spawn_role(p, lab_self_path(L), role, extra, flags) < 0)
		lab_error_errno(L, "cannot start helper '%s' from '%s'", role, lab_self_path(L));
}

static void vsendf(struct lab *L, struct proc *p, int pass_fd, const char *fmt, va_list ap)
{
	static char msg[PROC_MSG_MAX];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	if (n < 0 || (size_t)n >= sizeof(msg))
		lab_error(L, "BUG: message to helper '%s' too long (%d bytes)", p->name, n);
	if (proc_msg_send(p->ctl, pass_fd, msg) < 0)
		proc_fail(L, p, "could not be sent '%.40s' (%s)", msg, strerror(errno));
}

void proc_sendf(struct lab *L, struct proc *p, int pass_fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsendf(L, p, pass_fd, fmt, ap);
	va_end(ap);
}

const char *proc_call(struct lab *L, struct proc *p, int pass_fd, const char *tag,
		      double timeout_s, const char *fmt, ...)
{
	static char answer[PROC_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsendf(L, p, pass_fd, fmt, ap);
	va_end(ap);
	return proc_expect(L, p, tag, answer, sizeof(answer), timeout_s);
}

char *proc_expect(struct lab *L, struct proc *p, const char *tag, char *buf,
		  size_t len, double timeout_s)
{
	int r = proc_recv(p, buf, len, timeout_s);

	if (r == PROC_RECV_TIMEOUT)
		proc_fail(L, p, "sent no '%s' within %.0f s and was killed", tag, timeout_s);
	if (r == PROC_RECV_CLOSED) {
		proc_reap(p, 2.0);
		proc_fail(L, p, "ended before sending '%s'", tag);
	}
	if (r < 0)
		proc_fail(L, p, "could not be read (%s)", strerror(errno));
	if (!proc_msg_is(buf, tag))
		proc_fail(L, p, "sent '%.60s' where '%s' was expected", buf, tag);
	return buf;
}

long long proc_field(struct lab *L, struct proc *p, const char *msg, const char *key)
{
	long long v;

	if (proc_msg_ll(msg, key, &v) < 0)
		proc_fail(L, p, "sent '%.60s' without a valid %s=", msg, key);
	return v;
}

const char *proc_field_str(struct lab *L, struct proc *p, const char *msg,
			   const char *key, char *out, size_t len)
{
	if (!proc_msg_str(msg, key, out, len))
		proc_fail(L, p, "sent '%.60s' without %s=", msg, key);
	return out;
}

void proc_scan(struct lab *L, struct proc *p, const char *msg, const char *fmt, ...)
{
	const char *bad;
	va_list ap;

	va_start(ap, fmt);
	bad = proc_msg_vscan(msg, fmt, ap);
	va_end(ap);
	if (bad)
		proc_fail(L, p, "sent '%.60s' without a valid %.*s", msg,
			  (int)strcspn(bad, "=") + 1, bad);
}

char *proc_ask(struct lab *L, struct proc *p, const char *cmd, const char *tag,
	       char *buf, size_t len, double timeout_s)
{
	int r = PROC_RECV_CLOSED;

	if (!cmd || proc_msg_send(p->ctl, -1, cmd) == 0)
		r = proc_recv(p, buf, len, timeout_s);
	if (r == PROC_RECV_CLOSED || r == PROC_RECV_ERROR) {
		proc_reap(p, timeout_s);
		return NULL;
	}
	if (r == PROC_RECV_TIMEOUT)
		proc_fail(L, p, "sent no '%s' within %.0f s and was killed", tag, timeout_s);
	if (!proc_msg_is(buf, tag))
		proc_fail(L, p, "sent '%.60s' where '%s' was expected", buf, tag);
	return buf;
}

int proc_linger(struct lab *L, struct proc *p, double timeout_s, double reap_s)
{
	static char msg[PROC_MSG_MAX];
	int r = proc_recv(p, msg, sizeof(msg), timeout_s);

	if (r == PROC_RECV_MSG)
		proc_fail(L, p, "sent '%.60s' unasked", msg);
	if (r != PROC_RECV_CLOSED)
		return 1;
	proc_reap(p, reap_s);
	return 0;
}

void proc_expect_stats(struct lab *L, struct proc *p, const char *which, const char *name,
		       struct lab_stats *s, double timeout_s)
{
	static char msg[PROC_MSG_MAX];
	char why[256];

	proc_expect(L, p, "stats", msg, sizeof(msg), timeout_s);
	if (proc_msg_stats(msg, which, name, s, why, sizeof(why)) < 0)
		proc_fail(L, p, "%s", why);
}

void proc_finish(struct lab *L, struct proc *p, double timeout_s)
{
	char st[128];

	if (proc_msg_send(p->ctl, -1, "quit") < 0 && errno != EPIPE && errno != ECONNRESET)
		proc_fail(L, p, "could not be told to quit (%s)", strerror(errno));
	if (!proc_reap(p, timeout_s))
		proc_fail(L, p, "did not quit within %.0f s and was killed", timeout_s);
	if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		proc_fail(L, p, "ended badly (%s)", proc_status_text(p, st, sizeof(st)));
}

const char *proc_run_role(struct lab *L, struct proc *p, const char *role,
			  const char *const extra[], double timeout_s)
{
	char st[128];

	proc_start_role(L, p, role, extra, PROC_OUT_PIPE);
	if (proc_run(p, timeout_s, 0))
		proc_fail(L, p, "did not finish within %.0f s and was killed", timeout_s);
	if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0) {
		if (strncmp(p->report, "error ", 6) == 0)
			proc_fail(L, p, "reported: %s", p->report + 6);
		proc_fail(L, p, "ended badly (%s)", proc_status_text(p, st, sizeof(st)));
	}
	return p->report;
}

const char *proc_run_role_sized(struct lab *L, struct proc *p, const char *role,
				uint64_t bytes, double timeout_s)
{
	char size_arg[32], dev_arg[16];
	const char *extra[] = { "--size", size_arg, "--device", dev_arg, NULL };

	snprintf(size_arg, sizeof(size_arg), "%llu", (unsigned long long)bytes);
	snprintf(dev_arg, sizeof(dev_arg), "%d", lab_options(L)->device);
	return proc_run_role(L, p, role, extra, timeout_s);
}

int proc_report_main(struct lab *L, const char *role, const struct proc_report_role *roles)
{
	int rc = 2;

	if (proc_child_init() < 0)
		return 127; /* the lab is gone already */
	while (roles->name && strcmp(roles->name, role) != 0)
		roles++;
	if (roles->name)
		rc = roles->fn(L);
	else
		fprintf(stderr, "lab-%s: --role '%s': unknown role\n", lab_spec_of(L)->id, role);
	fflush(stdout);
	return rc;
}

int proc_report_skip(struct lab *L, const char *id, const char *line)
{
	char reason[48];
	int n = 0;

	if (sscanf(line, "skip %47s %n", reason, &n) != 1 || n == 0)
		return 0;
	if (!lab_skip_reason_valid(reason))
		lab_error(L, "helper skipped %s with an unknown reason '%s'", id, reason);
	claim_skip(L, id, reason, "%s", line + n);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* The helper's side                                                         */

int role_io_open(struct role_io *io, const char *s)
{
	int type = 0;
	socklen_t len = sizeof(type);
	long fd;

	io->ctl = io->fd = -1;
	if (!s || lab_parse_long(s, 3, INT_MAX, &fd) < 0)
		return -1;
	if (getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET)
		return -1;
	io->ctl = (int)fd;
	return 0;
}

void role_sendf(struct role_io *io, int pass_fd, const char *fmt, ...)
{
	char msg[PROC_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (proc_msg_send(io->ctl, pass_fd, msg) < 0) {
		fprintf(stderr, "helper: cannot send to the lab: %s\n", strerror(errno));
		exit(3);
	}
}

const char *role_expect(struct role_io *io, const char *tag)
{
	ssize_t n;

	if (io->fd >= 0)
		close(io->fd);
	n = proc_msg_recv(io->ctl, io->msg, sizeof(io->msg), &io->fd);
	if (n == 0)
		exit(0);
	if (n < 0) {
		fprintf(stderr, "helper: cannot read from the lab: %s\n", strerror(errno));
		exit(3);
	}
	if (proc_msg_is(io->msg, "quit") && strcmp(tag, "quit") != 0)
		exit(0);
	if (!proc_msg_is(io->msg, tag)) {
		fprintf(stderr, "helper: got '%.60s', expected '%s'\n", io->msg, tag);
		exit(3);
	}
	return io->msg;
}

long long role_field(const struct role_io *io, const char *key)
{
	long long v;

	if (proc_msg_ll(io->msg, key, &v) < 0) {
		fprintf(stderr, "helper: message '%.60s' lacks %s=\n", io->msg, key);
		exit(3);
	}
	return v;
}

void role_scan(const struct role_io *io, const char *fmt, ...)
{
	const char *bad;
	va_list ap;

	va_start(ap, fmt);
	bad = proc_msg_vscan(io->msg, fmt, ap);
	va_end(ap);
	if (bad) {
		fprintf(stderr, "helper: message '%.60s' lacks a valid %.*s\n", io->msg,
			(int)strcspn(bad, "=") + 1, bad);
		exit(3);
	}
}

void role_field_hex(const struct role_io *io, const char *key, void *p, size_t n)
{
	char hex[PROC_MSG_MAX];

	if (!proc_msg_str(io->msg, key, hex, sizeof(hex)) || proc_unhex(hex, p, n) < 0) {
		fprintf(stderr, "helper: no valid %zu-byte hex %s= in '%.60s'\n", n, key, io->msg);
		exit(3);
	}
}

void role_send_stats(struct role_io *io, const char *which, const struct lab_stats *s)
{
	static char list[PROC_MSG_MAX - 256];
	size_t o = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < s->n && o + 32 < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.9g", i ? "," : "",
				      s->samples[i]);
	role_sendf(io, -1, "stats which=%s n=%d warmup=%d noisy=%d remeasured=%d too_short=%d "
		   "cv_max=%.6g res=%.6g s=%s", which, i, s->warmup, s->noisy, s->remeasured,
		   s->too_short, s->cv_max, s->clock_res_s, list);
}

/* ------------------------------------------------------------------------ */
/* A lab's helpers by name, and the plumbing self-test                       */

static const char *const plumbing_modes[] = { "ok", "hang", "crash", "exit", "garbage", NULL };

int proc_plumbing_mode_valid(const char *mode)
{
	int i;

	for (i = 0; plumbing_modes[i]; i++)
		if (strcmp(mode, plumbing_modes[i]) == 0)
			return 1;
	return 0;
}

double proc_child_timeout(const struct lab *L)
{
	const char *s = lab_opt(L, "child-timeout");
	long t;

	return s && lab_parse_long(s, 1, 600, &t) == 0 ? (double)t : PROC_TIMEOUT_DEFAULT_S;
}

int proc_check_opts(const struct lab *L)
{
	const char *mode = lab_opt(L, "plumbing-test"), *ctl = lab_opt(L, "ctl-fd");
	const char *t = lab_opt(L, "child-timeout");
	long v;

	if (t && lab_parse_long(t, 1, 600, &v) < 0)
		return lab_usage_error(L, "child-timeout", t, "must be whole seconds from 1 to 600");
	if (mode && !proc_plumbing_mode_valid(mode))
		return lab_usage_error(L, "plumbing-test", mode, "must be ok, hang, crash, exit or garbage");
	if (ctl && !lab_options(L)->role)
		return lab_usage_error(L, "ctl-fd", ctl, "only helpers take it (the lab starts them itself)");
	return 0;
}

/* The self-test's helper: answers (ok) or misbehaves as mode says. */
static int role_echo(struct role_io *io, const char *mode)
{
	long long n;

	mode = mode ? mode : "ok";
	fprintf(stderr, "echo helper: pid %d, mode %s\n", (int)getpid(), mode);
	if (strcmp(mode, "hang") == 0)
		for (;;)
			pause();
	if (strcmp(mode, "crash") == 0)
		abort();
	if (strcmp(mode, "exit") == 0)
		return 3;
	if (strcmp(mode, "garbage") == 0) {
		role_sendf(io, -1, "nonsense 1");
		role_expect(io, "quit");
		return 0;
	}
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "ping");
	if (io->fd < 0) {
		fprintf(stderr, "echo helper: no descriptor came with ping\n");
		return 3;
	}
	n = role_field(io, "n");
	dprintf(io->fd, "pong %lld\n", n);
	close(io->fd);
	io->fd = -1;
	role_sendf(io, -1, "pong n=%lld", n + 1);
	role_expect(io, "quit");
	return 0;
}

int proc_role_main(struct lab *L, const char *role, const struct proc_role *roles)
{
	static struct role_io io;
	const char *id = lab_spec_of(L)->id, *s = lab_opt(L, "ctl-fd");
	char known[256] = "";
	size_t o = 0;
	int i;

	if (role_io_open(&io, s) < 0) {
		fprintf(stderr, "lab-%s: --role %s needs --ctl-fd N, a socket from the lab "
			"(got '%s'); helpers are started by the lab itself (see --help)\n",
			id, role, s ? s : "");
		return 2;
	}
	if (proc_child_init() < 0) /* the lab is gone already */
		return 3;
	if (strcmp(role, "echo") == 0)
		return role_echo(&io, lab_opt(L, "plumbing-test"));
	for (i = 0; roles && roles[i].name; i++) {
		if (strcmp(role, roles[i].name) == 0)
			return roles[i].fn(L, &io);
		if (o < sizeof(known))
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s, ", roles[i].name);
	}
	fprintf(stderr, "lab-%s: --role '%s': unknown here (helpers: %secho)\n", id, role, known);
	return 2;
}

int proc_plumbing_test(struct lab *L)
{
	const char *mode = lab_opt(L, "plumbing-test");
	const char *extra[] = { "--plumbing-test", mode, NULL };
	double timeout_s = proc_child_timeout(L);
	char msg[256], got[64];
	const char *m;
	struct proc p;
	int pfd[2];
	ssize_t n;

	if (!mode)
		return 0;
	proc_start_role(L, &p, "echo", extra, PROC_HELPER);
	proc_expect(L, &p, "ready", msg, sizeof(msg), timeout_s);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		lab_error_errno(L, "pipe2");
	m = proc_call(L, &p, pfd[1], "pong", timeout_s, "ping n=41");
	close(pfd[1]);
	if (proc_field(L, &p, m, "n") != 42)
		proc_fail(L, &p, "answered '%s' to n=41", m);
	n = read(pfd[0], got, sizeof(got) - 1);
	close(pfd[0]);
	got[n > 0 ? n : 0] = '\0';
	if (strcmp(got, "pong 41\n") != 0)
		proc_fail(L, &p, "wrote '%s' into the pipe it was passed", got);
	proc_finish(L, &p, timeout_s);
	lab_note(L, "plumbing test: helper pid %d answered, wrote into the passed pipe, "
		 "quit and was reaped", (int)p.pid);
	claim_skip_rest(L, SKIP_UNSUPPORTED, "--plumbing-test ok: only the helper plumbing "
			"was tested, and it worked");
	return 1;
}
