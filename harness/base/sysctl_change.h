/*
 * sysctl_change.h - machine-wide settings a lab changes (a sysctl such as
 * /proc/sys/vm/nr_hugepages, a /sys/kernel/mm knob), put back on every path
 * the lab can end by.
 *
 * A lab that must change such a setting (lab-08 empties the hugetlb pool,
 * then reserves pages in it) first writes a journal: the setting's path and
 * its value before the change, before the new value is written.  Then:
 *
 *   - the lab puts every value back itself when it is done
 *     (sysctl_change_restore), at exit() on every path (lab_error and
 *     lab_skip exit too), and on the signals that stop it (an action of
 *     the cleanup chain, cleanup.h, that only calls open, write, close and
 *     unlink; then the lab dies by the same signal);
 *   - what no code in the lab can catch (SIGKILL, the kill after its
 *     timeout) or should not be trusted with (a crash: its memory may be
 *     corrupt) the runner puts back from the journal once the lab has
 *     ended, and says so (harness/runner/restore.c, sysctl_replay).
 *
 * The runner names each lab's journal in DMALAB_RESTORE_FILE.  A lab run on
 * its own uses $TMPDIR/dmalab-lab-NN.restore (TMPDIR unset: /tmp), and
 * sysctl_change_open replays a journal that an earlier run which died left
 * there.  A journal whose settings are all back is removed.
 *
 * The journal, one record a line:
 *   dmalab-restore 1 PID     the process that changes the settings
 *   set PATH OLD             written before PATH is first changed
 *   restored PATH            the lab has put PATH back itself
 *
 * Paths must lie under /proc/sys/ or /sys/kernel/mm/ and hold no "..",
 * blank or newline: a journal is data that the runner acts on, as root, so
 * it can name nothing else.  `root` prefixes each path on disk (the tests:
 * a directory holding proc/sys/vm/nr_hugepages); NULL or "" for the live
 * files.  A value is one line: a choice list such as THP's "always
 * [madvise] never" reads as the word in brackets, the one to write back.
 *
 * One journal per process, used from one thread.  Errors: -1 with errno.
 */
#ifndef DMALAB_SYSCTL_CHANGE_H
#define DMALAB_SYSCTL_CHANGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SYSCTL_RESTORE_ENV "DMALAB_RESTORE_FILE"
#define SYSCTL_MAX_CHANGES 8   /* settings one process may change */
#define SYSCTL_PATH_MAX 128    /* a journaled path, with its NUL */
#define SYSCTL_VALUE_MAX 128   /* a value, with its NUL */

/* A setting a replay found in a journal, and what it did with it. */
struct sysctl_replay_item {
	const char *path;            /* as journaled */
	const char *old;             /* the value to put back */
	char now[SYSCTL_VALUE_MAX];  /* its value when the replay read it; "" unread */
	int wrote;                   /* 1: it differed, and old was written */
	int err;                     /* 0, or the errno of the failed read or write
				      * (EINVAL: a path outside the allowed trees) */
};
typedef void (*sysctl_replay_fn)(void *ctx, const struct sysctl_replay_item *it);

/*
 * The journal this process should use: $DMALAB_RESTORE_FILE when set and
 * not empty, else $TMPDIR/dmalab-lab-<lab_id>.restore.  Returns buf.
 */
const char *sysctl_journal_path(const char *lab_id, char *buf, size_t len);

/*
 * 1 when path may be journaled (under /proc/sys/ or /sys/kernel/mm/, no
 * "..", blank or newline, shorter than SYSCTL_PATH_MAX), else 0.
 */
int sysctl_path_allowed(const char *path);

/*
 * A setting's value now: the file root + path, one line, newline stripped;
 * a choice list gives its bracketed word.  0, or -1 with errno (open's or
 * read's; EINVAL: path not allowed, or more than one line; ERANGE: longer
 * than len - 1).
 */
int sysctl_read(const char *root, const char *path, char *buf, size_t len);

/*
 * Start journaling into `journal`.  A journal already there whose process
 * is gone is replayed first (fn, ctx: as for sysctl_replay; fn may be
 * NULL), then replaced.  The cleanup action is registered then.  Returns the
 * number of settings that replay put back (>= 0), or -1 with errno: EBUSY
 * when the journal's process is alive, EALREADY when this process has a
 * journal open, EIO when the stale journal could not be put back in full
 * (fn saw which), EINVAL when a file that is not a journal (nor empty) is
 * there (it is left alone), or open's errno (the journal is never opened
 * through a symbolic link: ELOOP).
 */
int sysctl_change_open(const char *journal, const char *root, sysctl_replay_fn fn, void *ctx);

/*
 * Journal path's value (the first time it is changed: later changes keep the
 * first old value), then write value to it.  0, or -1 with errno: ENOTCONN
 * no journal open; EINVAL the path is not allowed or the value is not one
 * line shorter than SYSCTL_VALUE_MAX; ENOSPC more than SYSCTL_MAX_CHANGES
 * paths; else the errno of reading it, of the journal's write, or of writing
 * the value (EACCES, EROFS, EINVAL from the kernel...).  A value that could
 * not be written stays journaled: putting it back rewrites what is there.
 */
int sysctl_change_set(const char *path, const char *value);

/*
 * Put every journaled setting back, the last changed first, and journal
 * each as restored; the journal is removed when all are back.  The others
 * are still tried after one fails.  0, or -1 with the first failure's errno.
 */
int sysctl_change_restore(void);

/* Settings changed and not put back yet (0 without a journal). */
int sysctl_change_pending(void);

/*
 * Put back what a journal records and its process did not: every "set"
 * without its "restored", the last first, each written only where its value
 * differs from the old one; each reported to fn (may be NULL).  The journal
 * is removed when nothing failed.  Returns the number of settings written
 * (0 also when there is no journal), or -1 with errno: EBUSY the journal's
 * process is alive (nothing is touched); EINVAL not a journal (its first
 * line); EIO a setting could not be put back (fn saw its err); or the
 * open's errno.
 */
int sysctl_replay(const char *journal, const char *root, sysctl_replay_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_SYSCTL_CHANGE_H */
