/*
 * links.c - lab-09's GPU-to-GPU links, paths and ACS (see links.h).  NVML is
 * asked through the kit's one loader (gpu_nvml_open, gpu_nvml_device) and
 * the few entry points below, bound here by name: no nvml.h needed to build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links.h"
#include "procfs.h"
#include "sysinfo.h"

#define PATH_LEN 4096

const char *gpu_path_word(const struct gpu_links *k, int a, int b, char *buf, size_t len)
{
	static const char *const words[] = { "unknown", "X", "NV", "PIX", "PXB", "PHB",
					     "NODE", "SYS" };
	int p = k && a >= 0 && b >= 0 && a < k->n && b < k->n ? k->path[a][b] : GPU_PATH_UNKNOWN;

	if (p == GPU_PATH_NVLINK)
		snprintf(buf, len, "NV%d", k->nvlinks[a][b]);
	else
		snprintf(buf, len, "%s", p <= GPU_PATH_SYS ? words[p] : "unknown");
	return buf;
}

/*
 * One direction of one link, by nvmlNvlinkVersion_t (NVML's enum, not the
 * marketing number: 4 is NVLink 3.0, 6 is 4.0).  NVLink 1.0 runs 20 GB/s a
 * direction; 2.0 to 4.0 25 GB/s (8 pairs at 25 Gbit/s, then 4 at 50, then
 * 2 at 100); 5.0 doubles it.  Hopper's 18 links of 4.0: 450 GB/s one way.
 */
double gpu_nvlink_link_gbs(int version)
{
	static const double gbs[] = { 0, 20, 25, 25, 25, 25, 25, 50 };

	return version > 0 && version < (int)(sizeof(gbs) / sizeof(gbs[0])) ? gbs[version] : 0;
}

double gpu_links_nvlink_gbs(const struct gpu_links *k, int a, int b)
{
	double sum = 0;

	if (!k || a < 0 || b < 0 || a >= k->n || b >= k->n || !k->dev[a].nvlink_known)
		return -1;
	for (int l = 0; l < GPU_NVLINK_MAX; l++) {
		const struct gpu_nvlink *x = &k->dev[a].link[l];

		if (x->state != 1 || strcmp(x->remote_bdf, k->dev[b].bdf) != 0)
			continue;
		if (gpu_nvlink_link_gbs(x->version) <= 0)
			return -1;
		sum += gpu_nvlink_link_gbs(x->version);
	}
	return sum;
}

/* NVML's word for a code the link reader got back. */
static void nvml_why(int code, const char *what, char *why, size_t len)
{
	if (code == GPU_NVML_NOT_SUPPORTED)
		snprintf(why, len, "%s: not supported (NVML_ERROR_NOT_SUPPORTED)", what);
	else
		snprintf(why, len, "%s: NVML error %d", what, code);
}

/* Every link of GPU i: state, version, far end.  Link 0's state decides
 * whether NVML knows this GPU's NVLinks at all. */
static void read_nvlinks(const struct gpu_link_ops *ops, int i, struct gpu_link_dev *d)
{
	char bdf[GPU_BDF_LEN];
	unsigned version;
	int active, rc;

	for (unsigned l = 0; l < GPU_NVLINK_MAX; l++) {
		struct gpu_nvlink *x = &d->link[l];

		rc = ops->nvlink_state(ops->ctx, i, l, &active);
		if (rc != GPU_NVML_SUCCESS) {
			if (l == 0)
				nvml_why(rc, "nvmlDeviceGetNvLinkState", d->why, sizeof(d->why));
			continue;
		}
		d->nvlink_known = 1;
		x->state = active != 0;
		if (!x->state)
			continue;
		d->links_active++;
		if (ops->nvlink_version(ops->ctx, i, l, &version) == GPU_NVML_SUCCESS)
			x->version = (int)version;
		if (!d->version)
			d->version = x->version;
		if (ops->nvlink_remote(ops->ctx, i, l, bdf, sizeof(bdf)) == GPU_NVML_SUCCESS &&
		    pci_bdf_normalise(bdf, x->remote_bdf, sizeof(x->remote_bdf)) < 0)
			x->remote_bdf[0] = '\0';
	}
}

/* nvmlGpuTopologyLevel_t -> the PCIe word of nvidia-smi topo -m. */
static enum gpu_path pcie_path(int level)
{
	switch (level) {
	case 0:  /* NVML_TOPOLOGY_INTERNAL: two GPUs of one board */
	case 10: return GPU_PATH_PIX;
	case 20: return GPU_PATH_PXB;
	case 30: return GPU_PATH_PHB;
	case 40: return GPU_PATH_NODE;
	case 50: return GPU_PATH_SYS;
	default: return GPU_PATH_UNKNOWN;
	}
}

