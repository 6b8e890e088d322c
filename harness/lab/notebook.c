/*
 * notebook.c - what a running lab writes down: its notes, progress and
 * facts, and its end: lab_error and lab_finish_exit write the record and
 * exit.  Options, needs, claims, statistics, buffers and helpers call down
 * to it; it calls only the record's writer (report.c) and the signal path
 * (interrupt.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_internal.h"
#include "lang.h"
#include "usage.h"

static int count_status(const struct lab *L, enum status status)
{
	int n = 0;

	for (int i = 0; i < L->nclaims; i++)
		n += L->claims[i].r.status == status;
	return n;
}

/* Contradictions that are not the known erratum's predicted finding. */
static int count_unexplained(const struct lab *L)
{
	int n = 0;

	for (int i = 0; i < L->nclaims; i++)
		n += L->claims[i].r.status == ST_FAIL && !claim_known(&L->claims[i].r);
	return n;
}

/* Whole-lab skip exits 77, except under a TAP harness that reads the stream. */
static int skip_exit_code(void)
{
	const char *tap = getenv("DMALAB_TAP");

	return tap && strcmp(tap, "1") == 0 ? 0 : 77;
}

void lab_finish_exit(struct lab *L, int code)
{
	interrupt_disarm(); /* the record written below is the last word */
	if (code == 99)
		L->status = ST_ERROR;
	else if (count_unexplained(L))
		L->status = ST_FAIL, code = 1;
	else if (count_status(L, ST_SKIP) == L->nclaims)
		L->status = ST_SKIP, code = skip_exit_code();
	else if (!count_status(L, ST_PASS) && !count_status(L, ST_FAIL))
		L->status = ST_INCONCLUSIVE, code = 0; /* decided nothing either way */
	else
		L->status = ST_PASS, code = 0;
	/* a record not written is a setup error: what the lab measured is kept
	 * nowhere (lab_error comes back here, and the write is not tried again) */
	if (report_json_write(L) < 0)
		lab_error(L, "--json '%s': cannot write it: %s", L->opt.json_path,
			  strerror(L->record_lost));
	fflush(stdout);
	exit(code);
}

static void vlab_error(struct lab *L, const char *fmt, va_list ap, int with_errno)
{
	int e = errno;

	vsnprintf(L->error, sizeof(L->error), fmt, ap);
	if (with_errno) {
		size_t n = strlen(L->error);

		/* a -1 with errno untouched (a learner's region can return one) is
		 * no "Success" */
		snprintf(L->error + n, sizeof(L->error) - n, ": %s",
			 e ? strerror(e) : "failed without setting errno");
	}
	error("error: %s", L->error);
	if (L->opt.role)
		exit(99);
	for (int i = 0; i < L->nclaims; i++) {
		struct claim_rec *c = &L->claims[i];

		if (c->r.status != ST_PENDING)
			continue;
		snprintf(c->r.detail, sizeof(c->r.detail), "the lab broke before deciding it");
		c->r.status = ST_ERROR;
		report_tap_claim(L, c, "");
	}
	printf("Bail out! %s\n", L->error);
	lab_finish_exit(L, 99);
}

void lab_error(struct lab *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlab_error(L, fmt, ap, 0);
	va_end(ap);
	exit(99); /* not reached */
}

void lab_error_errno(struct lab *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlab_error(L, fmt, ap, 1);
	va_end(ap);
	exit(99); /* not reached */
}

static void add_note(struct lab *L, const char *text)
{
	char **n = realloc(L->notes, sizeof(*n) * (size_t)(L->nnotes + 1));

	if (!n)
		return;
	L->notes = n;
	L->notes[L->nnotes] = strdup(text);
	if (L->notes[L->nnotes])
		L->nnotes++;
}

/* One narrative line; embedded newlines start new comment lines. */
static void print_comment(const char *text)
{
	const char *p = text;

	printf("# ");
	for (; *p; p++) {
		putchar(*p);
		if (*p == '\n' && p[1])
			printf("# ");
	}
	putchar('\n');
	fflush(stdout);
}

/* fmt may be a MSG() text in the learner's language: the comment shows it,
 * the record (JSON's notes) keeps its English, the same in every language. */
void lab_note(struct lab *L, const char *fmt, ...)
{
	char buf[1024], en[1024];
	va_list ap;

	va_start(ap, fmt);
	msg_vformat(en, sizeof(en), buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (L->opt.role) {
		fprintf(stderr, "%s\n", buf);
		return;
	}
	print_comment(buf);
	add_note(L, en);
}

/* A new phase from now on; past LAB_MAX_PHASES the last one grows. */
void lab_phase_begin(struct lab *L, const char *what, double now)
{
	struct lab_phase *p;

	if (L->opt.role || !L->started)
		return;
	if (!L->phases && !(L->phases = calloc(LAB_MAX_PHASES, sizeof(*L->phases))))
		return; /* timing of phases is a nicety: never an error */
	if (L->nphases == LAB_MAX_PHASES)
		return;
	p = &L->phases[L->nphases++];
	snprintf(p->what, sizeof(p->what), "%.95s", what);
	p->start_s = now - L->started;
}

/* fmt may be a MSG() text: the learner reads it, JSON's phases keep its English. */
void lab_progress(struct lab *L, const char *fmt, ...)
{
	char buf[256], en[256];
	double now = lab_now();
	va_list ap;

	va_start(ap, fmt);
	msg_vformat(en, sizeof(en), buf, sizeof(buf), fmt, ap);
	va_end(ap);
	lab_phase_begin(L, en, now);
	if (isatty(STDERR_FILENO)) {
		fprintf(stderr, "\r\033[K# %s", buf);
		fflush(stderr);
		return;
	}
	if (now - L->last_progress < 2.0 || L->opt.role)
		return;
	L->last_progress = now;
	printf("# ");
	printf(MSG("progress", "progress: %s"), buf);
	putchar('\n');
	fflush(stdout);
}

static struct lab_fact *new_fact(struct lab *L, const char *key)
{
	struct lab_fact *f = realloc(L->facts, sizeof(*f) * (size_t)(L->nfacts + 1));

	if (!f)
		lab_error(L, "out of memory");
	L->facts = f;
	f = &L->facts[L->nfacts++];
	memset(f, 0, sizeof(*f));
	snprintf(f->key, sizeof(f->key), "%s", key);
	return f;
}

void lab_fact_num(struct lab *L, const char *key, double v, const char *unit)
{
	struct lab_fact *f = new_fact(L, key);

	f->num = v;
	snprintf(f->unit, sizeof(f->unit), "%s", unit ? unit : "");
	if (L->opt.verbose)
		lab_note(L, MSG("lab.fact-num", "fact %s = %.6g %s"), key, v, f->unit);
}

void lab_fact_str(struct lab *L, const char *key, const char *v)
{
	struct lab_fact *f = new_fact(L, key);

	f->str = strdup(v ? v : "");
	if (L->opt.verbose)
		lab_note(L, MSG("lab.fact-str", "fact %s = %s"), key, f->str ? f->str : "");
}

