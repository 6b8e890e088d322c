/*
 * gpu_counters.c - NVML's and the kernel's error counters of one GPU
 * (gpu_counters.h).  NVML's entry points and types: the NVML API reference
 * (docs.nvidia.com/deploy/nvml-api); ECC error type 0 corrected, 1
 * uncorrected, counter type 0 volatile; retired-page cause 0 single-bit, 1
 * double-bit.  AER: the kernel's Documentation/PCI/pcieaer-howto.rst.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_counters.h"
#include "gpu_topo.h"

const char *const gpu_counter_names[GPU_NCOUNTERS] = {
	"pcie_replay", "ecc_corrected", "ecc_uncorrected", "rows_remapped_correctable",
	"rows_remapped_uncorrectable", "row_remap_pending", "aer_correctable",
	"aer_nonfatal", "aer_fatal", "retired_pages_sbe", "retired_pages_dbe", "xid_events",
	"clocks_held",
};

/* The clocks-event reasons that hold the clocks back (gpu_topo.h's bits): not
 * an idle GPU's, nor an application clock someone set on purpose. */
#define CLOCKS_HELD_MASK (GPU_CLOCKS_SW_POWER_CAP | GPU_CLOCKS_HW_SLOWDOWN | \
			  GPU_CLOCKS_SW_THERMAL | GPU_CLOCKS_HW_THERMAL | GPU_CLOCKS_HW_POWER_BRAKE)

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

