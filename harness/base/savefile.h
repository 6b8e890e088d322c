/*
 * savefile.h - a file written whole or not at all, the one way the kit
 * writes its outputs (results.json, junit.xml, dmalab.prom, baselines, the
 * fleet and class pages, preflight's --json and --metrics): the text goes
 * to a temporary file of its own beside the file (mkstemp: never a fixed
 * FILE.tmp that a second writer, or a file of the user's, would share),
 * which replaces the file by rename once complete, so that a reader (a
 * browser, node_exporter's textfile collector, a CI job) never sees half of
 * one.  A failure leaves no temporary file and sets errno: the caller's
 * error line names the file it was given, never the temporary one; so does
 * a stop signal or crash between open and commit (the temporary file is on
 * cleanup.h's list, one of its TEMPFILE_MAX).  The file gets 0666 less the
 * umask, as fopen would give it.
 */
#ifndef DMALAB_SAVEFILE_H
#define DMALAB_SAVEFILE_H

#include <limits.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct savefile {
	FILE *f;                /* where the text goes */
	const char *path;       /* the file it becomes */
	char tmp[PATH_MAX + 8];
};

/* A temporary file beside path for s: its stream, or NULL with errno
 * (ENOENT: path's folder does not exist; ENOSPC: TEMPFILE_MAX are listed). */
FILE *savefile_open(struct savefile *s, const char *path);

/* Closes the stream and renames the temporary file onto path: 0, or -1 with
 * errno and the temporary file removed (also when a write to it failed). */
int savefile_commit(struct savefile *s);

#ifdef __cplusplus
}
#endif
#endif
