/*
 * results_save.c - the run's files, rewritten after every lab (run.c) so
 * that a run that dies still leaves them: results.json (schema
 * dmalab-results/1, PROTOCOL.md 4), written atomically (temp file + rename)
 * from results.c's model with each lab's predictions and counters and, with
 * --work, the learner's exercises; then junit.xml and, at the end,
 * dmalab.prom.  results.c reads the file back.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "exercise.h"
#include "runner.h"

/* {"planned": N, "pass": N, "fail": N, ["known_erratum": N,] "skip": N, ...} */
static void write_counts(struct json_writer *w, const char *key, int planned,
			 const int *by_status, const int *erratum)
{
	jw_key(w, key);
	jw_obj_begin(w);
	jw_kint(w, "planned", planned);
	for (enum status s = ST_PASS; s <= ST_NOT_RUN; s++) {
		jw_kint(w, status_words[s], by_status[s]);
		if (s == ST_FAIL && erratum)
			jw_kint(w, "known_erratum", *erratum);
	}
	jw_obj_end(w);
}

static void write_totals(const struct totals *t, struct json_writer *w)
{
	jw_key(w, "totals");
	jw_obj_begin(w);
	write_counts(w, "labs", t->labs, t->lab, NULL);
	write_counts(w, "claims", t->claims, t->claim, &t->erratum);
	jw_obj_end(w);
}

/* ------------------------------------------------------------------------ */
/* Questions                                                                 */

/* A question of the file, from its claims: confirmed every one passed;
 * contradicted one failed; partial some passed, the rest undecided;
 * unverified none decided. */
static void write_question(const struct file_lab *v, int n, const char *id, struct json_writer *w)
{
	int claims = 0, pass = 0, fail = 0, known = 0;
	enum question_status st;

	jw_obj_begin(w);
	jw_kstr(w, "id", id);
	jw_key(w, "claims");
	jw_arr_begin(w);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < v[i].lab->nclaims; k++) {
			const struct claim *c = &v[i].lab->claims[k];

			if (!c->question || strcmp(c->question, id))
				continue;
			jw_str(w, c->id);
			claims++;
			pass += c->status == ST_PASS;
			fail += c->status == ST_FAIL && !claim_known(c);
			known += claim_known(c);
		}
	jw_arr_end(w);
	st = fail || known ? Q_CONTRADICTED : !pass ? Q_UNVERIFIED :
	     pass == claims ? Q_CONFIRMED : Q_PARTIAL;
	jw_kstr(w, "status", question_words[st]);
	if (known && !fail)
		jw_kbool(w, "known_erratum", 1);
	jw_obj_end(w);
}

/* 1 when no claim before claim k of v[i] backs question q. */
static int question_first(const struct file_lab *v, int i, int k, const char *q)
{
	for (int a = 0; a <= i; a++)
		for (int b = 0; b < (a < i ? v[a].lab->nclaims : k); b++) {
			const char *other = v[a].lab->claims[b].question;

			if (other && !strcmp(other, q))
				return 0;
		}
	return 1;
}

/* One question per distinct question id of the claims, in order of first
 * appearance. */
static void write_questions(const struct file_lab *v, int n, struct json_writer *w)
{
	jw_key(w, "questions");
	jw_arr_begin(w);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < v[i].lab->nclaims; k++) {
			const char *q = v[i].lab->claims[k].question;

			if (q && *q && question_first(v, i, k, q))
				write_question(v, n, q, w);
		}
	jw_arr_end(w);
}

/* ------------------------------------------------------------------------ */
/* Labs and claims                                                           */

/* The lab's claim object verbatim (every sample, its erratum object), with
 * the runner's status and the chapter's relation as text (--describe). */
static void write_claim(const struct claim *c, struct json_writer *w)
{
	if (!c->json) { /* a claim only the TAP stream or the plan knows about */
		record_json_claim(w, c, c->status);
		jw_arr_begin(w);
		jw_arr_end(w);
	} else {
		jw_obj_begin(w);
		for (const struct json *m = c->json->child; m; m = m->next) {
			if (!strcmp(m->key, "status")) {
				jw_kstr(w, "status", status_words[c->status]);
			} else if (strcmp(m->key, "want_text")) {
				jw_key(w, m->key);
				jw_value(w, m);
			}
		}
	}
	jw_kstr(w, "want_text", c->want_text);
	jw_obj_end(w);
}

