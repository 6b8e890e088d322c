/*
 * preflight.c - `dmalab preflight`: a node health check for Slurm
 * (HealthCheckProgram, Prolog) and Kubernetes (node-problem-detector).
 *
 * It measures nothing itself: it runs lab-01 and lab-02 in their short mode,
 * as `dmalab run` spawns labs, reads back each lab's record (its --json), and
 * holds the facts and verdicts there against the node's thresholds (usage()
 * lists the checks; README.md, "Preflight: a node health check", the why).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "gpu_topo.h"
#include "lang.h"
#include "sizes.h"
#include "procfs.h"
#include "runner.h"
#include "savefile.h"

#define LINE_LEN 400
/*
 * The least --timeout, s: lab-01 --quick took 1.1-1.4 s on an H200 (0.8-1.0 s on the
 * 2-core VM), one GPU's lab-02 0.7-0.9 s, and run_lab starts a lab only with 1 s left,
 * so both labs of a one-GPU node end from about 2.4 s.  Less is refused as a usage
 * error (exit 2): a lab the timeout stops counts as the node's failure, and a mistyped
 * --timeout 1 must not drain a fleet's nodes.
 */
#define PF_TIMEOUT_MIN 3
#define MAX_CHECKS (4 + N_RATES * GPU_TOPO_MAX_GPUS + N_ALL_RATES)

enum pf_status { PF_PASS, PF_FAIL, PF_NA, PF_NOT_RUN };
static const char *const status_word[] = { "ok", "FAIL", "n/a", "not run" };
static const char *const status_key[] = { "pass", "fail", "not_applicable", "not_run" };

/* The thresholds on lab-02's pinned rates: check name, the lab's fact, the words, and
 * the directions the rate spans (both at once: twice the link's one-way rate). */
static const struct rate_check {
	const char *name, *fact, *what;
	int ways;
} rate_checks[] = {
	{ "h2d", "h2d_pinned_gbs", "pinned H2D", 1 },
	{ "d2h", "d2h_pinned_gbs", "pinned D2H", 1 },
	{ "duplex", "duplex_sum_gbs", "pinned H2D + D2H at once", 2 },
};
#define N_RATES (sizeof(rate_checks) / sizeof(rate_checks[0]))
/* lab-02 --all-gpus: every GPU's copy at once, against the links' rates added */
static const struct rate_check all_checks[] = {
	{ "h2d_all", "h2d_all_gbs", "host-to-all, every GPU's pinned H2D at once", 1 },
	{ "d2h_all", "d2h_all_gbs", "all-to-host, every GPU's pinned D2H at once", 1 },
};
#define N_ALL_RATES (sizeof(all_checks) / sizeof(all_checks[0]))
/* lab-01's claims the mlock check rests on */
static const char *const mlock_claims[] = { "01.1", "01.3" };

struct pf_opts {
	int64_t memlock_min;    /* bytes; -1: the limit must be unlimited */
	int expect_gpus;        /* -1: any number */
	uint64_t size;          /* bytes per pinned copy (lab-02 --size) */
	double min_fraction;    /* of the link's theoretical rate */
	double timeout_s;       /* every lab together */
	const char *json_path, *sysfs_root, *labs_dir;
	const char *metrics_path; /* --metrics FILE: Prometheus text, or NULL */
	int brief;
};

/* One lab run: its record, and why it decided nothing if it broke. */
struct lab_out {
	struct json *rec;
	int exit_code;          /* lab-02 exits 2 for a --device CUDA does not list */
	int not_run;            /* not started: not the node's fault */
	char why[LINE_LEN];     /* "" when the lab ran to its end */
};

struct pf_check {
	const char *name;
	enum pf_status st;
	int gpu;                /* the GPU a rate check is of; -1 for the others */
	char line[LINE_LEN];
};

struct preflight {
	struct pf_opts o;
	double t0, deadline;
	char tmp[PATH_MAX];     /* where the labs write their records */
	char hidden_by[96];     /* CUDA_VISIBLE_DEVICES that was set (and cleared) */
	struct gpu_topo sys;    /* the NVIDIA GPUs sysfs lists */
	struct lab_out lab01, gpu[GPU_TOPO_MAX_GPUS], all; /* all: lab-02 --all-gpus */
	int n;
	struct pf_check check[MAX_CHECKS];
};

