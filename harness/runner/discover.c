/*
 * discover.c - the built labs found (executables named lab-NN in the labs
 * directory) and each asked for its plan with --describe (PROTOCOL.md 1):
 * the lab entries that run, list, grade and the exercises start from; and
 * the words that pick them (a lab id, the labs directory, --timeout-mul).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang.h"
#include "runner.h"

/* Not through parse_number: fuzz_opts catches this file's die_usage, which a
 * call inside usage.c would not reach. */
double parse_timeout_mul(const char *s, const char *what)
{
	double v;

	/* under 0.1 every lab's limit would be a few ms: no lab could run */
	if (parse_real(s, &v) < 0 || v < 0.1 || v > 1000)
		die_usage(MSG("run.err-number", "bad %s '%s' (want a number from 0.1 to 1000)"),
			  what, s);
	return v;
}

double env_timeout_mul(void)
{
	const char *env = getenv("DMALAB_TIMEOUT_MUL");

	return env && *env ? parse_timeout_mul(env, "DMALAB_TIMEOUT_MUL") : 1;
}

#define DESCRIBE_TIMEOUT_S 10.0
#define DESCRIBE_MAX (256 * 1024)

/* "lab-02" -> "02"; NULL if the name is not lab-<digits>. */
static const char *lab_name_id(const char *name)
{
	if (strncmp(name, "lab-", 4) != 0 || !name[4] || strlen(name) > 12)
		return NULL;
	for (const char *p = name + 4; *p; p++)
		if (!isdigit((unsigned char)*p))
			return NULL;
	return name + 4;
}

int runner_self_path(char *self)
{
	ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);

	self[n > 0 ? n : 0] = '\0';
	return n > 0 ? 0 : -1;
}

void default_labs_dir(const char *argv0, char *out, size_t len)
{
	char self[PATH_MAX];

	if (strchr(argv0, '/'))
		snprintf(self, sizeof(self), "%s", argv0);
	else
		runner_self_path(self);
	snprintf(out, len, "%s/labs", dirname(self));
}

static int by_id(const void *a, const void *b)
{
	const struct lab_entry *x = a, *y = b;

	return strcmp(x->id, y->id);
}

static int is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int add_entry(struct run_state *rs, const char *dir, const char *id)
{
	struct lab_entry *labs, *e;

	labs = realloc(rs->labs, (size_t)(rs->nlabs + 1) * sizeof(*labs));
	if (!labs)
		return -1;
	rs->labs = labs;
	e = &labs[rs->nlabs++];
	memset(e, 0, sizeof(*e));
	snprintf(e->id, sizeof(e->id), "%s", id);
	if (snprintf(e->path, sizeof(e->path), "%s/lab-%s", dir, id) >= (int)sizeof(e->path))
		return -1;
	e->title = "";
	e->exit_code = -1;
	return 0;
}

/* The executables lab-NN of the labs directory, sorted by id.  0; -2 when
 * the directory does not exist (a usage error), -1 on other errors. */
static int scan_dir(struct run_state *rs)
{
	const char *dir = rs->opt->labs_dir;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		error_errno("cannot open labs directory '%s'", dir);
		return errno == ENOENT || errno == ENOTDIR ? -2 : -1;
	}
	while ((de = readdir(d))) {
		const char *id = lab_name_id(de->d_name);

		if (!id)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (is_executable(path) && add_entry(rs, dir, id)) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	if (rs->nlabs)
		qsort(rs->labs, (size_t)rs->nlabs, sizeof(*rs->labs), by_id);
	return 0;
}

/* One line: the id asked for, and the labs there are. */
static void no_such_lab(const struct run_state *rs, const char *id)
{
	char built[1024] = " none";
	size_t n = 0;

	for (int i = 0; i < rs->nlabs && n < sizeof(built); i++)
		n += (size_t)snprintf(built + n, sizeof(built) - n, " %s", rs->labs[i].id);
	error("no lab '%s' in '%s' (build it with make; built:%s)", id, rs->opt->labs_dir, built);
}

/* Keeps only the labs asked for, in the order asked; unknown id: -2. */
static int select_labs(struct run_state *rs)
{
	struct lab_entry *sel;

	if (!rs->opt->nids)
		return 0;
	sel = calloc((size_t)rs->opt->nids, sizeof(*sel));
	if (!sel)
		return -1;
	for (int i = 0; i < rs->opt->nids; i++) {
		const struct lab_entry *e = lab_by_id(rs->labs, rs->nlabs, rs->opt->ids[i]);

		if (!e) {
			no_such_lab(rs, rs->opt->ids[i]);
			free(sel);
			return -2;
		}
		sel[i] = *e;
	}
	free(rs->labs);
	rs->labs = sel;
	rs->nlabs = rs->opt->nids;
	return 0;
}

static char *dup_str(const struct json *o, const char *key)
{
	return strdup(json_get_str(o, key, ""));
}

