/*
 * fuzz_pagemap.c - the /proc/self/pagemap scan (pagemap_count_runs) on a
 * fake pagemap: the input's first 17 bytes choose the range (8 bytes of
 * address, 8 of length, 1 of page size as a shift), the rest is the file of
 * 64-bit entries (any length, so files that end inside an entry or inside
 * the range too); then pagemap_runs_unknown on the result.
 *
 * Checked: a page size that is no power of two and a range that wraps are
 * refused; the counts hold runs <= present <= pages, longest_run <= present,
 * and pages is the number of pages the range touches.
 */
#include "fuzz_util.h"
#include "../../../labs/01-mlock/pagemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t addr = 0, len = 0;
	unsigned shift = 12;
	size_t page;
	struct pagemap_runs r;
	const char *path;
	char detail[128];

	if (size < 17)
		return 0;
	memcpy(&addr, data, 8);
	memcpy(&len, data + 8, 8);
	shift = data[16];
	/* keep most ranges within the file: the fuzzer still reaches any length */
	if (!(shift & 0x80))
		len %= (uint64_t)(size + 64) << (shift % 24);
	page = shift & 0x40 ? (size_t)shift : (size_t)1 << (shift % 24);
	path = fuzz_file("pagemap", data + 17, size - 17);
	if (pagemap_count_runs(path, (uintptr_t)addr, (size_t)len, page, &r) != 0)
		return 0;
	if (page == 0 || (page & (page - 1)))
		abort();
	if (len && addr + len < addr)
		abort();
	if (r.runs > r.present || r.present > r.pages || r.longest_run > r.present ||
	    (len && r.pages != (addr + len - 1) / page - addr / page + 1) || (!len && r.pages))
		abort();
	pagemap_runs_unknown(&r, detail, sizeof(detail));
	return 0;
}
