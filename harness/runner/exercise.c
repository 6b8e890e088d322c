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
 * as it builds the lab, so a copy that does not compile stops there
 * (`try --not-compiled` records it).  A try that stops before its run leaves its
 * state in <work>/NN-name/results/try-state, so the older results.json's "done"
 * is no longer what make exercises, results.json and grade say.
 * Exit: 0 done (or written, listed), 1 not yet or not graded here, 2 usage or refused.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exercise.h"
#include "json.h"
#include "lang.h"
#include "learn.h"
#include "sections.h"

struct ex_opts {
	const char *src, *work, *lab;
	char lab_id[12];           /* lab, as lab_id_normalise writes it */
	int reset, verify_only, not_compiled, ids_only, make_status;
	/* labs_dir, timeout_mul: for try's `dmalab check`; labs_dir: the built labs
	 * whose --describe `exercises` reads */
	struct learn_opts run;
	char kit_labs[1024];       /* the kit's built labs: what exercise forecasts from */
};

/* A lab's file and its learner copy's folder, from src/NN-name/lab.c|lab.cu. */
struct ex_lab {
	char id[8], name[1024];    /* "01", "01-mlock" */
	char ref[1024], copy[2100], copy_dir[2048];
	char *text, *mine;         /* the reference's text; the copy's, or NULL */
	size_t len, mine_len;
	struct ex_region r[EX_MAX];
	int n;
	int ungraded_only; /* the last try left nothing "not yet": the rest not graded here */
};

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
	if (!(x->text = sec_read_file(ref, &x->len, err, sizeof(err))))
		return error("cannot read '%s': %s", ref, strerror(errno));
	x->n = ex_scan(x->text, x->len, x->r, EX_MAX, err, sizeof(err));
	if (x->n < 0)
		return error("'%s': %s", ref, err);
	x->mine = sec_read_file(x->copy, &x->mine_len, err, sizeof(err));
	return 0;
}

static void lab_unload(struct ex_lab *x)
{
	free(x->text);
	free(x->mine);
}

/* src, the labs' folder, is not there: dmalab run in another folder than the kit's. */
static int no_src(const char *src)
{
	return error(MSG("ex.no-src", "no folder '%s' here: run dmalab in the kit's folder, "
			 "or give --src DIR"), src);
}

