/*
 * gpu_check.c - dmalab-preflight's checks 2 to 4: which NVIDIA GPUs sysfs
 * lists and which CUDA sees (check 2), and each visible GPU measured by a
 * helper process (checks 3 and 4, judged in verdict.c).
 *
 * CUDA's list comes from the driver API loaded with dlopen (gpu_topo.h's
 * gpu_cuda_list_read): it works in the stub build too, and tells "no
 * driver" from "driver that does not start".  That runs cuInit here, so
 * helpers are started with posix_spawn (proc.h), never a bare fork.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "health.h"
#include "proc.h"
#include "sysinfo.h"

/* The entry for bdf (normalised), or NULL. */
static struct pf_gpu *find_gpu(struct pf_gpus *g, const char *bdf)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->gpu[i].bdf, bdf))
			return &g->gpu[i];
	return NULL;
}

static struct pf_gpu *add_gpu(struct pf_gpus *g, const char *bdf, const char *name)
{
	struct pf_gpu *p;

	if (g->n >= GPU_TOPO_MAX_GPUS)
		return NULL;
	p = &g->gpu[g->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->cuda_ordinal = -1;
	return p;
}

/* The NVIDIA display and 3D controllers under root, in PCI bus order. */
static void scan_sysfs(const char *root, struct pf_gpus *g)
{
	struct gpu_topo *t = (struct gpu_topo *)calloc(1, sizeof(*t));
	struct pf_gpu *p;

	if (!t || gpu_topo_build(root, NULL, t) < 0) {
		free(t);
		return;
	}
	for (int i = 0; i < t->n; i++)
		if (t->dev[i].bdf[0] && (p = add_gpu(g, t->dev[i].bdf, t->dev[i].name)) != NULL) {
			p->in_sysfs = 1;
			g->nsys++;
		}
	g->nsys += t->left_out;
	free(t);
}

/* Every GPU the live driver lists, joined to sysfs's by bus id. */
static void scan_cuda(struct pf_gpus *g)
{
	struct gpu_cuda_list *c = (struct gpu_cuda_list *)calloc(1, sizeof(*c));
	char bdf[GPU_BDF_LEN];
	struct pf_gpu *p;

	if (!c) {
		snprintf(g->cuda_why, sizeof(g->cuda_why), "out of memory for CUDA's list");
		return;
	}
	gpu_cuda_list_read(c);
	g->cuda_loaded = c->loaded;
	g->cuda_ok = c->ok;
	g->cuda_n = c->ok ? c->n + c->left_out : 0;
	snprintf(g->cuda_why, sizeof(g->cuda_why), "%s", c->why);
	for (int i = 0; c->ok && i < c->n; i++) {
		if (pci_bdf_normalise(c->bus_id[i], bdf, sizeof(bdf)) < 0)
			continue;
		p = find_gpu(g, bdf);
		if (!p)
			p = add_gpu(g, bdf, c->name[i]);
		if (!p)
			continue;
		p->cuda_ordinal = i;
		if (c->name[i][0])
			snprintf(p->name, sizeof(p->name), "%s", c->name[i]);
	}
	free(c);
}

void pf_gpus_scan(const struct pf_opts *o, struct pf_gpus *g)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");

	memset(g, 0, sizeof(*g));
	if (visible) {
		snprintf(g->hidden_by, sizeof(g->hidden_by), "%s", visible);
		unsetenv("CUDA_VISIBLE_DEVICES");
	}
	/* CUDA's numbers in PCI bus order, as nvidia-smi counts: "GPU 0" is one GPU */
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	scan_sysfs(o->sysfs_root, g);
	scan_cuda(g);
}

/* ------------------------------------------------------------------------ */
/* The helper, one per GPU                                                   */

