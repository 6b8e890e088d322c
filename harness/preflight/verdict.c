/*
 * verdict.c - dmalab-preflight's judging: each check's verdict and line
 * from numbers already read, the exit code and the status line, and the
 * helper's report line.  No system calls here, so that the unit test
 * (test_node_preflight.c) decides every case a machine without a GPU
 * cannot show.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "health.h"
#include "procfs.h"
#include "sysinfo.h"

void pf_report_add(struct pf_report *r, const char *name, enum pf_status st,
		   const char *fmt, ...)
{
	struct pf_check *c;
	va_list ap;

	if (r->n >= PF_MAX_CHECKS)
		return;
	c = &r->check[r->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->status = st;
	va_start(ap, fmt);
	vsnprintf(c->line, sizeof(c->line), fmt, ap);
	va_end(ap);
}

const char *pf_status_word(enum pf_status st)
{
	static const char *const words[] = { "ok", "FAIL", "n/a", "not run" };

	return (unsigned)st < 4 ? words[st] : "?";
}

const char *pf_status_key(enum pf_status st)
{
	static const char *const keys[] = { "pass", "fail", "not_applicable", "not_run" };

	return (unsigned)st < 4 ? keys[st] : "?";
}

int pf_report_has(const struct pf_report *r, enum pf_status st)
{
	for (int i = 0; i < r->n; i++)
		if (r->check[i].status == st)
			return 1;
	return 0;
}

int pf_report_exit_code(const struct pf_report *r)
{
	if (pf_report_has(r, PF_FAIL))
		return 1;
	return pf_report_has(r, PF_NOT_RUN) ? 2 : 0;
}

static const struct pf_check *first_with(const struct pf_report *r, enum pf_status st,
					 int *count)
{
	const struct pf_check *first = NULL;

	*count = 0;
	for (int i = 0; i < r->n; i++) {
		if (r->check[i].status != st)
			continue;
		if (!first)
			first = &r->check[i];
		++*count;
	}
	return first;
}

const char *pf_status_line(const struct pf_report *r, char *buf, size_t len)
{
	const struct pf_check *c;
	int n;

	if ((c = first_with(r, PF_FAIL, &n)) != NULL) {
		if (n > 1)
			snprintf(buf, len, "preflight: unhealthy: %s (and %d more failed check%s)",
				 c->line, n - 1, n > 2 ? "s" : "");
		else
			snprintf(buf, len, "preflight: unhealthy: %s", c->line);
	} else if ((c = first_with(r, PF_NOT_RUN, &n)) != NULL) {
		snprintf(buf, len, "preflight: could not run: %s", c->line);
	} else if (pf_report_has(r, PF_NOT_APPLICABLE)) {
		snprintf(buf, len, "preflight: healthy (no NVIDIA GPU: memlock and mlock only)");
	} else {
		snprintf(buf, len, "preflight: healthy");
	}
	return buf;
}

/* ------------------------------------------------------------------------ */
/* memlock and mlock                                                         */

enum pf_status pf_memlock_verdict(int64_t limit, int64_t floor, char *line, size_t len)
{
	char have[32], want[32];

	procfs_limit_text(limit, have, sizeof(have));
	procfs_limit_text(floor, want, sizeof(want));
	if (limit < 0) {
		snprintf(line, len, "RLIMIT_MEMLOCK unlimited (need %s)", want);
		return PF_PASS;
	}
	if (floor >= 0 && limit >= floor) {
		snprintf(line, len, "RLIMIT_MEMLOCK %s >= %s", have, want);
		return PF_PASS;
	}
	snprintf(line, len, "RLIMIT_MEMLOCK %s < %s (--memlock-min): mlock and RDMA "
		 "registrations (NCCL over InfiniBand) fail beyond it", have, want);
	return PF_FAIL;
}

enum pf_status pf_mlock_verdict(uint64_t bytes, uint64_t before, uint64_t locked,
				uint64_t after, char *line, size_t len)
{
	char sz[32], rise[32], left[32];
	uint64_t up = locked > before ? locked - before : 0;

	lab_fmt_size(bytes, sz, sizeof(sz));
	lab_fmt_size(up, rise, sizeof(rise));
	lab_fmt_size(after, left, sizeof(left));
	if (up < bytes) {
		snprintf(line, len, "mlock(%s) succeeded but VmLck rose by %s, not %s", sz, rise,
			 sz);
		return PF_FAIL;
	}
	if (after > before) {
		snprintf(line, len, "VmLck still %s after munlock of %s (was %s before)", left, sz,
			 lab_fmt_size(before, rise, sizeof(rise)));
		return PF_FAIL;
	}
	snprintf(line, len, "mlock(%s): VmLck +%s, back to %s after munlock", sz, rise, left);
	return PF_PASS;
}

