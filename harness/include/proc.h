/*
 * proc.h - child processes: start one, talk to it, time it out, kill it and
 * reap it, on every path.
 *
 * Two kinds of children, one mechanism:
 *  - any program (the runner starts each lab): proc_spawn() with an argv,
 *    its stdout and stderr on pipes read line by line, proc_run() until it
 *    ends or its deadline passes (SIGTERM, a grace period, SIGKILL);
 *  - the lab itself again as a helper (`--role NAME`, lab_spec.role):
 *    proc_spawn_role().  A helper either prints a one-line report and exits
 *    (proc_run_role()), or talks with the lab in messages over a socketpair
 *    (PROC_CTL: `--ctl-fd N`, proc_sendf/proc_expect here, role_sendf/
 *    role_expect on its side), a descriptor passed along when needed.
 *
 * Children are started with posix_spawn, never with a bare fork(): a lab may
 * already hold a CUDA context, and a forked copy of such a process is not
 * usable (glibc's posix_spawn goes straight to exec without copying the
 * address space).  posix_spawn also reports a failed exec as its return
 * value (the errno of execve), which is what proc_spawn returns.
 *
 * Every child is reaped on every path.  A started child is in a registry
 * until it is reaped; exit() (the normal end, lab_error, lab_skip) kills and
 * reaps what is left (atexit), and so does SIGINT, SIGTERM or SIGHUP, after
 * which the process dies by that same signal (unless PROC_OWN_SIGNALS: the
 * runner stops its labs itself, through proc_opts.stop).  A helper asks to
 * die with its parent (proc_child_init), so that even a SIGKILL of the lab
 * leaves nothing behind.  A child in its own process group (PROC_GROUP) is
 * killed as a group, and what is left of the group when its leader exits is
 * killed and reaped too (the caller is a child subreaper, as the runner is,
 * to reap the leader's orphans).
 *
 * Messages (SOCK_SEQPACKET: one send is one receive, never merged or split)
 * are text: a tag, then `key=value` words ("ready pid=42").  A one-line
 * report uses the same words without a tag ("bytes=4096 errno=12"), or
 * "error TEXT" (the helper's setup broke) or "skip REASON DETAIL".  Several
 * fields are read at once with a scanf-like list (proc_scan, role_scan);
 * binary values travel as hex, a measured series as its samples
 * (role_send_stats, proc_expect_stats).
 *
 * A lab with such helpers names them in a table and lets proc_role_main
 * run them (spec.role), and gets a self-test of this machinery that needs
 * no GPU: proc_plumbing_test, with a built-in "echo" helper that can hang,
 * crash, exit early or answer garbage.
 *
 * Times are seconds (double, lab_now()'s clock); a timeout <= 0 means none
 * where a function says so.  Plain C, used by the runner and by labs (also
 * from C++: lab.cu built by nvcc).
 */
#ifndef DMALAB_PROC_H
#define DMALAB_PROC_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROC_MSG_MAX 32768   /* bytes of one message, NUL included */
#define PROC_OUT_KEEP 2000   /* bytes of a child's output kept (the tail) */
#define PROC_LINE_MAX 8192   /* longer output lines are handed on in pieces */
#define PROC_REPORT_MAX 512  /* bytes of the first line of stdout kept */
#define PROC_MAX 16          /* children alive at once, per process */
#define PROC_WORD_MAX 64     /* bytes of a %s field of proc_msg_scan, NUL included */

#if defined(__GNUC__)
#define PROC_SCANF(f, a) __attribute__((format(scanf, f, a)))
#else
#define PROC_SCANF(f, a)
#endif

