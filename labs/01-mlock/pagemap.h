/*
 * pagemap.h - where a buffer lies in physical memory: its page frames, from
 * /proc/self/pagemap, as runs of physically consecutive frames.
 *
 * A DMA engine moves one physically contiguous run per segment, so the runs
 * of a buffer say how many segments a transfer of it takes: one for a
 * buffer the driver allocated as one block, about one per page for
 * ordinary anonymous memory.
 *
 * The file holds one 64-bit entry per virtual page (the kernel's
 * Documentation/admin-guide/mm/pagemap.rst): bit 63 "present", bit 62
 * "swapped", bits 0-54 the page frame number (PFN) of a present page.
 * Since Linux 4.2 the PFN reads as 0 without CAP_SYS_ADMIN, so the layout
 * is known only to root with that capability; in a VM the frames are the
 * guest's, not the host's.  A driver mapping (VM_PFNMAP) reads as a hole:
 * no page present.
 *
 * Every scan takes the file's path, so the unit tests feed a fake pagemap;
 * NULL means the live /proc/self/pagemap.
 * Errors: -1 with errno set (EINVAL for a bad argument or a file that ends
 * inside the range, or open/pread's own).
 */
#ifndef DMALAB_PAGEMAP_H
#define DMALAB_PAGEMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAGEMAP_PRESENT  (1ULL << 63)
#define PAGEMAP_SWAPPED  (1ULL << 62)
#define PAGEMAP_PFN_MASK ((1ULL << 55) - 1)

/* What a scan of [addr, addr + len) found; counts in pages. */
struct pagemap_runs {
	uint64_t pages;       /* pages the range touches */
	uint64_t present;     /* of them, pages with the present bit */
	uint64_t runs;        /* maximal runs of physically consecutive frames */
	uint64_t longest_run; /* pages in the longest run */
	int pfn_visible;      /* 0 if every present page read PFN 0 (hidden) */
};

/*
 * Scan the entries of every page that [addr, addr + len) touches (addr
 * need not be page-aligned) in the pagemap file at pagemap_path (NULL:
 * /proc/self/pagemap), page_size bytes a page (a power of two).  Runs are
 * counted over visible PFNs only: a page that is not present, or whose PFN
 * reads 0, ends a run and starts none, so with every PFN hidden runs and
 * longest_run stay 0.  len 0 gives all zeros.  Returns 0, or -1 with errno
 * (EINVAL: page_size not a power of two, the range wraps past 2^64, or the
 * file ends inside it).
 */
int pagemap_count_runs(const char *pagemap_path, uintptr_t addr, size_t len,
		       size_t page_size, struct pagemap_runs *out);

/* pagemap_count_runs on this process's live pagemap, at the system's page
 * size, for `bytes` at p.  Touch the pages first: an untouched page is not
 * present. */
int pagemap_runs_of(const void *p, uint64_t bytes, struct pagemap_runs *out);

/*
 * Why the live pagemap will show no frames to this process, as a skip code
 * of lab.h, or NULL when it may: SKIP_NOT_ROOT for an effective uid other
 * than 0 (detail: "euid N: /proc/self/pagemap shows PFN 0 to non-root").
 * Root without CAP_SYS_ADMIN is found only by a scan (pagemap_runs_unknown).
 */
const char *pagemap_pfns_denied(char *detail, size_t len);

/*
 * Why a scan says nothing about the physical layout, as a skip code of
 * lab.h, or NULL when its runs are the layout: SKIP_UNSUPPORTED when no
 * page is present (a driver mapping pagemap does not show), SKIP_NO_CAPABILITY
 * when every PFN read 0 (no CAP_SYS_ADMIN).  detail says what was seen.
 */
const char *pagemap_runs_unknown(const struct pagemap_runs *r, char *detail, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_PAGEMAP_H */
