/*
 * sabotage-check NORMALDIR SABOTAGEDIR - prove every claim can fail.
 *
 * Runs each lab of the normal build (NORMALDIR/lab-NN) once with --quick,
 * and its sabotage build (SABOTAGEDIR/lab-NN, compiled with -DLAB_SABOTAGE)
 * once per knob that its --describe lists, with DMALAB_SABOTAGE set to that
 * knob's claims: each claim is judged on the run of the first knob naming
 * it, so no claim is proven through another claim's sabotage.  A knob whose
 * claims are those of an earlier knob shares its run (the same
 * DMALAB_SABOTAGE breaks the same knobs).  A claim whose spec carries a
 * sabotage text but that no knob names is a DEFECT.  For every other claim
 * with a sabotage text:
 *
 *   normal build   pass, or fail as the predicted erratum  -> as it should
 *                  fail otherwise -> not proven: the sabotage build proves
 *                                    nothing by failing it again; the
 *                                    contradiction is this machine's finding,
 *                                    which `make check` reports and fails on
 *                  skip, inconclusive -> cannot be proven here
 *                  anything else (error) -> DEFECT
 *   sabotage build fail, not as the predicted erratum       -> it failed
 *                  pass, where the normal build failed as the predicted
 *                  erratum -> it moved: a claim whose chapter is wrong
 *                  here can still come out either way, and the sabotage
 *                  (which breaks what the erratum rests on) puts it on the
 *                  chapter's side (lab-07's 07.1: a sub-allocator confined
 *                  to one reserved range refuses the request, as the
 *                  chapter says)
 *                  skip -> cannot be proven here
 *                  anything else -> DEFECT: the claim could not fail
 *
 * A claim is proven when both builds did as they should.  One line per
 * claim, naming the knob whose run decided it, then the totals; a progress
 * line per lab on stderr; exit 1 when there is a defect, 2 on usage.
 * The records stay in a temporary directory when there is a defect.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"

#define LAB_LIMIT_S 300

struct tally {
	int proven, unproven, defects;
};

static int is_lab_name(const char *name)
{
	return strncmp(name, "lab-", 4) == 0 && strlen(name) == 6;
}

/* One run of a lab's binary: what it is for the messages, what it gets. */
struct run {
	const char *lab;  /* "lab-03" */
	const char *path; /* the binary */
	const char *what; /* "normal build", "sabotage build (K.x)" */
	const char *tag;  /* its files: TMP/lab-03.TAG.json and .tap */
	const char *env;  /* DMALAB_SABOTAGE, or NULL for none */
	int describe;     /* --describe (its stdout is the JSON) instead of --quick */
};

/* The child's side of run_lab: never returns. */
static void exec_lab(const struct run *r, const char *json, const char *log)
{
	FILE *f = freopen(r->describe ? json : log, "w", stdout);

	(void)f;
	setpgid(0, 0);
	if (r->env)
		setenv("DMALAB_SABOTAGE", r->env, 1);
	else
		unsetenv("DMALAB_SABOTAGE"); /* the caller's would pick knobs */
	if (r->describe)
		execl(r->path, r->path, "--describe", (char *)NULL);
	else
		execl(r->path, r->path, "--quick", "--json", json, (char *)NULL);
	_exit(127);
}

/* Runs r (stdout to log, or to json for --describe); kills it after limit_s.
 * 0 when it exited (any code), -1 when it could not run or was killed. */
static int run_lab(const struct run *r, const char *json, const char *log, int limit_s)
{
	pid_t pid;
	int status, waited = 0;

	fflush(stdout); /* or the child's freopen would flush our buffer again */
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		exec_lab(r, json, log);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited++ >= limit_s * 10) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(100000);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -1 : 0;
}

/* The claim's erratum.status, or NULL. */
static const char *erratum_status(const struct json *c)
{
	const struct json *e = json_get(c, "erratum");

	return e && e->type == JSON_OBJ ? json_get_str(e, "status", NULL) : NULL;
}

static int predicted(const struct json *c)
{
	const char *e = erratum_status(c);

	return e && strcmp(e, "predicted") == 0;
}

