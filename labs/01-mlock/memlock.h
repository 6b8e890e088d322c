/*
 * memlock.h - lab-01's own locking helpers, in C that nvcc and gcc both
 * take: what a locking step changes, read with the counters folded
 * (vm.stat_refresh); how far a /proc/meminfo counter may lag
 * (per-CPU diffs per zone); how much this process may still lock; and the
 * container-like confinement (a small RLIMIT_MEMLOCK, CAP_IPC_LOCK
 * dropped) under which its memlock claims run.  Tested without a GPU by
 * harness/tests/unit/test_procfs.c.
 */
#ifndef DMALAB_LAB01_MEMLOCK_H
#define DMALAB_LAB01_MEMLOCK_H

#include <stdint.h>

#include "procfs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This process's counters in a status file, bytes. */
struct procfs_vm {
	uint64_t lck; /* VmLck: pages locked by mlock and mlockall */
	uint64_t pin; /* VmPin: pages pinned in mm->pinned_vm (an RDMA
		       * registration); 0 where the file has no VmPin */
	uint64_t rss; /* VmRSS: pages resident */
};
/* VmLck and VmRSS (both must be there) and VmPin of a status file (NULL:
 * /proc/self/status), each read by procfs_read_kb_field.  0, or -1 with
 * errno (ENOENT: VmLck or VmRSS is missing). */
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

/* What a locking step changes, read at one moment. */
struct procfs_lock_snapshot {
	struct procfs_vm self;         /* this process: /proc/self/status */
	uint64_t mlocked, unevictable; /* the machine: /proc/meminfo, bytes */
	int folded;                    /* 1: vm.stat_refresh folded just before */
};
/* Fold the counters, then read the machine's and this process's, below root
 * (NULL or "": live).  -1 with ENOENT: one is missing. */
int procfs_lock_snapshot(const char *root, struct procfs_lock_snapshot *s);

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
