/*
 * gpu_topo.h - one GPU scan: which CUDA device is which PCI device, where it
 * sits (NUMA node) and how it is attached (PCIe generation and width).
 *
 * Three sources, joined by PCI bus id:
 *   CUDA   the driver API, loaded with dlopen("libcuda.so.1") (no CUDA
 *          runtime link): the device order, which honours CUDA_VISIBLE_DEVICES
 *          and CUDA_DEVICE_ORDER, and the device names;
 *   sysfs  <root>/bus/pci/devices/<bdf>/: numa_node, current_link_speed,
 *          current_link_width, max_link_speed, max_link_width, device;
 *   NVML   dlopen("libnvidia-ml.so.1"): names, compute capability, memory,
 *          PCIe generation and width, NVLink state.
 * Every field says which source it came from (struct gpu_topo_src).  Where
 * NVML answers, its PCIe link replaces sysfs's (the driver's view over the
 * kernel's, as sysinfo has always reported it); CUDA's name wins over NVML's,
 * NVML's over sysfs's device id.
 *
 * CUDA and NVML describe the live machine, so they are asked only when the
 * sysfs root is "/sys": a fixture tree is never mixed with this machine.
 * Without CUDA's answer (no driver, cuInit failing, CUDA not asked) the list
 * is the NVIDIA display and 3D controllers sysfs lists, in PCI bus order, and
 * gpu_topo.order says the order is not CUDA's.
 *
 * Asking CUDA runs cuInit in the calling process: a process that has done so
 * must not fork (without exec) and then use CUDA in the child.  The library
 * is kept loaded afterwards, as the driver's threads run code in it.
 */
#ifndef DMALAB_GPU_TOPO_H
#define DMALAB_GPU_TOPO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_TOPO_MAX_GPUS 64 /* devices kept; more are counted in left_out */
#define GPU_BDF_LEN 32       /* "0000:3b:00.0" and a NUL, with room */
#define GPU_NAME_LEN 96
#define GPU_UUID_LEN 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */

/* Where a field's value came from; GPU_SRC_NONE: unknown, left at its default. */
enum gpu_src { GPU_SRC_NONE, GPU_SRC_CUDA, GPU_SRC_SYSFS, GPU_SRC_NVML };

/* The order of gpu_topo.dev[]. */
enum gpu_order {
	GPU_ORDER_CUDA,    /* dev[i] is CUDA device i (the driver answered) */
	GPU_ORDER_PCI_BUS  /* NVIDIA PCI devices by bus id: maybe not CUDA's */
};

struct gpu_topo_src {
	enum gpu_src name, numa_node;
	enum gpu_src gen_cur, width_cur, gen_max, width_max;
};

struct gpu_topo_dev {
	int cuda_ordinal;    /* CUDA's device number; -1 when CUDA did not list it */
	int nvml_index;      /* NVML's index; -1 when NVML did not list it */
	char bdf[GPU_BDF_LEN]; /* "0000:3b:00.0", sysfs's form; "" if CUDA's id did not parse */
	char name[GPU_NAME_LEN]; /* "NVIDIA H200", or "NVIDIA device 0x2335" from sysfs */
	int numa_node;       /* >= 0; -1 sysfs says unknown (typical in VMs); -2 no numa_node file */
	int pcie_gen_cur, pcie_width_cur; /* the link now (idle links down-train); 0 unknown */
	int pcie_gen_max, pcie_width_max; /* what device and slot support; 0 unknown */
	int cc_major, cc_minor; /* compute capability (NVML); -1 unknown */
	uint64_t mem_total;  /* bytes (NVML); 0 unknown */
	int nvlinks_active;  /* active NVLink links (NVML); 0 none or unknown */
	char uuid[GPU_UUID_LEN]; /* NVML's "GPU-5e1c...", fleets join on it; "" unknown */
	char iommu[16];      /* the device's IOMMU domain (sysfs iommu_group/type):
			      * "none" (no group: no IOMMU), "identity" (passthrough),
			      * "translated" (DMA, DMA-FQ), "unknown" */
	unsigned sm_mhz, sm_max_mhz, mem_mhz, mem_max_mhz; /* NVML clocks, MHz; 0 unknown */
	long long clocks_event_reasons; /* NVML bitmask (GPU_CLOCKS_*), -1 unknown */
	int compute_procs;   /* processes with a compute context on it (NVML); -1 unknown */
	struct gpu_topo_src src;
};