/* proc_opts.flags (and proc_spawn_role's flags) */
#define PROC_GROUP       0x01 /* own process group: kills reach the group */
#define PROC_OUT_PIPE    0x02 /* stdout to a pipe read by us (else ours) */
#define PROC_ERR_PIPE    0x04 /* stderr to a second pipe (else ours) */
#define PROC_MERGE_ERR   0x08 /* stderr into the stdout pipe (with OUT_PIPE) */
#define PROC_CTL         0x10 /* a message socket; roles only: --ctl-fd N */
#define PROC_OWN_SIGNALS 0x20 /* the caller handles SIGINT/TERM/HUP itself */
/* A helper that talks in messages; what it prints is kept for errors. */
#define PROC_HELPER (PROC_CTL | PROC_OUT_PIPE | PROC_MERGE_ERR)

struct proc_opts {
	int flags;                                    /* PROC_* */
	/* Each line of the stdout (stderr) pipe, '\n' stripped; may be NULL. */
	void (*out_line)(void *ctx, const char *line);
	void (*err_line)(void *ctx, const char *line);
	void *ctx;                                    /* for the callbacks */
	FILE *log;                                    /* every byte read; may be NULL */
	/* Nonzero *stop: proc_run ends the child as at its deadline (aborted). */
	const volatile sig_atomic_t *stop;
};

/* One pipe from the child, assembled into lines. */
struct proc_stream {
	int fd;                       /* read end; -1 at EOF or when not piped */
	size_t len;                   /* bytes of the line being assembled */
	void (*line)(void *ctx, const char *line);
	char buf[PROC_LINE_MAX];
};

/* A child.  Fields are read by callers; only the functions below write them. */
struct proc {
	const char *name;  /* the role, or argv[0]: for messages */
	pid_t pid;         /* 0 if none was started; kept after reaping */
	int flags;
	int ctl;           /* our end of the message socket; -1 if none/closed */
	int rx_fd;         /* descriptor that came with the last message, or -1 */
	int reaped;        /* 1 once waited for: status is valid */
	int status;        /* wait status (WIFEXITED, WTERMSIG ...) */
	int exec_errno;    /* the program could not be started (ENOENT ...) */
	int timed_out;     /* proc_run: stopped at its deadline */
	int aborted;       /* proc_run: stopped because *stop was set */
	int leftovers;     /* PROC_GROUP: the group outlived its leader (killed) */
	double start;      /* lab_now() when it was started */
	double duration_s; /* start to the leader's exit (proc_run) */
	struct proc_stream out, err;
	void *ctx;
	FILE *log;
	const volatile sig_atomic_t *stop;
	size_t outlen;     /* bytes in outbuf */
	int out_cut;       /* 1 if the start of the output was dropped */
	char outbuf[PROC_OUT_KEEP + 1]; /* the tail of everything piped */
	int have_report;
	char report[PROC_REPORT_MAX];   /* first line of the stdout pipe */
};

/* ------------------------------------------------------------------------ */
/* Starting, waiting, killing                                                */

/*
 * Start argv[0] (a path: no PATH search) with argv, stdin /dev/null, its
 * signal mask empty and SIGPIPE, SIGINT, SIGTERM, SIGCHLD and SIGQUIT at
 * their defaults; stdout and stderr as o->flags say (o may be NULL: both
 * inherited).  Returns 0, or -1 with errno: p->exec_errno is set when the
 * program could not be run (ENOENT, EACCES, ENOEXEC ...); EAGAIN when
 * PROC_MAX children are alive.  PROC_CTL is refused here (EINVAL).
 */
int proc_spawn(struct proc *p, char *const argv[], const struct proc_opts *o);

/*
 * Start this program as a helper: `self --role ROLE [--ctl-fd N] extra...`
 * (extra: NULL-terminated, at most 16 words; may be NULL).  self is
 * lab_self_path(); one without a '/' (started through PATH) is replaced by
 * /proc/self/exe.  flags: PROC_HELPER for a helper that talks in messages,
 * PROC_OUT_PIPE for one that prints a report.  0, or -1 with errno.
 */
int proc_spawn_role(struct proc *p, const char *self, const char *role,
		    const char *const extra[], int flags);

