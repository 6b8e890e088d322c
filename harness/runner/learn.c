/*
 * learn.c - `dmalab grade | quiz | hint | answers`: options, loading the
 * answers files and the errata, running `dmalab check` as a child when
 * fresh results are needed, and the cross-check of the answers files
 * against the built labs.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "lang.h"
#include "learn.h"
#include "proc.h"


/* A run of this many Chinese characters shared with a chapter is a copy. */
#define LEARN_SEED_RUN 12

/* The columns of s's label: up to its ": " or "：" (which takes two), else 0. */
static int label_width(const char *s)
{
	const char *en = strstr(s, ": "), *zh = strstr(s, "：");
	size_t n = en ? (size_t)(en - s) + 2 : zh ? (size_t)(zh - s) + strlen("：") : 0;
	char head[64];

	snprintf(head, sizeof(head), "%.*s", (int)n, s);
	return msg_width(head);
}

/* The help's lines: `lead` blanks, then its text in the learner's language
 * (the message table keeps no leading blanks); lead -1: under the text after
 * the label ("usage: ", "用法：") of the last line with none. */
static void learn_usage(FILE *f)
{
	const struct { int lead; const char *text; } help[] = {
		{ 0, MSG("learn.help-1", "usage: dmalab grade [--from FILE] [--chapter CH] "
			  "[options]") },
		{ -1, MSG("learn.help-2", "dmalab quiz [--chapter CH] [--shuffle] [--lang en|zh] "
			  "[--answers FILE] [--reset]") },
		{ -1, MSG("learn.help-3", "dmalab hint NN [--work DIR] [--reset] [--lang en|zh]") },
		{ -1, MSG("learn.help-4", "dmalab answers [--seeds DIR]   check answers/ against "
			  "the built labs") },
		{ 2, MSG("learn.help-5", "grade           run the labs (or read --from FILE), "
			  "grade each question of the") },
		{ 18, MSG("learn.help-6", "chapters: confirmed, contradicted, partial, unverified; "
			  "writes grade.json") },
		{ 2, MSG("learn.help-7", "quiz            ask the questions, show the reference "
			  "answer and this machine's") },
		{ 18, MSG("learn.help-8", "measurements, mark yourself; progress in quiz.json, "
			  "resumes") },
		{ 2, MSG("learn.help-9", "hint NN         the next hint of lab NN, or of its first "
			  "exercise not done in") },
		{ 18, MSG("learn.help-10", "your copy (--work) (counter in hints.json)") },
		{ 0, MSG("learn.help-11", "options:") },
		{ 2, MSG("learn.help-12", "--from FILE         grade this results.json instead of "
			  "running the labs") },
		{ 2, MSG("learn.help-13", "--gradescope FILE   grade: also write FILE as "
			  "Gradescope's autograder results.json") },
		{ 22, MSG("learn.help-14", "(one test per question, 1 point each; README \"JUnit "
			  "and") },
		{ 22, MSG("learn.help-15", "Gradescope\")") },
		{ 2, MSG("learn.help-16", "--chapter CH        only chapter CH (ch1, ch2)") },
		{ 2, MSG("learn.help-17", "--lang en|zh        language (default: $DMALAB_LANG, "
			  "else zh when LC_ALL/LC_MESSAGES/LANG") },
		{ 22, MSG("learn.help-18", "start with zh)") },
		{ 2, MSG("learn.help-19", "--answers FILE      quiz: read the learner's input from "
			  "FILE (scripted runs)") },
		{ 2, MSG("learn.help-20", "--shuffle, --seed N quiz: random order (kept in "
			  "quiz.json until --reset)") },
		{ 2, MSG("learn.help-21", "--reset             quiz, hint: start over") },
		{ 2, MSG("learn.help-22", "--answers-dir DIR   the answers files (default: "
			  "answers)") },
		{ 2, MSG("learn.help-23", "--results DIR       results.json, grade.json, "
			  "quiz.json, hints.json (default: results)") },
		{ 2, MSG("learn.help-24", "--labs-dir DIR      the built labs (default: <dir of "
			  "dmalab>/labs)") },
		{ 2, MSG("learn.help-25", "--errata FILE       known errata (default: "
			  "$DMALAB_ERRATA, else") },
		{ 22, MSG("learn.help-26", "<answers-dir>/errata.md, else the copy built in)") },
		{ 2, MSG("learn.help-27", "--seeds DIR         answers: also flag any run of %d or "
			  "more Chinese characters") },
		{ 22, MSG("learn.help-28", "an answer shares with a chapter's text (DIR/*.txt)") },
		{ 2, MSG("learn.help-29", "--quick, --timeout-mul N   passed to `dmalab check` "
			  "when labs are run") },
		{ 2, MSG("learn.help-30", "--work DIR          your exercise copies (make "
			  "exercise-NN): grade passes it to") },
		{ 22, MSG("learn.help-31", "`dmalab check`, whose results.json then lists every "
			  "exercise") },
		{ 22, MSG("learn.help-32", "done or not; hint NN gives an unfinished exercise's "
			  "hints") },
		{ 2, MSG("learn.help-33", "--learner NAME      grade: passed to `dmalab check`, "
			  "kept in results.json") },
		{ 0, MSG("learn.help-34", "exit: 0 done, 1 the run's results or progress "
			  "unusable, 130 interrupted,") },
		{ -1, MSG("learn.help-35", "2 usage, an unusable --from FILE or malformed "
			  "answers") },
	};

	int label = 0;

	for (size_t i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
		if (!help[i].lead)
			label = label_width(help[i].text);
		fprintf(f, "%*s", help[i].lead < 0 ? label : help[i].lead, "");
		fprintf(f, help[i].text, LEARN_SEED_RUN); /* the one %d: --seeds */
		fputc('\n', f);
	}
}

