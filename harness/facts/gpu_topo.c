/*
 * gpu_topo.c - one GPU scan (gpu_topo.h).  Neither the CUDA runtime nor
 * nvml.h is needed to build: both libraries are loaded at run time and the
 * few types used are declared here.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_topo.h"
#include "numa_topo.h"
#include "procfs.h"
#include "sysfs.h"

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_BASE_CLASS_DISPLAY 0x03 /* VGA 0x0300, 3D controller 0x0302 (data centre), ... */
#define SYSFS_SCAN_MAX 256          /* NVIDIA GPUs one sysfs scan can hold */
#define PATH_LEN 4096

const char *gpu_src_name(enum gpu_src s)
{
	static const char *const names[] = { "none", "cuda", "sysfs", "nvml" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "none";
}

/* Set a link field from a source, only when that source knows it (v > 0). */
static void set_known(int *field, enum gpu_src *src, long v, enum gpu_src from)
{
	if (v <= 0 || v > 64)
		return;
	*field = (int)v;
	*src = from;
}

/* ---- sysfs ---- */

int pci_bdf_normalise(const char *in, char *out, size_t len)
{
	unsigned int dom, bus, dev, fn;

	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return -1;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* <root>/bus/pci/devices/<bdf>/<attr>; -1 with ENAMETOOLONG rather than a cut path. */
static int dev_path(char *out, size_t len, const char *root, const char *bdf,
		    const char *attr)
{
	int n = snprintf(out, len, "%s/bus/pci/devices/%s%s%s", root, bdf,
			 attr ? "/" : "", attr ? attr : "");

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int dev_read_str(const char *root, const char *bdf, const char *attr,
			char *buf, size_t len)
{
	char path[PATH_LEN];

	if (dev_path(path, sizeof(path), root, bdf, attr) < 0)
		return -1;
	return sysfs_read_str(path, buf, len);
}

static int dev_read_long(const char *root, const char *bdf, const char *attr, long *v)
{
	char path[PATH_LEN];

	if (dev_path(path, sizeof(path), root, bdf, attr) < 0)
		return -1;
	return sysfs_read_long(path, v);
}

int gpu_link_speed_gen(const char *speed)
{
	static const double gts[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	char *end;
	double v;

	if (!speed)
		return 0;
	v = strtod(speed, &end);
	if (end == speed)
		return 0;
	for (int i = 0; i < 6; i++)
		if (v > gts[i] - 0.01 && v < gts[i] + 0.01)
			return i + 1;
	return 0;
}

/* A display or 3D controller (base class 0x03) from NVIDIA: not its audio
 * function, not an NVSwitch (a bridge). */
static int is_nvidia_gpu(const char *root, const char *bdf)
{
	long vendor, class_code;

	if (dev_read_long(root, bdf, "vendor", &vendor) < 0 || vendor != PCI_VENDOR_NVIDIA)
		return 0;
	if (dev_read_long(root, bdf, "class", &class_code) < 0)
		return 0;
	return (class_code >> 16) == PCI_BASE_CLASS_DISPLAY;
}

static int cmp_bdf(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static int cmp_dev_bdf(const void *a, const void *b)
{
	return strcmp(((const struct gpu_topo_dev *)a)->bdf, ((const struct gpu_topo_dev *)b)->bdf);
}

/* NVIDIA GPUs below root, in PCI bus order: how many (at most max). */
static int sysfs_gpus(const char *root, char (*bdf)[GPU_BDF_LEN], int max)
{
	char path[PATH_LEN];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (dev_path(path, sizeof(path), root, "", NULL) < 0)
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= GPU_BDF_LEN)
			continue;
		if (is_nvidia_gpu(root, de->d_name))
			copy_str(bdf[n++], GPU_BDF_LEN, de->d_name);
	}
	closedir(d);
	qsort(bdf, (size_t)n, GPU_BDF_LEN, cmp_bdf);
	return n;
}

const char *gpu_iommu_word(const char *group_type)
{
	if (!group_type || !group_type[0])
		return "unknown";
	if (!strcmp(group_type, "identity"))
		return "identity";
	/* DMA-FQ is DMA with a flush queue: both translate every device address */
	if (!strcmp(group_type, "DMA") || !strcmp(group_type, "DMA-FQ"))
		return "translated";
	return "unknown";
}

/* A device in no IOMMU group has no IOMMU in front of it; a group without a
 * type file (kernels before 5.11) is "unknown". */
static void read_iommu(const char *root, struct gpu_topo_dev *g)
{
	char path[PATH_LEN], type[32];
	struct stat st;

	copy_str(g->iommu, sizeof(g->iommu), "unknown");
	if (dev_path(path, sizeof(path), root, g->bdf, NULL) < 0 || stat(path, &st) < 0)
		return;
	if (dev_path(path, sizeof(path), root, g->bdf, "iommu_group") == 0 &&
	    stat(path, &st) < 0 && errno == ENOENT) {
		copy_str(g->iommu, sizeof(g->iommu), "none");
		return;
	}
	if (dev_read_str(root, g->bdf, "iommu_group/type", type, sizeof(type)) == 0)
		copy_str(g->iommu, sizeof(g->iommu), gpu_iommu_word(type));
}

/* NUMA node, link and (when no better source named it) the device id. */
static void read_sysfs(const char *root, struct gpu_topo_dev *g)
{
	struct gpu_topo_src *s = &g->src;
	char buf[64];
	long v;

	if (!g->bdf[0])
		return;
	g->numa_node = pci_numa_node(root, g->bdf);
	if (g->numa_node != -2)
		s->numa_node = GPU_SRC_SYSFS;
	if (s->name == GPU_SRC_NONE && dev_read_long(root, g->bdf, "device", &v) == 0) {
		snprintf(g->name, sizeof(g->name), "NVIDIA device 0x%04lx", v);
		s->name = GPU_SRC_SYSFS;
	}
	if (dev_read_str(root, g->bdf, "current_link_speed", buf, sizeof(buf)) == 0)
		set_known(&g->pcie_gen_cur, &s->gen_cur, gpu_link_speed_gen(buf), GPU_SRC_SYSFS);
	if (dev_read_str(root, g->bdf, "max_link_speed", buf, sizeof(buf)) == 0)
		set_known(&g->pcie_gen_max, &s->gen_max, gpu_link_speed_gen(buf), GPU_SRC_SYSFS);
	if (dev_read_long(root, g->bdf, "current_link_width", &v) == 0)
		set_known(&g->pcie_width_cur, &s->width_cur, v, GPU_SRC_SYSFS);
	if (dev_read_long(root, g->bdf, "max_link_width", &v) == 0)
		set_known(&g->pcie_width_max, &s->width_max, v, GPU_SRC_SYSFS);
	read_iommu(root, g);
}

/* A new entry for bus_id (normalised; "" if it is not a bus id), or NULL when full. */
static struct gpu_topo_dev *add_dev(struct gpu_topo *t, const char *bus_id)
{
	struct gpu_topo_dev *g;

	if (t->n >= GPU_TOPO_MAX_GPUS) {
		t->left_out++;
		return NULL;
	}
	g = &t->dev[t->n++];
	memset(g, 0, sizeof(*g));
	g->cuda_ordinal = g->nvml_index = -1;
	g->cc_major = g->cc_minor = -1;
	g->numa_node = -2;
	g->clocks_event_reasons = -1;
	g->compute_procs = -1;
	copy_str(g->iommu, sizeof(g->iommu), "unknown");
	if (pci_bdf_normalise(bus_id, g->bdf, sizeof(g->bdf)) < 0)
		g->bdf[0] = '\0';
	return g;
}

const struct gpu_topo_dev *gpu_topo_device(const struct gpu_topo *t, int ordinal)
{
	if (!t || ordinal < 0 || ordinal >= t->n)
		return NULL;
	return &t->dev[ordinal];
}

const struct gpu_topo_dev *gpu_topo_find(const struct gpu_topo *t, const char *bus_id)
{
	char bdf[GPU_BDF_LEN];

	if (!t || !bus_id || pci_bdf_normalise(bus_id, bdf, sizeof(bdf)) < 0)
		return NULL;
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->dev[i].bdf, bdf) == 0)
			return &t->dev[i];
	return NULL;
}

/* dev[] in CUDA's order; the sysfs GPUs CUDA does not list are only counted. */
static void build_cuda_order(struct gpu_topo *t, const struct gpu_cuda_list *cuda,
			     char (*found)[GPU_BDF_LEN], int nsys)
{
	t->order = GPU_ORDER_CUDA;
	t->left_out = cuda->left_out;
	for (int i = 0; i < cuda->n && i < GPU_TOPO_MAX_GPUS; i++) {
		struct gpu_topo_dev *g = add_dev(t, cuda->bus_id[i]);

		if (!g)
			break;
		g->cuda_ordinal = i;
		if (cuda->name[i][0]) {
			copy_str(g->name, sizeof(g->name), cuda->name[i]);
			g->src.name = GPU_SRC_CUDA;
		}
	}
	for (int i = 0; i < nsys; i++)
		if (!gpu_topo_find(t, found[i]))
			t->not_in_cuda++;
	snprintf(t->order_note, sizeof(t->order_note), "CUDA's device order (driver API, "
		 "%d device%s%s)", t->n, t->n == 1 ? "" : "s",
		 getenv("CUDA_VISIBLE_DEVICES") ? ", CUDA_VISIBLE_DEVICES set" : "");
}

int gpu_topo_build(const char *sysfs_root, const struct gpu_cuda_list *cuda,
		   struct gpu_topo *t)
{
	char found[SYSFS_SCAN_MAX][GPU_BDF_LEN]; /* 8 KiB */
	int nsys;

	if (!sysfs_root || !t) {
		errno = EINVAL;
		return -1;
	}
	memset(t, 0, sizeof(*t));
	t->cuda_loaded = cuda && cuda->loaded;
	if (cuda)
		copy_str(t->cuda_note, sizeof(t->cuda_note), cuda->why);
	nsys = sysfs_gpus(sysfs_root, found, SYSFS_SCAN_MAX);
	if (cuda && cuda->ok) {
		build_cuda_order(t, cuda, found, nsys);
	} else {
		t->order = GPU_ORDER_PCI_BUS;
		for (int i = 0; i < nsys; i++)
			add_dev(t, found[i]);
		snprintf(t->order_note, sizeof(t->order_note), "NVIDIA PCI devices in PCI bus "
			 "order, which need not be CUDA's: %s",
			 cuda && cuda->why[0] ? cuda->why : "CUDA not asked");
	}
	for (int i = 0; i < t->n; i++)
		read_sysfs(sysfs_root, &t->dev[i]);
	return 0;
}

/* ---- CUDA driver API, loaded at run time (no cuda.h needed to build) ---- */

typedef int cu_result;  /* CUresult: 0 = CUDA_SUCCESS */
typedef int cu_device;  /* CUdevice */

#define CU_OK 0
#define CU_ERROR_NO_DEVICE 100
#define CU_ERROR_INVALID_DEVICE 101

struct cuda_api {
	cu_result (*init)(unsigned int flags);
	cu_result (*count)(int *n);
	cu_result (*get)(cu_device *d, int ordinal);
	cu_result (*bus_id)(char *buf, int len, cu_device d);
	cu_result (*name)(char *buf, int len, cu_device d);
	cu_result (*err_name)(cu_result e, const char **s); /* optional */
};

/* POSIX's way to turn dlsym's void * into a function pointer. */
#define DL_SYM(lib, api, field, sym) (*(void **)&(api)->field = dlsym((lib), sym))

static const char *cu_err(const struct cuda_api *api, cu_result e, char *buf, size_t len)
{
	const char *s = NULL;

	if (api->err_name && api->err_name(e, &s) == CU_OK && s)
		snprintf(buf, len, "%s (%d)", s, e);
	else
		snprintf(buf, len, "CUresult %d", e);
	return buf;
}

/* Bus id and name of each device; -1 with c->why when a query fails. */
static int cuda_devices(const struct cuda_api *api, struct gpu_cuda_list *c, int n)
{
	char err[64];
	cu_result e;
	cu_device d;

	c->n = n < GPU_TOPO_MAX_GPUS ? n : GPU_TOPO_MAX_GPUS;
	c->left_out = n - c->n;
	for (int i = 0; i < c->n; i++) {
		e = api->get(&d, i);
		if (e == CU_OK)
			e = api->bus_id(c->bus_id[i], GPU_BDF_LEN, d);
		if (e != CU_OK) {
			snprintf(c->why, sizeof(c->why), "cuDeviceGet/cuDeviceGetPCIBusId(%d): %s",
				 i, cu_err(api, e, err, sizeof(err)));
			errno = EIO;
			return -1;
		}
		if (api->name(c->name[i], GPU_NAME_LEN, d) != CU_OK)
			c->name[i][0] = '\0';
	}
	return 0;
}

int gpu_ordinal_check(int ordinal, const struct gpu_cuda_list *c, char *msg, size_t len)
{
	int n = c->n + c->left_out;

	if (!c->ok || n == 0 || (ordinal >= 0 && ordinal < n))
		return 0;
	if (n == 1)
		snprintf(msg, len, "CUDA lists 1 device, 0");
	else
		snprintf(msg, len, "CUDA lists %d devices, 0 to %d", n, n - 1);
	return -1;
}

int gpu_cuda_none_visible(int e, const char *e_text, const char *visible, char *why,
			  size_t len)
{
	if (e != CU_ERROR_NO_DEVICE && e != CU_ERROR_INVALID_DEVICE)
		return 0;
	if (visible)
		snprintf(why, len, "cuInit: %s: the driver is there, no device is visible "
			 "(CUDA_VISIBLE_DEVICES='%s')", e_text, visible);
	else
		snprintf(why, len, "cuInit: %s: the driver is there, CUDA sees no device", e_text);
	return 1;
}

int gpu_cuda_list_read(struct gpu_cuda_list *c)
{
	struct cuda_api api;
	char err[64];
	void *lib;
	cu_result e;
	int n = 0;

	memset(c, 0, sizeof(*c));
	memset(&api, 0, sizeof(api));
	lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!lib) {
		snprintf(c->why, sizeof(c->why), "no NVIDIA driver (libcuda.so.1 not found)");
		errno = ENOENT;
		return -1;
	}
	c->loaded = 1;
	DL_SYM(lib, &api, err_name, "cuGetErrorName");
	if (!DL_SYM(lib, &api, init, "cuInit") || !DL_SYM(lib, &api, count, "cuDeviceGetCount") ||
	    !DL_SYM(lib, &api, get, "cuDeviceGet") ||
	    !DL_SYM(lib, &api, bus_id, "cuDeviceGetPCIBusId") ||
	    !DL_SYM(lib, &api, name, "cuDeviceGetName")) {
		snprintf(c->why, sizeof(c->why), "libcuda.so.1 lacks a device query entry point");
		dlclose(lib); /* nothing of it ran */
		errno = ENOSYS;
		return -1;
	}
	/* From here on libcuda stays loaded: cuInit may start driver threads. */
	e = api.init(0);
	if (gpu_cuda_none_visible(e, cu_err(&api, e, err, sizeof(err)),
				  getenv("CUDA_VISIBLE_DEVICES"), c->why, sizeof(c->why))) {
		c->ok = 1;
		return 0;
	}
	if (e == CU_OK)
		e = api.count(&n);
	if (e != CU_OK) {
		snprintf(c->why, sizeof(c->why), "cuInit/cuDeviceGetCount: %s",
			 cu_err(&api, e, err, sizeof(err)));
		errno = EIO;
		return -1;
	}
	if (cuda_devices(&api, c, n) < 0)
		return -1;
	c->ok = 1;
	return 0;
}

