/*
 * claim.c - recording one verdict per claim.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lab_internal.h"

static const char *const skip_reasons[] = {
	SKIP_NOT_BUILT_NO_NVCC, SKIP_NO_CUDA_DRIVER, SKIP_NO_CUDA_DEVICE, SKIP_CUDA_CANNOT_START,
	SKIP_TOO_FEW_GPUS, SKIP_SINGLE_GPU, SKIP_GPU_TOO_SMALL, SKIP_SINGLE_NUMA_NODE,
	SKIP_NUMA_UNAVAILABLE, SKIP_NOT_ROOT, SKIP_NO_CAPABILITY, SKIP_UNSUPPORTED,
	SKIP_UNKNOWN_TOPOLOGY, SKIP_DEPENDS_ON_CLAIM, SKIP_NOT_ENOUGH_MEMORY, SKIP_NOT_ENOUGH_SPACE,
	SKIP_NO_LIBRARY, SKIP_NO_RDMA_DEVICE, SKIP_IN_USE, SKIP_NOT_REQUESTED,
};

int lab_skip_reason_valid(const char *reason)
{
	for (size_t i = 0; reason && i < sizeof(skip_reasons) / sizeof(skip_reasons[0]); i++)
		if (strcmp(reason, skip_reasons[i]) == 0)
			return 1;
	return 0;
}

/* A lab bug (unknown or twice-decided claim): not a finding, an error. */
static struct claim_rec *claim_for_decision(struct lab *L, const char *id)
{
	struct claim_rec *c = NULL;

	for (int i = 0; id && i < L->nclaims && !c; i++)
		if (strcmp(L->claims[i].spec->id, id) == 0)
			c = &L->claims[i];
	if (!c)
		lab_error(L, "BUG: claim '%s' is not in the lab's spec", id ? id : "(null)");
	if (c->r.status != ST_PENDING)
		lab_error(L, "BUG: claim '%s' decided twice", id);
	return c;
}

void claim_stats(struct lab *L, const struct lab_stats *s)
{
	if (L->npending >= LAB_MAX_ATTACHED)
		return;
	L->pending[L->npending++] = stats_kept(s);
}

void claim_vnote(struct lab *L, const char *fmt, va_list ap)
{
	msg_vformat(L->pending_note, sizeof(L->pending_note), L->pending_note_shown,
		    sizeof(L->pending_note_shown), fmt, ap);
}

/* sep and text at the end of note (len bytes), cut to fit; text alone if empty. */
static void note_append(char *note, size_t len, const char *sep, const char *text)
{
	size_t n = strlen(note);

	snprintf(note + n, len - n, "%s%s", n ? sep : "", text);
}

void claim_note_add(struct lab *L, const char *fmt, ...)
{
	char en[512], shown[512];
	va_list ap;

	va_start(ap, fmt);
	msg_vformat(en, sizeof(en), shown, sizeof(shown), fmt, ap);
	va_end(ap);
	note_append(L->pending_note, sizeof(L->pending_note), "; ", en);
	note_append(L->pending_note_shown, sizeof(L->pending_note_shown),
		    MSG("note.sep", "; "), shown);
}

/* fmt may be a MSG() text: the learner reads it (report_tap_claim), the
 * record keeps its English, the same in every language, as lab_note's. */
void claim_note(struct lab *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	claim_vnote(L, fmt, ap);
	va_end(ap);
}

/* Moves the attached series and note onto c, sets its status, reports it. */
static void claim_finish(struct lab *L, struct claim_rec *c, enum status status)
{
	for (int i = 0; i < L->npending; i++)
		c->stats[c->nstats++] = L->pending[i];
	L->npending = 0;
	if (L->pending_note[0])
		snprintf(c->r.note, sizeof(c->r.note), "%s", L->pending_note);
	c->r.status = status;
	report_tap_claim(L, c, L->pending_note[0] ? L->pending_note_shown : "");
	L->pending_note[0] = L->pending_note_shown[0] = '\0';
	interrupt_render(L); /* what a signal now would leave behind */
}

/* Copies the spec's relation into the record, for TAP and JSON. */
static void record_want(struct claim_rec *c)
{
	const struct claim_want *w = &c->spec->want;

	snprintf(c->r.op, sizeof(c->r.op), "%s", w->op);
	if (!strcmp(w->op, "in_range")) {
		c->r.lo = w->a;
		c->r.hi = w->b;
		c->r.has_range = 1;
	} else if (strcmp(w->op, "true") != 0 && !(w->name && isnan(w->a))) {
		c->r.want = w->a;
		c->r.has_want = 1;
	}
	if (!strcmp(w->op, "near")) {
		c->r.tol_abs = w->abs_tol;
		c->r.tol_rel = w->rel_tol;
		c->r.has_tol = 1;
	}
	if (w->name)
		snprintf(c->r.want_name, sizeof(c->r.want_name), "%s", w->name);
	snprintf(c->r.unit, sizeof(c->r.unit), "%s", w->unit ? w->unit : "");
}

