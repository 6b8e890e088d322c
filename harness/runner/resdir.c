/*
 * resdir.c - the results directory, before any lab runs: a place the run can
 * write (checked by making a file there, so a read-only mount, a full disk
 * or a path naming a file is one line now, not six "lab bugs" later), and a
 * lock so that two runs in one clone never read each other's per-lab files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"

/* A file can be made, written and removed in dir; else -1 with errno. */
static int dir_writable(const char *dir)
{
	char probe[PATH_MAX];
	ssize_t n;
	int fd, e;

	if (snprintf(probe, sizeof(probe), "%s/.dmalab-probe-XXXXXX", dir) >= (int)sizeof(probe)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(probe);
	if (fd < 0)
		return -1;
	n = write(fd, "probe\n", 6); /* a full disk fails here, not at mkstemp */
	e = n == 6 ? 0 : n < 0 ? errno : ENOSPC;
	if (close(fd) != 0 && !e)
		e = errno;
	unlink(probe);
	errno = e;
	return e ? -1 : 0;
}

/* The pid the lock file names (0 if none); for the message only. */
static long lock_holder(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? strtol(buf, NULL, 10) : 0;
}

int results_dir_claim(struct run_state *rs)
{
	const char *dir = rs->opt->results_dir;
	char path[PATH_MAX], pid[32];
	struct stat st;
	int fd, n;

	rs->lock_fd = -1;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		error("results directory '%s': %s", dir, stat(dir, &st) ? strerror(errno) :
		      "not a directory");
		return -1;
	}
	if (dir_writable(dir)) {
		error_errno("results directory '%s' cannot be written", dir);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/.dmalab-lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		error_errno("cannot open '%s'", path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		long holder = lock_holder(fd);

		if (holder > 0)
			error("results directory '%s' is in use by another dmalab run (pid %ld): "
			      "wait for it, or give this run its own (--results DIR, make "
			      "RESULTS=DIR)", dir, holder);
		else
			error("results directory '%s' is in use by another dmalab run: wait for "
			      "it, or give this run its own (--results DIR, make RESULTS=DIR)", dir);
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		error_errno("cannot write '%s'", path);
		close(fd);
		return -1;
	}
	rs->lock_fd = fd; /* held until exit; O_CLOEXEC: no lab inherits it */
	return 0;
}
