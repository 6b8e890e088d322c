/*
 * gpu_counters.c - NVML's and the kernel's error counters of one GPU (see
 * gpu_counters.h).  NVML's entry points and their types, from the NVML API
 * reference (docs.nvidia.com/deploy/nvml-api): nvmlDeviceGetHandleByPciBusId_v2,
 * nvmlDeviceGetPcieReplayCounter, nvmlDeviceGetTotalEccErrors (error type 0
 * corrected, 1 uncorrected; counter type 0 volatile: since the driver
 * loaded), nvmlDeviceGetRemappedRows.  AER: the kernel's
 * Documentation/PCI/pcieaer-howto.rst, files aer_dev_* of the device.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_counters.h"

const char *const gpu_counter_names[GPU_NCOUNTERS] = {
	"pcie_replay", "ecc_corrected", "ecc_uncorrected", "rows_remapped_correctable",
	"rows_remapped_uncorrectable", "row_remap_pending", "aer_correctable",
	"aer_nonfatal", "aer_fatal",
};

/* The number after "key " in a sysfs aer_dev_* file; -1 when absent. */
static long long aer_total(const char *sysfs_root, const char *bdf, const char *file,
			   const char *key)
{
	char path[512], line[128];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysfs_root, bdf, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

void gpu_counters_read(const char *sysfs_root, const char *bdf,
		       const struct gpu_counter_ops *ops, struct gpu_counters *c)
{
	long long *v = c->v;

	for (int i = 0; i < GPU_NCOUNTERS; i++)
		v[i] = -1;
	v[GPU_C_AER_CORRECTABLE] = aer_total(sysfs_root, bdf, "aer_dev_correctable",
					     "TOTAL_ERR_COR");
	v[GPU_C_AER_NONFATAL] = aer_total(sysfs_root, bdf, "aer_dev_nonfatal",
					  "TOTAL_ERR_NONFATAL");
	v[GPU_C_AER_FATAL] = aer_total(sysfs_root, bdf, "aer_dev_fatal", "TOTAL_ERR_FATAL");
	if (!ops)
		return;
	if (ops->replay && ops->replay(ops->ctx, bdf, &v[GPU_C_PCIE_REPLAY]) < 0)
		v[GPU_C_PCIE_REPLAY] = -1;
	if (ops->ecc && ops->ecc(ops->ctx, bdf, 0, &v[GPU_C_ECC_CORRECTED]) < 0)
		v[GPU_C_ECC_CORRECTED] = -1;
	if (ops->ecc && ops->ecc(ops->ctx, bdf, 1, &v[GPU_C_ECC_UNCORRECTED]) < 0)
		v[GPU_C_ECC_UNCORRECTED] = -1;
	if (ops->rows && ops->rows(ops->ctx, bdf, &v[GPU_C_ROWS_CORRECTABLE],
				   &v[GPU_C_ROWS_UNCORRECTABLE], &v[GPU_C_ROW_REMAP_PENDING]) < 0)
		v[GPU_C_ROWS_CORRECTABLE] = v[GPU_C_ROWS_UNCORRECTABLE] =
			v[GPU_C_ROW_REMAP_PENDING] = -1;
}

int gpu_counters_moved(const struct gpu_counters *before, const struct gpu_counters *after,
		       struct gpu_counters *moved)
{
	int rose = 0;

	for (int i = 0; i < GPU_NCOUNTERS; i++) {
		int known = before->v[i] >= 0 && after->v[i] >= 0;

		moved->v[i] = known ? after->v[i] - before->v[i] : -1;
		rose += known && moved->v[i] > 0;
	}
	return rose;
}

/* ---- NVML, loaded at run time ------------------------------------------ */

typedef struct nvml_dev_st *nvml_dev;
struct nvml {
	void *lib;
	int (*shutdown)(void);
	int (*by_bus)(const char *bus_id, nvml_dev *d);
	int (*replay)(nvml_dev d, unsigned int *v);
	int (*ecc)(nvml_dev d, int error_type, int counter_type, unsigned long long *v);
	int (*rows)(nvml_dev d, unsigned int *corr, unsigned int *unc, unsigned int *pending,
		    unsigned int *failure);
};

#define NVML_OK 0
#define NVML_VOLATILE_ECC 0

static int nvml_replay(void *ctx, const char *bdf, long long *v)
{
	struct nvml *n = (struct nvml *)ctx;
	unsigned int u;
	nvml_dev d;

	if (!n->replay || n->by_bus(bdf, &d) != NVML_OK || n->replay(d, &u) != NVML_OK)
		return -1;
	*v = u;
	return 0;
}

static int nvml_ecc(void *ctx, const char *bdf, int uncorrected, long long *v)
{
	struct nvml *n = (struct nvml *)ctx;
	unsigned long long u;
	nvml_dev d;

	if (!n->ecc || n->by_bus(bdf, &d) != NVML_OK ||
	    n->ecc(d, uncorrected, NVML_VOLATILE_ECC, &u) != NVML_OK)
		return -1;
	*v = (long long)u;
	return 0;
}

static int nvml_rows(void *ctx, const char *bdf, long long *corr, long long *unc,
		     long long *pending)
{
	struct nvml *n = (struct nvml *)ctx;
	unsigned int c, u, p, failure;
	nvml_dev d;

	if (!n->rows || n->by_bus(bdf, &d) != NVML_OK || n->rows(d, &c, &u, &p, &failure) !=
	    NVML_OK)
		return -1;
	*corr = c;
	*unc = u;
	*pending = p;
	return 0;
}

#define SYM(n, field, name) (*(void **)&(n)->field = dlsym((n)->lib, name))

int gpu_counters_nvml_open(struct gpu_counter_ops *ops)
{
	struct nvml *n = (struct nvml *)calloc(1, sizeof(*n));
	int (*init)(void) = NULL;

	memset(ops, 0, sizeof(*ops));
	if (!n || !(n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL))) {
		free(n);
		return -1;
	}
	*(void **)&init = dlsym(n->lib, "nvmlInit_v2");
	SYM(n, shutdown, "nvmlShutdown");
	SYM(n, by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
	SYM(n, replay, "nvmlDeviceGetPcieReplayCounter");
	SYM(n, ecc, "nvmlDeviceGetTotalEccErrors");
	SYM(n, rows, "nvmlDeviceGetRemappedRows");
	if (!init || !n->shutdown || !n->by_bus || init() != NVML_OK) {
		dlclose(n->lib);
		free(n);
		return -1;
	}
	*ops = (struct gpu_counter_ops){ nvml_replay, nvml_ecc, nvml_rows, n };
	return 0;
}

void gpu_counters_nvml_close(struct gpu_counter_ops *ops)
{
	struct nvml *n = (struct nvml *)ops->ctx;

	if (n) {
		n->shutdown();
		dlclose(n->lib);
		free(n);
	}
	memset(ops, 0, sizeof(*ops));
}