/* The lab file of lab `id` under src; 0, or -1 said. */
static int lab_find(const struct ex_opts *o, const char *id, struct ex_lab *x)
{
	char pat[1024];
	glob_t g;
	int rc;

	if (access(o->src, F_OK) != 0)
		return no_src(o->src);
	snprintf(pat, sizeof(pat), "%s/%s-*/lab.c*", o->src, id);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc != 1) {
		globfree(&g);
		return error(MSG("ex.no-lab", "no lab '%s' under '%s' (make exercises lists "
				 "them)"), id, o->src);
	}
	rc = lab_load(o, g.gl_pathv[0], x);
	globfree(&g);
	if (!rc && x->n == 0) {
		error(MSG("ex.no-exercise", "lab %s has no exercise yet (make exercises lists "
			  "them)"), id);
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

/* What region r asks the learner to write, in the learner's language: its
 * "exercise.<id>" entry in zh (not a printf format: msg_zh, not MSG), else
 * the marker's English. */
static const char *region_what(const struct ex_region *r)
{
	char id[48];
	const char *zh;

	if (dmalab_lang() != DMALAB_ZH)
		return r->what;
	snprintf(id, sizeof(id), "exercise.%s", r->id);
	zh = msg_zh(id);
	return zh ? zh : r->what;
}

/* region_what, then in zh what its stub does now ("stub.<id>": the stub's //
 * comments, which the zh copy leaves out), into buf. */
static const char *region_what_stub(const struct ex_region *r, char *buf, size_t len)
{
	char id[48];
	const char *what = region_what(r), *stub;

	snprintf(id, sizeof(id), "stub.%s", r->id);
	if (what == r->what || !(stub = msg_zh(id)))
		return what;
	snprintf(buf, len, "%s%s%s", what, MSG("ex.stub-now", "; the stub now: "), stub);
	return buf;
}

/* The bytes of the UTF-8 character at s (1 for a broken one). */
static size_t char_len(const char *s)
{
	size_t n = json_utf8_len(s, SIZE_MAX);

	return n ? n : 1;
}

/* A Chinese punctuation mark that ends a phrase (a line may break after it). */
static int phrase_end(const char *s, size_t n)
{
	static const char *const marks[] = { "，", "。", "；", "：", "、", "）", "！", "？" };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (n == strlen(marks[i]) && !strncmp(s, marks[i], n))
			return 1;
	return 0;
}

/* The next piece of text that a line may not split: a run of ASCII non-blanks,
 * or a Chinese phrase up to its punctuation mark (so no word is cut and no
 * line starts with a "，"). */
static size_t unit_len(const char *s)
{
	size_t n = 0, c;

	if (*s == ' ')
		return 1;
	if ((unsigned char)*s < 0x80) {
		while (s[n] && s[n] != ' ' && (unsigned char)s[n] < 0x80)
			n++;
		return n;
	}
	do {
		c = char_len(s + n);
		n += c;
	} while (!phrase_end(s + n - c, c) && (unsigned char)s[n] >= 0x80);
	return n;
}

#define NOTE_COLUMNS 88  /* a note's lines, tabs as 8 columns: within the kit's 100 */

/* Region i's marker line in the learner's copy as it is on disk (its stubs
 * are shorter than the lab's code), else in the lab's file. */
static int line_in_copy(const struct ex_lab *x, int i)
{
	struct ex_region mine[EX_MAX];
	char err[300];
	size_t len;
	char *text = sec_read_file(x->copy, &len, err, sizeof(err));
	int n = text ? ex_scan(text, len, mine, EX_MAX, err, sizeof(err)) : -1;
	int line = x->r[i].line;

	for (int k = 0; k < n; k++)
		if (!strcmp(mine[k].id, x->r[i].id))
			line = mine[k].line;
	free(text);
	return line;
}

/* The comment that carries region r's text in the learner's language, at the
 * indent of its stub's first line; malloc'd, NULL when English (the marker
 * says it) or out of memory. */
static char *region_note(const char *text, const struct ex_region *r)
{
	char buf[2048];
	const char *what = region_what_stub(r, buf, sizeof(buf)), *p = what;
	const char *ind = text + r->stub_start;
	size_t indent = strspn(ind, " \t"), n, u, i;
	int col = 0, start_col = 0;
	char *out, unit[256];

	/* a line break at most before each byte: its indent and " * " */
	if (what == r->what || !(out = malloc(strlen(what) * (indent + 5) + 256)))
		return NULL;
	for (i = 0; i < indent; i++)
		start_col += ind[i] == '\t' ? 8 - start_col % 8 : 1;
	n = (size_t)sprintf(out, "%.*s/* ", (int)indent, ind);
	n += (size_t)snprintf(out + n, 128, MSG("ex.note-head", "exercise %s:"), r->id);
	if ((unsigned char)out[n - 1] < 0x80) /* after "：" no blank */
		out[n++] = ' ';
	out[n] = '\0';
	col = start_col + msg_width(out + indent);
	for (; *p; p += u) {
		u = unit_len(p);
		snprintf(unit, sizeof(unit), "%.*s", (int)(u < sizeof(unit) ? u : sizeof(unit) - 1),
			 p);
		if (msg_width(unit) > NOTE_COLUMNS - start_col - 3) { /* a phrase too long */
			u = char_len(p);                               /* for any line */
			snprintf(unit, sizeof(unit), "%.*s", (int)u, p);
		}
		if (col + msg_width(unit) > NOTE_COLUMNS && *p != ' ') {
			while (n && out[n - 1] == ' ') /* no blank ends a line */
				n--;
			n += (size_t)sprintf(out + n, "\n%.*s * ", (int)indent, ind);
			col = start_col + 3;
		}
		memcpy(out + n, p, u);
		n += u;
		col += msg_width(unit);
	}
	sprintf(out + n, " */\n");
	return out;
}

/* The files the copy's tries left in its results/ folder (results.json, junit.xml,
 * try-state, the lab's record and log): a copy started over has no tries. */
static void forget_tries(const struct ex_lab *x)
{
	char dir[2200], path[2600];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/results", x->copy_dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_REG || e->d_type == DT_UNKNOWN) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path); /* a folder or "." refuses: only files go */
		}
	closedir(d);
}

/* The copy's regions, each with its line; one this machine cannot grade says
 * what it lacks before the learner spends an hour on it (as `exercises` does). */
