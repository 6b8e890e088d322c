/*
 * sysinfo.c - the machine facts behind every skip decision and report.
 *
 * Nothing here initialises CUDA: GPUs are found in sysfs (PCI vendor 0x10de,
 * display class) and, when the driver is installed, NVML is loaded with
 * dlopen for names, memory sizes and NVLink state.  A process that called
 * this can still fork+exec labs that use CUDA.
 *
 * Every file is read below a sysfs root and a proc root, so the unit tests
 * run the same code on the fixture trees in harness/tests/fixtures/.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lab.h"
#include "procfs.h"
#include "sysinfo.h"

/* Set by the Makefile from `nvcc --version`; 0 when built without nvcc. */
#ifndef DMALAB_CUDA_RT_VERSION
#define DMALAB_CUDA_RT_VERSION 0
#endif
#ifndef DMALAB_HAVE_NVCC
#define DMALAB_HAVE_NVCC 0
#endif

#define CAP_IPC_LOCK_BIT 14
#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_CLASS_VGA 0x0300  /* display controller, VGA compatible */
#define PCI_CLASS_3D 0x0302   /* 3D controller: data-centre GPUs */
#define PATH_LEN 4096

/* ------------------------------------------------------------------------ */
/* Small readers below a root                                               */

/* "<root>/<rel>" into out; -1 with ENAMETOOLONG rather than a cut path. */
static int join_path(char *out, size_t len, const char *root, const char *rel)
{
	int n = snprintf(out, len, "%s/%s", root, rel);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int read_str_at(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_LEN];

	if (join_path(path, sizeof(path), root, rel) < 0)
		return -1;
	return sysfs_read_str(path, buf, len);
}

static int read_long_at(const char *root, const char *rel, long *v)
{
	char path[PATH_LEN];

	if (join_path(path, sizeof(path), root, rel) < 0)
		return -1;
	return sysfs_read_long(path, v);
}

static int read_kb_at(const char *root, const char *rel, const char *key, uint64_t *v)
{
	char path[PATH_LEN];

	if (join_path(path, sizeof(path), root, rel) < 0)
		return -1;
	return procfs_read_kb_field(path, key, v);
}

/* Copy src into dst (len bytes), cutting it if it is longer. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* ------------------------------------------------------------------------ */
/* Host, memory, NUMA                                                       */

/* Kernel release and host name come from proc_root so fixtures can set them. */
static void collect_host(struct sysinfo *si, const char *sysfs_root, const char *proc_root)
{
	struct utsname u;
	char buf[1024];
	int count, first;

	if (uname(&u) == 0) {
		copy_str(si->kernel, sizeof(si->kernel), u.release);
		copy_str(si->arch, sizeof(si->arch), u.machine);
		copy_str(si->hostname, sizeof(si->hostname), u.nodename);
	}
	if (read_str_at(proc_root, "sys/kernel/osrelease", buf, sizeof(buf)) == 0)
		copy_str(si->kernel, sizeof(si->kernel), buf);
	if (read_str_at(proc_root, "sys/kernel/hostname", buf, sizeof(buf)) == 0)
		copy_str(si->hostname, sizeof(si->hostname), buf);
	si->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (read_str_at(sysfs_root, "devices/system/cpu/online", buf, sizeof(buf)) == 0 &&
	    cpulist_parse(buf, &count, &first) == 0)
		si->cpus_online = count;
	si->page_size = sysconf(_SC_PAGESIZE);
	si->uid = (int)getuid();
}

/* RLIMIT_MEMLOCK in bytes, -1 for unlimited. */
static int64_t rlim_bytes(rlim_t v)
{
	return v == RLIM_INFINITY ? -1 : (int64_t)v;
}

