/*
 * health.h - dmalab-preflight, a node health check for Slurm
 * (HealthCheckProgram, Prolog) and Kubernetes (node-problem-detector's
 * custom plugin).  Internal to harness/preflight/ and its unit test
 * (harness/tests/unit/preflight/test_node_preflight.c).
 *
 * The checks, in order (README.md, "Preflight: a node health check"):
 *   memlock  RLIMIT_MEMLOCK is unlimited or at least --memlock-min
 *   mlock    one mlock of a small buffer shows in VmLck, and is undone
 *   gpus     every NVIDIA GPU sysfs lists is visible to CUDA (--expect-gpus)
 *   link     per GPU: the PCIe generation and width read while pinned H2D
 *            copies run, against the link's maximum (an idle link trains
 *            down: its reading is shown, never judged)
 *   h2d      per GPU: the median pinned H2D rate against --min-fraction of
 *            pcie_rate_gbs(maximum generation, maximum width)
 * Each check ends pass, fail, not applicable (no GPU) or not run (it could
 * not be made).  Any fail: exit 1 (unhealthy); else any not run: exit 2
 * (could not run); else 0 (healthy).
 *
 * This program never initialises CUDA's runtime itself.  The GPU work is
 * done by a helper, this program again with `--role gpu --bdf BDF`, one
 * GPU at a time: a CUDA error, a crash or a hang on one GPU becomes that
 * GPU's verdict, the time limit holds (the helper is killed), and the
 * pinned and device memory go back with the helper's process whatever
 * happens.  The helper's one-line report is `result key=value ...`
 * (pf_result_format, pf_result_parse).
 *
 * Units: bytes, seconds, GB/s = 1e9 B/s.
 */
#ifndef DMALAB_PREFLIGHT_HEALTH_H
#define DMALAB_PREFLIGHT_HEALTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu_topo.h"
#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PF_PROGRAM "dmalab-preflight"
#define PF_LINE_LEN 400
#define PF_MAX_CHECKS (8 + 2 * GPU_TOPO_MAX_GPUS)

/* Defaults, and why (README.md says the same at more length). */
#define PF_MEMLOCK_MIN_DEFAULT (64 * MiB) /* above unraised defaults: 64 KiB old, 8 MiB newer */
#define PF_MLOCK_PROBE_BYTES (16 * MiB)   /* at most this is locked by the mlock check */
#define PF_SIZE_DEFAULT (256 * MiB)       /* per H2D copy: 5 ms at 55 GB/s */
#define PF_SIZE_MIN (64 * MiB)            /* smaller copies do not reach the link's rate */
#define PF_SIZE_MAX (4 * GiB)
/*
 * The least pinned H2D rate, as a fraction of the link's theoretical rate.
 * On the kit's H200 (Gen5 x16, 63.0 GB/s) pinned H2D measured 55.5 GB/s,
 * 0.88; a link trained at Gen4 carries at most 31.5 GB/s of that 63.0,
 * 0.50.  0.70 lies between the two with room on either side.
 */
#define PF_MIN_FRACTION_DEFAULT 0.70
#define PF_GPU_TIMEOUT_DEFAULT 30.0 /* s, every GPU together */
#define PF_H2D_SAMPLES 7            /* the kit's least --iters: median of 7 or more */

enum pf_status { PF_PASS, PF_FAIL, PF_NOT_APPLICABLE, PF_NOT_RUN };

struct pf_check {
	char name[16];          /* "memlock", "mlock", "gpus", "link", "h2d" */
	enum pf_status status;
	char line[PF_LINE_LEN]; /* what was found; a failed check's line is the reason */
};

struct pf_report {
	int n;
	struct pf_check check[PF_MAX_CHECKS];
};

/* A PCIe link: generation 1 to 6 and lanes; 0 unknown. */
struct pf_link {
	int gen, width;
};