static void say_regions(const struct ex_opts *o, const struct ex_lab *x)
{
	struct ex_here *h = ex_here_open(o->kit_labs);
	char lacks[256];

	for (int i = 0; i < x->n; i++) {
		printf("  %-16s ", x->r[i].id);
		printf(MSG("ex.region", "(claims %s) line %d: %s"), x->r[i].claims,
		       line_in_copy(x, i), region_what(&x->r[i]));
		if (ex_here_lacks(h, x->id, x->r[i].claims, lacks, sizeof(lacks)) > 0) {
			fputs("  ", stdout);
			printf(MSG("ex.lacks", "(needs %s: not graded here)"), lacks);
		}
		putchar('\n');
	}
	ex_here_close(h);
}

static int do_exercise(const struct ex_opts *o, struct ex_lab *x)
{
	char *stubbed, *notes[EX_MAX] = { NULL };
	int i, rc;

	for (i = 0; i < x->n; i++)
		if (!x->r[i].stub_start)
			return error(MSG("ex.no-stub", "'%s' line %d: exercise %s has no stub"),
				     x->ref, x->r[i].line, x->r[i].id), 2;
	if (x->mine && !o->reset) {
		printf(MSG("ex.kept", "exercise-%s: kept your copy '%s' (RESET=1 starts over)"),
		       x->id, x->copy);
		putchar('\n'); /* outside the message: a table's text has no line end */
		return 0;
	}
	if (learn_mkdirs(x->copy_dir))
		return error(MSG("ex.no-mkdir", "cannot make '%s': %s"), x->copy_dir,
			     strerror(errno)), 2;
	for (i = 0; i < x->n; i++)
		notes[i] = region_note(x->text, &x->r[i]);
	stubbed = ex_stubbed(x->text, x->len, x->r, x->n, (const char *const *)notes);
	for (i = 0; i < x->n; i++)
		free(notes[i]);
	if (!stubbed)
		return error("out of memory"), 2;
	rc = write_text(x->copy, stubbed);
	free(stubbed);
	if (rc)
		return 2;
	if (o->reset) /* a fresh copy: an older try's refusal or run is not its state */
		forget_tries(x);
	if (o->reset)
		printf(MSG("ex.wrote-again", "exercise-%s: wrote '%s' (started over); write "
			   "these, then make try-%s:"), x->id, x->copy, x->id);
	else
		printf(MSG("ex.wrote", "exercise-%s: wrote '%s'; write these, then make try-%s:"),
		       x->id, x->copy, x->id);
	putchar('\n');
	say_regions(o, x);
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
		return error(MSG("ex.no-copy", "no copy '%s' to try: make exercise-%s first"),
			     x->copy, x->id), 2;
	n = ex_scan(x->mine, x->mine_len, mine, EX_MAX, err, sizeof(err));
	if (n < 0)
		return error(MSG("ex.refused-marker", "refused: '%s': %s (keep every EXERCISE "
				 "marker and its END EXERCISE line)"), x->copy, err), 2;
	line = ex_directive_line(x->mine, x->mine_len, mine, n);
	if (line)
		return error(MSG("ex.refused-directive", "refused: '%s' line %d: a preprocessor "
				 "line inside an exercise region would reach the lab's checks "
				 "after it; write C statements only"), x->copy, line), 2;
	a = ex_mask(x->text, x->len, x->r, x->n);
	b = ex_mask(x->mine, x->mine_len, mine, n);
	line = a && b ? ex_first_diff_line(a, b) : -1;
	free(a);
	free(b);
	if (line < 0)
		return error("out of memory"), 2;
	if (line > 0)
		return error(MSG("ex.refused-outside", "refused: '%s' differs from the lab "
				 "outside the exercise regions (first at its line %d): the "
				 "claims, their wants and the timing are the reference's; write "
				 "only between an EXERCISE marker and its END EXERCISE line, and "
				 "put that line back as '%s' has it (RESET=1 starts over, and "
				 "throws away what you wrote in the regions too)"),
			     x->copy, ex_file_line(x->mine, mine, n, line), x->ref), 2;
	return 0;
}

/* A claim's verdict as the learner reads it ("not run", not "not_run"). */
static const char *verdict_text(enum status st)
{
	return status_decided(st) ? status_text(st) : MSG("verdict.not-run", "not run");
}

/* Why claim c (of lab) has no value, in the learner's words: the lab's
 * error (the copy crashed, ran past its time), else the claim's own note. */