static void __attribute__((format(printf, 4, 5)))
add(struct preflight *pf, const char *name, enum pf_status st, const char *fmt, ...)
{
	struct pf_check *c = &pf->check[pf->n];
	va_list ap;

	if (pf->n == MAX_CHECKS)
		return;
	pf->n++;
	c->name = name;
	c->st = st;
	c->gpu = -1;
	va_start(ap, fmt);
	vsnprintf(c->line, sizeof(c->line), fmt, ap);
	va_end(ap);
}

/* ---- Running the labs ---------------------------------------------------- */

/* lab-ID --quick --json FILE EXTRA..., within what is left of --timeout. */
static void run_lab(struct preflight *pf, const char *id, char *const *extra, struct lab_out *out)
{
	char path[PATH_MAX], json[PATH_MAX + 16], err[300];
	char *argv[16] = { path, "--quick", "--json", json };
	struct spawn_io io = { NULL, NULL, NULL, NULL }; /* the record is what counts */
	double left = pf->deadline - lab_now();
	struct spawn_result sr = { 0 };

	for (int n = 4; *extra && n < 15; n++)
		argv[n] = *extra++;
	snprintf(path, sizeof(path), "%s/lab-%s", pf->o.labs_dir, id);
	snprintf(json, sizeof(json), "%s/lab-%s.json", pf->tmp, id);
	if (runner_stop_signal)
		snprintf(out->why, sizeof(out->why), "not started: dmalab was stopped by %s",
			 signal_name(runner_stop_signal));
	else if (left < 1)
		snprintf(out->why, sizeof(out->why), "not started: --timeout ran out before it");
	else if (spawn_lab(argv, left, &io, &sr) < 0 || sr.exec_errno)
		snprintf(out->why, sizeof(out->why), "'%.300s' cannot be run (build the labs "
			 "with make, or name their directory with --labs-dir)", path);
	else if (sr.aborted) /* runner_stop_signal stopped it */
		snprintf(out->why, sizeof(out->why), "stopped by %s with dmalab",
			 signal_name(runner_stop_signal));
	out->not_run = out->why[0] != '\0';
	out->rec = out->not_run ? NULL : json_parse_file(json, err, sizeof(err));
	unlink(json);
	if (out->not_run)
		return;
	out->exit_code = sr.exit_code;
	if (sr.timed_out)
		snprintf(out->why, sizeof(out->why), "stopped after %.1f s (--timeout %.0f)",
			 sr.duration_s, pf->o.timeout_s);
	else if (sr.signal)
		snprintf(out->why, sizeof(out->why), "killed by %s", signal_name(sr.signal));
	else if (!out->rec && sr.exit_code != 2)
		snprintf(out->why, sizeof(out->why), "exited with code %d: %s", sr.exit_code, err);
	else if (json_get_str(out->rec, "error", NULL)) /* lab_error: a CUDA call failed, ... */
		snprintf(out->why, sizeof(out->why), "%s", json_get_str(out->rec, "error", ""));
}

/* FAIL for a lab that broke on this node; NOT RUN for one that could not start. */
static enum pf_status broke_status(const struct lab_out *l)
{
	return l->not_run ? PF_NOT_RUN : PF_FAIL;
}

static const struct json *fact(const struct lab_out *l, const char *name)
{
	return json_get(json_get(l->rec, "facts"), name);
}

static double fact_num(const struct lab_out *l, const char *name)
{
	return json_get_num(fact(l, name), "value", NAN);
}

/* A fact that is a string ("gpu_pci_bus_id"), or NULL. */
static const char *fact_str(const struct lab_out *l, const char *name)
{
	return json_get_str(json_get(l->rec, "facts"), name, NULL);
}

static const struct json *claim(const struct lab_out *l, const char *id)
{
	return json_get_by(l->rec, "claims", "id", id);
}

/* ---- lab-01: memlock and mlock --------------------------------------------- */

/* A limit meets the floor (both as procfs_memlock_limit gives them: -1 unlimited). */
static int limit_meets(int64_t limit, int64_t floor)
{
	return limit < 0 || (floor >= 0 && limit >= floor);
}

/* The soft limit up to the hard one, as any job may do without privilege. */
static int raise_soft_memlock(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return -1;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_MEMLOCK, &rl);
}

/*
 * What a job started here may lock, not what the soft limit says alone: lab-01 and the
 * job inherit this process's limits; CAP_IPC_LOCK makes them irrelevant, and without it
 * the job may still raise its soft limit up to the hard one (ulimit -l) before it locks.
 * Returns 1 when the soft limit must be raised for the floor (check_memlock does so
 * before lab-01 runs, so that lab-01 locks what the job could).
 */