static void collect_memory(struct sysinfo *si, const char *sysfs_root, const char *proc_root)
{
	struct rlimit rl;
	char path[PATH_LEN];
	uint64_t v;

	if (read_kb_at(proc_root, "meminfo", "MemTotal", &v) == 0)
		si->mem_total = v;
	if (read_kb_at(proc_root, "meminfo", "HugePages_Total", &v) == 0)
		si->hugepages_total = v;
	if (read_kb_at(proc_root, "meminfo", "HugePages_Free", &v) == 0)
		si->hugepages_free = v;
	if (read_kb_at(proc_root, "meminfo", "Hugepagesize", &v) == 0)
		si->hugepage_size = v;

	if (join_path(path, sizeof(path), sysfs_root, "kernel/mm/transparent_hugepage/enabled") < 0 ||
	    sysfs_thp_mode(path, si->thp, sizeof(si->thp)) < 0)
		copy_str(si->thp, sizeof(si->thp), "unknown");

	si->memlock_cur = si->memlock_max = 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		si->memlock_cur = rlim_bytes(rl.rlim_cur);
		si->memlock_max = rlim_bytes(rl.rlim_max);
	}
	if (join_path(path, sizeof(path), proc_root, "self/status") < 0 ||
	    procfs_cap_effective(path, CAP_IPC_LOCK_BIT, &si->cap_ipc_lock) < 0)
		si->cap_ipc_lock = 0;
}

static void collect_numa(struct sysinfo *si, const char *sysfs_root)
{
	if (numa_topo_read(sysfs_root, &si->numa) < 0)
		memset(&si->numa, 0, sizeof(si->numa));
	si->numa_available = numa_available() >= 0;
}

/* ------------------------------------------------------------------------ */
/* Virtualisation hint (best effort)                                        */

/*
 * Firecracker guest kernels are commonly named "6.1.0-fc-v5": "fc" as a
 * token of its own.  Fedora's ".fc39" is followed by digits, so it is not.
 */
static int release_names_firecracker(const char *release)
{
	const char *p = release;

	while ((p = strstr(p, "fc")) != NULL) {
		int starts = p == release || !isalnum((unsigned char)p[-1]);
		int ends = !isalnum((unsigned char)p[2]);

		if (starts && ends)
			return 1;
		p += 2;
	}
	return 0;
}

/* 1: the x86 "hypervisor" CPU flag is set, 0: flags listed without it, -1: unknown. */
static int cpuinfo_hypervisor_flag(const char *proc_root)
{
	char path[PATH_LEN], line[4096];
	int seen = -1;
	FILE *f;

	if (join_path(path, sizeof(path), proc_root, "cpuinfo") < 0)
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (seen != 1 && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		seen = strstr(line, " hypervisor") != NULL;
	}
	fclose(f);
	return seen;
}

/* The hypervisor the DMI strings name (lowercased input), or NULL. */
static const char *dmi_hypervisor(const char *dmi)
{
	if (strstr(dmi, "firecracker"))
		return "firecracker";
	if (strstr(dmi, "qemu") || strstr(dmi, "kvm"))
		return "kvm";
	if (strstr(dmi, "vmware"))
		return "vmware";
	if (strstr(dmi, "xen"))
		return "xen";
	if (strstr(dmi, "microsoft") && strstr(dmi, "virtual"))
		return "hyperv";
	return NULL;
}

