/*
 * output.c - what the user sees: the human format (narrative, one readable
 * line per verdict, colour on a terminal), TAP 13 (one test point per lab,
 * its claims as an indented subtest), the report card and the summary line,
 * which is always the last line on stdout (on stderr in JSON and JUnit
 * format, so that stdout stays one document).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glob.h>

#include "answers.h"
#include "lang.h"
#include "compare.h"
#include "runner.h"

#define C_RED    "\033[31m"
#define C_GREEN  "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BLUE   "\033[34m"
#define C_DIM    "\033[2m"
#define C_BOLD   "\033[1m"
#define C_OFF    "\033[0m"

static const char *col(const struct run_state *rs, const char *c)
{
	return rs->opt->color ? c : "";
}

/* In JSON and JUnit format stdout is one document: the rest goes to stderr. */
FILE *out_progress_stream(struct run_state *rs)
{
	return rs->opt->format == FMT_JSON || rs->opt->format == FMT_JUNIT ? stderr : stdout;
}

/* ------------------------------------------------------------------------ */
/* Words and numbers                                                         */

const char *skip_meaning(const char *code)
{
	char id[80];

	snprintf(id, sizeof(id), "skip.%s", code);
	for (size_t i = 0; id[i]; i++)
		if (id[i] == ':')
			id[i] = '-';
	return msg_text(id, "");
}

int word_pad(const char *s, int width)
{
	int w = msg_width(s);

	return w < width ? width - w : 0;
}

/* The verdict as the human format says it: does the machine agree with
 * the chapter? */
static const char *verdict_word(const struct claim *c)
{
	if (claim_known(c))
		return MSG("verdict.known", "contradicted"); /* as its erratum predicts */
	switch (c->status) {
	case ST_PASS: return MSG("verdict.pass", "confirmed");
	case ST_FAIL: return MSG("verdict.fail", "CONTRADICTED");
	case ST_SKIP: return MSG("verdict.skip", "skipped");
	case ST_INCONCLUSIVE: return MSG("verdict.inconclusive", "inconclusive");
	case ST_ERROR: return MSG("verdict.error", "error");
	case ST_NOT_RUN: return MSG("verdict.not-run", "not run");
	case ST_PENDING: return MSG("verdict.pending", "pending");
	default: return status_words[c->status];
	}
}

static const char *verdict_color(const struct claim *c)
{
	if (c->status == ST_PASS)
		return C_GREEN;
	if (claim_known(c))
		return C_BLUE;
	if (c->status == ST_FAIL || c->status == ST_ERROR || c->status == ST_NOT_RUN)
		return C_RED;
	return C_YELLOW;
}

static const char *lab_color(enum status status)
{
	if (status == ST_PASS)
		return C_GREEN;
	if (status == ST_SKIP || status == ST_INCONCLUSIVE)
		return C_YELLOW;
	return C_RED;
}

/* "7.9 GB/s", "4096 bytes", "0.0021 s": four significant digits. */
static void fmt_num(double v, const char *unit, char *buf, size_t len)
{
	const char *sp = unit && *unit ? " " : "";

	if (isnan(v))
		snprintf(buf, len, "?");
	else if (unit && !strcmp(unit, "bytes") && fabs(v) >= 1024)
		fmt_bytes(v, buf, len);
	else if (fabs(v) < 1e15 && v == (double)(long long)v)
		snprintf(buf, len, "%lld%s%s", (long long)v, sp, unit ? unit : "");
	else
		snprintf(buf, len, "%.4g%s%s", v, sp, unit ? unit : "");
}

/* shown (a MSG text) in the learner's language when learner, else its English. */
static const char *in_lang(int learner, const char *shown)
{
	return learner ? shown : msg_english(shown);
}

/* A tolerance; pm: its sign ("+-", or the learner's "±"). */
static void fmt_tol(const struct claim *c, const char *pm, char *buf, size_t len)
{
	double a = isnan(c->tol_abs) ? 0 : c->tol_abs;
	double r = isnan(c->tol_rel) ? 0 : c->tol_rel;
	char abs_s[48];

	fmt_num(a, c->unit, abs_s, sizeof(abs_s));
	if (a && r)
		snprintf(buf, len, " %s(%s + %.4g%%)", pm, abs_s, r * 100);
	else if (r)
		snprintf(buf, len, " %s%.4g%%", pm, r * 100);
	else if (a)
		snprintf(buf, len, " %s%s", pm, abs_s);
	else
		buf[0] = '\0';
}

