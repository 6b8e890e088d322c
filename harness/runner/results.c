/*
 * results.c - the run's model and its file (PROTOCOL.md 4): the results
 * directory, each lab's outcome, and results.json (schema dmalab-results/1):
 * the labs it lists, and the file read back (results_save.c writes it).
 *
 *   the directory  checked and locked before any lab runs: a place the run
 *                  can write (a read-only mount, a full disk or a path naming
 *                  a file is one line now, not six "lab bugs" later), and a
 *                  lock so that two runs in one clone never read each other's
 *                  per-lab files
 *   a lab's outcome  its TAP stream is the record; its JSON file, written as
 *                  it exits or is stopped by a signal, adds the series, facts
 *                  and samples, and its claims are merged over the TAP's.  A
 *                  lab killed outright leaves only the TAP.  Claims planned by
 *                  --describe that no record mentions were never reached:
 *                  `not_run`
 *   `run NN`       updates results.json (PROTOCOL.md 4)
 *   read back      into the runner's lab entries and claims, so that grade
 *                  and quiz print verdicts exactly the way `dmalab check` does
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang.h"
#include "learn.h"
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

/* " (pid N)" of the run the lock file names, or "": for the message only. */
static const char *lock_holder(int fd, char *buf, size_t len)
{
	char text[32] = "";
	long pid = pread(fd, text, sizeof(text) - 1, 0) > 0 ? strtol(text, NULL, 10) : 0;

	buf[0] = '\0';
	if (pid > 0)
		snprintf(buf, len, " (pid %ld)", pid);
	return buf;
}

int results_dir_make(const char *dir)
{
	char parent[PATH_MAX];

	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return error_errno("cannot create results directory '%s'", dir);
	snprintf(parent, sizeof(parent), "%s", dir);
	return error(MSG("run.err-results-parent", "results directory '%s': its parent folder "
			 "'%s' does not exist (a typo? create it first)"), dir, dirname(parent));
}

int results_dir_claim(struct run_state *rs)
{
	const char *dir = rs->opt->results_dir;
	char path[PATH_MAX], pid[32];
	struct stat st;
	int fd, n;

	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return error("results directory '%s': %s", dir, stat(dir, &st) ? strerror(errno) :
			     "not a directory");
	if (dir_writable(dir))
		return error_errno("results directory '%s' cannot be written", dir);
	snprintf(path, sizeof(path), "%s/.dmalab-lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		error("results directory '%s' is in use by another dmalab run%s: wait for it, or "
		      "give this run its own (--results DIR, make RESULTS=DIR)", dir,
		      lock_holder(fd, pid, sizeof(pid)));
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		error_errno("cannot write '%s'", path);
		close(fd);
		return -1;
	}
	return 0; /* fd held until exit; O_CLOEXEC: no lab inherits it */
}

static void set_str(const char **dst, const char *src)
{
	free((char *)*dst);
	*dst = src && *src ? strdup(src) : NULL;
}

/* A one-line field of a lab's record (a skip's detail, a unit, a note): a line
 * end in it becomes a blank, as in the lab's own TAP (record_tap_text), so
 * that the report card and the TAP stream stay one line per field and no
 * text of a lab's reads as a test line or a "Bail out!" of its own. */