static void collect_virt(struct sysinfo *si, const char *sysfs_root, const char *proc_root)
{
	char vendor[128] = "", product[128] = "", dmi[300];
	const char *name;
	int flag;

	read_str_at(sysfs_root, "class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	read_str_at(sysfs_root, "class/dmi/id/product_name", product, sizeof(product));
	snprintf(dmi, sizeof(dmi), "%s %s", vendor, product);
	for (char *p = dmi; *p; p++)
		*p = (char)tolower((unsigned char)*p);

	name = dmi_hypervisor(dmi);
	if (release_names_firecracker(si->kernel))
		name = "firecracker";
	flag = cpuinfo_hypervisor_flag(proc_root);
	if (!name && flag == 1)
		name = "vm"; /* a hypervisor, but not one we can name */
	if (!name && flag == 0)
		name = "none";
	copy_str(si->virt, sizeof(si->virt), name ? name : "");
}

/* ------------------------------------------------------------------------ */
/* GPUs from sysfs                                                          */

double pcie_rate_gbs(int gen, int width)
{
	/* Per lane: GT/s and the fraction of bits left after line encoding. */
	static const double gts[] = { 0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	static const double eff[] = { 0, 8.0 / 10, 8.0 / 10, 128.0 / 130, 128.0 / 130,
				      128.0 / 130, 242.0 / 256 };

	if (gen < 1 || gen > 6 || width < 1 || width > 32)
		return 0;
	return gts[gen] * eff[gen] / 8 * width;
}

/* "32.0 GT/s PCIe" -> 5; 0 for "Unknown" or a rate no generation has. */
static int link_speed_gen(const char *s)
{
	static const double gts[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return 0;
	for (int i = 0; i < 6; i++)
		if (v > gts[i] - 0.01 && v < gts[i] + 0.01)
			return i + 1;
	return 0;
}

static void gpu_defaults(struct gpu_info *g, const char *bdf)
{
	memset(g, 0, sizeof(*g));
	g->index = -1;
	g->cc_major = g->cc_minor = -1;
	g->numa_node = -2;
	copy_str(g->bdf, sizeof(g->bdf), bdf);
}

static int pci_is_nvidia_gpu(const char *devdir)
{
	long vendor, class_code;

	if (read_long_at(devdir, "vendor", &vendor) < 0 || vendor != PCI_VENDOR_NVIDIA)
		return 0;
	if (read_long_at(devdir, "class", &class_code) < 0)
		return 0;
	class_code >>= 8; /* drop the programming interface byte */
	return class_code == PCI_CLASS_VGA || class_code == PCI_CLASS_3D;
}

static void read_pci_link(const char *devdir, struct gpu_info *g)
{
	char buf[64];
	long v;

	if (read_str_at(devdir, "current_link_speed", buf, sizeof(buf)) == 0)
		g->pcie_gen_cur = link_speed_gen(buf);
	if (read_str_at(devdir, "max_link_speed", buf, sizeof(buf)) == 0)
		g->pcie_gen_max = link_speed_gen(buf);
	if (read_long_at(devdir, "current_link_width", &v) == 0 && v > 0)
		g->pcie_width_cur = (int)v;
	if (read_long_at(devdir, "max_link_width", &v) == 0 && v > 0)
		g->pcie_width_max = (int)v;
}

static void add_sysfs_gpu(struct sysinfo *si, const char *sysfs_root,
			  const char *devdir, const char *bdf)
{
	struct gpu_info *g = &si->gpu[si->ngpus++];
	long device;

	gpu_defaults(g, bdf);
	if (read_long_at(devdir, "device", &device) == 0)
		snprintf(g->name, sizeof(g->name), "NVIDIA device 0x%04lx", device);
	read_pci_link(devdir, g);
	g->numa_node = pci_numa_node(sysfs_root, bdf);
}

static int cmp_gpu_bdf(const void *a, const void *b)
{
	return strcmp(((const struct gpu_info *)a)->bdf, ((const struct gpu_info *)b)->bdf);
}

static void collect_gpus_sysfs(struct sysinfo *si, const char *sysfs_root)
{
	char dirpath[PATH_LEN], devdir[PATH_LEN];
	struct dirent *de;
	DIR *d;

	if (join_path(dirpath, sizeof(dirpath), sysfs_root, "bus/pci/devices") < 0)
		return;
	d = opendir(dirpath);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL && si->ngpus < SYSINFO_MAX_GPUS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(si->gpu[0].bdf))
			continue;
		if (join_path(devdir, sizeof(devdir), dirpath, de->d_name) == 0 &&
		    pci_is_nvidia_gpu(devdir))
			add_sysfs_gpu(si, sysfs_root, devdir, de->d_name);
	}
	closedir(d);
	/* NVML numbers GPUs in PCI bus order; until it speaks, do the same. */
	qsort(si->gpu, (size_t)si->ngpus, sizeof(si->gpu[0]), cmp_gpu_bdf);
	for (int i = 0; i < si->ngpus; i++)
		si->gpu[i].index = i;
}

/* ------------------------------------------------------------------------ */
/* NVML, loaded at run time (no nvml.h needed to build)                     */

typedef int nvml_ret;                 /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_dev_st *nvml_dev; /* nvmlDevice_t */

#define NVML_OK 0
#define NVML_FEATURE_ENABLED 1
#define NVML_NVLINK_MAX_LINKS 18

struct nvml_memory {       /* nvmlMemory_t (v1) */
	unsigned long long total, free, used; /* bytes */
};

struct nvml_pci_info {     /* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 */
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];   /* "00000000:3B:00.0" */
};

