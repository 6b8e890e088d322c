/*
 * cleanup.h - what a process puts right however it ends: one chain of
 * cleanup actions, run at exit() and on the signals that end it (git's
 * sigchain.c and tempfile.c).
 *
 * The parts register their actions: the spawner kills and reaps its
 * children, tempfile_add's files are unlinked, changed settings are put
 * back, the lab's record says it was interrupted.  One handler, installed
 * once per signal, runs the actions of this process (the last registered
 * first, as atexit does), then hands the signal to the handler that was
 * there before, or to the default action: the process still dies by it.
 * An action registered by a process is never run by a copy of it made with
 * fork(); a signal the process ignores (a background job's SIGINT) stays
 * ignored.
 *
 * An action may run inside a signal handler, anywhere, inside malloc too:
 * with sig != 0 it calls only async-signal-safe functions (open, write,
 * unlink, kill, waitpid ...) on data made beforehand, and data it reads is
 * changed with the signals held (cleanup_hold).
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

/*
 * Run fn when `when` says, in this process; the handlers and the atexit
 * hook it needs are installed now.  Registering fn again adds to its
 * `when`.  0, or -1 with ENOSPC when CLEANUP_MAX actions are registered.
 */
int cleanup_push(cleanup_fn fn, int when);

/* write() all n bytes of buf to fd, again after EINTR: for actions (it is
 * async-signal-safe).  0, or -1 with errno. */
int cleanup_write(int fd, const void *buf, size_t n);

/* Hold off the stop signals (*old: the mask to restore) while changing
 * what an action reads; cleanup_release restores the mask. */
void cleanup_hold(sigset_t *old);
void cleanup_release(const sigset_t *old);

/* ------------------------------------------------------------------------ */
/* Temporary files                                                           */

/*
 * A file a lab leaves on disk while it runs (lab-10's test file, a
 * library's log) is unlinked at exit and on every signal above, crashes
 * too.  What no handler sees (SIGKILL, the kill after a timeout) the
 * runner removes: tempfile_add also appends the path, one a line, to the
 * list the runner names in DMALAB_TEMP_LIST, and the runner, once it has
 * reaped the lab, sweeps it (tempfile_sweep).  Only an absolute path
 * without "/../" and without a newline is listed (the runner may be root);
 * a list that cannot be written is no error (the lab's next run sweeps
 * what a killed one left).
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
/*
 * Remove every file the list names that is still there (never a folder; a
 * symbolic link itself), fn told of each, then the list.  The files
 * removed (0 also without a list), or -1 with errno when the list cannot
 * be read.
 */
int tempfile_sweep(const char *list, tempfile_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_CLEANUP_H */
