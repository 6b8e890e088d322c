/*
 * procfs.h - readers for the /proc and /sys files dmalab decides on: keyed
 * values ("VmLck:  4 kB"), numbers, the THP mode, and this process's right
 * to lock memory.  Every reader takes its path (or a root) so that the tests
 * can point it at fixtures.  Values in bytes even where the file says kB.
 * Errors: -1 with errno (ENOENT: a missing file or key; EINVAL: no parse).
 */
#ifndef DMALAB_PROCFS_H
#define DMALAB_PROCFS_H

#include <stddef.h>
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

/* Current THP mode from "always [madvise] never": writes "madvise" etc. */
int sysfs_thp_mode(const char *path, char *mode, size_t len);
/* A number read by sysfs_read_str (sysfs.h): decimal, or hex with "0x". */
int sysfs_read_long(const char *path, long *v);
/* Copy src into dst (len bytes), cutting it if it is longer. */
void copy_str(char *dst, size_t len, const char *src);

/* Capability bit (e.g. CAP_IPC_LOCK = 14) in CapEff of a status file. */
int procfs_cap_effective(const char *status_path, int cap, int *has);

/* ---- This process's right to lock memory ---- */

/* 1 if cap (CAP_IPC_LOCK ...) is in CapEff of /proc/self/status; 0 if not,
 * or when that cannot be read. */
int procfs_self_has_cap(int cap);
/* The soft RLIMIT_MEMLOCK in bytes; -1 when unlimited (or unreadable). */
int64_t procfs_memlock_limit(void);
/* The hard RLIMIT_MEMLOCK, the most a job may raise its soft limit to
 * without privilege; -1 when unlimited (or unreadable). */
int64_t procfs_memlock_hard_limit(void);
/* A limit of procfs_memlock_limit's kind as text: "64 KiB", "0 B", or
 * "unlimited" when negative.  Returns buf (>= 32 bytes). */
const char *procfs_limit_text(int64_t limit, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