struct nvml_api {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	nvml_ret (*driver_version)(char *buf, unsigned int len);
	nvml_ret (*cuda_driver_version)(int *v);
	nvml_ret (*count)(unsigned int *n);
	nvml_ret (*handle)(unsigned int i, nvml_dev *d);
	nvml_ret (*name)(nvml_dev d, char *buf, unsigned int len);
	nvml_ret (*cc)(nvml_dev d, int *major, int *minor);
	nvml_ret (*memory)(nvml_dev d, struct nvml_memory *m);
	nvml_ret (*pci)(nvml_dev d, struct nvml_pci_info *p);
	nvml_ret (*gen_cur)(nvml_dev d, unsigned int *v);
	nvml_ret (*width_cur)(nvml_dev d, unsigned int *v);
	nvml_ret (*gen_max)(nvml_dev d, unsigned int *v);
	nvml_ret (*width_max)(nvml_dev d, unsigned int *v);
	nvml_ret (*nvlink_state)(nvml_dev d, unsigned int link, int *state);
};

/* POSIX's way to turn dlsym's void * into a function pointer. */
#define NVML_SYM(api, field, sym) (*(void **)&(api)->field = dlsym((api)->lib, sym))

static void nvml_bind(struct nvml_api *api)
{
	NVML_SYM(api, init, "nvmlInit_v2");
	NVML_SYM(api, shutdown, "nvmlShutdown");
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
}

/* 0 with NVML initialised, -1 when the library or its core entry points are missing. */
static int nvml_open(struct nvml_api *api)
{
	memset(api, 0, sizeof(*api));
	api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!api->lib)
		return -1;
	nvml_bind(api);
	if (!api->init || !api->shutdown || !api->count || !api->handle ||
	    !api->pci || api->init() != NVML_OK) {
		dlclose(api->lib);
		api->lib = NULL;
		return -1;
	}
	return 0;
}

static void nvml_close(struct nvml_api *api)
{
	api->shutdown();
	dlclose(api->lib);
	api->lib = NULL;
}

