/*
 * resload.c - a results.json (PROTOCOL.md 4) read back into the runner's
 * lab entries and claims, so that grade and quiz print verdicts exactly
 * the way `dmalab check` does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

static int load_claims(struct lab_entry *lab, const struct json *claims)
{
	const struct json *c;

	for (c = claims && claims->type == JSON_ARR ? claims->child : NULL; c; c = c->next) {
		struct claim *r;

		if (c->type != JSON_OBJ || !json_get_str(c, "id", NULL))
			return -1;
		r = lab_claim(lab, json_get_str(c, "id", NULL));
		if (!r)
			return -1;
		claim_from_json(r, c);
	}
	return 0;
}

static void load_outcome(struct lab_entry *lab, const struct json *o)
{
	const struct json *skip = json_get(o, "skip"), *error = json_get(o, "error");

	lab->status = status_parse(json_get_str(o, "status", "not_run"));
	if (lab->status == ST_COUNT)
		lab->status = ST_NOT_RUN; /* a word of no status: as if it never ran */
	lab->title = json_get_str(o, "title", "");
	snprintf(lab->skip_reason, sizeof(lab->skip_reason), "%s",
		 json_get_str(skip, "reason", ""));
	snprintf(lab->skip_detail, sizeof(lab->skip_detail), "%s",
		 json_get_str(skip, "detail", ""));
	lab->error_kind = json_get_str(error, "kind", NULL);
	snprintf(lab->error_msg, sizeof(lab->error_msg), "%s",
		 json_get_str(error, "message", ""));
	lab->exit_code = -1;
}

static int load_labs(struct learn_results *r, const struct json *labs)
{
	const struct json *o;
	int i = 0;

	r->labs = calloc(labs->count + 1, sizeof(*r->labs));
	if (!r->labs)
		return -1;
	for (o = labs->child; o; o = o->next) {
		struct lab_entry *lab = &r->labs[i];

		if (o->type != JSON_OBJ || !json_get_str(o, "id", NULL))
			return -1;
		snprintf(lab->id, sizeof(lab->id), "%s", json_get_str(o, "id", ""));
		load_outcome(lab, o);
		r->nlabs = ++i;
		if (load_claims(lab, json_get(o, "claims")))
			return -1;
	}
	return 0;
}

/* A run that never finished writing its file ("running": the runner died,
 * or its last save failed before the file could be marked; "incomplete")
 * holds part of a run, not a run: 1 and why in err. */
static int unfinished(const struct json *doc, const char *path, char *err, size_t errlen)
{
	const char *status = json_get_str(doc, "status", "");

	if (strcmp(status, "running") && strcmp(status, "incomplete"))
		return 0;
	snprintf(err, errlen, "%s: an unfinished run (status '%s'): its runner stopped or could "
		 "not save it; run the labs again", path, status);
	return 1;
}

int results_load(const char *path, struct learn_results *r, char *err, size_t errlen)
{
	const struct json *labs;
	char why[400];

	memset(r, 0, sizeof(*r));
	r->doc = json_parse_file(path, why, sizeof(why));
	if (!r->doc) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	labs = json_get(r->doc, "labs");
	if (strcmp(json_get_str(r->doc, "schema", ""), "dmalab-results/1") || !labs ||
	    labs->type != JSON_ARR) {
		snprintf(err, errlen, "%s: not a dmalab-results/1 document", path);
		results_unload(r);
		errno = EINVAL;
		return -1;
	}
	if (unfinished(r->doc, path, err, errlen)) {
		results_unload(r);
		errno = EINVAL;
		return -1;
	}
	r->started = json_get_str(r->doc, "started", "");
	if (load_labs(r, labs)) {
		snprintf(err, errlen, "%s: a lab or claim without an id", path);
		results_unload(r);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static void lab_claims_free(struct lab_entry *lab)
{
	int k;

	for (k = 0; k < lab->nclaims; k++)
		claim_free(&lab->claims[k]);
	free(lab->claims);
	lab->claims = NULL;
	lab->nclaims = 0;
}

void results_unload(struct learn_results *r)
{
	int i;

	for (i = 0; i < r->nlabs; i++)
		lab_claims_free(&r->labs[i]);
	free(r->labs);
	json_free(r->doc); /* titles and statuses point into it */
	for (i = 0; i < r->nmore; i++)
		json_free(r->more[i]);
	memset(r, 0, sizeof(*r));
}

static int has_lab(const struct learn_results *r, const char *id)
{
	int i;

	for (i = 0; i < r->nlabs; i++)
		if (!strcmp(r->labs[i].id, id))
			return 1;
	return 0;
}

/* Labs of `more` that r lacks move into r; r keeps more's document alive,
 * since their titles point into it.  `more` is consumed. */
void results_merge(struct learn_results *r, struct learn_results *more)
{
	struct lab_entry *labs;
	int i;

	labs = realloc(r->labs, (size_t)(r->nlabs + more->nlabs + 1) * sizeof(*labs));
	if (!labs || r->nmore == LEARN_MAX_MORE) {
		r->labs = labs ? labs : r->labs;
		results_unload(more);
		return;
	}
	r->labs = labs;
	for (i = 0; i < more->nlabs; i++) {
		if (has_lab(r, more->labs[i].id))
			lab_claims_free(&more->labs[i]);
		else
			r->labs[r->nlabs++] = more->labs[i];
	}
	r->more[r->nmore++] = more->doc;
	free(more->labs);
	memset(more, 0, sizeof(*more));
}

const struct claim *results_claim(const struct learn_results *r, const char *id,
				      const struct lab_entry **lab)
{
	int i, k;

	for (i = 0; i < r->nlabs; i++)
		for (k = 0; k < r->labs[i].nclaims; k++)
			if (!strcmp(r->labs[i].claims[k].id, id)) {
				if (lab)
					*lab = &r->labs[i];
				return &r->labs[i].claims[k];
			}
	return NULL;
}