static void check_chapter(const char *ch)
{
	size_t n = strlen(ch);

	if (n < 3 || n > 8 || strncmp(ch, "ch", 2) || strspn(ch + 2, "0123456789") != n - 2)
		die_usage(MSG("learn.err-chapter", "bad chapter '%s' (want ch1, ch2, ...)"), ch);
}

static void learn_option(struct learn_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'F': o->from = usage_file("--from", arg); break;
	case 'G': o->gradescope = usage_file("--gradescope", arg); break;
	case 'C': check_chapter(arg); o->chapter = arg; break;
	case 'A': o->script = arg; break;
	case 'D': o->answers_dir = usage_dir("--answers-dir", arg); break;
	case 'r': o->results_dir = usage_dir("--results", arg); break;
	case 'L':
		snprintf(o->labs_dir, sizeof(o->labs_dir), "%s", usage_dir("--labs-dir", arg));
		break;
	case 'e': o->errata_path = usage_file("--errata", arg); break;
	case 'E': o->seeds_dir = usage_dir("--seeds", arg); break;
	case 'w': o->work = usage_dir("--work", arg); break;
	case 'N': o->learner = arg; break;
	case 's': o->shuffle = 1; break;
	case 'S': o->seed = (unsigned)parse_number(arg, "--seed", 0, 4294967295.0); break;
	case 'R': o->reset = 1; break;
	case 'q': o->quick = 1; break;
	case 't': o->timeout_mul = parse_timeout_mul(arg, "--timeout-mul"); break;
	case 'l':
		if (strcmp(arg, "en") && strcmp(arg, "zh"))
			die_usage(MSG("learn.err-lang", "bad --lang '%s' (want en or zh)"), arg);
		o->lang = strcmp(arg, "zh") ? ANS_EN : ANS_ZH;
		/* the labs it runs and the runner's own words follow the flag */
		dmalab_lang_set(o->lang == ANS_ZH ? DMALAB_ZH : DMALAB_EN);
		setenv("DMALAB_LANG", arg, 1);
		break;
	case 'h': learn_usage(stdout); exit(0);
	}
}