/* Retired pages, XID events and held-back clocks; each -1 where NVML did not say. */
static void read_more(const struct gpu_counter_ops *ops, const char *bdf, long long *v)
{
	unsigned long long reasons;

	if (ops->retired && ops->retired(ops->ctx, bdf, 0, &v[GPU_C_RETIRED_SBE]) < 0)
		v[GPU_C_RETIRED_SBE] = -1;
	if (ops->retired && ops->retired(ops->ctx, bdf, 1, &v[GPU_C_RETIRED_DBE]) < 0)
		v[GPU_C_RETIRED_DBE] = -1;
	if (ops->xid && ops->xid(ops->ctx, bdf, &v[GPU_C_XID]) < 0)
		v[GPU_C_XID] = -1;
	if (ops->clocks && ops->clocks(ops->ctx, bdf, &reasons) == 0)
		v[GPU_C_CLOCKS_HELD] = (reasons & CLOCKS_HELD_MASK) != 0;
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
	read_more(ops, bdf, v);
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
typedef struct nvml_set_st *nvml_set;
struct nvml_event {        /* nvmlEventData_t */
	nvml_dev device;
	unsigned long long type, data;
	unsigned int gpu_instance, compute_instance;
};

#define XID_MAX_GPUS 16
struct nvml {
	void *lib;                 /* gpu_nvml_open's */
	int (*by_bus)(const char *bus_id, nvml_dev *d);
	int (*replay)(nvml_dev d, unsigned int *v);
	int (*ecc)(nvml_dev d, int error_type, int counter_type, unsigned long long *v);
	int (*rows)(nvml_dev d, unsigned int *corr, unsigned int *unc, unsigned int *pending,
		    unsigned int *failure);
	int (*retired)(nvml_dev d, int cause, unsigned int *count, unsigned long long *addr);
	int (*clocks)(nvml_dev d, unsigned long long *reasons);
	int (*set_create)(nvml_set *set);
	int (*set_register)(nvml_dev d, unsigned long long types, nvml_set set);
	int (*set_wait)(nvml_set set, struct nvml_event *e, unsigned int timeout_ms);
	int (*set_free)(nvml_set set);
	nvml_set set;              /* XID events of the devices registered so far */
	nvml_dev xid_dev[XID_MAX_GPUS];
	long long xid_count[XID_MAX_GPUS];
	int nxid;
};

#define NVML_OK 0
#define NVML_INSUFFICIENT_SIZE 7
#define NVML_VOLATILE_ECC 0
#define NVML_EVENT_XID_CRITICAL 0x8ull

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

static int nvml_retired(void *ctx, const char *bdf, int double_bit, long long *v)
{
	struct nvml *n = (struct nvml *)ctx;
	unsigned int count = 0;
	nvml_dev d;
	int e;

	if (!n->retired || n->by_bus(bdf, &d) != NVML_OK)
		return -1;
	e = n->retired(d, double_bit, &count, NULL); /* count 0: the count alone */
	if (e != NVML_OK && e != NVML_INSUFFICIENT_SIZE)
		return -1;
	*v = count;
	return 0;
}

static int nvml_clocks(void *ctx, const char *bdf, unsigned long long *reasons)
{
	struct nvml *n = (struct nvml *)ctx;
	nvml_dev d;

	return n->clocks && n->by_bus(bdf, &d) == NVML_OK && n->clocks(d, reasons) == NVML_OK ?
	       0 : -1;
}

/* d's slot among the registered devices, registering it on first sight; -1 when NVML
 * will not deliver its events (no event support, a device past XID_MAX_GPUS). */
static int xid_slot(struct nvml *n, nvml_dev d)
{
	for (int i = 0; i < n->nxid; i++)
		if (n->xid_dev[i] == d)
			return i;
	if (!n->set || n->nxid == XID_MAX_GPUS ||
	    n->set_register(d, NVML_EVENT_XID_CRITICAL, n->set) != NVML_OK)
		return -1;
	n->xid_dev[n->nxid] = d;
	n->xid_count[n->nxid] = 0;
	return n->nxid++;
}

/* XID events of bdf since its first reading: what waits in the set is counted, then read. */
static int nvml_xid(void *ctx, const char *bdf, long long *v)
{
	struct nvml *n = (struct nvml *)ctx;
	struct nvml_event e;
	nvml_dev d;
	int slot;

	if (!n->set || n->by_bus(bdf, &d) != NVML_OK || (slot = xid_slot(n, d)) < 0)
		return -1;
	while (n->set_wait(n->set, &e, 0) == NVML_OK)
		for (int i = 0; i < n->nxid; i++)
			n->xid_count[i] += n->xid_dev[i] == e.device;
	*v = n->xid_count[slot];
	return 0;
}

#define SYM(n, field, name) (*(void **)&(n)->field = dlsym((n)->lib, name))

/* The event set for XID events, where NVML has the entry points and gives one. */
static void xid_open(struct nvml *n)
{
	SYM(n, set_create, "nvmlEventSetCreate");
	SYM(n, set_register, "nvmlDeviceRegisterEvents");
	if (!SYM(n, set_wait, "nvmlEventSetWait_v2"))
		SYM(n, set_wait, "nvmlEventSetWait");
	SYM(n, set_free, "nvmlEventSetFree");
	if (!n->set_create || !n->set_register || !n->set_wait || !n->set_free ||
	    n->set_create(&n->set) != NVML_OK)
		n->set = NULL;
}

int gpu_counters_nvml_open(struct gpu_counter_ops *ops)
{
	struct nvml *n = (struct nvml *)calloc(1, sizeof(*n));

	memset(ops, 0, sizeof(*ops));
	if (!n || !(n->lib = gpu_nvml_open())) {
		free(n);
		return -1;
	}
	SYM(n, by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
	SYM(n, replay, "nvmlDeviceGetPcieReplayCounter");
	SYM(n, ecc, "nvmlDeviceGetTotalEccErrors");
	SYM(n, rows, "nvmlDeviceGetRemappedRows");
	SYM(n, retired, "nvmlDeviceGetRetiredPages");
	/* renamed in R535; the old name stays as an alias in newer drivers */
	if (!SYM(n, clocks, "nvmlDeviceGetCurrentClocksEventReasons"))
		SYM(n, clocks, "nvmlDeviceGetCurrentClocksThrottleReasons");
	if (!n->by_bus) {
		gpu_nvml_close(n->lib);
		free(n);
		return -1;
	}
	xid_open(n);
	*ops = (struct gpu_counter_ops){ nvml_replay, nvml_ecc, nvml_rows, nvml_retired, nvml_xid,
					 nvml_clocks, n };
	return 0;
}

void gpu_counters_nvml_close(struct gpu_counter_ops *ops)
{
	struct nvml *n = (struct nvml *)ops->ctx;

	if (n) {
		if (n->set)
			n->set_free(n->set);
		gpu_nvml_close(n->lib);
		free(n);
	}
	memset(ops, 0, sizeof(*ops));
}
