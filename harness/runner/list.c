/*
 * list.c - `dmalab list`: every built lab, its plan, and whether it will
 * skip on this machine and why, predicted from its needs and sysinfo.
 * The lab decides for itself at run time; this is a forecast, in the skip
 * reasons of lab.h.  GPUs are counted and numbered as CUDA does (gpu_topo).
 */
#include <stdio.h>
#include <string.h>

#include "gpu_topo.h"
#include "runner.h"

static void print_needs(const struct lab_entry *lab)
{
	char gpu[64] = "no CUDA";

	if (lab->needs_gpus == 1)
		snprintf(gpu, sizeof(gpu), "a GPU for its CUDA claims");
	else if (lab->needs_gpus > 1)
		snprintf(gpu, sizeof(gpu), "%d GPUs for its CUDA claims", lab->needs_gpus);
	printf("  needs:   %s, %d NUMA node%s, %s\n", gpu, lab->needs_numa,
	       lab->needs_numa == 1 ? "" : "s for the full lab",
	       lab->needs_root ? "root for some claims" : "no root");
}

/*
 * The skip a lab's CUDA claims will give (lab.h reasons); 0 lines if none.
 * The count is CUDA's (CUDA_VISIBLE_DEVICES applies), as the lab's will be.
 */
static int cuda_forecast(const struct gpu_topo *t, const struct lab_entry *lab)
{
	if (lab->needs_gpus <= 0)
		return 0;
	if (!lab->built_with_cuda)
		return printf("  here:    its CUDA claims skip: not-built:no-nvcc "
			      "(built without nvcc)\n") > 0;
	if (!t->cuda_loaded)
		return printf("  here:    its CUDA claims skip: no-cuda-driver "
			      "(no NVIDIA driver: libcuda.so.1 not found)\n") > 0;
	if (t->order != GPU_ORDER_CUDA)
		return printf("  here:    its CUDA claims skip: no-cuda-driver (%s)\n",
			      t->cuda_note) > 0;
	/* the driver's note names CUDA_VISIBLE_DEVICES when it hid them */
	if (t->n == 0)
		return printf("  here:    its CUDA claims skip: no-cuda-device "
			      "(a driver, but CUDA lists no GPU; %d NVIDIA GPU%s in sysfs%s%s)\n",
			      t->not_in_cuda, t->not_in_cuda == 1 ? "" : "s",
			      t->cuda_note[0] ? "; " : "", t->cuda_note) > 0;
	/* a GPU-to-GPU lab on one GPU says single-gpu, as lab-09 does */
	if (lab->needs_gpus > t->n)
		return printf("  here:    some CUDA claims skip: %s (%d CUDA device%s, "
			      "need %d)\n", t->n == 1 && lab->needs_gpus == 2 ? "single-gpu"
			      : "too-few-gpus", t->n, t->n == 1 ? "" : "s",
			      lab->needs_gpus) > 0;
	return 0;
}

/*
 * A CPU-only lab may still have claims about where the GPU sits (lab-04: the
 * NUMA node of its --device, 0 by default, in CUDA's order when the driver
 * answers).  --describe has no per-claim needs, so the claims that name the
 * GPU are the ones forecast to skip.
 */
static int gpu_place_forecast(const struct gpu_topo *t, const struct lab_entry *lab)
{
	const struct gpu_topo_dev *g = gpu_topo_device(t, 0);
	char ids[128] = "";
	size_t n = 0;
	int k;

	if (lab->needs_gpus > 0)
		return 0;
	for (k = 0; k < lab->nclaims && n < sizeof(ids); k++)
		if (lab->claims[k].text && strstr(lab->claims[k].text, "GPU"))
			n += (size_t)snprintf(ids + n, sizeof(ids) - n, "%s%s", n ? ", " : "",
					      lab->claims[k].id);
	if (!n)
		return 0;
	if (!g)
		return printf("  here:    claims %s skip: no-cuda-device (%s)\n", ids,
			      t->order == GPU_ORDER_CUDA ? "CUDA lists no GPU"
							 : "no NVIDIA PCI device") > 0;
	if (g->numa_node < 0)
		return printf("  here:    claims %s skip: unknown-topology (GPU 0 %s NUMA "
			      "node %d)\n", ids, g->bdf, g->numa_node) > 0;
	return 0;
}

/* One line per precondition this machine lacks; "runs fully" if none. */
static void print_forecast(const struct run_state *rs, const struct lab_entry *lab,
			   const struct gpu_topo *t)
{
	const struct sysinfo *si = &rs->si;
	int n = cuda_forecast(t, lab) + gpu_place_forecast(t, lab);

	if (lab->needs_numa > si->numa.nmem_nodes)
		n += printf("  here:    some claims skip: single-numa-node (%d node%s with "
			    "memory, needs %d)\n", si->numa.nmem_nodes,
			    si->numa.nmem_nodes == 1 ? "" : "s", lab->needs_numa) > 0;
	if (lab->needs_root && si->uid != 0)
		n += printf("  here:    some claims skip: not-root (uid %d)\n", si->uid) > 0;
	if (!n)
		printf("  here:    every precondition is met\n");
}

static void list_lab(const struct run_state *rs, const struct lab_entry *lab,
		     const struct gpu_topo *t)
{
	int k;

	printf("lab-%s  %s\n", lab->id, lab->title);
	if (lab->desc_error[0]) {
		printf("  error:   %s\n\n", lab->desc_error);
		return;
	}
	printf("  timeout: %d s", lab->timeout_s);
	if (rs->opt->timeout_mul != 1)
		printf(" (x %g = %.0f s)", rs->opt->timeout_mul,
		       lab->timeout_s * rs->opt->timeout_mul);
	printf("\n");
	print_needs(lab);
	print_forecast(rs, lab, t);
	for (k = 0; k < lab->nclaims; k++)
		printf("  %-7s [%s] %s\n", lab->claims[k].id, lab->claims[k].question,
		       lab->claims[k].text);
	printf("\n");
}

int cmd_list(struct run_state *rs)
{
	struct gpu_topo t;
	int i, bad = 0;

	/*
	 * CUDA's device list, from the driver API: this runs cuInit, which the
	 * runner must not do before it forks a lab.  Here every --describe has
	 * been run and `list` starts nothing after this.
	 */
	gpu_topo_scan("/sys", GPU_TOPO_CUDA, &t);
	for (i = 0; i < rs->nlabs; i++) {
		list_lab(rs, &rs->labs[i], &t);
		bad += rs->labs[i].desc_error[0] != '\0';
	}
	printf("%d lab%s", rs->nlabs, rs->nlabs == 1 ? "" : "s");
	if (bad)
		printf(", %d without a usable --describe", bad);
	printf("\n");
	return bad ? 1 : 0;
}
