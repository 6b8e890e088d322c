/*
 * fuzz_tapscan.c - what the runner reads of a lab's run: its TAP stream,
 * line by line (lib/record.c: tap_scan_line, tap_scan_end), and then its
 * outcome (runner results.c: record_finish merges the test points, the lab's
 * JSON record and the errata built into the library, and sets the status).
 *
 * Input: the lab's stdout; a line "=== record" ends it, and what follows is
 * the lab's JSON record (dmalab-lab/1).  The exit code is 0, 1, 77 or 99 by
 * the input's length.  Checked: every test point's strings are NUL-ended
 * in their fields, the lab ends with a status of the protocol's, and every
 * claim with a status.
 */
#include "errata.h"
#include "fuzz_util.h"
#include "runner.h"

#define ENDED(s) (strnlen((s), sizeof(s)) < sizeof(s))

static void point(void *ctx, const struct tap_point *pt)
{
	(void)ctx;
	const struct claim *c = &pt->c;

	if (!ENDED(c->id) || !ENDED(pt->desc) || !ENDED(pt->directive) || !ENDED(pt->dir_text) ||
	    c->status >= ST_COUNT || !ENDED(c->op) || !ENDED(c->unit) ||
	    !ENDED(c->reason) || !ENDED(c->detail) || !ENDED(c->note) ||
	    !ENDED(c->erratum_status) || !ENDED(c->erratum_expect))
		abort();
}

static void comment(void *ctx, const char *text)
{
	(void)ctx;
	(void)strlen(text);
}

static void bail(void *ctx, const char *msg)
{
	(void)ctx;
	(void)strlen(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum status statuses[] = { ST_PASS, ST_FAIL, ST_SKIP, ST_INCONCLUSIVE,
						ST_ERROR };
	static const int exits[] = { 0, 1, 77, 99 };
	const struct tap_sink sink = { comment, point, bail, NULL };
	static struct runner_opts opt;
	static struct run_state rs;
	const struct errata *builtin;
	char *text = fuzz_cstr(data, size), *line, *rec = strstr(text, "\n=== record\n"), err[128];
	struct spawn_result sr;
	struct tap_scan ts;
	struct lab_entry *lab;
	int known = 0;

	if (rec) {
		*rec = '\0';
		rec += strlen("\n=== record\n");
	}
	tap_scan_init(&ts, &sink);
	for (line = text; line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		tap_scan_line(&ts, line);
		line = nl ? nl + 1 : NULL;
	}
	tap_scan_end(&ts);
	for (int i = 0; i < ts.npoints; i++)
		point(NULL, &ts.points[i]);
	if (!ENDED(ts.bail))
		abort();

	memset(&rs, 0, sizeof(rs));
	memset(&opt, 0, sizeof(opt));
	opt.timeout_mul = 1;
	rs.opt = &opt;
	if ((builtin = errata_builtin(err, sizeof(err))))
		rs.errata = *builtin; /* borrowed: not freed */
	rs.labs = lab = calloc(1, sizeof(*lab));
	rs.nlabs = 1;
	snprintf(lab->id, sizeof(lab->id), "02");
	lab->timeout_s = 10;
	snprintf(lab->json_path, sizeof(lab->json_path), "%s",
		 rec ? fuzz_file("record.json", (const uint8_t *)rec, strlen(rec)) :
		       "/nonexistent/record.json");
	memset(&sr, 0, sizeof(sr));
	sr.exit_code = exits[size % 4];
	record_finish(&rs, lab, &sr, &ts);
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		known |= lab->status == statuses[i];
	if (!known || !ENDED(lab->skip_reason) || !ENDED(lab->error_msg))
		abort();
	for (int i = 0; i < lab->nclaims; i++)
		if (!ENDED(lab->claims[i].id) || lab->claims[i].status >= ST_COUNT)
			abort();
	lab_entries_free(&rs);
	tap_scan_free(&ts);
	free(text);
	return 0;
}