static const struct lab_fact *fact_find(const struct lab *L, const char *key)
{
	for (int i = 0; i < L->nfacts; i++)
		if (!strcmp(L->facts[i].key, key))
			return &L->facts[i];
	return NULL;
}

/*
 * 1 when the erratum's when: line holds for this lab's recorded facts.  A
 * fact the lab never recorded (a misspelt name, or recorded too late) is a
 * bug, not a reason to turn the erratum off without a word.
 */
static int erratum_applies(struct lab *L, const struct erratum *e)
{
	const struct lab_fact *f;

	if (!e->when_fact[0])
		return 1;
	f = fact_find(L, e->when_fact);
	if (!f || f->str)
		lab_error(L, "BUG: erratum %s's 'when: %s' names a numeric fact the lab has "
			  "not recorded before deciding the claim", e->id, e->when_text);
	return lab_relation_verdict(&e->when, lab_est_exact(f->num), NULL) == LAB_HOLDS;
}

static enum status inconclusive(struct claim_rec *c, const char *fmt, double a, double b)
{
	snprintf(c->r.reason, sizeof(c->r.reason), "inconclusive");
	snprintf(c->r.detail, sizeof(c->r.detail), fmt, a, b);
	return ST_INCONCLUSIVE;
}

/* The lab's word on the erratum, and what the erratum expects. */
static void set_erratum(struct claim_rec *c, const char *status)
{
	snprintf(c->r.erratum_status, sizeof(c->r.erratum_status), "%s", status);
	snprintf(c->r.erratum_expect, sizeof(c->r.erratum_expect), "%s",
		 c->r.erratum->expect_text);
}

/* A contradicted claim against its erratum, if one is listed. */
static enum status settle_contradiction(struct lab *L, struct claim_rec *c,
					struct lab_est got)
{
	char err[300];
	const struct errata *all = errata_builtin(err, sizeof(err));
	const struct erratum *e = all ? errata_find(all, c->spec->id) : NULL;
	int v;

	if (!all)
		lab_error(L, "the errata cannot be read: %s", err);
	if (!e)
		return ST_FAIL;
	c->r.erratum = e;
	if (!erratum_applies(L, e)) {
		set_erratum(c, "not-applicable");
		return ST_FAIL;
	}
	v = lab_relation_verdict(&e->expect, got, c->r.got_name);
	if (v == LAB_STRADDLES) {
		c->r.erratum_status[0] = '\0';
		return inconclusive(c, "the chapter is contradicted over the whole interval "
				    "[%.4g, %.4g], but whether as the known erratum predicts "
				    "changes within it", got.lo, got.hi);
	}
	set_erratum(c, v == LAB_HOLDS ? "predicted" : "not-predicted");
	return ST_FAIL;
}

/* The verdict of got against the spec's relation (lab.h, "Claims"). */
static enum status settle(struct lab *L, struct claim_rec *c, struct lab_est got)
{
	int v = lab_relation_verdict(&c->spec->want, got, c->r.got_name);

	if (got.too_short && isfinite(got.value)) {
		snprintf(c->r.reason, sizeof(c->r.reason), "inconclusive");
		snprintf(c->r.detail, sizeof(c->r.detail), "a series behind it was timed in "
			 "under 100 steps of its clock: too short to trust");
		return ST_INCONCLUSIVE;
	}
	if (v == LAB_HOLDS)
		return ST_PASS;
	if (v == LAB_STRADDLES)
		return inconclusive(c, "the interval of the measured value [%.4g, %.4g] "
				    "straddles the relation's boundary", got.lo, got.hi);
	return settle_contradiction(L, c, got);
}

void claim_check(struct lab *L, const char *id, struct lab_est got)
{
	struct claim_rec *c = claim_for_decision(L, id);

	record_want(c);
	c->r.got = got.value;
	c->r.has_got = 1;
	if (strcmp(c->spec->want.op, "eq") != 0 && strcmp(c->spec->want.op, "true") != 0) {
		c->r.got_lo = got.lo;
		c->r.got_hi = got.hi;
		c->r.has_interval = 1;
	}
	claim_finish(L, c, settle(L, c, got));
}

void claim_check_median(struct lab *L, const char *id, const struct lab_stats *s)
{
	claim_stats(L, s);
	claim_check(L, id, lab_est_median(s, 1));
}

void claim_check_ratio(struct lab *L, const char *id, const struct lab_stats *num,
		       const struct lab_stats *den)
{
	claim_stats(L, num);
	claim_stats(L, den);
	claim_check(L, id, lab_est_median_ratio(num, den));
}

