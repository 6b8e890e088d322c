/*
 * helper.c - a lab's helper processes (helper.h): JSON-line messages over
 * the socket proc.c makes, the lab's side (failures become lab errors or
 * skips), the helper's side, helpers by name and the plumbing self-test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"
#include "need.h"
#include "sizes.h"

#define EXACT_MAX 9007199254740992.0 /* 2^53: a double holds every integer up to it */

/* ---- Messages ---- */

void msg_begin(struct json_writer *w, const char *tag)
{
	jw_init(w, 0);
	jw_obj_begin(w);
	jw_kstr(w, "msg", tag);
}

void msg_put_hex(struct json_writer *w, const char *key, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = (const unsigned char *)p;
	char *hex = (char *)malloc(2 * n + 1);

	if (!hex) {
		w->failed = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * n] = '\0';
	jw_kstr(w, key, hex);
	free(hex);
}

/* End w's message, one line, and send it; w is released.  0, or -1 + errno. */
static int send_line(int sock, struct json_writer *w, int pass_fd)
{
	int rc;

	jw_obj_end(w);
	jw_raw(w, "\n");
	if (w->failed) {
		errno = ENOMEM;
		rc = -1;
	} else {
		rc = proc_msg_send(sock, pass_fd, w->buf);
	}
	jw_release(w);
	return rc;
}

/* A message of a tag alone. */
static int say(int sock, const char *tag)
{
	struct json_writer w;

	msg_begin(&w, tag);
	return send_line(sock, &w, -1);
}

/* m->text just came, with fd: parse it.  0, or -1 with why it is no message. */
static int take(struct msg *m, int fd, char *why, size_t len)
{
	size_t n = strcspn(m->text, "\n");
	const struct json *tag;

	if (m->text[n] == '\n' && m->text[n + 1] == '\0')
		m->text[n] = '\0';
	if (m->fd >= 0)
		close(m->fd);
	m->fd = fd;
	json_free(m->obj);
	m->obj = json_parse(m->text, strlen(m->text), why, len);
	if (!m->obj)
		return -1;
	tag = json_get(m->obj, "msg");
	if (tag && tag->type == JSON_STR)
		return 0;
	snprintf(why, len, "not an object with a \"msg\" string");
	json_free(m->obj);
	m->obj = NULL;
	return -1;
}

const char *msg_tag(const struct msg *m)
{
	return json_get_str(m->obj, "msg", "");
}

LAB_NORETURN static void bad_field(struct msg *m, const char *key)
{
	if (m->from)
		helper_fail(m->from, "sent '%.60s' without a valid %s", m->text, key);
	fprintf(stderr, "helper: message '%.60s' lacks a valid %s\n", m->text, key);
	exit(3);
}

static const struct json *field(struct msg *m, const char *key, enum json_type type)
{
	const struct json *v = json_get(m->obj, key);

	if (!v || v->type != type)
		bad_field(m, key);
	return v;
}

long long msg_int(struct msg *m, const char *key)
{
	double v = field(m, key, JSON_NUM)->num;

	if (!(v >= -EXACT_MAX && v <= EXACT_MAX) || (double)(long long)v != v)
		bad_field(m, key);
	return (long long)v;
}

double msg_num(struct msg *m, const char *key)
{
	return field(m, key, JSON_NUM)->num;
}