/* "skip (reason: detail)" or "inconclusive (detail)" into buf. */
static const char *why_undecided(const struct json *c, char *buf, size_t len)
{
	const char *status = json_get_str(c, "status", "?");
	const char *reason = json_get_str(c, "reason", "");
	const char *detail = json_get_str(c, "detail", "");

	if (strcmp(status, "skip") == 0)
		snprintf(buf, len, "skip (%s: %s)", reason, detail);
	else
		snprintf(buf, len, "inconclusive (%s)", detail);
	return buf;
}

enum outcome { AS_IT_SHOULD, CANNOT_HERE, DEFECT };

/* The normal build's verdict; what it means goes into buf. */
static enum outcome judge_normal(const struct json *c, char *buf, size_t len)
{
	const char *status = json_get_str(c, "status", "?");
	const char *e = erratum_status(c);
	char why[400];

	if (strcmp(status, "pass") == 0) {
		snprintf(buf, len, "normal build passes");
		return AS_IT_SHOULD;
	}
	if (strcmp(status, "fail") == 0 && predicted(c)) {
		snprintf(buf, len, "normal build fails as the predicted erratum");
		return AS_IT_SHOULD;
	}
	if (strcmp(status, "fail") == 0) {
		snprintf(buf, len, "the normal build fails it (erratum: %s): the sabotage proves "
			 "nothing by failing it again (a finding on this machine: see make check)",
			 e ? e : "none listed");
		return CANNOT_HERE;
	}
	if (strcmp(status, "skip") == 0 || strcmp(status, "inconclusive") == 0) {
		snprintf(buf, len, "normal build: %s", why_undecided(c, why, sizeof(why)));
		return CANNOT_HERE;
	}
	snprintf(buf, len, "normal build: status '%s' (%s)", status,
		 json_get_str(c, "detail", ""));
	return DEFECT;
}

/* The sabotage build's verdict (nc: the normal build's claim). */
static enum outcome judge_sabotage(const struct json *c, const struct json *nc, char *buf,
				   size_t len)
{
	const char *status = json_get_str(c, "status", "?");
	char why[400];

	if (strcmp(status, "fail") == 0 && !predicted(c)) {
		snprintf(buf, len, "the sabotage makes it fail");
		return AS_IT_SHOULD;
	}
	if (strcmp(status, "pass") == 0 && !strcmp(json_get_str(nc, "status", ""), "fail") &&
	    predicted(nc)) {
		snprintf(buf, len, "the sabotage moves it off the erratum: it passes");
		return AS_IT_SHOULD;
	}
	if (strcmp(status, "skip") == 0) {
		snprintf(buf, len, "sabotage build: %s", why_undecided(c, why, sizeof(why)));
		return CANNOT_HERE;
	}
	if (strcmp(status, "fail") == 0)
		snprintf(buf, len, "with the sabotage it fails only as the predicted erratum, "
			 "as the normal build may");
	else if (json_get_str(c, "detail", "")[0])
		snprintf(buf, len, "with the sabotage the claim is '%s', not 'fail' (%s)", status,
			 json_get_str(c, "detail", ""));
	else
		snprintf(buf, len, "with the sabotage the claim is '%s', not 'fail'", status);
	return DEFECT;
}

static const struct json *find_claim(const struct json *doc, const char *id)
{
	const struct json *c = json_get(doc, "claims");

	for (c = c ? c->child : NULL; c; c = c->next)
		if (strcmp(json_get_str(c, "id", ""), id) == 0)
			return c;
	return NULL;
}

/* "lab-03 03.4 by K.race_pinned": the claim and the knob whose run decided it. */
struct who {
	const char *lab, *id, *knob;
};

