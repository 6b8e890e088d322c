/*
 * fuzz_gpu_topo.c - the sysfs half of the GPU scan (gpu_topo_build) on a
 * tree written from the input (fuzz_util.h's records, sys/bus/pci/devices/
 * <bdf>/{vendor,class,device,numa_node,*_link_*}), with CUDA's answer made
 * up from the tree's file "cuda" (one "BUS-ID NAME" per line; no file: CUDA
 * did not answer), then gpu_topo_find, gpu_topo_device, gpu_ordinal_check
 * and gpu_link_speed_gen on every line of the input.
 *
 * Checked: dev[] holds at most GPU_TOPO_MAX_GPUS entries, every string is
 * NUL-ended inside its field, each entry is found again by its bus id, and a
 * link generation is 0-6.
 */
#include "fuzz_util.h"
#include "gpu_topo.h"

#define ENDED(s) (strnlen((s), sizeof(s)) < sizeof(s))

/* CUDA's list from <root>/cuda; 0 when there is none. */
static int made_up_cuda(const char *root, struct gpu_cuda_list *c)
{
	char path[400], line[256];
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/cuda", root);
	if (!(f = fopen(path, "r")))
		return 0;
	c->loaded = c->ok = 1;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (c->n >= GPU_TOPO_MAX_GPUS) {
			c->left_out++;
			continue;
		}
		if (sp)
			*sp++ = '\0';
		snprintf(c->bus_id[c->n], sizeof(c->bus_id[0]), "%s", line);
		snprintf(c->name[c->n], sizeof(c->name[0]), "%s", sp ? sp : "");
		c->n++;
	}
	fclose(f);
	if (c->n == 0)
		snprintf(c->why, sizeof(c->why), "cuInit: CUDA_ERROR_NO_DEVICE (100)");
	return 1;
}

static void check(const struct gpu_topo *t, const struct gpu_cuda_list *c)
{
	char msg[128];

	if (t->n < 0 || t->n > GPU_TOPO_MAX_GPUS || !ENDED(t->order_note) || !ENDED(t->cuda_note))
		abort();
	for (int i = 0; i < t->n; i++) {
		const struct gpu_topo_dev *g = &t->dev[i];

		if (!ENDED(g->bdf) || !ENDED(g->name) || gpu_topo_device(t, i) != g)
			abort();
		if (g->pcie_gen_cur < 0 || g->pcie_gen_cur > 64 || g->pcie_width_max < 0 ||
		    g->pcie_width_max > 64)
			abort();
		if (g->bdf[0] && !gpu_topo_find(t, g->bdf))
			abort();
	}
	if (gpu_topo_device(t, -1) || gpu_topo_device(t, t->n))
		abort();
	gpu_topo_find(t, "");
	gpu_topo_find(t, "0000:00:00.0");
	for (int k = -1; k <= 65; k += 3)
		gpu_ordinal_check(k, c, msg, sizeof(msg));
	gpu_ordinal_check(0, c, msg, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gpu_topo t;
	static struct gpu_cuda_list cuda;
	const char *root = fuzz_tree(data, size);
	char sys[400], *text, *line;
	int have_cuda = made_up_cuda(root, &cuda);

	snprintf(sys, sizeof(sys), "%s/sys", root);
	if (gpu_topo_build(sys, have_cuda ? &cuda : NULL, &t) != 0)
		abort();
	check(&t, &cuda);
	/* CUDA's answer that did not come: the PCI bus order */
	cuda.ok = 0;
	snprintf(cuda.why, sizeof(cuda.why), "cuInit: CUDA_ERROR_UNKNOWN (999)");
	if (gpu_topo_build(sys, &cuda, &t) != 0)
		abort();
	check(&t, &cuda);

	text = fuzz_cstr(data, size);
	for (line = text; line; ) {
		char *nl = strchr(line, '\n');
		int gen;

		if (nl)
			*nl = '\0';
		gen = gpu_link_speed_gen(line);
		if (gen < 0 || gen > 6)
			abort();
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return 0;
}