static int judge_memlock(struct preflight *pf, int64_t soft, int64_t hard, int cap)
{
	char s[32], h[32], want[32], right[160];

	procfs_limit_text(soft, s, sizeof(s));
	procfs_limit_text(hard, h, sizeof(h));
	procfs_limit_text(pf->o.memlock_min, want, sizeof(want));
	snprintf(right, sizeof(right), "RLIMIT_MEMLOCK soft %s, hard %s, CAP_IPC_LOCK %s", s, h,
		 cap ? "yes" : "no");
	if (cap)
		add(pf, "memlock", PF_PASS, "%s: the capability lifts the limit (need %s)", right,
		    want);
	else if (limit_meets(soft, pf->o.memlock_min))
		add(pf, "memlock", PF_PASS, "%s: soft >= %s", right, want);
	else if (limit_meets(hard, pf->o.memlock_min))
		add(pf, "memlock", PF_PASS, "%s: soft < %s, so the job must raise it (ulimit -l "
		    "%s) before it locks, as preflight did for lab-01", right, want, h);
	else
		add(pf, "memlock", PF_FAIL, "%s: hard < %s (--memlock-min): the job cannot lock "
		    "more; mlock and RDMA registrations (NCCL over InfiniBand) fail beyond it",
		    right, want);
	return !cap && !limit_meets(soft, pf->o.memlock_min) &&
	       limit_meets(hard, pf->o.memlock_min);
}

static void check_memlock(struct preflight *pf)
{
	int cap = procfs_self_has_cap(CAP_IPC_LOCK);

	if (judge_memlock(pf, procfs_memlock_limit(), procfs_memlock_hard_limit(), cap) &&
	    raise_soft_memlock() < 0) {
		pf->check[pf->n - 1].st = PF_FAIL;
		snprintf(pf->check[pf->n - 1].line, sizeof(pf->check[pf->n - 1].line),
			 "RLIMIT_MEMLOCK: raising the soft limit to the hard one failed: %s",
			 strerror(errno));
	}
}

static void check_mlock(struct preflight *pf)
{
	for (size_t i = 0; i < sizeof(mlock_claims) / sizeof(mlock_claims[0]); i++) {
		const struct json *c = claim(&pf->lab01, mlock_claims[i]);
		const char *st = json_get_str(c, "status", "none");
		enum status s = status_parse(st);

		if (s == ST_PASS)
			continue;
		if (!c || s == ST_ERROR)
			add(pf, "mlock", broke_status(&pf->lab01), "lab-01 did not decide %s: %s",
			    mlock_claims[i], pf->lab01.why[0] ? pf->lab01.why : "no verdict");
		else if (s == ST_FAIL)
			add(pf, "mlock", PF_FAIL, "lab-01 %s: %s: got %g, want %g", mlock_claims[i],
			    json_get_str(c, "text", ""), json_get_num(c, "got", NAN),
			    json_get_num(c, "want", NAN));
		else /* skipped or inconclusive */
			add(pf, "mlock", PF_NOT_RUN, "lab-01 %s %s: %s", mlock_claims[i], st,
			    json_get_str(c, "detail", json_get_str(c, "note", "")));
		return;
	}
	add(pf, "mlock", PF_PASS, "lab-01: mlock raises VmLck by the locked size, munlock takes "
	    "it back (01.1, 01.3)");
}

/* ---- lab-02: the GPUs and their pinned rates ------------------------------ */

/* lab-02 skipped as a whole: no CUDA here, so no GPU can be opened. */
static const char *no_cuda(const struct lab_out *l)
{
	static const char *const reasons[] = { SKIP_NOT_BUILT_NO_NVCC, SKIP_NO_CUDA_DRIVER,
					       SKIP_NO_CUDA_DEVICE, SKIP_CUDA_CANNOT_START, NULL };
	const char *why = json_get_str(json_get(l->rec, "skip"), "reason", "");

	for (int i = 0; reasons[i]; i++)
		if (!strcmp(why, reasons[i]))
			return why;
	return NULL;
}

/* The first sysfs GPU that no lab-02 run named, or NULL. */
static const struct gpu_topo_dev *first_unnamed(const struct preflight *pf)
{
	for (int i = 0; i < pf->sys.n; i++) {
		int k = 0;
		const char *bdf;

		while (k < pf->sys.n && !((bdf = fact_str(&pf->gpu[k], "gpu_pci_bus_id")) &&
					  !strcmp(bdf, pf->sys.dev[i].bdf)))
			k++;
		if (k == pf->sys.n)
			return &pf->sys.dev[i];
	}
	return NULL;
}

