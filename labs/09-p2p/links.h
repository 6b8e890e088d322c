/*
 * links.h - lab-09's view of how its GPUs are joined: the matrix of
 * `nvidia-smi topo -m` (NVLink counts and versions, the PCIe path of each
 * pair) from NVML, and ACS on the PCIe bridges above each GPU from sysfs.
 * Plain C that nvcc and gcc both take; harness/tests/unit/test_gpu_links.c
 * tests it on a fixture tree and a made-up NVML.  The GPUs themselves come
 * from the one GPU scan (gpu_topo.h), NVML from its one loader.
 */
#ifndef DMALAB_LAB09_LINKS_H
#define DMALAB_LAB09_LINKS_H

#include <stddef.h>

#include "gpu_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_NVLINK_MAX 18 /* NVML_NVLINK_MAX_LINKS */

/*
 * The path between two GPUs, in nvidia-smi topo -m's words.  UNKNOWN is
 * NVML not answering (no NVML, "not supported"), never "no link": a pair
 * whose NVLink count is known to be 0 gets its PCIe word.
 */
enum gpu_path {
	GPU_PATH_UNKNOWN, /* "unknown" */
	GPU_PATH_SELF,    /* "X" */
	GPU_PATH_NVLINK,  /* "NV#", # the active links between the two */
	GPU_PATH_PIX,     /* at most one PCIe bridge between them (or one board) */
	GPU_PATH_PXB,     /* several PCIe bridges, no host bridge */
	GPU_PATH_PHB,     /* through one PCIe host bridge */
	GPU_PATH_NODE,    /* through host bridges of one NUMA node */
	GPU_PATH_SYS      /* across the SMP link between sockets (QPI/UPI) */
};

/* One NVLink of a GPU as NVML reports it. */
struct gpu_nvlink {
	int state;       /* 1 active, 0 inactive, -1 unknown (NVML did not answer) */
	int version;     /* nvmlNvlinkVersion_t (1 is 1.0 ... 6 is 4.0, 7 is 5.0); 0 unknown */
	char remote_bdf[GPU_BDF_LEN]; /* the device at the far end; "" unknown */
};

/* A GPU's NVLinks.  links_active is a fact only when nvlink_known. */
struct gpu_link_dev {
	char bdf[GPU_BDF_LEN]; /* gpu_topo's, normalised */
	int nvlink_known;  /* 1: NVML answered the state of link 0 */
	int links_active;  /* active links; with nvlink_known, 0 is "none" */
	int version;       /* the version of its first active link; 0 unknown */
	char why[160];     /* when !nvlink_known: what NVML said, e.g. "not supported" */
	struct gpu_nvlink link[GPU_NVLINK_MAX];
	char acs[16];      /* ACS on the PCIe bridges above it: "on", "off", "unknown" */
	char acs_why[120]; /* how acs was decided, e.g. "0000:00:01.0 redirects P2P" */
};

/* Links of every GPU of a gpu_topo (same order) and the path of each pair. */
struct gpu_links {
	int n;
	char why[160]; /* when NVML was not asked or not there: why */
	struct gpu_link_dev dev[GPU_TOPO_MAX_GPUS];
	unsigned char path[GPU_TOPO_MAX_GPUS][GPU_TOPO_MAX_GPUS];    /* enum gpu_path */
	unsigned char nvlinks[GPU_TOPO_MAX_GPUS][GPU_TOPO_MAX_GPUS]; /* active links a -> b */
};

#define GPU_NVML_SUCCESS 0
#define GPU_NVML_NOT_SUPPORTED 3 /* NVML_ERROR_NOT_SUPPORTED */

/*
 * The questions the link reader asks NVML, one answer a call; a call
 * returns NVML's code (GPU_NVML_SUCCESS, GPU_NVML_NOT_SUPPORTED, ...).
 * dev indexes gpu_topo.dev[]; level is nvmlGpuTopologyLevel_t (0 one
 * board, 10 one switch, 20 several, 30 host bridge, 40 node, 50 system).
 * The live table wraps libnvidia-ml.so.1; unit tests fill their own.
 */
struct gpu_link_ops {
	void *ctx;
	int (*nvlink_state)(void *ctx, int dev, unsigned link, int *active);
	int (*nvlink_version)(void *ctx, int dev, unsigned link, unsigned *version);
	int (*nvlink_remote)(void *ctx, int dev, unsigned link, char *bdf, size_t len);
	int (*common_ancestor)(void *ctx, int a, int b, int *level);
};

/*
 * The links and paths of t's GPUs through ops (ops NULL: every answer is
 * unknown, with `why` saying so); ACS from sysfs below sysfs_root.  0, or
 * -1 with errno EINVAL for a NULL t or k.
 */
int gpu_links_read(const struct gpu_topo *t, const char *sysfs_root,
		   const struct gpu_link_ops *ops, struct gpu_links *k);
/* The same from this machine's NVML and /sys (NVML missing: unknown). */
int gpu_links_scan(const struct gpu_topo *t, struct gpu_links *k);

/* "X", "NV18", "PIX", ..., "unknown" into buf (>= 16 bytes). */
const char *gpu_path_word(const struct gpu_links *k, int a, int b, char *buf, size_t len);
/*
 * One-way GB/s of one NVLink of NVML version v (nvmlNvlinkVersion_t):
 * 1.0 20; 2.0, 2.2, 3.0, 3.1, 4.0 25; 5.0 50.  0 for an unknown version.
 */
double gpu_nvlink_link_gbs(int version);
/*
 * The theoretical one-way NVLink rate from a to b: the active links of a
 * whose far end is b, each at its version's rate (GB/s).  -1 unknown
 * (NVML did not answer for a, or a link's version is unknown), 0 none.
 */
double gpu_links_nvlink_gbs(const struct gpu_links *k, int a, int b);
/*
 * ACS of the PCIe bridges between the root and the device at bdf (sysfs
 * `config` of each, read from the extended capability list): "on" when a
 * bridge redirects peer requests upward (P2P Request or Completion Redirect
 * set), "off" when none does, "unknown" when a config space cannot be read
 * whole (not root) or the device is not in the tree.  why (len) says which.
 */
const char *gpu_acs_state(const char *sysfs_root, const char *bdf, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
