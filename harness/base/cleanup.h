/*
 * cleanup.h - one chain of cleanup actions, run at exit() and on the
 * signals that end a process (git's sigchain.c and tempfile.c).  One
 * handler per signal runs this process's actions, the last registered
 * first, then hands the signal on: the process still dies by it.  A forked
 * copy never runs them; an ignored signal stays ignored.  An action may run
 * inside a signal handler (inside malloc too): with sig != 0 it calls only
 * async-signal-safe functions on data changed with the signals held.
 */
#ifndef DMALAB_CLEANUP_H
#define DMALAB_CLEANUP_H

#include <signal.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* When an action runs (cleanup_push's when). */
#define CLEANUP_AT_EXIT 0x1  /* exit(): the normal end, lab_error, lab_skip */
/* SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ: stopped */
#define CLEANUP_ON_STOP 0x2
/* SIGABRT, SIGSEGV, SIGBUS: a crash (memory may be corrupt) */
#define CLEANUP_ON_CRASH 0x4

#define CLEANUP_MAX 16 /* actions per process */

/* An action: sig is the signal, or 0 at exit. */
typedef void (*cleanup_fn)(int sig);

/* Run fn when `when` says, in this process (again: adds to its `when`).  0, or
 * -1 with ENOSPC. */
int cleanup_push(cleanup_fn fn, int when);

/*
 * For a program that finishes its own work when stopped (the runner writes
 * its results, a quiz saves its progress): the stop signals in sigs[0..n)
 * no longer end the process, their number goes to *flag and a read in
 * progress returns EINTR, even where they were ignored (a job started in the
 * background).  flag NULL gives them back to the chain.
 */
void cleanup_catch(volatile sig_atomic_t *flag, const int *sigs, int n);

/*
 * The stop signals in sigs[0..n) pass this process by: no action runs, no
 * flag is set, a call in progress returns EINTR (or EFBIG: a write past
 * RLIMIT_FSIZE).  For a wait on a child in our process group that stops
 * itself on them (a terminal's Ctrl-C reaches both).  n 0 ends that.
 */
void cleanup_let_pass(const int *sigs, int n);

/* write() all n bytes of buf to fd, again after EINTR: for actions (it is
 * async-signal-safe).  0, or -1 with errno. */
int cleanup_write(int fd, const void *buf, size_t n);

/* Hold off the stop signals (*old: the mask to restore) while changing
 * what an action reads; cleanup_release restores the mask. */
void cleanup_hold(sigset_t *old);
void cleanup_release(const sigset_t *old);

/* ---- Temporary files ---- */

/*
 * A file a lab leaves on disk while it runs is unlinked at exit and on
 * every signal above.  What no handler sees (SIGKILL) the runner sweeps
 * from the list DMALAB_TEMP_LIST names, which tempfile_add appends to
 * (absolute paths without "/../" or newline only: the runner may be root).
 */
#define TEMPFILES_ENV "DMALAB_TEMP_LIST"
#define TEMPFILE_MAX 4 /* files one process may have registered at once */

/* Register path before creating the file, so that no moment exists when it
 * is there and not registered.  0, or -1 with errno (ENAMETOOLONG; ENOSPC
 * when TEMPFILE_MAX are registered). */
int tempfile_add(const char *path);
/* Unlink path now (ENOENT is no error) and forget it.  0, or -1 with errno. */
int tempfile_remove(const char *path);
/* Forget path without unlinking it (the file was not made: not ours). */
void tempfile_forget(const char *path);

/* Told of each listed file tempfile_sweep found; err 0 when it was removed. */
typedef void (*tempfile_fn)(void *ctx, const char *path, int err);
/* Remove every file the list names (never a folder), then the list: the files
 * removed, or -1 with errno. */
int tempfile_sweep(const char *list, tempfile_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_CLEANUP_H */