/* The last non-empty line of what p printed, without the library's prefix. */
static void last_line(const struct proc *p, char *out, size_t len)
{
	static const char prefix[] = "lab-preflight: error: ";
	char buf[PROC_OUT_KEEP + 1], *line, *nl;

	snprintf(buf, sizeof(buf), "%s", p->outbuf);
	while ((nl = strrchr(buf, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	if (!strncmp(line, prefix, sizeof(prefix) - 1))
		line += sizeof(prefix) - 1;
	snprintf(out, len, "%.200s", line[0] ? line : "it printed nothing");
}

/* What became of a helper that gave no report: why_not. */
static void helper_failed(const struct proc *p, double timeout_s, struct pf_gpu *gpu)
{
	char status[96], said[240];

	last_line(p, said, sizeof(said));
	if (p->timed_out)
		snprintf(gpu->why_not, sizeof(gpu->why_not), "not measured within %.1f s "
			 "(what --gpu-timeout left for it): the helper was stopped (%s)",
			 timeout_s, said);
	else
		snprintf(gpu->why_not, sizeof(gpu->why_not), "not measured: the GPU helper %s: "
			 "%s", proc_status_text(p, status, sizeof(status)), said);
}

static void run_helper(const struct pf_opts *o, struct pf_gpu *gpu, double timeout_s)
{
	char size[32];
	const char *extra[] = { "--bdf", gpu->bdf, "--size", size, NULL };
	struct proc p;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)o->size);
	if (proc_spawn_role(&p, o->self, "gpu", extra,
			    PROC_GROUP | PROC_OUT_PIPE | PROC_ERR_PIPE) < 0) {
		gpu->not_started = 1;
		snprintf(gpu->why_not, sizeof(gpu->why_not), "the GPU helper '%s --role gpu' "
			 "could not be started: %s", o->self, strerror(errno));
		return;
	}
	proc_run(&p, timeout_s, 1.0);
	if (!p.timed_out && p.reaped && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 &&
	    p.have_report && pf_result_parse(p.report, &gpu->m) == 0) {
		gpu->measured = 1;
		return;
	}
	helper_failed(&p, timeout_s, gpu);
}

void pf_gpus_measure(const struct pf_opts *o, struct pf_gpus *g)
{
	double deadline = lab_now() + o->gpu_timeout_s;

	for (int i = 0; i < g->n; i++) {
		struct pf_gpu *gpu = &g->gpu[i];
		double left = deadline - lab_now();

		if (gpu->cuda_ordinal < 0)
			continue;
		if (left < 0.5) {
			snprintf(gpu->why_not, sizeof(gpu->why_not), "not measured: the %.0f s of "
				 "--gpu-timeout ran out on the GPUs before it", o->gpu_timeout_s);
			continue;
		}
		run_helper(o, gpu, left);
	}
}

/* ------------------------------------------------------------------------ */
/* The verdicts                                                              */

/* Checks 3 and 4 of one GPU CUDA lists. */
static void check_one(const struct pf_opts *o, const struct pf_gpu *gpu, struct pf_report *r)
{
	char line[PF_LINE_LEN], who[64];
	enum pf_status st;

	pf_gpu_label(gpu, who, sizeof(who));
	if (!gpu->measured) {
		pf_report_add(r, "link", gpu->not_started ? PF_NOT_RUN : PF_FAIL, "%s %s", who,
			      gpu->why_not);
		pf_report_add(r, "h2d", PF_NOT_RUN, "%s not measured (see link)", who);
		return;
	}
	st = pf_link_verdict(gpu, line, sizeof(line));
	pf_report_add(r, "link", st, "%s", line);
	st = pf_h2d_verdict(gpu, o->min_fraction, line, sizeof(line));
	pf_report_add(r, "h2d", st, "%s", line);
}

/* Checks 3 and 4 when no GPU can be measured here: why not, once. */
static void check_none(const struct pf_gpus *g, enum pf_status gpus_status,
		       struct pf_report *r)
{
	enum pf_status st = PF_NOT_RUN;
	const char *why;

	if (gpus_status == PF_NOT_APPLICABLE) {
		st = PF_NOT_APPLICABLE;
		why = "no NVIDIA GPU";
	} else if (g->cuda_n == 0) {
		why = "CUDA lists no GPU (see gpus)";
	} else {
		why = "this build has no CUDA (built without nvcc): rebuild with the CUDA "
		      "toolkit to check the GPUs";
	}
	pf_report_add(r, "link", st, "%s", why);
	pf_report_add(r, "h2d", st, "%s", why);
}

void pf_check_gpus(const struct pf_opts *o, struct pf_gpus *g, struct pf_report *r)
{
	char line[PF_LINE_LEN];
	enum pf_status st = pf_gpus_verdict(g, o->expect_gpus, o->sysfs_root, line, sizeof(line));

	pf_report_add(r, "gpus", st, "%s", line);
	if (st == PF_NOT_APPLICABLE || g->cuda_n == 0 || !o->gpu_built) {
		check_none(g, st, r);
		return;
	}
	pf_gpus_measure(o, g);
	for (int i = 0; i < g->n; i++)
		if (g->gpu[i].cuda_ordinal >= 0)
			check_one(o, &g->gpu[i], r);
}
