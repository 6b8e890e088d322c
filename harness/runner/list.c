/*
 * list.c - `dmalab list`: every built lab, its plan, and whether it will
 * skip on this machine and why, predicted from its needs and sysinfo.
 * The lab decides for itself at run time; this is a forecast.
 */
#include <stdio.h>
#include <string.h>

#include "runner.h"

static void print_needs(const struct lab_entry *lab)
{
	printf("  needs:   %d GPU%s, %d NUMA node%s, %s\n", lab->needs_gpus,
	       lab->needs_gpus == 1 ? "" : "s", lab->needs_numa,
	       lab->needs_numa == 1 ? "" : "s",
	       lab->needs_root ? "root for some claims" : "no root");
}

/* One line per precondition this machine lacks; "runs fully" if none. */
static void print_forecast(const struct run_state *rs, const struct lab_entry *lab)
{
	const struct sysinfo *si = &rs->si;
	int n = 0;

	if (lab->needs_gpus > 0 && !lab->built_with_cuda)
		n += printf("  here:    CUDA claims skip: not-built:no-nvcc "
			    "(built without nvcc)\n") > 0;
	else if (lab->needs_gpus > 0 && si->ngpus == 0)
		n += printf("  here:    CUDA claims skip: no-cuda-device (no GPU found)\n") > 0;
	else if (lab->needs_gpus > si->ngpus)
		n += printf("  here:    some claims skip: too-few-gpus (%d GPU%s, needs %d)\n",
			    si->ngpus, si->ngpus == 1 ? "" : "s", lab->needs_gpus) > 0;
	if (lab->needs_numa > si->numa.nmem_nodes)
		n += printf("  here:    some claims skip: single-numa-node (%d node%s with "
			    "memory, needs %d)\n", si->numa.nmem_nodes,
			    si->numa.nmem_nodes == 1 ? "" : "s", lab->needs_numa) > 0;
	if (lab->needs_root && si->uid != 0)
		n += printf("  here:    some claims skip: not-root (uid %d)\n", si->uid) > 0;
	if (!n)
		printf("  here:    every precondition is met\n");
}

static void list_lab(const struct run_state *rs, const struct lab_entry *lab)
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
	print_forecast(rs, lab);
	for (k = 0; k < lab->nclaims; k++)
		printf("  %-7s [%s] %s\n", lab->claims[k].id, lab->claims[k].question,
		       lab->claims[k].text);
	printf("\n");
}

int cmd_list(struct run_state *rs)
{
	int i, bad = 0;

	if (!rs->nlabs) {
		printf("no labs in '%s' (build them with make)\n", rs->opt->labs_dir);
		return 1;
	}
	for (i = 0; i < rs->nlabs; i++) {
		list_lab(rs, &rs->labs[i]);
		bad += rs->labs[i].desc_error[0] != '\0';
	}
	printf("%d lab%s", rs->nlabs, rs->nlabs == 1 ? "" : "s");
	if (bad)
		printf(", %d without a usable --describe", bad);
	printf("\n");
	return bad ? 1 : 0;
}