void claim_check_paired(struct lab *L, const char *id, const char *name,
			const struct lab_stats *num, const struct lab_stats *den)
{
	struct lab_stats ratio;

	lab_stats_paired_ratio(L, &ratio, name, num, den);
	claim_stats(L, num);
	claim_stats(L, den);
	claim_check_median(L, id, &ratio);
}

void claim_inconclusive(struct lab *L, const char *id, const char *why_fmt, ...)
{
	struct claim_rec *c = claim_for_decision(L, id);
	va_list ap;

	record_want(c);
	snprintf(c->r.reason, sizeof(c->r.reason), "inconclusive");
	va_start(ap, why_fmt);
	vsnprintf(c->r.detail, sizeof(c->r.detail), why_fmt, ap);
	va_end(ap);
	claim_finish(L, c, ST_INCONCLUSIVE);
}

/* Exact observations: the named code goes with the number. */
void claim_check_code(struct lab *L, const char *id, long long got, const char *got_name)
{
	struct claim_rec *c = claim_for_decision(L, id);

	snprintf(c->r.got_name, sizeof(c->r.got_name), "%s", got_name ? got_name : "");
	record_want(c);
	c->r.got = (double)got;
	c->r.has_got = 1;
	claim_finish(L, c, settle(L, c, lab_est_exact((double)got)));
}

void claim_check_int(struct lab *L, const char *id, long long got)
{
	claim_check_code(L, id, got, NULL);
}

static const char *errno_name(int e)
{
	const char *n = e == 0 ? "0" : strerrorname_np(e);

	return n ? n : "unknown errno";
}

void claim_check_errno(struct lab *L, const char *id, int got_errno)
{
	claim_check_code(L, id, got_errno, errno_name(got_errno));
}

/* "what<sep>note" in note (len bytes), cut to fit. */
static void note_prepend(char *note, size_t len, const char *sep_text, const char *what)
{
	size_t w = strlen(what), sep = note[0] ? strlen(sep_text) : 0, n = strlen(note);

	if (w + sep + 1 >= len) {
		snprintf(note, len, "%s", what);
		return;
	}
	if (n > len - 1 - w - sep)
		n = len - 1 - w - sep;
	memmove(note + w + sep, note, n);
	note[w + sep + n] = '\0';
	memcpy(note, what, w);
	memcpy(note + w, sep_text, sep);
}

void claim_check_true(struct lab *L, const char *id, int got, const char *what)
{
	if (what && what[0]) {
		note_prepend(L->pending_note, sizeof(L->pending_note), "; ", msg_english(what));
		note_prepend(L->pending_note_shown, sizeof(L->pending_note_shown),
			     MSG("note.sep", "; "), what);
	}
	claim_check_code(L, id, got != 0, got ? "true" : "false");
}

static void skip_one(struct lab *L, struct claim_rec *c, const char *reason,
		     const char *detail)
{
	snprintf(c->r.reason, sizeof(c->r.reason), "%s", reason);
	snprintf(c->r.detail, sizeof(c->r.detail), "%s", detail);
	claim_finish(L, c, ST_SKIP);
}

static void check_reason(struct lab *L, const char *reason)
{
	if (!lab_skip_reason_valid(reason))
		lab_error(L, "BUG: skip reason '%s' is not one of lab.h's codes",
			  reason ? reason : "(null)");
}

void claim_skip(struct lab *L, const char *id, const char *reason, const char *fmt, ...)
{
	struct claim_rec *c = claim_for_decision(L, id);
	char detail[CLAIM_DETAIL_MAX];
	va_list ap;

	check_reason(L, reason);
	va_start(ap, fmt);
	text_vfit(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	skip_one(L, c, reason, detail);
}

static void skip_rest(struct lab *L, const char *reason, const char *detail)
{
	for (int i = 0; i < L->nclaims; i++)
		if (L->claims[i].r.status == ST_PENDING)
			skip_one(L, &L->claims[i], reason, detail);
}

void claim_skip_rest(struct lab *L, const char *reason, const char *fmt, ...)
{
	char detail[CLAIM_DETAIL_MAX];
	va_list ap;

	check_reason(L, reason);
	va_start(ap, fmt);
	text_vfit(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	skip_rest(L, reason, detail);
}

void lab_skip(struct lab *L, const char *reason, const char *fmt, ...)
{
	char detail[CLAIM_DETAIL_MAX];
	va_list ap;

	check_reason(L, reason);
	va_start(ap, fmt);
	text_vfit(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	snprintf(L->skip_reason, sizeof(L->skip_reason), "%s", reason);
	snprintf(L->skip_detail, sizeof(L->skip_detail), "%s", detail);
	skip_rest(L, reason, detail);
	lab_finish_exit(L, 77);
}

void lab_run_not_built(struct lab *L)
{
	lab_skip(L, SKIP_NOT_BUILT_NO_NVCC,
		 "this lab needs CUDA and was built without nvcc (install the CUDA toolkit and "
		 "rebuild)");
}