static void check_claim(const struct who *w, const struct json *nc, const struct json *sc,
			const char *sab, struct tally *t)
{
	const char *lab = w->lab, *id = w->id, *k = w->knob;
	char nbuf[600], sbuf[600];
	enum outcome n, s;

	n = judge_normal(nc, nbuf, sizeof(nbuf));
	s = judge_sabotage(sc, nc, sbuf, sizeof(sbuf));
	if (n == DEFECT || s == DEFECT) {
		printf("DEFECT   %s %s by %s: %s (sabotage: %s)\n", lab, id, k,
		       n == DEFECT ? nbuf : sbuf, sab);
		if (n == DEFECT && s == DEFECT)
			printf("         %s %s: and %s\n", lab, id, sbuf);
		t->defects++;
	} else if (n == CANNOT_HERE && s == CANNOT_HERE &&
		   strcmp(nbuf + strlen("normal build: "),
			  sbuf + strlen("sabotage build: ")) == 0) {
		printf("unproven %s %s by %s: cannot be proven here: both builds: %s\n", lab, id,
		       k, nbuf + strlen("normal build: "));
		t->unproven++;
	} else if (n == CANNOT_HERE || s == CANNOT_HERE) {
		printf("unproven %s %s by %s: cannot be proven here: %s%s%s\n", lab, id, k,
		       n == CANNOT_HERE ? nbuf : "",
		       n == CANNOT_HERE && s == CANNOT_HERE ? "; " : "",
		       s == CANNOT_HERE ? sbuf : "");
		t->unproven++;
	} else {
		printf("proven   %s %s by %s: %s; %s (%s)\n", lab, id, k, nbuf, sbuf, sab);
		t->proven++;
	}
}

static int defect(struct tally *t)
{
	t->defects++;
	return -1;
}

/* Runs r and parses what it wrote (its record, or its --describe); NULL
 * after a DEFECT line. */
static struct json *output_of(const struct run *r, const char *tmp, struct tally *t)
{
	char json[4096], log[4096], err[256];
	struct json *doc;

	snprintf(json, sizeof(json), "%s/%s.%s.json", tmp, r->lab, r->tag);
	snprintf(log, sizeof(log), "%s/%s.%s.tap", tmp, r->lab, r->tag);
	if (access(r->path, X_OK) != 0) {
		printf("DEFECT   %s: no %s (%s)\n", r->lab, r->what, r->path);
		return defect(t), NULL;
	}
	if (run_lab(r, json, log, LAB_LIMIT_S) < 0) {
		printf("DEFECT   %s: the %s did not finish in %d s (see %s)\n", r->lab, r->what,
		       LAB_LIMIT_S, r->describe ? json : log);
		return defect(t), NULL;
	}
	doc = json_parse_file(json, err, sizeof(err));
	if (!doc && r->describe)
		printf("DEFECT   %s: the %s's --describe gave no JSON: %s\n", r->lab, r->what, err);
	else if (!doc)
		printf("DEFECT   %s: the %s left no record: %s\n", r->lab, r->what, err);
	if (!doc)
		defect(t);
	return doc;
}

/* Runs r; its record, or NULL after a DEFECT line. */
static struct json *record_of(const struct run *r, const char *tmp, int want_sabotage,
			      struct tally *t)
{
	struct json *doc = output_of(r, tmp, t);
	const struct json *flag = doc ? json_get(doc, "sabotage") : NULL;

	if (!doc)
		return NULL;
	if (!flag || flag->type != JSON_BOOL || (flag->num != 0) != want_sabotage) {
		printf("DEFECT   %s: the %s's record says sabotage: %s\n", r->lab, r->what,
		       flag && flag->type == JSON_BOOL ? (flag->num ? "true" : "false") :
		       "missing");
		defect(t);
		json_free(doc);
		return NULL;
	}
	return doc;
}

#define MAX_RUNS 64

/* One sabotage run: the knobs it is for, their claims as DMALAB_SABOTAGE. */
struct knob_run {
	char knob[256]; /* "K.peer_access+K.corrupt_one_byte": knobs with these claims */
	char env[512];  /* "09.1 09.3" */
	char tag[32];   /* "sabotage-2" */
	struct json *doc;
};

/* A knob's claims (a JSON array of ids) as one blank-separated list. */
static void join_claims(const struct json *claims, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct json *c = claims ? claims->child : NULL; c; c = c->next)
		if (c->type == JSON_STR && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", c->str);
}

