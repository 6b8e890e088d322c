/*
 * test_opts.c - number parsing for the command line (lab_parse_size,
 * lab_parse_long) and size formatting (lab_fmt_size).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab.h"
#include "lab_internal.h"

/* Expect lab_parse_size(s) to succeed with want bytes. */
static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;

	if (lab_parse_size(s, &v) != 0)
		fail_msg("lab_parse_size(\"%s\") failed: errno %d", s, errno);
	if (v != want)
		fail_msg("lab_parse_size(\"%s\") = %llu, want %llu", s,
			 (unsigned long long)v, (unsigned long long)want);
}

/* Expect lab_parse_size(s) to fail with err, leaving the output alone. */
static void size_bad(const char *s, int err)
{
	uint64_t v = 12345;

	errno = 0;
	if (lab_parse_size(s, &v) != -1)
		fail_msg("lab_parse_size(\"%s\") accepted: %llu", s, (unsigned long long)v);
	if (errno != err)
		fail_msg("lab_parse_size(\"%s\"): errno %d, want %d", s, errno, err);
	assert_int_equal(v, 12345);
}

static void test_lab_parse_size_plain(void **state)
{
	(void)state;
	size_ok("1", 1);
	size_ok("4096", 4096);
	size_ok("18446744073709551615", UINT64_MAX);
}

static void test_lab_parse_size_suffixes(void **state)
{
	(void)state;
	size_ok("4K", 4 * KiB);
	size_ok("64M", 64 * MiB);
	size_ok("2G", 2 * GiB);
	size_ok("1T", 1024 * GiB);
	size_ok("64m", 64 * MiB); /* case does not matter */
}

static void test_lab_parse_size_iec_and_bytes(void **state)
{
	(void)state;
	size_ok("4KiB", 4 * KiB);
	size_ok("64MiB", 64 * MiB);
	size_ok("1GB", GiB); /* binary, as documented: G = 2^30 */
	size_ok("512B", 512);
}

static void test_lab_parse_size_fraction_rejected(void **state)
{
	(void)state;
	size_bad("1.5G", EINVAL);
	size_bad("0.5M", EINVAL);
	size_bad("1e3", EINVAL);
}

static void test_lab_parse_size_overflow(void **state)
{
	(void)state;
	size_bad("99999999T", ERANGE);
	size_bad("18446744073709551616", ERANGE);
	size_bad("17179869184G", ERANGE); /* 2^34 GiB = 2^64 */
	size_ok("16777215T", 16777215ULL * 1024 * GiB);
}

static void test_lab_parse_size_garbage(void **state)
{
	(void)state;
	size_bad("abc", EINVAL);
	size_bad("", EINVAL);
	size_bad("K", EINVAL);
	size_bad("12X", EINVAL);
	size_bad("64MM", EINVAL);
	size_bad("64 M", EINVAL);
	size_bad(" 64", EINVAL);
	size_bad("64M ", EINVAL);
	size_bad("1iB", EINVAL); /* "iB" only after a K/M/G/T */
	size_bad("0x10", EINVAL);
}

static void test_lab_parse_size_zero_and_negative(void **state)
{
	(void)state;
	size_bad("0", EINVAL);
	size_bad("0K", EINVAL);
	size_bad("-1", EINVAL);
	size_bad("+1", EINVAL);
}

static void test_lab_parse_size_null(void **state)
{
	(void)state;
	size_bad(NULL, EINVAL);
}

/* ---- lab_parse_long ---- */