/* The gpus check; 1 when lab-02 opened a GPU, so that the rates can be judged. */
static int check_gpus(struct preflight *pf)
{
	const struct lab_out *g0 = &pf->gpu[0];
	const struct gpu_topo_dev *u = first_unnamed(pf);
	int listed = 0, want = pf->o.expect_gpus, nsys = pf->sys.n;
	const char *skip = no_cuda(g0), *s = nsys == 1 ? "" : "s";

	for (int i = 0; i < nsys; i++) /* lab-02 exits 2 for a --device CUDA does not list */
		listed += pf->gpu[i].exit_code != 2;
	if (want >= 0 && nsys != want)
		add(pf, "gpus", PF_FAIL, "expected %d NVIDIA GPU%s (--expect-gpus), found %d in "
		    "sysfs", want, want == 1 ? "" : "s", nsys);
	else if (!nsys)
		add(pf, "gpus", PF_NA, "no NVIDIA GPU under %s/bus/pci/devices and none expected: "
		    "the GPU checks do not apply, the status rests on memlock and mlock",
		    pf->o.sysfs_root);
	else if (g0->not_run)
		add(pf, "gpus", PF_NOT_RUN, "lab-02 %s", g0->why);
	else if (skip)
		add(pf, "gpus", strcmp(skip, SKIP_NOT_BUILT_NO_NVCC) ? PF_FAIL : PF_NOT_RUN,
		    "%d NVIDIA GPU%s in sysfs (%s%s) but lab-02 opened none: %s: %s", nsys, s,
		    pf->sys.dev[0].bdf, nsys > 1 ? ", ..." : "", skip,
		    json_get_str(json_get(g0->rec, "skip"), "detail", ""));
	else if (listed < nsys)
		add(pf, "gpus", PF_FAIL, "GPU %s (%s) is in sysfs but CUDA does not list it (%d of "
		    "the %d missing)", u ? u->bdf : "?", u ? u->name : "?", nsys - listed, nsys);
	else
		add(pf, "gpus", PF_PASS, "%d NVIDIA GPU%s in sysfs, %svisible to CUDA%s%s", nsys, s,
		    nsys == 1 ? "" : "all ",
		    pf->hidden_by[0] ? ": CUDA_VISIBLE_DEVICES was cleared, it was " : "",
		    pf->hidden_by);
	return nsys && !g0->not_run && !skip;
}

/* lab-02's rate of GPU `who` against --min-fraction of its link's theoretical rate. */
static void check_rate(struct preflight *pf, const struct lab_out *l, const char *who,
		       const struct rate_check *r)
{
	double gbs = fact_num(l, r->fact), theo = r->ways * fact_num(l, "pcie_theoretical_gbs");
	int gen = (int)fact_num(l, "pcie_gen_max"), width = (int)fact_num(l, "pcie_width_max");
	double f = pf->o.min_fraction;

	if (!(theo > 0))
		add(pf, r->name, PF_FAIL, "%s %s %.1f GB/s: the link's theoretical rate is unknown "
		    "(Gen%d x%d)", who, r->what, gbs, gen, width);
	else if (!(gbs >= f * theo)) /* NaN fails too */
		add(pf, r->name, PF_FAIL, "%s %s %.1f GB/s < %.2f x %.1f GB/s (Gen%d x%d)", who,
		    r->what, gbs, f, theo, gen, width);
	else
		add(pf, r->name, PF_PASS, "%s %s %.1f GB/s >= %.2f x %.1f GB/s (Gen%d x%d): %.2f",
		    who, r->what, gbs, f, theo, gen, width, gbs / theo);
}

/* h2d or d2h of GPU i: its rate, or why lab-02 measured none. */
static void check_gpu(struct preflight *pf, int i, const struct rate_check *r)
{
	const struct lab_out *l = &pf->gpu[i];
	const struct json *skip = json_get(l->rec, "skip");
	const char *bdf = fact_str(l, "gpu_pci_bus_id");
	char who[64];

	/* "GPU 0 (0000:3b:00.0)": CUDA's number, and the bus id lab-02 found */
	snprintf(who, sizeof(who), "GPU %d (%s)", i, bdf ? bdf : pf->sys.dev[i].bdf);
	if (l->why[0])
		add(pf, r->name, broke_status(l), "%s lab-02: %s", who, l->why);
	else if (skip && skip->type == JSON_OBJ)
		add(pf, r->name, PF_NOT_RUN, "%s lab-02 skipped: %s: %s", who,
		    json_get_str(skip, "reason", ""), json_get_str(skip, "detail", ""));
	else
		check_rate(pf, l, who, r);
	pf->check[pf->n - 1].gpu = i;
}

