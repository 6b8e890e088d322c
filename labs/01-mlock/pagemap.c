/*
 * pagemap.c - physically contiguous runs of a buffer from /proc/self/pagemap
 * (pagemap.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "lab.h"
#include "pagemap.h"

#define PAGEMAP_CHUNK 512 /* entries read per pread */

/* Running state of the scan, one entry at a time. */
struct run_scan {
	uint64_t prev_pfn; /* PFN of the previous page, 0: no run open */
	uint64_t cur_run;  /* pages in the run now open */
};

static void scan_entry(struct run_scan *s, uint64_t e, struct pagemap_runs *out)
{
	uint64_t pfn = e & PAGEMAP_PFN_MASK;

	/* Without the present bit the PFN field holds swap data, not a frame. */
	if (!(e & PAGEMAP_PRESENT)) {
		s->prev_pfn = 0;
		return;
	}
	out->present++;
	if (pfn == 0) { /* hidden by the kernel (no CAP_SYS_ADMIN) */
		s->prev_pfn = 0;
		return;
	}
	out->pfn_visible = 1;
	if (s->prev_pfn && pfn == s->prev_pfn + 1) {
		s->cur_run++;
	} else {
		out->runs++;
		s->cur_run = 1;
	}
	if (s->cur_run > out->longest_run)
		out->longest_run = s->cur_run;
	s->prev_pfn = pfn;
}

/* Read entries [first, first + n) of the pagemap and feed them to the scan. */
static int scan_pagemap(int fd, uint64_t first, uint64_t n, struct pagemap_runs *out)
{
	uint64_t buf[PAGEMAP_CHUNK];
	struct run_scan s = { 0, 0 };
	uint64_t done = 0;

	while (done < n) {
		uint64_t want = n - done < PAGEMAP_CHUNK ? n - done : PAGEMAP_CHUNK;
		off_t off = (off_t)((first + done) * sizeof(uint64_t));
		ssize_t got = pread(fd, buf, want * sizeof(uint64_t), off);

		if (got < 0)
			return -1;
		if (got == 0 || got % sizeof(uint64_t)) {
			errno = EINVAL; /* the file ends inside the range */
			return -1;
		}
		for (uint64_t i = 0; i < (uint64_t)got / sizeof(uint64_t); i++)
			scan_entry(&s, buf[i], out);
		done += (uint64_t)got / sizeof(uint64_t);
	}
	return 0;
}

int pagemap_count_runs(const char *pagemap_path, uintptr_t addr, size_t len,
		       size_t page_size, struct pagemap_runs *out)
{
	uint64_t first, last;
	int fd, rc, saved;

	if (!out || page_size == 0 || (page_size & (page_size - 1))) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (len == 0)
		return 0;
	if (addr + len < addr) {
		errno = EINVAL;
		return -1;
	}
	first = addr / page_size;
	last = (addr + len - 1) / page_size;
	out->pages = last - first + 1;
	fd = open(pagemap_path ? pagemap_path : "/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = scan_pagemap(fd, first, out->pages, out);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int pagemap_runs_of(const void *p, uint64_t bytes, struct pagemap_runs *out)
{
	if (bytes > SIZE_MAX) {
		errno = EINVAL;
		return -1;
	}
	return pagemap_count_runs(NULL, (uintptr_t)p, (size_t)bytes,
				  (size_t)sysconf(_SC_PAGESIZE), out);
}

const char *pagemap_pfns_denied(char *detail, size_t len)
{
	if (geteuid() == 0)
		return NULL;
	snprintf(detail, len, "euid %d: /proc/self/pagemap shows PFN 0 to non-root",
		 (int)geteuid());
	return SKIP_NOT_ROOT;
}

const char *pagemap_runs_unknown(const struct pagemap_runs *r, char *detail, size_t len)
{
	if (r->present == 0) {
		snprintf(detail, len, "/proc/self/pagemap shows none of the %llu pages as present",
			 (unsigned long long)r->pages);
		return SKIP_UNSUPPORTED;
	}
	if (!r->pfn_visible) {
		snprintf(detail, len, "/proc/self/pagemap shows PFN 0 (no CAP_SYS_ADMIN)");
		return SKIP_NO_CAPABILITY;
	}
	return NULL;
}
