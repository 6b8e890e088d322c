/*
 * link_reader.c - one GPU's PCIe link, read as often as the helper asks
 * while its copies run: NVML's current and maximum generation and width
 * (the driver's view), or the kernel's sysfs files where NVML is missing.
 *
 * NVML is loaded with dlopen (no nvml.h to build) and initialised once per
 * reader, not once per reading as gpu_topo_scan does, so that a reading
 * costs one query.  The entry points, as the NVML API reference gives them
 * (https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html):
 *   nvmlReturn_t nvmlInit_v2(void), nvmlShutdown(void)
 *   nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *)
 *     ("domain:bus:device.function", hexadecimal: sysfs's form is one)
 *   nvmlDeviceGetCurrPcieLinkGeneration / ...CurrPcieLinkWidth
 *   nvmlDeviceGetMaxPcieLinkGeneration / ...MaxPcieLinkWidth: the most
 *     "possible with this device and system" (the slot counts)
 *   each (nvmlDevice_t, unsigned int *), NVML_SUCCESS = 0.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"

#define NVML_SUCCESS 0

/* POSIX's way to store dlsym's void * into a function pointer. */
#define PF_BIND(lib, fp, sym) (*(void **)&(fp) = dlsym((lib), (sym)))

/* NVML's words for an error, when it says them. */
static const char *nvml_error(void *lib, int rc, char *buf, size_t len)
{
	const char *(*text)(int) = NULL;

	PF_BIND(lib, text, "nvmlErrorString");
	snprintf(buf, len, "%s (%d)", text && text(rc) ? text(rc) : "NVML error", rc);
	return buf;
}

/* NVML and the GPU's handle: 0, or -1 with r->why_nvml (nothing left loaded). */
static int nvml_open(struct pf_link_reader *r)
{
	int (*init)(void) = NULL, (*by_bus)(const char *, void **) = NULL;
	char err[96];
	int rc;

	r->nvml_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!r->nvml_lib) {
		snprintf(r->why_nvml, sizeof(r->why_nvml), "libnvidia-ml.so.1 not found");
		return -1;
	}
	PF_BIND(r->nvml_lib, init, "nvmlInit_v2");
	PF_BIND(r->nvml_lib, by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
	PF_BIND(r->nvml_lib, r->shutdown, "nvmlShutdown");
	PF_BIND(r->nvml_lib, r->gen_cur, "nvmlDeviceGetCurrPcieLinkGeneration");
	PF_BIND(r->nvml_lib, r->width_cur, "nvmlDeviceGetCurrPcieLinkWidth");
	PF_BIND(r->nvml_lib, r->gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
	PF_BIND(r->nvml_lib, r->width_max, "nvmlDeviceGetMaxPcieLinkWidth");
	if (!init || !by_bus || !r->shutdown || !r->gen_cur || !r->width_cur || !r->gen_max ||
	    !r->width_max) {
		snprintf(r->why_nvml, sizeof(r->why_nvml), "libnvidia-ml.so.1 lacks a PCIe "
			 "link query");
	} else if ((rc = init()) != NVML_SUCCESS) {
		snprintf(r->why_nvml, sizeof(r->why_nvml), "nvmlInit_v2: %s",
			 nvml_error(r->nvml_lib, rc, err, sizeof(err)));
	} else if ((rc = by_bus(r->bdf, &r->nvml_dev)) != NVML_SUCCESS) {
		snprintf(r->why_nvml, sizeof(r->why_nvml), "nvmlDeviceGetHandleByPciBusId_v2"
			 "(%s): %s", r->bdf, nvml_error(r->nvml_lib, rc, err, sizeof(err)));
		r->shutdown();
	} else {
		return 0;
	}
	dlclose(r->nvml_lib);
	r->nvml_lib = NULL;
	return -1;
}

int pf_link_reader_open(struct pf_link_reader *r, const char *bdf)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->bdf, sizeof(r->bdf), "%s", bdf);
	r->topo = (struct gpu_topo *)calloc(1, sizeof(*r->topo));
	if (!r->topo)
		return -1;
	nvml_open(r);
	return 0;
}

/* fn(dev) into *out when it answers; *out untouched otherwise. */
static void nvml_value(int (*fn)(void *, unsigned int *), void *dev, int *out)
{
	unsigned int v;

	if (fn(dev, &v) == NVML_SUCCESS)
		*out = (int)v;
}

void pf_link_read(struct pf_link_reader *r, struct pf_link *now, struct pf_link *max)
{
	const struct gpu_topo_dev *d;

	memset(now, 0, sizeof(*now));
	memset(max, 0, sizeof(*max));
	if (r->nvml_lib) {
		nvml_value(r->gen_cur, r->nvml_dev, &now->gen);
		nvml_value(r->width_cur, r->nvml_dev, &now->width);
		nvml_value(r->gen_max, r->nvml_dev, &max->gen);
		nvml_value(r->width_max, r->nvml_dev, &max->width);
		return;
	}
	/* the kernel's current_link_* and max_link_* of this device */
	if (gpu_topo_build("/sys", NULL, r->topo) < 0 || !(d = gpu_topo_find(r->topo, r->bdf)))
		return;
	now->gen = d->pcie_gen_cur > 0 ? d->pcie_gen_cur : 0;
	now->width = d->pcie_width_cur > 0 ? d->pcie_width_cur : 0;
	max->gen = d->pcie_gen_max > 0 ? d->pcie_gen_max : 0;
	max->width = d->pcie_width_max > 0 ? d->pcie_width_max : 0;
}

const char *pf_link_source(const struct pf_link_reader *r)
{
	return r->nvml_lib ? "nvml" : "sysfs";
}

void pf_link_reader_close(struct pf_link_reader *r)
{
	if (r->nvml_lib) {
		r->shutdown();
		dlclose(r->nvml_lib);
		r->nvml_lib = NULL;
	}
	free(r->topo);
	r->topo = NULL;
}