/* ---- NVML, loaded at run time (no nvml.h needed to build) ---- */

typedef int nvml_ret;                 /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_dev_st *nvml_dev; /* nvmlDevice_t */

#define NVML_OK 0
#define NVML_FEATURE_ENABLED 1
#define NVML_NVLINK_MAX_LINKS 18

struct nvml_memory {       /* nvmlMemory_t (v1) */
	unsigned long long total, free, used; /* bytes */
};

struct nvml_api {
	void *lib;
	nvml_ret (*driver_version)(char *buf, unsigned int len);
	nvml_ret (*cuda_driver_version)(int *v);
	nvml_ret (*count)(unsigned int *n);
	nvml_ret (*handle)(unsigned int i, nvml_dev *d);
	nvml_ret (*name)(nvml_dev d, char *buf, unsigned int len);
	nvml_ret (*cc)(nvml_dev d, int *major, int *minor);
	nvml_ret (*memory)(nvml_dev d, struct nvml_memory *m);
	nvml_ret (*pci)(nvml_dev d, struct gpu_nvml_pci_info *p);
	nvml_ret (*gen_cur)(nvml_dev d, unsigned int *v);
	nvml_ret (*width_cur)(nvml_dev d, unsigned int *v);
	nvml_ret (*gen_max)(nvml_dev d, unsigned int *v);
	nvml_ret (*width_max)(nvml_dev d, unsigned int *v);
	nvml_ret (*nvlink_state)(nvml_dev d, unsigned int link, int *state);
	nvml_ret (*uuid)(nvml_dev d, char *buf, unsigned int len);
	nvml_ret (*clock)(nvml_dev d, int type, unsigned int *mhz);
	nvml_ret (*clock_max)(nvml_dev d, int type, unsigned int *mhz);
	nvml_ret (*clock_reasons)(nvml_dev d, unsigned long long *mask);
};

