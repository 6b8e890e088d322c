/*
 * lab_main.c - a lab's life: options, plan, run, verdicts, exit code;
 * plus the narrative, facts and series that go into its record.
 */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_topo.h"
#include "lab_internal.h"
#include "lang.h"
#include "need.h"

static int count_claims(const struct lab_spec *spec)
{
	int n = 0;

	while (spec->claims && spec->claims[n].id)
		n++;
	return n;
}

static void lab_init(struct lab *L, const struct lab_spec *spec, const char *self)
{
	memset(L, 0, sizeof(*L));
	L->spec = spec;
	L->self = self;
	L->status = ST_RUNNING;
	L->tap_next = 1;
	L->opt.size = spec->default_size;
	L->opt.iters = spec->default_iters >= 7 ? spec->default_iters : 7;
	L->opt.seed = 1;
	L->nclaims = count_claims(spec);
	L->claims = calloc((size_t)L->nclaims + 1, sizeof(*L->claims));
	if (!L->claims) {
		fprintf(stderr, "lab-%s: out of memory\n", spec->id);
		exit(99);
	}
	for (int i = 0; i < L->nclaims; i++) {
		struct claim_rec *c = &L->claims[i];
		const struct claim_spec *s = &spec->claims[i];

		c->spec = s;
		claim_reset(&c->r);
		snprintf(c->r.id, sizeof(c->r.id), "%s", s->id);
		c->r.question = claim_own_question(s, c->question, sizeof(c->question));
		c->r.text = s->text;
		c->r.chapter = s->chapter;
		c->r.sabotage = s->sabotage;
	}
}

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
	report_json_write(L);
	fflush(stdout);
	exit(code);
}

static void vlab_error(struct lab *L, const char *fmt, va_list ap, int with_errno)
{
	int e = errno;

	vsnprintf(L->error, sizeof(L->error), fmt, ap);
	if (with_errno) {
		size_t n = strlen(L->error);

		snprintf(L->error + n, sizeof(L->error) - n, ": %s", strerror(e));
	}
	fprintf(stderr, "lab-%s: error: %s\n", L->spec->id, L->error);
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
	const char *english = msg_english(fmt);
	char buf[1024], en[1024];
	va_list ap, ap2;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	vsnprintf(en, sizeof(en), english, ap2);
	va_end(ap2);
	va_end(ap);
	if (L->opt.role) {
		fprintf(stderr, "%s\n", buf);
		return;
	}
	print_comment(buf);
	add_note(L, en);
}

/* A new phase from now on; past LAB_MAX_PHASES the last one grows. */
static void phase_begin(struct lab *L, const char *what, double now)
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
	va_list ap, ap2;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	vsnprintf(en, sizeof(en), msg_english(fmt), ap2);
	va_end(ap2);
	va_end(ap);
	phase_begin(L, en, now);
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

static struct lab_series *find_series(struct lab *L, const char *name, const char *x_unit)
{
	struct lab_series *s;

	for (int i = 0; i < L->nseries; i++)
		if (strcmp(L->series[i].name, name) == 0)
			return &L->series[i];
	s = realloc(L->series, sizeof(*s) * (size_t)(L->nseries + 1));
	if (!s)
		lab_error(L, "out of memory");
	L->series = s;
	s = &L->series[L->nseries++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->x_unit, sizeof(s->x_unit), "%s", x_unit ? x_unit : "");
	return s;
}

void lab_series_point(struct lab *L, const char *series, const char *x_unit,
		      double x, const struct lab_stats *y)
{
	struct lab_series *s = find_series(L, series, x_unit);

	if (s->npts == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		struct lab_point *p = realloc(s->pts, sizeof(*p) * (size_t)cap);

		if (!p)
			lab_error(L, "out of memory");
		s->pts = p;
		s->cap = cap;
	}
	s->pts[s->npts].x = x;
	s->pts[s->npts].y = stats_kept(y);
	s->npts++;
}

/* Every claim must have a verdict: an undecided one is a bug in the lab. */
static void check_all_decided(struct lab *L)
{
	for (int i = 0; i < L->nclaims; i++)
		if (L->claims[i].r.status == ST_PENDING)
			lab_error(L, "BUG: claim %s was never decided (no verdict, no skip)",
				  L->claims[i].spec->id);
}

/*
 * An unusable --json path is a usage error, found before measuring: a
 * directory or a device, or a directory where no file can be made (the
 * record is written to a temporary file there, then renamed over FILE).
 */
