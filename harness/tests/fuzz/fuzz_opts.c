/*
 * fuzz_opts.c - the command-line number parsers: lab_parse_size,
 * lab_parse_long, a typed extra option of a tiny lab (--chunk), the whole
 * of lab_parse_args (getopt over the common and extra options), and the
 * runner's parse_timeout_mul (its die_usage is wrapped to come back here).
 *
 * Input: one argument per line; the first line is also fed to every number
 * parser on its own.  Checked: nothing accepted lies outside its range, an
 * accepted size prints back (lab_size_arg) to the same size, an accepted
 * --timeout-mul is in [0.1, 1000], and a parse of "--quick" after the
 * input's is taken (nothing of an earlier parse is left in getopt).
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>

#include "fuzz_util.h"
#include "lab.h"
#include "lab_internal.h"
#include "runner.h"

static jmp_buf usage_jmp;

/* The runner's die_usage would exit: come back to the target instead. */
__attribute__((noreturn)) void __wrap_die_usage(const char *fmt, ...);
__attribute__((noreturn)) void __wrap_die_usage(const char *fmt, ...)
{
	(void)fmt;
	longjmp(usage_jmp, 1);
}

static long chunk;
static const struct lab_extra_opt extras[] = {
	LAB_OPT_LONG("chunk", chunk, 7, 7, -3, 1L << 40, "a number"),
	{ "flag", NULL, "a flag" },
	{ NULL, NULL, NULL },
};
static const struct lab_spec spec = { .id = "fz", .title = "fuzz", .extra_opts = extras };

static void check_size(const char *s)
{
	uint64_t v = 0, back = 0;
	char buf[32];

	if (lab_parse_size(s, &v) < 0)
		return;
	if (v == 0)
		abort();
	lab_size_arg(v, buf, sizeof(buf));
	if (lab_parse_size(buf, &back) < 0 || back != v)
		abort(); /* a size we accept must print back to itself */
	lab_fmt_size(v, buf, sizeof(buf));
}

static void check_long(const char *s)
{
	static const long range[][2] = { { 0, 1023 }, { 7, 1024 }, { LONG_MIN, LONG_MAX },
					 { -5, 5 } };
	long v;

	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++)
		if (lab_parse_long(s, range[i][0], range[i][1], &v) == 0 &&
		    (v < range[i][0] || v > range[i][1]))
			abort();
}

/* --chunk S, the typed extra option: taken only in its range, else its default. */
static void check_opt_long(const char *s)
{
	static struct lab L;
	char a0[] = "lab-fz", a1[] = "--chunk", *argv[] = { a0, a1, (char *)s, NULL };
	int describe = 0, rc;

	memset(&L, 0, sizeof(L));
	L.spec = &spec;
	L.self = argv[0];
	chunk = 0;
	rc = lab_parse_args(&L, 3, argv, &describe);
	if (rc == 0 && (chunk < -3 || chunk > (1L << 40)))
		abort();
	if (rc != 0 && rc != 2)
		abort();
}

static void check_timeout_mul(const char *s)
{
	volatile double v = -1;

	if (setjmp(usage_jmp) == 0) {
		v = parse_timeout_mul(s, "--timeout-mul");
		if (!(v >= 0.1 && v <= 1000))
			abort();
	}
}

/* Every line an argument of a lab's command line ("--help" prints and exits: left out). */
static void check_args(char *text)
{
	char *argv[66], *p = text;
	int argc = 1, describe = 0;
	static struct lab L;

	argv[0] = (char *)"lab-fz";
	while (argc < 64 && p) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		if (strncmp(p, "--h", 3) != 0)
			argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	argv[argc] = NULL;
	memset(&L, 0, sizeof(L));
	L.spec = &spec;
	L.self = argv[0];
	if (lab_parse_args(&L, argc, argv, &describe) == 0) {
		if (L.opt.size_given && (L.opt.size == 0 || L.opt.size > LAB_SIZE_MAX))
			abort();
		if (L.opt.iters && (L.opt.iters < 7 || L.opt.iters > LAB_MAX_SAMPLES))
			abort();
	}
}

/* A parse after any other starts afresh: "--quick" alone is always taken. */
static void check_args_again(void)
{
	char a0[] = "lab-fz", a1[] = "--quick", *argv[] = { a0, a1, NULL };
	static struct lab L;
	int describe = 0;

	memset(&L, 0, sizeof(L));
	L.spec = &spec;
	L.self = argv[0];
	if (lab_parse_args(&L, 2, argv, &describe) != 0 || !L.opt.quick)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *nl = strchr(s, '\n');
	char *first = strndup(s, nl ? (size_t)(nl - s) : strlen(s));

	check_size(first);
	check_long(first);
	check_opt_long(first);
	check_timeout_mul(first);
	check_args(s);
	check_args_again();
	free(first);
	free(s);
	return 0;
}