/* Every GPU's copies at once (lab-02 --all-gpus) against the links' rates added:
 * less means the GPUs share a bottleneck (a switch's uplink, a root port, host memory). */
static void check_all_gpus(struct preflight *pf, char *size)
{
	char *extra[] = { "--all-gpus", "--size", size, NULL };
	const struct lab_out *l = &pf->all;
	double f = pf->o.min_fraction, links;

	if (pf->sys.n < 2) {
		for (size_t k = 0; k < N_ALL_RATES; k++)
			add(pf, all_checks[k].name, PF_NA, "one NVIDIA GPU: %s needs two or more",
			    all_checks[k].what);
		return;
	}
	run_lab(pf, "02", extra, &pf->all);
	links = fact_num(l, "all_links_theoretical_gbs");
	for (size_t k = 0; k < N_ALL_RATES; k++) {
		const struct rate_check *r = &all_checks[k];
		double gbs = fact_num(l, r->fact);

		if (l->why[0])
			add(pf, r->name, broke_status(l), "lab-02 --all-gpus: %s", l->why);
		else if (!(links > 0))
			add(pf, r->name, PF_FAIL, "%s %.1f GB/s: a link's theoretical rate is "
			    "unknown", r->what, gbs);
		else
			add(pf, r->name, gbs >= f * links ? PF_PASS : PF_FAIL,
			    "%s %.1f GB/s %s %.2f x %.1f GB/s (%d links added): %.2f", r->what, gbs,
			    gbs >= f * links ? ">=" : "<", f, links, (int)fact_num(l, "all_gpus"),
			    gbs / links);
	}
}

/* Every NVIDIA GPU sysfs lists, through lab-02 --device N, one after the other. */
static void check_gpus_and_rates(struct preflight *pf)
{
	char size[32], dev[16],
	     *extra[] = { "--pinned-only", "--size", size, "--device", dev, NULL };
	int nsys = gpu_topo_build(pf->o.sysfs_root, NULL, &pf->sys) < 0 ? 0 : pf->sys.n;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)pf->o.size);
	for (int i = 0; i < nsys && !(i == 1 && no_cuda(&pf->gpu[0])); i++) {
		snprintf(dev, sizeof(dev), "%d", i);
		run_lab(pf, "02", extra, &pf->gpu[i]);
	}
	if (check_gpus(pf)) {
		for (int i = 0; i < nsys; i++)
			for (size_t k = 0; k < N_RATES && pf->gpu[i].exit_code != 2; k++)
				check_gpu(pf, i, &rate_checks[k]);
		check_all_gpus(pf, size);
		return;
	}
	for (size_t k = 0; k < N_RATES; k++)
		add(pf, rate_checks[k].name, nsys ? PF_NOT_RUN : PF_NA, "%s",
		    nsys ? "no GPU measured (see gpus)" : "no NVIDIA GPU");
}

/* ---- The verdict, for people and for machines ------------------------------ */

static int count(const struct preflight *pf, enum pf_status st, const struct pf_check **first)
{
	int n = 0;

	*first = NULL;
	for (int i = 0; i < pf->n; i++)
		if (pf->check[i].st == st && !n++)
			*first = &pf->check[i];
	return n;
}

/* 128 + N when signal N stopped it (as dmalab check); else 1 if any check
 * failed; else 2 if any was not run; else 0. */
static int exit_code(const struct preflight *pf)
{
	const struct pf_check *c;

	if (runner_stop_signal)
		return 128 + runner_stop_signal;
	return count(pf, PF_FAIL, &c) ? 1 : count(pf, PF_NOT_RUN, &c) ? 2 : 0;
}

/* "preflight: healthy", "preflight: unhealthy: <the first failed check>", ... */
static const char *status_line(const struct preflight *pf, char *buf, size_t len)
{
	const struct pf_check *c;
	int n = count(pf, PF_FAIL, &c);

	if (runner_stop_signal) /* what ran before the stop is no verdict on the node */
		snprintf(buf, len, "preflight: stopped by %s before its checks were done",
			 signal_name(runner_stop_signal));
	else if (n > 1)
		snprintf(buf, len, "preflight: unhealthy: %s (and %d more failed check%s)", c->line,
			 n - 1, n > 2 ? "s" : "");
	else if (n)
		snprintf(buf, len, "preflight: unhealthy: %s", c->line);
	else if (count(pf, PF_NOT_RUN, &c))
		snprintf(buf, len, "preflight: could not run: %s", c->line);
	else if (pf->sys.n == 0)
		snprintf(buf, len, "preflight: healthy (no NVIDIA GPU: memlock and mlock only)");
	else
		snprintf(buf, len, "preflight: healthy");
	return buf;
}

