/*
 * sysfs.h - the small text files of /sys and /proc/sys: one value, a line
 * or a kernel choice list ("always [madvise] never"), read whole.  The one
 * reader of such files in the kit: the facts' readers and the settings a
 * lab changes (sysctl_change.h) both read them here.
 */
#ifndef DMALAB_SYSFS_H
#define DMALAB_SYSFS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The whole file at path into buf (len bytes), NUL-ended, its trailing
 * newlines and blanks cut.  A file of len bytes or more is refused, never
 * cut: -1 with ERANGE.  Else 0, or -1 with open's or read's errno (ENOENT:
 * no such file).
 */
int sysfs_read_str(const char *path, char *buf, size_t len);

/*
 * The chosen word of a choice list: in "always [madvise] never", "madvise",
 * NUL-ended in place (text is cut at its ']').  NULL where text has no
 * "[...]": then text is as it was.  "[]" gives "".
 */
char *sysfs_choice(char *text);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_SYSFS_H */
