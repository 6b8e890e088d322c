/*
 * restore.c - what a lab changed for the whole machine and could not put
 * back itself (SIGKILL, a crash, the kill after its timeout), put back from
 * its journal once it has ended (restore.h, sysctl_change.h); and the files
 * it announced (cleanup.h) and could not remove, removed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "restore.h"
#include "sysctl_change.h"
#include "cleanup.h"

struct replay_ctx {
	const struct lab_entry *lab;
	const char *when; /* "" or " (left by an earlier run)" */
	FILE *log;
};

/* The lab's file of kind ext in the results folder, absolute: the lab may
 * run from anywhere. */
static void lab_file(const struct run_state *rs, const struct lab_entry *lab, const char *ext,
		     char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (!realpath(rs->opt->results_dir, dir))
		snprintf(dir, sizeof(dir), "%s", rs->opt->results_dir);
	snprintf(buf, len, "%s/lab-%s.%s", dir, lab->id, ext);
}

/* One setting of the replay: said where it was written or could not be. */
static void said(void *arg, const struct sysctl_replay_item *it)
{
	const struct replay_ctx *c = arg;
	char line[600];

	if (it->err)
		snprintf(line, sizeof(line), "lab-%s changed %s%s and it could not be put back "
			 "to '%s': %s", c->lab->id, it->path, c->when, it->old, strerror(it->err));
	else if (it->wrote)
		snprintf(line, sizeof(line), "lab-%s left %s at '%s'%s: put back '%s' from its "
			 "journal", c->lab->id, it->path, it->now, c->when, it->old);
	else
		snprintf(line, sizeof(line), "lab-%s's journal names %s%s: already back at '%s'",
			 c->lab->id, it->path, c->when, it->old);
	if (it->err || it->wrote)
		warning("%s", line);
	if (c->log)
		fprintf(c->log, "# dmalab: %s\n", line);
}

/* One file the lab announced and left: said where it was removed or not. */
static void file_said(void *arg, const char *path, int err)
{
	const struct replay_ctx *c = arg;
	char line[PATH_MAX + 200];

	if (err)
		snprintf(line, sizeof(line), "lab-%s left %s%s and it could not be removed: %s",
			 c->lab->id, path, c->when, strerror(err));
	else
		snprintf(line, sizeof(line), "lab-%s left %s%s: removed", c->lab->id, path,
			 c->when);
	warning("%s", line);
	if (c->log)
		fprintf(c->log, "# dmalab: %s\n", line);
}

/* The lab's journal replayed, then the files it announced and left removed;
 * when_set and when_file say when it left them ("": this run). */
static void put_back(struct run_state *rs, struct lab_entry *lab, const char *when_set,
		     const char *when_file, FILE *log)
{
	struct replay_ctx c = { lab, when_set, log };
	char path[PATH_MAX + 32];

	lab_file(rs, lab, "restore", path, sizeof(path));
	if (sysctl_replay(path, NULL, said, &c) < 0 && errno != EIO)
		warning("lab-%s's journal '%s' could not be replayed: %s", lab->id, path,
			strerror(errno));
	c.when = when_file;
	lab_file(rs, lab, "tempfiles", path, sizeof(path));
	if (tempfile_sweep(path, file_said, &c) < 0)
		warning("lab-%s's list of files '%s' could not be read: %s", lab->id, path,
			strerror(errno));
}

void restore_before_lab(struct run_state *rs, struct lab_entry *lab)
{
	char path[PATH_MAX + 32];

	put_back(rs, lab, " (left by an earlier run)", " (in an earlier run)", NULL);
	lab_file(rs, lab, "restore", path, sizeof(path));
	setenv(SYSCTL_RESTORE_ENV, path, 1);
	lab_file(rs, lab, "tempfiles", path, sizeof(path));
	setenv(TEMPFILES_ENV, path, 1);
}

void restore_after_lab(struct run_state *rs, struct lab_entry *lab, FILE *log)
{
	unsetenv(SYSCTL_RESTORE_ENV);
	unsetenv(TEMPFILES_ENV);
	put_back(rs, lab, "", "", log);
}
