/*
 * tempfiles.c - a lab's files on disk announced to the runner, and removed
 * by it after the lab ended (tempfiles.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tempfiles.h"

/* A path the list may hold: the runner unlinks it, maybe as root. */
static int listable(const char *path)
{
	return path[0] == '/' && !strstr(path, "/../") && !strchr(path, '\n') &&
	       strlen(path) < PATH_MAX;
}

int tempfile_announce(const char *path)
{
	const char *list = getenv(TEMPFILES_ENV);
	char line[PATH_MAX + 1];
	int fd, n, rc;

	if (!list || !*list)
		return 0;
	if (!listable(path))
		return errno = EINVAL, -1;
	fd = open(list, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	n = snprintf(line, sizeof(line), "%s\n", path);
	rc = write(fd, line, (size_t)n) == n ? 0 : -1; /* one write: the line is whole */
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/* Removes one listed file if it is still there; 1 removed, 0 not. */
static int sweep_one(const char *path, tempfile_fn fn, void *ctx)
{
	struct stat st;

	if (!listable(path) || lstat(path, &st) < 0 || S_ISDIR(st.st_mode))
		return 0;
	if (unlink(path) < 0) {
		if (fn)
			fn(ctx, path, errno);
		return 0;
	}
	if (fn)
		fn(ctx, path, 0);
	return 1;
}

int tempfile_sweep(const char *list, tempfile_fn fn, void *ctx)
{
	char line[PATH_MAX + 2];
	FILE *f = fopen(list, "re");
	int n = 0;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n += sweep_one(line, fn, ctx);
	}
	fclose(f);
	unlink(list);
	return n;
}
