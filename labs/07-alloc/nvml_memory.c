/*
 * nvml_memory.c - one GPU's memory from NVML (see nvml_memory.h).  The
 * library is loaded by the one NVML loader (gpu_topo.h); the memory query is
 * this lab's own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu_topo.h"
#include "nvml_memory.h"
#include "sysinfo.h"

struct nvml_memory {       /* nvmlMemory_t (v1) */
	unsigned long long total, free, used; /* bytes */
};

/* nvmlDeviceGetMemoryInfo of the device at bdf, into m; NVML's library is lib. */
static int read_memory(void *lib, const char *bdf, struct gpu_nvml_memory *m)
{
	int (*memory_info)(void *dev, struct nvml_memory *mem) = NULL;
	void *dev = gpu_nvml_device(lib, bdf);
	struct nvml_memory mem;
	int e;

	*(void **)&memory_info = dlsym(lib, "nvmlDeviceGetMemoryInfo");
	if (!dev || !memory_info) {
		snprintf(m->why, sizeof(m->why), "NVML lists no GPU at %s", bdf);
		errno = ENODEV;
		return -1;
	}
	if ((e = memory_info(dev, &mem)) != 0) {
		snprintf(m->why, sizeof(m->why), "nvmlDeviceGetMemoryInfo(%s): NVML error %d",
			 bdf, e);
		errno = EIO;
		return -1;
	}
	m->total = mem.total, m->free = mem.free, m->used = mem.used;
	m->processes = gpu_nvml_processes(lib, dev);
	return 0;
}

int gpu_nvml_memory(const char *bus_id, struct gpu_nvml_memory *m)
{
	char bdf[GPU_BDF_LEN];
	void *lib;
	int rc, saved;

	if (!bus_id || !m) {
		errno = EINVAL;
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->processes = -1;
	if (pci_bdf_normalise(bus_id, bdf, sizeof(bdf)) < 0) {
		snprintf(m->why, sizeof(m->why), "'%.40s' is not a PCI bus id", bus_id);
		errno = EINVAL;
		return -1;
	}
	if (!(lib = gpu_nvml_open())) {
		snprintf(m->why, sizeof(m->why), "NVML unavailable (libnvidia-ml.so.1 not found, "
			 "or nvmlInit failed)");
		errno = ENOENT;
		return -1;
	}
	rc = read_memory(lib, bdf, m);
	saved = errno; /* read_memory's, past NVML's shutdown */
	gpu_nvml_close(lib);
	errno = saved;
	return rc;
}