static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
	for (char *p = dst; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

/* The lab's erratum object of a claim: {status, expect, when, truth} (or
 * `true`, the older results.json) into c's erratum fields. */
static void claim_erratum_from_json(struct claim *c, const struct json *e)
{
	/* true: a results.json from before the lab decided; no member of a non-object */
	int old = e && e->type == JSON_BOOL && e->num != 0;

	copy(c->erratum_status, sizeof(c->erratum_status),
	     old ? "predicted" : json_get_str(e, "status", NULL));
	copy(c->erratum_expect, sizeof(c->erratum_expect), json_get_str(e, "expect", NULL));
	set_str(&c->erratum_when, json_get_str(e, "when", NULL));
	set_str(&c->erratum_truth, json_get_str(e, "truth", NULL));
}

/* The claim with this id; a claim the plan did not list is appended. */
struct claim *lab_claim(struct lab_entry *lab, const char *id)
{
	struct claim *cs;

	for (int i = 0; i < lab->nclaims; i++)
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

static void claim_from_json(struct claim *c, const struct json *o)
{
	const struct json *tol = json_get(o, "tol");

	c->status = status_parse(json_get_str(o, "status", NULL));
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
	/* the verdict, id to erratum_expect (record.h); c's spec and runner fields stay */
	memcpy(c, &v, offsetof(struct claim, question));
}

void claim_find_erratum(struct claim *c, const struct errata *errata)
{
	c->erratum = c->erratum_status[0] ? errata_find(errata, c->id) : NULL;
	if (!c->erratum)
		return;
	if (!c->erratum_truth)
		set_str(&c->erratum_truth, c->erratum->truth);
	if (!c->erratum_expect[0])
		copy(c->erratum_expect, sizeof(c->erratum_expect), c->erratum->expect_text);
	if (!c->erratum_when)
		set_str(&c->erratum_when, c->erratum->when_text);
}

/* 0 if the lab's JSON file was read and its claims merged over the TAP's. */
static int merge_json(struct lab_entry *lab)
{
	const struct json *claims, *c;

	lab->record = json_parse_file(lab->json_path, lab->record_error, sizeof(lab->record_error));
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

		/* undecided in a record a signal left just before the verdict
		 * the TAP stream still carried: keep the verdict */
		if (r && (!status_decided(r->status) ||
			  status_decided(status_parse(json_get_str(c, "status", NULL)))))
			claim_from_json(r, c);
	}
	return 0;
}

static void merge_tap(struct lab_entry *lab, const struct tap_scan *ts)
{
	for (int i = 0; i < ts->npoints; i++) {
		struct claim *r = lab_claim(lab, ts->points[i].c.id);

		if (r)
			claim_from_point(r, &ts->points[i]);
	}
}

/* The decided claims of a lab, by status; a known erratum in known, not in
 * by[ST_FAIL]. */
struct claim_counts {
	int decided, known, by[ST_COUNT];
};

/*
 * Marks unreached claims; counts what the status rules need.  A failed
 * claim is a known erratum only when the lab says its erratum predicted
 * this run's value (PROTOCOL.md 5); the runner's errata file gives the
 * texts (truth, why, sources) of any erratum the lab named.
 */
static void settle_claims(struct run_state *rs, struct lab_entry *lab, struct claim_counts *n)
{
	memset(n, 0, sizeof(*n));
	for (int i = 0; i < lab->nclaims; i++) {
		struct claim *c = &lab->claims[i];

		if (!status_decided(c->status)) {
			c->status = ST_NOT_RUN;
			continue;
		}
		n->decided++;
		claim_find_erratum(c, &rs->errata);
		if (claim_known(c))
			n->known++;
		else /* a run's word on a claim (running, aborted ...) is an error */
			n->by[c->status < ST_NOT_RUN ? c->status : ST_ERROR]++;
	}
}

__attribute__((format(printf, 3, 4)))
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

	lab->status = ST_SKIP;
	if (skip && skip->type == JSON_OBJ) {
		copy(lab->skip_reason, sizeof(lab->skip_reason), json_get_str(skip, "reason", ""));
		copy(lab->skip_detail, sizeof(lab->skip_detail), json_get_str(skip, "detail", ""));
		return;
	}
	for (int i = 0; i < lab->nclaims; i++) {
		const struct claim *c = &lab->claims[i];

		if (c->reason[0]) {
			copy(lab->skip_reason, sizeof(lab->skip_reason), c->reason);
			copy(lab->skip_detail, sizeof(lab->skip_detail), c->detail);
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
			  const struct tap_scan *ts, const struct claim_counts *n, double limit_s)
{
	const char *why = lab->record ? json_get_str(lab->record, "error", NULL) : NULL;

	if (sr->exec_errno)
		lab_set_error(lab, "missing", "cannot run %.300s: %s", lab->path,
			      strerror(sr->exec_errno));
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
	else if (n->by[ST_ERROR])
		lab_set_error(lab, "bad-output", "exited %d with %d claims in error",
			  sr->exit_code, n->by[ST_ERROR]);
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
	if (n.by[ST_FAIL])
		lab->status = ST_FAIL;
	else if (!n.by[ST_PASS] && !n.known && n.by[ST_INCONCLUSIVE])
		lab->status = ST_INCONCLUSIVE; /* decided nothing either way */
	else if (!n.by[ST_PASS] && !n.known)
		lab_skip_info(lab);
	else
		lab->status = ST_PASS;
}

/* A lab that never ran: every claim not_run, the lab an error. */
void record_not_run(struct lab_entry *lab, const char *kind, const char *why)
{
	for (int i = 0; i < lab->nclaims; i++)
		if (!status_decided(lab->claims[i].status))
			lab->claims[i].status = ST_NOT_RUN;
	lab_set_error(lab, kind, "%s", why);
}

/* ------------------------------------------------------------------------ */
/* Totals and the run's status                                              */

void totals_add_lab(const struct lab_entry *lab, struct totals *t)
{
	t->labs++;
	t->lab[lab->status == ST_PENDING ? ST_NOT_RUN : lab->status]++;
	for (int k = 0; k < lab->nclaims; k++) {
		const struct claim *c = &lab->claims[k];

		t->claims++;
		t->unexplained += c->status == ST_FAIL && c->erratum_status[0] && !claim_known(c);
		if (claim_known(c))
			t->erratum++;
		else
			t->claim[status_decided(c->status) ? c->status : ST_NOT_RUN]++;
	}
}

/* This run's labs (the summary line and the exit code). */
void totals_count(const struct run_state *rs, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < rs->nlabs; i++)
		totals_add_lab(&rs->labs[i], t);
}

enum status totals_status(const struct run_state *rs, const struct totals *t)
{
	if (rs->aborted)
		return ST_ABORTED;
	if (!rs->finished)
		return ST_RUNNING; /* a file saved between two labs */
	return t->lab[ST_FAIL] || t->lab[ST_ERROR] ? ST_FAIL : ST_PASS;
}

/* This run's status: the labs it ran. */
enum status run_status(const struct run_state *rs)
{
	struct totals t;

	totals_count(rs, &t);
	return totals_status(rs, &t);
}

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

static int by_lab_id(const void *a, const void *b)
{
	const struct file_lab *x = a, *y = b;

	return strcmp(x->lab->id, y->lab->id);
}

int results_file_labs(const struct run_state *rs, struct file_lab **out)
{
	const struct learn_results *prev = rs->kept;
	const struct json *o = prev ? json_get(prev->doc, "labs")->child : NULL;
	int i, n = 0, nprev = prev ? prev->nlabs : 0;
	struct file_lab *v = calloc((size_t)(rs->nlabs + nprev) + 1, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < rs->nlabs; i++)
		if (!prev || lab_ran(&rs->labs[i]) ||
		    !lab_by_id(prev->labs, prev->nlabs, rs->labs[i].id))
			v[n++].lab = &rs->labs[i];
	/* the earlier file's labs that no lab of this run replaces (results_load
	 * read its labs array in order, one entry per object) */
	for (i = 0; i < nprev; i++, o = o->next) {
		if (lab_ran(lab_by_id(rs->labs, rs->nlabs, prev->labs[i].id)))
			continue;
		v[n].lab = &prev->labs[i];
		v[n++].kept = o;
	}
	if (prev)
		qsort(v, (size_t)n, sizeof(*v), by_lab_id);
	*out = v;
	return n;
}

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
	copy(lab->skip_reason, sizeof(lab->skip_reason), json_get_str(skip, "reason", ""));
	copy(lab->skip_detail, sizeof(lab->skip_detail), json_get_str(skip, "detail", ""));
	lab->error_kind = json_get_str(error, "kind", NULL);
	copy(lab->error_msg, sizeof(lab->error_msg), json_get_str(error, "message", ""));
	lab->exit_code = -1;
}

