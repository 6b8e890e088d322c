/*
 * results.c - results/results.json (PROTOCOL.md 4), schema dmalab-results/1:
 * the machine, every lab with every claim and sample, the chapters'
 * questions and the totals.  Written atomically (temp file + rename).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

/* ------------------------------------------------------------------------ */
/* Totals and the run's status                                              */

static void count_claim(const struct claim_res *c, struct totals *t)
{
	t->claims++;
	if (!strcmp(c->status, "pass"))
		t->pass++;
	else if (!strcmp(c->status, "fail") && c->erratum)
		t->erratum++;
	else if (!strcmp(c->status, "fail"))
		t->fail++;
	else if (!strcmp(c->status, "skip"))
		t->skip++;
	else if (!strcmp(c->status, "inconclusive"))
		t->inconclusive++;
	else if (!strcmp(c->status, "error"))
		t->error++;
	else
		t->not_run++;
}

void totals_count(const struct run_state *rs, struct totals *t)
{
	int i, k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < rs->nlabs; i++) {
		const struct lab_entry *lab = &rs->labs[i];
		const char *s = lab->status ? lab->status : "not_run";

		t->labs++;
		t->lab_pass += !strcmp(s, "pass");
		t->lab_fail += !strcmp(s, "fail");
		t->lab_skip += !strcmp(s, "skip");
		t->lab_error += !strcmp(s, "error");
		t->lab_not_run += !strcmp(s, "not_run");
		for (k = 0; k < lab->nclaims; k++)
			count_claim(&lab->claims[k], t);
	}
}

const char *run_status(const struct run_state *rs)
{
	struct totals t;

	if (rs->aborted)
		return "aborted";
	if (!rs->finished)
		return "running"; /* a file saved between two labs */
	totals_count(rs, &t);
	return t.lab_fail || t.lab_error ? "fail" : "pass";
}

