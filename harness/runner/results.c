/*
 * results.c - results/results.json (PROTOCOL.md 4), schema dmalab-results/1:
 * the machine, every lab with every claim and sample, the chapters'
 * questions and the totals.  Written atomically (temp file + rename).
 * With `run`, the labs of the earlier file it did not run are kept (merge.c)
 * and counted with this run's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

/* ------------------------------------------------------------------------ */
/* Totals and the run's status                                              */

static void count_claim(const struct claim *c, int known, struct totals *t)
{
	t->claims++;
	if (c->status == ST_PASS)
		t->pass++;
	else if (c->status == ST_FAIL && known)
		t->erratum++;
	else if (c->status == ST_FAIL)
		t->fail++;
	else if (c->status == ST_SKIP)
		t->skip++;
	else if (c->status == ST_INCONCLUSIVE)
		t->inconclusive++;
	else if (c->status == ST_ERROR)
		t->error++;
	else
		t->not_run++;
}

static void count_lab(const struct lab_entry *lab, struct totals *t)
{
	enum status s = lab->status == ST_PENDING ? ST_NOT_RUN : lab->status;
	int k;

	t->labs++;
	t->lab_pass += s == ST_PASS;
	t->lab_fail += s == ST_FAIL;
	t->lab_skip += s == ST_SKIP;
	t->lab_inconclusive += s == ST_INCONCLUSIVE;
	t->lab_error += s == ST_ERROR;
	t->lab_not_run += s == ST_NOT_RUN;
	for (k = 0; k < lab->nclaims; k++)
		count_claim(&lab->claims[k], claim_known(&lab->claims[k]), t);
}

/* This run's labs (the summary line and the exit code). */
void totals_count(const struct run_state *rs, struct totals *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < rs->nlabs; i++)
		count_lab(&rs->labs[i], t);
}

/* Every lab of the file, kept ones included. */
static void file_totals(const struct file_lab *v, int n, struct totals *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++)
		count_lab(v[i].lab, t);
}

static enum status status_of(const struct run_state *rs, const struct totals *t)
{
	if (rs->aborted)
		return ST_ABORTED;
	if (!rs->finished)
		return ST_RUNNING; /* a file saved between two labs */
	return t->lab_fail || t->lab_error ? ST_FAIL : ST_PASS;
}

/* This run's status: the labs it ran. */
enum status run_status(const struct run_state *rs)
{
	struct totals t;

	totals_count(rs, &t);
	return status_of(rs, &t);
}

static void write_totals(const struct totals *t, struct json_writer *w)
{
	jw_key(w, "totals");
	jw_obj_begin(w);
	jw_key(w, "labs");
	jw_obj_begin(w);
	jw_kint(w, "planned", t->labs);
	jw_kint(w, "pass", t->lab_pass);
	jw_kint(w, "fail", t->lab_fail);
	jw_kint(w, "skip", t->lab_skip);
	jw_kint(w, "inconclusive", t->lab_inconclusive);
	jw_kint(w, "error", t->lab_error);
	jw_kint(w, "not_run", t->lab_not_run);
	jw_obj_end(w);
	jw_key(w, "claims");
	jw_obj_begin(w);
	jw_kint(w, "planned", t->claims);
	jw_kint(w, "pass", t->pass);
	jw_kint(w, "fail", t->fail);
	jw_kint(w, "known_erratum", t->erratum);
	jw_kint(w, "skip", t->skip);
	jw_kint(w, "inconclusive", t->inconclusive);
	jw_kint(w, "error", t->error);
	jw_kint(w, "not_run", t->not_run);
	jw_obj_end(w);
	jw_obj_end(w);
}

/* ------------------------------------------------------------------------ */
/* Questions                                                                 */

struct question {
	const char *id;
	int claims, pass, fail, known;
};

static struct question *question_of(struct question *qs, int *nq, const char *id)
{
	int i;

	for (i = 0; i < *nq; i++)
		if (!strcmp(qs[i].id, id))
			return &qs[i];
	memset(&qs[*nq], 0, sizeof(qs[0]));
	qs[*nq].id = id;
	return &qs[(*nq)++];
}

/* confirmed: every claim passed; contradicted: one failed; partial: some
 * passed, the rest undecided; unverified: none decided. */
static const char *question_status(const struct question *q)
{
	if (q->fail || q->known)
		return "contradicted";
	if (!q->pass)
		return "unverified";
	return q->pass == q->claims ? "confirmed" : "partial";
}

static void write_question(const struct file_lab *v, int n, const struct question *q,
			   struct json_writer *w)
{
	int i, k;

	jw_obj_begin(w);
	jw_kstr(w, "id", q->id);
	jw_key(w, "claims");
	jw_arr_begin(w);
	for (i = 0; i < n; i++)
		for (k = 0; k < v[i].lab->nclaims; k++)
			if (v[i].lab->claims[k].question &&
			    !strcmp(v[i].lab->claims[k].question, q->id))
				jw_str(w, v[i].lab->claims[k].id);
	jw_arr_end(w);
	jw_kstr(w, "status", question_status(q));
	if (q->known && !q->fail)
		jw_kbool(w, "known_erratum", 1);
	jw_obj_end(w);
}

/* One question per distinct question id of the claims, in order of first
 * appearance; qs has room for one per claim. */
static int collect_questions(const struct file_lab *v, int n, struct question *qs)
{
	int i, k, nq = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i].lab->nclaims; k++) {
			const struct claim *c = &v[i].lab->claims[k];
			int known = claim_known(c);
			struct question *q;

			if (!c->question || !*c->question)
				continue;
			q = question_of(qs, &nq, c->question);
			q->claims++;
			q->pass += c->status == ST_PASS;
			q->fail += c->status == ST_FAIL && !known;
			q->known += c->status == ST_FAIL && known;
		}
	}
	return nq;
}