static int load_labs(struct learn_results *r, const struct json *labs)
{
	int i = 0;

	r->labs = calloc(labs->count + 1, sizeof(*r->labs));
	if (!r->labs)
		return -1;
	for (const struct json *o = labs->child; o; o = o->next) {
		struct lab_entry *lab = &r->labs[i];

		if (o->type != JSON_OBJ || !json_get_str(o, "id", NULL))
			return -1;
		copy(lab->id, sizeof(lab->id), json_get_str(o, "id", ""));
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
int results_unfinished(const struct json *doc, const char *path, char *err, size_t errlen)
{
	const char *status = json_get_str(doc, "status", "");
	enum status s = status_parse(status);

	if (s != ST_RUNNING && s != ST_INCOMPLETE)
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
		goto refuse;
	}
	if (results_unfinished(r->doc, path, err, errlen))
		goto refuse;
	r->started = json_get_str(r->doc, "started", "");
	if (load_labs(r, labs)) {
		snprintf(err, errlen, "%s: a lab or claim without an id", path);
		goto refuse;
	}
	/* a run records each lab once; twice, a reader would count its figures
	 * twice (dmalab.prom: two series of one name and labels) */
	for (int i = 1; i < r->nlabs; i++)
		if (lab_by_id(r->labs, i, r->labs[i].id)) {
			snprintf(err, errlen, MSG("results.err-lab-twice", "%s: lab '%s' is listed "
				 "twice: a results.json lists each lab once"), path, r->labs[i].id);
			goto refuse;
		}
	return 0;
refuse:
	results_unload(r);
	errno = EINVAL;
	return -1;
}

void results_unload(struct learn_results *r)
{
	for (int i = 0; i < r->nlabs; i++)
		lab_entry_free(&r->labs[i]);
	free(r->labs);
	json_free(r->doc); /* titles and statuses point into it */
	for (int i = 0; i < r->nmore; i++)
		json_free(r->more[i]);
	memset(r, 0, sizeof(*r));
}

/* Labs of `more` that r lacks move into r; r keeps more's document alive,
 * since their titles point into it.  `more` is consumed. */
void results_merge(struct learn_results *r, struct learn_results *more)
{
	struct lab_entry *labs = realloc(r->labs, (size_t)(r->nlabs + more->nlabs + 1) *
					 sizeof(*labs));
	if (!labs || r->nmore == LEARN_MAX_MORE) {
		r->labs = labs ? labs : r->labs;
		results_unload(more);
		return;
	}
	r->labs = labs;
	for (int i = 0; i < more->nlabs; i++) {
		if (lab_by_id(r->labs, r->nlabs, more->labs[i].id))
			lab_entry_free(&more->labs[i]);
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
	for (int i = 0; i < r->nlabs; i++)
		for (int k = 0; k < r->labs[i].nclaims; k++)
			if (!strcmp(r->labs[i].claims[k].id, id)) {
				if (lab)
					*lab = &r->labs[i];
				return &r->labs[i].claims[k];
			}
	return NULL;
}
