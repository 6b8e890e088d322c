/*
 * proc.h - child processes: start one, read its output, time it out, kill
 * it and reap it, on every path.  The runner starts each lab with it, a lab
 * its helpers (helper.h).
 *
 * posix_spawn, never a bare fork(): a lab may already hold a CUDA context,
 * and a forked copy of such a process is not usable.  A started child is in
 * a registry until reaped; exit() and the stop signals kill and reap what
 * is left (cleanup.h), unless PROC_OWN_SIGNALS (the runner stops its labs
 * through proc_opts.stop).  A helper dies with its parent
 * (proc_child_init), so that even a SIGKILL of the lab leaves nothing.  A
 * PROC_GROUP child is killed as a group, and what is left of the group when
 * its leader exits is killed and reaped too.  A helper may get a
 * SOCK_SEQPACKET socket as PROC_CTL_FD.  Times are seconds (monotonic).
 */
#ifndef DMALAB_PROC_H
#define DMALAB_PROC_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROC_MSG_MAX 32768   /* bytes of one message, NUL included */
#define PROC_OUT_KEEP 2000   /* bytes of a child's output kept (the tail) */
#define PROC_LINE_MAX 8192   /* longer output lines are handed on in pieces */
#define PROC_MAX 16          /* children alive at once, per process */
#define PROC_CTL_FD 3        /* a helper's end of the message socket */

/* proc_opts.flags (and proc_spawn_role's flags) */
#define PROC_GROUP       0x01 /* own process group: kills reach the group */
#define PROC_OUT_PIPE    0x02 /* stdout to a pipe read by us (else ours) */
#define PROC_ERR_PIPE    0x04 /* stderr to a second pipe (else ours) */
#define PROC_MERGE_ERR   0x08 /* stderr into the stdout pipe (with OUT_PIPE) */
#define PROC_CTL         0x10 /* a message socket; roles only: PROC_CTL_FD */
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
	int reaped;        /* 1 once waited for: status is valid */
	int status;        /* wait status (WIFEXITED, WTERMSIG ...) */
	int exec_errno;    /* the program could not be started (ENOENT ...) */
	int timed_out;     /* proc_run: stopped at its deadline */
	int aborted;       /* proc_run: stopped because *stop was set */
	int leftovers;     /* PROC_GROUP: the group outlived its leader (killed) */
	double start;      /* when it was started */
	double duration_s; /* start to the leader's exit (proc_run) */
	struct proc_stream out, err;
	void *ctx;
	FILE *log;
	const volatile sig_atomic_t *stop;
	size_t outlen;     /* bytes in outbuf */
	int out_cut;       /* 1 if the start of the output was dropped */
	char outbuf[PROC_OUT_KEEP + 1]; /* the tail of everything piped */
};

/*
 * Start argv[0] (a path: no PATH search), stdin /dev/null, signals at their
 * defaults, stdout and stderr as o->flags say (o may be NULL).  0, or -1
 * with errno (p->exec_errno when the program could not be run).
 */
int proc_spawn(struct proc *p, char *const argv[], const struct proc_opts *o);

/* Start `self --role ROLE extra...` (self without a '/': /proc/self/exe). */
int proc_spawn_role(struct proc *p, const char *self, const char *role,
		    const char *const extra[], int flags);

/*
 * Wait for p to end, reading its output.  timeout_s after its start (<= 0:
 * none), or once *stop is set, SIGTERM, then SIGKILL after grace_s.
 * Returns 0 if it ended on its own, 1 if it was stopped.
 */
int proc_run(struct proc *p, double timeout_s, double grace_s);

/* Results of proc_recv. */
#define PROC_RECV_MSG 1      /* a message in buf */
#define PROC_RECV_CLOSED 0   /* the child closed its end (it exited) */
#define PROC_RECV_TIMEOUT (-1)
#define PROC_RECV_ERROR (-2) /* errno */

/* Wait up to timeout_s (x proc_timeout_mul) for a message from p; *fd: -1 none. */
int proc_recv(struct proc *p, char *buf, size_t len, int *fd, double timeout_s);
/* DMALAB_TIMEOUT_MUL (0.1 to 1000, else 1), as the runner's: a lab under a slow
 * tool (compute-sanitizer, valgrind) must not kill its helpers. */
double proc_timeout_mul(void);

/* Wait up to timeout_s for p to exit, then SIGKILL it: 1 on its own, 0 killed. */
int proc_reap(struct proc *p, double timeout_s);

/* SIGKILL and reap every child still alive.  Async-signal-safe; also run
 * at exit and on the stop signals (see the top of this file). */
void proc_kill_all(void);

/* "exited with code 3", "killed by SIGSEGV (11)", "still running", "not
 * started" or "could not start: No such file or directory". */
const char *proc_status_text(const struct proc *p, char *buf, size_t len);
/* "SIGKILL", or "signal 40" for one without a name here (static buffer). */
const char *proc_signal_name(int sig);
/* The last max bytes of p's kept output on one line ("a | b"), or
 * "(nothing)"; control characters become '?'. */
const char *proc_output_line(const struct proc *p, char *buf, size_t len, size_t max);

/* First thing in a helper: die with the parent; -1 when it is gone already. */
int proc_child_init(void);

/* Send one message, with a descriptor when pass_fd >= 0.  0, or -1 + errno
 * (EPIPE or ECONNRESET: the peer is gone; never SIGPIPE). */
int proc_msg_send(int sock, int pass_fd, const char *text);
/* Receive one message (*fd: -1 none): its length, 0 peer closed, -1 error. */
ssize_t proc_msg_recv(int sock, char *buf, size_t len, int *fd);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_PROC_H */
