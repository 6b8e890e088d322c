/*
 * claim.c - recording one verdict per claim.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"

static const char *const skip_reasons[] = {
	SKIP_NOT_BUILT_NO_NVCC, SKIP_NO_CUDA_DRIVER, SKIP_NO_CUDA_DEVICE,
	SKIP_TOO_FEW_GPUS, SKIP_GPU_TOO_SMALL, SKIP_SINGLE_NUMA_NODE,
	SKIP_NUMA_UNAVAILABLE, SKIP_NOT_ROOT, SKIP_NO_CAPABILITY, SKIP_UNSUPPORTED,
	SKIP_UNKNOWN_TOPOLOGY, SKIP_DEPENDS_ON_CLAIM, SKIP_NOT_ENOUGH_MEMORY,
};

int lab_skip_reason_valid(const char *reason)
{
	size_t i;

	for (i = 0; reason && i < sizeof(skip_reasons) / sizeof(skip_reasons[0]); i++)
		if (strcmp(reason, skip_reasons[i]) == 0)
			return 1;
	return 0;
}

int lab_relation_holds(const char *op, double got, double a, double b,
		       double abs_tol, double rel_tol)
{
	if (!isfinite(got) || !isfinite(a))
		return 0;
	if (strcmp(op, "near") == 0)
		return isfinite(abs_tol) && isfinite(rel_tol) &&
		       fabs(got - a) <= abs_tol + rel_tol * fabs(a);
	if (strcmp(op, "ge") == 0)
		return got >= a;
	if (strcmp(op, "gt") == 0)
		return got > a;
	if (strcmp(op, "le") == 0)
		return got <= a;
	if (strcmp(op, "lt") == 0)
		return got < a;
	if (strcmp(op, "in_range") == 0)
		return isfinite(b) && got >= a && got <= b;
	return 0;
}

/* A lab bug (unknown or twice-decided claim): not a finding, an error. */
static struct claim_rec *claim_for_decision(struct lab *L, const char *id)
{
	struct claim_rec *c = claim_find(L, id);

	if (!c)
		lab_error(L, "BUG: claim '%s' is not in the lab's spec", id ? id : "(null)");
	if (strcmp(c->status, "pending") != 0)
		lab_error(L, "BUG: claim '%s' decided twice", id);
	return c;
}

struct claim_rec *claim_find(struct lab *L, const char *id)
{
	int i;

	for (i = 0; id && i < L->nclaims; i++)
		if (strcmp(L->claims[i].spec->id, id) == 0)
			return &L->claims[i];
	return NULL;
}

int claim_decided(const struct lab *L, const char *id)
{
	struct claim_rec *c = claim_find((struct lab *)L, id);

	return c && strcmp(c->status, "pending") != 0;
}

void claim_stats(struct lab *L, const struct lab_stats *s)
{
	struct lab_stats *copy;

	if (L->npending >= LAB_MAX_ATTACHED)
		return;
	copy = malloc(sizeof(*copy));
	if (!copy)
		lab_error(L, "out of memory");
	*copy = *s;
	L->pending[L->npending++] = copy;
}

void claim_note(struct lab *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(L->pending_note, sizeof(L->pending_note), fmt, ap);
	va_end(ap);
}

/* Moves the attached series and note onto c, sets its status, reports it. */
void claim_finish(struct lab *L, struct claim_rec *c, const char *status)
{
	int i;

	for (i = 0; i < L->npending; i++)
		c->stats[c->nstats++] = L->pending[i];
	L->npending = 0;
	if (L->pending_note[0]) {
		snprintf(c->note, sizeof(c->note), "%s", L->pending_note);
		L->pending_note[0] = '\0';
	}
	c->status = status;
	report_tap_claim(L, c);
	report_json_write(L);
}

/*
 * Relative spread (max - min) / |median| summed over the attached series
 * that stayed noisy; 0 when none did.
 */
