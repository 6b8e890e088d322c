/*
 * thp.c - what lab-08 reads of its huge pages: the THP smaps can show for a
 * range, and /proc/meminfo (see thp.h).
 */
#include <stdint.h>

#include "thp.h"

uint64_t smaps_thp_expected(uint64_t addr, uint64_t len, uint64_t pmd)
{
	uint64_t first, end;

	if (!pmd || addr + len < addr)
		return 0;
	first = (addr + pmd - 1) & ~(pmd - 1);
	end = (addr + len) & ~(pmd - 1);
	return first < addr || end <= first ? 0 : end - first;
}

int smaps_thp_possible(const struct smaps_range *r)
{
	if (!r->vmas)
		return 0;
	if (r->thp_eligible >= 0)
		return r->thp_eligible;
	return !r->nohuge;
}

int proc_meminfo(const char *key, uint64_t *bytes)
{
	return procfs_read_kb_field("/proc/meminfo", key, bytes);
}
