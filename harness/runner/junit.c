/*
 * junit.c - RESULTS/junit.xml beside results.json, and `--format junit`:
 * the run as the JUnit XML report that CI dashboards read (Jenkins' junit
 * step, GitLab's artifacts:reports:junit, junitparser).
 *
 * The format followed is Jenkins' JUnit schema as the xunit plugin ships it,
 * junit-10.xsd (MIT licence; harness/tests/fixtures/junit-10.xsd, from
 * https://github.com/jenkinsci/xunit-plugin/blob/master/src/main/resources/
 * org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd), rather than
 * the stricter Ant report schema (windyroad's JUnit.xsd,
 * https://github.com/windyroad/JUnit-Schema), which wants a time on every
 * test case (a lab times no claim on its own), <system-out> and
 * <system-err> in every suite and a timestamp without a zone.  One
 * addition: a known erratum's <testcase> carries <properties>, as pytest's
 * record_property writes them; junit-10.xsd does not list that.  The suites,
 * cases and the verdict of each as JUnit sees it: README.md, "JUnit and
 * Gradescope".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "runner.h"

enum junit_kind { JUNIT_PASSED, JUNIT_FAILURE, JUNIT_SKIPPED, JUNIT_ERROR };

struct junit_counts {
	int tests, failures, errors, skipped;
};

static enum junit_kind claim_kind(const struct claim *c)
{
	if (c->status == ST_PASS || claim_known(c))
		return JUNIT_PASSED;
	if (c->status == ST_FAIL)
		return JUNIT_FAILURE;
	if (c->status == ST_SKIP || c->status == ST_INCONCLUSIVE)
		return JUNIT_SKIPPED;
	return JUNIT_ERROR; /* error, not_run, and pending in a file saved mid-run */
}

/* The lab did not run to its end: its own test case says how it broke. */
static int lab_broke(const struct lab_entry *lab)
{
	return lab->status == ST_PENDING || lab->status == ST_ERROR || lab->status == ST_NOT_RUN;
}

/* Adds the lab's test cases to n. */
static void count_lab(const struct lab_entry *lab, struct junit_counts *n)
{
	for (int k = 0; k < lab->nclaims; k++) {
		enum junit_kind kind = claim_kind(&lab->claims[k]);

		n->tests++;
		n->failures += kind == JUNIT_FAILURE;
		n->skipped += kind == JUNIT_SKIPPED;
		n->errors += kind == JUNIT_ERROR;
	}
	if (lab_broke(lab))
		n->tests++, n->errors++;
}

static void counts_attrs(struct xml_writer *x, const struct junit_counts *n, int skipped)
{
	xw_attr_int(x, "tests", n->tests);
	xw_attr_int(x, "failures", n->failures);
	xw_attr_int(x, "errors", n->errors);
	if (skipped) /* junit-10.xsd has no skipped attribute on <testsuites> */
		xw_attr_int(x, "skipped", n->skipped);
}

/* ------------------------------------------------------------------------ */
/* One claim                                                                 */

static void property(struct xml_writer *x, const char *name, const char *value)
{
	xw_begin(x, "property");
	xw_attr(x, "name", name);
	xw_attr(x, "value", value);
	xw_end(x);
}

/* An element with a message attribute, a type, and text (NULL: none). */
static void outcome(struct xml_writer *x, const char *element, const char *type,
		    const char *message, const char *text)
{
	xw_begin(x, element);
	xw_attr(x, "message", message);
	if (type)
		xw_attr(x, "type", type);
	if (text && *text)
		xw_text(x, text);
	xw_end(x);
}

/* What a contradiction rests on: the claim, got vs want, the erratum's
 * word, the chapter's figure, the lab's note; one per line. */
