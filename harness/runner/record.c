/*
 * record.c - what a lab decided, and the lab's status (PROTOCOL.md 4).
 *
 * The lab's TAP stream is the record; its JSON file, written as it exits or
 * is stopped by a signal, adds the series, facts and samples, and its claims
 * are merged over the TAP's.  A lab killed outright leaves only the TAP.
 * Claims planned by --describe that no record mentions were never reached:
 * `not_run`.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src && *src ? strdup(src) : NULL;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static void set_erratum_status(struct claim *c, const char *s)
{
	copy(c->erratum_status, sizeof(c->erratum_status), s);
}

void claim_erratum_from_json(struct claim *c, const struct json *e)
{
	set_erratum_status(c, NULL);
	c->erratum_expect[0] = '\0';
	set_str(&c->erratum_when, NULL);
	set_str(&c->erratum_truth, NULL);
	if (e && e->type == JSON_BOOL && e->num != 0) {
		set_erratum_status(c, "predicted"); /* results.json before the lab decided */
	} else if (e && e->type == JSON_OBJ) {
		set_erratum_status(c, json_get_str(e, "status", NULL));
		copy(c->erratum_expect, sizeof(c->erratum_expect), json_get_str(e, "expect", NULL));
		set_str(&c->erratum_when, json_get_str(e, "when", NULL));
		set_str(&c->erratum_truth, json_get_str(e, "truth", NULL));
	}
}

/* The claim with this id; a claim the plan did not list is appended. */
struct claim *lab_claim(struct lab_entry *lab, const char *id)
{
	struct claim *cs;
	int i;

	for (i = 0; i < lab->nclaims; i++)
		if (strcmp(lab->claims[i].id, id) == 0)
			return &lab->claims[i];
	cs = realloc(lab->claims, (size_t)(lab->nclaims + 1) * sizeof(*cs));
	if (!cs)
		return NULL;
	lab->claims = cs;
	claim_reset(&cs[lab->nclaims]);
	copy(cs[lab->nclaims].id, sizeof(cs->id), id);
	return &cs[lab->nclaims++];
}

void claim_from_json(struct claim *c, const struct json *o)
{
	const struct json *tol = json_get(o, "tol");

	c->status = status_parse(json_get_str(o, "status", "pending"));
	if (c->status == ST_COUNT)
		c->status = ST_PENDING;
	if (!c->question)
		set_str(&c->question, json_get_str(o, "question", NULL));
	if (!c->text)
		set_str(&c->text, json_get_str(o, "text", NULL));
	if (json_get_str(o, "chapter", NULL))
		set_str(&c->chapter, json_get_str(o, "chapter", NULL));
	if (json_get_str(o, "want_text", NULL))
		set_str(&c->want_text, json_get_str(o, "want_text", NULL));
	copy(c->op, sizeof(c->op), json_get_str(o, "op", NULL));
	copy(c->unit, sizeof(c->unit), json_get_str(o, "unit", NULL));
	copy(c->reason, sizeof(c->reason), json_get_str(o, "reason", NULL));
	copy(c->detail, sizeof(c->detail), json_get_str(o, "detail", NULL));
	copy(c->note, sizeof(c->note), json_get_str(o, "note", NULL));
	copy(c->got_name, sizeof(c->got_name), json_get_str(o, "got_name", NULL));
	copy(c->want_name, sizeof(c->want_name), json_get_str(o, "want_name", NULL));
	c->got = json_get_num(o, "got", NAN);
	c->got_lo = json_get_num(o, "got_lo", NAN);
	c->got_hi = json_get_num(o, "got_hi", NAN);
	c->want = json_get_num(o, "want", NAN);
	c->lo = json_get_num(o, "lo", NAN);
	c->hi = json_get_num(o, "hi", NAN);
	c->tol_abs = json_get_num(tol, "abs", NAN);
	c->tol_rel = json_get_num(tol, "rel", NAN);
	claim_erratum_from_json(c, json_get(o, "erratum"));
	c->json = o;
}

/* A test point as a claim result (when there is no JSON, and live): its
 * verdict; a reason and detail only for a skip, a note only when given. */