/* ------------------------------------------------------------------------ */
/* The GPUs sysfs lists against CUDA's                                       */

const char *pf_gpu_label(const struct pf_gpu *g, char *buf, size_t len)
{
	if (g->cuda_ordinal >= 0)
		snprintf(buf, len, "GPU %d (%s)", g->cuda_ordinal, g->bdf);
	else
		snprintf(buf, len, "GPU %s", g->bdf);
	return buf;
}

/* The first sysfs GPU CUDA does not list, and how many there are. */
static const struct pf_gpu *first_unseen(const struct pf_gpus *g, int *count)
{
	const struct pf_gpu *first = NULL;

	*count = 0;
	for (int i = 0; i < g->n; i++) {
		if (!g->gpu[i].in_sysfs || g->gpu[i].cuda_ordinal >= 0)
			continue;
		if (!first)
			first = &g->gpu[i];
		++*count;
	}
	return first;
}

/* " (CUDA_VISIBLE_DEVICES='0' was set: cleared, every GPU is checked)" or "". */
static const char *hidden_note(const struct pf_gpus *g, char *buf, size_t len)
{
	buf[0] = '\0';
	if (g->hidden_by[0])
		snprintf(buf, len, " (CUDA_VISIBLE_DEVICES='%s' was set: cleared, every GPU "
			 "is checked)", g->hidden_by);
	return buf;
}

enum pf_status pf_gpus_verdict(const struct pf_gpus *g, int expect, const char *root,
			       char *line, size_t len)
{
	int found = g->nsys > 0 ? g->nsys : g->cuda_n, unseen;
	const struct pf_gpu *u = first_unseen(g, &unseen);
	char note[200];

	hidden_note(g, note, sizeof(note));
	if (found == 0 && expect <= 0) {
		snprintf(line, len, "no NVIDIA GPU under %s/bus/pci/devices and none expected: "
			 "the GPU checks do not apply, the status rests on memlock and mlock", root);
		return PF_NOT_APPLICABLE;
	}
	if (expect >= 0 && found != expect) {
		snprintf(line, len, "expected %d NVIDIA GPU%s (--expect-gpus), found %d (sysfs "
			 "lists %d, CUDA %d)", expect, expect == 1 ? "" : "s", found, g->nsys,
			 g->cuda_n);
		return PF_FAIL;
	}
	if (u && (!g->cuda_ok || g->cuda_n == 0)) {
		snprintf(line, len, "%d NVIDIA GPU%s in sysfs (%s%s) but CUDA lists none: %s%s",
			 g->nsys, g->nsys == 1 ? "" : "s", u->bdf, g->nsys > 1 ? ", ..." : "",
			 g->cuda_why[0] ? g->cuda_why : "no answer", note);
		return PF_FAIL;
	}
	if (u) {
		snprintf(line, len, "GPU %s (%s) is in sysfs but CUDA does not list it (%d of "
			 "the %d missing)%s", u->bdf, u->name, unseen, g->nsys, note);
		return PF_FAIL;
	}
	if (g->nsys == 0)
		snprintf(line, len, "CUDA lists %d GPU%s, sysfs none (is %s the host's?)%s",
			 g->cuda_n, g->cuda_n == 1 ? "" : "s", root, note);
	else
		snprintf(line, len, "%d NVIDIA GPU%s in sysfs, %svisible to CUDA%s", g->nsys,
			 g->nsys == 1 ? "" : "s", g->nsys == 1 ? "" : "all ", note);
	return PF_PASS;
}

/* ------------------------------------------------------------------------ */
/* One GPU's link and copy rate                                              */

enum pf_status pf_link_verdict(const struct pf_gpu *g, char *line, size_t len)
{
	const struct pf_measure *m = &g->m;
	char who[64];

