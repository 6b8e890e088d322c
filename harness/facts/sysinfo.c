/*
 * sysinfo.c - the machine facts behind every skip decision and report
 * (sysinfo.h); every file is read below a sysfs root and a proc root.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "gpu_topo.h"
#include "sizes.h"
#include "procfs.h"
#include "sysfs.h"
#include "sysinfo.h"

/* Set by the Makefile from `nvcc --version`; 0 when built without nvcc. */
#ifndef DMALAB_CUDA_RT_VERSION
#define DMALAB_CUDA_RT_VERSION 0
#endif
#ifndef DMALAB_HAVE_NVCC
#define DMALAB_HAVE_NVCC 0
#endif

#define CAP_IPC_LOCK_BIT 14
#define PATH_LEN 4096

/* ---- Small readers below a root ---- */

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

static int read_kb_at(const char *root, const char *rel, const char *key, uint64_t *v)
{
	char path[PATH_LEN];

	if (join_path(path, sizeof(path), root, rel) < 0)
		return -1;
	return procfs_read_kb_field(path, key, v);
}

/* ---- Host, memory, NUMA ---- */

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

static void collect_memory(struct sysinfo *si, const char *sysfs_root, const char *proc_root)
{
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

	if (join_path(path, sizeof(path), sysfs_root,
		      "kernel/mm/transparent_hugepage/enabled") < 0 ||
	    sysfs_thp_mode(path, si->thp, sizeof(si->thp)) < 0)
		copy_str(si->thp, sizeof(si->thp), "unknown");

	si->memlock_cur = procfs_memlock_limit();
	si->memlock_max = procfs_memlock_hard_limit();
	if (join_path(path, sizeof(path), proc_root, "self/status") < 0 ||
	    procfs_cap_effective(path, CAP_IPC_LOCK_BIT, &si->cap_ipc_lock) < 0)
		si->cap_ipc_lock = 0;
}

/* "0-3,8" from a CPU set: runs of consecutive CPUs joined by '-'. */
static void cpuset_to_list(const cpu_set_t *set, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (int cpu = 0; cpu < CPU_SETSIZE && used < len; cpu++) {
		int last = cpu;

		if (!CPU_ISSET(cpu, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		used += (size_t)snprintf(out + used, len - used, last > cpu ? "%s%d-%d" : "%s%d",
					 used ? "," : "", cpu, last);
		cpu = last;
	}
}

/* The CPUs this process may run on, and the NUMA nodes they sit on: a GPU on
 * another node than these is a remote-copy path (compare explains with it). */
static void collect_affinity(struct sysinfo *si)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	cpuset_to_list(&set, si->cpus_allowed, sizeof(si->cpus_allowed));
	for (int i = 0; i < si->numa.nnodes; i++)
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set) &&
			    cpulist_contains(si->numa.node[i].cpulist, cpu)) {
				si->cpu_nodes[si->ncpu_nodes++] = si->numa.node[i].id;
				break;
			}
}

static void collect_numa(struct sysinfo *si, const char *sysfs_root)
{
	if (numa_topo_read(sysfs_root, &si->numa) < 0)
		memset(&si->numa, 0, sizeof(si->numa));
	si->numa_available = numa_available() >= 0;
	collect_affinity(si);
}

/* 1 when dir lists nothing, or does not exist while its parent does (a
 * class no driver registered); 0 otherwise (unreadable counts as unknown). */
