/*
 * test_lab_cufile.c - cufile.h (lab-10) without a GPU: cufile.h's error
 * codes by name (a negative cuFileRead return too), the per-GPU block of
 * the level-3 statistics found in the 12.x and 13.x layouts and not in
 * the level-1 block, the mode from the counts or by elimination, what the
 * configuration asks for in words, the log's last error line, and a
 * machine without libcufile: open says why, close is safe on anything and
 * leaves nothing for the exit handler to touch (the lab may free it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/10-storage/cufile.h"

static void test_error_names(void **state)
{
	char buf[200];

	lab_cufile_err_text(5027, buf, sizeof(buf));
	assert_non_null(strstr(buf, "CU_FILE_HANDLE_NOT_REGISTERED (5027: "));
	lab_cufile_err_text(5030, buf, sizeof(buf));
	assert_string_equal(buf, "CU_FILE_INTERNAL_ERROR (5030)");
	lab_cufile_err_text(5021, buf, sizeof(buf));
	assert_string_equal(buf, "error 5021 (not in cufile.h's list)");
}

/* A level-3 block: level 1 of l1_words, the two histograms, num_gpus, then
 * GPU 0's block: uuid, read_bytes, bw, util, duration, total, p2p, nvfs, posix. */
static size_t fake_l3(uint64_t *w, size_t l1_words, uint64_t bytes, uint64_t posix,
		      uint64_t nvfs)
{
	size_t g = l1_words + 64 + 1;

	memset(w, 0, 8192 * sizeof(*w));
	w[12] = bytes;           /* level 1's read_bytes: the same value, too early */
	w[g] = 0x1234;           /* uuid */
	w[g + 1] = 0x5678;
	w[g + 2] = bytes;
	w[g + 6] = posix + nvfs; /* n_total_reads */
	w[g + 8] = nvfs;
	w[g + 9] = posix;
	return g + 2;
}

static void test_find_gpu_stats(void **state)
{
	static uint64_t w[8192];
	long long n[3];

	fake_l3(w, 78, 64 << 20, 4, 0);  /* 13.x: level 1 is 624 bytes */
	assert_int_equal(lab_cufile_find_gpu_stats(w, 8192, 64 << 20, n), 0);
	assert_int_equal(n[0], 0);
	assert_int_equal(n[1], 0);
	assert_int_equal(n[2], 4);
	fake_l3(w, 64, 64 << 20, 0, 4);  /* 12.x: 512 bytes */
	assert_int_equal(lab_cufile_find_gpu_stats(w, 8192, 64 << 20, n), 0);
	assert_int_equal(n[1], 4);
	assert_int_equal(n[2], 0);
	assert_int_equal(lab_cufile_find_gpu_stats(w, 8192, 32 << 20, n), -1); /* other bytes */
	assert_int_equal(lab_cufile_find_gpu_stats(w, 8192, 0, n), -1);        /* no read */
	memset(w, 0, sizeof(w));
	w[12] = 64 << 20;
	assert_int_equal(lab_cufile_find_gpu_stats(w, 8192, 64 << 20, n), -1); /* level 1 only */
}

static void test_mode(void **state)
{
	struct lab_cufile c;

	memset(&c, 0, sizeof(c));
	c.cfg[0] = 1;
	c.cfg[1] = 0;
	c.cfg[2] = 0;
	c.n_posix = c.n_nvfs = c.n_p2p = -1;
	c.nvfs_loaded = 0;
	c.kernel_p2pdma = 1;                           /* but not asked for */
	assert_string_equal(lab_cufile_mode(&c), "compat"); /* by elimination */
	assert_int_equal(lab_cufile_dma_possible(&c), 0);
	c.cfg[2] = 1;
	assert_string_equal(lab_cufile_mode(&c), "unknown");
	c.cfg[1] = 1;                                  /* forced */
	assert_string_equal(lab_cufile_mode(&c), "compat");
	c.cfg[1] = -1;
	c.nvfs_loaded = -1;                            /* cannot tell: could be */
	assert_int_equal(lab_cufile_dma_possible(&c), 1);
	c.n_posix = 8, c.n_nvfs = 0, c.n_p2p = 0;
	assert_string_equal(lab_cufile_mode(&c), "compat");
	c.n_posix = 1, c.n_nvfs = 7;
	assert_string_equal(lab_cufile_mode(&c), "nvidia-fs");
	c.n_nvfs = 0, c.n_p2p = 7;
	assert_string_equal(lab_cufile_mode(&c), "P2PDMA");
	c.n_posix = c.n_nvfs = c.n_p2p = 0;
	assert_string_equal(lab_cufile_mode(&c), "unknown");
}

