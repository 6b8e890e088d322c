/*
 * report.c - a lab's TAP stream on stdout (record.c writes each point), its
 * JSON record and its --describe.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "json.h"
#include "lab_internal.h"
#include "lang.h"

const char *claim_own_question(const struct claim_spec *c, char *buf, size_t len)
{
	const char *q = c->question ? c->question + strspn(c->question, " \t") : "";

	snprintf(buf, len, "%.*s", (int)strcspn(q, " \t"), q);
	return buf;
}

/* The words of a list (separated by any of seps) as a JSON array of strings. */
static void json_words(struct json_writer *w, const char *key, const char *list,
		       const char *seps)
{
	char word[128];
	size_t n;

	jw_karr(w, key);
	while (list && *(list += strspn(list, seps))) {
		n = strcspn(list, seps);
		snprintf(word, sizeof(word), "%.*s", (int)n, list);
		jw_str(w, word);
		list += n;
	}
	jw_arr_end(w);
}

void report_tap_header(struct lab *L)
{
	printf("TAP version 13\n# lab-%s: %s\n1..%d\n", L->spec->id,
	       msg_lab_title(L->spec->id, L->spec->title), L->nclaims); /* a comment: zh too */
	fflush(stdout);
}

static void tap_stats(FILE *out, const struct claim_rec *c)
{
	if (!c->nstats)
		return;
	fprintf(out, "  stats:\n");
	for (int i = 0; i < c->nstats; i++) {
		const struct lab_stats *s = &c->stats[i];

		fprintf(out, "    %s: {n: %d, median: %.6g, min: %.6g, max: %.6g, cv: %.4f, "
			"unit: \"%s\"%s}\n", s->name ? s->name : "series", s->n, s->median,
			s->min, s->max, isfinite(s->cv) ? s->cv : 0.0, s->unit ? s->unit : "",
			s->noisy ? ", noisy: true" : "");
	}
}

/* The claim in the learner's language, as a comment before its test line,
 * which stays English in every language (tools parse it). */
static void tap_claim_text(const struct claim_rec *c)
{
	const char *shown = msg_claim_text(c->r.id, c->r.text);

	if (shown != c->r.text)
		printf("# %s %s\n", c->r.id, shown);
}

/* The note in the learner's language, as "ID note: ..." (human.note's words:
 * the runner knows it by them and shows it in the note's place). */
static void tap_claim_note(const struct claim_rec *c, const char *shown)
{
	if (!shown[0] || !strcmp(shown, c->r.note))
		return;
	printf("# %s ", c->r.id);
	printf(MSG("human.note", "note: %s"), shown);
	putchar('\n');
}

void report_tap_claim(struct lab *L, struct claim_rec *c, const char *note_shown)
{
	tap_claim_text(c);
	tap_claim_note(c, note_shown);
	record_tap_point(stdout, L->tap_next++, &c->r);
	tap_stats(stdout, c);
	record_tap_end(stdout);
}