/* What the helper measured on one GPU. */
struct pf_measure {
	struct pf_link idle;     /* before the copies: may be down-trained, never judged */
	struct pf_link load;     /* the highest generation and width read while copies ran */
	struct pf_link load_low; /* the lowest read while copies ran */
	struct pf_link max;      /* what device and slot support */
	int readings;            /* link readings taken while copies ran */
	char link_src[16];       /* "nvml", "sysfs" or "none" */
	double h2d_gbs;          /* median pinned H2D rate, GB/s */
	double h2d_min_gbs, h2d_max_gbs;
	int samples;             /* copies timed */
	uint64_t bytes;          /* per copy */
};

struct pf_gpu {
	char bdf[GPU_BDF_LEN];   /* "0000:3b:00.0" (sysfs's form) */
	char name[GPU_NAME_LEN];
	int in_sysfs;            /* listed under <sysfs root>/bus/pci/devices */
	int cuda_ordinal;        /* CUDA's number (PCI bus order); -1: CUDA does not list it */
	int measured;            /* the helper reported m */
	int not_started;         /* the helper could not be started (not the GPU's fault) */
	struct pf_measure m;
	char why_not[PF_LINE_LEN]; /* not measured: what happened */
};

struct pf_gpus {
	int n;                   /* entries in gpu[]: sysfs's, then any only CUDA lists */
	int nsys;                /* NVIDIA GPUs sysfs lists */
	int cuda_loaded;         /* libcuda.so.1 was found */
	int cuda_ok;             /* CUDA answered (it may list none) */
	int cuda_n;              /* devices CUDA lists */
	char cuda_why[160];      /* when !cuda_ok, or cuda_n == 0: the driver's word */
	char hidden_by[96];      /* CUDA_VISIBLE_DEVICES that was set (and cleared), "" none */
	struct pf_gpu gpu[GPU_TOPO_MAX_GPUS];
};

struct pf_opts {
	int64_t memlock_min;     /* bytes; -1: the limit must be unlimited */
	int expect_gpus;         /* -1: not given */
	uint64_t size;           /* bytes per H2D copy */
	double min_fraction;     /* of the link's theoretical rate */
	double gpu_timeout_s;    /* every GPU's helper together */
	const char *json_path;   /* NULL: no JSON */
	const char *sysfs_root;  /* "/sys" */
	int brief;               /* only the status line on stdout */
	int gpu_built;           /* the GPU helper was built with nvcc */
	const char *self;        /* argv[0]: the helper is this program again */
};

/* options.c ------------------------------------------------------------ */

/*
 * Parse argv into o (defaults first).  Returns 0 to run, 1 after --help
 * (printed: exit 0), 2 after one line on stderr naming a bad value.
 */
int pf_parse_args(int argc, char **argv, struct pf_opts *o);
void pf_usage(FILE *f);

/* verdict.c: the judging, no system calls --------------------------------- */

/* Adds a check (at most PF_MAX_CHECKS; more are dropped).  printf-style line. */
void pf_report_add(struct pf_report *r, const char *name, enum pf_status st,
		   const char *fmt, ...) LAB_PRINTF(4, 5);
/* "ok", "FAIL", "n/a", "not run" (people); "pass", "fail", "not_applicable", "not_run" (JSON). */
const char *pf_status_word(enum pf_status st);
const char *pf_status_key(enum pf_status st);
/* 1 when any check has status st. */
int pf_report_has(const struct pf_report *r, enum pf_status st);
/* 1 if any fail; else 2 if any not run; else 0. */
int pf_report_exit_code(const struct pf_report *r);
/*
 * The final line: "preflight: healthy" (with "(no NVIDIA GPU: memlock and
 * mlock only)" when the GPU checks did not apply), "preflight: unhealthy:
 * <the first failed check's line>" (with "(and N more failed checks)"), or
 * "preflight: could not run: <the first check not run>".  Returns buf.
 */
const char *pf_status_line(const struct pf_report *r, char *buf, size_t len);

/*
 * RLIMIT_MEMLOCK `limit` (bytes, -1 unlimited) against `floor` (bytes, -1:
 * unlimited required).  PF_PASS or PF_FAIL, with the line.
 */
enum pf_status pf_memlock_verdict(int64_t limit, int64_t floor, char *line, size_t len);
/*
 * mlock of `bytes`: VmLck (bytes) before, while locked and after munlock.
 * Passes when it rose by at least `bytes` and came back to `before` or less.
 */
