/*
 * exercise_here.c - which exercises this machine cannot grade (exercise.h),
 * said by `dmalab exercises` before the learner writes one.
 *
 * An exercise is graded by its claims, and `dmalab try` says "not graded here"
 * when one of them skips in the copy's run.  Here each claim's skip is
 * forecast as `dmalab list` forecasts it (list.c: the built lab's --describe
 * against this machine's facts), so the list says it before any run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"
#include "gpu_topo.h"
#include "lang.h"
#include "runner.h"

struct ex_here {
	struct runner_opts opt;
	struct run_state rs;
	struct gpu_topo topo;
};

struct ex_here *ex_here_open(const char *labs_dir)
{
	struct ex_here *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	snprintf(h->opt.labs_dir, sizeof(h->opt.labs_dir), "%s", labs_dir);
	h->opt.timeout_mul = 1;
	h->rs.opt = &h->opt;
	sysinfo_collect(&h->rs.si);
	if (access(labs_dir, R_OK | X_OK) == 0) /* none built: nothing is forecast */
		discover_labs(&h->rs);
	/* after every --describe: the scan runs cuInit, and no lab starts after it */
	gpu_topo_scan("/sys", GPU_TOPO_CUDA, &h->topo);
	return h;
}

void ex_here_close(struct ex_here *h)
{
	if (!h)
		return;
	lab_entries_free(&h->rs);
	free(h);
}

/* What a skip for reason why says this machine lacks, in the learner's words. */
static const char *lacks(const char *why, const struct lab_entry *lab, char *buf, size_t len)
{
	if (!strcmp(why, SKIP_NOT_BUILT_NO_NVCC))
		return MSG("ex.lacks-nvcc", "a build with nvcc");
	if (!strcmp(why, SKIP_UNKNOWN_TOPOLOGY))
		return MSG("ex.lacks-gpu-node", "the GPU's NUMA node");
	if (!strcmp(why, SKIP_NOT_ROOT))
		return MSG("ex.lacks-root", "root");
	if (!strcmp(why, SKIP_SINGLE_NUMA_NODE))
		snprintf(buf, len, MSG("ex.lacks-numa", "%d NUMA nodes"), lab->needs_numa);
	else if (!strcmp(why, SKIP_SINGLE_GPU) || !strcmp(why, SKIP_TOO_FEW_GPUS))
		snprintf(buf, len, MSG("ex.lacks-gpus", "%d GPUs"), lab->needs_gpus);
	else
		return MSG("ex.lacks-gpu", "a GPU"); /* no driver, no device */
	return buf;
}

/* The reasons of why[0..n) not yet in seen (*nseen of them), added there. */
static void add_new(const char **seen, int *nseen, int max, const char *const *why, int n)
{
	int i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < *nseen && strcmp(seen[k], why[i]); k++)
			;
		if (k == *nseen && *nseen < max)
			seen[(*nseen)++] = why[i];
	}
}

int ex_here_lacks(const struct ex_here *h, const char *lab_id, const char *claims,
		  char *out, size_t len)
{
	const char *why[CLAIM_FORECAST_MAX], *seen[16];
	const struct lab_entry *lab = NULL;
	char ids[128], word[64], *save = NULL, *id;
	int i, n, nseen = 0;
	size_t used = 0;

	out[0] = '\0';
	for (i = 0; h && i < h->rs.nlabs && !lab; i++)
		if (!strcmp(h->rs.labs[i].id, lab_id) && h->rs.labs[i].desc)
			lab = &h->rs.labs[i];
	if (!lab)
		return -1;
	snprintf(ids, sizeof(ids), "%s", claims);
	for (id = strtok_r(ids, " ", &save); id; id = strtok_r(NULL, " ", &save)) {
		n = claim_forecast(&h->rs.si, &h->topo, lab, id, why);
		add_new(seen, &nseen, 16, why, n);
	}
	for (i = 0; i < nseen && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 i ? MSG("list.sep", ", ") : "",
					 lacks(seen[i], lab, word, sizeof(word)));
	return nseen > 0;
}
