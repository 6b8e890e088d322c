/*
 * run.c - `dmalab run` and `dmalab check`: each lab of the plan (discover.c)
 * in turn, its output shown and logged, its record read, results.json
 * rewritten after every lab so that a run that dies still leaves one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"
#include "learn.h"
#include "restore.h"
#include "runner.h"

struct lab_ctx {
	struct run_state *rs;
	struct lab_entry *lab;
	struct tap_scan ts;
};

static void on_comment(void *ctx, const char *text)
{
	struct lab_ctx *c = ctx;
	size_t n = strlen(c->lab->id);

	/* "lab-02: title" repeats the line the runner printed before it */
	if (!strncmp(text, "lab-", 4) && !strncmp(text + 4, c->lab->id, n) && text[4 + n] == ':')
		return;
	out_lab_comment(c->rs, text);
}

static void on_point(void *ctx, const struct tap_point *pt)
{
	struct lab_ctx *c = ctx;

	out_lab_point(c->rs, c->lab, pt);
}

static void on_bail(void *ctx, const char *msg)
{
	struct lab_ctx *c = ctx;
	char line[300];

	snprintf(line, sizeof(line), "Bail out! %s", msg);
	out_lab_comment(c->rs, line);
}

static void on_stdout(void *ctx, const char *line)
{
	struct lab_ctx *c = ctx;

	tap_scan_line(&c->ts, line);
}

static void on_stderr(void *ctx, const char *line)
{
	struct lab_ctx *c = ctx;

	out_lab_stderr(c->rs, line);
}

static FILE *open_log(struct lab_entry *lab, char *const argv[])
{
	FILE *log = fopen(lab->log_path, "w");

	if (!log) {
		error_errno("cannot write '%s'", lab->log_path);
		return NULL;
	}
	fprintf(log, "$");
	for (int i = 0; argv[i]; i++)
		fprintf(log, " %s", argv[i]);
	fprintf(log, "\n");
	fflush(log);
	return log;
}

static void run_one(struct run_state *rs, struct lab_entry *lab)
{
	struct lab_ctx ctx;
	struct tap_sink sink = { on_comment, on_point, on_bail, &ctx };
	struct spawn_io io = { on_stdout, on_stderr, &ctx, NULL };
	struct spawn_result sr;
	char *argv[] = { lab->path, "--json", lab->json_path, rs->opt->quick ? "--quick" : NULL,
			 NULL };

	snprintf(lab->json_path, sizeof(lab->json_path), "%s/lab-%s.json",
		 rs->opt->results_dir, lab->id);
	snprintf(lab->log_path, sizeof(lab->log_path), "%s/lab-%s.log",
		 rs->opt->results_dir, lab->id);
	unlink(lab->json_path); /* a stale record must never pass for this run's */
	ctx.rs = rs;
	ctx.lab = lab;
	tap_scan_init(&ctx.ts, &sink);
	out_lab_begin(rs, lab, argv);
	io.log = open_log(lab, argv);
	restore_before_lab(rs, lab);
	learn_iso_now(lab->started, sizeof(lab->started)); /* junit.xml's timestamp */
	if (spawn_lab(argv, lab->timeout_s * rs->opt->timeout_mul, &io, &sr)) {
		record_not_run(lab, "missing", strerror(errno));
	} else {
		restore_after_lab(rs, lab, io.log); /* what it changed, however it ended */
		tap_scan_end(&ctx.ts);
		record_finish(rs, lab, &sr, &ctx.ts);
	}
	if (io.log) {
		if (sr.leftovers)
			fprintf(io.log, "# dmalab: the lab left processes behind; killed them\n");
		fprintf(io.log, "# dmalab: lab-%s %s%s%s\n", lab->id, lab_status_word(lab),
			lab->error_kind ? ": " : "", lab->error_msg);
		fclose(io.log);
	}
	tap_scan_free(&ctx.ts);
}

/* A lab whose --describe failed is not run: its plan is unknown. */
static void describe_error(struct run_state *rs, struct lab_entry *lab)
{
	FILE *f = out_progress_stream(rs);

	fprintf(f, "# lab-%s: %s\n", lab->id, lab->desc_error);
	record_not_run(lab, strstr(lab->desc_error, "cannot ") ? "missing" : "bad-output",
		       lab->desc_error);
}

/* The run was stopped by a signal: labs not reached are marked not_run. */
static void stop_rest(struct run_state *rs, int from)
{
	rs->aborted = runner_stop_signal;
	for (int i = from; i < rs->nlabs; i++) {
		struct lab_entry *lab = &rs->labs[i];

		lab->status = ST_NOT_RUN;
		for (int k = 0; k < lab->nclaims; k++)
			if (!status_decided(lab->claims[k].status))
				lab->claims[k].status = ST_NOT_RUN;
		out_lab_end(rs, lab, i + 1);
	}
}

static int run_labs(struct run_state *rs)
{
	int i;

	if (rs->opt->predict && (i = predict_ask(rs)) != 0)
		return i; /* before results.json is touched */
	if (!strcmp(rs->opt->command, "run"))
		results_keep_load(rs); /* results.json is updated, not replaced */
	out_run_begin(rs, rs->nlabs);
	counters_begin(rs);
	for (i = 0; i < rs->nlabs && !runner_stop_signal; i++) {
		struct lab_entry *lab = &rs->labs[i];

		if (lab->desc_error[0])
			describe_error(rs, lab);
		else
			run_one(rs, lab);
		predict_report(rs, lab);
		counters_after_lab(rs, lab);
		out_lab_end(rs, lab, i + 1);
		results_save(rs, 0);
	}
	if (runner_stop_signal)
		stop_rest(rs, i);
	counters_end(rs);
	rs->finished = !rs->aborted;
	results_save(rs, 1);
	out_run_end(rs);
	results_keep_free(rs);
	if (rs->aborted)
		return 128 + rs->aborted;
	if (rs->save_failed) { /* the verdicts above are in no file: say so, fail */
		error("results not saved: %s/results.json or junit.xml could not be written "
		      "(above); the run's verdicts are only in this output", rs->opt->results_dir);
		return 1;
	}
	return run_status(rs) != ST_PASS;
}

/* Runs every selected lab.  Returns the exit code of dmalab: 0, 1, or
 * 128 + the signal that stopped the run. */
int cmd_run(struct run_state *rs)
{
	int rc;

	if (rs->opt->predict || rs->opt->work) /* before any lab: CUDA in a child */
		rs->here = ex_here_open(rs->opt->labs_dir);
	rc = run_labs(rs);
	ex_here_close(rs->here);
	rs->here = NULL;
	return rc;
}