static const char *why_no_value(const struct claim *c, const struct lab_entry *lab,
				char *buf, size_t len)
{
	const char *kind = lab ? lab->error_kind : NULL;

	if (kind && !strcmp(kind, "signal"))
		snprintf(buf, len, MSG("ex.crashed", "no value: %s; your copy crashed there (its "
				       "region's code is the first suspect)"), lab->error_msg);
	else if (kind && !strcmp(kind, "timeout"))
		snprintf(buf, len, MSG("ex.timeout", "no value: %s; your copy may wait or loop "
				       "forever"), lab->error_msg);
	else if (kind)
		snprintf(buf, len, MSG("ex.stopped", "no value: the lab stopped (%s: %s)"), kind,
			 lab->error_msg);
	else if (c->detail[0] || c->note[0])
		snprintf(buf, len, MSG("ex.no-value", "no value: %s"),
			 c->detail[0] ? c->detail : c->note);
	else
		snprintf(buf, len, MSG("ex.ended", "no value: the lab ended before it measured "
				       "this claim"));
	return buf;
}

const char *const ex_state_keys[EX_NSTATES] = {
	"refused", "not_compiled",
	"not_yet", "undecided", "not_graded", "done", "not_started", "untried"
};

enum ex_state ex_state_of_key(const char *key)
{
	int i;

	for (i = 0; key && i < EX_NSTATES; i++)
		if (!strcmp(key, ex_state_keys[i]))
			return (enum ex_state)i;
	return EX_NSTATES;
}

const char *ex_state_text(enum ex_state st)
{
	switch (st) {
	case EX_REFUSED: return MSG("ex.refused", "refused (changed outside its regions)");
	case EX_NOT_COMPILED: return MSG("ex.not-compiled", "does not compile");
	case EX_NOT_YET: return MSG("ex.not-yet", "not yet");
	case EX_UNDECIDED: return MSG("ex.undecided", "undecided (too noisy here: try again)");
	case EX_NOT_GRADED: return MSG("ex.not-graded", "not graded here");
	case EX_DONE: return MSG("ex.done", "done");
	case EX_NOT_STARTED: return MSG("ex.not-started", "not started");
	case EX_UNTRIED: return MSG("ex.untried", "not yet (untried)");
	default: return "?";
	}
}

int ex_not_begun(enum ex_state st)
{
	return st == EX_NOT_STARTED || st == EX_UNTRIED;
}

const char *ex_state_word(const char *key)
{
	enum ex_state st = ex_state_of_key(key);

	if (st != EX_NSTATES)
		return ex_state_text(st);
	return key && !strcmp(key, "not_listed") ? MSG("ex.not-listed", "not listed") :
	       key ? key : "?";
}

/* <copy_dir>/results/try-state: the last try's state when it stopped before its run. */
static void try_state_path(const struct ex_lab *x, char *out, size_t len)
{
	snprintf(out, len, "%s/results/try-state", x->copy_dir);
}

/* Keep st as the last try's state (EX_NSTATES: the run's results say it). */
static void try_state_set(const struct ex_lab *x, enum ex_state st)
{
	char path[2300], dir[2300];

	try_state_path(x, path, sizeof(path));
	if (st == EX_NSTATES) {
		unlink(path);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/results", x->copy_dir);
	if (!learn_mkdirs(dir))
		write_text(path, ex_state_keys[st]);
}

/* The state the last try left in try-state; EX_NSTATES when none. */
static enum ex_state try_state_get(const struct ex_lab *x)
{
	char path[2300], key[32] = "";
	FILE *f;

	try_state_path(x, path, sizeof(path));
	if (!(f = fopen(path, "r")))
		return EX_NSTATES;
	if (!fgets(key, sizeof(key), f))
		key[0] = 0;
	fclose(f);
	key[strcspn(key, "\n")] = 0;
	return ex_state_of_key(key);
}

/* Claim id's note as the try's lab showed it, in the learner's language: its
 * "# ID note: ..." line in the try's log (results.json keeps the English) into
 * buf, its word left out; NULL when there is none. */
static const char *note_shown(const struct ex_lab *x, const char *id, char *buf, size_t len)
{
	size_t word = strcspn(MSG("human.note", "note: %s"), "%");
	const char *found = NULL, *note;
	char path[2300], line[1024], of[32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/results/lab-%s.log", x->copy_dir, x->id);
	if (!(f = fopen(path, "r")))
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		note = !strncmp(line, "# ", 2) ? claim_note_split(line + 2, of, sizeof(of)) : NULL;
		if (note && !strcmp(of, id)) {
			snprintf(buf, len, "%s", note + word);
			found = buf;
		}
	}
	fclose(f);
	return found;
}

/* Claim id's line under its exercise (c NULL: not in the results; cs its state). */
static void say_claim(const struct ex_lab *x, const char *id, const struct claim *c,
		      const struct lab_entry *lab, enum ex_state cs)
{
	char gw[800], note[1024];
	const char *shown;

	if (!c) {
		printf("    %s %s\n", id, MSG("ex.absent", "absent: not in the results"));
		return;
	}
	if (cs == EX_NOT_GRADED)
		snprintf(gw, sizeof(gw), "%s: %s%s%s%s", c->reason, c->detail,
			 *skip_meaning(c->reason) ? "（" : "", skip_meaning(c->reason),
			 *skip_meaning(c->reason) ? "）" : "");
	else if (isnan(c->got))
		why_no_value(c, lab, gw, sizeof(gw));
	else
		fmt_got_want_human(c, gw, sizeof(gw));
	fputs("    ", stdout);
	printf(MSG("try.claim", "%s %s: %s"), id, verdict_text(c->status), gw);
	putchar('\n');
	/* a figure that misses says what; the lab's note often says why (01.4: the
	 * child's limit and capability), which the learner should not have to dig out
	 * of the lab's log */
	if (c->status == ST_FAIL && !isnan(c->got) && c->note[0]) {
		shown = note_shown(x, id, note, sizeof(note));
		fputs("      ", stdout);
		printf(MSG("try.claim-note", "the lab's note: %s"), shown ? shown : c->note);
		putchar('\n');
	}
}

/* The state of region r from the run's results, each claim said when `say`
 * (the lab copy whose try it was), else NULL. */
static enum ex_state grade_region(const struct learn_results *res, const struct ex_region *r,
				  const struct ex_lab *say)
{
	char ids[sizeof(r->claims)], *save = NULL, *id;
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
		if (say)
			say_claim(say, id, c, lab, cs);
	}
	return st;
}