/* The run for env among runs[0..n), or a new one; the index, -1 when full. */
static int run_for(struct knob_run *runs, int *n, const char *knob, const char *env)
{
	struct knob_run *r;
	int i;

	for (i = 0; i < *n && strcmp(runs[i].env, env); i++)
		;
	if (i == *n && *n == MAX_RUNS)
		return -1;
	r = &runs[i];
	if (i == *n) {
		memset(r, 0, sizeof(*r));
		snprintf(r->env, sizeof(r->env), "%s", env);
		snprintf(r->tag, sizeof(r->tag), "sabotage-%d", i + 1);
		(*n)++;
	}
	snprintf(r->knob + strlen(r->knob), sizeof(r->knob) - strlen(r->knob), "%s%s",
		 r->knob[0] ? "+" : "", knob);
	return i;
}

/* The runs the --describe's knobs ask for, one per distinct claim list;
 * how many, or -1 after a DEFECT line. */
static int plan_runs(const char *lab, const struct json *desc, struct knob_run *runs,
		     struct tally *t)
{
	const struct json *knobs = json_get(desc, "knobs"), *k;
	char env[512];
	int n = 0;

	if (!knobs || knobs->type != JSON_ARR) {
		printf("DEFECT   %s: its --describe lists no knobs (PROTOCOL.md 1)\n", lab);
		return defect(t);
	}
	for (k = knobs->child; k; k = k->next) {
		join_claims(json_get(k, "claims"), env, sizeof(env));
		if (!env[0])
			continue; /* a knob backing no claim breaks nothing we judge */
		if (run_for(runs, &n, json_get_str(k, "name", "?"), env) < 0) {
			printf("DEFECT   %s: more than %d knobs\n", lab, MAX_RUNS);
			return defect(t);
		}
	}
	return n;
}

/* 1 when the blank-separated list holds id. */
static int names(const char *list, const char *id)
{
	size_t len = strlen(id);

	for (const char *p = list; *p; p += strcspn(p, " ")) {
		p += strspn(p, " ");
		if (strcspn(p, " ") == len && !strncmp(p, id, len))
			return 1;
	}
	return 0;
}

/* The first run whose knob names id, or NULL. */
static const struct knob_run *run_naming(const struct knob_run *runs, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (names(runs[i].env, id))
			return &runs[i];
	return NULL;
}

/* Judges one claim of desc (with a sabotage text) on its knob's run. */
static void judge_one(const char *lab, const struct json *dc, const struct json *normal,
		      const struct knob_run *runs, int n, struct tally *t)
{
	const char *id = json_get_str(dc, "id", "?");
	const char *sab = json_get_str(dc, "sabotage", "?");
	const struct knob_run *r = run_naming(runs, n, id);
	const struct json *nc = find_claim(normal, id), *sc = NULL;
	struct who w = { lab, id, r ? r->knob : NULL };

	if (!r) {
		printf("DEFECT   %s %s: no knob breaks it (sabotage: %s)\n", lab, id, sab);
		t->defects++;
	} else if (!r->doc) {
		return; /* the run's DEFECT line said why */
	} else if (!nc || !(sc = find_claim(r->doc, id))) {
		printf("DEFECT   %s %s by %s: the %s record has no claim %s\n", lab, id, r->knob,
		       nc ? "sabotage run's" : "normal build's", id);
		t->defects++;
	} else {
		check_claim(&w, nc, sc, sab, t);
	}
}

static void judge_lab(const char *lab, const struct json *desc, const struct json *normal,
		      const struct knob_run *runs, int n, struct tally *t)
{
	const struct json *c = json_get(desc, "claims");
	int judged = 0;

	for (c = c ? c->child : NULL; c; c = c->next) {
		if (!json_get_str(c, "sabotage", NULL))
			continue;
		judge_one(lab, c, normal, runs, n, t);
		judged++;
	}
	if (!judged)
		printf("note     %s: no claim has a sabotage text\n", lab);
}