#define NVML_SYM(api, field, sym) DL_SYM((api)->lib, api, field, sym)

static void nvml_bind(struct nvml_api *api)
{
	NVML_SYM(api, driver_version, "nvmlSystemGetDriverVersion");
	if (!NVML_SYM(api, cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2"))
		NVML_SYM(api, cuda_driver_version, "nvmlSystemGetCudaDriverVersion");
	NVML_SYM(api, count, "nvmlDeviceGetCount_v2");
	NVML_SYM(api, handle, "nvmlDeviceGetHandleByIndex_v2");
	NVML_SYM(api, name, "nvmlDeviceGetName");
	NVML_SYM(api, cc, "nvmlDeviceGetCudaComputeCapability");
	NVML_SYM(api, memory, "nvmlDeviceGetMemoryInfo");
	/* _v2 fills the same layout; the unversioned one does not. */
	if (!NVML_SYM(api, pci, "nvmlDeviceGetPciInfo_v3"))
		NVML_SYM(api, pci, "nvmlDeviceGetPciInfo_v2");
	NVML_SYM(api, gen_cur, "nvmlDeviceGetCurrPcieLinkGeneration");
	NVML_SYM(api, width_cur, "nvmlDeviceGetCurrPcieLinkWidth");
	NVML_SYM(api, gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
	NVML_SYM(api, width_max, "nvmlDeviceGetMaxPcieLinkWidth");
	NVML_SYM(api, nvlink_state, "nvmlDeviceGetNvLinkState");
	NVML_SYM(api, uuid, "nvmlDeviceGetUUID");
	NVML_SYM(api, clock, "nvmlDeviceGetClockInfo");
	NVML_SYM(api, clock_max, "nvmlDeviceGetMaxClockInfo");
	/* renamed in R535; the old name stays as an alias in newer drivers */
	if (!NVML_SYM(api, clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
		NVML_SYM(api, clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
}

void *gpu_nvml_open(void)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	nvml_ret (*init)(void) = NULL;

	if (!lib)
		return NULL;
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	if (!init || !dlsym(lib, "nvmlShutdown") || init() != NVML_OK) {
		dlclose(lib);
		return NULL;
	}
	return lib;
}

void gpu_nvml_close(void *lib)
{
	nvml_ret (*shutdown)(void) = NULL;

	if (!lib)
		return;
	*(void **)&shutdown = dlsym(lib, "nvmlShutdown");
	shutdown();
	dlclose(lib);
}

/* 0 with NVML initialised, -1 when the library or its core entry points are missing. */
static int nvml_open(struct nvml_api *api)
{
	memset(api, 0, sizeof(*api));
	api->lib = gpu_nvml_open();
	if (!api->lib)
		return -1;
	nvml_bind(api);
	if (!api->count || !api->handle || !api->pci) {
		gpu_nvml_close(api->lib);
		api->lib = NULL;
		return -1;
	}
	return 0;
}

/* NVML's link, where it answers, over sysfs's. */
static void nvml_link(const struct nvml_api *api, nvml_dev d, struct gpu_topo_dev *g)
{
	struct gpu_topo_src *s = &g->src;
	unsigned int v;

	if (api->gen_cur && api->gen_cur(d, &v) == NVML_OK)
		set_known(&g->pcie_gen_cur, &s->gen_cur, (long)v, GPU_SRC_NVML);
	if (api->width_cur && api->width_cur(d, &v) == NVML_OK)
		set_known(&g->pcie_width_cur, &s->width_cur, (long)v, GPU_SRC_NVML);
	if (api->gen_max && api->gen_max(d, &v) == NVML_OK)
		set_known(&g->pcie_gen_max, &s->gen_max, (long)v, GPU_SRC_NVML);
	if (api->width_max && api->width_max(d, &v) == NVML_OK)
		set_known(&g->pcie_width_max, &s->width_max, (long)v, GPU_SRC_NVML);
}

#define NVML_CLOCK_SM 1  /* nvmlClockType_t */
#define NVML_CLOCK_MEM 2
#define NVML_INSUFFICIENT_SIZE 7 /* NVML_ERROR_INSUFFICIENT_SIZE: the count came back */

static unsigned nvml_mhz(nvml_ret (*fn)(nvml_dev, int, unsigned int *), nvml_dev d, int type)
{
	unsigned int mhz;

	return fn && fn(d, type, &mhz) == NVML_OK ? mhz : 0;
}

int gpu_nvml_processes(void *lib, void *dev)
{
	nvml_ret (*procs)(nvml_dev d, unsigned int *count, void *infos) = NULL;
	unsigned int count = 0;
	nvml_ret e;

	if (!lib || !dev)
		return -1;
	/* asked with an empty list, every version answers the count alike */
	if (!(*(void **)&procs = dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3")) &&
	    !(*(void **)&procs = dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v2")))
		*(void **)&procs = dlsym(lib, "nvmlDeviceGetComputeRunningProcesses");
	if (!procs)
		return -1;
	e = procs((nvml_dev)dev, &count, NULL);
	return e == NVML_OK || e == NVML_INSUFFICIENT_SIZE ? (int)count : -1;
}

/* What a fleet compares nodes by: identity, clocks and why they are held
 * back, other users of the GPU, at the time of the scan. */
static void nvml_state(const struct nvml_api *api, nvml_dev d, struct gpu_topo_dev *g)
{
	char uuid[GPU_UUID_LEN];
	unsigned long long mask;

	if (api->uuid && api->uuid(d, uuid, sizeof(uuid)) == NVML_OK)
		copy_str(g->uuid, sizeof(g->uuid), uuid);
	g->sm_mhz = nvml_mhz(api->clock, d, NVML_CLOCK_SM);
	g->sm_max_mhz = nvml_mhz(api->clock_max, d, NVML_CLOCK_SM);
	g->mem_mhz = nvml_mhz(api->clock, d, NVML_CLOCK_MEM);
	g->mem_max_mhz = nvml_mhz(api->clock_max, d, NVML_CLOCK_MEM);
	if (api->clock_reasons && api->clock_reasons(d, &mask) == NVML_OK)
		g->clocks_event_reasons = (long long)mask;
	g->compute_procs = gpu_nvml_processes(api->lib, d);
}

const char *gpu_clocks_reason_name(int bit)
{
	static const char *const names[] = {
		"gpu_idle", "applications_clocks", "sw_power_cap", "hw_slowdown",
		"sync_boost", "sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks",
	};

	return bit >= 0 && bit < (int)(sizeof(names) / sizeof(names[0])) ? names[bit] : NULL;
}

static int nvml_active_links(const struct nvml_api *api, nvml_dev d)
{
	int active = 0, state;

	if (!api->nvlink_state)
		return 0;
	for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++)
		if (api->nvlink_state(d, link, &state) == NVML_OK &&
		    state == NVML_FEATURE_ENABLED)
			active++;
	return active;
}

/*
 * NVML's device idx, joined to its entry by bus id.  In PCI bus order a GPU
 * sysfs lacks is added; in CUDA's order only CUDA's devices are listed.
 */
static void nvml_device(const struct nvml_api *api, unsigned int idx, struct gpu_topo *t,
			const char *sysfs_root)
{
	struct gpu_nvml_pci_info pci;
	struct nvml_memory mem;
	struct gpu_topo_dev *g;
	char name[GPU_NAME_LEN], bdf[GPU_BDF_LEN];
	nvml_dev d;

	if (api->handle(idx, &d) != NVML_OK || api->pci(d, &pci) != NVML_OK)
		return;
	pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
	if (pci_bdf_normalise(pci.bus_id, bdf, sizeof(bdf)) < 0)
		return;
	g = (struct gpu_topo_dev *)gpu_topo_find(t, bdf);
	if (!g && t->order == GPU_ORDER_PCI_BUS && (g = add_dev(t, bdf)) != NULL)
		read_sysfs(sysfs_root, g);
	if (!g)
		return;
	g->nvml_index = (int)idx;
	if (g->src.name != GPU_SRC_CUDA && api->name &&
	    api->name(d, name, sizeof(name)) == NVML_OK) {
		copy_str(g->name, sizeof(g->name), name);
		g->src.name = GPU_SRC_NVML;
	}
	if (api->cc && api->cc(d, &g->cc_major, &g->cc_minor) != NVML_OK)
		g->cc_major = g->cc_minor = -1;
	if (api->memory && api->memory(d, &mem) == NVML_OK)
		g->mem_total = mem.total;
	nvml_link(api, d, g);
	g->nvlinks_active = nvml_active_links(api, d);
	nvml_state(api, d, g);
}

static void nvml_merge(struct gpu_topo *t, const char *sysfs_root)
{
	struct nvml_api api;
	unsigned int n = 0;
	char version[80] = "";

	if (nvml_open(&api) < 0)
		return;
	t->nvml_loaded = 1;
	/* NVML asks for 80 bytes (NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE). */
	if (api.driver_version && api.driver_version(version, sizeof(version)) == NVML_OK)
		copy_str(t->driver_version, sizeof(t->driver_version), version);
	if (api.cuda_driver_version &&
	    api.cuda_driver_version(&t->cuda_driver_version) != NVML_OK)
		t->cuda_driver_version = 0;
	if (api.count(&n) == NVML_OK)
		for (unsigned int i = 0; i < n; i++)
			nvml_device(&api, i, t, sysfs_root);
	gpu_nvml_close(api.lib);
	/* a GPU only NVML listed joins the bus order in its place */
	if (t->order == GPU_ORDER_PCI_BUS)
		qsort(t->dev, (size_t)t->n, sizeof(t->dev[0]), cmp_dev_bdf);
}

/* ---- The scan ---- */

int gpu_topo_scan(const char *sysfs_root, unsigned flags, struct gpu_topo *t)
{
	struct gpu_cuda_list *cuda = NULL;
	int live, rc;

	if (!sysfs_root || !t) {
		errno = EINVAL;
		return -1;
	}
	live = strcmp(sysfs_root, "/sys") == 0;
	if (live && (flags & GPU_TOPO_CUDA)) {
		cuda = (struct gpu_cuda_list *)malloc(sizeof(*cuda));
		if (cuda)
			gpu_cuda_list_read(cuda);
	}
	rc = gpu_topo_build(sysfs_root, cuda, t);
	free(cuda);
	if (rc == 0 && !live && (flags & (GPU_TOPO_CUDA | GPU_TOPO_NVML)))
		snprintf(t->order_note, sizeof(t->order_note), "NVIDIA PCI devices in PCI bus "
			 "order, which need not be CUDA's: %s is not the live /sys, so "
			 "neither CUDA nor NVML was asked", sysfs_root);
	if (rc == 0 && live && (flags & GPU_TOPO_NVML))
		nvml_merge(t, sysfs_root);
	return rc;
}

/* ---- A lab's own questions to NVML ---- */

/* NVML's device whose PCI bus id is bdf (normalised), or -1. */
static int nvml_find(const struct nvml_api *api, const char *bdf, nvml_dev *out)
{
	struct gpu_nvml_pci_info pci;
	char got[GPU_BDF_LEN];
	unsigned int n = 0;

	if (api->count(&n) != NVML_OK)
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		if (api->handle(i, out) != NVML_OK || api->pci(*out, &pci) != NVML_OK)
			continue;
		pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
		if (pci_bdf_normalise(pci.bus_id, got, sizeof(got)) == 0 && !strcmp(got, bdf))
			return 0;
	}
	return -1;
}

void *gpu_nvml_device(void *lib, const char *bus_id)
{
	struct nvml_api api = { .lib = lib };
	char bdf[GPU_BDF_LEN];
	nvml_dev d;

	if (!lib || !bus_id || pci_bdf_normalise(bus_id, bdf, sizeof(bdf)) < 0)
		return NULL;
	nvml_bind(&api);
	if (!api.count || !api.handle || !api.pci || nvml_find(&api, bdf, &d) < 0)
		return NULL;
	return d;
}