static void learn_parse(struct learn_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "from", required_argument, NULL, 'F' },
		{ "chapter", required_argument, NULL, 'C' },
		{ "gradescope", required_argument, NULL, 'G' },
		{ "answers", required_argument, NULL, 'A' },
		{ "answers-dir", required_argument, NULL, 'D' },
		{ "results", required_argument, NULL, 'r' },
		{ "labs-dir", required_argument, NULL, 'L' },
		{ "errata", required_argument, NULL, 'e' }, { "shuffle", no_argument, NULL, 's' },
		{ "seeds", required_argument, NULL, 'E' },
		{ "work", required_argument, NULL, 'w' },
		{ "learner", required_argument, NULL, 'N' },
		{ "seed", required_argument, NULL, 'S' }, { "reset", no_argument, NULL, 'R' },
		{ "quick", no_argument, NULL, 'q' },
		{ "timeout-mul", required_argument, NULL, 't' },
		{ "lang", required_argument, NULL, 'l' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 2; /* argv[1] is the command */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		if (c == ':' || c == '?')
			die_bad_option(c, argv);
		learn_option(o, c, optarg);
	}
}

static void learn_defaults(struct learn_opts *o, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->command = argv[1];
	o->answers_dir = "answers";
	o->results_dir = "results";
	o->lang = dmalab_lang() == DMALAB_ZH ? ANS_ZH : ANS_EN; /* DMALAB_LANG, else the locale */
	o->seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	o->timeout_mul = env_timeout_mul();
	default_labs_dir(argv[0], o->labs_dir, sizeof(o->labs_dir));
}

/* The positional arguments: a lab id for hint, none for the others. */
static void learn_args(struct learn_opts *o, int argc, char **argv)
{
	static char id[12], exercise[64];
	const char *dot;

	if (o->gradescope && strcmp(o->command, "grade"))
		die_usage(MSG("learn.err-gs-where",
			      "'--gradescope' is an option of 'grade', not of '%s'"), o->command);
	if (strcmp(o->command, "hint")) {
		if (optind < argc)
			die_usage(MSG("learn.err-argument", "unexpected argument '%s'"),
				  argv[optind]);
		return;
	}
	if (optind + 1 != argc)
		die_usage(MSG("learn.err-hint-id", "'hint' needs one lab id, e.g. dmalab hint 03"));
	dot = strchr(argv[optind], '.'); /* NN.name: an exercise of lab NN */
	snprintf(exercise, sizeof(exercise), "%.*s", dot ? (int)(dot - argv[optind]) : 0,
		 argv[optind]);
	if (lab_id_normalise(dot ? exercise : argv[optind], id, sizeof(id)) < 0 ||
	    (dot && (!dot[1] || strlen(dot) > 40)))
		die_usage(MSG("learn.err-lab-id", "bad lab id '%s' (want a number like 03)"),
			  argv[optind]);
	o->lab = id;
	if (dot) {
		snprintf(exercise, sizeof(exercise), "%s%s", id, dot);
		o->exercise = exercise;
	}
}

/* ------------------------------------------------------------------------ */
/* Helpers for the commands                                                  */

void learn_iso_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int learn_mkdirs(const char *dir)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
}

int learn_write_json(struct json_writer *w, const char *dir, const char *path,
		     const char *verb)
{
	char folder[PATH_MAX];
	int rc = dir ? results_dir_make(dir) : 0;

	snprintf(folder, sizeof(folder), "%s", path);
	if (!rc && (w->failed || (!dir && learn_mkdirs(dirname(folder))) ||
		    jw_write_file(w, path)))
		rc = error_errno("cannot %s '%s'", verb, path);
	jw_release(w);
	return rc;
}

int learn_lab_built(const struct learn_opts *o, const char *lab)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/lab-%s", o->labs_dir, lab);
	return access(path, X_OK) == 0;
}

/* Runs argv to its end; Ctrl-C and a closed terminal reach it too (same
 * process group): it stops its lab and writes its results, we wait on. */