/* --json FILE: the status, every check, and the labs' own records. */
static int write_json(const struct preflight *pf)
{
	static const char *const status[] = { "healthy", "unhealthy", "could_not_run" };
	char host[256] = "", line[LINE_LEN + 64];
	int code = exit_code(pf);
	struct json_writer w;
	int rc;

	gethostname(host, sizeof(host) - 1);
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "tool", "dmalab preflight");
	jw_kint(&w, "schema", 2);
	jw_kstr(&w, "hostname", host);
	jw_kstr(&w, "status", code > 2 ? "stopped" : status[code]);
	jw_kint(&w, "exit_code", code);
	jw_kstr(&w, "summary", status_line(pf, line, sizeof(line)));
	jw_knum(&w, "elapsed_s", lab_now() - pf->t0);
	jw_knum(&w, "min_fraction", pf->o.min_fraction);
	jw_key(&w, "checks");
	jw_arr_begin(&w);
	for (int i = 0; i < pf->n; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "name", pf->check[i].name);
		jw_kstr(&w, "status", status_key[pf->check[i].st]);
		jw_kstr(&w, "detail", pf->check[i].line);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "labs"); /* lab-01, lab-02 per GPU (null where none was written), --all-gpus's */
	jw_arr_begin(&w);
	jw_value(&w, pf->lab01.rec);
	for (int i = 0; i < pf->sys.n; i++)
		jw_value(&w, pf->gpu[i].rec);
	if (pf->all.rec)
		jw_value(&w, pf->all.rec);
	jw_arr_end(&w);
	jw_obj_end(&w);
	rc = w.failed ? (errno = ENOMEM, -1) : jw_write_file(&w, pf->o.json_path);
	jw_release(&w);
	return rc;
}

static void put_check(FILE *f, const char *host, const struct pf_check *c)
{
	char gpu[16];

	snprintf(gpu, sizeof(gpu), "%d", c->gpu);
	for (size_t k = 0; k < sizeof(status_key) / sizeof(status_key[0]); k++) {
		fputs("dmalab_preflight_check{", f);
		prom_label(f, "host", host, 1);
		prom_label(f, "check", c->name, 0);
		prom_label(f, "gpu", c->gpu < 0 ? "" : gpu, 0);
		prom_label(f, "status", status_key[k], 0);
		fprintf(f, "} %d\n", c->st == (enum pf_status)k);
	}
}

static void put_rate(FILE *f, const char *host, const char *gpu, const char *bdf,
		     const char *direction, double gbs)
{
	if (!isfinite(gbs))
		return;
	fputs("dmalab_preflight_pinned_bytes_per_second{", f);
	prom_label(f, "host", host, 1);
	prom_label(f, "gpu", gpu, 0);
	prom_label(f, "bdf", bdf, 0);
	prom_label(f, "direction", direction, 0);
	fprintf(f, "} %.6g\n", gbs * 1e9);
}

/* Per GPU and direction; every GPU at once as gpu="all", bdf="". */
static void put_rates(FILE *f, const char *host, const struct preflight *pf)
{
	char gpu[16];

	for (int i = 0; i < pf->sys.n; i++)
		for (size_t k = 0; k < N_RATES; k++) {
			snprintf(gpu, sizeof(gpu), "%d", i);
			put_rate(f, host, gpu, pf->sys.dev[i].bdf, rate_checks[k].name,
				 fact_num(&pf->gpu[i], rate_checks[k].fact));
		}
	for (size_t k = 0; k < N_ALL_RATES; k++)
		put_rate(f, host, "all", "", all_checks[k].name,
			 fact_num(&pf->all, all_checks[k].fact));
}

