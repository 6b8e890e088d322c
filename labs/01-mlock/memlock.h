/*
 * memlock.h - lab-01's own locking helpers, in C that nvcc and gcc both
 * take: how far a /proc/meminfo counter may lag (per-CPU diffs per zone),
 * how much this process may still lock, and the container-like confinement
 * (a small RLIMIT_MEMLOCK, CAP_IPC_LOCK dropped) under which its memlock
 * claims run.  Tested without a GPU by harness/tests/unit/test_procfs.c.
 */
#ifndef DMALAB_LAB01_MEMLOCK_H
#define DMALAB_LAB01_MEMLOCK_H

#include <stdint.h>

#include "procfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zones with managed pages ("managed N", N > 0) in a zoneinfo file (NULL:
 * /proc/zoneinfo): each keeps its own per-CPU diffs.  -1 with errno. */
int procfs_zones_populated(const char *zoneinfo_path);

/*
 * How far the change between two reads of a /proc/meminfo page counter
 * that were not folded can be from the true change, in bytes: each read
 * may miss PROCFS_VMSTAT_THRESHOLD_MAX pages per CPU and populated zone,
 * 2 x ncpus x zones x 125 x page_size.  zoneinfo_path NULL: /proc/zoneinfo
 * (unreadable or no zone found: 8 zones, more than any machine here has);
 * ncpus <= 0: the CPUs online; page_size 0: the system's.  Other processes
 * locking at the same moment are not covered.
 */
uint64_t procfs_meminfo_slack(const char *zoneinfo_path, long ncpus, uint64_t page_size);

/*
 * Bytes this process may still lock: UINT64_MAX when nothing limits it
 * (CAP_IPC_LOCK in CapEff of status_path, NULL: /proc/self/status, or an
 * unlimited RLIMIT_MEMLOCK); else the soft limit minus the file's VmLck
 * (0 at or past it; a VmLck that cannot be read counts as 0).
 */
uint64_t procfs_lockable_bytes(const char *status_path);

/* Take cap out of this process's effective, permitted and inheritable sets
 * (capset): for good, and for what it execs.  0, or -1 with errno (EINVAL:
 * cap outside 0-63). */
int procfs_drop_cap(int cap);

/*
 * Put this process under a locking limit, as a container does: soft and
 * hard RLIMIT_MEMLOCK to limit bytes, then CAP_IPC_LOCK dropped and its
 * absence checked in CapEff.  A hard limit already below limit cannot be
 * raised without CAP_SYS_RESOURCE (EPERM): it then becomes the soft limit
 * too.  *now (may be NULL) gets the soft limit in force (-1: unlimited).
 * Returns 0, or -1 with errno and *what (may be NULL) naming the step that
 * failed ("setrlimit(RLIMIT_MEMLOCK)", "capset (dropping CAP_IPC_LOCK)", ...).
 */
int procfs_memlock_confine(uint64_t limit, int64_t *now, const char **what);

#ifdef __cplusplus
}
#endif
#endif