static void test_asked(void **state)
{
	struct lab_cufile c;
	char buf[200];

	memset(&c, 0, sizeof(c));
	c.cfg[0] = 1, c.cfg[1] = 0, c.cfg[2] = 0;
	lab_cufile_asked(&c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "DMA where it can, else compatibility mode: "
				    "allow_compat_mode 1, force_compat_mode 0, use_pci_p2pdma 0"));
	c.cfg[1] = 1;
	assert_non_null(strstr(lab_cufile_asked(&c, buf, sizeof(buf)), "compatibility mode only"));
	c.cfg[0] = 0, c.cfg[1] = 0, c.cfg[2] = 1;
	assert_non_null(strstr(lab_cufile_asked(&c, buf, sizeof(buf)),
			       "DMA only, no fallback to compatibility mode, DMA by PCI P2PDMA"));
	c.cfg[0] = c.cfg[1] = c.cfg[2] = -1;
	assert_non_null(strstr(lab_cufile_asked(&c, buf, sizeof(buf)), "(not reported)"));
}

static void test_log_error(void **state)
{
	char path[] = "/tmp/dmalab-cufile-log-XXXXXX", buf[200];
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	fputs(" 01-02-2026 10:00:00:001 [pid=1 tid=1] NOTICE  cufio: started\n"
	      " 01-02-2026 10:00:00:002 [pid=1 tid=1] ERROR  cufio-fs:123 ext4 not supported \n"
	      " 01-02-2026 10:00:00:003 [pid=1 tid=1] WARN  cufio: a warning\n", f);
	fclose(f);
	assert_string_equal(lab_cufile_log_error(path, buf, sizeof(buf)),
			    "ERROR  cufio-fs:123 ext4 not supported");
	assert_non_null(f = fopen(path, "w"));
	fputs("[pid=1] WARN  only a warning\n", f);
	fclose(f);
	assert_string_equal(lab_cufile_log_error(path, buf, sizeof(buf)), "WARN  only a warning");
	unlink(path);
	assert_string_equal(lab_cufile_log_error(path, buf, sizeof(buf)), "");
	assert_string_equal(lab_cufile_log_error(NULL, buf, sizeof(buf)), "");
}

static void test_open_without_library(void **state)
{
	struct lab_cufile c, probe;

	memset(&probe, 0, sizeof(probe));
	if (lab_cufile_load(&probe)) /* a machine with GDS installed */
		skip();
	assert_int_equal(lab_cufile_open(&c, -1, NULL, 0, NULL, "t"), 0);
	assert_non_null(strstr(c.config, "cufile.json"));
	assert_non_null(strstr(c.why, "libcufile.so.0 not found"));
	assert_int_equal(c.driver_open, 0);
	assert_int_equal(c.n_posix, -1);
	assert_string_equal(lab_cufile_mode(&c), "unknown"); /* nothing known: could be DMA */
	lab_cufile_close(&c);
	lab_cufile_close(&c);
	memset(&c, 0, sizeof(c));
	lab_cufile_close(&c); /* never opened */
	lab_cufile_open_one_ = &c; /* as an open leaves it: closed, the exit handler forgets c */
	lab_cufile_close(&c);
	assert_null(lab_cufile_open_one_);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_names),
		cmocka_unit_test(test_find_gpu_stats),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_asked),
		cmocka_unit_test(test_log_error),
		cmocka_unit_test(test_open_without_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
