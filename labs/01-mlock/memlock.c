/*
 * memlock.c - lab-01's locking helpers (see memlock.h), on the readers of
 * procfs.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "memlock.h"

int procfs_vm_read(const char *status_path, struct procfs_vm *v)
{
	const char *path = status_path ? status_path : "/proc/self/status";

	if (!v) {
		errno = EINVAL;
		return -1;
	}
	memset(v, 0, sizeof(*v));
	if (procfs_read_kb_field(path, "VmLck", &v->lck) < 0 ||
	    procfs_read_kb_field(path, "VmRSS", &v->rss) < 0)
		return -1;
	/* an older kernel's status has no VmPin: 0, nothing pinned */
	if (procfs_read_kb_field(path, "VmPin", &v->pin) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

int procfs_stat_refresh(const char *path)
{
	int fd = open(path ? path : "/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = write(fd, "1\n", 2);
	/* EINVAL means a counter was negative after the fold: it did fold. */
	if (n < 0 && errno == EINVAL)
		n = 2;
	close(fd);
	return n == 2;
}

/* root + rel into buf ("" or NULL root: rel itself); -1 ENAMETOOLONG. */
static int under_root(char *buf, size_t len, const char *root, const char *rel)
{
	int n = snprintf(buf, len, "%s%s", root ? root : "", rel);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int procfs_lock_snapshot(const char *root, struct procfs_lock_snapshot *s)
{
	char path[4096];

	if (!s) {
		errno = EINVAL;
		return -1;
	}
	memset(s, 0, sizeof(*s));
	if (under_root(path, sizeof(path), root, "/proc/sys/vm/stat_refresh") < 0)
		return -1;
	s->folded = procfs_stat_refresh(path);
	if (under_root(path, sizeof(path), root, "/proc/meminfo") < 0 ||
	    procfs_read_kb_field(path, "Mlocked", &s->mlocked) < 0 ||
	    procfs_read_kb_field(path, "Unevictable", &s->unevictable) < 0 ||
	    under_root(path, sizeof(path), root, "/proc/self/status") < 0)
		return -1;
	return procfs_vm_read(path, &s->self);
}

int procfs_zones_populated(const char *zoneinfo_path)
{
	FILE *f = fopen(zoneinfo_path ? zoneinfo_path : "/proc/zoneinfo", "re");
	char line[256];
	unsigned long long managed;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " managed %llu", &managed) == 1 && managed > 0)
			n++;
	fclose(f);
	return n;
}

uint64_t procfs_meminfo_slack(const char *zoneinfo_path, long ncpus, uint64_t page_size)
{
	int zones = procfs_zones_populated(zoneinfo_path);

	if (zones <= 0)
		zones = 8;
	if (ncpus <= 0)
		ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus <= 0)
		ncpus = 1;
	if (page_size == 0)
		page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	return 2 * (uint64_t)ncpus * (uint64_t)zones * PROCFS_VMSTAT_THRESHOLD_MAX * page_size;
}

uint64_t procfs_lockable_bytes(const char *status_path)
{
	const char *path = status_path ? status_path : "/proc/self/status";
	uint64_t locked = 0;
	int64_t limit;
	int has = 0;

	if (procfs_cap_effective(path, CAP_IPC_LOCK, &has) == 0 && has)
		return UINT64_MAX;
	limit = procfs_memlock_limit();
	if (limit < 0)
		return UINT64_MAX;
	if (procfs_read_kb_field(path, "VmLck", &locked) < 0)
		locked = 0;
	return (uint64_t)limit > locked ? (uint64_t)limit - locked : 0;
}

int procfs_drop_cap(int cap)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint32_t mask;
	int i;

	if (cap < 0 || CAP_TO_INDEX(cap) >= _LINUX_CAPABILITY_U32S_3) {
		errno = EINVAL;
		return -1;
	}
	i = CAP_TO_INDEX(cap);
	mask = CAP_TO_MASK(cap);
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -1;
	data[i].effective &= ~mask;
	data[i].permitted &= ~mask;
	data[i].inheritable &= ~mask;
	return (int)syscall(SYS_capset, &hdr, data);
}

int procfs_memlock_confine(uint64_t limit, int64_t *now, const char **what)
{
	const char *step = "setrlimit(RLIMIT_MEMLOCK)";
	struct rlimit rl;

	rl.rlim_cur = (rlim_t)limit;
	rl.rlim_max = (rlim_t)limit;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0) {
		/* EPERM: the hard limit is lower; keep it, as the soft one too. */
		if (errno != EPERM || getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
			goto fail;
		if (rl.rlim_max >= (rlim_t)limit) {
			errno = EPERM;
			goto fail;
		}
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
			goto fail;
	}
	step = "capset (dropping CAP_IPC_LOCK)";
	if (procfs_drop_cap(CAP_IPC_LOCK) < 0)
		goto fail;
	step = "CAP_IPC_LOCK still in CapEff after capset";
	if (procfs_self_has_cap(CAP_IPC_LOCK)) {
		errno = EPERM;
		goto fail;
	}
	step = "getrlimit(RLIMIT_MEMLOCK)";
	errno = 0;
	if (now)
		*now = procfs_memlock_limit();
	if (errno)
		goto fail;
	return 0;
fail:
	if (what)
		*what = step;
	return -1;
}
