/*
 * smaps.h - what /proc/self/smaps says about the pages behind one buffer:
 * how much of it transparent huge pages back (AnonHugePages), whether its
 * mapping may hold them at all (THPeligible, VmFlags "hg" and "nh"), and how
 * much THP could back at most, given its size and alignment.
 *
 * Why a lab reads it: madvise(MADV_HUGEPAGE) is advice.  The kernel backs a
 * 2 MiB-aligned block with a huge page only when it finds a free 2 MiB block
 * of memory (or compacts one, as the defrag setting allows); otherwise it
 * falls back to 4 KiB pages without a word.  A claim about huge pages is
 * proven only by the mapping's own counters, read after the pages exist.
 *
 * Sizes in bytes.  Errors: -1 with errno (the file's open errno, EINVAL for
 * a mapping line that does not parse, ERANGE for len 0 or a range that wraps).
 */
#ifndef DMALAB_SMAPS_H
#define DMALAB_SMAPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mappings (VMAs) that overlap a range, their counters summed. */
struct smaps_range {
	int vmas;             /* mappings overlapping the range; 0: nothing is mapped there */
	uint64_t rss;         /* Rss, bytes */
	uint64_t anon_huge;   /* AnonHugePages, bytes: anonymous memory in PMD-sized THPs */
	uint64_t hugetlb;     /* Private_Hugetlb + Shared_Hugetlb, bytes: hugetlbfs pages */
	int thp_eligible;     /* 1 when any says "THPeligible: 1", 0 when all say 0,
			       * -1 when none has the line (kernels before 5.0) */
	int nohuge;           /* 1 when every one carries VmFlags "nh" (MADV_NOHUGEPAGE) */
	int hugeadv;          /* 1 when any carries VmFlags "hg" (MADV_HUGEPAGE) */
	int spills;           /* 1 when a mapping reaches outside the range: its counters
			       * may count pages that are not the range's */
	uint64_t lo, hi;      /* the span of those mappings, [lo, hi) */
};

/*
 * Read the mappings of an smaps file (NULL: /proc/self/smaps) that overlap
 * [addr, addr + len).  0 (r->vmas may be 0), or -1 with errno.
 */
int smaps_range_read(const char *path, uint64_t addr, uint64_t len, struct smaps_range *r);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_SMAPS_H */
