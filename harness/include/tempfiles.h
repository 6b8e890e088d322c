/*
 * tempfiles.h - the files a lab leaves on disk while it runs (lab-10's test
 * file, a library's log), announced to the runner so that they go even
 * when the lab cannot remove them itself.
 *
 * A lab removes its own files on every path it can (labs/10-storage/storage.h:
 * at exit and on the signals it can catch).  What no handler sees, SIGKILL
 * (and the kill after a timeout), leaves them behind.  So, before making such a file, the
 * lab appends its path to the list the runner names in DMALAB_TEMP_LIST,
 * one path a line; the runner, once it has reaped the lab and its group,
 * removes each listed file still there, says so, and removes the list
 * (harness/runner/restore.c).  A lab run alone has no list: its next run
 * sweeps what a killed one left (storage_sweep_stale).
 *
 * The runner acts on the list, so it removes only what a list can safely
 * name: absolute paths without "/../", never a folder (a symbolic link is
 * removed, not what it points to).  Errors: -1 with errno.
 */
#ifndef DMALAB_TEMPFILES_H
#define DMALAB_TEMPFILES_H

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPFILES_ENV "DMALAB_TEMP_LIST"

/* Append path to $DMALAB_TEMP_LIST (nothing when unset or empty).  0, or -1
 * with errno (EINVAL: not absolute, or it holds "/../" or a newline). */
int tempfile_announce(const char *path);

/* Told of each listed file tempfile_sweep found; err 0 when it was removed. */
typedef void (*tempfile_fn)(void *ctx, const char *path, int err);
/*
 * Remove every file the list names that is still there (fn told of each),
 * then the list.  The files removed (0 also without a list), or -1 with
 * errno when the list cannot be read.
 */
int tempfile_sweep(const char *list, tempfile_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_TEMPFILES_H */