/*
 * Wait for p to end, reading its output meanwhile.  timeout_s after its
 * start (<= 0: no deadline), or as soon as *stop is set, it is sent SIGTERM
 * and after grace_s SIGKILL (grace_s <= 0: SIGKILL at once), the group with
 * PROC_GROUP.  Then the pipes are read to their end (1 s at most), what is
 * left of the group is killed and reaped, and every descriptor closed.
 * Returns 0 if it ended on its own, 1 if it was stopped (timed_out or
 * aborted set).
 */
int proc_run(struct proc *p, double timeout_s, double grace_s);

/* Results of proc_recv. */
#define PROC_RECV_MSG 1      /* a message in buf; a passed descriptor in rx_fd */
#define PROC_RECV_CLOSED 0   /* the child closed its end (it exited) */
#define PROC_RECV_TIMEOUT (-1)
#define PROC_RECV_ERROR (-2) /* errno */

/*
 * Wait up to timeout_s for a message from p, keeping its output meanwhile.
 * buf gets the NUL-terminated text (len bytes at most); a descriptor that
 * came with it replaces (and closes) the previous p->rx_fd.
 */
int proc_recv(struct proc *p, char *buf, size_t len, double timeout_s);
/*
 * What every helper timeout (proc_recv, proc_reap and the calls on them) is
 * multiplied by: DMALAB_TIMEOUT_MUL from the environment, as the runner's
 * lab timeouts are (0.1 to 1000; anything else, or unset: 1), so that a lab
 * under a slow tool (compute-sanitizer, valgrind) does not kill its helpers.
 */
double proc_timeout_mul(void);

/*
 * Wait up to timeout_s (0: not at all) for p to exit, then SIGKILL it and
 * wait.  Closes our descriptors.  Returns 1 if it exited on its own (or was
 * already reaped, or never started), 0 if it had to be killed.
 */
int proc_reap(struct proc *p, double timeout_s);

/* Send sig to p (its whole group with PROC_GROUP).  0, or -1 with errno. */
int proc_kill(struct proc *p, int sig);

/* SIGKILL and reap every child still alive.  Async-signal-safe; also run
 * at exit and on SIGINT/SIGTERM/SIGHUP (see the top of this file). */
void proc_kill_all(void);

/* "exited with code 3", "killed by SIGSEGV (11)", "still running", "not
 * started" or "could not start: No such file or directory". */
const char *proc_status_text(const struct proc *p, char *buf, size_t len);
/* "SIGKILL", or "signal 40" for one without a name here (static buffer). */
const char *proc_signal_name(int sig);
/* The last max bytes of p's kept output on one line ("a | b"), or
 * "(nothing)"; control characters become '?'. */
const char *proc_output_line(const struct proc *p, char *buf, size_t len, size_t max);

/*
 * First thing in a helper (its role function): die by SIGKILL when the
 * process that started it dies, whichever way.  Returns -1 if that process
 * is gone already (the helper should exit at once), else 0.
 */
int proc_child_init(void);

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */

/* Send one message, with a descriptor when pass_fd >= 0.  0, or -1 + errno
 * (EPIPE or ECONNRESET: the peer is gone; never SIGPIPE). */
int proc_msg_send(int sock, int pass_fd, const char *text);
/*
 * Receive one message into buf (NUL-terminated).  *fd gets a descriptor that
 * came with it, or -1 (any others are closed).  Returns the length, 0 when
 * the peer closed its end, -1 on error (EMSGSIZE: longer than len - 1).
 */
ssize_t proc_msg_recv(int sock, char *buf, size_t len, int *fd);
/* 1 if msg's first word is tag. */
int proc_msg_is(const char *msg, const char *tag);
/* The value of the word `key=...` in msg (any word, the first too), copied
 * into out (len bytes); NULL if absent or longer. */
const char *proc_msg_str(const char *msg, const char *key, char *out, size_t len);
/* Integer value of `key=` (decimal, or hex with 0x): 0, or -1 if absent or
 * not a whole number. */
