/*
 * sabotage-check NORMALDIR SABOTAGEDIR - prove every claim can fail.
 *
 * Runs each lab of the normal build (NORMALDIR/lab-NN) and of its sabotage
 * build (SABOTAGEDIR/lab-NN, compiled with -DLAB_SABOTAGE) with --quick and
 * reads both JSON records.  For every claim whose spec carries a sabotage
 * text:
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
 *                  chapter's side (lab-07's 07.1: no hole to back the
 *                  request, so it fails as the chapter says)
 *                  skip -> cannot be proven here
 *                  anything else -> DEFECT: the claim could not fail
 *
 * A claim is proven when both builds did as they should.  One line per
 * claim, then the totals; exit 1 when there is a defect, 2 on usage.
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

/* Runs `path --quick --json json` with stdout to log; kills it after limit_s.
 * 0 when it exited (any code), -1 when it could not run or was killed. */
static int run_lab(const char *path, const char *json, const char *log, int limit_s)
{
	pid_t pid;
	int status, waited = 0;

	fflush(stdout); /* or the child's freopen would flush our buffer again */
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *f = freopen(log, "w", stdout);

		(void)f;
		setpgid(0, 0);
		execl(path, path, "--quick", "--json", json, (char *)NULL);
		_exit(127);
	}
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

static void check_claim(const char *lab, const struct json *nc, const struct json *sc,
			struct tally *t)
{
	const char *id = json_get_str(sc, "id", "?");
	const char *sab = json_get_str(sc, "sabotage", "?");
	char nbuf[600], sbuf[600];
	enum outcome n, s;

	if (!nc) {
		printf("DEFECT   %s %s: the normal build's record has no claim %s\n", lab, id, id);
		t->defects++;
		return;
	}
	n = judge_normal(nc, nbuf, sizeof(nbuf));
	s = judge_sabotage(sc, nc, sbuf, sizeof(sbuf));
	if (n == DEFECT || s == DEFECT) {
		printf("DEFECT   %s %s: %s (sabotage: %s)\n", lab, id, n == DEFECT ? nbuf : sbuf,
		       sab);
		if (n == DEFECT && s == DEFECT)
			printf("         %s %s: and %s\n", lab, id, sbuf);
		t->defects++;
	} else if (n == CANNOT_HERE && s == CANNOT_HERE &&
		   strcmp(nbuf + strlen("normal build: "), sbuf + strlen("sabotage build: ")) == 0) {
		printf("unproven %s %s: cannot be proven here: both builds: %s\n", lab, id,
		       nbuf + strlen("normal build: "));
		t->unproven++;
	} else if (n == CANNOT_HERE || s == CANNOT_HERE) {
		printf("unproven %s %s: cannot be proven here: %s%s%s\n", lab, id,
		       n == CANNOT_HERE ? nbuf : "",
		       n == CANNOT_HERE && s == CANNOT_HERE ? "; " : "",
		       s == CANNOT_HERE ? sbuf : "");
		t->unproven++;
	} else {
		printf("proven   %s %s: %s; %s (%s)\n", lab, id, nbuf, sbuf, sab);
		t->proven++;
	}
}

/* Runs dir/name; its parsed record, or NULL after a DEFECT line. */
static struct json *record_of(const char *dir, const char *name, const char *build,
			      const char *tmp, int want_sabotage, struct tally *t)
{
	char path[4096], json[4096], log[4096], err[256];
	struct json *doc;
	const struct json *flag;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(json, sizeof(json), "%s/%s.%s.json", tmp, name, build);
	snprintf(log, sizeof(log), "%s/%s.%s.tap", tmp, name, build);
	if (access(path, X_OK) != 0) {
		printf("DEFECT   %s: no %s build (%s)\n", name, build, path);
		t->defects++;
		return NULL;
	}
	if (run_lab(path, json, log, LAB_LIMIT_S) < 0) {
		printf("DEFECT   %s: the %s build did not finish in %d s (see %s)\n", name, build,
		       LAB_LIMIT_S, log);
		t->defects++;
		return NULL;
	}
	doc = json_parse_file(json, err, sizeof(err));
	if (!doc) {
		printf("DEFECT   %s: the %s build left no record: %s\n", name, build, err);
		t->defects++;
		return NULL;
	}
	flag = json_get(doc, "sabotage");
	if (!flag || flag->type != JSON_BOOL || (flag->num != 0) != want_sabotage) {
		printf("DEFECT   %s: the %s build's record says sabotage: %s\n", name, build,
		       flag && flag->type == JSON_BOOL ? (flag->num ? "true" : "false") : "missing");
		t->defects++;
		json_free(doc);
		return NULL;
	}
	return doc;
}

static void check_lab(const char *normal_dir, const char *sab_dir, const char *name,
		      const char *tmp, struct tally *t)
{
	struct json *normal = record_of(normal_dir, name, "normal", tmp, 0, t);
	struct json *sab = normal ? record_of(sab_dir, name, "sabotage", tmp, 1, t) : NULL;
	const struct json *c;
	int n = 0;

	if (normal && sab) {
		c = json_get(sab, "claims");
		for (c = c ? c->child : NULL; c; c = c->next) {
			if (!json_get_str(c, "sabotage", NULL))
				continue;
			check_claim(name, find_claim(normal, json_get_str(c, "id", "")), c, t);
			n++;
		}
		if (!n)
			printf("note     %s: no claim has a sabotage text\n", name);
	}
	json_free(normal);
	json_free(sab);
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
		printf("sabotage: %d proven to fail, %d cannot be proven on this machine, %d defects "
		       "(records in %s)\n", t.proven, t.unproven, t.defects, tmp);
		return 1;
	}
	remove_tmp(tmp);
	printf("sabotage: %d proven to fail, %d cannot be proven on this machine, %d defects\n",
	       t.proven, t.unproven, t.defects);
	return 0;
}
