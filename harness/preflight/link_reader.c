/*
 * link_reader.c - one GPU's PCIe link, read as often as the helper asks
 * while its copies run: NVML's current and maximum generation and width
 * (the driver's view, gpu_topo.h's gpu_nvml_link: NVML opened once per
 * reader, a reading one query per field), or the kernel's sysfs files
 * where NVML is missing or does not list the GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "health.h"

int pf_link_reader_open(struct pf_link_reader *r, const char *bdf)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->bdf, sizeof(r->bdf), "%s", bdf);
	r->topo = (struct gpu_topo *)calloc(1, sizeof(*r->topo));
	if (!r->topo)
		return -1;
	r->nvml = gpu_nvml_link_open(bdf);
	return 0;
}

void pf_link_read(struct pf_link_reader *r, struct pf_link *now, struct pf_link *max)
{
	const struct gpu_topo_dev *d;

	memset(now, 0, sizeof(*now));
	memset(max, 0, sizeof(*max));
	if (r->nvml) {
		gpu_nvml_link_read(r->nvml, &now->gen, &now->width, &max->gen, &max->width);
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
	return r->nvml ? "nvml" : "sysfs";
}

void pf_link_reader_close(struct pf_link_reader *r)
{
	gpu_nvml_link_close(r->nvml);
	r->nvml = NULL;
	free(r->topo);
	r->topo = NULL;
}
