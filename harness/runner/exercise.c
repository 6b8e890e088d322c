/*
 * exercise.c - the learner's workflow (exercise.h):
 *
 *   dmalab exercise NN [--reset]   writes <work>/NN-name/ with every region a stub
 *   dmalab try NN [--verify-only]  refuses a copy changed outside its regions; else
 *                                  runs the built copy under `dmalab check` and says,
 *                                  per exercise, done or not yet from its claims
 *   dmalab exercises               every exercise of every lab, with its state
 *
 * The Makefile builds the copy between `try --verify-only` and `try` (make try-NN),
 * as it builds the lab, so a copy that does not compile stops there.
 * Exit: 0 done (or written, listed), 1 not yet or not graded here, 2 usage or refused.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exercise.h"
#include "learn.h"

struct ex_opts {
	const char *src, *work, *lab;
	int reset, verify_only, quick, ids_only;
	struct learn_opts run;     /* labs_dir, timeout_mul: for `dmalab check` */
};

/* A lab's file and its learner copy's folder, from src/NN-name/lab.c|lab.cu. */
struct ex_lab {
	char id[8], name[1024];    /* "01", "01-mlock" */
	char ref[1024], copy[2100], copy_dir[2048];
	char *text, *mine;         /* the reference's text; the copy's, or NULL */
	size_t len, mine_len;
	struct ex_region r[EX_MAX];
	int n;
};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Fills x from the lab file `ref` (src/NN-name/lab.c|cu); 0, or -1 said. */
static int lab_load(const struct ex_opts *o, const char *ref, struct ex_lab *x)
{
	const char *base = strrchr(ref, '/') ? strrchr(ref, '/') + 1 : ref;
	char err[300], dir[1024];

	memset(x, 0, sizeof(*x));
	snprintf(x->ref, sizeof(x->ref), "%s", ref);
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - ref - 1), ref);
	snprintf(x->name, sizeof(x->name), "%s", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir);
	memcpy(x->id, x->name, 2); /* NN of NN-name: the glob matched two digits */
	snprintf(x->copy_dir, sizeof(x->copy_dir), "%s/%s", o->work, x->name);
	snprintf(x->copy, sizeof(x->copy), "%s/%s", x->copy_dir, base);
	if (!(x->text = slurp(ref, &x->len)))
		return error("cannot read '%s': %s", ref, strerror(errno));
	x->n = ex_scan(x->text, x->len, x->r, EX_MAX, err, sizeof(err));
	if (x->n < 0)
		return error("'%s': %s", ref, err);
	x->mine = slurp(x->copy, &x->mine_len);
	return 0;
}

static void lab_unload(struct ex_lab *x)
{
	free(x->text);
	free(x->mine);
}

