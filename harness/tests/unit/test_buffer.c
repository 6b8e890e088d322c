/*
 * test_buffer.c - buffer.h: aligned mappings, the registry (release by
 * pointer, newest first, at exit after lab_error, never in a forked child),
 * the pattern's fill and verify.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "buffer.h"
#include "unit_lab.h"

#define HUGE_SPAN (2 * MiB)

static uint64_t page(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Pages of [p, p + len) resident now; -1 when some of it is not mapped. */
static long resident_pages(void *p, uint64_t len)
{
	size_t n = (size_t)((len + page() - 1) / page()), i;
	unsigned char *vec = malloc(n);
	long in = 0;

	assert_non_null(vec);
	if (mincore(p, (size_t)len, vec) < 0) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

static int mapped(void *p, uint64_t len)
{
	return resident_pages(p, len) >= 0;
}

/* ---- buf_map ---- */

static void test_map_untouched_page_aligned(void **state)
{
	size_t before = buf_tracked();
	uint64_t bytes = 64 * page();
	unsigned char *p = buf_map(bytes, 0, 0, NULL);

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % page(), 0);
	assert_int_equal(resident_pages(p, bytes), 0); /* nothing faulted in yet */
	assert_int_equal(buf_tracked(), before + 1);
	p[0] = 1;
	p[bytes - 1] = 2;
	assert_int_equal(buf_free(p), 0);
	assert_int_equal(buf_tracked(), before);
	assert_false(mapped(p, page())); /* given back */
}

static void test_map_touch_writes_every_page(void **state)
{
	uint64_t bytes = 16 * page() + 100, i;
	unsigned char *p = buf_map(bytes, 0, BUF_TOUCH, NULL);

	(void)state;
	assert_non_null(p);
	assert_int_equal(resident_pages(p, bytes), 17);
	for (i = 0; i < bytes; i++)
		assert_int_equal(p[i], 0);
	assert_int_equal(buf_free(p), 0);
}

/* A large first touch's buffer: more than 64 MiB, not whole 2 MiB parts. */
#define TOUCH_BYTES (64 * MiB + 2 * MiB + 3 * page())

/* Every page of [p, p + bytes) resident and zero (a byte in 997 read, and the last). */
static void assert_touched(const unsigned char *p, uint64_t bytes)
{
	uint64_t i;

	assert_int_equal(resident_pages((void *)p, bytes), (long)(bytes / page()));
	for (i = 0; i < bytes; i += 997)
		assert_int_equal(p[i], 0);
	assert_int_equal(p[bytes - 1], 0);
}

/* From 64 MiB up BUF_TOUCH runs on threads where the CPUs allow: every page
 * resident and zero, the tail past the last whole part included. */
static void test_map_touch_large_every_page(void **state)
{
	unsigned char *p = buf_map(TOUCH_BYTES, 0, BUF_TOUCH, NULL);

	(void)state;
	assert_non_null(p);
	assert_touched(p, TOUCH_BYTES);
	assert_int_equal(buf_free(p), 0);
}

/* The threaded first touch itself, on 4 threads whatever this machine has:
 * every page of every part resident and zero, the tail past the last whole
 * 2 MiB part included. */
static void test_touch_on_threads_every_page(void **state)
{
	unsigned char *p = buf_map(TOUCH_BYTES, 0, BUF_UNTRACKED, NULL);

	(void)state;
	assert_non_null(p);
	assert_int_equal(resident_pages(p, TOUCH_BYTES), 0);
	buf_touch_on(p, TOUCH_BYTES, 4);
	assert_touched(p, TOUCH_BYTES);
	munmap(p, (size_t)TOUCH_BYTES);
}

/* Threads share a first touch only where all the caller's CPUs are on one
 * node; the fixtures: one-node (0-7), two-node (0-15, 16-31). */
static void test_touch_threads_follow_the_nodes(void **state)
{
	static const int eight[] = { 0, 1, 2, 3, 4, 5, 6, 7 }, sixteen[] = { 0, 1, 2, 3, 4, 5,
		6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }, across[] = { 3, 4, 5, 20 },
		unlisted[] = { 0, 1, 2, 40 };
	char one[PATH_MAX], two[PATH_MAX];

	(void)state;
	unit_fixture_sys("one-node", one, sizeof(one));
	unit_fixture_sys("two-node", two, sizeof(two));
	assert_int_equal(buf_touch_threads(one, eight, 8, 64 * MiB), 8);
	assert_int_equal(buf_touch_threads(one, eight, 4, 64 * MiB), 4);
	assert_int_equal(buf_touch_threads(one, eight, 3, GiB), 1); /* under 4 CPUs: one */
	assert_int_equal(buf_touch_threads(one, eight, 8, 64 * MiB - 1), 1); /* small: one */
	assert_int_equal(buf_touch_threads(two, sixteen, 16, GiB), 8); /* node 0 alone: at most 8 */
	assert_int_equal(buf_touch_threads(two, sixteen + 12, 4, GiB), 4);
	assert_int_equal(buf_touch_threads(two, across, 4, GiB), 1);   /* nodes 0 and 1 */
	assert_int_equal(buf_touch_threads(two, unlisted, 4, GiB), 1); /* CPU 40: no node */
	assert_int_equal(buf_touch_threads("/nonexistent/dmalab-sys", eight, 8, GiB), 1);
}

