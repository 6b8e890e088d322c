/*
 * sabotage-check LABDIR - prove every claim can fail.
 *
 * Runs each sabotage build (lab-NN compiled with -DLAB_SABOTAGE) with
 * --quick and reads its JSON record.  Every claim whose spec carries a
 * sabotage text must come out `fail`.  A claim that skips here (no GPU, one
 * NUMA node) cannot be proven on this machine and is reported as such; one
 * that passes or is inconclusive means the claim could not fail: a defect.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"

struct tally {
	int proven, unverified, defects;
};

static int is_lab_name(const char *name)
{
	return strncmp(name, "lab-", 4) == 0 && strlen(name) == 6;
}

/* Runs `path --quick --json json` with stdout to log; kills it after limit_s. */
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
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(100000);
	}
	return 0;
}

static void check_claim(const char *lab, const struct json *c, struct tally *t)
{
	const char *id = json_get_str(c, "id", "?");
	const char *sab = json_get_str(c, "sabotage", NULL);
	const char *status = json_get_str(c, "status", "?");

	if (!sab)
		return;
	if (strcmp(status, "fail") == 0) {
		printf("ok       %s %s: the sabotage (%s) makes it fail\n", lab, id, sab);
		t->proven++;
	} else if (strcmp(status, "skip") == 0) {
		printf("skipped  %s %s: cannot be proven here (%s: %s)\n", lab, id,
		       json_get_str(c, "reason", "?"), json_get_str(c, "detail", ""));
		t->unverified++;
	} else {
		printf("DEFECT   %s %s: with the sabotage (%s) the claim is '%s', not 'fail'\n",
		       lab, id, sab, status);
		t->defects++;
	}
}

static void check_lab(const char *dir, const char *name, const char *tmp, struct tally *t)
{
	char path[4096], json[4096], log[4096], err[256];
	const struct json *claims, *c;
	struct json *doc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(json, sizeof(json), "%s/%s.json", tmp, name);
	snprintf(log, sizeof(log), "%s/%s.tap", tmp, name);
	if (run_lab(path, json, log, 300) < 0) {
		printf("DEFECT   %s: did not finish (see %s)\n", name, log);
		t->defects++;
		return;
	}
	doc = json_parse_file(json, err, sizeof(err));
	if (!doc) {
		printf("DEFECT   %s: no record: %s\n", name, err);
		t->defects++;
		return;
	}
	claims = json_get(doc, "claims");
	for (c = claims ? claims->child : NULL; c; c = c->next)
		check_claim(name, c, t);
	json_free(doc);
}

int main(int argc, char **argv)
{
	struct tally t = { 0, 0, 0 };
	char tmp[] = "/tmp/dmalab-sabotage-XXXXXX";
	struct dirent **names;
	int n, i;

	if (argc != 2) {
		fprintf(stderr, "usage: sabotage-check LABDIR\n");
		return 2;
	}
	n = scandir(argv[1], &names, NULL, alphasort);
	if (n < 0 || !mkdtemp(tmp)) {
		fprintf(stderr, "sabotage-check: '%s': %s\n", argv[1], strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (is_lab_name(names[i]->d_name))
			check_lab(argv[1], names[i]->d_name, tmp, &t);
		free(names[i]);
	}
	free(names);
	printf("sabotage: %d proven to fail, %d cannot be proven on this machine, %d defects "
	       "(records in %s)\n", t.proven, t.unverified, t.defects, tmp);
	return t.defects ? 1 : 0;
}