static void failure_text(const struct claim *c, const char *gw, char *buf, size_t len)
{
	char er[512];
	size_t n;

	fmt_erratum(c, er, sizeof(er));
	n = (size_t)snprintf(buf, len, "%s %s\n%s\n", c->id, c->text ? c->text : "", gw);
	if (er[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s\n", er);
	if (c->chapter && n < len)
		n += (size_t)snprintf(buf + n, len - n, "chapter: %s\n", c->chapter);
	if (c->note[0] && n < len)
		snprintf(buf + n, len - n, "note: %s\n", c->note);
}

static void known_erratum(struct xml_writer *x, const struct claim *c, const char *gw)
{
	const char *truth = c->erratum_truth; /* claim_find_erratum filled it from the errata */
	char er[512], out[1600];

	fmt_erratum(c, er, sizeof(er));
	xw_begin(x, "properties");
	property(x, "erratum", c->id);
	xw_end(x);
	snprintf(out, sizeof(out), "%s%s%s; %s\n", truth ? truth : "", truth ? "\n" : "", gw, er);
	xw_begin(x, "system-out");
	xw_text(x, out);
	xw_end(x);
}

/* Why an undecided claim has no verdict, into buf. */
static void undecided_message(const struct lab_entry *lab, const struct claim *c,
			      const char *gw, char *buf, size_t len)
{
	if (c->status == ST_SKIP)
		snprintf(buf, len, "%s", gw[0] ? gw : lab->skip_reason);
	else if (c->status == ST_INCONCLUSIVE)
		snprintf(buf, len, "inconclusive: %s", gw);
	else if (c->status == ST_ERROR)
		snprintf(buf, len, "error: %s", gw[0] ? gw : lab->error_msg);
	else if (lab->status == ST_PENDING) /* a file saved between two labs */
		snprintf(buf, len, "not run yet: lab-%s has not started", lab->id);
	else
		snprintf(buf, len, "not run: lab-%s ended before deciding it%s%s%s", lab->id,
			 lab->error_kind ? " (" : "", lab->error_kind ? lab->error_kind : "",
			 lab->error_kind ? ")" : "");
}

static void junit_claim(struct xml_writer *x, const struct lab_entry *lab,
			const struct claim *c, const char *classname)
{
	enum junit_kind kind = claim_kind(c);
	char name[600], gw[512], msg[700], text[2048];

	snprintf(name, sizeof(name), "%s %s", c->id, c->text ? c->text : "");
	fmt_got_want(c, gw, sizeof(gw));
	xw_begin(x, "testcase");
	xw_attr(x, "classname", classname);
	xw_attr(x, "name", name);
	if (kind == JUNIT_PASSED && claim_known(c)) {
		known_erratum(x, c, gw);
	} else if (kind == JUNIT_FAILURE) {
		failure_text(c, gw, text, sizeof(text));
		outcome(x, "failure", "contradicted", gw[0] ? gw : "contradicted", text);
	} else if (kind != JUNIT_PASSED) {
		undecided_message(lab, c, gw, msg, sizeof(msg));
		outcome(x, kind == JUNIT_SKIPPED ? "skipped" : "error",
			kind == JUNIT_SKIPPED ? NULL : status_words[c->status], msg, NULL);
	}
	xw_end(x);
}

/* "lab-95 runs": the lab's own breakage (a crash, a timeout, a bad exit). */
static void junit_lab_runs(struct xml_writer *x, const struct lab_entry *lab, const char *classname)
{
	char name[64], msg[700], text[PATH_MAX + 128];
	size_t n = 0;

	snprintf(name, sizeof(name), "lab-%s runs", lab->id);
	if (lab->error_kind)
		snprintf(msg, sizeof(msg), "%s: %s", lab->error_kind, lab->error_msg);
	else
		snprintf(msg, sizeof(msg), "not run%s",
			 lab->status != ST_PENDING ? ": the run was stopped first" : " yet");
	text[0] = '\0';
	if (lab->exit_code >= 0)
		n += (size_t)snprintf(text, sizeof(text), "exit code %d\n", lab->exit_code);
	if (lab->signal && n < sizeof(text))
		n += (size_t)snprintf(text + n, sizeof(text) - n, "signal %s\n",
				      signal_name(lab->signal));
	if (lab->log_path[0] && n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, "log %s\n", lab->log_path);
	xw_begin(x, "testcase");
	xw_attr(x, "classname", classname);
	xw_attr(x, "name", name);
	outcome(x, "error", lab->error_kind ? lab->error_kind : status_words[ST_NOT_RUN], msg,
		text);
	xw_end(x);
}

/* ------------------------------------------------------------------------ */
/* One lab                                                                   */

/* The facts a fleet joins runs on: host, GPUs, kit version, sizes. */
static void suite_properties(struct xml_writer *x, const struct run_state *rs,
			     const struct lab_entry *lab)
{
	char name[48], value[16];

	xw_begin(x, "properties");
	property(x, "hostname", rs->si.hostname);
	property(x, "dmalab.version", DMALAB_VERSION);
	property(x, "quick", rs->opt->quick ? "on" : "off");
	property(x, "lab.status", lab_status_word(lab));
	snprintf(value, sizeof(value), "%d", rs->si.ngpus);
	property(x, "gpus", value);
	for (int i = 0; i < rs->si.ngpus; i++) {
		snprintf(name, sizeof(name), "gpu.%d.name", i);
		property(x, name, rs->si.gpu[i].name);
		snprintf(name, sizeof(name), "gpu.%d.bdf", i);
		property(x, name, rs->si.gpu[i].bdf);
		snprintf(name, sizeof(name), "gpu.%d.uuid", i);
		property(x, name, rs->si.gpu[i].uuid);
	}
	xw_end(x);
}

/* A lab of the file: run now (its start and time from this run), or kept
 * by `run` from the earlier results.json (as that file says). */
static void junit_suite(struct xml_writer *x, const struct run_state *rs,
			const struct file_lab *fl, int id)
{
	const struct lab_entry *lab = fl->lab;
	char name[300], classname[32];
	struct junit_counts n = { 0 };

	count_lab(lab, &n);
	snprintf(name, sizeof(name), "lab-%s %s", lab->id, lab->title ? lab->title : "");
	snprintf(classname, sizeof(classname), "dmalab.lab-%s", lab->id);
	xw_begin(x, "testsuite");
	xw_attr(x, "name", name);
	counts_attrs(x, &n, 1);
	xw_attr_fixed(x, "time", fl->kept ? json_get_num(fl->kept, "duration_s", 0) :
		      lab->duration_s, 3);
	xw_attr(x, "timestamp", fl->kept ? rs->kept->started : lab->started[0] ?
		lab->started : rs->started);
	/* the Ant schema's word for a host it could not name */
	xw_attr(x, "hostname", rs->si.hostname[0] ? rs->si.hostname : "localhost");
	xw_attr_int(x, "id", id);
	suite_properties(x, rs, lab);
	for (int k = 0; k < lab->nclaims; k++)
		junit_claim(x, lab, &lab->claims[k], classname);
	if (lab_broke(lab))
		junit_lab_runs(x, lab, classname);
	xw_end(x);
}

/* ------------------------------------------------------------------------ */

static int junit_write(struct run_state *rs, struct xml_writer *x)
{
	struct junit_counts all = { 0 };
	struct file_lab *v;
	int i, nlabs = results_file_labs(rs, &v);

	if (nlabs < 0)
		return -1;
	for (i = 0; i < nlabs; i++)
		count_lab(v[i].lab, &all);
	junit_learner_count(rs, &all.tests, &all.failures);
	xw_begin(x, "testsuites");
	xw_attr(x, "name", "dmalab");
	counts_attrs(x, &all, 0);
	xw_attr_fixed(x, "time", lab_now() - rs->t0, 3);
	for (i = 0; i < nlabs; i++)
		junit_suite(x, rs, &v[i], i);
	junit_learner_suites(x, rs, nlabs);
	xw_end(x);
	free(v);
	return x->failed ? -1 : 0;
}

int junit_save(struct run_state *rs, int print_stdout)
{
	char path[PATH_MAX + 16];
	struct xml_writer x;
	const char *doc;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/junit.xml", rs->opt->results_dir);
	rc = xw_init(&x) || junit_write(rs, &x) || xw_write_file(&x, path) ? -1 : 0;
	if (rc && !rs->save_failed)
		error_errno("cannot write '%s'", path);
	rs->save_failed |= rc != 0;
	doc = xw_document(&x, &len);
	if (print_stdout && doc) { /* the bytes of the file, and its final newline */
		fwrite(doc, 1, len, stdout);
		fputc('\n', stdout);
	}
	xw_release(&x);
	return rc;
}
