/*
 * helper.h - a lab's helper processes: the lab started again as itself
 * with `--role NAME`, talking with the lab over a socketpair in messages of
 * one JSON object a line, tagged in "msg" ({"msg":"ready","pid":4242}), a
 * descriptor possibly passed with it; binary values travel as hex.
 *
 * A helper answers the lab's orders until "quit", or sends one "report"
 * ("skip", "error") and exits.  Anything the lab did not expect (not JSON,
 * another tag, a missing field, a helper that hangs or dies) stops the lab
 * with lab_error, quoting what the helper printed; a helper it ends with 3.
 */
#ifndef DMALAB_HELPER_H
#define DMALAB_HELPER_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "lab.h"
#include "proc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct helper;

/* The last message received, on either side. */
struct msg {
	char text[PROC_MSG_MAX]; /* as it came, '\n' stripped: quoted in errors */
	struct json *obj;        /* parsed; NULL before the first */
	int fd;                  /* the descriptor that came with it, or -1 */
	struct helper *from;     /* the lab's side: who sent it; NULL in a helper */
};

/* Begin a message: w is initialised and holds {"msg":"TAG" so far. */
void msg_begin(struct json_writer *w, const char *tag);
/* Member key: the n bytes at p as 2n lowercase hex digits. */
void msg_put_hex(struct json_writer *w, const char *key, const void *p, size_t n);

/* The tag of m. */
const char *msg_tag(const struct msg *m);
/* Fields of m; a missing or mistyped one stops the lab, or ends a helper (3). */
long long msg_int(struct msg *m, const char *key);
double msg_num(struct msg *m, const char *key);
const char *msg_str(struct msg *m, const char *key);
void msg_hex(struct msg *m, const char *key, void *p, size_t n);

/* ---- The lab's side: each of these stops the lab (lab_error) when h misbehaves ---- */

struct helper {
	struct proc proc;
	struct msg msg;  /* what it sent last */
	struct lab *L;
};

/* Start this program (lab_self_path) as helper `role` with extra, its
 * output kept, or stop the lab: "cannot start helper 'ROLE' from 'PATH'". */
void helper_start(struct lab *L, struct helper *h, const char *role, const char *const extra[]);
/* End the message in w and send it, with a descriptor when pass_fd >= 0. */
void helper_send(struct helper *h, struct json_writer *w, int pass_fd);
/* Wait up to timeout_s for the message `tag`: a timeout kills h, an early
 * exit or another message is reported with what h printed. */
struct msg *helper_expect(struct helper *h, const char *tag, double timeout_s);
/* helper_send, then helper_expect of the answer `tag`. */
struct msg *helper_call(struct helper *h, struct json_writer *w, int pass_fd, const char *tag,
			double timeout_s);
/*
 * For a helper whose death is a finding: send `order` (NULL: nothing), wait
 * for `tag`.  When the helper is gone it is reaped and NULL comes back
 * (h->proc.status says how it ended).
 */
struct msg *helper_ask(struct helper *h, const char *order, const char *tag, double timeout_s);
/* Give h timeout_s to end on its own: 0 once it ended and was reaped (SIGKILL
 * after reap_s), 1 when it is still there.  A message from it stops the lab. */
int helper_linger(struct helper *h, double timeout_s, double reap_s);
/* Wait up to timeout_s for h's stats of `which` (role_send_stats) and
 * rebuild the series into s as `name` (a static string; unit "s"). */
void helper_expect_stats(struct helper *h, const char *which, const char *name,
			 struct lab_stats *s, double timeout_s);
/* Send "quit" and reap h within timeout_s; it must exit with code 0. */
void helper_finish(struct helper *h, double timeout_s);
/* h broke the lab's setup: kill and reap it, show its output, lab_error. */
LAB_NORETURN void helper_fail(struct helper *h, const char *fmt, ...) LAB_PRINTF(2, 3);

/* Run a reporting helper to its end: its "report" or "skip" comes back; an
 * "error" stops the lab; it must then exit with code 0. */
struct msg *helper_run(struct lab *L, struct helper *h, const char *role,
		       const char *const extra[], double timeout_s);
/* helper_run with extra `--size BYTES --device D` (D: the lab's --device),
 * for a helper that works on a buffer of that size. */
struct msg *helper_run_sized(struct lab *L, struct helper *h, const char *role, uint64_t bytes,
			     double timeout_s);
/* A "skip" from helper_run skips claim id with its reason and detail: 1;
 * else 0.  A reason that is not one of lab.h's codes stops the lab. */
int helper_report_skip(struct helper *h, const char *id);

/* ---- The helper's side (in its role function) ---- */

struct role_io {
	int ctl;        /* the socket to the lab: PROC_CTL_FD */
	struct msg msg; /* the lab's last message */
};

/* End the message in w and send it to the lab; a lab that went away ends
 * the helper (exit 3). */
void role_send(struct role_io *io, struct json_writer *w, int pass_fd);
/* The next message must be `tag` ("quit" or the lab gone: exit 0; else 3).  A
 * passed fd is closed by the next role_expect unless taken (set it to -1). */
struct msg *role_expect(struct role_io *io, const char *tag);
/* A reporting helper's other ends: "error" (its setup broke: why) returns
 * 1, the exit code; "skip" (a claim cannot be decided here) returns 0. */
int role_error(struct role_io *io, const char *fmt, ...) LAB_PRINTF(2, 3);
int role_skip(struct role_io *io, const char *reason, const char *fmt, ...) LAB_PRINTF(3, 4);
/* Send series s (measured here, in seconds) as stats of `which`. */
void role_send_stats(struct role_io *io, const char *which, const struct lab_stats *s);

/* One helper of a lab: its --role name and its body (returns the exit code;
 * it starts with the socket open, after proc_child_init). */
struct helper_role {
	const char *name;
	int (*fn)(struct lab *L, struct role_io *io);
};

/* spec.role of a lab with helpers: run the entry of roles named role, or the
 * built-in "echo" of proc_plumbing_test.  Returns the helper's exit code. */
int helper_role_main(struct lab *L, const char *role, const struct helper_role *roles);

/* ---- Options and the plumbing self-test ---- */

/* The option of the lab's wait for each answer of a helper (extra_opts),
 * read with proc_child_timeout. */
#define PROC_TIMEOUT_OPT { "child-timeout", "S", "seconds to wait for a helper's " \
	"answer before killing it (default 20)" }
#define PROC_TIMEOUT_DEFAULT_S 20

/* --child-timeout in seconds (whole, 1 to 600), or PROC_TIMEOUT_DEFAULT_S
 * when it is not given (or not valid: proc_check_opts refuses that). */
double proc_child_timeout(const struct lab *L);

/* The option of the self-test (a lab lists it in its extra_opts). */
#define PROC_PLUMBING_OPT { "plumbing-test", "MODE", "test only the helper plumbing, " \
	"no GPU needed: ok, hang, crash, exit or garbage (the helper's behaviour)" }

/* check_opts of a lab with PROC_TIMEOUT_OPT and PROC_PLUMBING_OPT: 0, or 2. */
int proc_check_opts(const struct lab *L);

/*
 * The self-test of this machinery, no GPU needed, under --plumbing-test
 * MODE (else 0 at once): the "echo" helper gets a pipe and must answer.
 * Mode ok: every undecided claim skips and it returns 1 (run() is done).
 * hang, crash, exit and garbage must end in lab_error, no process left.
 */
int proc_plumbing_test(struct lab *L);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_HELPER_H */