static int run_child(char *const argv[])
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	const struct proc_opts o = { PROC_OWN_SIGNALS };
	static struct proc p;

	if (proc_spawn(&p, argv, &o) < 0) {
		if (p.exec_errno)
			error_errno("cannot run check");
		return p.exec_errno ? 127 : -1;
	}
	cleanup_let_pass(stops, 3);
	proc_run(&p, 0, 0);
	cleanup_let_pass(NULL, 0);
	return WIFEXITED(p.status) ? WEXITSTATUS(p.status) : 128 + WTERMSIG(p.status);
}

int learn_run_check(const struct learn_opts *o, const char *results_dir,
		    char *const *ids, int nids)
{
	char mul[32], self[PATH_MAX], *argv[32];
	int n = 0, i;

	if (runner_self_path(self))
		snprintf(self, sizeof(self), "/proc/self/exe");
	snprintf(mul, sizeof(mul), "%g", o->timeout_mul);
	argv[n++] = self;
	argv[n++] = (char *)"check";
	argv[n++] = (char *)"--labs-dir", argv[n++] = (char *)o->labs_dir;
	argv[n++] = (char *)"--results", argv[n++] = (char *)results_dir;
	if (o->errata_path) /* NULL: no file, the built-in copy */
		argv[n++] = (char *)"--errata", argv[n++] = (char *)o->errata_path;
	argv[n++] = (char *)"--timeout-mul", argv[n++] = mul;
	if (o->quick)
		argv[n++] = (char *)"--quick";
	if (o->work)
		argv[n++] = (char *)"--work", argv[n++] = (char *)o->work;
	if (o->learner)
		argv[n++] = (char *)"--learner", argv[n++] = (char *)o->learner;
	for (i = 0; i < nids && n < 31; i++)
		argv[n++] = ids[i];
	argv[n] = NULL;
	return run_child(argv);
}

/* ------------------------------------------------------------------------ */
/* The question -> claims map, from the built labs' --describe               */

/* The built labs and their --describe; 0, or -1 when the labs directory
 * cannot be read (it said why). */
static int learn_discover(struct learn_ctx *lc)
{
	snprintf(lc->labs_opt.labs_dir, sizeof(lc->labs_opt.labs_dir), "%s", lc->opt->labs_dir);
	lc->labs_opt.timeout_mul = lc->opt->timeout_mul;
	lc->labs.opt = &lc->labs_opt;
	if (discover_labs(&lc->labs)) {
		lab_entries_free(&lc->labs);
		return -1;
	}
	lc->have_labs = 1;
	return 0;
}

/* A claim's questions from its --describe or record object: its
 * "questions" joined by blanks, else its "question" (an older lab). */
static const char *claim_questions(const struct json *c, char *buf, size_t len)
{
	const struct json *qs = json_get(c, "questions"), *q;
	size_t n = 0;

	buf[0] = '\0';
	if (!qs || qs->type != JSON_ARR || !qs->count)
		return json_get_str(c, "question", "");
	for (q = qs->child; q && n < len; q = q->next)
		if (q->type == JSON_STR)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", q->str);
	return buf;
}

/* Every claim of a describe or results document's claims array. */
static int map_claims(struct learn_ctx *lc, const char *lab, const struct json *claims)
{
	const struct json *c;
	char qs[512];

	for (c = claims && claims->type == JSON_ARR ? claims->child : NULL; c; c = c->next)
		if (json_get_str(c, "id", NULL) &&
		    ans_map_claim(&lc->ans, lab, json_get_str(c, "id", ""),
				  claim_questions(c, qs, sizeof(qs))) < 0)
			return -1;
	return 0;
}

int learn_map(struct learn_ctx *lc)
{
	const struct lab_entry *lab;
	int i, k;

	ans_map_clear(&lc->ans);
	for (i = 0; lc->have_labs && i < lc->labs.nlabs; i++) {
		lab = &lc->labs.labs[i];
		if (lab->desc && map_claims(lc, lab->id, json_get(lab->desc, "claims")))
			return -1;
	}
	/* results of a lab not built here: the questions its record names */
	for (i = 0; lc->have_results && i < lc->res.nlabs; i++) {
		lab = &lc->res.labs[i];
		if (ans_map_lab(&lc->ans, lab->id))
			continue;
		for (k = 0; k < lab->nclaims; k++) {
			const struct claim *c = &lab->claims[k];
			char qs[512];

			if (ans_map_claim(&lc->ans, lab->id, c->id, c->json ?
					  claim_questions(c->json, qs, sizeof(qs)) :
					  c->question) < 0)
				return -1;
		}
	}
	return ans_map_planned(&lc->ans);
}

