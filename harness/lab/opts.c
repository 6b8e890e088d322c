/*
 * opts.c - the options every lab shares (numbers and sizes: sizes.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "lang.h"
#include "need.h"
#include "usage.h"

enum { OPT_HELP = 256, OPT_DESCRIBE, OPT_QUICK, OPT_JSON, OPT_SIZE, OPT_ITERS,
       OPT_DEVICE, OPT_SEED, OPT_VERBOSE, OPT_ROLE, OPT_EXTRA };

static const struct option common_opts[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "describe", no_argument, NULL, OPT_DESCRIBE },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "iters", required_argument, NULL, OPT_ITERS },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "role", required_argument, NULL, OPT_ROLE },
};
#define NCOMMON ((int)(sizeof(common_opts) / sizeof(common_opts[0])))

/* A typed option's value in --help's words: "64 MiB", "1000". */
static const char *value_text(const struct lab_extra_opt *e, long long v, char *buf, size_t len)
{
	if (e->type == LAB_TYPE_SIZE)
		return lab_fmt_size((uint64_t)v, buf, len);
	snprintf(buf, len, "%lld", v);
	return buf;
}

/* " (default 1000, --quick 200)", or "" when both are 0. */
static void print_defaults(const char *def, const char *quick)
{
	if (!strcmp(def, quick))
		printf(MSG("lab.opt-default", " (default %s)"), def);
	else
		printf(MSG("lab.opt-defaults", " (default %s, --quick %s)"), def, quick);
}

/* "  --steps N" and its help (opt.LAB.NAME in the message table), with the
 * default, --quick's and the range. */
static void print_extra_help(const char *lab_id, const struct lab_extra_opt *e)
{
	char def[32], quick[32], lo[32], hi[32], id[48];
	int typed = e->type == LAB_TYPE_LONG || e->type == LAB_TYPE_SIZE;

	snprintf(id, sizeof(id), "opt.%s.%s", lab_id, e->name);
	printf("  --%s%s%s\n                  %s", e->name, e->arg ? " " : "",
	       e->arg ? e->arg : "", msg_text(id, e->help));
	if (typed && (e->def || e->quick)) /* 0: its help says what its absence means */
		print_defaults(value_text(e, e->def, def, sizeof(def)),
			       value_text(e, e->quick, quick, sizeof(quick)));
	if (e->type == LAB_TYPE_SIZE)
		printf(MSG("lab.opt-at-least", " (at least %s)"),
		       value_text(e, e->min, lo, sizeof(lo)));
	if (e->type == LAB_TYPE_LONG)
		printf(MSG("lab.opt-range", " (%s to %s)"), value_text(e, e->min, lo, sizeof(lo)),
		       value_text(e, e->max, hi, sizeof(hi)));
	printf("\n");
}

static void print_help(const struct lab *L)
{
	const struct lab_spec *s = L->spec;
	char sz[32], q[32], id[32];

	printf(MSG("lab.help-usage", "usage: lab-%s [options]"), s->id);
	snprintf(id, sizeof(id), "topic.%s", s->id);
	printf("\n\n%s%s%s\n", msg_lab_title(s->id, s->title), MSG("lab.title-sep", ": "),
	       s->topic ? msg_text(id, s->topic) : "");
	/* one message a line: the table's texts hold no line end */
	printf("\n%s\n", MSG("lab.help-options", "options:"));
	printf("  --help          %s\n", MSG("lab.opt-help", "this text"));
	printf("  --describe      %s\n", MSG("lab.opt-describe", "print the lab's metadata and "
						 "claims as JSON, measure nothing"));
	printf("  --quick         %s\n", MSG("lab.opt-quick", "small sizes and few steps (CI)"));
	printf("  --json FILE     %s\n", MSG("lab.opt-json", "write the lab's record as JSON to "
						 "FILE"));
	if (s->default_size) {
		printf("  --size N        %s",
		       MSG("lab.opt-size", "bytes, with K, M, G or T suffix"));
		lab_fmt_size(s->default_size, sz, sizeof(sz));
		print_defaults(sz, s->quick_size ? lab_fmt_size(s->quick_size, q, 32) : sz);
		putchar('\n');
	}
	printf("  --iters N       ");
	printf(MSG("lab.opt-iters", "samples per measurement, 7 to %d (default %d)"),
	       LAB_MAX_SAMPLES, s->default_iters >= 7 ? s->default_iters : 7);
	printf("\n  --device N      %s\n",
	       MSG("lab.opt-device", "CUDA device ordinal (default 0)"));
	printf("  --seed N        %s\n", MSG("lab.opt-seed", "seed of the pseudo-random inputs "
						 "(default 1)"));
	printf("  --verbose       %s\n", MSG("lab.opt-verbose", "more narrative"));
	for (const struct lab_extra_opt *e = s->extra_opts; e && e->name; e++)
		print_extra_help(s->id, e);
	printf("\n%s\n", MSG("lab.help-claims", "claims:"));
	for (const struct claim_spec *c = s->claims; c && c->id; c++)
		printf("  %-5s [%s] %s\n", c->id, c->question, msg_claim_text(c->id, c->text));
	printf("\n%s\n", MSG("lab.help-exit", "exit: 0 confirmed, 1 a claim failed, 77 skipped, "
			     "99 setup error, 2 usage, 128+N stopped by signal N (130: Ctrl-C)"));
}