int proc_msg_ll(const char *msg, const char *key, long long *v);

/*
 * Several fields of msg at once.  fmt is a list of `key=%CONV` words, the
 * words that made the message (its tag left out), each CONV one of
 *   %s    a word into a char[PROC_WORD_MAX]   %Ns  into a char[N + 1]
 *   %d    int          %u    unsigned (32 bits)    %zu  size_t
 *   %lld  long long    %llu  unsigned long long    %llx the same, in hex
 *         (%d %u %zu %lld %llu: decimal, or hex with 0x)   %lg  double
 * and the arguments are pointers to them, in that order, as for scanf (the
 * compiler checks their types).  A field must be there and whole: a number
 * in range, no sign on an unsigned one, a word that fits.  Returns NULL,
 * or the word of fmt that failed (a pointer into fmt; the fields before it
 * are written): a missing or bad field, or a word of fmt that is not
 * `key=%CONV` (a bug in the caller).
 */
const char *proc_msg_scan(const char *msg, const char *fmt, ...) PROC_SCANF(2, 3);
const char *proc_msg_vscan(const char *msg, const char *fmt, va_list ap);

/* n bytes at p as 2n lowercase hex digits into out (2n + 1 bytes): binary
 * values in a message (a CUDA IPC handle).  Returns out. */
char *proc_hex(const void *p, size_t n, char *out);
/* Exactly 2n lowercase hex digits of s into the n bytes at p: 0, or -1
 * (another length, another character; p may be partly written). */
int proc_unhex(const char *s, void *p, size_t n);

/*
 * A series measured in a helper, as a message: `stats which=WHICH n=N
 * warmup= noisy= remeasured= too_short= cv_max= res= s=v1,v2,...` (seconds,
 * %.9g; as many samples as fit in one message, about 1,800).  proc_msg_stats
 * rebuilds it as series `name` (a static string; unit "s") with
 * lab_stats_from, so that its interval and too_short hold as for a series
 * measured here, with the helper's warmup, noisy, remeasured, cv_max and
 * too_short kept.  0, or -1 with why (a line) when msg is not the stats of
 * `which` or is garbled.
 */
int proc_msg_stats(const char *msg, const char *which, const char *name,
		   struct lab_stats *s, char *why, size_t len);

/* ------------------------------------------------------------------------ */
/* The lab's side: each of these stops the lab (lab_error) when p misbehaves */

/*
 * p broke the lab's setup: kill and reap it, show its kept output as
 * narrative, and stop the lab with lab_error naming what happened:
 * "helper 'ROLE' (pid N) WHY; exited with code 3; it printed: ...".
 */
LAB_NORETURN void proc_fail(struct lab *L, struct proc *p, const char *fmt, ...)
	LAB_PRINTF(3, 4);
/* proc_spawn_role of this program (lab_self_path) with extra and flags, or
 * stop the lab: lab_error_errno "cannot start helper 'ROLE' from 'PATH'". */
void proc_start_role(struct lab *L, struct proc *p, const char *role,
		     const char *const extra[], int flags);
/* Send a message (printf), with a descriptor when pass_fd >= 0. */
void proc_sendf(struct lab *L, struct proc *p, int pass_fd, const char *fmt, ...)
	LAB_PRINTF(4, 5);
/*
 * proc_sendf, then proc_expect of the answer `tag` within timeout_s: p's
 * answer, in a buffer of this module that the next proc_call reuses.
 */
const char *proc_call(struct lab *L, struct proc *p, int pass_fd, const char *tag,
		      double timeout_s, const char *fmt, ...) LAB_PRINTF(6, 7);
/* Wait up to timeout_s for the message `tag`: a timeout kills p, an early
 * exit or another message is reported with what p printed.  Returns buf. */
char *proc_expect(struct lab *L, struct proc *p, const char *tag, char *buf,
		  size_t len, double timeout_s);