static double noisy_spread(const struct lab *L)
{
	double spread = 0;
	int i;

	for (i = 0; i < L->npending; i++) {
		const struct lab_stats *s = L->pending[i];

		if (s->noisy)
			spread += isfinite(s->median) && s->median != 0 ?
				  (s->max - s->min) / fabs(s->median) : INFINITY;
	}
	return spread;
}

/*
 * The verdict of a measured relation.  A noisy series makes it
 * `inconclusive` only when the verdict would change somewhere inside the
 * spread that was measured: a median fifty times outside the band is a
 * failure however much the samples scatter.
 */
static const char *settle(struct lab *L, struct claim_rec *c, const char *op, double got,
			  double a, double b, double abs_tol, double rel_tol)
{
	int ok = lab_relation_holds(op, got, a, b, abs_tol, rel_tol);
	double spread = noisy_spread(L);

	if (spread == 0)
		return ok ? "pass" : "fail";
	if (isfinite(spread) &&
	    lab_relation_holds(op, got * (1 - spread), a, b, abs_tol, rel_tol) == ok &&
	    lab_relation_holds(op, got * (1 + spread), a, b, abs_tol, rel_tol) == ok)
		return ok ? "pass" : "fail";
	snprintf(c->reason, sizeof(c->reason), "inconclusive");
	snprintf(c->detail, sizeof(c->detail), "a measured series stayed above its CV limit "
		 "after a re-measure, and the verdict changes within its spread (%.0f %%)",
		 100 * spread);
	return "inconclusive";
}

static void set_unit(struct claim_rec *c, const char *unit)
{
	snprintf(c->unit, sizeof(c->unit), "%s", unit ? unit : "");
}

static void decide(struct lab *L, const char *id, const char *op, double got,
		   double a, double b, double abs_tol, double rel_tol, const char *unit)
{
	struct claim_rec *c = claim_for_decision(L, id);
	const char *verdict = settle(L, c, op, got, a, b, abs_tol, rel_tol);

	c->op = op;
	c->got = got;
	c->has_got = 1;
	if (strcmp(op, "in_range") == 0) {
		c->lo = a;
		c->hi = b;
		c->has_range = 1;
	} else {
		c->want = a;
		c->has_want = 1;
	}
	if (strcmp(op, "near") == 0) {
		c->abs_tol = abs_tol;
		c->rel_tol = rel_tol;
		c->has_tol = 1;
	}
	set_unit(c, unit);
	claim_finish(L, c, verdict);
}

void claim_near(struct lab *L, const char *id, double got, double want,
		double abs_tol, double rel_tol, const char *unit)
{
	decide(L, id, "near", got, want, NAN, abs_tol, rel_tol, unit);
}

void claim_ge(struct lab *L, const char *id, double got, double want, const char *unit)
{
	decide(L, id, "ge", got, want, NAN, 0, 0, unit);
}

void claim_gt(struct lab *L, const char *id, double got, double want, const char *unit)
{
	decide(L, id, "gt", got, want, NAN, 0, 0, unit);
}

void claim_le(struct lab *L, const char *id, double got, double want, const char *unit)
{
	decide(L, id, "le", got, want, NAN, 0, 0, unit);
}

void claim_lt(struct lab *L, const char *id, double got, double want, const char *unit)
{
	decide(L, id, "lt", got, want, NAN, 0, 0, unit);
}

void claim_in_range(struct lab *L, const char *id, double got, double lo, double hi,
		    const char *unit)
{
	decide(L, id, "in_range", got, lo, hi, 0, 0, unit);
}

static void decide_ratio(struct lab *L, const char *id, const char *op, const char *rel,
			 const struct lab_stats *num, const struct lab_stats *den, double k)
{
	double got = den->median != 0 ? num->median / den->median : NAN;
	struct claim_rec *c = claim_for_decision(L, id);

	claim_stats(L, num);
	claim_stats(L, den);
	c->op = op;
	c->got = got;
	c->has_got = 1;
	c->want = k;
	c->has_want = 1;
	set_unit(c, "x");
	claim_finish(L, c, settle(L, c, rel, got, k, NAN, 0, 0));
}

