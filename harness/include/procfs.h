/*
 * procfs.h - readers for the /proc and /sys files dmalab decides on.
 *
 * Every reader takes the path (or a root directory) so the tests can point it
 * at fixture trees under harness/tests/fixtures/.  Values are returned in
 * bytes even where the file says kB.  On error: -1 and errno set (ENOENT for a
 * missing file or key, EINVAL for a line that does not parse).
 */
#ifndef DMALAB_PROCFS_H
#define DMALAB_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Value of "Key:   1234 kB" in a /proc/<pid>/status or /proc/meminfo style
 * file, in bytes (a value without "kB" is returned as is, e.g. HugePages_Total).
 */
int procfs_read_kb_field(const char *path, const char *key, uint64_t *bytes);
/* Shorthands on the live files. */
int proc_self_status(const char *key, uint64_t *bytes); /* VmLck, VmRSS, VmPin */
int proc_meminfo(const char *key, uint64_t *bytes);     /* Mlocked, Unevictable */

/* Current THP mode from "always [madvise] never": writes "madvise" etc. */
int sysfs_thp_mode(const char *path, char *mode, size_t len);
/* Read a whole small file (trailing newline stripped) into buf. */
int sysfs_read_str(const char *path, char *buf, size_t len);
int sysfs_read_long(const char *path, long *v);

/*
 * Physical contiguity of [addr, addr+len) from /proc/self/pagemap (needs
 * root for PFNs; without CAP_SYS_ADMIN the kernel reports PFN 0).  Counts
 * pages present, runs of consecutive PFNs, and the longest run (in pages).
 * pagemap_path lets tests feed a fixture; NULL means /proc/self/pagemap.
 */
struct pagemap_runs {
	uint64_t pages;       /* pages in the range */
	uint64_t present;     /* pages with the present bit */
	uint64_t runs;        /* maximal runs of physically consecutive pages */
	uint64_t longest_run; /* pages in the longest run */
	int pfn_visible;      /* 0 if every PFN read as 0 (no privilege) */
};
int pagemap_count_runs(const char *pagemap_path, uintptr_t addr, size_t len,
		       size_t page_size, struct pagemap_runs *out);

/* Capability bit (e.g. CAP_IPC_LOCK = 14) in CapEff of a status file. */
int procfs_cap_effective(const char *status_path, int cap, int *has);

#ifdef __cplusplus
}
#endif
#endif
