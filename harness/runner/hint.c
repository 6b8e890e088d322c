/*
 * hint.c - `dmalab hint NN` (make hint-NN): the next hint of a lab, from
 * answers/hints.md.  When the learner has a copy of the lab (--work, make
 * exercise-NN) with an exercise not done at its last try, the hints are that
 * exercise's ("## NN.name"), else the lab's ("## NN").  `hint NN.name` asks
 * for one exercise's (its lab's when it has none of its own; exit 2 when lab
 * NN has no such exercise).  How many of each
 * section's hints were shown is kept in <results>/hints.json
 * (dmalab-hints/1), rewritten atomically.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exercise.h"
#include "lang.h"
#include "learn.h"

struct hint_count {
	char lab[32];             /* a section's id: "03" or "03.fix-race" */
	int shown;
};

/* The counters of hints.json; a corrupt file counts as empty (it only
 * holds counters, nothing a learner typed). */
static int load_counts(const char *path, struct hint_count *c, int max)
{
	char err[300];
	struct json *doc = json_parse_file(path, err, sizeof(err));
	const struct json *shown, *m;
	int n = 0;

	if (!doc) {
		if (errno != ENOENT)
			warning(MSG("hint.ignoring", "ignoring %s"), err); /* err: "PATH: why" */
		return 0;
	}
	shown = json_get(doc, "shown");
	for (m = shown && shown->type == JSON_OBJ ? shown->child : NULL; m && n < max;
	     m = m->next) {
		if (m->type != JSON_NUM || strlen(m->key) >= sizeof(c[n].lab))
			continue;
		snprintf(c[n].lab, sizeof(c[n].lab), "%s", m->key);
		c[n++].shown = m->num > 0 && m->num < 1000 ? (int)m->num : 0;
	}
	json_free(doc);
	return n;
}

static int save_counts(const struct learn_opts *o, const char *path,
		       const struct hint_count *c, int n)
{
	struct json_writer w;
	int i;

	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-hints/1");
	jw_kobj(&w, "shown");
	for (i = 0; i < n; i++)
		jw_kint(&w, c[i].lab, c[i].shown);
	jw_obj_end(&w);
	jw_obj_end(&w);
	return learn_write_json(&w, o->results_dir, path, "write");
}

/* After "no hints": the labs that have some. */
static int by_id(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The ids that have hints, sorted (hints.md keeps them in its own order),
 * into buf, a space between two. */
static void hint_ids(const struct ans_set *s, char *buf, size_t len)
{
	const char *sorted[256];
	size_t n = 0;
	int i, k = 0;

	for (i = 0; i < s->nhints && k < 256; i++)
		sorted[k++] = s->hints[i].id;
	qsort(sorted, (size_t)k, sizeof(*sorted), by_id);
	buf[0] = '\0';
	for (i = 0; i < k && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", sorted[i]);
}

/* Hints of `id` shown so far, by the counters c[0..n). */
static int shown_of(const struct hint_count *c, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].lab, id))
			return c[i].shown;
	return 0;
}

/* The hints of the first exercise of the lab that the learner's copy has
 * not done yet (and hints.md has hints for) and whose hints are not all shown
 * (so an exercise this machine cannot grade does not hide the next one's);
 * if every such exercise's were shown, the first's; said; else NULL. */
static const struct ans_hint_lab *exercise_hints(const struct learn_ctx *lc,
						 const struct hint_count *c, int nc)
{
	const struct ans_hint_lab *h = NULL, *first = NULL, *x;
	struct ex_status *ex;
	int i, n, pick = -1, first_i = -1;

	if (!lc->opt->work)
		return NULL;
	n = ex_status_all("labs", lc->opt->work, lc->opt->lab, &ex);
	for (i = 0; i < n && !h; i++) {
		if (ex[i].state == EX_DONE || ex[i].state == EX_NOT_STARTED ||
		    !(x = ans_find_hints(&lc->ans, ex[i].id)))
			continue;
		if (!first)
			first = x, first_i = i;
		if (lc->opt->reset || shown_of(c, nc, x->id) < x->n)
			h = x, pick = i;
	}
	if (!h)
		h = first, pick = first_i;
	if (h) {
		printf(MSG("hint.state", "exercise %s is %s in your copy (make try-%s):"),
		       ex[pick].id, ex_state_text(ex[pick].state), ex[pick].lab);
		putchar('\n');
	}
	free(ex);
	return h;
}

