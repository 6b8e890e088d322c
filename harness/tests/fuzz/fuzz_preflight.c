/*
 * fuzz_preflight.c - dmalab-preflight's two parsers (harness/preflight/):
 * pf_parse_args (options.c: its options, sizes and numbers) and
 * pf_result_parse (verdict.c: the "result key=value ..." line the GPU
 * helper prints and the parent reads back), and what the parent makes of a
 * line it took: pf_link_verdict and pf_h2d_verdict.
 *
 * Input: the first byte picks the parser, even ('0') the options, odd ('1')
 * the report line; the rest is one argument per line, or the line (up to a
 * NUL).  pf_parse_args exits nowhere (--help prints and returns 1, a bad
 * value returns 2), so nothing is wrapped.  Checked:
 *   options  it returns 0, 1 or 2; when 0, every value lies in the range
 *            --help gives; a parse of "--brief" after it is taken with the
 *            defaults (nothing of the earlier parse is left in getopt)
 *   result   a line taken writes back (pf_result_format) into the parent's
 *            PROC_REPORT_MAX bytes, that text reads back to the same
 *            numbers and writes the same text again; the verdicts of a GPU
 *            that reported it are one of the four statuses
 */
#include <math.h>

#include "fuzz_util.h"
#include "health.h"
#include "proc.h"

#define MAX_WORDS 64

static int opts_in_range(const struct pf_opts *o)
{
	return (o->memlock_min == -1 || o->memlock_min > 0) && o->expect_gpus >= -1 &&
	       o->expect_gpus <= GPU_TOPO_MAX_GPUS && o->size >= PF_SIZE_MIN &&
	       o->size <= PF_SIZE_MAX && o->min_fraction > 0 && o->min_fraction <= 1 &&
	       o->gpu_timeout_s >= 1 && o->gpu_timeout_s <= 600 && o->brief >= 0 &&
	       o->brief <= 1 && o->sysfs_root != NULL;
}

/* Every line one argument after argv[0]. */
static void check_args(char *text)
{
	char *argv[MAX_WORDS + 2], *p = text;
	int argc = 1, rc;
	struct pf_opts o;

	argv[0] = (char *)PF_PROGRAM;
	while (argc <= MAX_WORDS && p) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	argv[argc] = NULL;
	rc = pf_parse_args(argc, argv, &o);
	if (rc < 0 || rc > 2 || (rc == 0 && !opts_in_range(&o)))
		abort();
}

/* A parse after any other starts afresh. */
static void check_args_again(void)
{
	char a0[] = PF_PROGRAM, a1[] = "--brief", *argv[] = { a0, a1, NULL };
	struct pf_opts o;

	if (pf_parse_args(2, argv, &o) != 0 || !o.brief || o.size != PF_SIZE_DEFAULT ||
	    o.expect_gpus != -1 || o.memlock_min != (int64_t)PF_MEMLOCK_MIN_DEFAULT)
		abort();
}

static int same_numbers(const struct pf_measure *a, const struct pf_measure *b)
{
	return a->idle.gen == b->idle.gen && a->idle.width == b->idle.width &&
	       a->load.gen == b->load.gen && a->load.width == b->load.width &&
	       a->load_low.gen == b->load_low.gen && a->load_low.width == b->load_low.width &&
	       a->max.gen == b->max.gen && a->max.width == b->max.width &&
	       a->readings == b->readings && a->samples == b->samples && a->bytes == b->bytes;
}

static void check_verdicts(const struct pf_measure *m)
{
	static struct pf_gpu g;
	char line[PF_LINE_LEN];
	enum pf_status st;

	memset(&g, 0, sizeof(g));
	snprintf(g.bdf, sizeof(g.bdf), "0000:3b:00.0");
	g.in_sysfs = g.measured = 1;
	g.m = *m;
	st = pf_link_verdict(&g, line, sizeof(line));
	if (st > PF_NOT_RUN)
		abort();
	st = pf_h2d_verdict(&g, PF_MIN_FRACTION_DEFAULT, line, sizeof(line));
	if (st > PF_NOT_RUN)
		abort();
}

static void check_result(const char *line)
{
	struct pf_measure m, back;
	char once[PROC_REPORT_MAX], twice[PROC_REPORT_MAX];

	if (pf_result_parse(line, &m) != 0)
		return;
	if (pf_result_format(&m, once, sizeof(once)) != 0)
		abort(); /* the parent would cut the helper's line short */
	if (pf_result_parse(once, &back) != 0 || !same_numbers(&m, &back))
		abort();
	if (pf_result_format(&back, twice, sizeof(twice)) != 0 || strcmp(once, twice) != 0)
		abort();
	check_verdicts(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size == 0)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	if (data[0] % 2 == 0) {
		check_args(s);
		check_args_again();
	} else {
		check_result(s);
	}
	free(s);
	return 0;
}