static int report_try(struct ex_lab *x, const struct learn_results *res)
{
	int i, done = 0, ungraded = 0;
	enum ex_state st;

	printf(MSG("try.head", "try-%s: your copy '%s', exercise by exercise:"), x->id, x->copy);
	putchar('\n'); /* outside the message: a table's text has no line end */
	for (i = 0; i < x->n; i++) {
		st = grade_region(res, &x->r[i], NULL);
		printf("  %-16s %s\n", x->r[i].id, ex_state_text(st));
		grade_region(res, &x->r[i], x);
		fputs(st == EX_NOT_YET || st == EX_NOT_GRADED ? "    " : "", stdout);
		if (st == EX_NOT_YET) {
			printf(MSG("try.look", "look at: line %d, %s"), line_in_copy(x, i),
			       region_what(&x->r[i]));
			putchar('\n');
		}
		if (st == EX_NOT_GRADED)
			puts(MSG("try.needs", "needs what this machine lacks (above) to be "
				 "graded"));
		done += st == EX_DONE;
		ungraded += st == EX_NOT_GRADED;
	}
	x->ungraded_only = ungraded && done + ungraded == x->n;
	if (x->ungraded_only)
		printf(MSG("try.end-rest", "try-%s: %d of %d done, the rest not graded here"),
		       x->id, done, x->n);
	else
		printf(MSG("try.end", "try-%s: %d of %d done"), x->id, done, x->n);
	putchar('\n');
	return done == x->n ? 0 : 1;
}

/* path: <copy_dir>/results/results.json (2300 bytes); aside: path.last-try (2400). */
static void last_results_paths(const struct ex_lab *x, char *path, char *aside)
{
	snprintf(path, 2300, "%s/results/results.json", x->copy_dir);
	snprintf(aside, 2400, "%s.last-try", path);
}

/* The last try's results.json, set aside (as results.json.last-try) while a new
 * try runs (done 0), dropped once it has finished (done 1). */
static void last_results_aside(const struct ex_lab *x, int done)
{
	char path[2300], aside[2400];

	last_results_paths(x, path, aside);
	unlink(aside);
	if (!done)
		rename(path, aside);
}

/* The results.json set aside put back; none when there was none before the try. */
static void last_results_back(const struct ex_lab *x)
{
	char path[2300], aside[2400];

	last_results_paths(x, path, aside);
	if (rename(aside, path) && errno == ENOENT)
		unlink(path);
}

/* A try that a signal stopped (check's status rc, 128 + N) is no verdict: its
 * results say "not run" for what it did not reach, which is not the copy's
 * fault, so the last try's results (or none) and state stay; 128 + N. */