static int check_json_path(const struct lab *L)
{
	const char *path = L->opt.json_path, *why = NULL;
	char tmp[4096], dir[4096];
	struct stat st;
	int fd;

	if (!path)
		return 0;
	if (!path[0] || snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		why = "not a usable file name";
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		why = "is a directory";
	else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		why = "not a regular file";
	if (!why && (fd = mkstemp(tmp)) < 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(tmp, sizeof(tmp), "cannot create a file in %s: %s", dirname(dir),
			 strerror(errno));
		why = tmp;
	} else if (!why) {
		close(fd);
		unlink(tmp);
	}
	if (why)
		lab_usage_error(L, "json", path, "%s", why);
	return why != NULL;
}

/*
 * --device past the last GPU is a usage error in every lab, found before
 * measuring (asked only when --device was given: it runs cuInit here).
 */
static int check_device(const struct lab *L)
{
	struct gpu_cuda_list c;
	char msg[80], ordinal[16];

	if (!L->opt.device_given)
		return 0;
	gpu_cuda_list_read(&c);
	if (gpu_ordinal_check(L->opt.device, &c, msg, sizeof(msg)) == 0)
		return 0;
	snprintf(ordinal, sizeof(ordinal), "%d", L->opt.device);
	lab_usage_error(L, "device", ordinal, "no such GPU: %s", msg);
	return 1;
}

/*
 * The errata are read before anything is measured: a missing or malformed
 * DMALAB_ERRATA file, or an erratum of this lab's that could not be wrong
 * (errata_check_want), is bad input (one line, exit 2), not found after a
 * contradiction.  --describe checks too, for `dmalab claims`.
 */
static int check_errata(const struct lab *L)
{
	const struct errata *all;
	const struct erratum *e;
	char err[300];

	if (!(all = errata_builtin(err, sizeof(err))))
		goto refused;
	for (const struct claim_spec *c = L->spec->claims; c->id; c++)
		if ((e = errata_find(all, c->id)) && errata_check_want(e, &c->want, err,
								       sizeof(err)) < 0)
			goto refused;
	return 0;
refused:
	fprintf(stderr, "lab-%s: errata: %s\n", L->spec->id, err);
	return 1;
}

/* Claim ids in a knob's list and in DMALAB_SABOTAGE: blanks or commas between. */
#define SEP " ,"

int lab_list_has(const char *list, const char *word, size_t len)
{
	for (const char *p = list; *p; p += strcspn(p, SEP)) {
		p += strspn(p, SEP);
		if (strcspn(p, SEP) == len && !strncmp(p, word, len))
			return 1;
	}
	return 0;
}

/* Each claim DMALAB_SABOTAGE names must be backed by a knob of this lab. */
static int check_sabotage_ids(const struct lab_spec *spec, const char *only)
{
	for (const char *p = only + strspn(only, SEP); *p; p += strspn(p, SEP)) {
		size_t len = strcspn(p, SEP);
		const struct lab_knob *k = spec->knobs;

		while (k && k->knob && !lab_list_has(k->claims, p, len))
			k++;
		if (!k || !k->knob) {
			fprintf(stderr, "lab-%s: DMALAB_SABOTAGE '%.*s': no knob of this lab "
				"backs that claim\n", spec->id, (int)len, p);
			return 2;
		}
		p += len;
	}
	return 0;
}

/* Whether the sabotage build breaks knob k: every knob when DMALAB_SABOTAGE
 * names nothing, else those backing a claim it names. */
static int knob_selected(const struct lab_knob *k, const char *only)
{
	if (!only || !only[strspn(only, SEP)])
		return 1;
	for (const char *p = k->claims + strspn(k->claims, SEP); *p; p += strspn(p, SEP)) {
		size_t len = strcspn(p, SEP);

		if (lab_list_has(only, p, len))
			return 1;
		p += len;
	}
	return 0;
}

/*
 * The sabotage build breaks the selected knobs (say 0) and, after the
 * header, says so in a TAP comment each (say 1); the normal build keeps
 * them as declared.  Returns 0, or 2 (a usage error, said on stderr).
 */
static int apply_knobs(const struct lab_spec *spec, int build_flags, int say)
{
	const char *only = getenv("DMALAB_SABOTAGE");

	if (!(build_flags & LAB_BUILT_SABOTAGE) || !spec->knobs)
		return 0;
	if (!say && only && check_sabotage_ids(spec, only))
		return 2;
	for (const struct lab_knob *k = spec->knobs; k->knob; k++) {
		if (say)
			printf("# sabotage: %s %s (claims %s)\n", k->name,
			       knob_selected(k, only) ? "broken" : "as declared", k->claims);
		else if (knob_selected(k, only))
			*k->knob = k->broken;
	}
	return 0;
}

int lab_main(const struct lab_spec *spec, void (*run)(struct lab *L),
	     int argc, char **argv, int build_flags)
{
	static struct lab lab;
	struct lab *L = &lab;
	int describe = 0, rc;

	lab_init(L, spec, argv[0]);
	stats_storage_owner(L);
	L->build_flags = build_flags;
	rc = lab_parse_args(L, argc, argv, &describe);
	if (rc)
		return rc;
	if (!describe && apply_knobs(spec, build_flags, 0))
		return 2;
	if (!describe && !L->opt.role && check_json_path(L))
		return 2;
	if (!L->opt.role && check_errata(L))
		return 2;
	if (!describe && !L->opt.role && check_device(L))
		return 2;
	if (!describe && !L->opt.role && spec->check_opts) {
		rc = spec->check_opts(L);
		if (rc)
			return rc;
	}
	if (describe) {
		report_describe(spec, build_flags, stdout);
		return 0;
	}
	if (L->opt.role) {
		if (!spec->role)
			return lab_usage_error(L, "role", L->opt.role,
					       "this lab has no helper roles");
		return spec->role(L, L->opt.role);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	report_tap_header(L);
	apply_knobs(spec, build_flags, 1);
	interrupt_arm(L); /* Ctrl-C from here on leaves an "interrupted" record */
	L->started = lab_now();
	phase_begin(L, "start: before the lab's first step", L->started);
	run(L);
	check_all_decided(L);
	lab_finish_exit(L, 0);
	return 0;
}