/* The path a -> b: NV# when a has active links to b, else the PCIe word. */
static void read_path(const struct gpu_link_ops *ops, struct gpu_links *k, int a, int b)
{
	int level;

	if (a == b) {
		k->path[a][b] = GPU_PATH_SELF;
		return;
	}
	for (int l = 0; l < GPU_NVLINK_MAX; l++)
		if (k->dev[a].link[l].state == 1 && !strcmp(k->dev[a].link[l].remote_bdf,
							     k->dev[b].bdf))
			k->nvlinks[a][b]++;
	if (k->nvlinks[a][b])
		k->path[a][b] = GPU_PATH_NVLINK;
	else if (ops && ops->common_ancestor(ops->ctx, a, b, &level) == GPU_NVML_SUCCESS)
		k->path[a][b] = (unsigned char)pcie_path(level);
}

int gpu_links_read(const struct gpu_topo *t, const char *sysfs_root,
		   const struct gpu_link_ops *ops, struct gpu_links *k)
{
	if (!t || !k) {
		errno = EINVAL;
		return -1;
	}
	memset(k, 0, sizeof(*k));
	k->n = t->n;
	if (!ops)
		snprintf(k->why, sizeof(k->why), "NVML was not asked");
	for (int i = 0; i < k->n; i++) {
		struct gpu_link_dev *d = &k->dev[i];

		copy_str(d->bdf, sizeof(d->bdf), t->dev[i].bdf);
		for (int l = 0; l < GPU_NVLINK_MAX; l++)
			d->link[l].state = -1;
		if (ops)
			read_nvlinks(ops, i, d);
		else
			copy_str(d->why, sizeof(d->why), k->why);
		copy_str(d->acs, sizeof(d->acs), sysfs_root ? gpu_acs_state(sysfs_root, d->bdf,
				d->acs_why, sizeof(d->acs_why)) : "unknown");
	}
	for (int a = 0; a < k->n; a++)
		for (int b = 0; b < k->n; b++)
			read_path(ops, k, a, b);
	return 0;
}

/* ---- the live ops: libnvidia-ml.so.1 ---- */

typedef int nvml_ret; /* nvmlReturn_t: 0 = NVML_SUCCESS */

struct nvml_links {
	void *lib; /* gpu_nvml_open's */
	nvml_ret (*state)(void *dev, unsigned int link, int *active);
	nvml_ret (*version)(void *dev, unsigned int link, unsigned int *v);
	nvml_ret (*remote)(void *dev, unsigned int link, struct gpu_nvml_pci_info *p);
	nvml_ret (*ancestor)(void *a, void *b, int *level);
	void *dev[GPU_TOPO_MAX_GPUS]; /* nvmlDevice_t of gpu_topo.dev[i]; NULL not found */
};

#define NVML_ERROR_NOT_FOUND 6

static int live_state(void *ctx, int i, unsigned link, int *active)
{
	struct nvml_links *n = (struct nvml_links *)ctx;

	if (!n->dev[i])
		return NVML_ERROR_NOT_FOUND;
	return n->state ? n->state(n->dev[i], link, active) : GPU_NVML_NOT_SUPPORTED;
}

static int live_version(void *ctx, int i, unsigned link, unsigned *version)
{
	struct nvml_links *n = (struct nvml_links *)ctx;

	return n->version ? n->version(n->dev[i], link, version) : GPU_NVML_NOT_SUPPORTED;
}

static int live_remote(void *ctx, int i, unsigned link, char *bdf, size_t len)
{
	struct nvml_links *n = (struct nvml_links *)ctx;
	struct gpu_nvml_pci_info pci;
	int rc = n->remote ? n->remote(n->dev[i], link, &pci) : GPU_NVML_NOT_SUPPORTED;

	if (rc == GPU_NVML_SUCCESS) {
		pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
		copy_str(bdf, len, pci.bus_id);
	}
	return rc;
}

static int live_ancestor(void *ctx, int a, int b, int *level)
{
	struct nvml_links *n = (struct nvml_links *)ctx;

	if (!n->dev[a] || !n->dev[b])
		return NVML_ERROR_NOT_FOUND;
	return n->ancestor ? n->ancestor(n->dev[a], n->dev[b], level) : GPU_NVML_NOT_SUPPORTED;
}