static void json_stats(struct json_writer *w, const struct lab_stats *s)
{
	jw_obj_begin(w);
	jw_kstr(w, "name", s->name);
	jw_kstr(w, "unit", s->unit);
	jw_kint(w, "n", s->n);
	jw_kint(w, "warmup", s->warmup);
	jw_knum(w, "median", s->median);
	jw_knum(w, "min", s->min);
	jw_knum(w, "max", s->max);
	jw_knum(w, "mean", s->mean);
	jw_knum(w, "cv", s->cv);
	jw_knum(w, "cv_max", s->cv_max);
	jw_kbool(w, "noisy", s->noisy);
	jw_kbool(w, "too_short", s->too_short);
	jw_karr(w, "samples");
	for (int i = 0; i < s->n; i++)
		jw_num(w, s->samples[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

/* A claim and its statistics; in an interrupted record an undecided one is
 * "not_run". */
static void json_claim(struct json_writer *w, const struct claim_rec *c, int interrupted)
{
	record_json_claim(w, &c->r, interrupted && c->r.status == ST_PENDING ? ST_NOT_RUN :
			  c->r.status);
	jw_arr_begin(w);
	for (int i = 0; i < c->nstats; i++)
		json_stats(w, &c->stats[i]);
	jw_arr_end(w);
	jw_obj_end(w);
}

static void json_facts(struct json_writer *w, const struct lab *L)
{
	jw_kobj(w, "facts");
	for (int i = 0; i < L->nfacts; i++) {
		const struct lab_fact *f = &L->facts[i];

		jw_key(w, f->key);
		if (f->str) {
			jw_str(w, f->str);
			continue;
		}
		jw_obj_begin(w);
		jw_knum(w, "value", f->num);
		jw_kstr(w, "unit", f->unit);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void json_series(struct json_writer *w, const struct lab *L)
{
	jw_kobj(w, "series");
	for (int i = 0; i < L->nseries; i++) {
		const struct lab_series *s = &L->series[i];

		jw_kobj(w, s->name);
		jw_kstr(w, "x_unit", s->x_unit);
		jw_kstr(w, "y_unit", s->npts ? s->pts[0].y.unit : NULL);
		jw_karr(w, "points");
		for (int j = 0; j < s->npts; j++) {
			jw_obj_begin(w);
			jw_knum(w, "x", s->pts[j].x);
			jw_key(w, "stats");
			json_stats(w, &s->pts[j].y);
			jw_obj_end(w);
		}
		jw_arr_end(w);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void json_header(struct json_writer *w, const struct lab *L, int interrupted)
{
	jw_kstr(w, "schema", "dmalab-lab/1");
	jw_kstr(w, "id", L->spec->id);
	jw_kstr(w, "title", L->spec->title);
	jw_kstr(w, "topic", L->spec->topic);
	jw_kstr(w, "status", status_words[interrupted ? ST_INTERRUPTED : L->status]);
	jw_key(w, "skip");
	if (L->skip_reason[0]) {
		jw_obj_begin(w);
		jw_kstr(w, "reason", L->skip_reason);
		jw_kstr(w, "detail", L->skip_detail);
		jw_obj_end(w);
	} else {
		jw_null(w);
	}
	jw_kstr(w, "error", or_null(L->error));
	jw_kbool(w, "built_with_cuda", L->build_flags & LAB_BUILT_WITH_CUDA);
	jw_kbool(w, "sabotage", L->build_flags & LAB_BUILT_SABOTAGE);
	jw_kobj(w, "options");
	jw_kbool(w, "quick", L->opt.quick);
	jw_knum(w, "size", (double)L->opt.size);
	jw_kint(w, "iters", L->opt.iters);
	jw_kint(w, "device", L->opt.device);
	jw_kint(w, "seed", (long long)L->opt.seed);
	jw_obj_end(w);
	jw_knum(w, "clock_resolution_s", lab_clock_resolution());
}

/* Each lab_progress step with its start and length (s); the last one runs
 * to now (the record's time of writing). */
static void json_phases(struct json_writer *w, const struct lab *L)
{
	double now = L->started ? lab_now() - L->started : 0;

	jw_karr(w, "phases");
	for (int i = 0; i < L->nphases; i++) {
		const struct lab_phase *p = &L->phases[i];
		double end = i + 1 < L->nphases ? L->phases[i + 1].start_s : now;

		jw_obj_begin(w);
		jw_kstr(w, "what", p->what);
		jw_knum(w, "start_s", p->start_s);
		jw_knum(w, "s", end - p->start_s);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* The record's members, all but the closing brace. */
static void json_record(struct json_writer *w, const struct lab *L, int interrupted)
{
	jw_obj_begin(w);
	json_header(w, L, interrupted);
	jw_karr(w, "claims");
	for (int i = 0; i < L->nclaims; i++)
		json_claim(w, &L->claims[i], interrupted);
	jw_arr_end(w);
	json_facts(w, L);
	json_series(w, L);
	json_phases(w, L);
	jw_karr(w, "notes");
	for (int i = 0; i < L->nnotes; i++)
		jw_str(w, L->notes[i]);
	jw_arr_end(w);
}

/*
 * The record, written once as the lab exits (a signal's record is the
 * interrupt handler's).  -1 when it cannot be written (a full disk, an
 * immutable file): L->record_lost holds the errno, the caller says so.
 */
int report_json_write(struct lab *L)
{
	struct json_writer w;

	if (!L->opt.json_path || L->record_lost)
		return 0;
	jw_init(&w, 1);
	json_record(&w, L, 0);
	jw_obj_end(&w);
	if (jw_write_file(&w, L->opt.json_path) < 0)
		L->record_lost = errno ? errno : EIO;
	jw_release(&w);
	return L->record_lost ? -1 : 0;
}

char *report_json_interrupted(const struct lab *L, size_t *len)
{
	struct json_writer w;

	jw_init(&w, 1);
	json_record(&w, L, 1);
	jw_key(&w, "interrupted_by"); /* the handler writes the signal's name */
	if (w.failed) {
		jw_release(&w);
		return NULL;
	}
	*len = w.len;
	return w.buf; /* the caller owns it */
}

/* The claim's relation as data and as text ("want" in --describe). */
static void describe_want(struct json_writer *w, const struct claim_want *want)
{
	char text[96];

	jw_kobj(w, "want");
	jw_kstr(w, "op", want->op);
	jw_knum(w, "a", want->a);
	jw_knum(w, "b", want->b);
	jw_knum(w, "abs_tol", want->abs_tol);
	jw_knum(w, "rel_tol", want->rel_tol);
	jw_kstr(w, "unit", want->unit);
	jw_kstr(w, "name", want->name);
	jw_kstr(w, "text", lab_want_text(want, text, sizeof(text)));
	jw_obj_end(w);
}

/*
 * The sabotage knobs and the claims each backs (commas or blanks between, as
 * DMALAB_SABOTAGE takes them): sabotage-check breaks one knob at a time.
 */
static void describe_knobs(struct json_writer *w, const struct lab_knob *k)
{
	jw_karr(w, "knobs");
	for (; k && k->knob; k++) {
		jw_obj_begin(w);
		jw_kstr(w, "name", k->name);
		json_words(w, "claims", k->claims, " ,");
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* What claim c needs of the lab's needs: n when the lab's list (NULL: every
 * claim) names it, else none (0 GPUs, 1 NUMA node: any machine). */
static int claim_need(const char *list, const struct claim_spec *c, int n, int none)
{
	return !list || text_list_has(list, c->id, strlen(c->id), " ,") ? n : none;
}

void report_describe(const struct lab_spec *spec, int build_flags, FILE *out)
{
	struct json_writer w;
	char q[64];

	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-describe/1");
	jw_kstr(&w, "id", spec->id);
	jw_kstr(&w, "title", spec->title);
	jw_kstr(&w, "topic", spec->topic);
	jw_kint(&w, "timeout_s", spec->timeout_s > 0 ? spec->timeout_s : 60);
	jw_kobj(&w, "needs");
	jw_kint(&w, "cuda_devices", spec->needs.cuda_devices);
	jw_kint(&w, "numa_nodes", spec->needs.numa_nodes);
	jw_kint(&w, "root", spec->needs.root);
	jw_obj_end(&w);
	jw_kbool(&w, "built_with_cuda", build_flags & LAB_BUILT_WITH_CUDA);
	jw_kbool(&w, "sabotage", build_flags & LAB_BUILT_SABOTAGE);
	jw_karr(&w, "claims");
	for (const struct claim_spec *c = spec->claims; c && c->id; c++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "id", c->id);
		jw_kstr(&w, "question", claim_own_question(c, q, sizeof(q)));
		json_words(&w, "questions", c->question, " \t");
		jw_kstr(&w, "text", c->text);
		jw_kstr(&w, "chapter", c->chapter);
		jw_kstr(&w, "rule", c->rule);
		describe_want(&w, &c->want);
		jw_kstr(&w, "sabotage", c->sabotage);
		jw_kstr(&w, "needs_root", c->root);
		jw_kint(&w, "needs_cuda_devices",
			claim_need(spec->needs.cuda_claims, c, spec->needs.cuda_devices, 0));
		jw_kint(&w, "needs_numa_nodes",
			claim_need(spec->needs.numa_claims, c, spec->needs.numa_nodes, 1));
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	describe_knobs(&w, spec->knobs);
	jw_karr(&w, "extra_options");
	for (const struct lab_extra_opt *e = spec->extra_opts; e && e->name; e++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "name", e->name);
		jw_kstr(&w, "arg", e->arg);
		jw_kstr(&w, "help", e->help);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	fprintf(out, "%s\n", w.buf ? w.buf : "{}");
	jw_release(&w);
}