static const char *op_symbol(const char *op)
{
	static const struct { const char *op, *sym; } ops[] = {
		{ "ge", ">= " }, { "gt", "> " }, { "le", "<= " }, { "lt", "< " },
		{ "ratio_ge", ">= " }, { "ratio_le", "<= " }, { "int_eq", "= " },
		{ "errno_eq", "= " }, { "cuda_err_eq", "= " }, { "near", "~ " },
		{ "eq", "= " },
	};

	for (size_t i = 0; op && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].op))
			return ops[i].sym;
	return "";
}

static void fmt_want(const struct claim *c, int learner, char *buf, size_t len)
{
	char a[64], b[64], tol[96];

	if (c->op[0] && !strcmp(c->op, "in_range")) {
		fmt_num(c->lo, NULL, a, sizeof(a));
		fmt_num(c->hi, c->unit, b, sizeof(b));
		snprintf(buf, len, "%s .. %s", a, b);
		return;
	}
	if (c->want_name[0])
		snprintf(a, sizeof(a), "%s", c->want_name);
	else
		fmt_num(c->want, c->unit, a, sizeof(a));
	tol[0] = '\0';
	if (c->op[0] && !strcmp(c->op, "near"))
		fmt_tol(c, in_lang(learner, MSG("gw.plus-minus", "+-")), tol, sizeof(tol));
	snprintf(buf, len, "%s%s%s", op_symbol(c->op), a, tol);
}

/* " [7.5, 8.2]": the interval the verdict was decided on, if it has one. */
static void fmt_interval(const struct claim *c, char *buf, size_t len)
{
	char lo[48], hi[48];

	buf[0] = '\0';
	if (isnan(c->got_lo) || isnan(c->got_hi) || c->got_lo == c->got_hi || c->got_name[0])
		return;
	fmt_num(c->got_lo, NULL, lo, sizeof(lo));
	fmt_num(c->got_hi, NULL, hi, sizeof(hi));
	snprintf(buf, len, " [%s, %s]", isinf(c->got_lo) ? "-inf" : lo,
		 isinf(c->got_hi) ? "inf" : hi);
}

/* The erratum's relation (errata.md's "ge 3") in lab_want_text's words,
 * with the claim's unit after a number: "= 3", ">= 3 x", "= true"; "?"
 * when it gives none. */
static void fmt_prediction(const struct claim *c, char *buf, size_t len)
{
	const char *expect = c->erratum_expect;
	struct claim_want w;
	char name[64], word[16];
	size_t n;

	if (!expect[0]) {
		snprintf(buf, len, "?");
	} else if (sscanf(expect, "eq %15s", word) == 1 &&
		   (!strcmp(word, "true") || !strcmp(word, "false"))) {
		snprintf(buf, len, "= %s", word);
	} else if (lab_want_parse(expect, &w, name, sizeof(name))) {
		snprintf(buf, len, "%s", expect);
	} else {
		lab_want_text(&w, buf, len);
		n = strlen(buf);
		if (!w.name && !strstr(expect, "true") && !strstr(expect, "false") && c->unit[0])
			snprintf(buf + n, len - n, " %s", c->unit);
	}
}

/* What the claim's erratum says of this run, into buf ("" without one); in the
 * learner's language when learner (the human format), else English (JUnit, TAP). */