int pci_bdf_normalise(const char *in, char *out, size_t len)
{
	unsigned int dom, bus, dev, fn;

	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return -1;
	snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

/* The entry for bdf, appended (with its sysfs NUMA node) if sysfs lacked it. */
static struct gpu_info *gpu_by_bdf(struct sysinfo *si, const char *sysfs_root,
				   const char *bdf)
{
	struct gpu_info *g;

	for (int i = 0; i < si->ngpus; i++)
		if (strcmp(si->gpu[i].bdf, bdf) == 0)
			return &si->gpu[i];
	if (si->ngpus >= SYSINFO_MAX_GPUS)
		return NULL;
	g = &si->gpu[si->ngpus++];
	gpu_defaults(g, bdf);
	g->numa_node = pci_numa_node(sysfs_root, bdf);
	return g;
}

/* Overwrite with NVML's value only where NVML answers. */
static void nvml_link(const struct nvml_api *api, nvml_dev d, struct gpu_info *g)
{
	unsigned int v;

	if (api->gen_cur && api->gen_cur(d, &v) == NVML_OK && v > 0)
		g->pcie_gen_cur = (int)v;
	if (api->width_cur && api->width_cur(d, &v) == NVML_OK && v > 0)
		g->pcie_width_cur = (int)v;
	if (api->gen_max && api->gen_max(d, &v) == NVML_OK && v > 0)
		g->pcie_gen_max = (int)v;
	if (api->width_max && api->width_max(d, &v) == NVML_OK && v > 0)
		g->pcie_width_max = (int)v;
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

static void nvml_device(const struct nvml_api *api, unsigned int idx,
			struct sysinfo *si, const char *sysfs_root)
{
	struct nvml_pci_info pci;
	struct nvml_memory mem;
	struct gpu_info *g;
	char bdf[32], name[96];
	nvml_dev d;

	if (api->handle(idx, &d) != NVML_OK || api->pci(d, &pci) != NVML_OK)
		return;
	pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
	if (pci_bdf_normalise(pci.bus_id, bdf, sizeof(bdf)) < 0)
		return;
	g = gpu_by_bdf(si, sysfs_root, bdf);
	if (!g)
		return;
	g->index = (int)idx;
	if (api->name && api->name(d, name, sizeof(name)) == NVML_OK)
		copy_str(g->name, sizeof(g->name), name);
	if (api->cc && api->cc(d, &g->cc_major, &g->cc_minor) != NVML_OK)
		g->cc_major = g->cc_minor = -1;
	if (api->memory && api->memory(d, &mem) == NVML_OK)
		g->mem_total = mem.total;
	nvml_link(api, d, g);
	g->nvlinks_active = nvml_active_links(api, d);
}

static int cmp_gpu_index(const void *a, const void *b)
{
	int ia = ((const struct gpu_info *)a)->index;
	int ib = ((const struct gpu_info *)b)->index;

	/* GPUs NVML does not list (index -1) go last. */
	if (ia < 0 || ib < 0)
		return (ia < 0) - (ib < 0);
	return (ia > ib) - (ia < ib);
}

static void collect_nvml(struct sysinfo *si, const char *sysfs_root)
{
	struct nvml_api api;
	unsigned int n = 0;
	char version[80] = "";

	if (nvml_open(&api) < 0)
		return;
	si->nvml_loaded = 1;
	/* NVML asks for 80 bytes (NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE). */
	if (api.driver_version && api.driver_version(version, sizeof(version)) == NVML_OK)
		copy_str(si->driver_version, sizeof(si->driver_version), version);
	if (api.cuda_driver_version &&
	    api.cuda_driver_version(&si->cuda_driver_version) != NVML_OK)
		si->cuda_driver_version = 0;
	/* From here NVML numbers the GPUs; sysfs-only ones get -1. */
	for (int i = 0; i < si->ngpus; i++)
		si->gpu[i].index = -1;
	if (api.count(&n) == NVML_OK)
		for (unsigned int i = 0; i < n; i++)
			nvml_device(&api, i, si, sysfs_root);
	nvml_close(&api);
	qsort(si->gpu, (size_t)si->ngpus, sizeof(si->gpu[0]), cmp_gpu_index);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

void sysinfo_collect_at(struct sysinfo *si, const char *sysfs_root, const char *proc_root)
{
	memset(si, 0, sizeof(*si));
	si->cuda_runtime_version = DMALAB_CUDA_RT_VERSION;
	si->have_nvcc = DMALAB_HAVE_NVCC;
	collect_host(si, sysfs_root, proc_root);
	collect_memory(si, sysfs_root, proc_root);
	collect_numa(si, sysfs_root);
	collect_virt(si, sysfs_root, proc_root);
	collect_gpus_sysfs(si, sysfs_root);
	/*
	 * NVML describes the live machine: merging it into a fixture tree
	 * would mix two machines, so it is asked only about the real /sys.
	 */
	if (strcmp(sysfs_root, "/sys") == 0)
		collect_nvml(si, sysfs_root);
}

void sysinfo_collect(struct sysinfo *si)
{
	sysinfo_collect_at(si, "/sys", "/proc");
}

/* ------------------------------------------------------------------------ */
/* JSON: the "machine" object of results.json                               */

static void numa_json(const struct sysinfo *si, struct json_writer *w)
{
	const struct numa_topo *t = &si->numa;

	jw_obj_begin(w);
	jw_kint(w, "nodes", t->nnodes);
	jw_kint(w, "mem_nodes", t->nmem_nodes);
	jw_kbool(w, "libnuma_available", si->numa_available);
	jw_key(w, "node");
	jw_arr_begin(w);
	for (int i = 0; i < t->nnodes; i++) {
		jw_obj_begin(w);
		jw_kint(w, "id", t->node[i].id);
		jw_kstr(w, "cpulist", t->node[i].cpulist);
		jw_kint(w, "cpus", t->node[i].ncpus);
		jw_kint(w, "first_cpu", t->node[i].first_cpu);
		jw_kint(w, "mem_total", (long long)t->node[i].mem_total);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	/* distances[i][j]: SLIT distance from node[i] to node[j] (array
	 * positions, not ids: ids may have gaps), 10 = local */
	jw_key(w, "distances");
	jw_arr_begin(w);
	for (int i = 0; i < t->nnodes; i++) {
		jw_arr_begin(w);
		for (int j = 0; j < t->nnodes; j++)
			jw_int(w, t->node[i].distance[t->node[j].id]);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void gpu_json(const struct gpu_info *g, struct json_writer *w)
{
	jw_obj_begin(w);
	jw_kint(w, "index", g->index);
	jw_kstr(w, "name", g->name);
	jw_kstr(w, "bdf", g->bdf);
	jw_kint(w, "cc_major", g->cc_major);
	jw_kint(w, "cc_minor", g->cc_minor);
	jw_kint(w, "mem_total", (long long)g->mem_total);
	jw_kint(w, "pcie_gen_cur", g->pcie_gen_cur);
	jw_kint(w, "pcie_width_cur", g->pcie_width_cur);
	jw_kint(w, "pcie_gen_max", g->pcie_gen_max);
	jw_kint(w, "pcie_width_max", g->pcie_width_max);
	jw_knum(w, "pcie_max_rate_gbs", pcie_rate_gbs(g->pcie_gen_max, g->pcie_width_max));
	jw_kint(w, "numa_node", g->numa_node);
	jw_kint(w, "nvlinks_active", g->nvlinks_active);
	jw_obj_end(w);
}

static void limits_json(const struct sysinfo *si, struct json_writer *w)
{
	/* memlock in bytes, -1 = unlimited (as RLIM_INFINITY) */
	jw_key(w, "memlock");
	jw_obj_begin(w);
	jw_kint(w, "cur", si->memlock_cur);
	jw_kint(w, "max", si->memlock_max);
	jw_obj_end(w);
	jw_kbool(w, "cap_ipc_lock", si->cap_ipc_lock);
	jw_kint(w, "uid", si->uid);
	jw_kstr(w, "thp", si->thp);
	jw_key(w, "hugepages");
	jw_obj_begin(w);
	jw_kint(w, "total", (long long)si->hugepages_total);
	jw_kint(w, "free", (long long)si->hugepages_free);
	jw_kint(w, "size", (long long)si->hugepage_size);
	jw_obj_end(w);
}

static void cuda_json(const struct sysinfo *si, struct json_writer *w)
{
	jw_kbool(w, "nvml_loaded", si->nvml_loaded);
	jw_kstr(w, "driver_version", si->driver_version);
	jw_kint(w, "cuda_driver_version", si->cuda_driver_version);
	jw_kint(w, "cuda_runtime_version", si->cuda_runtime_version);
	jw_kbool(w, "have_nvcc", si->have_nvcc);
	jw_key(w, "gpus");
	jw_arr_begin(w);
	for (int i = 0; i < si->ngpus; i++)
		gpu_json(&si->gpu[i], w);
	jw_arr_end(w);
}

/* Writes one object value; the caller writes its key ("machine"). */
void sysinfo_write_json(const struct sysinfo *si, struct json_writer *w)
{
	jw_obj_begin(w);
	jw_kstr(w, "kernel", si->kernel);
	jw_kstr(w, "arch", si->arch);
	jw_kstr(w, "hostname", si->hostname);
	jw_kstr(w, "virt", si->virt);
	jw_kint(w, "cpus_online", si->cpus_online);
	jw_kint(w, "page_size", si->page_size);
	jw_kint(w, "mem_total", (long long)si->mem_total);
	jw_key(w, "numa");
	numa_json(si, w);
	limits_json(si, w);
	cuda_json(si, w);
	jw_obj_end(w);
}

/* ------------------------------------------------------------------------ */
/* `dmalab sysinfo`: one fact per line, labels aligned                      */

#define LABEL "  %-14s "

static const char *limit_str(int64_t v, char *buf, size_t len)
{
	return v < 0 ? "unlimited" : lab_fmt_size((uint64_t)v, buf, len);
}

/* CUDA's version integer 13000 -> "13.0"; 0 -> "none". */
static const char *cuda_version_str(int v, char *buf, size_t len)
{
	if (v <= 0)
		return "none";
	snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
	return buf;
}

static void print_numa(const struct sysinfo *si, FILE *out)
{
	const struct numa_topo *t = &si->numa;
	char sz[32], label[32];

	fprintf(out, LABEL "%d node%s, %d with memory; libnuma %s\n", "numa", t->nnodes,
		t->nnodes == 1 ? "" : "s", t->nmem_nodes,
		si->numa_available ? "available" : "unavailable");
	for (int i = 0; i < t->nnodes; i++) {
		const struct numa_node_info *n = &t->node[i];

		snprintf(label, sizeof(label), "  node %d", n->id);
		fprintf(out, LABEL "cpus %s (%d), %s, distances", label,
			n->cpulist[0] ? n->cpulist : "none", n->ncpus,
			lab_fmt_size(n->mem_total, sz, sizeof(sz)));
		for (int j = 0; j < t->nnodes; j++)
			fprintf(out, " %d", n->distance[t->node[j].id]);
		fputc('\n', out);
	}
}

static void print_memory(const struct sysinfo *si, FILE *out)
{
	char a[32], b[32];

	fprintf(out, LABEL "%s, page %s\n", "memory",
		lab_fmt_size(si->mem_total, a, sizeof(a)),
		lab_fmt_size((uint64_t)si->page_size, b, sizeof(b)));
	fprintf(out, LABEL "%s (hard limit %s)\n", "memlock",
		limit_str(si->memlock_cur, a, sizeof(a)), limit_str(si->memlock_max, b, sizeof(b)));
	fprintf(out, LABEL "%s, uid %d\n", "cap_ipc_lock",
		si->cap_ipc_lock ? "yes" : "no", si->uid);
	fprintf(out, LABEL "%s\n", "thp", si->thp);
	fprintf(out, LABEL "%" PRIu64 " of %" PRIu64 " free, %s each\n", "hugepages",
		si->hugepages_free, si->hugepages_total,
		lab_fmt_size(si->hugepage_size, a, sizeof(a)));
}

/* "gen5 x16", with "?" for what is unknown. */
static const char *link_str(int gen, int width, char *buf, size_t len)
{
	char g[16] = "?", w[16] = "?";

	if (gen > 0)
		snprintf(g, sizeof(g), "%d", gen);
	if (width > 0)
		snprintf(w, sizeof(w), "%d", width);
	snprintf(buf, len, "gen%s x%s", g, w);
	return buf;
}

static void print_gpu(const struct gpu_info *g, FILE *out)
{
	double rate = pcie_rate_gbs(g->pcie_gen_max, g->pcie_width_max);
	char label[32], sz[32], cur[48], max[48];

	snprintf(label, sizeof(label), "  gpu %d", g->index);
	fprintf(out, LABEL "%s [%s]", label, g->name[0] ? g->name : "?", g->bdf);
	if (g->cc_major >= 0)
		fprintf(out, ", cc %d.%d", g->cc_major, g->cc_minor);
	if (g->mem_total)
		fprintf(out, ", %s", lab_fmt_size(g->mem_total, sz, sizeof(sz)));
	fprintf(out, ", numa node %d%s\n", g->numa_node,
		g->numa_node == -1 ? " (unknown)" : g->numa_node == -2 ? " (no sysfs entry)" : "");
	fprintf(out, LABEL "PCIe %s now, %s max", "",
		link_str(g->pcie_gen_cur, g->pcie_width_cur, cur, sizeof(cur)),
		link_str(g->pcie_gen_max, g->pcie_width_max, max, sizeof(max)));
	if (rate > 0)
		fprintf(out, " (%.1f GB/s per direction)", rate);
	fprintf(out, ", NVLink %d active\n", g->nvlinks_active);
}

static void print_cuda(const struct sysinfo *si, FILE *out)
{
	char rt[16], drv[16];

	fprintf(out, LABEL "runtime %s (%s), driver %s", "cuda",
		cuda_version_str(si->cuda_runtime_version, rt, sizeof(rt)),
		si->have_nvcc ? "labs built with nvcc" : "built without nvcc",
		cuda_version_str(si->cuda_driver_version, drv, sizeof(drv)));
	if (si->nvml_loaded)
		fprintf(out, " (NVML, driver %s)\n",
			si->driver_version[0] ? si->driver_version : "?");
	else
		fprintf(out, " (NVML not loaded)\n");
	fprintf(out, LABEL "%d\n", "gpus", si->ngpus);
	for (int i = 0; i < si->ngpus; i++)
		print_gpu(&si->gpu[i], out);
}

void sysinfo_print(const struct sysinfo *si, FILE *out)
{
	fprintf(out, "machine\n");
	fprintf(out, LABEL "%s (%s), host %s\n", "kernel", si->kernel, si->arch, si->hostname);
	fprintf(out, LABEL "%s\n", "virt", si->virt[0] ? si->virt : "unknown");
	fprintf(out, LABEL "%d online\n", "cpus", si->cpus_online);
	print_memory(si, out);
	print_numa(si, out);
	print_cuda(si, out);
}