static void write_questions(const struct file_lab *v, int n, const struct totals *t,
			    struct json_writer *w)
{
	struct question *qs = calloc((size_t)t->claims + 1, sizeof(*qs));
	int i, nq = qs ? collect_questions(v, n, qs) : 0;

	jw_key(w, "questions");
	jw_arr_begin(w);
	for (i = 0; i < nq; i++)
		write_question(v, n, &qs[i], w);
	jw_arr_end(w);
	free(qs);
}

/* ------------------------------------------------------------------------ */
/* Labs and claims                                                           */

static void knum_or_null(struct json_writer *w, const char *k, double v)
{
	jw_knum(w, k, v); /* NaN is written as null */
}

/* The lab's word on the claim's erratum, from its TAP YAML when there is no
 * JSON record: null, or {status, expect, when, truth}. */
static void write_erratum(const struct claim *c, struct json_writer *w)
{
	jw_key(w, "erratum");
	if (!c->erratum_status[0]) {
		jw_null(w);
		return;
	}
	jw_obj_begin(w);
	jw_kstr(w, "status", c->erratum_status);
	jw_kstr(w, "expect", or_null(c->erratum_expect));
	jw_kstr(w, "when", c->erratum_when ? c->erratum_when :
		c->erratum ? c->erratum->when_text : NULL);
	jw_kstr(w, "truth", c->erratum_truth);
	jw_obj_end(w);
}

/* A claim only the TAP stream or the plan knows about. */
static void write_claim_fields(const struct claim *c, struct json_writer *w)
{
	jw_kstr(w, "id", c->id);
	jw_kstr(w, "question", c->question);
	jw_kstr(w, "text", c->text);
	jw_kstr(w, "status", status_words[c->status]);
	jw_kstr(w, "op", or_null(c->op));
	knum_or_null(w, "got", c->got);
	knum_or_null(w, "got_lo", c->got_lo);
	knum_or_null(w, "got_hi", c->got_hi);
	knum_or_null(w, "want", c->want);
	knum_or_null(w, "lo", c->lo);
	knum_or_null(w, "hi", c->hi);
	jw_kstr(w, "unit", or_null(c->unit));
	jw_kstr(w, "got_name", or_null(c->got_name));
	jw_kstr(w, "want_name", or_null(c->want_name));
	jw_kstr(w, "reason", or_null(c->reason));
	jw_kstr(w, "detail", or_null(c->detail));
	jw_kstr(w, "note", or_null(c->note));
	jw_kstr(w, "chapter", c->chapter);
	write_erratum(c, w);
	jw_key(w, "stats");
	jw_arr_begin(w);
	jw_arr_end(w);
}

/* The lab's claim object verbatim (every sample, its erratum object), with
 * the runner's status and the chapter's relation as text (--describe). */
static void write_claim(const struct claim *c, struct json_writer *w)
{
	const struct json *m;

	jw_obj_begin(w);
	if (!c->json) {
		write_claim_fields(c, w);
	} else {
		for (m = c->json->child; m; m = m->next) {
			if (!strcmp(m->key, "want_text"))
				continue;
			if (!strcmp(m->key, "status")) {
				jw_kstr(w, "status", status_words[c->status]);
				continue;
			}
			jw_key(w, m->key);
			jw_value(w, m);
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
	int k;

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
	for (k = 0; k < lab->nclaims; k++)
		write_claim(&lab->claims[k], w);
	jw_arr_end(w);
	write_record_member(lab, "facts", "{}", w);
	write_record_member(lab, "series", "{}", w);
	write_record_member(lab, "phases", "[]", w);
	jw_obj_end(w);
}

/* ------------------------------------------------------------------------ */
/* The document                                                              */

static void write_command(const struct run_state *rs, struct json_writer *w)
{
	char cmd[512];
	size_t n;
	int i;

	n = (size_t)snprintf(cmd, sizeof(cmd), "dmalab %s", rs->opt->command);
	for (i = 0; i < rs->opt->nids && n < sizeof(cmd); i++)
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
	jw_knum(w, "duration_s", mono_now() - rs->t0);
	jw_knum(w, "timeout_mul", rs->opt->timeout_mul);
	jw_kbool(w, "quick", rs->opt->quick);
	jw_key(w, "machine");
	sysinfo_write_json(&rs->si, w); /* this run's machine, also for kept labs */
}

/* The document: the head, every lab of the file, what is counted over them. */
int results_write(struct run_state *rs, struct json_writer *w)
{
	struct file_lab *v;
	struct totals t;
	int i, n = results_file_labs(rs, &v);

	if (n < 0)
		return -1;
	file_totals(v, n, &t);
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
	write_questions(v, n, &t, w);
	write_totals(&t, w);
	jw_kstr(w, "status", status_words[status_of(rs, &t)]);
	jw_obj_end(w);
	free(v);
	return w->failed ? -1 : 0;
}

/*
 * A save failed (a full disk).  What an earlier save of this run left says
 * "running" and would be read as a run: it is replaced by a short document
 * whose status is "incomplete" (resload.c refuses both).  Removing the old
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

/* Writes results.json, then junit.xml; the last save prints the document
 * the format asks for (json here, junit in junit_save).  0 or -1. */
int results_save(struct run_state *rs, int final)
{
	char path[PATH_MAX];
	struct json_writer w;
	int rc, err = 0;

	jw_init(&w, 1);
	rc = results_write(rs, &w);
	snprintf(path, sizeof(path), "%s/results.json", rs->opt->results_dir);
	if (rc == 0 && jw_write_file(&w, path) != 0)
		rc = -1;
	err = rc ? errno : 0;
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
	return rc;
}