/* The entry points the links need, each by its newest name first. */
static void bind_links(struct nvml_links *n)
{
	*(void **)&n->state = dlsym(n->lib, "nvmlDeviceGetNvLinkState");
	*(void **)&n->version = dlsym(n->lib, "nvmlDeviceGetNvLinkVersion");
	if (!(*(void **)&n->remote = dlsym(n->lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2")))
		*(void **)&n->remote = dlsym(n->lib, "nvmlDeviceGetNvLinkRemotePciInfo");
	*(void **)&n->ancestor = dlsym(n->lib, "nvmlDeviceGetTopologyCommonAncestor");
}

int gpu_links_scan(const struct gpu_topo *t, struct gpu_links *k)
{
	struct gpu_link_ops ops = { NULL, live_state, live_version, live_remote, live_ancestor };
	struct nvml_links *n;
	int rc;

	if (!t || !k) {
		errno = EINVAL;
		return -1;
	}
	n = (struct nvml_links *)calloc(1, sizeof(*n));
	if (!n || !(n->lib = gpu_nvml_open())) {
		free(n);
		rc = gpu_links_read(t, "/sys", NULL, k);
		snprintf(k->why, sizeof(k->why), "NVML unavailable (libnvidia-ml.so.1 not found, "
			 "or nvmlInit failed)");
		for (int i = 0; i < k->n; i++)
			copy_str(k->dev[i].why, sizeof(k->dev[i].why), k->why);
		return rc;
	}
	bind_links(n);
	for (int i = 0; i < t->n; i++)
		n->dev[i] = t->dev[i].bdf[0] ? gpu_nvml_device(n->lib, t->dev[i].bdf) : NULL;
	ops.ctx = n;
	rc = gpu_links_read(t, "/sys", &ops, k);
	gpu_nvml_close(n->lib);
	free(n);
	return rc;
}

/* ---- ACS on the bridges above a device ---- */

#define PCI_CFG_EXT_START 0x100
#define PCI_CFG_FULL 4096   /* a PCIe function's config space; non-root reads see 64 bytes */
#define PCI_EXT_CAP_ACS 0x000d
#define PCI_ACS_CTRL 6      /* the control register's offset in the capability */
#define PCI_ACS_RR 0x0004   /* P2P Request Redirect */
#define PCI_ACS_CR 0x0008   /* P2P Completion Redirect */

static unsigned cfg_le(const unsigned char *c, unsigned off, int bytes)
{
	unsigned v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | c[off + (unsigned)i];
	return v;
}

/* A bridge's ACS: 1 redirects P2P, 0 does not (or has no ACS), -1 unreadable. */
static int bridge_acs(const char *dir)
{
	unsigned char cfg[PCI_CFG_FULL];
	char path[PATH_LEN];
	unsigned off = PCI_CFG_EXT_START;
	size_t got;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/config", dir) >= (int)sizeof(path) ||
	    !(f = fopen(path, "rb")))
		return -1;
	got = fread(cfg, 1, sizeof(cfg), f);
	fclose(f);
	if (got < sizeof(cfg))
		return -1;
	for (int hops = 0; off >= PCI_CFG_EXT_START && off + 8 <= sizeof(cfg) && hops < 64;
	     hops++) {
		unsigned head = cfg_le(cfg, off, 4);

		if ((head & 0xffff) == PCI_EXT_CAP_ACS)
			return (cfg_le(cfg, off + PCI_ACS_CTRL, 2) &
				(PCI_ACS_RR | PCI_ACS_CR)) != 0;
		off = (head >> 20) & 0xffc;
	}
	return 0;
}

/* The last component of path looks like a PCI function "dddd:bb:dd.f". */
static int is_bdf_dir(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned d, b, s, f;
	char end;

	base = base ? base + 1 : path;
	return sscanf(base, "%4x:%2x:%2x.%1x%c", &d, &b, &s, &f, &end) == 4;
}

const char *gpu_acs_state(const char *sysfs_root, const char *bdf, char *why, size_t len)
{
	char path[PATH_LEN], real[PATH_LEN], *slash;
	int bridges = 0, n;

	n = snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs_root, bdf);
	if (n < 0 || (size_t)n >= sizeof(path) || !realpath(path, real)) {
		snprintf(why, len, "%s is not in %s", bdf, sysfs_root);
		return "unknown";
	}
	while ((slash = strrchr(real, '/')) != NULL) {
		int acs;

		*slash = '\0';
		if (!is_bdf_dir(real))
			break;
		bridges++;
		acs = bridge_acs(real);
		if (acs != 0) {
			snprintf(why, len, acs < 0 ? "the config space of %s cannot be read whole "
				 "(root reads it)" : "%s redirects peer requests upstream",
				 strrchr(real, '/') + 1);
			return acs < 0 ? "unknown" : "on";
		}
	}
	if (bridges)
		snprintf(why, len, "%d bridge%s above %s, none redirects peer requests", bridges,
			 bridges == 1 ? "" : "s", bdf);
	else
		snprintf(why, len, "no PCIe bridge above %s", bdf);
	return "off";
}