static int plan_claims(struct lab_entry *e, const struct json *claims)
{
	int i = 0;

	e->claims = calloc(claims->count ? claims->count : 1, sizeof(*e->claims));
	if (!e->claims)
		return -1;
	for (const struct json *c = claims->child; c; c = c->next, i++) {
		struct claim *r = &e->claims[i];

		claim_reset(r);
		snprintf(r->id, sizeof(r->id), "%s", json_get_str(c, "id", ""));
		r->question = dup_str(c, "question");
		r->text = dup_str(c, "text");
		if (json_get_str(c, "chapter", NULL))
			r->chapter = dup_str(c, "chapter");
		if (json_get_str(c, "sabotage", NULL))
			r->sabotage = dup_str(c, "sabotage");
		if (json_get_str(json_get(c, "want"), "text", NULL))
			r->want_text = strdup(json_get_str(json_get(c, "want"), "text", ""));
	}
	e->nclaims = i;
	return 0;
}

static int read_describe(struct lab_entry *e, const char *text)
{
	const struct json *needs, *claims;
	char err[256];

	e->desc = json_parse(text, strlen(text), err, sizeof(err));
	if (!e->desc) {
		snprintf(e->desc_error, sizeof(e->desc_error), "--describe: %s", err);
		return -1;
	}
	claims = json_get(e->desc, "claims");
	if (strcmp(json_get_str(e->desc, "schema", ""), "dmalab-describe/1") ||
	    !claims || claims->type != JSON_ARR) {
		snprintf(e->desc_error, sizeof(e->desc_error),
			 "--describe: not a dmalab-describe/1 document with claims");
		return -1;
	}
	needs = json_get(e->desc, "needs");
	e->title = json_get_str(e->desc, "title", "");
	e->timeout_s = (int)json_get_num(e->desc, "timeout_s", 60);
	e->needs_gpus = (int)json_get_num(needs, "cuda_devices", 0);
	e->needs_numa = (int)json_get_num(needs, "numa_nodes", 1);
	if (e->needs_numa < 1)
		e->needs_numa = 1; /* 0 means "any machine" too */
	e->needs_root = (int)json_get_num(needs, "root", 0);
	e->built_with_cuda = (int)json_get_num(e->desc, "built_with_cuda", 0);
	return plan_claims(e, claims);
}

static void describe_failed(struct lab_entry *e, const struct spawn_result *sr)
{
	if (sr->exec_errno)
		snprintf(e->desc_error, sizeof(e->desc_error), "cannot run %.300s: %s",
			 e->path, strerror(sr->exec_errno));
	else if (sr->timed_out)
		snprintf(e->desc_error, sizeof(e->desc_error),
			 "--describe did not answer within %.0f s", DESCRIBE_TIMEOUT_S);
	else if (sr->signal)
		snprintf(e->desc_error, sizeof(e->desc_error),
			 "--describe was killed by %s", signal_name(sr->signal));
	else
		snprintf(e->desc_error, sizeof(e->desc_error),
			 "--describe exited with code %d%s%s", sr->exit_code,
			 sr->err_line[0] ? ": " : "", sr->err_line);
}

/* Fills the plan of e; on failure e->desc_error says why.  -1 when the lab
 * refused its input (--describe exits 2: the errata the runner handed it, an
 * erratum that could not be wrong): its own line is said, as a usage error. */
static int describe_lab(struct run_state *rs, struct lab_entry *e)
{
	char *argv[] = { e->path, (char *)"--describe", NULL };
	struct spawn_result sr = { 0 };
	char *buf = malloc(DESCRIBE_MAX);

	if (!buf || spawn_capture(argv, DESCRIBE_TIMEOUT_S * rs->opt->timeout_mul,
				  buf, DESCRIBE_MAX, &sr)) {
		snprintf(e->desc_error, sizeof(e->desc_error), "cannot start %.300s: %s",
			 e->path, strerror(errno));
	} else if (sr.exit_code != 0) {
		describe_failed(e, &sr);
	} else {
		read_describe(e, buf);
	}
	free(buf);
	if (!e->title[0])
		e->title = "(no title: --describe failed)";
	if (sr.exit_code == 2 && sr.err_line[0])
		return error("%s", sr.err_line);
	return 0;
}

/* 0; -1 on a system error; -2 when the labs directory or an asked-for lab
 * does not exist, or a lab refused its input (said). */
int discover_labs(struct run_state *rs)
{
	int rc = scan_dir(rs);

	if (!rc)
		rc = select_labs(rs);
	if (rc)
		return rc;
	for (int i = 0; i < rs->nlabs && !runner_stop_signal; i++)
		if (describe_lab(rs, &rs->labs[i]))
			return -2;
	return 0;
}

void lab_entry_free(struct lab_entry *e)
{
	for (int k = 0; k < e->nclaims; k++)
		claim_free(&e->claims[k]);
	free(e->claims);
	json_free(e->desc);
	json_free(e->record);
	free(e->pred);
}

void lab_entries_free(struct run_state *rs)
{
	for (int i = 0; i < rs->nlabs; i++)
		lab_entry_free(&rs->labs[i]);
	free(rs->labs);
	rs->labs = NULL;
	rs->nlabs = 0;
}

const struct lab_entry *lab_by_id(const struct lab_entry *labs, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(labs[i].id, id))
			return &labs[i];
	return NULL;
}

int lab_id_normalise(const char *arg, char *out, size_t len)
{
	const char *s = strncmp(arg, "lab-", 4) == 0 ? arg + 4 : arg;
	size_t n = strlen(s);

	if (!n || n > 8 || strspn(s, "0123456789") != n)
		return -1;
	while (n > 2 && *s == '0')
		s++, n--;
	snprintf(out, len, "%s%s", n == 1 ? "0" : "", s);
	return 0;
}
