/*
 * gpu_helper.cu - dmalab-preflight's GPU helper: `dmalab-preflight --role
 * gpu --bdf BDF --size BYTES` measures one GPU and prints one line,
 * "result key=value ..." (pf_result_format), then exits 0.  Any CUDA call
 * that fails ends it through lab_error (exit 99, the call and its error on
 * stderr), which the parent turns into that GPU's verdict.
 *
 * What it measures, with the kit's own helpers (lab_copy_cuda.h, as lab-02
 * times its pinned copies; nothing here times by itself):
 *   1. the link as NVML (or sysfs) reads it before any copy: shown only,
 *      an idle link trains down;
 *   2. pinned H2D of --size from cudaHostAlloc memory into a cudaMalloc
 *      buffer, lab_copy_rate: event-timed, median of 7 or more samples;
 *   3. the link read again and again while a queue of those copies runs
 *      (lab_cuda_issue_copies, about 50 ms of them at the rate just
 *      measured): a reading counts only if the stream is still busy after
 *      it, so that every counted reading was taken during a copy.
 * Everything is given back before the line is printed; the process's end
 * would give back the rest on any other path (buffer.h's registry).
 *
 * Built by nvcc as C++ for the program; without nvcc gcc builds it as C
 * with DMALAB_HAVE_CUDA=0 and the helper only says it was not built.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "health.h"
#include "lab.h"

#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"
#include "lab_copy_cuda.h"
#include "proc.h"
#include "sysinfo.h"

/* copies queued for the link readings: 50 ms at the rate measured */
#define PF_LOAD_S 0.05
#define PF_LOAD_MAX_COPIES 64
#define PF_READ_GAP_US 1000     /* between two link readings */

struct pf_helper {
	struct lab *L;
	struct lab_copy_rig rig;    /* device buffer of --size, stream, events */
	struct lab_host host;       /* pinned, --size */
	struct pf_link_reader link;
	struct pf_measure m;
};

/* Pinned H2D of `bytes`, the kit's way (lab_copy_rate): median and range, GB/s. */
static void time_h2d(struct pf_helper *h, uint64_t bytes, int iters)
{
	struct lab_stats rate;

	lab_copy_rate(&h->rig, "h2d_pinned", h->host.p, LAB_COPY_H2D, bytes, iters, &rate);
	h->m.h2d_gbs = rate.median;
	h->m.h2d_min_gbs = rate.min;
	h->m.h2d_max_gbs = rate.max;
	h->m.samples = rate.n;
	h->m.bytes = bytes;
}

/* Copies of `bytes` that last about PF_LOAD_S at `gbs`, at least 2. */
static int load_copies(double gbs, uint64_t bytes)
{
	double n = PF_LOAD_S * gbs * 1e9 / (double)bytes;

	if (!(n >= 2))
		return 2;
	return n >= PF_LOAD_MAX_COPIES ? PF_LOAD_MAX_COPIES : (int)n + 1;
}

/* One reading taken during a copy: the fastest and slowest link seen. */
static void note_reading(struct pf_measure *m, const struct pf_link *now)
{
	double rate = pcie_rate_gbs(now->gen, now->width);

	if (!(rate > 0))
		return;
	if (!m->readings || rate > pcie_rate_gbs(m->load.gen, m->load.width))
		m->load = *now;
	if (!m->readings || rate < pcie_rate_gbs(m->load_low.gen, m->load_low.width))
		m->load_low = *now;
	m->readings++;
}

static void link_under_load(struct pf_helper *h, uint64_t bytes)
{
	struct lab_cuda_copies cp = { h->L, h->rig.dev, h->host.p, bytes,
				      load_copies(h->m.h2d_gbs, bytes), cudaMemcpyHostToDevice };
	struct pf_link now, max;

	lab_cuda_issue_copies(&cp, h->rig.stream);
	for (;;) {
		pf_link_read(&h->link, &now, &max);
		/* the copies may have ended during this reading: then it is not counted */
		if (!lab_cuda_stream_busy(h->L, h->rig.stream))
			break;
		note_reading(&h->m, &now);
		if (max.gen > h->m.max.gen || max.width > h->m.max.width)
			h->m.max = max;
		usleep(PF_READ_GAP_US);
	}
	CUDA_CHECK(h->L, cudaStreamSynchronize(h->rig.stream));
}

static void measure_gpu(struct lab *L, const char *bdf, uint64_t bytes, int iters)
{
	struct pf_helper h;
	char line[512];
	int dev;

	memset(&h, 0, sizeof(h));
	h.L = L;
	if (pf_link_reader_open(&h.link, bdf) < 0)
		lab_error(L, "out of memory for the link reader");
	pf_link_read(&h.link, &h.m.idle, &h.m.max); /* before this process touches the GPU */
	snprintf(h.m.link_src, sizeof(h.m.link_src), "%s", pf_link_source(&h.link));
	CUDA_CHECK(L, cudaDeviceGetByPCIBusId(&dev, bdf));
	CUDA_CHECK(L, cudaSetDevice(dev));
	lab_copy_rig_open(L, bytes, LAB_COPY_QUEUE, &h.rig);
	if (lab_host_alloc(L, LAB_HOST_PINNED, bytes, 0, 0, &h.host) < 0)
		lab_error(L, "%s", h.host.why_not);
	time_h2d(&h, bytes, iters);
	link_under_load(&h, bytes);
	lab_host_free(L, &h.host);
	lab_copy_rig_close(&h.rig);
	pf_link_reader_close(&h.link);
	if (pf_result_format(&h.m, line, sizeof(line)) < 0)
		lab_error(L, "BUG: the result line does not fit %zu bytes", sizeof(line));
	printf("%s\n", line);
	fflush(stdout);
}

static int helper_role(struct lab *L, const char *role)
{
	const char *bdf = lab_opt(L, "bdf");

	if (proc_child_init() < 0)
		return 3; /* the parent is gone: nobody reads the result */
	if (strcmp(role, "gpu") != 0 || !bdf) {
		fprintf(stderr, PF_PROGRAM ": --role '%s': the one helper is 'gpu', with --bdf\n",
			role);
		return 2;
	}
	measure_gpu(L, bdf, lab_options(L)->size, lab_options(L)->iters);
	return 0;
}

/* Not a lab: reached only if --role was given without a value lab_main takes. */
static void not_a_lab(struct lab *L)
{
	lab_error(L, "the GPU helper runs only with --role gpu");
}

static const struct lab_extra_opt helper_opts[] = {
	{ "bdf", "BDF", "(helper only) PCI bus id of the GPU to measure, 0000:3b:00.0" },
	{ NULL, NULL, NULL }
};

static const struct lab_spec helper_spec = {
	.id = "preflight",
	.title = "dmalab-preflight's GPU helper",
	.topic = "one GPU's PCIe link under load and pinned H2D rate, for the node health check",
	.timeout_s = 60,
	.needs = { 1, 1, 0 },
	.claims = NULL,
	.extra_opts = helper_opts,
	.role = helper_role,
	.default_size = PF_SIZE_DEFAULT,
	.default_iters = PF_H2D_SAMPLES,
};

int pf_helper_main(int argc, char **argv)
{
	return lab_main(&helper_spec, not_a_lab, argc, argv, LAB_BUILT_WITH_CUDA);
}

int pf_helper_built(void)
{
	return 1;
}

#else /* !DMALAB_HAVE_CUDA */

int pf_helper_main(int argc, char **argv)
{
	fprintf(stderr, PF_PROGRAM ": the GPU helper was not built (no nvcc)\n");
	return 2;
}

int pf_helper_built(void)
{
	return 0;
}

#endif