static void test_lab_parse_long_in_range(void **state)
{
	long v = 0;

	(void)state;
	assert_int_equal(lab_parse_long("7", 7, 100, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(lab_parse_long("100", 7, 100, &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(lab_parse_long("0", 0, 0, &v), 0);
	assert_int_equal(v, 0);
}

static void test_lab_parse_long_out_of_range(void **state)
{
	long v = 5;

	(void)state;
	errno = 0;
	assert_int_equal(lab_parse_long("6", 7, 100, &v), -1);
	assert_int_equal(errno, ERANGE);
	errno = 0;
	assert_int_equal(lab_parse_long("101", 7, 100, &v), -1);
	assert_int_equal(errno, ERANGE);
	errno = 0;
	assert_int_equal(lab_parse_long("99999999999999999999", 0, LONG_MAX, &v), -1);
	assert_int_equal(errno, ERANGE);
	errno = 0;
	assert_int_equal(lab_parse_long("-1", 0, 10, &v), -1);
	assert_true(errno == ERANGE || errno == EINVAL);
	assert_int_equal(v, 5);
}

static void test_lab_parse_long_garbage(void **state)
{
	static const char *const bad[] = { "", "abc", "12abc", "1.0", " 5", "5 ", "0x10", "--3" };
	long v = 5;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (lab_parse_long(bad[i], 0, 1000, &v) != -1)
			fail_msg("lab_parse_long(\"%s\") accepted: %ld", bad[i], v);
		if (errno != EINVAL)
			fail_msg("lab_parse_long(\"%s\"): errno %d, want EINVAL", bad[i], errno);
	}
	errno = 0;
	assert_int_equal(lab_parse_long(NULL, 0, 1000, &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(v, 5);
}

/* ---- lab_fmt_size ---- */

static void test_lab_size_arg_exact(void **state)
{
	char b[32];
	uint64_t back;

	(void)state;
	assert_string_equal(lab_size_arg(64 * MiB, b, sizeof(b)), "64M");
	assert_string_equal(lab_size_arg(1536 * KiB, b, sizeof(b)), "1536K");
	assert_string_equal(lab_size_arg(1000, b, sizeof(b)), "1000");
	assert_string_equal(lab_size_arg(0, b, sizeof(b)), "0");
	/* what it prints parses back to the same bytes */
	assert_int_equal(lab_parse_size(lab_size_arg(3 * GiB + 4 * KiB, b, sizeof(b)), &back), 0);
	assert_true(back == 3 * GiB + 4 * KiB);
}

static void test_lab_fmt_size_units(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(lab_fmt_size(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(lab_fmt_size(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(lab_fmt_size(4 * KiB, buf, sizeof(buf)), "4 KiB");
	assert_string_equal(lab_fmt_size(64 * MiB, buf, sizeof(buf)), "64 MiB");
	assert_string_equal(lab_fmt_size(3 * GiB / 2, buf, sizeof(buf)), "1.5 GiB");
	assert_string_equal(lab_fmt_size(2048 * GiB, buf, sizeof(buf)), "2 TiB");
}

static void test_lab_fmt_size_round_trip(void **state)
{
	char buf[32];
	uint64_t v = 0;
	char *sp;

	(void)state;
	/* "64 MiB" without its space must parse back to the same bytes */
	lab_fmt_size(64 * MiB, buf, sizeof(buf));
	sp = strchr(buf, ' ');
	assert_non_null(sp);
	memmove(sp, sp + 1, strlen(sp));
	assert_int_equal(lab_parse_size(buf, &v), 0);
	assert_int_equal(v, 64 * MiB);
}

/* Two labs with no extra option: one without --size (as lab-11), one with. */
static const struct lab_spec no_size_spec = { .id = "99", .title = "opts" };
static const struct lab_spec sized_spec = { .id = "98", .title = "opts", .default_size = 1 << 20 };

/* lab_parse_args on argv (NULL-ended) of `spec`; its return, and the usage
 * line it printed into msg (msglen bytes). */
static int parse_args_of(const struct lab_spec *spec, char **argv, struct lab *L, char *msg,
			 size_t msglen)
{
	int argc = 0, describe = 0, rc, saved = dup(2);
	FILE *f = tmpfile();

	while (argv[argc])
		argc++;
	memset(L, 0, sizeof(*L));
	L->spec = spec;
	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	rc = lab_parse_args(L, argc, argv, &describe);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	msg[0] = '\0';
	if (!fgets(msg, (int)msglen, f))
		msg[0] = '\0';
	fclose(f);
	return rc;
}

static int parse_args(char **argv, struct lab *L, char *msg, size_t msglen)
{
	return parse_args_of(&no_size_spec, argv, L, msg, msglen);
}

/* A typed --steps (10 to 1000, default 200) given VALUE (NULL: absent) into
 * *out; lab_parse_args' return, its usage line in msg. */
static long steps;
static const struct lab_extra_opt steps_opt[] = {
	LAB_OPT_LONG("steps", steps, 200, 200, 10, 1000, "steps"), { NULL }
};
static const struct lab_spec steps_spec = { .id = "99", .title = "opts",
					    .extra_opts = steps_opt };

static int opt_long(const char *value, long *out, char *msg)
{
	char a0[] = "lab-99", opt[] = "--steps", val[64];
	char *argv[] = { a0, opt, val, NULL };
	struct lab L;
	int rc;

	snprintf(val, sizeof(val), "%s", value ? value : "");
	if (!value)
		argv[1] = NULL;
	steps = -1;
	rc = parse_args_of(&steps_spec, argv, &L, msg, 256);
	*out = steps;
	return rc;
}

static void test_lab_opt_long_range(void **state)
{
	char msg[256];
	long v = -1;

	(void)state;
	assert_int_equal(opt_long(NULL, &v, msg), 0);
	assert_int_equal(v, 200);           /* absent: the default */
	assert_int_equal(opt_long("10", &v, msg), 0);
	assert_int_equal(v, 10);
	assert_int_equal(opt_long("1000", &v, msg), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(opt_long("9", &v, msg), 2);
	assert_int_equal(v, 200);           /* a refused value leaves the default */
	assert_string_equal(msg, "lab-99: --steps '9': must be from 10 to 1000 (see --help)\n");
	assert_int_equal(opt_long("1001", &v, msg), 2);
	assert_int_equal(opt_long("-3", &v, msg), 2);
	assert_int_equal(opt_long("abc", &v, msg), 2);
	assert_string_equal(msg, "lab-99: --steps 'abc': not a whole number (see --help)\n");
	assert_int_equal(opt_long("99999999999999999999", &v, msg), 2);
	assert_int_equal(opt_long("-99999999999999999999", &v, msg), 2);
}

/* A typed size option under its floor names the value and the floor. */
static uint64_t chunk;
static const struct lab_extra_opt chunk_opt[] = {
	LAB_OPT_SIZE("chunk", chunk, 16 << 20, 4 << 20, 2 << 20, " (a huge page)", "chunk"),
	{ NULL }
};
static const struct lab_spec chunk_spec = { .id = "99", .title = "opts",
					    .extra_opts = chunk_opt };

static void test_lab_opt_size(void **state)
{
	char a0[] = "lab-99", opt[] = "--chunk", val[] = "1M", quick[] = "--quick", msg[256];
	char *bad[] = { a0, opt, val, NULL }, *none[] = { a0, NULL }, *q[] = { a0, quick, NULL };
	struct lab L;

	(void)state;
	assert_int_equal(parse_args_of(&chunk_spec, none, &L, msg, sizeof(msg)), 0);
	assert_int_equal(chunk, 16 << 20);
	assert_int_equal(parse_args_of(&chunk_spec, q, &L, msg, sizeof(msg)), 0);
	assert_int_equal(chunk, 4 << 20);  /* --quick's value */
	assert_int_equal(parse_args_of(&chunk_spec, bad, &L, msg, sizeof(msg)), 2);
	assert_string_equal(msg, "lab-99: --chunk '1M': too small: need at least 2 MiB "
			    "(a huge page) (see --help)\n");
}

/* --size where the lab has none is one usage line (it was taken and ignored);
 * where it has one, it is read. */
static void test_lab_parse_args_size_only_where_the_lab_has_one(void **state)
{
	char a0[] = "lab-99", opt[] = "--size", val[] = "64M", msg[256];
	char *argv[] = { a0, opt, val, NULL };
	struct lab L;

	(void)state;
	assert_int_equal(parse_args_of(&no_size_spec, argv, &L, msg, sizeof(msg)), 2);
	if (!strstr(msg, "--size '64M': this lab takes no --size"))
		fail_msg("message for --size on a lab without one: %s", msg);
	assert_int_equal(L.opt.size_given, 0);
	assert_int_equal(parse_args_of(&sized_spec, argv, &L, msg, sizeof(msg)), 0);
	assert_int_equal(L.opt.size_given, 1);
	assert_int_equal(L.opt.size, 64ull << 20);
}

/* "-qs" is unknown: the message names "-q", not the program, and the next
 * parse starts afresh.  glibc keeps its place inside a cluster between
 * calls unless optind is set to 0: a second parse read the first one's
 * argv (freed memory, in a fuzz target) and refused "--quick". */
static void test_lab_parse_args_cluster_then_again(void **state)
{
	char a0[] = "lab-99", bad[] = "-qs", quick[] = "--quick", msg[256];
	char *first[] = { a0, bad, NULL }, *second[] = { a0, quick, NULL };
	struct lab L;

	(void)state;
	assert_int_equal(parse_args(first, &L, msg, sizeof(msg)), 2);
	if (!strstr(msg, "unknown option '-q'"))
		fail_msg("message for -qs: %s", msg);
	bad[1] = 'X'; /* what the first parse left behind must not be read */
	if (parse_args(second, &L, msg, sizeof(msg)) != 0)
		fail_msg("--quick refused after an earlier parse stopped in a cluster: %s", msg);
	assert_int_equal(L.opt.quick, 1);
	{ /* a flag given a value: a long option, named as typed */
		char given[] = "--quick=3", *third[] = { a0, given, NULL };

		assert_int_equal(parse_args(third, &L, msg, sizeof(msg)), 2);
		if (!strstr(msg, "unknown option '--quick=3'"))
			fail_msg("message for --quick=3: %s", msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_parse_size_plain),
		cmocka_unit_test(test_lab_parse_size_suffixes),
		cmocka_unit_test(test_lab_parse_size_iec_and_bytes),
		cmocka_unit_test(test_lab_parse_size_fraction_rejected),
		cmocka_unit_test(test_lab_parse_size_overflow),
		cmocka_unit_test(test_lab_parse_size_garbage),
		cmocka_unit_test(test_lab_parse_size_zero_and_negative),
		cmocka_unit_test(test_lab_parse_size_null),
		cmocka_unit_test(test_lab_parse_long_in_range),
		cmocka_unit_test(test_lab_parse_long_out_of_range),
		cmocka_unit_test(test_lab_parse_long_garbage),
		cmocka_unit_test(test_lab_opt_long_range),
		cmocka_unit_test(test_lab_opt_size),
		cmocka_unit_test(test_lab_parse_args_cluster_then_again),
		cmocka_unit_test(test_lab_parse_args_size_only_where_the_lab_has_one),
		cmocka_unit_test(test_lab_size_arg_exact),
		cmocka_unit_test(test_lab_fmt_size_units),
		cmocka_unit_test(test_lab_fmt_size_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