static void erratum_as(const struct claim *c, char *buf, size_t len, int learner)
{
	char pred[320];

	buf[0] = '\0';
	if (!c->erratum_status[0] || c->status != ST_FAIL)
		return;
	fmt_prediction(c, pred, sizeof(pred));
	if (!strcmp(c->erratum_status, "predicted") && !c->erratum_expect[0])
		snprintf(buf, len, in_lang(learner, MSG("erratum.marked", "known erratum %s "
							"(marked so in the results)")), c->id);
	else if (!strcmp(c->erratum_status, "predicted"))
		snprintf(buf, len, in_lang(learner, MSG("erratum.met", "known erratum %s: it "
							"predicts %s, and this run meets it")),
			 c->id, pred);
	else if (!strcmp(c->erratum_status, "not-applicable"))
		snprintf(buf, len, in_lang(learner, MSG("erratum.not-here", "erratum %s predicts "
					"%s only when %s: not on this machine, so the "
					"contradiction is unexplained")), c->id, pred,
			 c->erratum_when ? c->erratum_when : "its when: holds");
	else
		snprintf(buf, len, in_lang(learner, MSG("erratum.not-met", "erratum %s predicts "
					"%s: this run does not meet it, so the "
					"contradiction is unexplained")), c->id, pred);
}

void fmt_erratum(const struct claim *c, char *buf, size_t len)
{
	erratum_as(c, buf, len, 0);
}

/* A unit as the learner reads it: a fraction is a bare number in zh. */
static const char *unit_said(const char *unit, int learner)
{
	if (learner && dmalab_lang() == DMALAB_ZH && unit && !strcmp(unit, "fraction"))
		return "";
	return unit;
}

/* "got 7.9 x [7.5, 8.2], want >= 1.3 x", or the skip reason, into buf; in the
 * learner's language when learner (the human format), else English (JUnit). */
static void got_want_as(const struct claim *c, char *buf, size_t len, int learner)
{
	char got[64], want[160], iv[112];
	struct claim said = *c;

	buf[0] = '\0';
	if (c->status == ST_SKIP || c->status == ST_INCONCLUSIVE) {
		int same = c->reason[0] && !strcmp(c->reason, status_words[c->status]);

		snprintf(buf, len, "%s%s%s",
			 same ? "" : c->reason[0] ? c->reason : "no reason given",
			 c->detail[0] && !same ? ": " : "", c->detail[0] ? c->detail : "");
		return;
	}
	if (!status_decided(c->status) || isnan(c->got))
		return;
	if (c->op[0] && !strcmp(c->op, "true")) {
		snprintf(buf, len, in_lang(learner, MSG("gw.yes", "got %s, want yes")),
			 c->got != 0 ? in_lang(learner, MSG("gw.yes-word", "yes")) :
			 in_lang(learner, MSG("gw.no-word", "no")));
		return;
	}
	snprintf(said.unit, sizeof(said.unit), "%s", unit_said(c->unit, learner));
	if (c->got_name[0])
		snprintf(got, sizeof(got), "%s", c->got_name);
	else
		fmt_num(c->got, said.unit, got, sizeof(got));
	fmt_want(&said, learner, want, sizeof(want));
	fmt_interval(c, iv, sizeof(iv));
	/* beside an erratum's prediction, the want is named for what it is */
	if (c->erratum_status[0] && c->status == ST_FAIL)
		snprintf(buf, len, in_lang(learner, MSG("gw.says", "got %s%s, the chapter says "
							"%s")), got, iv, want);
	else
		snprintf(buf, len, in_lang(learner, MSG("gw.want", "got %s%s, want %s")), got, iv,
			 want);
}

void fmt_got_want(const struct claim *c, char *buf, size_t len)
{
	got_want_as(c, buf, len, 0);
}

/* fmt_got_want in the learner's language, as the report card says it. */
void fmt_got_want_human(const struct claim *c, char *buf, size_t len)
{
	got_want_as(c, buf, len, 1);
}

/* ------------------------------------------------------------------------ */
/* Human format                                                              */