/* ------------------------------------------------------------------------ */
/* `dmalab answers`: the answers files against the built labs                */

/* The built claims with their questions, as --describe names them; the
 * strings live in the labs' describe documents or in *qs. */
static int collect_built(struct run_state *rs, struct ans_built **out, char (**qs)[512])
{
	const struct json *claims, *c;
	struct ans_built *b;
	int i, n = 0, total = 0;

	for (i = 0; i < rs->nlabs; i++)
		total += rs->labs[i].nclaims;
	b = calloc((size_t)total + 1, sizeof(*b));
	*qs = calloc((size_t)total + 1, sizeof(**qs));
	if (!b || !*qs) {
		free(b);
		return -1;
	}
	for (i = 0; i < rs->nlabs; i++) {
		claims = rs->labs[i].desc ? json_get(rs->labs[i].desc, "claims") : NULL;
		for (c = claims ? claims->child : NULL; c && n < total; c = c->next, n++) {
			b[n].lab = rs->labs[i].id;
			b[n].claim = json_get_str(c, "id", "?");
			b[n].questions = claim_questions(c, (*qs)[n], sizeof((*qs)[n]));
		}
	}
	*out = b;
	return n;
}

static int describe_errors(struct run_state *rs)
{
	int i, bad = 0;

	for (i = 0; i < rs->nlabs; i++)
		if (rs->labs[i].desc_error[0]) {
			printf("error: lab-%s: %s\n", rs->labs[i].id, rs->labs[i].desc_error);
			bad++;
		}
	return bad;
}

/* 1, and an error printed naming `where`, when text copies a run of the
 * chapter's. */
static int seed_copied(const struct ans_seed *sd, const char *text, const char *where)
{
	char run[LEARN_SEED_RUN * 40 + 64];
	size_t n = ans_seed_shared(sd, text, strlen(text), run, sizeof(run));

	if (n)
		printf("error: %s shares %zu Chinese characters in a row with %s: %s\n", where, n,
		       sd->name, run);
	return n != 0;
}

/* One chapter's text against every zh field of the answers; the number of
 * copied runs found. */
static int seed_check(const struct learn_ctx *lc, const struct ans_seed *sd)
{
	const struct ans_set *s = &lc->ans;
	char where[PATH_MAX + 64];
	int i, k, found = 0;

	for (i = 0; i < s->nch; i++)
		for (k = 0; k < s->ch[i].n; k++) {
			const struct ans_question *q = &s->ch[i].q[k];

			snprintf(where, sizeof(where), "%s:%d: %s prompt.zh", s->ch[i].path,
				 q->line, q->id);
			found += seed_copied(sd, q->prompt[ANS_ZH], where);
			snprintf(where, sizeof(where), "%s:%d: %s answer.zh", s->ch[i].path,
				 q->line, q->id);
			found += seed_copied(sd, q->answer[ANS_ZH], where);
		}
	for (i = 0; i < s->nhints; i++)
		for (k = 0; k < s->hints[i].n; k++) {
			snprintf(where, sizeof(where), "hints.md:%d: lab %s hint.zh %d",
				 s->hints[i].line, s->hints[i].id, k + 1);
			found += seed_copied(sd, s->hints[i].hint[ANS_ZH][k], where);
		}
	return found;
}

/* The answers against every chapter text DIR/NAME.txt: errors (a missing
 * directory is one). */