/* The one size parser of options: *out = ARG in bytes; else 2 after one line naming it. */
static int parse_size(const struct lab *L, const char *name, const char *arg, uint64_t *out)
{
	if (lab_parse_size(arg, out) < 0)
		return lab_usage_error(L, name, arg, "%s", errno == ERANGE ?
				       MSG("lab.too-large", "too large") :
				       MSG("lab.not-a-size", "not a size above 0 (digits with "
					   "an optional K, M, G or T suffix)"));
	if (*out > LAB_SIZE_MAX)
		return lab_usage_error(L, name, arg, "larger than 1 PiB (1024T), the most a lab "
				       "takes");
	return 0;
}

/*
 * A size given as --NAME from min (0: any) to max (0: LAB_SIZE_MAX); else 2
 * after one line naming it.  Helpers (--role) take the sizes their lab
 * passes them, outside its range too (lab-01 locks less than --size's least).
 */
static int size_in_range(const struct lab *L, const char *name, uint64_t v, uint64_t min,
			 uint64_t max, const char *why)
{
	char got[32], most[32];

	if (L->opt.role)
		return 0;
	if (max && v > max)
		return lab_usage_error(L, name, lab_size_arg(v, got, sizeof(got)),
				       "too large: at most %s",
				       lab_fmt_size(max, most, sizeof(most)));
	return lab_size_floor(L, name, v, min, why);
}

/* *out = ARG, a whole number from min to max; else 2 after one line naming it. */
static int parse_long(const struct lab *L, const char *name, const char *arg, long min,
		      long max, long *out)
{
	long v = 0;
	int bad = lab_parse_long(arg, LONG_MIN, LONG_MAX, &v) < 0; /* beyond a long: ERANGE */

	if (bad && errno != ERANGE)
		return lab_usage_error(L, name, arg, "not a whole number");
	if (bad && arg[0] != '-')
		return lab_usage_error(L, name, arg, "too large");
	if (bad || v < min || v > max)
		return lab_usage_error(L, name, arg, "must be from %ld to %ld", min, max);
	*out = v;
	return 0;
}

static int parse_number_opt(struct lab *L, int code, const char *arg)
{
	long v;

	switch (code) {
	case OPT_SIZE:
		/* not in its --help: its sizes are options of its own */
		if (!L->spec->default_size)
			return lab_usage_error(L, "size", arg, "this lab takes no --size");
		L->opt.size_given = 1;
		return parse_size(L, "size", arg, &L->opt.size);
	case OPT_ITERS:
		if (lab_parse_long(arg, 7, LAB_MAX_SAMPLES, &v) < 0)
			return lab_usage_error(L, "iters", arg, "%s",
					   "must be a whole number from 7 to 1024");
		L->opt.iters = (int)v;
		return 0;
	case OPT_DEVICE:
		if (lab_parse_long(arg, 0, 1023, &v) < 0)
			return lab_usage_error(L, "device", arg, "%s",
					   "must be a device ordinal from 0");
		L->opt.device = (int)v;
		L->opt.device_given = 1;
		return 0;
	case OPT_SEED:
		if (lab_parse_long(arg, 0, 0x7fffffffL, &v) < 0)
			return lab_usage_error(L, "seed", arg, "%s",
					   "must be a whole number from 0");
		L->opt.seed = (uint64_t)v;
		return 0;
	}
	return 0;
}