void claim_from_point(struct claim *c, const struct tap_point *pt)
{
	struct claim v = pt->c;

	if (!v.note[0])
		copy(v.note, sizeof(v.note), c->note);
	if (v.status != ST_SKIP && v.status != ST_INCONCLUSIVE) {
		copy(v.reason, sizeof(v.reason), c->reason);
		copy(v.detail, sizeof(v.detail), c->detail);
	}
	v.question = c->question, v.text = c->text, v.chapter = c->chapter;
	v.want_text = c->want_text, v.erratum_when = c->erratum_when;
	v.erratum_truth = c->erratum_truth, v.erratum = c->erratum;
	v.json = c->json, v.shown = c->shown;
	*c = v;
}

/* 0 if the lab's JSON file was read and its claims merged over the TAP's. */
static int merge_json(struct lab_entry *lab)
{
	const struct json *claims, *c;

	lab->record = json_parse_file(lab->json_path, lab->record_error,
				      sizeof(lab->record_error));
	if (!lab->record)
		return -1;
	claims = json_get(lab->record, "claims");
	if (strcmp(json_get_str(lab->record, "schema", ""), "dmalab-lab/1") ||
	    !claims || claims->type != JSON_ARR) {
		snprintf(lab->record_error, sizeof(lab->record_error),
			 "%.400s: not a dmalab-lab/1 record", lab->json_path);
		json_free(lab->record);
		lab->record = NULL;
		return -1;
	}
	for (c = claims->child; c; c = c->next) {
		struct claim *r = lab_claim(lab, json_get_str(c, "id", "?"));

		/* "pending" in a file written just before a verdict the TAP
		 * stream still carried: keep the verdict */
		if (r && (!status_decided(r->status) ||
			  strcmp(json_get_str(c, "status", ""), "pending")))
			claim_from_json(r, c);
	}
	return 0;
}

static void merge_tap(struct lab_entry *lab, const struct tap_scan *ts)
{
	int i;

	for (i = 0; i < ts->npoints; i++) {
		struct claim *r = lab_claim(lab, ts->points[i].c.id);

		if (r)
			claim_from_point(r, &ts->points[i]);
	}
}

struct claim_counts {
	int decided, pass, fail, known, skipped, inconclusive, error;
};

/*
 * Marks unreached claims; counts what the status rules need.  A failed
 * claim is a known erratum only when the lab says its erratum predicted
 * this run's value (PROTOCOL.md 5); the runner's errata file gives the
 * texts (truth, why, sources) of any erratum the lab named.
 */
static void settle_claims(struct run_state *rs, struct lab_entry *lab,
			  struct claim_counts *n)
{
	int i;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < lab->nclaims; i++) {
		struct claim *c = &lab->claims[i];

		if (!status_decided(c->status)) {
			c->status = ST_NOT_RUN;
			continue;
		}
		n->decided++;
		c->erratum = c->erratum_status[0] ? errata_find(&rs->errata, c->id) : NULL;
		if (c->erratum && !c->erratum_truth)
			set_str(&c->erratum_truth, c->erratum->truth);
		if (c->erratum && !c->erratum_expect[0])
			copy(c->erratum_expect, sizeof(c->erratum_expect), c->erratum->expect_text);
		if (c->erratum && !c->erratum_when)
			set_str(&c->erratum_when, c->erratum->when_text);
		if (c->status == ST_FAIL) {
			if (claim_known(c))
				n->known++;
			else
				n->fail++;
		} else if (c->status == ST_PASS) {
			n->pass++;
		} else if (c->status == ST_INCONCLUSIVE) {
			n->inconclusive++;
		} else if (c->status == ST_SKIP) {
			n->skipped++;
		} else {
			n->error++;
		}
	}
}