const char *msg_str(struct msg *m, const char *key)
{
	return field(m, key, JSON_STR)->str;
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

void msg_hex(struct msg *m, const char *key, void *p, size_t n)
{
	const char *s = msg_str(m, key);
	unsigned char *b = (unsigned char *)p;

	if (strlen(s) != 2 * n)
		bad_field(m, key);
	for (size_t i = 0; i < n; i++) {
		int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			bad_field(m, key);
		b[i] = (unsigned char)(hi << 4 | lo);
	}
}

/* ---- The lab's side ---- */

void helper_fail(struct helper *h, const char *fmt, ...)
{
	char why[256], st[128], out[PROC_OUT_KEEP * 2];
	struct proc *p = &h->proc;
	const char *next;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!p->reaped)
		proc_reap(p, 0);
	for (const char *line = p->outbuf; p->outlen && *line; line = next) {
		const char *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		lab_note(h->L, MSG("lab.say-1",
			"%s helper printed: %.*s"), p->name,
			 (int)((nl ? nl : next) - line), line);
	}
	lab_error(h->L, "helper '%s' (pid %d) %s; %s; it printed: %s", p->name, (int)p->pid,
		  why, proc_status_text(p, st, sizeof(st)),
		  proc_output_line(p, out, sizeof(out), 220));
}

void helper_start(struct lab *L, struct helper *h, const char *role, const char *const extra[])
{
	json_free(h->msg.obj);
	memset(&h->msg, 0, sizeof(h->msg));
	h->msg.fd = -1;
	h->msg.from = h;
	h->L = L;
	if (proc_spawn_role(&h->proc, lab_self_path(L), role, extra, PROC_HELPER) < 0)
		lab_error_errno(L, "cannot start helper '%s' from '%s'", role, lab_self_path(L));
}

void helper_send(struct helper *h, struct json_writer *w, int pass_fd)
{
	if (send_line(h->proc.ctl, w, pass_fd) < 0)
		helper_fail(h, "could not be sent a message (%s)", strerror(errno));
}

/* The next message from h within timeout_s (PROC_RECV_*); one that is not
 * a message stops the lab. */
static int receive(struct helper *h, double timeout_s)
{
	char why[128];
	int fd, r = proc_recv(&h->proc, h->msg.text, sizeof(h->msg.text), &fd, timeout_s);

	if (r == PROC_RECV_MSG && take(&h->msg, fd, why, sizeof(why)) < 0)
		helper_fail(h, "sent '%.60s', not a message (%s)", h->msg.text, why);
	return r;
}

/* The next message, whatever its tag: what it should have been is `tag`. */
static struct msg *next(struct helper *h, const char *tag, double timeout_s)
{
	int r = receive(h, timeout_s);

	if (r == PROC_RECV_TIMEOUT)
		helper_fail(h, "sent no '%s' within %.0f s and was killed", tag, timeout_s);
	if (r == PROC_RECV_CLOSED) {
		proc_reap(&h->proc, 2.0);
		helper_fail(h, "ended before sending '%s'", tag);
	}
	if (r < 0)
		helper_fail(h, "could not be read (%s)", strerror(errno));
	return &h->msg;
}

static struct msg *check_tag(struct helper *h, const char *tag)
{
	if (strcmp(msg_tag(&h->msg), tag) != 0)
		helper_fail(h, "sent '%.60s' where '%s' was expected", h->msg.text, tag);
	return &h->msg;
}

struct msg *helper_expect(struct helper *h, const char *tag, double timeout_s)
{
	next(h, tag, timeout_s);
	return check_tag(h, tag);
}

struct msg *helper_call(struct helper *h, struct json_writer *w, int pass_fd, const char *tag,
			double timeout_s)
{
	helper_send(h, w, pass_fd);
	return helper_expect(h, tag, timeout_s);
}

struct msg *helper_ask(struct helper *h, const char *order, const char *tag, double timeout_s)
{
	int r = PROC_RECV_CLOSED;

	if (!order || say(h->proc.ctl, order) == 0)
		r = receive(h, timeout_s);
	if (r == PROC_RECV_CLOSED || r == PROC_RECV_ERROR) {
		proc_reap(&h->proc, timeout_s);
		return NULL;
	}
	if (r == PROC_RECV_TIMEOUT)
		helper_fail(h, "sent no '%s' within %.0f s and was killed", tag, timeout_s);
	return check_tag(h, tag);
}

