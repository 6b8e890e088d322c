/*
 * gpu_topo.h - one GPU scan: which CUDA device is which PCI device, its NUMA
 * node and its PCIe link.  Three sources joined by PCI bus id: the CUDA
 * driver API (dlopen: the device order and names), sysfs (node, link) and
 * NVML (names, memory, link, NVLink); every field says its source.  NVML's
 * link replaces sysfs's.  CUDA and NVML are asked only when the root is
 * "/sys": a fixture tree is never mixed with this machine.  Without CUDA's
 * answer the list is in PCI bus order.  Asking CUDA runs cuInit: such a
 * process must not fork (without exec) and use CUDA in the child.
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
	int numa_node;       /* >= 0; -1 sysfs says unknown (typical in VMs); -2 no
	                        numa_node file */
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
	char order_note[240];  /* how the order was found */
	int cuda_loaded;       /* libcuda.so.1 was found (a driver is installed) */
	char cuda_note[160];   /* the driver's word when it listed nothing or failed */
	int nvml_loaded;       /* libnvidia-ml.so.1 loaded and initialised */
	char driver_version[32]; /* NVML's "580.159.04", or "" */
	int cuda_driver_version; /* NVML's 13000, or 0 */
	int n;                 /* entries in dev[] */
	int not_in_cuda;       /* order CUDA: NVIDIA GPUs in sysfs that CUDA does not
				* list (CUDA_VISIBLE_DEVICES, or unusable) */
	int left_out;          /* devices past GPU_TOPO_MAX_GPUS, not in dev[] */
	struct gpu_topo_dev dev[GPU_TOPO_MAX_GPUS];
};

/* NVML's clocks-event reason bits (nvmlClocksEventReason*). */
#define GPU_CLOCKS_GPU_IDLE        0x001ull
#define GPU_CLOCKS_APP_SETTING     0x002ull
#define GPU_CLOCKS_SW_POWER_CAP    0x004ull
#define GPU_CLOCKS_HW_SLOWDOWN     0x008ull
#define GPU_CLOCKS_SYNC_BOOST      0x010ull
#define GPU_CLOCKS_SW_THERMAL      0x020ull
#define GPU_CLOCKS_HW_THERMAL      0x040ull
#define GPU_CLOCKS_HW_POWER_BRAKE  0x080ull
#define GPU_CLOCKS_DISPLAY_SETTING 0x100ull

/* The name of reason bit i as results.json writes it, or NULL past the known. */
const char *gpu_clocks_reason_name(int bit);

/* An IOMMU group's type as "identity", "translated", or "unknown". */
const char *gpu_iommu_word(const char *group_type);

/* gpu_topo_scan flags: the live sources to ask (only with root "/sys"). */
#define GPU_TOPO_CUDA 1u /* the driver API: runs cuInit in this process */
#define GPU_TOPO_NVML 2u /* NVML: names, link, memory; does not initialise CUDA */

/* The GPUs under sysfs_root, asking the live sources in `flags`; what cannot be
 * read stays unknown.  -1 (EINVAL) only for a NULL argument. */
int gpu_topo_scan(const char *sysfs_root, unsigned flags, struct gpu_topo *t);

/* What the CUDA driver says, in its device order. */
struct gpu_cuda_list {
	int loaded;            /* libcuda.so.1 was found */
	int ok;                /* cuInit and cuDeviceGetCount answered (n may be 0) */
	char why[160];         /* when !ok, or n == 0: what the driver said */
	int n;                 /* devices CUDA lists (kept: at most GPU_TOPO_MAX_GPUS) */
	int left_out;          /* devices past GPU_TOPO_MAX_GPUS */
	/* cuDeviceGetPCIBusId: "0000:3B:00.0"; "" unknown */
	char bus_id[GPU_TOPO_MAX_GPUS][GPU_BDF_LEN];
	char name[GPU_TOPO_MAX_GPUS][GPU_NAME_LEN];  /* cuDeviceGetName; "" unknown */
};

/* Ask the driver API: 0 (no visible device: n = 0, why says so), or -1 with
 * c->why and errno ENOENT (no libcuda.so.1), ENOSYS or EIO. */
int gpu_cuda_list_read(struct gpu_cuda_list *c);

/* 1 when cuInit's result e means a driver that shows no device (why names
 * CUDA_VISIBLE_DEVICES, never "no driver"); else 0, why untouched. */
int gpu_cuda_none_visible(int e, const char *e_text, const char *visible, char *why,
			  size_t len);

/* 0 when --device `ordinal` names a GPU CUDA lists (or CUDA lists none: the
 * lab's skip says why); else -1 with msg, a usage error for every lab. */
int gpu_ordinal_check(int ordinal, const struct gpu_cuda_list *c, char *msg, size_t len);

/* The sysfs part of gpu_topo_scan, on CUDA's answer (NULL: PCI bus order). */
int gpu_topo_build(const char *sysfs_root, const struct gpu_cuda_list *cuda,
		   struct gpu_topo *t);

/* dev[ordinal], or NULL out of range. */
const struct gpu_topo_dev *gpu_topo_device(const struct gpu_topo *t, int ordinal);

/* The entry with PCI bus id bus_id (any case, 4- or 8-digit domain), or NULL. */
const struct gpu_topo_dev *gpu_topo_find(const struct gpu_topo *t, const char *bus_id);

/*
 * A PCI bus id in the form sysfs uses: "00000000:3B:00.0" (NVML, CUDA) ->
 * "0000:3b:00.0".  Returns 0, or -1 if `in` is not a bus id.
 */
int pci_bdf_normalise(const char *in, char *out, size_t len);

/* The PCIe generation of a sysfs link speed ("2.5 GT/s PCIe" -> 1); 0 unknown. */
int gpu_link_speed_gen(const char *speed);

/* libnvidia-ml.so.1 loaded and initialised (nvmlInit_v2), for a reader's own
 * dlsym; NULL without it.  gpu_nvml_close shuts it down and unloads it (NULL:
 * nothing).  The one loader of NVML: gpu_topo.c's scan and gpu_counters.c. */
void *gpu_nvml_open(void);
void gpu_nvml_close(void *lib);

/* "cuda", "sysfs", "nvml", "none": for notes and reports. */
const char *gpu_src_name(enum gpu_src s);

/* nvmlPciInfo_t, as nvmlDeviceGetPciInfo_v3 and the NVLink remote queries fill it. */
struct gpu_nvml_pci_info {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];   /* "00000000:3B:00.0" */
};

/* The nvmlDevice_t of the GPU at bus_id, or NULL. */
void *gpu_nvml_device(void *lib, const char *bus_id);
/* Processes with a compute context on that device (NVML's count), -1 unknown. */
int gpu_nvml_processes(void *lib, void *dev);

#ifdef __cplusplus
}
#endif
#endif