static void human_claim(struct run_state *rs, const struct claim *c)
{
	char gw[512], er[512];

	const char *word = verdict_word(c);

	printf("  %s%s%*s%s %s  %s\n", col(rs, verdict_color(c)), word, word_pad(word, 13), "",
	       col(rs, C_OFF), c->id, c->text ? msg_claim_text(c->id, c->text) : "");
	fmt_got_want_human(c, gw, sizeof(gw));
	erratum_as(c, er, sizeof(er), 1);
	if (gw[0] && c->status == ST_SKIP && skip_meaning(c->reason)[0])
		printf("  %-13s %s（%s）\n", "", gw, skip_meaning(c->reason));
	else if (gw[0])
		printf("  %-13s %s\n", "", gw);
	if (er[0])
		printf("  %-13s %s%s%s\n", "", col(rs, claim_known(c) ? C_BLUE : C_RED),
		       er, col(rs, C_OFF));
	if (er[0] && claim_known(c) && c->erratum_truth)
		printf("  %-13s %struth: %s%s\n", "", col(rs, C_BLUE), c->erratum_truth,
		       col(rs, C_OFF));
	if (c->note[0] && !strcmp(rs->note_id, c->id))
		printf("  %-13s %s%s%s\n", "", col(rs, C_DIM), rs->note_shown, col(rs, C_OFF));
	else if (c->note[0]) {
		printf("  %-13s %s", "", col(rs, C_DIM));
		printf(MSG("human.note", "note: %s"), c->note);
		printf("%s\n", col(rs, C_OFF));
	}
	rs->note_id[0] = '\0';
}

/* A skip's reason code and detail as the lab gave them (the code is the
 * machine-readable word), then in zh what the code means (skip.<code>). */
static void print_skip_reason(const struct lab_entry *lab, FILE *f)
{
	const char *explained = skip_meaning(lab->skip_reason);

	fprintf(f, "%s%s%s", lab->skip_reason, lab->skip_detail[0] ? ": " : "", lab->skip_detail);
	if (explained[0])
		fprintf(f, "（%s）", explained);
}

static void human_lab_end(struct run_state *rs, struct lab_entry *lab)
{
	for (int k = 0; k < lab->nclaims; k++) {
		if (!lab->claims[k].shown)
			human_claim(rs, &lab->claims[k]);
		lab->claims[k].shown = 1;
	}
	printf("%slab-%s: %s%s", col(rs, C_BOLD), lab->id, col(rs, lab_color(lab->status)),
	       status_text(lab->status));
	if (lab->error_kind)
		printf(" (%s): %s", lab->error_kind, lab->error_msg);
	else if (lab->status == ST_SKIP) {
		printf(": ");
		print_skip_reason(lab, stdout);
	} else if (lab->status == ST_INCONCLUSIVE)
		printf(": %s", MSG("card.undecided", "no claim decided either way"));
	printf("%s", col(rs, C_OFF));
	if (lab->log_path[0])
		printf(MSG("run.lab-log", ", %.1f s, log %s"), lab->duration_s, lab->log_path);
	printf("\n\n");
}

/* ------------------------------------------------------------------------ */
/* TAP format                                                                */

/* A YAMLish scalar: single-quoted, quotes doubled (TAP::Parser reads it). */
static void yaml_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "  %s: '", key);
	for (; v && *v; v++) {
		if (*v == '\'')
			fputc('\'', f);
		fputc(*v == '\n' ? ' ' : *v, f);
	}
	fputs("'\n", f);
}

static void tap_claim(const struct claim *c, int number)
{
	int ok = c->status != ST_FAIL && c->status != ST_ERROR &&
		 c->status != ST_NOT_RUN && c->status != ST_PENDING;
	char gw[512], er[512];

	printf("    %s %d - ", ok ? "ok" : "not ok", number);
	record_tap_text(stdout, c->id);
	printf(" ");
	record_tap_text(stdout, c->text);
	printf(" [");
	record_tap_text(stdout, c->question);
	printf("]");
	if (claim_known(c))
		printf(" # TODO known erratum %s", c->id);
	else if (c->status == ST_SKIP || c->status == ST_INCONCLUSIVE)
		printf(" # SKIP %s%s%s", c->reason[0] ? c->reason : status_words[c->status],
		       c->detail[0] ? ": " : "", c->detail[0] ? c->detail : "");
	else if (c->status == ST_NOT_RUN)
		printf(" (not run)");
	printf("\n");
	if (c->status != ST_FAIL)
		return;
	/* a contradiction: what the chapter says, and what its erratum predicts */
	fmt_got_want(c, gw, sizeof(gw));
	fmt_erratum(c, er, sizeof(er));
	printf("    # %s: %s%s%s\n", c->id, gw[0] ? gw : "contradicted", er[0] ? "; " : "", er);
}