int helper_linger(struct helper *h, double timeout_s, double reap_s)
{
	int r = receive(h, timeout_s);

	if (r == PROC_RECV_MSG)
		helper_fail(h, "sent '%.60s' unasked", h->msg.text);
	if (r != PROC_RECV_CLOSED)
		return 1;
	proc_reap(&h->proc, reap_s);
	return 0;
}

void helper_expect_stats(struct helper *h, const char *which, const char *name,
			 struct lab_stats *s, double timeout_s)
{
	static double v[LAB_MAX_SAMPLES];
	struct msg *m = helper_expect(h, "stats", timeout_s);
	const struct json *list = json_get(m->obj, "s"), *e;
	double res = msg_num(m, "res");
	int n = 0;

	if (strcmp(msg_str(m, "which"), which) != 0)
		helper_fail(h, "sent the stats of '%s' where '%s' was expected",
			    msg_str(m, "which"), which);
	if (!list || list->type != JSON_ARR || list->count < 1 || list->count > LAB_MAX_SAMPLES ||
	    !(res > 0))
		helper_fail(h, "sent stats '%.60s', expected 1 to %d samples and res > 0", m->text,
			    LAB_MAX_SAMPLES);
	for (e = list->child; e; e = e->next, n++) {
		if (e->type != JSON_NUM || !(e->num > 0))
			helper_fail(h, "sent a bad sample %d in '%.60s'", n, m->text);
		v[n] = e->num;
	}
	lab_stats_from(s, name, "s", v, n, res);
	s->too_short |= (int)msg_int(m, "too_short");
	s->warmup = (int)msg_int(m, "warmup");
	s->noisy = (int)msg_int(m, "noisy");
	s->remeasured = (int)msg_int(m, "remeasured");
	s->cv_max = msg_num(m, "cv_max");
}

void helper_finish(struct helper *h, double timeout_s)
{
	char st[128];

	if (say(h->proc.ctl, "quit") < 0 && errno != EPIPE && errno != ECONNRESET)
		helper_fail(h, "could not be told to quit (%s)", strerror(errno));
	if (!proc_reap(&h->proc, timeout_s))
		helper_fail(h, "did not quit within %.0f s and was killed", timeout_s);
	if (!WIFEXITED(h->proc.status) || WEXITSTATUS(h->proc.status) != 0)
		helper_fail(h, "ended badly (%s)", proc_status_text(&h->proc, st, sizeof(st)));
}

struct msg *helper_run(struct lab *L, struct helper *h, const char *role,
		       const char *const extra[], double timeout_s)
{
	struct msg *m;

	helper_start(L, h, role, extra);
	m = next(h, "report", timeout_s);
	if (strcmp(msg_tag(m), "error") == 0) {
		proc_reap(&h->proc, timeout_s);
		helper_fail(h, "reported: %s", msg_str(m, "why"));
	}
	if (strcmp(msg_tag(m), "skip") != 0)
		check_tag(h, "report");
	helper_finish(h, timeout_s);
	return m;
}

struct msg *helper_run_sized(struct lab *L, struct helper *h, const char *role, uint64_t bytes,
			     double timeout_s)
{
	char size_arg[32], dev_arg[16];
	const char *extra[] = { "--size", size_arg, "--device", dev_arg, NULL };

	snprintf(size_arg, sizeof(size_arg), "%llu", (unsigned long long)bytes);
	snprintf(dev_arg, sizeof(dev_arg), "%d", lab_options(L)->device);
	return helper_run(L, h, role, extra, timeout_s);
}

int helper_report_skip(struct helper *h, const char *id)
{
	const char *reason;

	if (strcmp(msg_tag(&h->msg), "skip") != 0)
		return 0;
	reason = msg_str(&h->msg, "reason");
	if (!lab_skip_reason_valid(reason))
		lab_error(h->L, "helper skipped %s with an unknown reason '%s'", id, reason);
	claim_skip(h->L, id, reason, "%s", msg_str(&h->msg, "detail"));
	return 1;
}

/* ---- The helper's side ---- */

