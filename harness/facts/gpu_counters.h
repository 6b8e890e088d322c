/*
 * gpu_counters.h - the error counters that can explain a low copy figure
 * (NVML's and the kernel's PCIe AER counts), read before the first lab and
 * after each one, so that a counter that moved is named beside that lab's
 * figures.  NVML answers through struct gpu_counter_ops (tests: a made-up one).
 */
#ifndef DMALAB_GPU_COUNTERS_H
#define DMALAB_GPU_COUNTERS_H

#ifdef __cplusplus
extern "C" {
#endif

enum gpu_counter {
	GPU_C_PCIE_REPLAY,       /* nvmlDeviceGetPcieReplayCounter */
	GPU_C_ECC_CORRECTED,     /* nvmlDeviceGetTotalEccErrors, volatile */
	GPU_C_ECC_UNCORRECTED,
	GPU_C_ROWS_CORRECTABLE,  /* nvmlDeviceGetRemappedRows */
	GPU_C_ROWS_UNCORRECTABLE,
	GPU_C_ROW_REMAP_PENDING, /* 1 while a remap waits for a GPU reset */
	GPU_C_AER_CORRECTABLE,   /* sysfs aer_dev_correctable, TOTAL_ERR_COR */
	GPU_C_AER_NONFATAL,      /* aer_dev_nonfatal, TOTAL_ERR_NONFATAL */
	GPU_C_AER_FATAL,         /* aer_dev_fatal, TOTAL_ERR_FATAL */
	GPU_C_RETIRED_SBE,       /* nvmlDeviceGetRetiredPages: pages retired for repeated */
	GPU_C_RETIRED_DBE,       /* single-bit errors, and for double-bit errors */
	GPU_C_XID,               /* XID critical-error events seen since the first reading */
	GPU_C_CLOCKS_HELD,       /* 1 while a clocks-event reason holds the clocks back (power
				  * cap, thermal, hardware slowdown or power brake), else 0 */
	GPU_NCOUNTERS
};

/* "pcie_replay", "ecc_corrected", ...: results.json's keys. */
extern const char *const gpu_counter_names[GPU_NCOUNTERS];

struct gpu_counters {
	long long v[GPU_NCOUNTERS]; /* -1: not readable here */
};

/* NVML's answers for the device with PCI bus id bdf: 0, or -1 (not supported,
 * no such device).  Any member may be NULL. */
struct gpu_counter_ops {
	int (*replay)(void *ctx, const char *bdf, long long *v);
	int (*ecc)(void *ctx, const char *bdf, int uncorrected, long long *v);
	int (*rows)(void *ctx, const char *bdf, long long *correctable,
		    long long *uncorrectable, long long *pending);
	int (*retired)(void *ctx, const char *bdf, int double_bit, long long *v);
	int (*xid)(void *ctx, const char *bdf, long long *v);
	int (*clocks)(void *ctx, const char *bdf, unsigned long long *reasons);
	void *ctx;
};

/* Every counter of the device bdf ("0000:3b:00.0") into c: sysfs under
 * sysfs_root ("/sys"), NVML through ops (NULL: none). */
void gpu_counters_read(const char *sysfs_root, const char *bdf,
		       const struct gpu_counter_ops *ops, struct gpu_counters *c);

/* after - before per counter into moved (-1 where either is unknown);
 * returns how many counters rose. */
int gpu_counters_moved(const struct gpu_counters *before, const struct gpu_counters *after,
		       struct gpu_counters *moved);

/* NVML for gpu_counters_read: 0 with ops filled, -1 without NVML (ops
 * zeroed, so the sysfs counters alone are read).  Close what opened. */
int gpu_counters_nvml_open(struct gpu_counter_ops *ops);
void gpu_counters_nvml_close(struct gpu_counter_ops *ops);

#ifdef __cplusplus
}
#endif
#endif