static void write_lab_outcome(const struct lab_entry *lab, struct json_writer *w)
{
	jw_key(w, "skip");
	if (lab->status == ST_SKIP) {
		jw_obj_begin(w);
		jw_kstr(w, "reason", lab->skip_reason);
		jw_kstr(w, "detail", lab->skip_detail);
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_key(w, "error");
	if (lab->error_kind) {
		jw_obj_begin(w);
		jw_kstr(w, "kind", lab->error_kind);
		jw_kstr(w, "message", lab->error_msg);
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_key(w, "exit");
	jw_obj_begin(w);
	jw_key(w, "code");
	if (lab->exit_code >= 0)
		jw_int(w, lab->exit_code);
	else
		jw_null(w);
	jw_kstr(w, "signal", lab->signal ? signal_name(lab->signal) : NULL);
	jw_kbool(w, "timed_out", lab->timed_out);
	jw_obj_end(w);
}

/* The lab record's member `key`, or `absent` (raw JSON) when it has none. */
static void write_record_member(const struct lab_entry *lab, const char *key,
				const char *absent, struct json_writer *w)
{
	const struct json *v = json_get(lab->record, key);

	jw_key(w, key);
	if (v)
		jw_value(w, v);
	else
		jw_raw(w, absent);
}

static void write_lab(const struct lab_entry *lab, struct json_writer *w)
{
	jw_obj_begin(w);
	jw_kstr(w, "id", lab->id);
	jw_kstr(w, "title", lab->title);
	jw_kstr(w, "status", lab_status_word(lab));
	write_lab_outcome(lab, w);
	jw_knum(w, "duration_s", lab->duration_s);
	jw_kint(w, "timeout_s", lab->timeout_s);
	jw_kstr(w, "log", lab->log_path[0] ? lab->log_path : NULL);
	jw_key(w, "claims");
	jw_arr_begin(w);
	for (int k = 0; k < lab->nclaims; k++)
		write_claim(&lab->claims[k], w);
	jw_arr_end(w);
	predict_write(lab, w);
	write_record_member(lab, "facts", "{}", w);
	write_record_member(lab, "series", "{}", w);
	write_record_member(lab, "phases", "[]", w);
	counters_write(lab, w);
	jw_obj_end(w);
}

/* ------------------------------------------------------------------------ */
/* The document                                                              */

static void write_command(const struct run_state *rs, struct json_writer *w)
{
	char cmd[512];
	size_t n;

	n = (size_t)snprintf(cmd, sizeof(cmd), "dmalab %s", rs->opt->command);
	for (int i = 0; i < rs->opt->nids && n < sizeof(cmd); i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " %s", rs->opt->ids[i]);
	jw_kstr(w, "command", cmd);
}

static void write_head(const struct run_state *rs, struct json_writer *w)
{
	jw_kstr(w, "schema", "dmalab-results/1");
	jw_key(w, "dmalab");
	jw_obj_begin(w);
	jw_kstr(w, "version", DMALAB_VERSION);
	jw_obj_end(w);
	write_command(rs, w);
	jw_kstr(w, "started", rs->started);
	jw_knum(w, "duration_s", lab_now() - rs->t0);
	jw_knum(w, "timeout_mul", rs->opt->timeout_mul);
	jw_kbool(w, "quick", rs->opt->quick);
	if (rs->opt->learner)
		jw_kstr(w, "learner", rs->opt->learner);
	jw_key(w, "machine");
	sysinfo_write_json(&rs->si, w); /* this run's machine, also for kept labs */
}

/* The document: the head, every lab of the file, what is counted over them. */
static int results_write(struct run_state *rs, struct json_writer *w)
{
	struct file_lab *v;
	struct totals t;
	int i, n = results_file_labs(rs, &v);

	if (n < 0)
		return -1;
	memset(&t, 0, sizeof(t)); /* every lab of the file, kept ones included */
	for (i = 0; i < n; i++)
		totals_add_lab(v[i].lab, &t);
	jw_obj_begin(w);
	write_head(rs, w);
	jw_key(w, "labs");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		if (v[i].kept)
			jw_value(w, v[i].kept); /* as the earlier run wrote it */
		else
			write_lab(v[i].lab, w);
	}
	jw_arr_end(w);
	if (rs->opt->work) /* the learner's exercises, as their last try left them */
		ex_status_write(w, "labs", rs->opt->work, rs->here);
	write_questions(v, n, w);
	write_totals(&t, w);
	jw_kstr(w, "status", status_words[totals_status(rs, &t)]);
	jw_obj_end(w);
	free(v);
	return w->failed ? -1 : 0;
}

/*
 * A save failed (a full disk).  What an earlier save of this run left says
 * "running" and would be read as a run: it is replaced by a short document
 * whose status is "incomplete" (results_load refuses both).  Removing the old
 * file first makes the room for it.  An earlier run's file, never touched
 * by this one, stays as it was: it is a whole run of its own.
 */
static void mark_incomplete(struct run_state *rs, const char *path, int err)
{
	struct json_writer w;
	char why[300];

	if (!rs->saved)
		return;
	unlink(path);
	rs->saved = 0;
	snprintf(why, sizeof(why), "the run's results could not be saved: %s", strerror(err));
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-results/1");
	jw_kstr(&w, "started", rs->started);
	jw_key(&w, "labs");
	jw_arr_begin(&w);
	jw_arr_end(&w);
	jw_kstr(&w, "status", "incomplete");
	jw_kstr(&w, "incomplete", why);
	jw_obj_end(&w);
	jw_write_file(&w, path); /* where even this fails, no file is better than "running" */
	jw_release(&w);
}

/* Writes results.json, then junit.xml, and at the end dmalab.prom; the last save prints
 * the document the format asks for (json here, junit in junit_save).  0 or -1. */
int results_save(struct run_state *rs, int final)
{
	char path[PATH_MAX], prom[PATH_MAX];
	struct json_writer w;
	int rc, err;

	jw_init(&w, 1);
	snprintf(path, sizeof(path), "%s/results.json", rs->opt->results_dir);
	rc = results_write(rs, &w) || jw_write_file(&w, path) ? -1 : 0;
	err = errno;
	if (rc && !rs->save_failed)
		error_errno("cannot write '%s'", path);
	rs->save_failed |= rc != 0;
	if (rc)
		mark_incomplete(rs, path, err);
	else
		rs->saved = 1;
	if (final && rs->opt->format == FMT_JSON && !w.failed) {
		fwrite(w.buf, 1, w.len, stdout);
		fputc('\n', stdout);
	}
	jw_release(&w);
	if (junit_save(rs, final && rs->opt->format == FMT_JUNIT))
		rc = -1;
	/* dmalab.prom beside results.json (metrics.c), for a textfile collector */
	snprintf(prom, sizeof(prom), "%s/dmalab.prom", rs->opt->results_dir);
	if (final && rc == 0 && metrics_save(path, prom) != 0) {
		rs->save_failed = 1;
		rc = -1;
	}
	return rc;
}
