/*
 * test_smaps.c - smaps.h: the mappings over a range and their huge-page
 * counters from a fake smaps file, the most THP a range can hold, whether
 * its mappings may hold any; and the live file on a buffer of our own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "lab.h"
#include "unit_lab.h"
#include "../../../labs/08-hugepages/thp.h" /* smaps.h, and the lab's THP reading */

/* Three mappings: a THP one with huge pages, a 4 KiB-only one beside it, a file. */
static const char fake[] =
	"7f0000000000-7f0000600000 rw-p 00000000 00:00 0 \n"
	"Size:               6144 kB\n"
	"Rss:                6144 kB\n"
	"AnonHugePages:      4096 kB\n"
	"Private_Hugetlb:       0 kB\n"
	"THPeligible:    1\n"
	"VmFlags: rd wr mr mw me ac hg \n"
	"7f0000600000-7f0000a00000 rw-p 00000000 00:00 0 \n"
	"Rss:                1024 kB\n"
	"AnonHugePages:         0 kB\n"
	"Anonymous:          1024 kB\n"
	"THPeligible:    0\n"
	"VmFlags: rd wr mr mw me ac nh\n"
	"7f0000a00000-7f0000c00000 r--p 00000000 fe:00 1234    /usr/lib/libfoo.so\n"
	"Rss:                  8 kB\n"
	"Private_Hugetlb:    2048 kB\n"
	"THPeligible:    0\n"
	"VmFlags: rd mr mw me\n";

static char path[64];