static int dir_is_empty(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char parent[PATH_LEN];
	char *slash;
	int empty = 1;

	if (!d) {
		copy_str(parent, sizeof(parent), dir);
		slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		return errno == ENOENT && access(parent, F_OK) == 0;
	}
	while (empty && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			empty = 0;
	closedir(d);
	return empty;
}

/* The machine's IOMMU from sysfs: none registered (class/iommu empty), or
 * the types of its groups (kernel/iommu_groups/N/type, Linux >= 5.11). */
static void collect_iommu(struct sysinfo *si, const char *sysfs_root)
{
	char path[PATH_LEN], type[32];
	int identity = 0, translated = 0;
	struct dirent *de;
	DIR *d;

	copy_str(si->iommu, sizeof(si->iommu), "unknown");
	if (join_path(path, sizeof(path), sysfs_root, "class/iommu") < 0)
		return;
	if (dir_is_empty(path)) {
		copy_str(si->iommu, sizeof(si->iommu), "none");
		return;
	}
	if (join_path(path, sizeof(path), sysfs_root, "kernel/iommu_groups") < 0 ||
	    !(d = opendir(path)))
		return;
	while ((de = readdir(d)) != NULL) {
		char rel[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "kernel/iommu_groups/%.200s/type", de->d_name);
		if (read_str_at(sysfs_root, rel, type, sizeof(type)) < 0)
			continue;
		if (!strcmp(gpu_iommu_word(type), "identity"))
			identity++;
		else if (!strcmp(gpu_iommu_word(type), "translated"))
			translated++;
	}
	closedir(d);
	if (translated)
		copy_str(si->iommu, sizeof(si->iommu), "translated");
	else if (identity)
		copy_str(si->iommu, sizeof(si->iommu), "identity");
}

/* ---- Virtualisation hint (best effort) ---- */

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

/* ---- GPUs (gpu_topo) ---- */

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

static int cmp_gpu_index(const void *a, const void *b)
{
	const struct gpu_topo_dev *ga = a, *gb = b;
	int ia = ga->nvml_index, ib = gb->nvml_index;

	/* GPUs NVML does not list (index -1) go last, in bus order. */
	if (ia < 0 || ib < 0)
		return ia == ib ? strcmp(ga->bdf, gb->bdf) : (ia < 0) - (ib < 0);
	return (ia > ib) - (ia < ib);
}

/* The number sysinfo gives GPU i: NVML's index; until NVML speaks, its place
 * in PCI bus order. */
static int gpu_number(const struct sysinfo *si, int i)
{
	return si->nvml_loaded ? si->gpu[i].nvml_index : i;
}

/*
 * Every GPU of the machine from gpu_topo (sysfs, and NVML on the live /sys),
 * numbered as NVML numbers them.  CUDA is not asked: the runner forks labs
 * after this, and a process that ran cuInit must not fork.
 */
static void collect_gpus(struct sysinfo *si, const char *sysfs_root)
{
	struct gpu_topo t;

	if (gpu_topo_scan(sysfs_root, GPU_TOPO_NVML, &t) < 0)
		return;
	si->nvml_loaded = t.nvml_loaded;
	copy_str(si->driver_version, sizeof(si->driver_version), t.driver_version);
	si->cuda_driver_version = t.cuda_driver_version;
	si->ngpus = t.n < SYSINFO_MAX_GPUS ? t.n : SYSINFO_MAX_GPUS;
	memcpy(si->gpu, t.dev, sizeof(si->gpu[0]) * (size_t)si->ngpus);
	if (t.nvml_loaded)
		qsort(si->gpu, (size_t)si->ngpus, sizeof(si->gpu[0]), cmp_gpu_index);
}

/* ---- Entry points ---- */

void sysinfo_collect_at(struct sysinfo *si, const char *sysfs_root, const char *proc_root)
{
	memset(si, 0, sizeof(*si));
	si->cuda_runtime_version = DMALAB_CUDA_RT_VERSION;
	si->have_nvcc = DMALAB_HAVE_NVCC;
	collect_host(si, sysfs_root, proc_root);
	collect_memory(si, sysfs_root, proc_root);
	collect_numa(si, sysfs_root);
	collect_virt(si, sysfs_root, proc_root);
	collect_iommu(si, sysfs_root);
	/* NVML describes the live machine: gpu_topo asks it only about /sys. */
	collect_gpus(si, sysfs_root);
}

void sysinfo_collect(struct sysinfo *si)
{
	sysinfo_collect_at(si, "/sys", "/proc");
}

/* ---- JSON: the "machine" object of results.json ---- */

static void numa_json(const struct sysinfo *si, struct json_writer *w)
{
	const struct numa_topo *t = &si->numa;

	jw_obj_begin(w);
	jw_kint(w, "nodes", t->nnodes);
	jw_kint(w, "mem_nodes", t->nmem_nodes);
	jw_kbool(w, "libnuma_available", si->numa_available);
	jw_karr(w, "node");
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
	jw_karr(w, "distances");
	for (int i = 0; i < t->nnodes; i++) {
		jw_arr_begin(w);
		for (int j = 0; j < t->nnodes; j++)
			jw_int(w, t->node[i].distance[t->node[j].id]);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

static void gpu_json(const struct sysinfo *si, int i, struct json_writer *w)
{
	const struct gpu_topo_dev *g = &si->gpu[i];

	jw_obj_begin(w);
	jw_kint(w, "index", gpu_number(si, i));
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
	jw_kstr(w, "uuid", g->uuid);
	jw_kstr(w, "iommu", g->iommu);
	jw_kobj(w, "clocks");
	jw_kint(w, "sm_mhz", g->sm_mhz);
	jw_kint(w, "sm_max_mhz", g->sm_max_mhz);
	jw_kint(w, "mem_mhz", g->mem_mhz);
	jw_kint(w, "mem_max_mhz", g->mem_max_mhz);
	jw_obj_end(w);
	jw_kint(w, "clocks_event_reasons", g->clocks_event_reasons);
	jw_karr(w, "clocks_event_names");
	for (int bit = 0; g->clocks_event_reasons > 0 && gpu_clocks_reason_name(bit); bit++)
		if (g->clocks_event_reasons & (1ll << bit))
			jw_str(w, gpu_clocks_reason_name(bit));
	jw_arr_end(w);
	jw_kint(w, "compute_procs", g->compute_procs);
	jw_obj_end(w);
}

static void limits_json(const struct sysinfo *si, struct json_writer *w)
{
	/* memlock in bytes, -1 = unlimited (as RLIM_INFINITY) */
	jw_kobj(w, "memlock");
	jw_kint(w, "cur", si->memlock_cur);
	jw_kint(w, "max", si->memlock_max);
	jw_obj_end(w);
	jw_kbool(w, "cap_ipc_lock", si->cap_ipc_lock);
	jw_kint(w, "uid", si->uid);
	jw_kstr(w, "thp", si->thp);
	jw_kobj(w, "hugepages");
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
	jw_karr(w, "gpus");
	for (int i = 0; i < si->ngpus; i++)
		gpu_json(si, i, w);
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
	jw_kstr(w, "iommu", si->iommu);
	jw_kstr(w, "cpus_allowed", si->cpus_allowed);
	jw_karr(w, "cpu_nodes");
	for (int i = 0; i < si->ncpu_nodes; i++)
		jw_int(w, si->cpu_nodes[i]);
	jw_arr_end(w);
	jw_kint(w, "cpus_online", si->cpus_online);
	jw_kint(w, "page_size", si->page_size);
	jw_kint(w, "mem_total", (long long)si->mem_total);
	jw_key(w, "numa");
	numa_json(si, w);
	limits_json(si, w);
	cuda_json(si, w);
	jw_obj_end(w);
}

/* ---- `dmalab sysinfo`: one fact per line, labels aligned ---- */

#define LABEL "  %-14s "

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
		procfs_limit_text(si->memlock_cur, a, sizeof(a)),
		procfs_limit_text(si->memlock_max, b, sizeof(b)));
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

/* uuid, IOMMU, clocks and why they are held back, other processes. */
static void print_gpu_state(const struct gpu_topo_dev *g, FILE *out)
{
	fprintf(out, LABEL "%s, IOMMU %s", "", g->uuid[0] ? g->uuid : "uuid unknown", g->iommu);
	if (g->sm_max_mhz)
		fprintf(out, ", SM %u of %u MHz, memory %u of %u MHz", g->sm_mhz, g->sm_max_mhz,
			g->mem_mhz, g->mem_max_mhz);
	for (int bit = 0, n = 0; g->clocks_event_reasons > 0 && gpu_clocks_reason_name(bit); bit++)
		if (g->clocks_event_reasons & (1ll << bit))
			fprintf(out, "%s%s", n++ ? "+" : " (", gpu_clocks_reason_name(bit));
	if (g->clocks_event_reasons > 0)
		fputc(')', out);
	if (g->compute_procs >= 0)
		fprintf(out, ", %d compute process%s", g->compute_procs,
			g->compute_procs == 1 ? "" : "es");
	fputc('\n', out);
}

static void print_gpu(const struct sysinfo *si, int i, FILE *out)
{
	const struct gpu_topo_dev *g = &si->gpu[i];
	double rate = pcie_rate_gbs(g->pcie_gen_max, g->pcie_width_max);
	char label[32], sz[32], cur[48], max[48];

	snprintf(label, sizeof(label), "  gpu %d", gpu_number(si, i));
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
	print_gpu_state(g, out);
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
		print_gpu(si, i, out);
}

void sysinfo_print(const struct sysinfo *si, FILE *out)
{
	fprintf(out, "machine\n");
	fprintf(out, LABEL "%s (%s), host %s\n", "kernel", si->kernel, si->arch, si->hostname);
	fprintf(out, LABEL "%s\n", "virt", si->virt[0] ? si->virt : "unknown");
	fprintf(out, LABEL "%d online, this process may use %s (NUMA node%s", "cpus",
		si->cpus_online, si->cpus_allowed[0] ? si->cpus_allowed : "?",
		si->ncpu_nodes == 1 ? "" : "s");
	for (int i = 0; i < si->ncpu_nodes; i++)
		fprintf(out, "%s%d", i ? "," : " ", si->cpu_nodes[i]);
	fprintf(out, ")\n");
	fprintf(out, LABEL "%s\n", "iommu", si->iommu);
	print_memory(si, out);
	print_numa(si, out);
	print_cuda(si, out);
}
