/*
 * sysctl_change.h - machine-wide settings a lab changes (/proc/sys/...,
 * /sys/kernel/mm/...), put back on every path the lab can end by.
 *
 * The old value is journaled before the new one is written.  The lab puts
 * it back itself when done, at exit() and on the stop signals (a cleanup
 * action of open, write, close and unlink only); what no code in the lab
 * can catch (SIGKILL) or trust (a crash) the runner replays from the
 * journal (DMALAB_RESTORE_FILE; alone: $TMPDIR/dmalab-lab-NN.restore).
 * The journal, one record a line:
 *   dmalab-restore 1 PID     the process that changes the settings
 *   set PATH OLD             written before PATH is first changed
 *   restored PATH            the lab has put PATH back itself
 * The runner acts on it as root, so paths must lie under /proc/sys/ or
 * /sys/kernel/mm/ without "..", blank or newline.  `root` prefixes each
 * path on disk (tests; NULL or "": live).  A choice list ("always [madvise]
 * never") reads as the bracketed word.  Errors: -1 with errno.
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

/* $DMALAB_RESTORE_FILE, else $TMPDIR/dmalab-lab-<lab_id>.restore.  Returns buf. */
const char *sysctl_journal_path(const char *lab_id, char *buf, size_t len);

/* 1 when path may be journaled, else 0. */
int sysctl_path_allowed(const char *path);

/* A setting's value now, one line, read by sysfs_read_str (EINVAL: not allowed
 * or several lines; ERANGE: longer than len, or a file of 4 KiB or more). */
int sysctl_read(const char *root, const char *path, char *buf, size_t len);

/*
 * Start journaling into `journal`, after replaying one a dead process left
 * there.  Returns the settings that replay put back, or -1 with errno:
 * EBUSY its process is alive, EALREADY one is open, EIO the replay failed,
 * EINVAL not a journal (left alone), ELOOP a symbolic link.
 */
int sysctl_change_open(const char *journal, const char *root, sysctl_replay_fn fn, void *ctx);

/*
 * Journal path's first old value, then write value.  -1 with errno:
 * ENOTCONN no journal, EINVAL, ENOSPC more than SYSCTL_MAX_CHANGES, or the
 * read's or write's.  A value that could not be written stays journaled.
 */
int sysctl_change_set(const char *path, const char *value);

/* Put every setting back, the last first (all tried); the journal goes when all
 * are back.  0, or -1 with the first failure's errno. */
int sysctl_change_restore(void);

/* Settings changed and not put back yet (0 without a journal). */
int sysctl_change_pending(void);

/*
 * Put back every "set" without its "restored", the last first, where it
 * differs; each reported to fn (may be NULL).  Returns the settings written,
 * or -1 with errno: EBUSY its process is alive, EINVAL not a journal, EIO.
 */
int sysctl_replay(const char *journal, const char *root, sysctl_replay_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_SYSCTL_CHANGE_H */