static int seeds_check(const struct learn_ctx *lc, const char *dir)
{
	char pattern[PATH_MAX], err[PATH_MAX + 64];
	struct ans_seed sd;
	glob_t g;
	size_t i;
	int errors = 0;

	snprintf(pattern, sizeof(pattern), "%s/*.txt", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		printf("error: --seeds %s: no chapter text (*.txt) there\n", dir);
		return 1;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		if (ans_seed_load(g.gl_pathv[i], LEARN_SEED_RUN, &sd, err, sizeof(err))) {
			printf("error: %s\n", err);
			errors++;
			continue;
		}
		errors += seed_check(lc, &sd);
		ans_seed_free(&sd);
	}
	printf("answers: %zu chapter text(s) in %s: %d run(s) of %d or more Chinese "
	       "characters copied\n", g.gl_pathc, dir, errors, LEARN_SEED_RUN);
	globfree(&g);
	return errors;
}

int cmd_answers(struct learn_ctx *lc)
{
	struct run_state *rs = &lc->labs;
	struct ans_built *b = NULL;
	char (*qs)[512] = NULL;
	int nb, errors;

	nb = collect_built(rs, &b, &qs);
	errors = nb < 0 ? 1 : describe_errors(rs) + ans_cross_check(&lc->ans, b, nb, stdout);
	printf("answers: %d chapter(s), %d built lab(s) with %d claim(s), %d planned lab(s): "
	       "%d error(s)\n", lc->ans.nch, rs->nlabs, nb, lc->ans.nplanned, errors);
	if (lc->opt->seeds_dir)
		errors += seeds_check(lc, lc->opt->seeds_dir);
	free(qs);
	free(b);
	return errors ? 1 : 0;
}

/* ------------------------------------------------------------------------ */

static int learn_load(struct learn_ctx *lc)
{
	static char path[PATH_MAX];
	char err[600];

	/* none: dmalab run in another folder than the kit's */
	if (access(lc->opt->answers_dir, F_OK) != 0)
		return error(MSG("learn.no-answers", "no folder '%s' here: run dmalab in the "
				 "kit's folder, or give --answers-dir DIR"),
			     lc->opt->answers_dir), 2;
	if (ans_load_dir(lc->opt->answers_dir, &lc->ans, err, sizeof(err))) {
		error("%s", err);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/errata.md", lc->opt->answers_dir);
	/* no file: the copy built into the library, which the labs use too */
	if (errata_read(lc->opt->errata_path, path, &lc->opt->errata_path, &lc->errata,
			err, sizeof(err))) {
		error("%s", err);
		return 2;
	}
	if (lc->opt->chapter && !ans_find_chapter(&lc->ans, lc->opt->chapter)) {
		error("no chapter '%s' in '%s'", lc->opt->chapter, lc->opt->answers_dir);
		return 2;
	}
	if (!strcmp(lc->opt->command, "hint"))
		return 0; /* hints need no claims */
	/* a labs directory that cannot be read leaves the built claims out:
	 * grade and quiz still read the results (learn_map) */
	if (learn_discover(lc) && !strcmp(lc->opt->command, "answers"))
		return 1;
	if (learn_map(lc)) {
		error("out of memory");
		return 1;
	}
	return 0;
}

int learn_main(int argc, char **argv, int (*cmd)(struct learn_ctx *lc))
{
	struct learn_opts o;
	static char help[64];
	struct learn_ctx lc;
	int rc;

	/* argv[1] is the command: "dmalab hint" has the help of its own name */
	snprintf(help, sizeof(help), "dmalab %s", argc > 1 ? argv[1] : "grade");
	usage_set_help(help);
	learn_defaults(&o, argv);
	learn_parse(&o, argc, argv);
	learn_args(&o, argc, argv);
	signal(SIGPIPE, SIG_IGN);
	memset(&lc, 0, sizeof(lc));
	lc.opt = &o;
	rc = learn_load(&lc);
	if (!rc)
		rc = cmd(&lc);
	if (lc.have_results)
		results_unload(&lc.res);
	if (lc.have_labs)
		lab_entries_free(&lc.labs);
	ans_set_free(&lc.ans);
	errata_free(&lc.errata);
	return rc;
}
