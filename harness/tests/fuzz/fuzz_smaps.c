/*
 * fuzz_smaps.c - the /proc/self/smaps reader (smaps_range_read) on any
 * file, for fixed ranges (everything, one 2 MiB block) and ranges made from
 * the input's first mapping line (that mapping, its first byte, one byte
 * past its end); smaps_thp_possible on each result and smaps_thp_expected
 * on numbers taken from the input.
 *
 * Checked: a range that wraps is refused, the mappings found span [lo, hi)
 * with lo < hi, and thp_expected never exceeds the range.
 */
#include <inttypes.h>

#include "fuzz_util.h"
#include "../../../labs/08-hugepages/thp.h" /* smaps.h, and the lab's THP reading */

static void range(const char *path, uint64_t addr, uint64_t len)
{
	struct smaps_range r;

	if (smaps_range_read(path, addr, len, &r) != 0) {
		return;
	}
	if (len == 0 || addr + len < addr)
		abort(); /* must have been refused */
	if (r.vmas < 0 || (r.vmas && r.lo >= r.hi) || r.thp_eligible < -1 || r.thp_eligible > 1)
		abort();
	smaps_thp_possible(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("smaps", data, size);
	char *text = fuzz_cstr(data, size);
	unsigned long long lo = 0, hi = 0;
	uint64_t n[3] = { 0, 0, 0 };

	range(path, 0, UINT64_MAX);
	range(path, 0x200000, 0x200000);
	range(path, 1, UINT64_MAX);
	range(path, 5, 0);
	if (sscanf(text, "%llx-%llx", &lo, &hi) == 2) {
		range(path, lo, hi - lo);
		range(path, lo, 1);
		range(path, hi, 1);
	}
	memcpy(n, data, size < sizeof(n) ? size : sizeof(n));
	for (int i = 0; i < 3; i++) {
		uint64_t pmd = n[2] ? (1ULL << (n[2] % 64)) : 0x200000;
		uint64_t a = n[i], l = n[(i + 1) % 3];

		if (smaps_thp_expected(a, l, pmd) > l)
			abort();
	}
	free(text);
	return 0;
}