static int try_stopped(const struct ex_lab *x, int rc)
{
	last_results_back(x);
	printf(MSG("try.stopped", "try-%s: stopped by %s before it finished: no verdict; "
		   "each exercise keeps the state of your last try (make exercises lists "
		   "them)"), x->id, signal_name(rc - 128));
	putchar('\n');
	return rc;
}

/* 1 when src was written after bin: bin is not what src says (a build of src failed
 * or was not run since); 0 otherwise, or when either cannot be read. */
static int built_before(const char *bin, const char *src)
{
	struct stat b, s;

	if (stat(bin, &b) != 0 || stat(src, &s) != 0)
		return 0;
	if (s.st_mtim.tv_sec != b.st_mtim.tv_sec)
		return s.st_mtim.tv_sec > b.st_mtim.tv_sec;
	return s.st_mtim.tv_nsec > b.st_mtim.tv_nsec;
}

static int do_try(const struct ex_opts *o, struct ex_lab *x)
{
	char results[2200], path[2300], err[600], *ids[1] = { x->id };
	char bin[sizeof(o->run.labs_dir) + 16];
	struct learn_results res;
	int rc = verify_copy(x);

	if (rc == 2 && x->mine)
		try_state_set(x, EX_REFUSED);
	if (rc || o->verify_only)
		return rc;
	if (o->not_compiled) {
		try_state_set(x, EX_NOT_COMPILED);
		return error(MSG("try.not-compiled", "make try-%s: your copy '%s' does not "
				 "compile: the compiler's messages are above; every exercise of "
				 "it is 'does not compile' until it does"), x->id, x->copy), 1;
	}
	snprintf(bin, sizeof(bin), "%s/lab-%s", o->run.labs_dir, x->id);
	if (access(bin, X_OK) != 0) /* dmalab try alone, before make try-NN built it */
		return error(MSG("try.not-built", "try %s: your copy is not built ('%s' is "
				 "missing): make try-%s builds it, then grades it"), x->id, bin,
			     x->id), 2;
	if (built_before(bin, x->copy)) /* dmalab try alone, after an edit or a failed build */
		return error(MSG("try.stale", "try %s: your copy '%s' changed after '%s' was "
				 "built from it: make try-%s builds it again, then grades it"),
			     x->id, x->copy, bin, x->id), 2;
	snprintf(results, sizeof(results), "%s/results", x->copy_dir);
	printf(MSG("try.running", "try-%s: running your build under the runner (results in "
		   "'%s')"), x->id, results);
	putchar('\n');
	fflush(stdout);
	setenv(TRY_COPY_ENV, x->id, 1);
	last_results_aside(x, 0);
	rc = learn_run_check(&o->run, results, ids, 1);
	if (rc > 128)
		return try_stopped(x, rc);
	if (rc < 0 || rc == 127 || rc == 2) /* check refused or did not start: it said why */
		return last_results_back(x), rc < 0 ? error("cannot run dmalab check") : 0, 2;
	last_results_aside(x, 1);
	try_state_set(x, EX_NSTATES);
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
	enum ex_state stopped = x->mine ? try_state_get(x) : EX_NSTATES;
	int i, tried;

	snprintf(path, sizeof(path), "%s/results/results.json", x->copy_dir);
	tried = x->mine && stopped == EX_NSTATES && !results_load(path, &res, err, sizeof(err));
	for (i = 0; i < x->n; i++)
		st[i] = !x->mine ? EX_NOT_STARTED : stopped != EX_NSTATES ? stopped :
			!tried ? EX_UNTRIED : grade_region(&res, &x->r[i], NULL);
	if (tried)
		results_unload(&res);
}

int ex_status_print(FILE *f, int indent, const struct ex_status *e, const char *word,
		    int width, const struct ex_here *h)
{
	char lacks[256];
	int w = msg_width(word), here = ex_here_lacks(h, e->lab, e->claims, lacks, sizeof(lacks));

	fprintf(f, "%*s%-16s lab-%s  %s%*s ", indent, "", e->id, e->lab, word,
		w < width ? width - w : 0, "");
	fprintf(f, MSG("ex.claims", "claims %s"), e->claims);
	/* "done": this machine graded it after all; a try's "not graded here" says it */
	if (here > 0 && e->state != EX_DONE) {
		fputs("  ", f);
		fprintf(f, e->state == EX_NOT_GRADED ? MSG("ex.lacks-tried", "(needs %s)") :
			MSG("ex.lacks", "(needs %s: not graded here)"), lacks);
	}
	fputc('\n', f);
	return here < 0 ? -1 : here > 0 && e->state != EX_DONE;
}