void claim_ratio_ge(struct lab *L, const char *id, const struct lab_stats *num,
		    const struct lab_stats *den, double k)
{
	decide_ratio(L, id, "ratio_ge", "ge", num, den, k);
}

void claim_ratio_le(struct lab *L, const char *id, const struct lab_stats *num,
		    const struct lab_stats *den, double k)
{
	decide_ratio(L, id, "ratio_le", "le", num, den, k);
}

static void decide_exact(struct lab *L, const char *id, const char *op, long long got,
			 long long want, const char *got_name, const char *want_name,
			 const char *unit)
{
	struct claim_rec *c = claim_for_decision(L, id);

	c->op = op;
	c->got = (double)got;
	c->want = (double)want;
	c->has_got = c->has_want = 1;
	snprintf(c->got_name, sizeof(c->got_name), "%s", got_name ? got_name : "");
	snprintf(c->want_name, sizeof(c->want_name), "%s", want_name ? want_name : "");
	set_unit(c, unit);
	claim_finish(L, c, got == want ? "pass" : "fail");
}

void claim_int_eq(struct lab *L, const char *id, long long got, long long want,
		  const char *unit)
{
	decide_exact(L, id, "int_eq", got, want, NULL, NULL, unit);
}

static const char *errno_name(int e)
{
	const char *n = e == 0 ? "0" : strerrorname_np(e);

	return n ? n : "unknown errno";
}

void claim_errno_eq(struct lab *L, const char *id, int got_errno, int want_errno)
{
	decide_exact(L, id, "errno_eq", got_errno, want_errno, errno_name(got_errno),
		     errno_name(want_errno), "errno");
}

void claim_cuda_err_eq(struct lab *L, const char *id, int got, const char *got_name,
		       int want, const char *want_name)
{
	decide_exact(L, id, "cuda_err_eq", got, want, got_name, want_name, "cudaError_t");
}

void claim_true(struct lab *L, const char *id, int got, const char *what)
{
	decide_exact(L, id, "true", got != 0, 1, got ? "true" : "false", "true", "");
	if (what && what[0]) {
		struct claim_rec *c = claim_find(L, id);

		if (!c->note[0])
			snprintf(c->note, sizeof(c->note), "%s", what);
	}
}

static void skip_one(struct lab *L, struct claim_rec *c, const char *reason,
		     const char *detail)
{
	snprintf(c->reason, sizeof(c->reason), "%s", reason);
	snprintf(c->detail, sizeof(c->detail), "%s", detail);
	claim_finish(L, c, "skip");
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
	char detail[256];
	va_list ap;

	check_reason(L, reason);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	skip_one(L, c, reason, detail);
}

static void skip_rest(struct lab *L, const char *reason, const char *detail)
{
	int i;

	for (i = 0; i < L->nclaims; i++)
		if (strcmp(L->claims[i].status, "pending") == 0)
			skip_one(L, &L->claims[i], reason, detail);
}

void claim_skip_rest(struct lab *L, const char *reason, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	check_reason(L, reason);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	skip_rest(L, reason, detail);
}

void lab_skip(struct lab *L, const char *reason, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	check_reason(L, reason);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	snprintf(L->skip_reason, sizeof(L->skip_reason), "%s", reason);
	snprintf(L->skip_detail, sizeof(L->skip_detail), "%s", detail);
	skip_rest(L, reason, detail);
	lab_finish_exit(L, 77);
}

void lab_run_not_built(struct lab *L)
{
	lab_skip(L, SKIP_NOT_BUILT_NO_NVCC,
		 "this lab needs CUDA and was built without nvcc (install the CUDA toolkit and rebuild)");
}