static void lab_set_error(struct lab_entry *lab, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void lab_set_error(struct lab_entry *lab, const char *kind, const char *fmt, ...)
{
	va_list ap;

	lab->status = ST_ERROR;
	lab->error_kind = kind;
	va_start(ap, fmt);
	vsnprintf(lab->error_msg, sizeof(lab->error_msg), fmt, ap);
	va_end(ap);
}

static void lab_skip_info(struct lab_entry *lab)
{
	const struct json *skip = json_get(lab->record, "skip");
	int i;

	lab->status = ST_SKIP;
	if (skip && skip->type == JSON_OBJ) {
		snprintf(lab->skip_reason, sizeof(lab->skip_reason), "%s",
			 json_get_str(skip, "reason", ""));
		snprintf(lab->skip_detail, sizeof(lab->skip_detail), "%s",
			 json_get_str(skip, "detail", ""));
		return;
	}
	for (i = 0; i < lab->nclaims; i++) {
		const struct claim *c = &lab->claims[i];

		if (c->reason[0]) {
			snprintf(lab->skip_reason, sizeof(lab->skip_reason), "%s", c->reason);
			snprintf(lab->skip_detail, sizeof(lab->skip_detail), "%s",
				 c->detail);
			return;
		}
	}
}

/* How the runner ended a lab it stopped (exit.signal names what it died of). */
static const char *stopped_with(const struct spawn_result *sr)
{
	return sr->signal == SIGKILL ? "SIGTERM, then SIGKILL after the grace period" :
	       "SIGTERM";
}

/* What broke the lab's run, if anything: the first rule that applies. */
static int classify_error(struct lab_entry *lab, const struct spawn_result *sr,
			  const struct tap_scan *ts, const struct claim_counts *n,
			  double limit_s)
{
	const char *why = lab->record ? json_get_str(lab->record, "error", NULL) : NULL;

	if (sr->exec_errno)
		lab_set_error(lab, "missing", "cannot run %.300s: %s", lab->path, strerror(sr->exec_errno));
	else if (sr->aborted)
		lab_set_error(lab, "aborted", "stopped: the runner got %s and sent the lab %s; "
			  "%d of %d claims decided", signal_name(runner_stop_signal),
			  stopped_with(sr), n->decided, lab->nclaims);
	else if (sr->timed_out)
		lab_set_error(lab, "timeout", "still running after its %g s timeout, %d of %d "
			  "claims decided; stopped with %s", limit_s, n->decided, lab->nclaims,
			  stopped_with(sr));
	else if (sr->signal)
		lab_set_error(lab, "signal", "killed by %s after %d of %d claims",
			  signal_name(sr->signal), n->decided, lab->nclaims);
	else if (sr->exit_code == 99)
		lab_set_error(lab, "setup", "setup error (exit 99): %s",
			  why ? why : ts->bail[0] ? ts->bail : "no message");
	else if (sr->exit_code != 0 && sr->exit_code != 1 && sr->exit_code != 77)
		lab_set_error(lab, "bad-exit", "exit code %d (a lab exits 0, 1, 77 or 99)",
			  sr->exit_code);
	else if (!lab->record && ts->plan < 0 && !ts->npoints)
		lab_set_error(lab, "bad-output", "no usable record: %s; %d of %d stdout lines "
			  "were not TAP", lab->record_error, ts->nother, ts->nlines);
	else if (!n->decided)
		lab_set_error(lab, "vacuous", "exited %d without deciding or skipping any of "
			  "its %d claims", sr->exit_code, lab->nclaims);
	else if (n->error)
		lab_set_error(lab, "bad-output", "exited %d with %d claims in error",
			  sr->exit_code, n->error);
	else if (n->decided < lab->nclaims)
		lab_set_error(lab, "bad-output", "exited %d with %d of %d claims never decided",
			  sr->exit_code, lab->nclaims - n->decided, lab->nclaims);
	else
		return 0;
	return 1;
}

void record_finish(struct run_state *rs, struct lab_entry *lab,
		   const struct spawn_result *sr, const struct tap_scan *ts)
{
	struct claim_counts n;

	lab->exit_code = sr->exit_code;
	lab->signal = sr->signal;
	lab->timed_out = sr->timed_out;
	lab->duration_s = sr->duration_s;
	merge_tap(lab, ts);
	merge_json(lab);
	settle_claims(rs, lab, &n);
	if (classify_error(lab, sr, ts, &n, lab->timeout_s * rs->opt->timeout_mul))
		return;
	if (n.fail)
		lab->status = ST_FAIL;
	else if (!n.pass && !n.known && n.inconclusive)
		lab->status = ST_INCONCLUSIVE; /* decided nothing either way */
	else if (!n.pass && !n.known)
		lab_skip_info(lab);
	else
		lab->status = ST_PASS;
}

/* A lab that never ran: every claim not_run, the lab an error. */
void record_not_run(struct lab_entry *lab, const char *kind, const char *why)
{
	int i;

	for (i = 0; i < lab->nclaims; i++)
		if (!status_decided(lab->claims[i].status))
			lab->claims[i].status = ST_NOT_RUN;
	lab_set_error(lab, kind, "%s", why);
}
