/*
 * memlock_check.c - dmalab-preflight's checks 1: the locking limit, and one
 * mlock that the kernel counts in VmLck.
 *
 * A node whose limit is low breaks jobs that pin or register memory beyond
 * it (mlock, RDMA registrations); a limit that reads high but a lock that
 * does not show in VmLck means the count cannot be trusted.  Under Slurm
 * the check inherits slurmd's limits, as jobs do.  The probe buffer is
 * unlocked and unmapped before the check returns, on every path.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/capability.h>

#include "buffer.h"
#include "health.h"
#include "procfs.h"

/* The probe: min(PF_MLOCK_PROBE_BYTES, floor), at least one page. */
static uint64_t probe_bytes(int64_t floor)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), b = PF_MLOCK_PROBE_BYTES;

	if (floor >= 0 && (uint64_t)floor < b)
		b = (uint64_t)floor;
	b -= b % page;
	return b < page ? page : b;
}

/* mlock of `bytes` failed with errno e: the check's line, with what allowed it. */
static void mlock_refused(uint64_t bytes, int e, struct pf_report *r)
{
	char sz[32], lim[32];

	pf_report_add(r, "mlock", PF_FAIL, "mlock(%s) failed: %s (RLIMIT_MEMLOCK %s, %s "
		      "CAP_IPC_LOCK)", lab_fmt_size(bytes, sz, sizeof(sz)), strerror(e),
		      procfs_limit_text(procfs_memlock_limit(), lim, sizeof(lim)),
		      procfs_self_has_cap(CAP_IPC_LOCK) ? "with" : "without");
}

static void mlock_probe(uint64_t bytes, struct pf_report *r)
{
	uint64_t before = 0, locked = 0, after = 0;
	char line[PF_LINE_LEN];
	enum pf_status st;
	void *p;
	int e;

	if (proc_self_status("VmLck", &before) < 0) {
		pf_report_add(r, "mlock", PF_NOT_RUN, "VmLck unreadable in /proc/self/status: %s",
			      strerror(errno));
		return;
	}
	p = buf_map(bytes, 0, BUF_UNTRACKED, NULL);
	if (!p) {
		pf_report_add(r, "mlock", PF_NOT_RUN, "mmap(%llu bytes) for the mlock probe: %s",
			      (unsigned long long)bytes, strerror(errno));
		return;
	}
	if (mlock(p, (size_t)bytes) < 0) {
		e = errno;
		munmap(p, (size_t)bytes);
		mlock_refused(bytes, e, r);
		return;
	}
	e = proc_self_status("VmLck", &locked) < 0 ? errno : 0;
	munlock(p, (size_t)bytes);
	if (!e && proc_self_status("VmLck", &after) < 0)
		e = errno;
	munmap(p, (size_t)bytes);
	if (e) {
		pf_report_add(r, "mlock", PF_NOT_RUN, "VmLck unreadable while the probe was "
			      "locked: %s", strerror(e));
		return;
	}
	st = pf_mlock_verdict(bytes, before, locked, after, line, sizeof(line));
	pf_report_add(r, "mlock", st, "%s", line);
}

void pf_check_memlock(const struct pf_opts *o, struct pf_report *r)
{
	char line[PF_LINE_LEN];
	enum pf_status st;

	st = pf_memlock_verdict(procfs_memlock_limit(), o->memlock_min, line, sizeof(line));
	pf_report_add(r, "memlock", st, "%s", line);
	mlock_probe(probe_bytes(o->memlock_min), r);
}