static int setup(void **state)
{
	unit_write_temp(fake, path, sizeof(path));
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void test_one_mapping_exactly(void **state)
{
	struct smaps_range r;

	assert_int_equal(smaps_range_read(path, 0x7f0000000000ULL, 6 * MiB, &r), 0);
	assert_int_equal(r.vmas, 1);
	assert_int_equal(r.anon_huge, 4 * MiB);
	assert_int_equal(r.rss, 6 * MiB);
	assert_int_equal(r.thp_eligible, 1);
	assert_int_equal(r.hugeadv, 1);
	assert_int_equal(r.nohuge, 0);
	assert_int_equal(r.spills, 0);
	assert_int_equal(smaps_thp_possible(&r), 1);
}

static void test_inside_a_mapping_spills(void **state)
{
	struct smaps_range r;

	assert_int_equal(smaps_range_read(path, 0x7f0000200000ULL, 2 * MiB, &r), 0);
	assert_int_equal(r.vmas, 1);
	assert_int_equal(r.spills, 1); /* its counters cover 6 MiB, not the 2 asked */
	assert_int_equal(r.lo, 0x7f0000000000ULL);
	assert_int_equal(r.hi, 0x7f0000600000ULL);
}

static void test_two_mappings_summed(void **state)
{
	struct smaps_range r;

	assert_int_equal(smaps_range_read(path, 0x7f0000000000ULL, 10 * MiB, &r), 0);
	assert_int_equal(r.vmas, 2);
	assert_int_equal(r.anon_huge, 4 * MiB);
	assert_int_equal(r.rss, 7 * MiB);
	assert_int_equal(r.thp_eligible, 1); /* one of them may */
	assert_int_equal(r.nohuge, 0);       /* not every one is nh */
}

static void test_nohuge_mapping(void **state)
{
	struct smaps_range r;

	assert_int_equal(smaps_range_read(path, 0x7f0000600000ULL, 4 * MiB, &r), 0);
	assert_int_equal(r.vmas, 1);
	assert_int_equal(r.nohuge, 1);
	assert_int_equal(r.hugeadv, 0);
	assert_int_equal(r.thp_eligible, 0);
	assert_int_equal(smaps_thp_possible(&r), 0);
}

static void test_hugetlb_counted(void **state)
{
	struct smaps_range r;

	assert_int_equal(smaps_range_read(path, 0x7f0000a00000ULL, 2 * MiB, &r), 0);
	assert_int_equal(r.hugetlb, 2 * MiB);
	assert_int_equal(r.anon_huge, 0);
}

static void test_nothing_mapped(void **state)
{
	struct smaps_range r;

	assert_int_equal(smaps_range_read(path, 0x1000, 4096, &r), 0);
	assert_int_equal(r.vmas, 0);
	assert_int_equal(smaps_thp_possible(&r), 0);
	assert_int_equal(smaps_range_read(path, 0x1000, 0, &r), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(smaps_range_read("/nonexistent/smaps", 0x1000, 1, &r), -1);
	assert_int_equal(errno, ENOENT);
}

/* Without THPeligible (old kernels) "nh" on every mapping decides. */
static void test_old_kernel_without_eligible(void **state)
{
	static const char old[] =
		"1000000-1400000 rw-p 00000000 00:00 0\n"
		"AnonHugePages:      0 kB\n"
		"VmFlags: rd wr nh\n";
	char p[64];
	struct smaps_range r;

	unit_write_temp(old, p, sizeof(p));
	assert_int_equal(smaps_range_read(p, 0x1000000, 4 * MiB, &r), 0);
	assert_int_equal(r.thp_eligible, -1);
	assert_int_equal(r.nohuge, 1);
	assert_int_equal(smaps_thp_possible(&r), 0);
	unlink(p);
}

static void test_expected(void **state)
{
	assert_int_equal(smaps_thp_expected(0x200000, 8 * MiB, 2 * MiB), 8 * MiB);
	assert_int_equal(smaps_thp_expected(0x201000, 8 * MiB, 2 * MiB), 6 * MiB);
	assert_int_equal(smaps_thp_expected(0x200000, 8 * MiB + 4096, 2 * MiB), 8 * MiB);
	assert_int_equal(smaps_thp_expected(0x200000, 1 * MiB, 2 * MiB), 0);
	assert_int_equal(smaps_thp_expected(0x201000, 2 * MiB, 2 * MiB), 0);
	assert_int_equal(smaps_thp_expected(0x200000, 4 * MiB, 0), 0);
	assert_int_equal(smaps_thp_expected(UINT64_MAX - 4095, 8192, 2 * MiB), 0);
}

/*
 * A header longer than any fixed line buffer (a mapped file with a long
 * path) whose path ends in "Rss: 9999 kB": the whole line is one header,
 * so only the mapping's own "Rss: 8 kB" counts (fgets into 1024 bytes read
 * the tail as a key line and summed 10007 KiB).
 */
static void test_long_header_line(void **state)
{
	static const char head[] = "1000000-1400000 r--p 00000000 fe:00 77 /";
	static const char tail[] = "aRss: 9999 kB\n"
				   "Rss:                   8 kB\n"
				   "VmFlags: rd mr mw me\n";
	/* path lengths around the old split (982: "Rss:" starts byte 1023), and past it */
	static const size_t pads[] = { 900, 981, 982, 983, 1000, 2047, 3000 };
	char text[4096], p[64];
	size_t i, at;
	struct smaps_range r;

	for (i = 0; i < sizeof(pads) / sizeof(pads[0]); i++) {
		at = sizeof(head) - 1;
		memcpy(text, head, at);
		memset(text + at, 'x', pads[i]);
		memcpy(text + at + pads[i], tail, sizeof(tail));
		unit_write_temp(text, p, sizeof(p));
		assert_int_equal(smaps_range_read(p, 0x1000000, 4 * MiB, &r), 0);
		assert_int_equal(r.vmas, 1);
		assert_int_equal(r.rss, 8 * 1024);
		unlink(p);
	}
}

/* The live file: a mapping we marked MADV_NOHUGEPAGE holds no huge page. */
static void test_live_nohuge(void **state)
{
	uint64_t len = 8 * MiB;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct smaps_range r;

	assert_true(p != MAP_FAILED);
	if (madvise(p, len, MADV_NOHUGEPAGE) < 0) { /* a kernel without THP */
		munmap(p, len);
		skip();
	}
	memset(p, 1, len);
	assert_int_equal(smaps_range_read(NULL, (uintptr_t)p, len, &r), 0);
	assert_true(r.vmas >= 1);
	assert_int_equal(r.anon_huge, 0);
	assert_int_equal(r.nohuge, 1);
	assert_int_equal(smaps_thp_possible(&r), 0);
	munmap(p, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_mapping_exactly),
		cmocka_unit_test(test_inside_a_mapping_spills),
		cmocka_unit_test(test_two_mappings_summed),
		cmocka_unit_test(test_nohuge_mapping),
		cmocka_unit_test(test_hugetlb_counted),
		cmocka_unit_test(test_nothing_mapped),
		cmocka_unit_test(test_old_kernel_without_eligible),
		cmocka_unit_test(test_expected),
		cmocka_unit_test(test_long_header_line),
		cmocka_unit_test(test_live_nohuge),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