void role_send(struct role_io *io, struct json_writer *w, int pass_fd)
{
	if (send_line(io->ctl, w, pass_fd) < 0) {
		fprintf(stderr, "helper: cannot send to the lab: %s\n", strerror(errno));
		exit(3);
	}
}

struct msg *role_expect(struct role_io *io, const char *tag)
{
	char why[128];
	int fd;
	ssize_t n = proc_msg_recv(io->ctl, io->msg.text, sizeof(io->msg.text), &fd);

	if (n == 0)
		exit(0);
	if (n < 0) {
		fprintf(stderr, "helper: cannot read from the lab: %s\n", strerror(errno));
		exit(3);
	}
	if (take(&io->msg, fd, why, sizeof(why)) < 0) {
		fprintf(stderr, "helper: got '%.60s', not a message (%s)\n", io->msg.text, why);
		exit(3);
	}
	if (strcmp(msg_tag(&io->msg), "quit") == 0 && strcmp(tag, "quit") != 0)
		exit(0);
	if (strcmp(msg_tag(&io->msg), tag) != 0) {
		fprintf(stderr, "helper: got '%.60s', expected '%s'\n", io->msg.text, tag);
		exit(3);
	}
	return &io->msg;
}

/* Add fmt's text as field key to w's message, and send it. */
static void say_text(struct role_io *io, struct json_writer *w, const char *key,
		     const char *fmt, va_list ap)
{
	char text[1024];

	vsnprintf(text, sizeof(text), fmt, ap);
	jw_kstr(w, key, text);
	role_send(io, w, -1);
}

int role_error(struct role_io *io, const char *fmt, ...)
{
	struct json_writer w;
	va_list ap;

	msg_begin(&w, "error");
	va_start(ap, fmt);
	say_text(io, &w, "why", fmt, ap);
	va_end(ap);
	return 1;
}

int role_skip(struct role_io *io, const char *reason, const char *fmt, ...)
{
	struct json_writer w;
	va_list ap;

	msg_begin(&w, "skip");
	jw_kstr(&w, "reason", reason);
	va_start(ap, fmt);
	say_text(io, &w, "detail", fmt, ap);
	va_end(ap);
	return 0;
}

void role_send_stats(struct role_io *io, const char *which, const struct lab_stats *s)
{
	struct json_writer w;

	msg_begin(&w, "stats");
	jw_kstr(&w, "which", which);
	jw_kint(&w, "warmup", s->warmup);
	jw_kint(&w, "noisy", s->noisy);
	jw_kint(&w, "remeasured", s->remeasured);
	jw_kint(&w, "too_short", s->too_short);
	jw_knum(&w, "cv_max", s->cv_max);
	jw_knum(&w, "res", s->clock_res_s);
	jw_karr(&w, "s");
	for (int i = 0; i < s->n; i++)
		jw_num(&w, s->samples[i]);
	jw_arr_end(&w);
	role_send(io, &w, -1);
}