enum pf_status pf_mlock_verdict(uint64_t bytes, uint64_t before, uint64_t locked,
				uint64_t after, char *line, size_t len);
/* Check 2: g against `expect` (-1: any count); root names sysfs in the line. */
enum pf_status pf_gpus_verdict(const struct pf_gpus *g, int expect, const char *root,
			       char *line, size_t len);
/* Check 3 of a measured GPU (g->measured). */
enum pf_status pf_link_verdict(const struct pf_gpu *g, char *line, size_t len);
/* Check 4 of a measured GPU: g->m.h2d_gbs >= fraction x pcie_rate_gbs(max). */
enum pf_status pf_h2d_verdict(const struct pf_gpu *g, double fraction, char *line, size_t len);
/* "GPU 0 (0000:3b:00.0)", or "GPU 0000:3b:00.0" for one CUDA does not list. */
const char *pf_gpu_label(const struct pf_gpu *g, char *buf, size_t len);

/* The helper's report line, written and read back.  parse: 0, or -1 (a
 * field missing or bad; m partly written). */
int pf_result_format(const struct pf_measure *m, char *buf, size_t len);
int pf_result_parse(const char *line, struct pf_measure *m);

/* memlock_check.c --------------------------------------------------------- */

/* Checks 1 (memlock, mlock) into r.  Leaves nothing locked or mapped. */
void pf_check_memlock(const struct pf_opts *o, struct pf_report *r);

/* gpu_check.c ------------------------------------------------------------- */

/*
 * The NVIDIA GPUs under o->sysfs_root and those CUDA lists (the live
 * driver, loaded with dlopen: no CUDA runtime in this process), joined by
 * PCI bus id.  Clears CUDA_VISIBLE_DEVICES (a health check looks at every
 * GPU; g->hidden_by keeps it) and sets CUDA_DEVICE_ORDER=PCI_BUS_ID before
 * asking, for this process and the helpers it starts.
 */
void pf_gpus_scan(const struct pf_opts *o, struct pf_gpus *g);
/*
 * Each GPU CUDA lists, one after the other, by a helper (o->self --role
 * gpu), all within o->gpu_timeout_s: fills each g->gpu[i].m or why_not.
 */
void pf_gpus_measure(const struct pf_opts *o, struct pf_gpus *g);
/* Checks 2 to 4 into r, from what pf_gpus_scan and pf_gpus_measure found. */
void pf_check_gpus(const struct pf_opts *o, struct pf_gpus *g, struct pf_report *r);

/* report_out.c ------------------------------------------------------------ */

/* One aligned line per check, for people. */
void pf_print_checks(const struct pf_report *r, FILE *f);
/* The whole result as JSON (json.h's writer) to path: 0, or -1 with errno. */
int pf_write_json(const char *path, const struct pf_opts *o, const struct pf_report *r,
		  const struct pf_gpus *g, double elapsed_s);

/* link_reader.c: the helper's view of a GPU's PCIe link ------------------- */

struct pf_link_reader {
	char bdf[GPU_BDF_LEN];
	struct gpu_nvml_link *nvml; /* gpu_topo.h's, or NULL: sysfs is read */
	struct gpu_topo *topo;   /* for sysfs reads (heap) */
};

/*
 * Open a reader of the link of the GPU at bdf (sysfs's form): NVML when it
 * loads and knows the GPU, else /sys/bus/pci/devices/<bdf>/.  0, or -1
 * (out of memory).
 */
int pf_link_reader_open(struct pf_link_reader *r, const char *bdf);
/* The link now and its maximum; fields the source cannot give stay 0. */
void pf_link_read(struct pf_link_reader *r, struct pf_link *now, struct pf_link *max);
/* "nvml" or "sysfs". */
const char *pf_link_source(const struct pf_link_reader *r);
void pf_link_reader_close(struct pf_link_reader *r);

/* gpu_helper.cu ----------------------------------------------------------- */

/* argv[1] is "--role": run the helper (lab_main with a role); its exit code. */
int pf_helper_main(int argc, char **argv);
/* 1 when the helper was compiled with nvcc, 0 in the stub build. */
int pf_helper_built(void);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_PREFLIGHT_HEALTH_H */