/* --metrics FILE, written whole or not at all: a collector never reads half. */
static int write_metrics(const struct preflight *pf)
{
	char host[256] = "";
	struct savefile out;
	FILE *f = savefile_open(&out, pf->o.metrics_path);

	gethostname(host, sizeof(host) - 1);
	if (!f)
		return -1;
	prom_head(f, "dmalab_preflight_status", "The last dmalab preflight's exit code: 0 healthy, "
		  "1 unhealthy, 2 could not run, 128+N stopped by signal N.");
	fputs("dmalab_preflight_status{", f);
	prom_label(f, "host", host, 1);
	fprintf(f, "} %d\n", exit_code(pf));
	prom_head(f, "dmalab_preflight_check", "1 for the status of each check of the last "
		  "preflight, 0 for the other status words (a state set).");
	for (int i = 0; i < pf->n; i++)
		put_check(f, host, &pf->check[i]);
	prom_head(f, "dmalab_preflight_pinned_bytes_per_second", "lab-02's median pinned copy "
		  "rate per GPU and direction in the last preflight, bytes per second.");
	put_rates(f, host, pf);
	return savefile_commit(&out);
}

/* ---- The command line ------------------------------------------------------ */

static void usage(void)
{
	printf("usage: dmalab preflight [options]\n"
	       "A node health check for Slurm and Kubernetes: lab-01 and lab-02 run short\n"
	       "(--quick; lab-02 --pinned-only on each NVIDIA GPU in PCI bus order, with\n"
	       "CUDA_VISIBLE_DEVICES cleared); one line per check, then the status line.\n"
	       "  memlock  what a job can lock: CAP_IPC_LOCK, or a hard RLIMIT_MEMLOCK of "
	       "at least\n"
	       "           --memlock-min (a soft limit below it is said: the job must raise it)\n"
	       "  mlock    lab-01's 01.1 and 01.3: mlock raises VmLck, munlock takes it back\n"
	       "  gpus     lab-02 opens every NVIDIA GPU in /sys/bus/pci/devices (--expect-gpus)\n"
	       "  h2d d2h  per GPU, lab-02's pinned rate at --size is at least --min-fraction\n"
	       "           of the link's theoretical rate (Gen5 x16: 63.0 GB/s)\n"
	       "  duplex   per GPU, lab-02's H2D and D2H at once: their sum is at least\n"
	       "           --min-fraction of twice the link's rate (both directions)\n"
	       "  h2d_all d2h_all  with two GPUs or more, lab-02 --all-gpus: every GPU's copy at\n"
	       "           once, at least --min-fraction of the links' rates added (less: the\n"
	       "           GPUs share a bottleneck, a switch's uplink, a root port, host memory)\n"
	       "options:\n"
	       "  --memlock-min SIZE  the least RLIMIT_MEMLOCK, or 'unlimited' (default 64M)\n"
	       "  --expect-gpus N     the node has exactly N NVIDIA GPUs, 0 to %d\n"
	       "  --size SIZE         bytes per pinned copy, 64M to 4G (default 256M)\n"
	       "  --min-fraction F    0.01 to 1 (default 0.70: the H200 measured 0.88 of Gen5\n"
	       "                      x16; a link trained at Gen4 gives at most 0.50)\n"
	       "  --timeout S         the labs' time, all together, %d to 600 (default 50):\n"
	       "                      in less, lab-01 and one GPU's lab-02 cannot both end\n"
	       "  --json FILE         also write the checks and the labs' records as JSON\n"
	       "  --metrics FILE      also write the status, checks and rates as Prometheus "
	       "gauges\n"
	       "                      (node_exporter's textfile collector)\n"
	       "  --brief             print only the status line\n"
	       "  --labs-dir DIR      where the labs are (default <dir of dmalab>/labs)\n"
	       "  --sysfs-root DIR    read PCI devices under DIR/bus/pci/devices (tests)\n"
	       "exit: 0 healthy; 1 unhealthy: a check failed, or a lab broke (a CUDA error, a\n"
	       "crash, --timeout); 2 could not run, nothing failed: a bad option, --json or\n"
	       "--metrics not written, a lab not built (or built without nvcc);\n"
	       "128+N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP): no verdict,\n"
	       "the labs stopped with it\n",
	       GPU_TOPO_MAX_GPUS, PF_TIMEOUT_MIN);
}

static uint64_t parse_size(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char a[32], b[32];
	uint64_t v;

	if (lab_parse_size(s, &v) < 0 || v < lo || v > hi)
		die_usage("%s '%s': want a size from %s to %s (digits with an optional K, M, G or "
			  "T suffix)", opt, s, lab_fmt_size(lo, a, sizeof(a)),
			  lab_fmt_size(hi, b, sizeof(b)));
	return v;
}

/* --json or --metrics FILE: a file (not '', not a directory) in a directory writable now,
 * not after the labs ran. */
