/*
 * savefile.c - a file written whole or not at all (savefile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "savefile.h"

/* The process's umask, which mkstemp's 0600 does not follow and fopen's file would. */
static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

FILE *savefile_open(struct savefile *s, const char *path)
{
	sigset_t held;
	int fd, err;

	s->f = NULL;
	s->path = path;
	if (snprintf(s->tmp, sizeof(s->tmp), "%s.XXXXXX", path) >= (int)sizeof(s->tmp)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* mkstemp picks the name as it makes the file: it is registered before a
	 * stop signal can be taken, not before it exists (cleanup.h's rule) */
	cleanup_hold(&held);
	fd = mkstemp(s->tmp);
	if (fd >= 0 && tempfile_add(s->tmp) < 0) {
		err = errno;
		close(fd);
		unlink(s->tmp);
		errno = err;
		fd = -1;
	}
	cleanup_release(&held);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, 0666 & ~current_umask()) == 0 && (s->f = fdopen(fd, "w")))
		return s->f;
	err = errno;
	close(fd);
	tempfile_remove(s->tmp);
	errno = err;
	return NULL;
}

int savefile_commit(struct savefile *s)
{
	/* a failed write's errno, as the write left it (best effort: stdio keeps none) */
	int write_err = ferror(s->f) ? errno : 0, ok = !ferror(s->f), err;

	errno = 0;
	ok &= fclose(s->f) == 0;
	s->f = NULL;
	if (ok && rename(s->tmp, s->path) == 0) {
		tempfile_forget(s->tmp);
		return 0;
	}
	err = write_err ? write_err : errno ? errno : EIO;
	tempfile_remove(s->tmp);
	errno = err;
	return -1;
}