/* The lines after the list: how many this machine cannot grade, the labs it
 * could not tell for (not built), the count. */
static void list_end(const struct ex_opts *o, int total, int marked, const char *unbuilt)
{
	if (marked)
		printf(MSG("ex.count-lacks", "%d of them cannot be graded on this machine "
			   "(marked): their claims skip here, so make try-NN says \"not graded "
			   "here\""), marked);
	if (marked)
		putchar('\n');
	if (*unbuilt)
		printf(MSG("ex.unbuilt", "not built, so not said whether this machine can grade "
			   "their exercises: lab%s (make exercises builds them)"), unbuilt);
	if (*unbuilt)
		putchar('\n');
	printf(MSG("ex.count", "%d exercises (the state is your copy's last make try-NN, "
		   "in '%s/')"), total, o->work);
	putchar('\n');
}

/* One line per exercise, each marked when this machine cannot grade it (h's
 * forecast), then list_end; --ids: the labs that have exercises. */
static int do_exercises(const struct ex_opts *o)
{
	struct ex_here *h = o->ids_only ? NULL : ex_here_open(o->run.labs_dir);
	struct ex_status *all;
	char unbuilt[128] = "";
	int n = ex_status_all(o->src, o->work, NULL, &all), i, marked = 0, here;
	size_t used;

	if (n < 0) {
		ex_here_close(h);
		if (access(o->src, F_OK) != 0)
			return no_src(o->src), 2;
		return error(MSG("ex.no-lab-under", "no lab under '%s'"), o->src), 2;
	}
	for (i = 0; i < n; i++) {
		int first = !i || strcmp(all[i].lab, all[i - 1].lab); /* its lab's first */

		if (o->ids_only) {
			if (first)
				printf("%s\n", all[i].lab);
			continue;
		}
		here = ex_status_print(stdout, 0, &all[i], ex_state_text(all[i].state), 20, h);
		marked += here > 0;
		used = strlen(unbuilt);
		if (here < 0 && first && used < sizeof(unbuilt))
			snprintf(unbuilt + used, sizeof(unbuilt) - used, " %s", all[i].lab);
	}
	free(all);
	ex_here_close(h);
	if (!o->ids_only)
		list_end(o, n, marked, unbuilt);
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
		return -1; /* no lab source here */
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

void ex_status_write(struct json_writer *w, const char *src, const char *work,
		     const struct ex_here *h)
{
	struct ex_status *all;
	int i, n = ex_status_all(src, work, NULL, &all);
	char skips[128];

	jw_key(w, "exercises");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "id", all[i].id);
		jw_kstr(w, "lab", all[i].lab);
		jw_kstr(w, "claims", all[i].claims);
		jw_kstr(w, "state", ex_state_keys[all[i].state]);
		jw_kstr(w, "skips_here", ex_here_skips(h, all[i].lab, all[i].claims, skips,
						       sizeof(skips)) > 0 ? skips : NULL);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	free(all);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                    */

/* The short usage of exercise, try or exercises (cmd), on stdout. */
static void ex_usage(const char *cmd)
{
	if (!strcmp(cmd, "exercises"))
		puts(MSG("ex.help-exercises", "usage: dmalab exercises [--work DIR]: every "
			 "exercise with its state (not started, not yet, done, ...) from your "
			 "copies' last make try-NN; exit 0, or 2 on bad usage"));
	else if (!strcmp(cmd, "exercise"))
		puts(MSG("ex.help-exercise", "usage: dmalab exercise NN [--work DIR] [--src DIR] "
			 "[--reset]: write your copy of lab NN (DIR/NN-name/, default work/), "
			 "each exercise region a stub; --reset starts over; exit 0, or 2 on bad "
			 "usage"));
	else
		puts(MSG("ex.help-try", "usage: dmalab try NN [--work DIR] [--quick] "
			 "[--timeout-mul N] [--verify-only]: grade your built copy of lab NN "
			 "(make try-NN builds it first), done or not yet per exercise; exit 0 all "
			 "done, 1 not all, 2 bad usage or a copy refused, 128+N stopped by signal "
			 "N"));
}

static void ex_option(struct ex_opts *o, int c, const char *arg, const char *cmd)
{
	switch (c) {
	case 'r': o->reset = 1; break;
	case 'v': o->verify_only = 1; break;
	case 'n': o->not_compiled = 1; break;
	case 'q': o->run.quick = 1; break;
	case 'i': o->ids_only = 1; break;
	case 'm': o->make_status = 1; break;
	case 's': o->src = usage_dir("--src", arg); break;
	case 'w': o->work = usage_dir("--work", arg); break;
	case 'L':
		snprintf(o->run.labs_dir, sizeof(o->run.labs_dir), "%s",
			 usage_dir("--labs-dir", arg));
		break;
	case 't': o->run.timeout_mul = parse_timeout_mul(arg, "--timeout-mul"); break;
	case 'h': ex_usage(cmd); exit(0);
	}
}

static int parse(int argc, char **argv, struct ex_opts *o)
{
	static const struct option longs[] = {
		{ "reset", no_argument, NULL, 'r' }, { "verify-only", no_argument, NULL, 'v' },
		{ "not-compiled", no_argument, NULL, 'n' }, { "quick", no_argument, NULL, 'q' },
		{ "ids", no_argument, NULL, 'i' }, { "make-status", no_argument, NULL, 'm' },
		{ "src", required_argument, NULL, 's' }, { "work", required_argument, NULL, 'w' },
		{ "labs-dir", required_argument, NULL, 'L' },
		{ "timeout-mul", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static char help[32];
	int c;

	memset(o, 0, sizeof(*o));
	o->src = "labs";
	o->work = "work";
	o->run.timeout_mul = 1;
	snprintf(help, sizeof(help), "dmalab %s", argv[1]);
	usage_set_help(help); /* a bad option points to this command's --help */
	opterr = 0;
	optind = 2; /* argv[1] is the command */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		if (c == ':' || c == '?')
			die_bad_option(c, argv);
		ex_option(o, c, optarg, argv[1]);
	}
	for (; optind < argc; optind++) {
		const char *a = argv[optind];

		if (o->lab || lab_id_normalise(a, o->lab_id, sizeof(o->lab_id)))
			die_usage("%s: bad argument '%s'", argv[1], a);
		o->lab = o->lab_id;
	}
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

static int with_lab(int argc, char **argv, int (*fn)(const struct ex_opts *, struct ex_lab *))
{
	struct ex_opts o;
	struct ex_lab x = { .text = NULL };
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc;
	if (!o.lab)
		return error(MSG("ex.which-lab", "%s: which lab? (dmalab %s NN; make exercises "
				 "lists them)"), argv[1], argv[1]), 2;
	default_labs_dir(argv[0], o.kit_labs, sizeof(o.kit_labs));
	if (!o.run.labs_dir[0]) /* where the Makefile builds the copies of --work */
		work_build_dir(o.work, o.run.labs_dir, sizeof(o.run.labs_dir));
	rc = lab_find(&o, o.lab, &x) ? 2 : fn(&o, &x);
	lab_unload(&x);
	return rc;
}

/*
 * --make-status (make try-NN's recipe): a non-zero status makes GNU make print
 * its own "make: *** [Makefile:N: try-NN] Error 1" after the verdict, and
 * nothing but ignoring the status (then make exits 0) silences it.  The status
 * stays, and the line before make's says what it means.
 */
static int say_make_status(const struct ex_opts *o, const char *lab, int rc,
			   int ungraded_only)
{
	if (!rc || !o->make_status || rc > 128) /* > 128: stopped, do_try said so */
		return rc;
	fprintf(stderr, rc != 1 ? MSG("try.status-2", "make try-%s: status %d: the copy was "
		"not tried (make's own \"Error %d\" line below only repeats it)") :
		ungraded_only ? MSG("try.status-ungraded", "make try-%s: status %d: this "
		"machine cannot grade what is left, which says nothing against your copy "
		"(make's own \"Error %d\" line below only repeats it)") :
		MSG("try.status-1", "make try-%s: status %d: not every exercise is done here "
		    "(make's own \"Error %d\" line below only repeats it)"), lab, rc, rc);
	fputc('\n', stderr);
	return rc;
}

static int try_fn(const struct ex_opts *o, struct ex_lab *x)
{
	int rc;

	x->ungraded_only = 0;
	rc = do_try(o, x);
	return say_make_status(o, x->id, rc, x->ungraded_only);
}

int cmd_exercise(int argc, char **argv) { return with_lab(argc, argv, do_exercise); }
int cmd_try(int argc, char **argv) { return with_lab(argc, argv, try_fn); }

int cmd_exercises(int argc, char **argv)
{
	struct ex_opts o;
	int rc = parse(argc, argv, &o);

	if (!rc && !o.run.labs_dir[0])
		default_labs_dir(argv[0], o.run.labs_dir, sizeof(o.run.labs_dir));
	return rc ? rc : do_exercises(&o);
}