/* An integer field of p's message (or report line). */
long long proc_field(struct lab *L, struct proc *p, const char *msg, const char *key);
/* A text field of p's message (or report line), copied into out. */
const char *proc_field_str(struct lab *L, struct proc *p, const char *msg,
			   const char *key, char *out, size_t len);
/* proc_msg_scan on p's message (or report line): a missing or bad field
 * stops the lab, naming it. */
void proc_scan(struct lab *L, struct proc *p, const char *msg, const char *fmt, ...)
	PROC_SCANF(4, 5);
/* Send "quit" and reap p within timeout_s; it must exit with code 0. */
void proc_finish(struct lab *L, struct proc *p, double timeout_s);

/*
 * For a helper whose death is a finding (an importer whose exporter was
 * killed): send cmd (NULL: nothing), then wait up to timeout_s for the
 * message `tag`.  When the send fails or the socket closes or breaks, the
 * helper is gone: it is reaped (SIGKILL after timeout_s), NULL comes back
 * and p->status says how it ended.  A timeout or another message stops the
 * lab as proc_expect does.  Returns buf, or NULL.
 */
char *proc_ask(struct lab *L, struct proc *p, const char *cmd, const char *tag,
	       char *buf, size_t len, double timeout_s);

/*
 * Give p timeout_s to end on its own (a helper that something done
 * elsewhere may have killed), keeping its output meanwhile.  Returns 0 once
 * it ended (its socket closed) and was reaped, waiting up to reap_s (then
 * SIGKILL; p->status says how it ended), or 1 when it is still there.  A
 * message from it stops the lab: it was not asked anything.
 */
int proc_linger(struct lab *L, struct proc *p, double timeout_s, double reap_s);

/*
 * Wait up to timeout_s for p's `stats which=WHICH` (role_send_stats) and
 * rebuild the series into s as `name` (proc_msg_stats); a garbled message
 * stops the lab.
 */
void proc_expect_stats(struct lab *L, struct proc *p, const char *which, const char *name,
		       struct lab_stats *s, double timeout_s);

/*
 * Run a reporting helper to its end: `self --role ROLE extra...` with its
 * stdout on a pipe (its stderr is the lab's), SIGKILL after timeout_s.  It
 * must exit with code 0; a first line "error TEXT" names what broke.
 * Returns its first line of stdout ('\n' stripped; "" if none), in p.
 */
const char *proc_run_role(struct lab *L, struct proc *p, const char *role,
			  const char *const extra[], double timeout_s);
/* proc_run_role with extra `--size BYTES --device D` (D: the lab's --device),
 * for a helper that works on a buffer of that size. */
const char *proc_run_role_sized(struct lab *L, struct proc *p, const char *role,
				uint64_t bytes, double timeout_s);
/* A report "skip REASON DETAIL" skips claim id with them: 1; else 0.  A
 * reason that is not one of lab.h's codes stops the lab. */
int proc_report_skip(struct lab *L, const char *id, const char *line);

/* ------------------------------------------------------------------------ */
/* The helper's side (in its role function, after proc_child_init)          */

struct role_io {
	int ctl; /* the socket to the lab */
	int fd;  /* descriptor that came with the last message, or -1 */
	char msg[PROC_MSG_MAX];
};

/* The lab's extra option that carries the socket (a lab with PROC_CTL
 * helpers lists it in its extra_opts). */
#define PROC_CTL_OPT \
	{ "ctl-fd", "N", "(helpers only) the socket to the lab that started this helper" }

/*
 * Open the socket named by --ctl-fd's value s: 0, or -1 when s is missing,
 * not a number >= 3, or not a SOCK_SEQPACKET socket (the helper was not
 * started by the lab).
 */
int role_io_open(struct role_io *io, const char *s);
/* Send a message to the lab; a lab that went away ends the helper (exit 3). */
void role_sendf(struct role_io *io, int pass_fd, const char *fmt, ...) LAB_PRINTF(3, 4);
/*
 * Wait for the next message; it must be `tag` (or "quit", which ends the
 * helper with 0, as does the lab closing its end); anything else ends it
 * with 3.  Returns io->msg; a passed descriptor is in io->fd.
 */