static void test_map_huge_aligned_nothing_around(void **state)
{
	uint64_t bytes = 2 * HUGE_SPAN;
	int advice = -1;
	char *p = buf_map(bytes, HUGE_SPAN, BUF_HUGE | BUF_NORESERVE, &advice);

	(void)state;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % HUGE_SPAN, 0);
	/* taken, or refused where THP is compiled out; never left at -1 */
	assert_true(advice == 0 || advice == EINVAL);
	assert_true(mapped(p, bytes));
	assert_false(mapped(p + bytes, page())); /* the extra tail is unmapped */
	assert_int_equal(buf_free(p), 0);
	assert_false(mapped(p, page()));
}

static void test_map_rounds_mapping_to_pages(void **state)
{
	/* an odd size with a huge alignment: the tail trim must stay page-aligned */
	uint64_t bytes = HUGE_SPAN + 1;
	char *p = buf_map(bytes, HUGE_SPAN, 0, NULL);

	(void)state;
	assert_non_null(p);
	assert_true(mapped(p, bytes));
	assert_false(mapped(p + HUGE_SPAN + page(), page()));
	assert_int_equal(buf_free(p), 0);
}

static void test_map_bad_arguments(void **state)
{
	size_t before = buf_tracked();

	(void)state;
	errno = 0;
	assert_null(buf_map(0, 0, 0, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(buf_map(page(), 3 * page(), 0, NULL)); /* not a power of two */
	assert_int_equal(errno, EINVAL);
	assert_null(buf_map(page(), page() / 2, 0, NULL)); /* below a page */
	assert_int_equal(errno, EINVAL);
	/* sizes near 2^64 must fail cleanly, never wrap to a small mapping */
	assert_null(buf_map(UINT64_MAX, 0, 0, NULL));
	assert_int_equal(errno, ENOMEM);
	assert_null(buf_map(UINT64_MAX - 2 * page() + 1, 0, 0, NULL));
	assert_null(buf_map(UINT64_MAX - HUGE_SPAN, HUGE_SPAN, 0, NULL));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(buf_tracked(), before);
}

static void test_map_untracked(void **state)
{
	size_t before = buf_tracked();
	void *p = buf_map(page(), 0, BUF_UNTRACKED, NULL);

	(void)state;
	assert_non_null(p);
	assert_int_equal(buf_tracked(), before);
	errno = 0;
	assert_int_equal(buf_free(p), -1);
	assert_int_equal(errno, ENOENT);
	assert_true(mapped(p, page()));
	assert_int_equal(munmap(p, page()), 0);
}

/* ---- the registry ---- */

static char undo_log[64];

static void log_undo(void *p, uint64_t bytes)
{
	char c[2] = { (char)bytes, '\0' };

	(void)p;
	strncat(undo_log, c, sizeof(undo_log) - strlen(undo_log) - 1);
}

static void log_other(void *p, uint64_t bytes)
{
	char c[2] = { (char)(bytes + 'A' - 'a'), '\0' };

	(void)p;
	strncat(undo_log, c, sizeof(undo_log) - strlen(undo_log) - 1);
}

static void test_free_runs_newest_first(void **state)
{
	static int x, y;

	(void)state;
	undo_log[0] = '\0';
	assert_int_equal(buf_track(&x, 'a', log_undo), 0);
	assert_int_equal(buf_track(&y, 'b', log_undo), 0);
	assert_int_equal(buf_track(&x, 'c', log_undo), 0); /* e.g. a registration on x */
	assert_int_equal(buf_free(&x), 0);
	assert_string_equal(undo_log, "ca"); /* only x's, newest first */
	assert_int_equal(buf_free(&y), 0);
	assert_string_equal(undo_log, "cab");
	errno = 0;
	assert_int_equal(buf_free(&x), -1); /* gone */
	assert_int_equal(errno, ENOENT);
	assert_int_equal(buf_free(NULL), 0);
}

static void test_untrack_forgets_one_step(void **state)
{
	static int x;

	(void)state;
	undo_log[0] = '\0';
	assert_int_equal(buf_track(&x, 'a', log_undo), 0);
	assert_int_equal(buf_track(&x, 'b', log_other), 0);
	assert_int_equal(buf_untrack(&x, log_other), 0); /* undone by hand */
	assert_int_equal(buf_untrack(&x, log_other), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(buf_free(&x), 0);
	assert_string_equal(undo_log, "a");
}

static void test_release_all_newest_first(void **state)
{
	static int x, y, z;

	(void)state;
	undo_log[0] = '\0';
	buf_track(&x, 'a', log_undo);
	buf_track(&y, 'b', log_undo);
	buf_track(&z, 'c', log_other);
	buf_release_all();
	assert_string_equal(undo_log, "Cba");
	assert_int_equal(buf_tracked(), 0);
	buf_release_all(); /* nothing left: harmless */
	assert_string_equal(undo_log, "Cba");
}

/* An undo that proves it ran by writing one byte to a pipe. */
static int undo_fd = -1;

static void undo_to_pipe(void *p, uint64_t bytes)
{
	char c = (char)bytes;

	(void)p;
	if (write(undo_fd, &c, 1) != 1)
		abort();
}

/* A pipe for undo_to_pipe; returns its read end. */
static int pipe_open(void)
{
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	undo_fd = fds[1];
	return fds[0];
}

/* Everything the undos wrote (their ends closed, so none is left), as a string. */
static void pipe_take(int rd, char *buf, size_t len)
{
	ssize_t n;

	close(undo_fd);
	undo_fd = -1;
	n = read(rd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(rd);
}

/* Forks; the child runs body and exits (atexit handlers and all); reaps it. */
static void fork_and_exit(void (*body)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		body();
		exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void track_two_and_rearm(void)
{
	static int x, y;

	buf_track(&x, 'x', undo_to_pipe);
	buf_track(&y, 'y', undo_to_pipe);
	buf_release_at_exit(); /* twice in the handler list: still once each */
}

static void test_exit_releases_the_rest(void **state)
{
	char got[16];
	int rd = pipe_open();

	(void)state;
	fork_and_exit(track_two_and_rearm);
	pipe_take(rd, got, sizeof(got));
	assert_string_equal(got, "yx");
}

static void track_own(void)
{
	static int y;

	buf_track(&y, 'c', undo_to_pipe); /* the child's own */
	if (buf_tracked() != 1)
		_exit(1);
}

static void test_forked_child_leaves_parents_buffers(void **state)
{
	static int x;
	char got[16];
	int rd = pipe_open();

	(void)state;
	buf_track(&x, 'p', undo_to_pipe); /* the parent's */
	fork_and_exit(track_own);
	assert_int_equal(buf_free(&x), 0); /* the parent's undo runs here, not there */
	pipe_take(rd, got, sizeof(got));
	assert_string_equal(got, "cp");
}

static void run_error_holding_a_buffer(struct lab *L)
{
	static int x;

	buf_track(&x, 'e', undo_to_pipe);
	lab_error(L, "the setup broke with a buffer held");
}

static void run_skip_holding_a_buffer(struct lab *L)
{
	static int x;

	buf_track(&x, 's', undo_to_pipe);
	lab_skip(L, SKIP_UNSUPPORTED, "no such feature here");
}

static const struct claim_spec one_claim[] = {
	{ "99.1", "ch1.Q1", "a claim", "ch1", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};
static const struct lab_spec one_spec = {
	.id = "99", .title = "buffer test", .timeout_s = 10, .claims = one_claim,
	.default_iters = 7,
};

static void check_lab_exit_releases(void (*run)(struct lab *), int code, const char *want)
{
	struct unit_lab u;
	char got[16];
	int rd = pipe_open();

	unit_run_lab(&one_spec, run, &u);
	pipe_take(rd, got, sizeof(got));
	assert_int_equal(u.exit_code, code);
	assert_string_equal(got, want);
	unit_lab_free(&u);
}

static void test_lab_error_releases(void **state)
{
	(void)state;
	check_lab_exit_releases(run_error_holding_a_buffer, 99, "e");
}

static void test_lab_skip_releases(void **state)
{
	(void)state;
	check_lab_exit_releases(run_skip_holding_a_buffer, 77, "s");
}

/* ---- the pattern ---- */

static void test_pattern_seeds_differ_everywhere(void **state)
{
	uint64_t i;

	(void)state;
	for (i = 0; i < 100000; i += 7) {
		assert_int_not_equal(buf_pattern_word(1, i), buf_pattern_word(2, i));
		assert_int_not_equal(buf_pattern_word(0, i), buf_pattern_word(0xffffffffu, i));
	}
	/* and within one seed the words are not one repeated value */
	assert_int_not_equal(buf_pattern_word(5, 0), buf_pattern_word(5, 1));
}

static void test_fill_verify_round_trip(void **state)
{
	static const uint64_t sizes[] = { 4, 5, 6, 7, 4096, 4099, 1 };
	unsigned char *p = malloc(8192);
	struct buf_check c;
	size_t k;

	(void)state;
	assert_non_null(p);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		memset(p, 0xee, 8192);
		buf_fill(p, sizes[k], 42);
		assert_int_equal(buf_verify(p, sizes[k], 42, 1, &c), 0);
		assert_int_equal(c.words, (sizes[k] + 3) / 4);
		assert_true(c.first_bad == UINT64_MAX);
		assert_int_equal(p[sizes[k]], 0xee); /* nothing written past the end */
		assert_true(buf_verify(p, sizes[k], 43, 1, NULL) > 0); /* another seed */
	}
	free(p);
}

static void test_fill_down_same_words(void **state)
{
	uint32_t a[1031], b[1031];

	(void)state;
	buf_fill(a, sizeof(a) - 2, 9);
	buf_fill_down(b, sizeof(b) - 2, 9);
	assert_memory_equal(a, b, sizeof(a) - 2);
	assert_int_equal(a[17], buf_pattern_word(9, 17));
}

/* Each refill sample writes the next seed, the whole buffer, and takes time. */
static void test_refill_sample_advances_the_seed(void **state)
{
	uint32_t w[4096];
	struct buf_refill f = { w, sizeof(w), 41 };

	(void)state;
	assert_true(buf_refill_sample(&f) > 0);
	assert_int_equal(f.seed, 42);
	assert_int_equal(buf_verify(w, sizeof(w), 42, 1, NULL), 0);
	assert_true(buf_refill_sample(&f) > 0);
	assert_int_equal(buf_verify(w, sizeof(w), 43, 1, NULL), 0);
}

static void test_verify_counts_and_locates(void **state)
{
	unsigned char p[4003];
	struct buf_check c;

	(void)state;
	buf_fill(p, sizeof(p), 7);
	p[401] ^= 1;          /* word 100, its second byte */
	p[402] ^= 1;          /* the same word: still one bad word */
	p[2000] ^= 0x80;      /* word 500 */
	p[4002] ^= 0x10;      /* the tail */
	assert_int_equal(buf_verify(p, sizeof(p), 7, 1, &c), 3);
	assert_int_equal(c.bad, 3);
	assert_int_equal(c.first_bad, 401);
	assert_int_equal(c.words, 1001);
}

static void test_verify_stride_reads_the_ends(void **state)
{
	uint32_t w[4096];
	struct buf_check c;

	(void)state;
	buf_fill(w, sizeof(w), 3);
	w[1] ^= 1;                 /* not read with stride 1024 */
	assert_int_equal(buf_verify(w, sizeof(w), 3, 1024, &c), 0);
	assert_int_equal(c.words, 5); /* 0, 1024, 2048, 3072 and the last */
	w[4095] ^= 1;              /* the last word always is */
	assert_int_equal(buf_verify(w, sizeof(w), 3, 1024, &c), 1);
	assert_int_equal(c.first_bad, 4095 * 4);
	assert_int_equal(buf_verify(w, sizeof(w), 3, 0, NULL), 2); /* 0 means 1 */
}

/* ---- the pattern on several threads (64 MiB and more) ---- */

/* Above buffer.c's threshold, and not a whole number of its 4 KiB parts. */
#define PAR_BYTES (64 * MiB + 4096 * 3 + 4 * 5 + 3)

/* A large buffer with a guard byte past its end, or a skip on one CPU. */
static unsigned char *large_buffer(void)
{
	cpu_set_t set;
	unsigned char *p;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) < 2)
		skip(); /* one CPU: buf_fill runs on one thread, nothing to compare */
	p = malloc(PAR_BYTES + 1);
	assert_non_null(p);
	p[PAR_BYTES] = 0xee;
	return p;
}

static void test_fill_threads_same_bytes(void **state)
{
	unsigned char *p = large_buffer(), *one = malloc(PAR_BYTES);
	uint32_t w;

	(void)state;
	assert_non_null(one);
	buf_fill(p, PAR_BYTES, 77);
	buf_fill_down(one, PAR_BYTES, 77); /* always one thread */
	assert_memory_equal(p, one, PAR_BYTES);
	assert_int_equal(p[PAR_BYTES], 0xee); /* nothing past the end */
	memcpy(&w, p + PAR_BYTES / 2 / 4 * 4, 4);
	assert_int_equal(w, buf_pattern_word(77, PAR_BYTES / 2 / 4));
	free(one);
	free(p);
}

static void test_verify_threads_count_and_first(void **state)
{
	unsigned char *p = large_buffer();
	uint64_t n = PAR_BYTES / 4, last = (n - 7) * 4;
	struct buf_check c;

	(void)state;
	buf_fill(p, PAR_BYTES, 5);
	assert_int_equal(buf_verify(p, PAR_BYTES, 5, 1, &c), 0);
	assert_int_equal(c.words, n + 1);
	assert_true(c.first_bad == UINT64_MAX);
	/* in the second half only (the later threads' parts): the first of these */
	p[last + 2] ^= 4;
	p[(n / 2 + 3000) * 4] ^= 1;
	assert_int_equal(buf_verify(p, PAR_BYTES, 5, 1, &c), 2);
	assert_int_equal(c.first_bad, (n / 2 + 3000) * 4);
	/* and the first thread's, both sides of the middle, the tail */
	p[4096 + 1] ^= 2;
	p[4096 + 3] ^= 2;          /* the same word */
	p[(n / 2 - 1) * 4] ^= 8;
	p[PAR_BYTES - 1] ^= 1;
	assert_int_equal(buf_verify(p, PAR_BYTES, 5, 1, &c), 5);
	assert_int_equal(c.bad, 5);
	assert_int_equal(c.first_bad, 4096 + 1);
	assert_int_equal(c.words, n + 1);
	free(p);
}

/* Strides that divide the 4 KiB parts (write-combined: one word a page) and one that does not. */
static void test_verify_threads_stride(void **state)
{
	static const uint64_t strides[] = { 1024, 1000 };
	unsigned char *p = large_buffer();
	uint64_t n = PAR_BYTES / 4, s, far;
	struct buf_check c;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(strides) / sizeof(strides[0]); k++) {
		s = strides[k];
		far = (n - n / 4) / s * s; /* a word read, in the last thread's part */
		buf_fill(p, PAR_BYTES, 9);
		p[(far + 1) * 4] ^= 1;  /* not read */
		assert_int_equal(buf_verify(p, PAR_BYTES, 9, s, &c), 0);
		/* every s-th word, the last whole word, the tail */
		assert_int_equal(c.words, (n + s - 1) / s + ((n - 1) % s != 0) + 1);
		p[far * 4 + 3] ^= 1;
		p[s * 4] ^= 1;          /* the second word read, the first thread's */
		assert_int_equal(buf_verify(p, PAR_BYTES, 9, s, &c), 2);
		assert_int_equal(c.first_bad, s * 4);
		p[s * 4] ^= 1;
		assert_int_equal(buf_verify(p, PAR_BYTES, 9, s, &c), 1);
		assert_int_equal(c.first_bad, far * 4 + 3);
	}
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_untouched_page_aligned),
		cmocka_unit_test(test_map_touch_writes_every_page),
		cmocka_unit_test(test_map_huge_aligned_nothing_around),
		cmocka_unit_test(test_map_rounds_mapping_to_pages),
		cmocka_unit_test(test_map_bad_arguments),
		cmocka_unit_test(test_map_untracked),
		cmocka_unit_test(test_free_runs_newest_first),
		cmocka_unit_test(test_untrack_forgets_one_step),
		cmocka_unit_test(test_release_all_newest_first),
		cmocka_unit_test(test_exit_releases_the_rest),
		cmocka_unit_test(test_forked_child_leaves_parents_buffers),
		cmocka_unit_test(test_lab_error_releases),
		cmocka_unit_test(test_lab_skip_releases),
		cmocka_unit_test(test_pattern_seeds_differ_everywhere),
		cmocka_unit_test(test_fill_verify_round_trip),
		cmocka_unit_test(test_fill_down_same_words),
		cmocka_unit_test(test_refill_sample_advances_the_seed),
		cmocka_unit_test(test_verify_counts_and_locates),
		cmocka_unit_test(test_verify_stride_reads_the_ends),
		cmocka_unit_test(test_map_touch_large_every_page),
		cmocka_unit_test(test_touch_on_threads_every_page),
		cmocka_unit_test(test_touch_threads_follow_the_nodes),
		cmocka_unit_test(test_fill_threads_same_bytes),
		cmocka_unit_test(test_verify_threads_count_and_first),
		cmocka_unit_test(test_verify_threads_stride),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