struct gpu_topo {
	enum gpu_order order;
	char order_note[240];  /* how the order was found, e.g. "NVIDIA PCI devices in
				* PCI bus order, which need not be CUDA's: no NVIDIA
				* driver (libcuda.so.1 not found)" */
	int cuda_loaded;       /* libcuda.so.1 was found (a driver is installed) */
	char cuda_note[160];   /* the driver's word when it listed nothing or failed,
				* e.g. "cuInit/cuDeviceGetCount: CUDA_ERROR_UNKNOWN (999)" */
	int nvml_loaded;       /* libnvidia-ml.so.1 loaded and initialised */
	char driver_version[32]; /* NVML's "580.159.04", or "" */
	int cuda_driver_version; /* NVML's 13000, or 0 */
	int n;                 /* entries in dev[] */
	int not_in_cuda;       /* order CUDA: NVIDIA GPUs in sysfs that CUDA does not
				* list (CUDA_VISIBLE_DEVICES, or unusable) */
	int left_out;          /* devices past GPU_TOPO_MAX_GPUS, not in dev[] */
	struct gpu_topo_dev dev[GPU_TOPO_MAX_GPUS];
};

/*
 * Why the GPU's clocks are below their maximum: NVML's clocks-event reason
 * bits (nvmlClocksEventReason*, the older nvmlClocksThrottleReason* share the
 * values), https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html
 */
#define GPU_CLOCKS_GPU_IDLE        0x001ull
#define GPU_CLOCKS_APP_SETTING     0x002ull
#define GPU_CLOCKS_SW_POWER_CAP    0x004ull
#define GPU_CLOCKS_HW_SLOWDOWN     0x008ull
#define GPU_CLOCKS_SYNC_BOOST      0x010ull
#define GPU_CLOCKS_SW_THERMAL      0x020ull
#define GPU_CLOCKS_HW_THERMAL      0x040ull
#define GPU_CLOCKS_HW_POWER_BRAKE  0x080ull
#define GPU_CLOCKS_DISPLAY_SETTING 0x100ull

/*
 * The name of reason bit i (0..8) of that mask, as results.json writes it
 * ("gpu_idle", "sw_power_cap", ...), or NULL past the known bits.
 */
const char *gpu_clocks_reason_name(int bit);

/*
 * The word for an IOMMU group's type file ("identity", "DMA", "DMA-FQ", ...):
 * "identity", "translated", or "unknown"; NULL or "" is "unknown".
 */
const char *gpu_iommu_word(const char *group_type);

/* gpu_topo_scan flags: the live sources to ask (only with root "/sys"). */
#define GPU_TOPO_CUDA 1u /* the driver API: runs cuInit in this process */
#define GPU_TOPO_NVML 2u /* NVML: names, link, memory; does not initialise CUDA */

/*
 * The GPUs of this machine (sysfs_root "/sys", or a fixture tree such as
 * harness/tests/fixtures/gpus/sys), asking the live sources in `flags`.
 * Never fails for a missing or partial tree: what cannot be read stays
 * unknown.  Returns 0, or -1 with errno = EINVAL for a NULL argument.
 */
int gpu_topo_scan(const char *sysfs_root, unsigned flags, struct gpu_topo *t);

/* What the CUDA driver says, in its device order. */
struct gpu_cuda_list {
	int loaded;            /* libcuda.so.1 was found */
	int ok;                /* cuInit and cuDeviceGetCount answered (n may be 0) */
	char why[160];         /* when !ok, or n == 0: what the driver said */
	int n;                 /* devices CUDA lists (kept: at most GPU_TOPO_MAX_GPUS) */
	int left_out;          /* devices past GPU_TOPO_MAX_GPUS */
	char bus_id[GPU_TOPO_MAX_GPUS][GPU_BDF_LEN]; /* cuDeviceGetPCIBusId: "0000:3B:00.0"; "" unknown */
	char name[GPU_TOPO_MAX_GPUS][GPU_NAME_LEN];  /* cuDeviceGetName; "" unknown */
};

/*
 * Ask the driver API (cuInit, cuDeviceGetCount, cuDeviceGet,
 * cuDeviceGetPCIBusId, cuDeviceGetName).  0 with c->ok = 1 (no visible device
 * counts, gpu_cuda_none_visible: n = 0, c->why says so); -1 with c->why and
 * errno = ENOENT (no libcuda.so.1), ENOSYS (an entry point is missing) or
 * EIO (cuInit or a query failed).
 */
