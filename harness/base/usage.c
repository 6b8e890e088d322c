/*
 * usage.c - die, die_usage, usage_line, error, error_errno, warning, advise (usage.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "usage.h"

static const char *prog = "dmalab";
static const char *help_command = "dmalab";

void usage_set_prog(const char *name)
{
	prog = name;
}

void usage_set_help(const char *command)
{
	help_command = command;
}

/* "prog: " message tail, one line in one write; errno kept. */
static void vreport(const char *tail, const char *fmt, va_list ap)
{
	char msg[8192];
	int saved = errno;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", prog, msg, tail);
	errno = saved;
}

/* The body of each function below: report fmt and its arguments. */
#define REPORT(tail)                           \
	do {                                   \
		va_list ap;                    \
		va_start(ap, fmt);             \
		vreport((tail), fmt, ap);      \
		va_end(ap);                    \
	} while (0)

void die(const char *fmt, ...)
{
	REPORT("");
	exit(2); /* usage or bad input */
}

/* " (see dmalab --help)", or a lab's " (see --help)" */
static const char *see_help(char *tail, size_t len)
{
	if (!help_command)
		return MSG("lab.see-help", " (see --help)");
	snprintf(tail, len, MSG("usage.see-help", " (see %s --help)"), help_command);
	return tail;
}

int usage_line(const char *fmt, ...)
{
	char tail[128];

	REPORT(see_help(tail, sizeof(tail)));
	return 2;
}

void die_usage(const char *fmt, ...)
{
	char tail[128];

	REPORT(see_help(tail, sizeof(tail)));
	exit(2);
}

static int optind_before = 1; /* where next_option's last getopt_long call began */

int next_option(int argc, char *const argv[], const char *shortopts,
		const struct option *longs)
{
	optind_before = optind > 0 ? optind : 1; /* 0 asks glibc to start over at 1 */
	return getopt_long(argc, argv, shortopts, longs, NULL);
}

const char *bad_option_name(char *const argv[], char letter[3])
{
	const char *typed = argv[optind - 1];

	letter[0] = '-';
	letter[1] = (char)optopt;
	letter[2] = '\0';
	if (optopt <= 0 || optopt >= 256)
		return typed; /* a long option: 0, or a lab's value */
	/* a long option moved optind past itself; a letter before a cluster's
	 * last leaves optind on the cluster, and getopt may have stepped over
	 * arguments that are no options (argv[optind - 1] is then one of them) */
	if (optind != optind_before && !strncmp(typed, "--", 2))
		return typed;
	return letter;
}

void die_bad_option(int c, char *const argv[])
{
	char letter[3];
	const char *opt = bad_option_name(argv, letter);

	if (c == ':')
		die_usage(MSG("usage.err-needs-value", "option '%s' needs a value"), opt);
	die_usage(MSG("usage.err-unknown-opt", "unknown option '%s'"), opt);
}

int error(const char *fmt, ...)
{
	REPORT("");
	return -1;
}

int error_errno(const char *fmt, ...)
{
	char tail[256];

	snprintf(tail, sizeof(tail), ": %s", strerror(errno));
	REPORT(tail);
	return -1;
}

void warning(const char *fmt, ...)
{
	REPORT("");
}

void advise(const char *fmt, ...)
{
	REPORT("");
}

const char *usage_dir(const char *option, const char *value)
{
	if (!*value)
		die_usage(MSG("main.err-empty-dir", "option '%s' needs a directory, got ''"),
			  option);
	return value;
}

const char *usage_file(const char *option, const char *value)
{
	if (!*value)
		die_usage(MSG("usage.err-empty-file", "option '%s' needs a file, got ''"), option);
	return value;
}

int parse_real(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return s[0] && !*end && !errno && isfinite(*v) ? 0 : -1;
}

double parse_number(const char *s, const char *what, double lo, double hi)
{
	double v;

	if (parse_real(s, &v) < 0 || v < lo || v > hi)
		die_usage(MSG("usage.err-number",
			"bad %s '%s' (want a number from %.10g to %.10g)"),
			  what, s, lo, hi);
	return v;
}