static void write_totals(const struct run_state *rs, struct json_writer *w)
{
	struct totals t;

	totals_count(rs, &t);
	jw_key(w, "totals");
	jw_obj_begin(w);
	jw_key(w, "labs");
	jw_obj_begin(w);
	jw_kint(w, "planned", t.labs);
	jw_kint(w, "pass", t.lab_pass);
	jw_kint(w, "fail", t.lab_fail);
	jw_kint(w, "skip", t.lab_skip);
	jw_kint(w, "error", t.lab_error);
	jw_kint(w, "not_run", t.lab_not_run);
	jw_obj_end(w);
	jw_key(w, "claims");
	jw_obj_begin(w);
	jw_kint(w, "planned", t.claims);
	jw_kint(w, "pass", t.pass);
	jw_kint(w, "fail", t.fail);
	jw_kint(w, "known_erratum", t.erratum);
	jw_kint(w, "skip", t.skip);
	jw_kint(w, "inconclusive", t.inconclusive);
	jw_kint(w, "error", t.error);
	jw_kint(w, "not_run", t.not_run);
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

static void write_question(const struct run_state *rs, const struct question *q,
			   struct json_writer *w)
{
	int i, k;

	jw_obj_begin(w);
	jw_kstr(w, "id", q->id);
	jw_key(w, "claims");
	jw_arr_begin(w);
	for (i = 0; i < rs->nlabs; i++)
		for (k = 0; k < rs->labs[i].nclaims; k++)
			if (rs->labs[i].claims[k].question &&
			    !strcmp(rs->labs[i].claims[k].question, q->id))
				jw_str(w, rs->labs[i].claims[k].id);
	jw_arr_end(w);
	jw_kstr(w, "status", question_status(q));
	if (q->known && !q->fail)
		jw_kbool(w, "known_erratum", 1);
	jw_obj_end(w);
}

static int total_claims(const struct run_state *rs)
{
	int i, n = 0;

	for (i = 0; i < rs->nlabs; i++)
		n += rs->labs[i].nclaims;
	return n;
}

static void write_questions(const struct run_state *rs, struct json_writer *w)
{
	struct question *qs = calloc((size_t)total_claims(rs) + 1, sizeof(*qs));
	int i, k, nq = 0;

	jw_key(w, "questions");
	jw_arr_begin(w);
	for (i = 0; qs && i < rs->nlabs; i++) {
		for (k = 0; k < rs->labs[i].nclaims; k++) {
			const struct claim_res *c = &rs->labs[i].claims[k];
			struct question *q;

			if (!c->question || !*c->question)
				continue;
			q = question_of(qs, &nq, c->question);
			q->claims++;
			q->pass += !strcmp(c->status, "pass");
			q->fail += !strcmp(c->status, "fail") && !c->erratum;
			q->known += !strcmp(c->status, "fail") && c->erratum;
		}
	}
	for (i = 0; i < nq; i++)
		write_question(rs, &qs[i], w);
	jw_arr_end(w);
	free(qs);
}

/* ------------------------------------------------------------------------ */
/* Labs and claims                                                           */

static void knum_or_null(struct json_writer *w, const char *k, double v)
{
	jw_knum(w, k, v); /* NaN is written as null */
}

/* A claim only the TAP stream or the plan knows about. */
static void write_claim_fields(const struct claim_res *c, struct json_writer *w)
{
	jw_kstr(w, "id", c->id);
	jw_kstr(w, "question", c->question);
	jw_kstr(w, "text", c->text);
	jw_kstr(w, "status", c->status);
	jw_kstr(w, "op", c->op);
	knum_or_null(w, "got", c->got);
	knum_or_null(w, "want", c->want);
	knum_or_null(w, "lo", c->lo);
	knum_or_null(w, "hi", c->hi);
	jw_kstr(w, "unit", c->unit);
	jw_kstr(w, "got_name", c->got_name);
	jw_kstr(w, "want_name", c->want_name);
	jw_kstr(w, "reason", c->reason);
	jw_kstr(w, "detail", c->detail);
	jw_kstr(w, "note", c->note);
	jw_key(w, "stats");
	jw_arr_begin(w);
	jw_arr_end(w);
}

/* The lab's claim object verbatim (every sample), with the runner's status. */
static void write_claim(const struct claim_res *c, struct json_writer *w)
{
	const struct json *m;

	jw_obj_begin(w);
	if (!c->json) {
		write_claim_fields(c, w);
	} else {
		for (m = c->json->child; m; m = m->next) {
			if (!strcmp(m->key, "erratum"))
				continue;
			if (!strcmp(m->key, "status")) {
				jw_kstr(w, "status", c->status);
				continue;
			}
			jw_key(w, m->key);
			jw_value(w, m);
		}
	}
	if (c->erratum)
		jw_kbool(w, "erratum", 1);
	jw_obj_end(w);
}

static void write_lab_outcome(const struct lab_entry *lab, struct json_writer *w)
{
	jw_key(w, "skip");
	if (lab->status && !strcmp(lab->status, "skip")) {
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

static void write_record_member(const struct lab_entry *lab, const char *key,
				struct json_writer *w)
{
	const struct json *v = json_get(lab->record, key);

	jw_key(w, key);
	if (v)
		jw_value(w, v);
	else
		jw_raw(w, "{}");
}

static void write_lab(const struct lab_entry *lab, struct json_writer *w)
{
	int k;

	jw_obj_begin(w);
	jw_kstr(w, "id", lab->id);
	jw_kstr(w, "title", lab->title);
	jw_kstr(w, "status", lab->status ? lab->status : "not_run");
	write_lab_outcome(lab, w);
	jw_knum(w, "duration_s", lab->duration_s);
	jw_kint(w, "timeout_s", lab->timeout_s);
	jw_kstr(w, "log", lab->log_path[0] ? lab->log_path : NULL);
	jw_key(w, "claims");
	jw_arr_begin(w);
	for (k = 0; k < lab->nclaims; k++)
		write_claim(&lab->claims[k], w);
	jw_arr_end(w);
	write_record_member(lab, "facts", w);
	write_record_member(lab, "series", w);
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

int results_write(struct run_state *rs, struct json_writer *w)
{
	int i;

	jw_obj_begin(w);
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
	sysinfo_write_json(&rs->si, w);
	jw_key(w, "labs");
	jw_arr_begin(w);
	for (i = 0; i < rs->nlabs; i++)
		write_lab(&rs->labs[i], w);
	jw_arr_end(w);
	write_questions(rs, w);
	write_totals(rs, w);
	jw_kstr(w, "status", run_status(rs));
	jw_obj_end(w);
	return w->failed ? -1 : 0;
}

/* Writes results.json; with print_stdout also prints it.  0 or -1. */
int results_save(struct run_state *rs, int print_stdout)
{
	char path[PATH_MAX];
	struct json_writer w;
	int rc;

	jw_init(&w, 1);
	rc = results_write(rs, &w);
	snprintf(path, sizeof(path), "%s/results.json", rs->opt->results_dir);
	if (rc == 0 && jw_write_file(&w, path) != 0)
		rc = -1;
	if (rc)
		fprintf(stderr, "dmalab: cannot write '%s': %s\n", path, strerror(errno));
	if (print_stdout && !w.failed) {
		fwrite(w.buf, 1, w.len, stdout);
		fputc('\n', stdout);
	}
	jw_release(&w);
	return rc;
}
