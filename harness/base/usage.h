/*
 * usage.h - the error vocabulary of the kit's programs, after git's usage.c.
 * Every message the runner or a lab's command line writes to stderr goes
 * through these: one line, "<prog>: <message>" ("dmalab", or "lab-02" once
 * usage_set_prog said so), lowercase, no trailing period, paths quoted
 * ('results/quiz.json'), except as the "PATH: what" that opens a library's
 * error text (json_parse_file, errata_load, ans_load_dir).
 *
 *   die(fmt, ...)          bad input before any lab runs (the environment,
 *                          the errata file): exit 2
 *   die_usage(fmt, ...)    die() about the command line, with
 *                          " (see dmalab --help)" (usage_set_help) appended
 *   usage_line(fmt, ...)   that line without the exit: returns 2 (a lab
 *                          stops through its own exit path)
 *   error(fmt, ...)        a failure its caller handles: returns -1, so that
 *                          `return error(...)` says why and fails at once
 *   error_errno(fmt, ...)  error() with ": <strerror(errno)>" appended
 *   warning(fmt, ...)      said, and the command goes on
 *   advise(fmt, ...)       a line after an error that says what to do next
 *
 * Once labs run the runner does not die: results.json must still be
 * written, so a failure there is error() and an exit code on the return
 * path (main.c, learn.h).  None of these changes errno.
 */
#ifndef DMALAB_USAGE_H
#define DMALAB_USAGE_H

/* The program that opens each line: "dmalab" (the default) or "lab-02". */
void usage_set_prog(const char *prog);
/* The command whose --help die_usage() points to: "dmalab" (the default),
 * "dmalab grade" (the learn commands, learn.c), or NULL: " (see --help)". */
void usage_set_help(const char *command);

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die_usage(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int usage_line(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error_errno(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void advise(const char *fmt, ...);
struct option; /* getopt.h's */
/* getopt_long, remembering where the call began for bad_option_name: the
 * one way the kit's commands and labs read their options. */
int next_option(int argc, char *const argv[], const char *shortopts,
		const struct option *longs);
/* The option next_option just refused (answered '?' or ':') as typed: a long
 * one whole ("--quick=3"), a short one by its letter, letter[] ("-x"), also
 * inside a cluster ("-xq").  optopt is 0 for an unknown long option and its
 * value for one given a value it does not take or missing one: a letter in
 * the runner's tables, told from a short option by where getopt stood. */
const char *bad_option_name(char *const argv[], char letter[3]);
/* That option's usage-error line: ':' its value is missing, else unknown. */
__attribute__((noreturn)) void die_bad_option(int c, char *const argv[]);
/* value, that of option, as a directory or a file: an empty one is a usage error
 * naming the option (it would be the root, the folder run in, or ": No such file"). */
const char *usage_dir(const char *option, const char *value);
const char *usage_file(const char *option, const char *value);
/* s as a number from lo to hi, the whole string; else die_usage() naming what. */
double parse_number(const char *s, const char *what, double lo, double hi);
/* s, the whole string, as a finite number into *v: 0, else -1 (nothing printed:
 * for a caller with its own words, or its own die_usage). */
int parse_real(const char *s, double *v);

#endif