	pf_gpu_label(g, who, sizeof(who));
	if (m->max.gen <= 0 || m->max.width <= 0) {
		snprintf(line, len, "%s PCIe link's maximum unknown (%s gave Gen%d x%d)", who,
			 m->link_src, m->max.gen, m->max.width);
		return PF_FAIL;
	}
	if (m->readings <= 0 || m->load.gen <= 0 || m->load.width <= 0) {
		snprintf(line, len, "%s PCIe link not read while copies ran (%s, %d readings)",
			 who, m->link_src, m->readings);
		return PF_FAIL;
	}
	if (m->load.gen < m->max.gen || m->load.width < m->max.width) {
		snprintf(line, len, "%s PCIe Gen%d x%d under load < its maximum Gen%d x%d", who,
			 m->load.gen, m->load.width, m->max.gen, m->max.width);
		return PF_FAIL;
	}
	snprintf(line, len, "%s PCIe Gen%d x%d under load, its maximum (idle Gen%d x%d; "
		 "%d readings from %s while copying)", who, m->load.gen, m->load.width,
		 m->idle.gen, m->idle.width, m->readings, m->link_src);
	return PF_PASS;
}

enum pf_status pf_h2d_verdict(const struct pf_gpu *g, double fraction, char *line, size_t len)
{
	const struct pf_measure *m = &g->m;
	double theo = pcie_rate_gbs(m->max.gen, m->max.width);
	char who[64], sz[32];

	pf_gpu_label(g, who, sizeof(who));
	if (!(theo > 0)) {
		snprintf(line, len, "%s pinned H2D %.1f GB/s: the link's theoretical rate is "
			 "unknown (Gen%d x%d)", who, m->h2d_gbs, m->max.gen, m->max.width);
		return PF_FAIL;
	}
	if (!(m->h2d_gbs >= fraction * theo)) { /* NaN fails too */
		snprintf(line, len, "%s pinned H2D %.1f GB/s < %.2f x %.1f GB/s (Gen%d x%d)", who,
			 m->h2d_gbs, fraction, theo, m->max.gen, m->max.width);
		return PF_FAIL;
	}
	snprintf(line, len, "%s pinned H2D %.1f GB/s >= %.2f x %.1f GB/s (Gen%d x%d): %.2f, "
		 "median of %d copies of %s", who, m->h2d_gbs, fraction, theo, m->max.gen,
		 m->max.width, m->h2d_gbs / theo, m->samples,
		 lab_fmt_size(m->bytes, sz, sizeof(sz)));
	return PF_PASS;
}

/* ------------------------------------------------------------------------ */
/* The helper's report                                                       */

/* The words in pf_result_format's order, the whole line (%n: where it ended). */
#define PF_RESULT_FMT                                                                  \
	"result idle_gen=%d idle_width=%d load_gen=%d load_width=%d low_gen=%d low_width=%d " \
	"max_gen=%d max_width=%d readings=%d src=%15s gbs=%lg min_gbs=%lg max_gbs=%lg "  \
	"samples=%d bytes=%llu%n"

int pf_result_format(const struct pf_measure *m, char *buf, size_t len)
{
	int n = snprintf(buf, len, "result idle_gen=%d idle_width=%d load_gen=%d "
			 "load_width=%d low_gen=%d low_width=%d max_gen=%d max_width=%d "
			 "readings=%d src=%s gbs=%.6g min_gbs=%.6g max_gbs=%.6g samples=%d "
			 "bytes=%llu", m->idle.gen, m->idle.width, m->load.gen, m->load.width,
			 m->load_low.gen, m->load_low.width, m->max.gen, m->max.width,
			 m->readings, m->link_src[0] ? m->link_src : "none", m->h2d_gbs,
			 m->h2d_min_gbs, m->h2d_max_gbs, m->samples,
			 (unsigned long long)m->bytes);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int pf_result_parse(const char *line, struct pf_measure *m)
{
	unsigned long long bytes = 0;
	int end = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, PF_RESULT_FMT, &m->idle.gen, &m->idle.width, &m->load.gen,
		   &m->load.width, &m->load_low.gen, &m->load_low.width, &m->max.gen,
		   &m->max.width, &m->readings, m->link_src, &m->h2d_gbs, &m->h2d_min_gbs,
		   &m->h2d_max_gbs, &m->samples, &bytes, &end) != 15 || !end || line[end])
		return -1;
	m->bytes = bytes;
	return 0;
}