int gpu_cuda_list_read(struct gpu_cuda_list *c);

/*
 * Whether cuInit's result e (CUresult; e_text its name, "CUDA_ERROR_NO_DEVICE
 * (100)") means a driver that is there but shows no device:
 * CUDA_ERROR_NO_DEVICE, or CUDA_ERROR_INVALID_DEVICE (a CUDA_VISIBLE_DEVICES
 * entry that names no GPU).  Then 1, with why (len bytes) saying so and
 * naming CUDA_VISIBLE_DEVICES's value (visible; NULL when it is unset), never
 * "no driver": libcuda.so.1 was loaded.  Otherwise 0, why untouched.
 */
int gpu_cuda_none_visible(int e, const char *e_text, const char *visible, char *why,
			  size_t len);

/*
 * Whether --device `ordinal` names a GPU CUDA lists.  0 when it does, and
 * when CUDA lists none or did not answer (the lab's own skip says why);
 * else -1 with msg (len bytes) "CUDA lists N device(s), 0 to N-1" -- one
 * rule for every lab: a usage error before anything is measured.
 */
int gpu_ordinal_check(int ordinal, const struct gpu_cuda_list *c, char *msg, size_t len);

/*
 * The sysfs part of gpu_topo_scan, on CUDA's answer (tests pass a made-up
 * one): cuda with ok = 1 gives CUDA's order, NULL or ok = 0 the PCI bus order
 * (cuda->why, when given, says why in order_note).  NVML is not asked.
 * 0, or -1 with errno = EINVAL for a NULL root or t.
 */
int gpu_topo_build(const char *sysfs_root, const struct gpu_cuda_list *cuda,
		   struct gpu_topo *t);

/*
 * The device a lab's --device N names: dev[N] (CUDA device N when the order
 * is CUDA's, else the N-th NVIDIA PCI device by bus id).  NULL when N < 0 or
 * N >= t->n.
 */
const struct gpu_topo_dev *gpu_topo_device(const struct gpu_topo *t, int ordinal);

/* The entry with PCI bus id bus_id (any case, 4- or 8-digit domain), or NULL. */
const struct gpu_topo_dev *gpu_topo_find(const struct gpu_topo *t, const char *bus_id);

/*
 * The PCIe generation of a sysfs link speed: "2.5 GT/s PCIe" -> 1, 5 -> 2,
 * 8 -> 3, 16 -> 4, 32 -> 5, "64.0 GT/s PCIe" -> 6; 0 for "Unknown", "" or a
 * rate no generation has.
 */
int gpu_link_speed_gen(const char *speed);

/* libnvidia-ml.so.1 loaded and initialised (nvmlInit_v2), for a reader's own
 * dlsym; NULL without it.  gpu_nvml_close shuts it down and unloads it (NULL:
 * nothing).  The one loader of NVML: gpu_topo.c's scan and gpu_counters.c. */
void *gpu_nvml_open(void);
void gpu_nvml_close(void *lib);

/* "cuda", "sysfs", "nvml", "none": for notes and reports. */
const char *gpu_src_name(enum gpu_src s);

/* One GPU's memory as NVML reports it (nvmlMemory_t v1), bytes. */
struct gpu_nvml_memory {
	uint64_t total, free, used; /* used: by every process and the driver */
	int processes;  /* compute processes with a context on it; -1 unknown */
	char why[160];  /* on failure: what went wrong */
};

/*
 * Read NVML's memory figures and compute-process count of the GPU at PCI
 * bus id bus_id (any spelling gpu_topo_find takes).  NVML is loaded,
 * initialised and shut down within the call; it makes no CUDA context, so
 * a process can read its GPU's memory before and after making its own.
 * Returns 0, or -1 with m->why and errno EINVAL (NULL or a bad bus id),
 * ENOENT (no NVML), ENODEV (NVML lists no such GPU) or EIO (the query
 * failed).
 */
int gpu_nvml_memory(const char *bus_id, struct gpu_nvml_memory *m);

/* ------------------------------------------------------------------------ */
/* GPU to GPU: the matrix of `nvidia-smi topo -m`, from NVML and sysfs      */

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