static void tap_lab_yaml(const struct lab_entry *lab)
{
	printf("  ---\n");
	yaml_str(stdout, "status", lab_status_word(lab));
	if (lab->error_kind) {
		yaml_str(stdout, "error", lab->error_kind);
		yaml_str(stdout, "message", lab->error_msg);
	}
	if (lab->exit_code >= 0)
		printf("  exit: %d\n", lab->exit_code);
	if (lab->signal)
		yaml_str(stdout, "signal", signal_name(lab->signal));
	if (lab->log_path[0]) {
		printf("  duration_s: %.2f\n", lab->duration_s);
		yaml_str(stdout, "log", lab->log_path);
	}
	printf("  ...\n");
}

static void tap_lab_end(struct lab_entry *lab, int number)
{
	int k, ok = lab->status == ST_PASS || lab->status == ST_SKIP ||
		    lab->status == ST_INCONCLUSIVE;

	printf("    # Subtest: lab-%s %s\n", lab->id, lab->title);
	printf("    1..%d\n", lab->nclaims);
	for (k = 0; k < lab->nclaims; k++)
		tap_claim(&lab->claims[k], k + 1);
	printf("%s %d - lab-%s ", ok ? "ok" : "not ok", number, lab->id);
	record_tap_text(stdout, lab->title);
	if (lab->status == ST_SKIP)
		printf(" # SKIP %s%s%s", lab->skip_reason, lab->skip_detail[0] ? ": " : "",
		       lab->skip_detail);
	else if (lab->status == ST_INCONCLUSIVE)
		printf(" # SKIP inconclusive: no claim decided either way");
	printf("\n");
	tap_lab_yaml(lab);
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */

void out_run_begin(struct run_state *rs, int nlabs)
{
	if (rs->opt->format == FMT_TAP)
		printf("TAP version 13\n1..%d\n", nlabs);
}

void out_lab_begin(struct run_state *rs, struct lab_entry *lab, char *const argv[])
{
	FILE *f = out_progress_stream(rs);

	fputs(col(rs, C_BOLD), f);
	fprintf(f, MSG("run.lab-begin", "# running lab-%s (timeout %g s): %s"), lab->id,
		lab->timeout_s * rs->opt->timeout_mul, msg_lab_title(lab->id, lab->title));
	fprintf(f, "%s\n", col(rs, C_OFF));
	if (!strcmp(rs->opt->command, "run")) {
		fputs(rs->opt->format == FMT_HUMAN ? "$" : "# $", f);
		for (int i = 0; argv[i]; i++)
			fprintf(f, " %s", argv[i]);
		fputc('\n', f);
	}
	fflush(f);
}

/* "ID TEXT": a lab's claim in the learner's language, which it prints before
 * the claim's test line; the human format shows it with the verdict. */
static int claim_text_comment(const char *text)
{
	char id[32];
	size_t n = strcspn(text, " ");

	if (n >= sizeof(id) || !text[n])
		return 0;
	snprintf(id, sizeof(id), "%.*s", (int)n, text);
	return !strcmp(msg_claim_text(id, ""), text + n + 1);
}

/* "ID note: ...": a claim's note in the learner's language (the lab's
 * report_tap_claim), kept for the claim's line, which follows it. */
const char *claim_note_split(const char *text, char *id, size_t idlen)
{
	const char *word = MSG("human.note", "note: %s");
	size_t n = strcspn(text, " "), w = strcspn(word, "%");

	if (n >= idlen || !text[n] || strncmp(text + n + 1, word, w))
		return NULL;
	snprintf(id, idlen, "%.*s", (int)n, text);
	return text + n + 1;
}

static int claim_note_comment(struct run_state *rs, const char *text)
{
	const char *shown = claim_note_split(text, rs->note_id, sizeof(rs->note_id));

	if (shown)
		snprintf(rs->note_shown, sizeof(rs->note_shown), "%s", shown);
	return shown != NULL;
}

void out_lab_comment(struct run_state *rs, const char *text)
{
	if (rs->opt->format != FMT_HUMAN || claim_text_comment(text) ||
	    claim_note_comment(rs, text))
		return;
	printf("  %s%s%s\n", col(rs, C_DIM), text, col(rs, C_OFF));
	fflush(stdout);
}

void out_lab_stderr(struct run_state *rs, const char *line)
{
	if (rs->opt->format != FMT_HUMAN || !line[0])
		return;
	printf("  %sstderr: %s%s\n", col(rs, C_DIM), line, col(rs, C_OFF));
	fflush(stdout);
}

/* A verdict as the lab prints it, shown at once in the human format. */
void out_lab_point(struct run_state *rs, struct lab_entry *lab, const struct tap_point *pt)
{
	struct claim *c;

	if (rs->opt->format != FMT_HUMAN || !pt->c.id[0])
		return;
	c = lab_claim(lab, pt->c.id);
	if (!c || c->shown)
		return;
	claim_from_point(c, pt);
	claim_find_erratum(c, &rs->errata);
	human_claim(rs, c);
	c->shown = 1;
	fflush(stdout);
}

void out_lab_end(struct run_state *rs, struct lab_entry *lab, int number)
{
	if (rs->opt->format == FMT_HUMAN)
		human_lab_end(rs, lab);
	else if (rs->opt->format == FMT_TAP)
		tap_lab_end(lab, number);
	fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* Report card and summary                                                   */

/* prefix, indent, then a message and the line end, which stays outside the
 * message: a table's text has none. */
__attribute__((format(printf, 4, 5)))
static void out_line(FILE *f, const char *prefix, const char *indent, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%s%s", prefix, indent);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void card_claim(struct run_state *rs, const struct claim *c, FILE *f, const char *prefix)
{
	const char *word = verdict_word(c);
	char gw[512], er[512];

	fmt_got_want_human(c, gw, sizeof(gw));
	erratum_as(c, er, sizeof(er), 1);
	fprintf(f, "%s      %-7s %s%s%s", prefix, c->id, col(rs, verdict_color(c)), word,
		col(rs, C_OFF));
	if (gw[0] || er[0])
		fprintf(f, "%*s%s%s%s", word_pad(word, 14), "", gw, gw[0] && er[0] ? "; " : "", er);
	if (gw[0] && c->status == ST_SKIP && skip_meaning(c->reason)[0])
		fprintf(f, "（%s）", skip_meaning(c->reason));
	fputc('\n', f);
}

/* The lab's line, why it skipped or broke, then one line per claim (a lab
 * skipped as a whole gives its reason once). */
static void card_lab(struct run_state *rs, const struct lab_entry *lab, FILE *f, const char *prefix)
{
	const char *word = status_text(lab->status); /* pending: not_run, red as it */
	int k, beyond = 0;

	fprintf(f, "%s  lab-%-3s %s%s%*s%s %s\n", prefix, lab->id, col(rs, lab_color(lab->status)),
		word, word_pad(word, 7), "", col(rs, C_OFF), msg_lab_title(lab->id, lab->title));
	if (lab->error_kind)
		fprintf(f, "%s              %s: %s\n", prefix, lab->error_kind, lab->error_msg);
	if (lab->status == ST_INCONCLUSIVE)
		fprintf(f, "%s              %s\n", prefix,
			MSG("card.undecided", "no claim decided either way"));
	if (lab->status == ST_SKIP) {
		fprintf(f, "%s              ", prefix);
		print_skip_reason(lab, f);
		fputc('\n', f);
		out_line(f, "", "", MSG("card.all-skipped", "%s              (all %d claims "
					"skipped)"), prefix, lab->nclaims);
		return;
	}
	for (k = 0; k < lab->nclaims; k++)
		if (!ans_beyond_chapter(lab->claims[k].question))
			card_claim(rs, &lab->claims[k], f, prefix);
	for (k = 0; k < lab->nclaims; k++) {
		if (!ans_beyond_chapter(lab->claims[k].question))
			continue;
		if (!beyond++)
			fprintf(f, "%s              %s\n", prefix, MSG("card.beyond",
				"beyond the chapter (in no chapter's grade):"));
		card_claim(rs, &lab->claims[k], f, prefix);
	}
}

static void out_report_card(struct run_state *rs, FILE *f, const char *prefix)
{
	out_line(f, "", "", rs->save_failed ? MSG("card.unsaved", "%sreport card (NOT saved: "
			"%s/results.json or junit.xml could not be written):") :
		 MSG("card.title", "%sreport card (%s/results.json):"), prefix,
		 rs->opt->results_dir);
	for (int i = 0; i < rs->nlabs; i++)
		card_lab(rs, &rs->labs[i], f, prefix);
}

/* Counting labs; an error counts as failed; inconclusive labs apart, named
 * only when there are some. */
static void summary_line(const struct run_state *rs, const struct totals *t, FILE *f)
{
	int said = rs->opt->format == FMT_HUMAN; /* else tools read it (tail -n 1) */
	const char *fmt = !said ? "summary: %d passed, %d failed, %d skipped" :
		t->lab[ST_PASS] == 1 ? MSG("summary.one", "summary: %d lab passed, %d failed, "
					  "%d skipped") :
		MSG("summary", "summary: %d labs passed, %d failed, %d skipped");

	fprintf(f, fmt, t->lab[ST_PASS], t->lab[ST_FAIL] + t->lab[ST_ERROR], t->lab[ST_SKIP]);
	if (t->lab[ST_INCONCLUSIVE])
		fprintf(f, said ? MSG("summary.inconclusive", ", %d inconclusive") :
			", %d inconclusive", t->lab[ST_INCONCLUSIVE]);
	fputc('\n', f);
}

static int contradicted(const struct claim *c)
{
	return c->status == ST_FAIL && !claim_known(c);
}

/* The lab's README in the learner's language (README.zh.md in zh where the
 * lab has one), where its claims are explained ("" when not found). */
static void lab_readme(const char *id, char *buf, size_t len)
{
	const char *names[] = { "README.zh.md", "README.md" };
	char pattern[64];
	glob_t g;

	buf[0] = '\0';
	for (int i = dmalab_lang() == DMALAB_ZH ? 0 : 1; i < 2 && !buf[0]; i++) {
		snprintf(pattern, sizeof(pattern), "labs/%s-*/%s", id, names[i]);
		if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc)
			snprintf(buf, len, "%s", g.gl_pathv[0]);
		globfree(&g);
	}
}

/* A word of a chapter place: "ch2", "S4", "6.2", "Q1", "sec." (n bytes at w). */
static int place_word(const char *w, size_t n)
{
	return (n == 4 && !strncmp(w, "sec.", 4)) || strcspn(w, "0123456789") < n;
}

/* Where the chapter says the claim: in zh only its place ("ch2 S4", "ch1
 * Q1"), as the claim's zh text above says what it says and the spec's words
 * after the place are English; the whole text when it names no place. */
static void chapter_place(const char *chapter, char *buf, size_t len)
{
	size_t end = 0, n;
	const char *p = chapter;

	while (dmalab_lang() == DMALAB_ZH && *p && place_word(p, n = strcspn(p, " :,"))) {
		end = (size_t)(p + n - chapter);
		if (p[n] != ' ')
			break;
		p += n + 1;
	}
	snprintf(buf, len, "%.*s", (int)(end ? end : strlen(chapter)), chapter);
}

/* One contradicted claim: what the chapter says, what was measured, the
 * likely cause from this run's machine facts (explain.c, as compare names
 * them; node NULL when results.json could not be read back), where to read. */
static void finding(const struct lab_entry *lab, const struct claim *c,
		    const struct cmp_node *node, FILE *f, const char *prefix)
{
	struct cmp_item it = { 0 };
	char gw[512], readme[PATH_MAX], place[256];

	fmt_got_want_human(c, gw, sizeof(gw));
	fprintf(f, "%s  %s  %s\n", prefix, c->id, c->text ? msg_claim_text(c->id, c->text) : "");
	if (c->chapter) {
		chapter_place(c->chapter, place, sizeof(place));
		out_line(f, prefix, "        ", MSG("finding.chapter", "the chapter: %s"), place);
	}
	if (gw[0])
		fprintf(f, "%s        %s\n", prefix, gw);
	if (node) {
		snprintf(it.key, sizeof(it.key), "%s", c->id);
		snprintf(it.lab, sizeof(it.lab), "%.7s", lab->id);
		cmp_explain(node, NULL, &it);
		for (int i = 0; i < it.ncauses && it.explained; i++)
			out_line(f, prefix, "        ", MSG("finding.cause", "likely cause: %s"),
				 it.shown[i]);
	}
	lab_readme(lab->id, readme, sizeof(readme));
	if (readme[0])
		out_line(f, prefix, "        ", MSG("finding.read", "read: %s"), readme);
}

/* make check's last words on the n contradicted claims: a newcomer's first
 * run that exits 1 must say that this is what the kit is for. */
static void out_findings(const struct run_state *rs, int n, FILE *f, const char *prefix)
{
	char path[PATH_MAX], err[256];
	struct cmp_node node;
	int i, k, loaded = 0;

	if (!n)
		return;
	if (getenv(TRY_COPY_ENV)) { /* a learner's copy: its code, not the machine, decides */
		if (rs->aborted) /* a stopped try is no verdict: try says so */
			return;
		out_line(f, prefix, "", n == 1 ? MSG("finding.copy-one", "1 claim failed on your "
				"copy: the exercise lines below say which exercise it grades") :
			 MSG("finding.copy", "%d claims failed on your copy: the exercise lines "
			     "below say which exercise each one grades"), n);
		return;
	}
	snprintf(path, sizeof(path), "%s/results.json", rs->opt->results_dir);
	loaded = !rs->save_failed && cmp_node_load(path, &node, err, sizeof(err)) == 0;
	if (rs->aborted) /* the stop decides the exit status (128+N), not the findings */
		out_line(f, prefix, "", MSG("finding.head-stopped", "contradicted on this "
				"machine before the stop: %d claim(s), each a finding about this "
				"machine (or the chapter), not a kit failure:"), n);
	else
		out_line(f, prefix, "", n == 1 ? MSG("finding.head-one", "contradicted on this "
				"machine: 1 claim. It is a finding about this machine (or the "
				"chapter), not a kit failure; it makes the exit status 1:") :
			 MSG("finding.head", "contradicted on this machine: %d claims. Each is "
			     "a finding about this machine (or the chapter), not a kit failure; "
			     "it makes the exit status 1:"), n);
	for (i = 0; i < rs->nlabs; i++)
		for (k = 0; k < rs->labs[i].nclaims; k++)
			if (contradicted(&rs->labs[i].claims[k]))
				finding(&rs->labs[i], &rs->labs[i].claims[k], loaded ? &node : NULL,
					f, prefix);
	out_line(f, prefix, "  ", MSG("finding.samples", "(every sample: %s; how the chapter's "
			"words became each want: README.md, \"How a verdict is made\")"), path);
	if (loaded)
		cmp_node_free(&node);
}

void out_run_end(struct run_state *rs)
{
	FILE *f = out_progress_stream(rs);
	const char *prefix = rs->opt->format == FMT_HUMAN ? "" : "# ";
	struct totals t;

	totals_count(rs, &t);
	if (rs->opt->format != FMT_JSON && rs->opt->format != FMT_JUNIT)
		out_report_card(rs, f, prefix);
	if (rs->aborted)
		fprintf(f, "%saborted (%s): %d lab%s not run\n", prefix,
			signal_name(rs->aborted), t.lab[ST_NOT_RUN],
			t.lab[ST_NOT_RUN] == 1 ? "" : "s");
	if (t.labs && !t.claim[ST_PASS] && !t.claim[ST_FAIL] && !t.erratum &&
	    !t.lab[ST_ERROR] && !rs->aborted) /* the run decided nothing */
		out_line(f, "", "", t.claim[ST_INCONCLUSIVE] ? MSG("run.nothing-or", "%snothing "
				"was evaluated: every claim was skipped or inconclusive on this "
				"machine (reasons above)") : MSG("run.nothing", "%snothing was "
				"evaluated: every claim was skipped on this machine (reasons "
				"above)"), prefix);
	if (t.erratum)
		fprintf(f, "%s%d failed claim(s) are known errata of the chapters "
			"(%s): each lab measured what its erratum predicts, so they do not "
			"fail the run\n", prefix, t.erratum, rs->opt->errata_path);
	if (t.unexplained)
		fprintf(f, "%s%d contradicted claim(s) have an erratum whose prediction "
			"this run did not meet: they fail the run\n", prefix, t.unexplained);
	out_findings(rs, t.claim[ST_FAIL], f, prefix); /* a known erratum is not in it */
	summary_line(rs, &t, f);
	fflush(f);
}