/* The lab file of lab `id` under src; 0, or -1 said. */
static int lab_find(const struct ex_opts *o, const char *id, struct ex_lab *x)
{
	char pat[1024];
	glob_t g;
	int rc;

	snprintf(pat, sizeof(pat), "%s/%s-*/lab.c*", o->src, id);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc != 1) {
		globfree(&g);
		return error("no lab '%s' under '%s' (make exercises lists them)", id, o->src);
	}
	rc = lab_load(o, g.gl_pathv[0], x);
	globfree(&g);
	if (!rc && x->n == 0) {
		error("lab %s has no exercise yet (make exercises lists them)", id);
		rc = -1;
	}
	return rc;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		return error("cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* dmalab exercise NN                                                         */

static int do_exercise(const struct ex_opts *o, struct ex_lab *x)
{
	char *stubbed;
	int i, rc;

	for (i = 0; i < x->n; i++)
		if (!x->r[i].stub_start)
			return error("'%s' line %d: exercise %s has no stub", x->ref, x->r[i].line,
				     x->r[i].id), 2;
	if (x->mine && !o->reset) {
		printf("exercise-%s: kept your copy '%s' (RESET=1 starts over)\n", x->id, x->copy);
		return 0;
	}
	if (learn_mkdirs(x->copy_dir))
		return error("cannot make '%s': %s", x->copy_dir, strerror(errno)), 2;
	if (!(stubbed = ex_stubbed(x->text, x->len, x->r, x->n)))
		return error("out of memory"), 2;
	rc = write_text(x->copy, stubbed);
	free(stubbed);
	if (rc)
		return 2;
	printf("exercise-%s: wrote '%s'%s; write these, then make try-%s:\n", x->id, x->copy,
	       o->reset ? " (started over)" : "", x->id);
	for (i = 0; i < x->n; i++)
		printf("  %-16s (claims %s) line %d: %s\n", x->r[i].id, x->r[i].claims,
		       x->r[i].line, x->r[i].what);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* dmalab try NN                                                              */

/* 0 when the copy differs from the reference only inside its regions; else 2, said. */
static int verify_copy(const struct ex_lab *x)
{
	struct ex_region mine[EX_MAX];
	char err[300], *a, *b;
	int n, line;

	if (!x->mine)
		return error("no copy '%s' to try: make exercise-%s first", x->copy, x->id), 2;
	n = ex_scan(x->mine, x->mine_len, mine, EX_MAX, err, sizeof(err));
	if (n < 0)
		return error("refused: '%s': %s (keep every EXERCISE marker and its END "
			     "EXERCISE line)", x->copy, err), 2;
	line = ex_directive_line(x->mine, x->mine_len, mine, n);
	if (line)
		return error("refused: '%s' line %d: a preprocessor line inside an exercise "
			     "region would reach the lab's checks after it; write C statements "
			     "only", x->copy, line), 2;
	a = ex_mask(x->text, x->len, x->r, x->n);
	b = ex_mask(x->mine, x->mine_len, mine, n);
	line = a && b ? ex_first_diff_line(a, b) : -1;
	free(a);
	free(b);
	if (line < 0)
		return error("out of memory"), 2;
	if (line > 0)
		return error("refused: '%s' differs from the lab outside the exercise regions "
			     "(first at its line %d): the claims, their "
			     "wants and the timing are the reference's; write only between an "
			     "EXERCISE marker and its END EXERCISE line (RESET=1 starts over)",
			     x->copy, ex_file_line(x->mine, mine, n, line)), 2;
	return 0;
}

/* "got G unit, want OP W" of a decided claim, into buf. */
static const char *got_want(const struct claim *c, char *buf, size_t len)
{
	if (c->has_range)
		snprintf(buf, len, "got %.4g %s, want %s [%g, %g]", c->got, c->unit, c->op,
			 c->lo, c->hi);
	else
		snprintf(buf, len, "got %.4g %s, want %s %g", c->got, c->unit, c->op, c->want);
	return buf;
}

static const char *const state_words[] = {
	"not yet", "undecided (too noisy here: try again)", "not graded here", "done",
	"not started", "not yet (untried)"
};
const char *const ex_state_keys[EX_NSTATES] = {
	"not_yet", "undecided", "not_graded", "done", "not_started", "untried"
};

/* The state of region r from the run's results, each claim said when `say`. */
static enum ex_state grade_region(const struct learn_results *res, const struct ex_region *r,
				  int say)
{
	char ids[sizeof(r->claims)], *save = NULL, *id, gw[200];
	enum ex_state st = EX_DONE;
	const struct lab_entry *lab;
	const struct claim *c;

	snprintf(ids, sizeof(ids), "%s", r->claims);
	for (id = strtok_r(ids, " ", &save); id; id = strtok_r(NULL, " ", &save)) {
		enum ex_state cs = EX_NOT_YET;

		c = results_claim(res, id, &lab);
		if (c && c->status == ST_PASS)
			cs = EX_DONE;
		else if (c && c->status == ST_SKIP)
			cs = EX_NOT_GRADED;
		else if (c && c->status == ST_INCONCLUSIVE)
			cs = EX_UNDECIDED;
		st = cs < st ? cs : st;
		if (!say)
			continue;
		if (cs == EX_NOT_GRADED)
			printf("    %s skip: %s %s\n", id, c->reason, c->detail);
		else
			printf("    %s %s: %s\n", id, c ? status_words[c->status] : "absent",
			       c ? got_want(c, gw, sizeof(gw)) : "not in the results");
	}
	return st;
}

static int report_try(const struct ex_lab *x, const struct learn_results *res)
{
	int i, done = 0, ungraded = 0;
	enum ex_state st;

	printf("try-%s: your copy '%s', exercise by exercise:\n", x->id, x->copy);
	for (i = 0; i < x->n; i++) {
		st = grade_region(res, &x->r[i], 0);
		printf("  %-16s %s\n", x->r[i].id, state_words[st]);
		grade_region(res, &x->r[i], 1);
		if (st == EX_NOT_YET)
			printf("    look at: line %d, %s\n", x->r[i].line, x->r[i].what);
		if (st == EX_NOT_GRADED)
			printf("    needs what this machine lacks (above) to be graded\n");
		done += st == EX_DONE;
		ungraded += st == EX_NOT_GRADED;
	}
	printf("try-%s: %d of %d done%s\n", x->id, done, x->n,
	       ungraded ? ", the rest not graded here" : "");
	return done == x->n ? 0 : 1;
}

static int do_try(struct ex_opts *o, struct ex_lab *x)
{
	char results[2200], path[2300], err[600], *ids[1] = { x->id };
	struct learn_results res;
	int rc = verify_copy(x);

	if (rc || o->verify_only)
		return rc;
	snprintf(results, sizeof(results), "%s/results", x->copy_dir);
	printf("try-%s: running your build under the runner (results in '%s')\n", x->id, results);
	fflush(stdout);
	if (learn_run_check(&o->run, results, ids, 1) < 0)
		return error("cannot run dmalab check"), 2;
	snprintf(path, sizeof(path), "%s/results.json", results);
	if (results_load(path, &res, err, sizeof(err)))
		return error("%s", err), 1;
	rc = report_try(x, &res);
	results_unload(&res);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* dmalab exercises                                                           */

/* The state of each region of x from its copy's last try, into st (x->n). */
static void lab_states(const struct ex_lab *x, enum ex_state *st)
{
	char path[2300], err[600];
	struct learn_results res;
	int i, tried;

	snprintf(path, sizeof(path), "%s/results/results.json", x->copy_dir);
	tried = x->mine && !results_load(path, &res, err, sizeof(err));
	for (i = 0; i < x->n; i++)
		st[i] = !x->mine ? EX_NOT_STARTED : !tried ? EX_UNTRIED :
			grade_region(&res, &x->r[i], 0);
	if (tried)
		results_unload(&res);
}

static void list_lab(const struct ex_lab *x)
{
	enum ex_state st[EX_MAX];
	int i;

	lab_states(x, st);
	for (i = 0; i < x->n; i++)
		printf("%-16s lab-%s  %-16s claims %s\n", x->r[i].id, x->id, state_words[st[i]],
		       x->r[i].claims);
}

static int do_exercises(const struct ex_opts *o)
{
	char pat[1024];
	struct ex_lab x;
	glob_t g;
	size_t i;
	int total = 0;

	snprintf(pat, sizeof(pat), "%s/[0-9][0-9]-*/lab.c*", o->src);
	if (glob(pat, 0, NULL, &g))
		return error("no lab under '%s'", o->src), 2;
	for (i = 0; i < g.gl_pathc; i++) {
		if (lab_load(o, g.gl_pathv[i], &x) == 0 && x.n > 0) {
			if (o->ids_only)
				printf("%s\n", x.id);
			else
				list_lab(&x);
			total += x.n;
		}
		lab_unload(&x);
	}
	globfree(&g);
	if (!o->ids_only)
		printf("%d exercises (the state is your copy's last make try-NN, in '%s/')\n",
		       total, o->work);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Every exercise's state, for results.json and hint                          */

int ex_status_all(const char *src, const char *work, const char *lab,
		  struct ex_status **out)
{
	struct ex_opts o = { .src = src, .work = work };
	struct ex_status *all = NULL, *grown;
	enum ex_state st[EX_MAX];
	char pat[1024];
	struct ex_lab x;
	glob_t g;
	size_t i;
	int n = 0, k;

	*out = NULL;
	snprintf(pat, sizeof(pat), "%s/%s-*/lab.c*", src, lab ? lab : "[0-9][0-9]");
	if (glob(pat, 0, NULL, &g))
		return 0; /* no lab source here: no exercise */
	for (i = 0; i < g.gl_pathc; i++) {
		if (lab_load(&o, g.gl_pathv[i], &x) == 0 && x.n > 0 &&
		    (grown = realloc(all, (size_t)(n + x.n) * sizeof(*all)))) {
			all = grown;
			lab_states(&x, st);
			for (k = 0; k < x.n; k++, n++) {
				snprintf(all[n].id, sizeof(all[n].id), "%s", x.r[k].id);
				snprintf(all[n].lab, sizeof(all[n].lab), "%s", x.id);
				snprintf(all[n].claims, sizeof(all[n].claims), "%s", x.r[k].claims);
				all[n].state = st[k];
			}
		}
		lab_unload(&x);
	}
	globfree(&g);
	*out = all;
	return n;
}

void ex_status_write(struct json_writer *w, const char *src, const char *work)
{
	struct ex_status *all;
	int i, n = ex_status_all(src, work, NULL, &all);

	jw_key(w, "exercises");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "id", all[i].id);
		jw_kstr(w, "lab", all[i].lab);
		jw_kstr(w, "claims", all[i].claims);
		jw_kstr(w, "state", ex_state_keys[all[i].state]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	free(all);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                    */

static int parse(int argc, char **argv, struct ex_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->src = "labs";
	o->work = "work";
	o->run.timeout_mul = 1;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--reset"))
			o->reset = 1;
		else if (!strcmp(a, "--verify-only"))
			o->verify_only = 1;
		else if (!strcmp(a, "--quick"))
			o->quick = o->run.quick = 1;
		else if (!strcmp(a, "--ids"))
			o->ids_only = 1;
		else if (v && !strcmp(a, "--src"))
			o->src = argv[++i];
		else if (v && !strcmp(a, "--work"))
			o->work = argv[++i];
		else if (v && !strcmp(a, "--labs-dir"))
			snprintf(o->run.labs_dir, sizeof(o->run.labs_dir), "%s", argv[++i]);
		else if (v && !strcmp(a, "--timeout-mul"))
			o->run.timeout_mul = atof(argv[++i]);
		else if (a[0] != '-' && !o->lab && strlen(a) == 2)
			o->lab = a;
		else
			return error("%s: bad argument '%s' (usage: dmalab exercise|try NN "
				     "[--work DIR] [--src DIR] [--reset] [--verify-only]; "
				     "dmalab exercises)", argv[1], a), 2;
	}
	if (o->run.timeout_mul <= 0)
		return error("%s: --timeout-mul must be > 0", argv[1]), 2;
	return 0;
}

/* build/work/<work, its slashes made underscores>: the Makefile's WORK_BUILD. */
static void work_build_dir(const char *work, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "build/work/%s", work), i;

	for (i = strlen("build/work/"); i < n && i < len; i++)
		if (out[i] == '/')
			out[i] = '_';
}

static int with_lab(int argc, char **argv, int (*fn)(struct ex_opts *, struct ex_lab *))
{
	struct ex_opts o;
	struct ex_lab x = { .text = NULL };
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc;
	if (!o.lab)
		return error("%s: which lab? (dmalab %s NN; make exercises lists them)", argv[1],
			     argv[1]), 2;
	if (!o.run.labs_dir[0]) /* where the Makefile builds the copies of --work */
		work_build_dir(o.work, o.run.labs_dir, sizeof(o.run.labs_dir));
	rc = lab_find(&o, o.lab, &x) ? 2 : fn(&o, &x);
	lab_unload(&x);
	return rc;
}

static int exercise_fn(struct ex_opts *o, struct ex_lab *x) { return do_exercise(o, x); }

int cmd_exercise(int argc, char **argv) { return with_lab(argc, argv, exercise_fn); }
int cmd_try(int argc, char **argv) { return with_lab(argc, argv, do_try); }

int cmd_exercises(int argc, char **argv)
{
	struct ex_opts o;
	int rc = parse(argc, argv, &o);

	return rc ? rc : do_exercises(&o);
}
