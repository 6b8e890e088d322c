/*
 * list.c - `dmalab list`: every built lab, its plan, and whether it will
 * skip on this machine and why, predicted from its needs and sysinfo.
 * The lab decides for itself at run time; this is a forecast, in the skip
 * reasons of lab.h.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

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
 * 1 if an NVIDIA driver is installed: libcuda.so.1 loads.  Nothing in it is
 * called, so CUDA is not initialised; and `list` starts no lab after this.
 */
static int have_cuda_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return 0;
	dlclose(h);
	return 1;
}

/* The skip a lab's CUDA claims will give (lab.h reasons); 0 lines if none. */
static int cuda_forecast(const struct sysinfo *si, const struct lab_entry *lab, int driver)
{
	if (lab->needs_gpus <= 0)
		return 0;
	if (!lab->built_with_cuda)
		return printf("  here:    its CUDA claims skip: not-built:no-nvcc "
			      "(built without nvcc)\n") > 0;
	if (!driver)
		return printf("  here:    its CUDA claims skip: no-cuda-driver "
			      "(no NVIDIA driver: libcuda.so.1 not found)\n") > 0;
	if (si->ngpus == 0)
		return printf("  here:    its CUDA claims skip: no-cuda-device "
			      "(a driver, but no GPU found)\n") > 0;
	if (lab->needs_gpus > si->ngpus)
		return printf("  here:    some CUDA claims skip: too-few-gpus (%d GPU%s, "
			      "needs %d)\n", si->ngpus, si->ngpus == 1 ? "" : "s",
			      lab->needs_gpus) > 0;
	return 0;
}

/*
 * A CPU-only lab may still have claims about where the GPU sits (lab-04: the
 * GPU's NUMA node, read from sysfs).  --describe has no per-claim needs, so
 * the claims that name the GPU are the ones forecast to skip.
 */
static int gpu_place_forecast(const struct sysinfo *si, const struct lab_entry *lab)
{
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
	if (si->ngpus == 0)
		return printf("  here:    claims %s skip: no-cuda-device (no NVIDIA PCI "
			      "device)\n", ids) > 0;
	if (si->gpu[0].numa_node < 0)
		return printf("  here:    claims %s skip: unknown-topology (GPU 0 NUMA node %d)\n",
			      ids, si->gpu[0].numa_node) > 0;
	return 0;
}

/* One line per precondition this machine lacks; "runs fully" if none. */
static void print_forecast(const struct run_state *rs, const struct lab_entry *lab,
			   int driver)
{
	const struct sysinfo *si = &rs->si;
	int n = cuda_forecast(si, lab, driver) + gpu_place_forecast(si, lab);

	if (lab->needs_numa > si->numa.nmem_nodes)
		n += printf("  here:    some claims skip: single-numa-node (%d node%s with "
			    "memory, needs %d)\n", si->numa.nmem_nodes,
			    si->numa.nmem_nodes == 1 ? "" : "s", lab->needs_numa) > 0;
	if (lab->needs_root && si->uid != 0)
		n += printf("  here:    some claims skip: not-root (uid %d)\n", si->uid) > 0;
	if (!n)
		printf("  here:    every precondition is met\n");
}

static void list_lab(const struct run_state *rs, const struct lab_entry *lab, int driver)
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
	print_forecast(rs, lab, driver);
	for (k = 0; k < lab->nclaims; k++)
		printf("  %-7s [%s] %s\n", lab->claims[k].id, lab->claims[k].question,
		       lab->claims[k].text);
	printf("\n");
}

int cmd_list(struct run_state *rs)
{
	int i, bad = 0, driver = have_cuda_driver(); /* after every --describe */

	for (i = 0; i < rs->nlabs; i++) {
		list_lab(rs, &rs->labs[i], driver);
		bad += rs->labs[i].desc_error[0] != '\0';
	}
	printf("%d lab%s", rs->nlabs, rs->nlabs == 1 ? "" : "s");
	if (bad)
		printf(", %d without a usable --describe", bad);
	printf("\n");
	return bad ? 1 : 0;
}
