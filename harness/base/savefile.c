/*
 * savefile.c - a file written whole or not at all (savefile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "savefile.h"

FILE *savefile_open(struct savefile *s, const char *path)
{
	int fd, err;

	s->f = NULL;
	s->path = path;
	if (snprintf(s->tmp, sizeof(s->tmp), "%s.XXXXXX", path) >= (int)sizeof(s->tmp)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(s->tmp);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, 0644) == 0 && (s->f = fdopen(fd, "w")))
		return s->f;
	err = errno;
	close(fd);
	unlink(s->tmp);
	errno = err;
	return NULL;
}

int savefile_commit(struct savefile *s)
{
	int ok, err;

	errno = 0;
	ok = !ferror(s->f);
	ok &= fclose(s->f) == 0;
	s->f = NULL;
	if (ok && rename(s->tmp, s->path) == 0)
		return 0;
	err = errno ? errno : EIO;
	unlink(s->tmp);
	errno = err;
	return -1;
}