const char *role_expect(struct role_io *io, const char *tag);
/* Integer field of the lab's last message, or end the helper (exit 3). */
long long role_field(const struct role_io *io, const char *key);
/* proc_msg_scan on the lab's last message, or end the helper (exit 3). */
void role_scan(const struct role_io *io, const char *fmt, ...) PROC_SCANF(2, 3);
/* The hex field `key` of the lab's last message into the n bytes at p
 * (proc_unhex), or end the helper (exit 3). */
void role_field_hex(const struct role_io *io, const char *key, void *p, size_t n);
/* Send series s (measured here, in seconds) as `stats which=WHICH ...`. */
void role_send_stats(struct role_io *io, const char *which, const struct lab_stats *s);

/* ------------------------------------------------------------------------ */
/* A lab's helpers by name, and the plumbing self-test                       */

/* One helper of a lab: its --role name and its body (returns the exit code;
 * it starts after proc_child_init, with the socket open). */
struct proc_role {
	const char *name;
	int (*fn)(struct lab *L, struct role_io *io);
};

/* One reporting helper of a lab (proc_run_role): its --role name and its
 * body, which prints the one-line report and returns the exit code. */
struct proc_report_role {
	const char *name;
	int (*fn)(struct lab *L);
};

/*
 * spec.role of a lab whose helpers print a report: die with the lab
 * (proc_child_init: 127 if it is gone already), run the entry of roles
 * (terminated by { NULL, NULL }) named role, then flush stdout, so that the
 * report is out before exit handlers (CUDA's teardown) run.  An unknown
 * role: "lab-NN: --role 'ROLE': unknown role" on stderr, 2.  Returns the
 * helper's exit code.
 */
int proc_report_main(struct lab *L, const char *role, const struct proc_report_role *roles);

/*
 * spec.role of a lab whose helpers talk in messages (PROC_HELPER): open the
 * socket of --ctl-fd (none, or not a socket: a usage line on stderr, 2), die
 * with the lab (proc_child_init: 3 if it is gone already), then run the
 * entry of roles (terminated by { NULL, NULL }) named role, or the built-in
 * "echo" of proc_plumbing_test.  An unknown role: a line naming the known
 * ones, 2.  Returns the helper's exit code.
 */
int proc_role_main(struct lab *L, const char *role, const struct proc_role *roles);

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

/* 1 if mode is one of the self-test's: ok, hang, crash, exit, garbage. */
int proc_plumbing_mode_valid(const char *mode);

/*
 * For check_opts of a lab with PROC_CTL_OPT (and PROC_TIMEOUT_OPT,
 * PROC_PLUMBING_OPT): --child-timeout is whole seconds from 1 to 600,
 * --plumbing-test one of the modes, --ctl-fd for helpers only.  Returns 0,
 * or 2 after one line on stderr, as lab_usage_error writes it:
 *   lab-06: --ctl-fd '5': only helpers take it (the lab starts them itself) (see --help)
 */
int proc_check_opts(const struct lab *L);

/*
 * The self-test of this machinery, no GPU needed, when --plumbing-test MODE
 * is given (else it returns 0 at once): start this program's "echo" helper
 * (`--role echo --plumbing-test MODE`, PROC_HELPER), pass it a pipe with its
 * first message, check its answer and what it wrote into the pipe, make it
 * quit and reap it; each wait is proc_child_timeout at most.  Mode ok: a
 * note, every claim not yet decided skips (SKIP_UNSUPPORTED: only the
 * plumbing was tested), and it returns 1: the lab's run() is done.  hang,
 * crash, exit and garbage make the helper misbehave (wait forever, abort,
 * exit 3 early, send nonsense): that must end in lab_error quoting what it
 * printed, leaving no process behind.
 */
int proc_plumbing_test(struct lab *L);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_PROC_H */