/* The socket the lab gave: PROC_CTL_FD, a SOCK_SEQPACKET socket.  0 or -1. */
static int role_open(struct role_io *io)
{
	int type = 0;
	socklen_t len = sizeof(type);

	io->ctl = PROC_CTL_FD;
	io->msg.fd = -1;
	if (getsockopt(io->ctl, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET)
		return -1;
	return fcntl(io->ctl, F_SETFD, FD_CLOEXEC); /* not for what the helper runs */
}

/* ---- A lab's helpers by name, options and the plumbing self-test ---- */

static const char *const plumbing_modes[] = { "ok", "hang", "crash", "exit", "garbage", NULL };

static int plumbing_mode_valid(const char *mode)
{
	for (int i = 0; plumbing_modes[i]; i++)
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
	const char *mode = lab_opt(L, "plumbing-test"), *t = lab_opt(L, "child-timeout");
	long v;

	if (t && lab_parse_long(t, 1, 600, &v) < 0)
		return lab_usage_error(L, "child-timeout", t,
				       "must be whole seconds from 1 to 600");
	if (mode && !plumbing_mode_valid(mode))
		return lab_usage_error(L, "plumbing-test", mode,
				       "must be ok, hang, crash, exit or garbage");
	return 0;
}

/* The self-test's helper: answers (ok) or misbehaves as mode says. */
static int role_echo(struct role_io *io, const char *mode)
{
	struct json_writer w;
	struct msg *m;
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
		proc_msg_send(io->ctl, -1, "nonsense 1\n");
		role_expect(io, "quit");
		return 0;
	}
	msg_begin(&w, "ready");
	jw_kint(&w, "pid", getpid());
	role_send(io, &w, -1);
	m = role_expect(io, "ping");
	if (m->fd < 0) {
		fprintf(stderr, "echo helper: no descriptor came with ping\n");
		return 3;
	}
	n = msg_int(m, "n");
	dprintf(m->fd, "pong %lld\n", n);
	close(m->fd); /* before the answer, after which the lab reads the pipe */
	m->fd = -1;
	msg_begin(&w, "pong");
	jw_kint(&w, "n", n + 1);
	role_send(io, &w, -1);
	role_expect(io, "quit");
	return 0;
}

static int run_role(struct lab *L, struct role_io *io, const char *role,
		    const struct helper_role *roles)
{
	char known[256] = "";
	size_t o = 0;

	if (strcmp(role, "echo") == 0)
		return role_echo(io, lab_opt(L, "plumbing-test"));
	for (int i = 0; roles && roles[i].name; i++) {
		if (strcmp(role, roles[i].name) == 0)
			return roles[i].fn(L, io);
		if (o < sizeof(known))
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s, ", roles[i].name);
	}
	return lab_usage_error(L, "role", role, "unknown here (helpers: %secho)", known);
}

int helper_role_main(struct lab *L, const char *role, const struct helper_role *roles)
{
	static struct role_io io;
	int rc;

	if (role_open(&io) < 0) {
		return lab_usage_line(L, "--role %s needs the socket the lab gives its helpers as "
				      "descriptor %d; helpers are started by the lab itself", role,
				      PROC_CTL_FD);
	}
	if (proc_child_init() < 0) /* the lab is gone already */
		return 3;
	rc = run_role(L, &io, role, roles);
	fflush(stdout); /* before exit handlers (CUDA's teardown) run */
	return rc;
}

int proc_plumbing_test(struct lab *L)
{
	static struct helper h;
	const char *mode = lab_opt(L, "plumbing-test");
	const char *extra[] = { "--plumbing-test", mode, NULL };
	double timeout_s = proc_child_timeout(L);
	struct json_writer w;
	struct msg *m;
	char got[64];
	int pfd[2];
	ssize_t n;

	if (!mode)
		return 0;
	helper_start(L, &h, "echo", extra);
	helper_expect(&h, "ready", timeout_s);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		lab_error_errno(L, "pipe2");
	msg_begin(&w, "ping");
	jw_kint(&w, "n", 41);
	m = helper_call(&h, &w, pfd[1], "pong", timeout_s);
	close(pfd[1]);
	if (msg_int(m, "n") != 42)
		helper_fail(&h, "answered '%s' to n=41", m->text);
	n = read(pfd[0], got, sizeof(got) - 1);
	close(pfd[0]);
	got[n > 0 ? n : 0] = '\0';
	if (strcmp(got, "pong 41\n") != 0)
		helper_fail(&h, "wrote '%s' into the pipe it was passed", got);
	helper_finish(&h, timeout_s);
	lab_note(L, MSG("lab.say-2",
		"plumbing test: helper pid %d answered, wrote into the passed pipe, quit and was "
		"reaped"), (int)h.proc.pid);
	claim_skip_rest(L, SKIP_UNSUPPORTED, "--plumbing-test ok: only the helper plumbing "
			"was tested, and it worked");
	return 1;
}