static void path_of(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* The sabotage build once per knob, after the normal build. */
static void run_knobs(const char *sab_path, const char *name, struct knob_run *runs, int n,
		      const char *tmp, struct tally *t)
{
	char what[400];

	for (int i = 0; i < n; i++) {
		struct run r = { name, sab_path, what, runs[i].tag, runs[i].env, 0 };

		snprintf(what, sizeof(what), "sabotage build (%s)", runs[i].knob);
		runs[i].doc = record_of(&r, tmp, 1, t);
	}
}

static void check_lab(const char *normal_dir, const char *sab_dir, const char *name,
		      const char *tmp, struct tally *t)
{
	static struct knob_run runs[MAX_RUNS];
	char npath[4096], spath[4096];
	struct run d = { name, spath, "sabotage build", "describe", NULL, 1 };
	struct run nr = { name, npath, "normal build", "normal", NULL, 0 };
	struct json *desc, *normal = NULL;
	int n = -1;

	path_of(npath, sizeof(npath), normal_dir, name);
	path_of(spath, sizeof(spath), sab_dir, name);
	desc = output_of(&d, tmp, t);
	if (desc)
		n = plan_runs(name, desc, runs, t);
	if (n >= 0) {
		size_t k = json_get(desc, "knobs")->count;

		fprintf(stderr, "sabotage-check: %s: the normal build, then %d sabotage run%s "
			"for %zu knob%s\n", name, n, n == 1 ? "" : "s", k, k == 1 ? "" : "s");
		normal = record_of(&nr, tmp, 0, t);
	}
	if (normal) {
		run_knobs(spath, name, runs, n, tmp, t);
		judge_lab(name, desc, normal, runs, n, t);
	}
	for (int i = 0; normal && i < n; i++)
		json_free(runs[i].doc);
	json_free(normal);
	json_free(desc);
}

/* The lab-NN names in dir, sorted; returns how many (-1 on error). */
static int lab_names(const char *dir, char ***out)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), i, k = 0;

	if (n < 0)
		return -1;
	*out = calloc((size_t)n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		if (*out && is_lab_name(names[i]->d_name))
			(*out)[k++] = strdup(names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return *out ? k : -1;
}

static int listed(char **v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (v[i] && strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

static void remove_tmp(const char *tmp)
{
	struct dirent *d;
	DIR *dir = opendir(tmp);
	char path[4096];

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", tmp, d->d_name);
			unlink(path);
		}
	closedir(dir);
	rmdir(tmp);
}

int main(int argc, char **argv)
{
	struct tally t = { 0, 0, 0 };
	char tmp[] = "/tmp/dmalab-sabotage-XXXXXX";
	char **normal = NULL, **sab = NULL;
	int nn, ns, i;

	if (argc != 3) {
		fprintf(stderr, "usage: sabotage-check NORMALDIR SABOTAGEDIR\n");
		return 2;
	}
	nn = lab_names(argv[1], &normal);
	ns = lab_names(argv[2], &sab);
	if (nn < 0 || ns < 0) {
		fprintf(stderr, "sabotage-check: '%s': %s\n", nn < 0 ? argv[1] : argv[2],
			strerror(errno));
		return 2;
	}
	if (nn + ns == 0) {
		fprintf(stderr, "sabotage-check: no lab-NN in '%s' or '%s'\n", argv[1], argv[2]);
		return 2;
	}
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "sabotage-check: %s: %s\n", tmp, strerror(errno));
		return 2;
	}
	for (i = 0; i < ns; i++)
		check_lab(argv[1], argv[2], sab[i], tmp, &t);
	for (i = 0; i < nn; i++)
		if (!listed(sab, ns, normal[i])) {
			printf("DEFECT   %s: no sabotage build in %s\n", normal[i], argv[2]);
			t.defects++;
		}
	for (i = 0; i < nn; i++)
		free(normal[i]);
	for (i = 0; i < ns; i++)
		free(sab[i]);
	free(normal);
	free(sab);
	if (t.defects) {
		printf("sabotage: %d proven to fail, %d cannot be proven on this machine, "
		       "%d defects (records in %s)\n", t.proven, t.unproven, t.defects, tmp);
		return 1;
	}
	remove_tmp(tmp);
	printf("sabotage: %d proven to fail, %d cannot be proven on this machine, %d defects\n",
	       t.proven, t.unproven, t.defects);
	return 0;
}