/* 1 when lab NN has exercise NN.name (hint NN.name), else 0 with the lab's
 * exercises, a space between two, in ids ("none" when it has none). */
static int exercise_exists(const struct learn_ctx *lc, char *ids, size_t len)
{
	struct ex_status *ex;
	int n = ex_status_all("labs", lc->opt->work ? lc->opt->work : "work", lc->opt->lab, &ex);
	int found = 0;
	size_t used = 0;

	snprintf(ids, len, "%s", n > 0 ? "" : "none");
	for (int i = 0; i < n; i++) {
		found |= !strcmp(ex[i].id, lc->opt->exercise);
		if (used < len)
			used += (size_t)snprintf(ids + used, len - used, "%s%s", i ? " " : "",
						 ex[i].id);
	}
	free(ex);
	return found;
}

int cmd_hint(struct learn_ctx *lc)
{
	const struct ans_hint_lab *h;
	struct hint_count c[64];
	char path[PATH_MAX + 16], name[48];
	struct stat st;
	int n, i, k;

	if (lc->opt->work && (stat(lc->opt->work, &st) || !S_ISDIR(st.st_mode))) {
		error(MSG("hint.no-work", "no folder '%s' (--work): make exercise-%s writes your "
			  "copy there"), lc->opt->work, lc->opt->lab); /* as try refuses it */
		return 2;
	}
	snprintf(path, sizeof(path), "%s/hints.json", lc->opt->results_dir);
	n = load_counts(path, c, 63);
	if (lc->opt->exercise) { /* hint NN.name: that exercise's, else its lab's */
		char ids[512];

		if (!exercise_exists(lc, ids, sizeof(ids))) {
			error(MSG("hint.no-exercise", "no exercise '%s' in lab-%s; its exercises: "
				  "%s"), lc->opt->exercise, lc->opt->lab, ids);
			return 2;
		}
		if (!(h = ans_find_hints(&lc->ans, lc->opt->exercise))) /* none of its own */
			h = ans_find_hints(&lc->ans, lc->opt->lab);
	} else if (!(h = exercise_hints(lc, c, n))) {
		h = ans_find_hints(&lc->ans, lc->opt->lab);
	}
	if (!h) {
		char ids[2048];

		hint_ids(&lc->ans, ids, sizeof(ids));
		error(MSG("hint.none", "lab-%s has no hints in '%s/hints.md'; hints exist for: %s"),
		      lc->opt->lab, lc->opt->answers_dir, ids);
		return 2;
	}
	snprintf(name, sizeof(name),
		 strchr(h->id, '.') ? MSG("hint.exercise", "exercise %s") : "lab-%s", h->id);
	for (i = 0; i < n && strcmp(c[i].lab, h->id); i++)
		;
	if (i == n) {
		snprintf(c[n].lab, sizeof(c[n].lab), "%s", h->id);
		c[n++].shown = 0;
	}
	if (lc->opt->reset)
		c[i].shown = 0;
	if (c[i].shown >= h->n) {
		printf(MSG("hint.all-shown", "All %d hints of %s were shown (--reset, make "
			   "hint-%s RESET=1, starts over):"), h->n, name, h->id);
		putchar('\n');
		for (k = 0; k < h->n; k++)
			printf("  %d. %s\n", k + 1, h->hint[lc->opt->lang][k]);
		return 0;
	}
	k = c[i].shown++;
	printf(MSG("hint.one", "%s hint %d of %d: %s"), name, k + 1, h->n,
	       h->hint[lc->opt->lang][k]);
	putchar('\n');
	return save_counts(lc->opt, path, c, n) ? 1 : 0;
}
