/*
 * sysinfo.h - the machine facts every skip decision and report relies on.
 *
 * Collected without initialising CUDA (NVML is loaded with dlopen, GPUs are
 * also found in sysfs), so the runner can call it and then fork+exec labs.
 */
#ifndef DMALAB_SYSINFO_H
#define DMALAB_SYSINFO_H

#include <stdint.h>
#include "gpu_topo.h"
#include "json.h"
#include "numa_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYSINFO_MAX_GPUS 16

struct sysinfo {
	char kernel[128];     /* uname -r */
	char arch[32];        /* uname -m */
	char hostname[64];
	int cpus_online;
	long page_size;
	uint64_t mem_total;   /* bytes */
	struct numa_topo numa; /* from sysfs */
	int numa_available;   /* libnuma numa_available() >= 0 */
	int64_t memlock_cur, memlock_max; /* RLIMIT_MEMLOCK bytes; -1 unlimited */
	int cap_ipc_lock;     /* effective */
	int uid;
	char thp[16];         /* always | madvise | never | unknown */
	uint64_t hugepages_total, hugepages_free; /* default-size hugetlb pages */
	uint64_t hugepage_size;                   /* bytes */
	int nvml_loaded;      /* libnvidia-ml.so.1 found */
	char driver_version[32];   /* "580.159.04" or "" */
	int cuda_driver_version;   /* 13000 or 0 */
	int cuda_runtime_version;  /* the toolkit dmalab was built with, 0 none */
	int have_nvcc;             /* labs were built with nvcc */
	int ngpus;
	/* as gpu_topo_scan found them; numbered by NVML's index (sorted by it),
	 * or without NVML by their place here, in PCI bus order */
	struct gpu_topo_dev gpu[SYSINFO_MAX_GPUS];
	char virt[32];        /* "firecracker", "kvm", "none", "" (best effort) */
	char iommu[16];       /* "none" (no IOMMU), "identity" (every group passthrough),
			       * "translated" (some DMA/DMA-FQ group), "unknown" */
	char cpus_allowed[256]; /* this process's CPU affinity as a cpulist, "0-15" */
	int ncpu_nodes;       /* NUMA nodes holding those CPUs, in cpu_nodes[] */
	int cpu_nodes[TOPO_MAX_NODES];
};

/* Collect everything; never fails (unknown facts stay at their defaults). */
void sysinfo_collect(struct sysinfo *si);
/* As sysinfo_collect but with a different sysfs/proc root (tests). */
void sysinfo_collect_at(struct sysinfo *si, const char *sysfs_root, const char *proc_root);
/* The "machine" object of results.json. */
void sysinfo_write_json(const struct sysinfo *si, struct json_writer *w);
/* `dmalab sysinfo`: readable lines, the facts the skips are decided on. */
void sysinfo_print(const struct sysinfo *si, FILE *out);

/*
 * Theoretical one-direction rate of a PCIe link in GB/s (1e9 B/s), after
 * line encoding: gen 1-2 8b/10b, gen 3-5 128b/130b, gen 6 FLIT (242/256).
 * 0 for an unknown generation or width.  Gen5 x16 -> 63.0.
 */
double pcie_rate_gbs(int gen, int width);

#ifdef __cplusplus
}
#endif
#endif
