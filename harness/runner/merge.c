/*
 * merge.c - `dmalab run NN` updates results.json rather than replacing it
 * (PROTOCOL.md 4): each lab it ran replaces its entry, the other labs of
 * the earlier file are kept as they were written, and the questions and
 * totals are counted again over all of them.  `check` writes a whole file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "learn.h"

/* Reads the earlier results.json if there is one.  One that cannot be used
 * (unreadable, not JSON, another schema) is replaced: said in one line. */
void results_keep_load(struct run_state *rs)
{
	char path[PATH_MAX + 16], err[600];
	struct learn_results *prev;
	struct stat st;

	snprintf(path, sizeof(path), "%s/results.json", rs->opt->results_dir);
	if (stat(path, &st) && errno == ENOENT)
		return;
	prev = calloc(1, sizeof(*prev));
	if (!prev) {
		warning("%s: %s: writing a fresh one", path, strerror(ENOMEM));
		return;
	}
	if (results_load(path, prev, err, sizeof(err))) {
		warning("%s: writing a fresh one with this run's labs", err);
		free(prev);
		return;
	}
	rs->kept = prev;
}

void results_keep_free(struct run_state *rs)
{
	if (!rs->kept)
		return;
	results_unload(rs->kept);
	free(rs->kept);
	rs->kept = NULL;
}

/* Not reached yet, or never (the run was stopped): the earlier entry stays. */
static int lab_ran(const struct lab_entry *lab)
{
	return lab && lab->status != ST_PENDING && lab->status != ST_NOT_RUN;
}

static const struct lab_entry *lab_by_id(const struct lab_entry *labs, int n,
					 const char *id)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(labs[i].id, id))
			return &labs[i];
	return NULL;
}

static int by_lab_id(const void *a, const void *b)
{
	const struct file_lab *x = a, *y = b;

	return strcmp(x->lab->id, y->lab->id);
}

/* The earlier file's labs that no lab of this run replaces, appended to v. */
static int add_kept(const struct run_state *rs, struct file_lab *v, int n)
{
	const struct learn_results *prev = rs->kept;
	const struct json *o = json_get(prev->doc, "labs")->child;
	int i;

	/* results_load read the labs array in order, one entry per object */
	for (i = 0; i < prev->nlabs; i++, o = o->next) {
		if (lab_ran(lab_by_id(rs->labs, rs->nlabs, prev->labs[i].id)))
			continue;
		v[n].lab = &prev->labs[i];
		v[n++].kept = o;
	}
	return n;
}

int results_file_labs(const struct run_state *rs, struct file_lab **out)
{
	const struct learn_results *prev = rs->kept;
	int i, n = 0, nprev = prev ? prev->nlabs : 0;
	struct file_lab *v = calloc((size_t)(rs->nlabs + nprev) + 1, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < rs->nlabs; i++)
		if (!prev || lab_ran(&rs->labs[i]) ||
		    !lab_by_id(prev->labs, prev->nlabs, rs->labs[i].id))
			v[n++].lab = &rs->labs[i];
	if (prev) {
		n = add_kept(rs, v, n);
		qsort(v, (size_t)n, sizeof(*v), by_lab_id);
	}
	*out = v;
	return n;
}