static const char *out_arg(const char *opt, const char *path)
{
	struct stat st;
	char *copy;

	if (!*path || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		die_usage(MSG("preflight.err-out-dir",
			      "%s '%s': want a file name, not a directory"), opt, path);
	copy = strdup(path);
	if (!copy || access(dirname(copy), W_OK | X_OK) < 0)
		die_usage("%s '%s': its directory is not writable: %s", opt, path, strerror(errno));
	free(copy);
	return path;
}

static void take_option(struct pf_opts *o, int c, const char *arg)
{
	long n;

	if (c == 'g' && lab_parse_long(arg, 0, GPU_TOPO_MAX_GPUS, &n) < 0)
		die_usage("--expect-gpus '%s': want a whole number from 0 to %d", arg,
			  GPU_TOPO_MAX_GPUS);
	switch (c) {
	case 'm': o->memlock_min = strcmp(arg, "unlimited") ?
			(int64_t)parse_size("--memlock-min", arg, 1, INT64_MAX) : -1; break;
	case 'g': o->expect_gpus = (int)n; break;
	case 's': o->size = parse_size("--size", arg, 64 * MiB, 4 * GiB); break;
	case 'f': o->min_fraction = parse_number(arg, "--min-fraction", 0.01, 1); break;
	case 't': o->timeout_s = parse_number(arg, "--timeout", PF_TIMEOUT_MIN, 600); break;
	case 'j': o->json_path = out_arg("--json", arg); break;
	case 'M': o->metrics_path = out_arg("--metrics", arg); break;
	case 'b': o->brief = 1; break;
	case 'L': o->labs_dir = arg; break;
	case 'r': o->sysfs_root = arg; break;
	case 'h': usage(); exit(0);
	}
}

static void parse_args(struct pf_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "memlock-min", required_argument, NULL, 'm' },
		{ "expect-gpus", required_argument, NULL, 'g' },
		{ "size", required_argument, NULL, 's' },
		{ "min-fraction", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "brief", no_argument, NULL, 'b' },
		{ "labs-dir", required_argument, NULL, 'L' },
		{ "sysfs-root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	usage_set_help("dmalab preflight");
	opterr = 0;
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		if (c == '?' || c == ':')
			die_bad_option(c, argv);
		take_option(o, c, optarg);
	}
	if (optind < argc)
		die_usage("'%s': preflight takes options only", argv[optind]);
}

int cmd_preflight(int argc, char **argv, const char *labs_dir)
{
	struct preflight *pf = calloc(1, sizeof(*pf));
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	char line[LINE_LEN + 64];
	int code;

	if (!pf)
		die("out of memory");
	pf->o = (struct pf_opts){ 64 * MiB, -1, 256 * MiB, 0.70, 50, NULL, "/sys", labs_dir,
				  NULL, 0 };
	parse_args(&pf->o, argc, argv);
	pf->t0 = lab_now();
	pf->deadline = pf->t0 + pf->o.timeout_s;
	snprintf(pf->tmp, sizeof(pf->tmp), "%s/dmalab-preflight.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(pf->tmp))
		die("cannot make a directory for the labs' records, '%s': %s", pf->tmp,
		    strerror(errno));
	/* every GPU, numbered in PCI bus order as nvidia-smi numbers them */
	snprintf(pf->hidden_by, sizeof(pf->hidden_by), "%s", visible ? visible : "");
	unsetenv("CUDA_VISIBLE_DEVICES");
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	check_memlock(pf);
	run_lab(pf, "01", (char *[]){ NULL }, &pf->lab01);
	check_mlock(pf);
	check_gpus_and_rates(pf);
	rmdir(pf->tmp);
	for (int i = 0; i < pf->n && !pf->o.brief; i++)
		printf("%-8s %-7s %s\n", pf->check[i].name, status_word[pf->check[i].st],
		       pf->check[i].line);
	printf("%s\n", status_line(pf, line, sizeof(line)));
	fflush(stdout);
	code = exit_code(pf);
	if (pf->o.json_path && write_json(pf) < 0) {
		error_errno("--json '%s': not written", pf->o.json_path);
		code = code ? code : 2;
	}
	if (pf->o.metrics_path && write_metrics(pf) < 0) {
		error_errno("--metrics '%s': not written", pf->o.metrics_path);
		code = code ? code : 2;
	}
	json_free(pf->lab01.rec);
	for (int i = 0; i < pf->sys.n; i++)
		json_free(pf->gpu[i].rec);
	json_free(pf->all.rec);
	free(pf);
	return code;
}