static int handle_opt(struct lab *L, int code, const char *arg, int *describe)
{
	switch (code) {
	case OPT_HELP:
		print_help(L);
		exit(0);
	case OPT_DESCRIBE: *describe = 1; return 0;
	case OPT_QUICK: L->opt.quick = 1; return 0;
	case OPT_JSON: L->opt.json_path = arg; return 0;
	case OPT_VERBOSE: L->opt.verbose = 1; return 0;
	case OPT_ROLE: L->opt.role = arg; return 0;
	}
	if (code >= OPT_EXTRA) {
		L->extra_val[code - OPT_EXTRA] = arg ? arg : "1";
		return 0;
	}
	return parse_number_opt(L, code, arg);
}

/* Common options followed by the lab's own; returns a malloc'd table. */
static struct option *build_table(const struct lab *L)
{
	const struct lab_extra_opt *e = L->spec->extra_opts;
	int n = 0;
	struct option *t;

	while (e && e[n].name && n < LAB_MAX_EXTRA)
		n++;
	t = calloc((size_t)(NCOMMON + n + 1), sizeof(*t));
	if (!t)
		return NULL;
	memcpy(t, common_opts, sizeof(common_opts));
	for (int i = 0; i < n; i++) {
		t[NCOMMON + i].name = e[i].name;
		t[NCOMMON + i].has_arg = e[i].arg ? required_argument : no_argument;
		t[NCOMMON + i].val = OPT_EXTRA + i;
	}
	return t;
}

/* One typed extra option into the lab's variable: its value, or its default. */
static int set_extra(const struct lab *L, const struct lab_extra_opt *e, const char *arg)
{
	long long def = L->opt.quick ? e->quick : e->def;

	switch (e->type) {
	case LAB_TYPE_FLAG:
		*e->flag = arg != NULL;
		return 0;
	case LAB_TYPE_LONG:
		*e->number = (long)def;
		return arg ? parse_long(L, e->name, arg, (long)e->min, (long)e->max, e->number) : 0;
	case LAB_TYPE_SIZE:
		*e->bytes = (uint64_t)def;
		if (!arg)
			return 0;
		return parse_size(L, e->name, arg, e->bytes) ||
		       size_in_range(L, e->name, *e->bytes, (uint64_t)e->min, (uint64_t)e->max,
				     e->why) ? 2 : 0;
	case LAB_TYPE_TEXT:
		return 0;
	}
	return 0;
}

/* --size's range, and every typed extra option, once --quick and --role are known; 0 or 2. */
static int set_extras(struct lab *L)
{
	const struct lab_extra_opt *e = L->spec->extra_opts;
	const struct lab_spec *s = L->spec;
	int rc = 0;

	if (L->opt.size_given)
		rc = size_in_range(L, "size", L->opt.size, s->min_size, s->max_size, s->size_why);
	for (int i = 0; rc == 0 && e && e[i].name && i < LAB_MAX_EXTRA; i++)
		rc = set_extra(L, &e[i], L->extra_val[i]);
	return rc;
}

int lab_parse_args(struct lab *L, int argc, char **argv, int *describe)
{
	struct option *table = build_table(L);
	int code, rc = 0;

	if (!table)
		return lab_usage_line(L, "%s", "out of memory");
	opterr = 0;
	optind = 0; /* 0, not 1: glibc forgets a cluster ("-ab") an earlier parse stopped in */
	while (rc == 0 && (code = next_option(argc, argv, ":", table)) != -1) {
		char letter[3];

		if (code == '?')
			rc = lab_usage_line(L, MSG("lab.unknown-option", "unknown option '%s'%s"),
					    bad_option_name(argv, letter), "");
		else if (code == ':')
			rc = lab_usage_line(L, MSG("lab.needs-value",
						   "option '%s' needs a value%s"),
					    bad_option_name(argv, letter), "");
		else
			rc = handle_opt(L, code, optarg, describe);
	}
	if (rc == 0 && optind < argc)
		rc = lab_usage_line(L, MSG("lab.unexpected", "unexpected argument '%s'%s"),
				    argv[optind], "");
	free(table);
	if (rc == 0 && !L->opt.size_given && L->opt.quick && L->spec->quick_size)
		L->opt.size = L->spec->quick_size;
	return rc ? rc : set_extras(L);
}

const char *lab_opt(const struct lab *L, const char *name)
{
	const struct lab_extra_opt *e = L->spec->extra_opts;

	for (int i = 0; e && e[i].name && i < LAB_MAX_EXTRA; i++)
		if (strcmp(e[i].name, name) == 0)
			return L->extra_val[i];
	return NULL;
}

const struct lab_opts *lab_options(const struct lab *L) { return &L->opt; }
const struct lab_spec *lab_spec_of(const struct lab *L) { return L->spec; }
const char *lab_self_path(const struct lab *L) { return L->self; }
