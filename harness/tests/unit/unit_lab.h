/*
 * unit_lab.h - run a small lab in-process (in a forked child, as a lab runs)
 * and read back what it decided: its exit code, its JSON record and its TAP.
 * For the unit tests; include after <cmocka.h>.
 *
 * The child is where the library reads the errata (errata_builtin caches):
 * a test that wants its own errata sets DMALAB_ERRATA before unit_run_lab
 * and never decides a claim in the test process itself.
 */
#ifndef DMALAB_UNIT_LAB_H
#define DMALAB_UNIT_LAB_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "lab.h"

#define UNIT_UNUSED __attribute__((unused))

/* What one lab run left behind; unit_lab_free() it. */
struct unit_lab {
	int exit_code;   /* -1 when the child did not exit normally */
	struct json *rec; /* the --json record, or NULL */
	char *tap;       /* everything it printed on stdout */
};

/* The sysfs root of fixture tree `tree` (harness/tests/fixtures/<tree>/sys, from
 * the repository root, or under $DMALAB_FIXTURES) into buf; returns buf. */
static UNIT_UNUSED const char *unit_fixture_sys(const char *tree, char *buf, size_t len)
{
	const char *dir = getenv("DMALAB_FIXTURES");

	snprintf(buf, len, "%s/%s/sys", dir ? dir : "harness/tests/fixtures", tree);
	return buf;
}

/* Reads a whole file into a NUL-terminated buffer (free() it); NULL on error. */
static UNIT_UNUSED char *unit_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	return text;
}

/* Writes text to a fresh temporary file; path gets its name (>= 32 bytes). */
static UNIT_UNUSED void unit_write_temp(const char *text, char *path, size_t len)
{
	int fd;
	size_t n = strlen(text);

	snprintf(path, len, "/tmp/dmalab-unit-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
}

/* Runs lab_main(spec, run) in a child with --json; the child's stderr is
 * dropped, its stdout kept in u->tap. */
static UNIT_UNUSED void unit_run_lab(const struct lab_spec *spec, void (*run)(struct lab *L),
				     struct unit_lab *u)
{
	char json[] = "/tmp/dmalab-unit-json-XXXXXX", tap[] = "/tmp/dmalab-unit-tap-XXXXXX";
	char err[256];
	int fd_json = mkstemp(json), fd_tap = mkstemp(tap), status;
	pid_t pid;

	assert_true(fd_json >= 0 && fd_tap >= 0);
	close(fd_json);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)"lab-unit", (char *)"--json", json, NULL };
		int devnull = open("/dev/null", O_WRONLY);

		dup2(fd_tap, 1);
		dup2(devnull, 2);
		_exit(lab_main(spec, run, 3, argv, 0));
	}
	close(fd_tap);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	u->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	u->rec = json_parse_file(json, err, sizeof(err));
	u->tap = unit_slurp(tap);
	unlink(json);
	unlink(tap);
	if (!u->rec)
		fail_msg("lab record: %s", err);
	assert_non_null(u->tap);
}

/* Runs lab_main(spec, run) in a child and returns its exit code alone (for
 * runs that stop before any record is written). */
static UNIT_UNUSED int unit_run_lab_exit(const struct lab_spec *spec, void (*run)(struct lab *L))
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)"lab-unit", NULL };
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		dup2(devnull, 2);
		_exit(lab_main(spec, run, 1, argv, 0));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static UNIT_UNUSED void unit_lab_free(struct unit_lab *u)
{
	json_free(u->rec);
	free(u->tap);
	memset(u, 0, sizeof(*u));
}

/* The record of claim id, or NULL. */
static UNIT_UNUSED const struct json *unit_claim(const struct unit_lab *u, const char *id)
{
	const struct json *c = json_get(u->rec, "claims");

	for (c = c ? c->child : NULL; c; c = c->next)
		if (strcmp(json_get_str(c, "id", ""), id) == 0)
			return c;
	return NULL;
}

static UNIT_UNUSED const char *unit_status(const struct unit_lab *u, const char *id)
{
	const struct json *c = unit_claim(u, id);

	return c ? json_get_str(c, "status", "?") : "missing";
}

/* The claim's erratum.status, "null" when it has none. */
static UNIT_UNUSED const char *unit_erratum(const struct unit_lab *u, const char *id)
{
	const struct json *c = unit_claim(u, id);
	const struct json *e = c ? json_get(c, "erratum") : NULL;

	return e && e->type == JSON_OBJ ? json_get_str(e, "status", "?") : "null";
}

/* Member `key` of the claim's i-th attached series. */
static UNIT_UNUSED const struct json *unit_stats(const struct unit_lab *u, const char *id, int i)
{
	const struct json *c = unit_claim(u, id);
	const struct json *s = c ? json_get(c, "stats") : NULL;

	for (s = s ? s->child : NULL; s && i > 0; s = s->next)
		i--;
	return s;
}

#endif
