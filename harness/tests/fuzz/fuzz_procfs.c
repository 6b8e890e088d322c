/*
 * fuzz_procfs.c - the /proc and /sys file readers of procfs.h and sysfs.h
 * on any file: procfs_read_kb_field, procfs_cap_effective, sysfs_read_str
 * (at several buffer sizes), sysfs_read_long, sysfs_thp_mode; lab-01's
 * procfs_vm_read, procfs_lockable_bytes, procfs_zones_populated,
 * procfs_meminfo_slack, procfs_lock_snapshot (the input as proc/meminfo and
 * proc/self/status of a root); and lab-04's numa_pages_migrated (a vmstat
 * file).
 *
 * Input: the file's bytes.  Checked: every string read is NUL-ended inside
 * its buffer, and VmLck read alone equals procfs_vm_read's.
 */
#include "fuzz_util.h"
#include "sysfs.h"
#include "../../../labs/01-mlock/memlock.h" /* procfs.h, and lab-01's locking helpers */
#include "../../../labs/04-numa/numa_place.h" /* numa_pages_migrated */

static char root[400], meminfo[500], status[500];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char d[480];

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/root", fuzz_scratch());
	snprintf(d, sizeof(d), "%s/proc/self", root);
	mkdir(root, 0700);
	snprintf(meminfo, sizeof(meminfo), "%s/proc", root);
	mkdir(meminfo, 0700);
	mkdir(d, 0700);
	snprintf(meminfo, sizeof(meminfo), "%s/proc/meminfo", root);
	snprintf(status, sizeof(status), "%s/proc/self/status", root);
	return 0;
}

static void strings(const char *path)
{
	static const size_t lens[] = { 1, 2, 16, 64, 4096 };
	char buf[4096], mode[16];
	long v;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		if (sysfs_read_str(path, buf, lens[i]) == 0 && strnlen(buf, lens[i]) == lens[i])
			abort();
	}
	sysfs_read_long(path, &v);
	memset(mode, 'x', sizeof(mode));
	if (sysfs_thp_mode(path, mode, sizeof(mode)) == 0 &&
	    strnlen(mode, sizeof(mode)) == sizeof(mode))
		abort();
	for (size_t len = 1; len < 4; len++)
		sysfs_thp_mode(path, mode, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "VmLck", "VmRSS", "MemTotal", "HugePages_Total",
					    "Mlocked", "Unevictable", "Hugepagesize" };
	const char *path = fuzz_file("input", data, size);
	struct procfs_lock_snapshot snap;
	struct procfs_vm vm;
	uint64_t v, lck;
	int has, vm_ok, lck_ok;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		procfs_read_kb_field(path, keys[i], &v);
	vm_ok = procfs_vm_read(path, &vm) == 0;
	lck_ok = procfs_read_kb_field(path, "VmLck", &lck) == 0;
	if (vm_ok && lck_ok && vm.lck != lck)
		abort();
	procfs_cap_effective(path, 14, &has);
	procfs_cap_effective(path, 0, &has);
	procfs_cap_effective(path, 63, &has);
	procfs_lockable_bytes(path);
	procfs_zones_populated(path);
	procfs_meminfo_slack(path, 2, 4096);
	numa_pages_migrated(path);
	strings(path);

	fuzz_write(meminfo, data, size);
	fuzz_write(status, data, size);
	procfs_lock_snapshot(root, &snap);
	return 0;
}
