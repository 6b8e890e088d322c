/*
 * procfs.h - readers for the /proc and /sys files dmalab decides on: locked
 * memory as this process and the machine count it, and this process's
 * right to lock.  Every reader takes its path (or a root) so that the tests
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

/* ---- Locked memory, as this process and the machine count it ---- */

/* This process's counters in a status file, bytes. */
struct procfs_vm {
	uint64_t lck; /* VmLck: pages locked by mlock and mlockall */
	uint64_t pin; /* VmPin: pages pinned in mm->pinned_vm (an RDMA
		       * registration); 0 where the file has no VmPin */
	uint64_t rss; /* VmRSS: pages resident */
};
/* VmLck and VmRSS (both must be there) and VmPin of a status file (NULL:
 * /proc/self/status).  0, or -1 with errno (ENOENT: a key is missing). */
int procfs_vm_read(const char *status_path, struct procfs_vm *v);

/*
 * /proc/meminfo's page counters (Mlocked, Unevictable ...) are sums that
 * each CPU updates only when its own diff for a zone passes a threshold
 * (mm/vmstat.c; at most PROCFS_VMSTAT_THRESHOLD_MAX pages), so a read can
 * miss up to that many pages per CPU and zone.  Writing vm.stat_refresh
 * (root) folds every diff in at once.
 */
#define PROCFS_VMSTAT_THRESHOLD_MAX 125

/* Write "1" to path (NULL: /proc/sys/vm/stat_refresh): 1 if the counters were
 * folded (EINVAL too: a counter was negative after it), else 0. */
int procfs_stat_refresh(const char *path);

/*
 * Munlocked pages wait in per-CPU batches (mm/mlock.c) and leave Mlocked
 * only when a batch drains, so an earlier munmap of locked memory (another
 * run, another process) can drain inside a measured window.  mlock drains
 * every CPU's batches before it starts, so locking again one page that is
 * locked already empties them and changes nothing else (measured on
 * lab-01: without it a 64 MiB rise read 64 KiB short in most of 12 tries).
 *
 * procfs_mlock_drain_setup locks that page (a second call does nothing).
 * Call it only where nothing limits locking: under RLIMIT_MEMLOCK the page
 * comes out of the budget.  0, or -1 with errno (then nothing is drained).
 * procfs_mlock_drain locks it again; without the setup it does nothing.
 */
int procfs_mlock_drain_setup(void);
void procfs_mlock_drain(void);

/* What a locking step changes, read at one moment. */
struct procfs_lock_snapshot {
	struct procfs_vm self;         /* this process: /proc/self/status */
	uint64_t mlocked, unevictable; /* the machine: /proc/meminfo, bytes */
	int folded;                    /* 1: vm.stat_refresh folded just before */
};
/* Drain the mlock batches, fold the counters, then read the machine's and this
 * process's, below root (NULL or "": live).  -1 with ENOENT: one is missing. */
int procfs_lock_snapshot(const char *root, struct procfs_lock_snapshot *s);

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
