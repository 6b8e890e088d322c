/*
 * options.c - dmalab-preflight's command line and --help.  A bad value is
 * one line on stderr naming it, exit 2, before anything is checked.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health.h"

void pf_usage(FILE *f)
{
	fprintf(f,
		"usage: " PF_PROGRAM " [options]\n"
		"A node health check for Slurm (HealthCheckProgram, Prolog) and Kubernetes\n"
		"(node-problem-detector's custom plugin): a few checks in seconds, one line\n"
		"each on stdout, then one status line.\n"
		"checks:\n"
		"  memlock  RLIMIT_MEMLOCK is unlimited or at least --memlock-min\n"
		"  mlock    mlock of min(16 MiB, --memlock-min) shows in VmLck, and goes after\n"
		"           munlock (nothing is left locked, mapped or pinned)\n"
		"  gpus     every NVIDIA GPU under /sys/bus/pci/devices is visible to CUDA\n"
		"           (CUDA_VISIBLE_DEVICES is cleared for this), --expect-gpus of them\n"
		"  link     per GPU: the PCIe generation and width read while pinned H2D copies\n"
		"           run equal the link's maximum (the idle reading, often lower as an\n"
		"           idle link trains down, is shown but never judged)\n"
		"  h2d      per GPU: the median pinned H2D rate of copies of --size is at least\n"
		"           --min-fraction of the link's theoretical rate (maximum generation\n"
		"           x width, after line encoding: Gen5 x16 63.0 GB/s)\n"
		"  With no NVIDIA GPU in sysfs and none expected the GPU checks are not\n"
		"  applicable and the status rests on memlock and mlock.  The GPU work runs\n"
		"  in a helper process per GPU, one GPU after the other.\n"
		"options:\n"
		"  --memlock-min SIZE  the least RLIMIT_MEMLOCK: bytes with K, M, G suffixes,\n"
		"                      or 'unlimited' (default 64M)\n"
		"  --expect-gpus N     the node has exactly N NVIDIA GPUs, 0 to %d (a GPU that\n"
		"                      fell off the bus is missing from sysfs too)\n"
		"  --size SIZE         bytes per pinned H2D copy, 64M to 4G (default 256M)\n"
		"  --min-fraction F    healthy from F x the link's rate, 0 < F <= 1 (default\n"
		"                      0.70: the kit's H200 measured 55.5 of Gen5 x16's 63.0\n"
		"                      GB/s, 0.88; a link trained at Gen4 gives <= 0.50)\n"
		"  --gpu-timeout S     the most the GPU checks take, all GPUs together, 1 to 600\n"
		"                      (default 30); a GPU not measured by then is unhealthy\n"
		"  --json FILE         also write the result as JSON\n"
		"  --brief             print only the status line (node-problem-detector takes\n"
		"                      all of stdout as its message)\n"
		"  --sysfs-root DIR    read PCI devices under DIR/bus/pci/devices instead of\n"
		"                      /sys (tests: a made-up tree); CUDA is still the live one\n"
		"  -h, --help          this text\n"
		"exit status (the last line of stdout says why):\n"
		"  0  healthy: every check that applies passed\n"
		"  1  unhealthy: a check failed; among them: RLIMIT_MEMLOCK below the floor; an\n"
		"     mlock refused or not counted; no NVIDIA driver, or CUDA not starting, on\n"
		"     a node whose sysfs lists NVIDIA GPUs; a GPU CUDA does not list; the\n"
		"     wrong number of GPUs; a GPU whose helper failed a CUDA call, crashed or\n"
		"     outlasted --gpu-timeout (a GPU too slow to measure is not healthy)\n"
		"  2  could not run, and nothing failed: a bad option (one line on stderr);\n"
		"     --json's directory missing or not writable, or the file not written;\n"
		"     GPU checks this build cannot make (built without nvcc, on a node with\n"
		"     NVIDIA GPUs); the helper could not be started; /proc unreadable\n"
		"  (node-problem-detector: 0 OK, 1 NonOK, 2 Unknown; Slurm's Prolog drains\n"
		"  the node on any non-zero exit)\n",
		GPU_TOPO_MAX_GPUS);
}

/* One usage line: "dmalab-preflight: --OPT 'VALUE': WHY (see --help)"; returns 2. */
static int LAB_PRINTF(3, 4) bad_value(const char *opt, const char *value, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, PF_PROGRAM ": --%s '%s': %s (see --help)\n", opt, value, why);
	return 2;
}

static int parse_memlock_min(const char *s, struct pf_opts *o)
{
	uint64_t v;

	if (!strcmp(s, "unlimited")) {
		o->memlock_min = -1;
		return 0;
	}
	if (lab_parse_size(s, &v) < 0 || v > (uint64_t)INT64_MAX)
		return bad_value("memlock-min", s, "not a size above 0 (digits with an optional "
				 "K, M, G or T suffix) nor 'unlimited'");
	o->memlock_min = (int64_t)v;
	return 0;
}

static int parse_size(const char *s, struct pf_opts *o)
{
	char lo[32], hi[32];
	uint64_t v;

	if (lab_parse_size(s, &v) < 0)
		return bad_value("size", s, "not a size above 0 (digits with an optional K, M, "
				 "G or T suffix)");
	if (v < PF_SIZE_MIN || v > PF_SIZE_MAX)
		return bad_value("size", s, "must be from %s to %s: smaller copies do not reach "
				 "the link's rate", lab_fmt_size(PF_SIZE_MIN, lo, sizeof(lo)),
				 lab_fmt_size(PF_SIZE_MAX, hi, sizeof(hi)));
	o->size = v;
	return 0;
}

/* A decimal number in (lo, hi] (lo_open) or [lo, hi]. */
static int parse_number(const char *opt, const char *s, double lo, double hi, int lo_open,
			double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v))
		return bad_value(opt, s, "not a number");
	if ((lo_open ? v <= lo : v < lo) || v > hi)
		return bad_value(opt, s, "must be %s %g and at most %g", lo_open ? "above" :
				 "at least", lo, hi);
	*out = v;
	return 0;
}

static int parse_expect(const char *s, struct pf_opts *o)
{
	long v;

	if (lab_parse_long(s, 0, GPU_TOPO_MAX_GPUS, &v) < 0)
		return bad_value("expect-gpus", s, "must be a whole number from 0 to %d",
				 GPU_TOPO_MAX_GPUS);
	o->expect_gpus = (int)v;
	return 0;
}

/* --json FILE: its directory must exist and be writable now, not after the checks. */
static int check_json_dir(const char *path)
{
	char *copy = strdup(path);
	const char *dir = copy ? dirname(copy) : ".";
	int ok = access(dir, W_OK | X_OK) == 0;
	int e = errno;

	if (!ok)
		fprintf(stderr, PF_PROGRAM ": --json '%s': directory '%s': %s (see --help)\n",
			path, dir, strerror(e));
	free(copy);
	return ok ? 0 : 2;
}

static int check_sysfs_root(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	return bad_value("sysfs-root", dir, "not a directory");
}

enum { OPT_MEMLOCK = 256, OPT_EXPECT, OPT_SIZE, OPT_FRACTION, OPT_TIMEOUT, OPT_JSON,
       OPT_BRIEF, OPT_SYSFS };

static const struct option long_opts[] = {
	{ "memlock-min", required_argument, NULL, OPT_MEMLOCK },
	{ "expect-gpus", required_argument, NULL, OPT_EXPECT },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "min-fraction", required_argument, NULL, OPT_FRACTION },
	{ "gpu-timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "brief", no_argument, NULL, OPT_BRIEF },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* One option; 0, or 2 after its usage line. */
static int take_option(int code, const char *arg, struct pf_opts *o)
{
	switch (code) {
	case OPT_MEMLOCK: return parse_memlock_min(arg, o);
	case OPT_EXPECT: return parse_expect(arg, o);
	case OPT_SIZE: return parse_size(arg, o);
	case OPT_FRACTION: return parse_number("min-fraction", arg, 0, 1, 1, &o->min_fraction);
	case OPT_TIMEOUT: return parse_number("gpu-timeout", arg, 1, 600, 0, &o->gpu_timeout_s);
	case OPT_JSON: o->json_path = arg; return check_json_dir(arg);
	case OPT_BRIEF: o->brief = 1; return 0;
	case OPT_SYSFS: o->sysfs_root = arg; return check_sysfs_root(arg);
	}
	return 2;
}

static void set_defaults(struct pf_opts *o, const char *self)
{
	memset(o, 0, sizeof(*o));
	o->memlock_min = (int64_t)PF_MEMLOCK_MIN_DEFAULT;
	o->expect_gpus = -1;
	o->size = PF_SIZE_DEFAULT;
	o->min_fraction = PF_MIN_FRACTION_DEFAULT;
	o->gpu_timeout_s = PF_GPU_TIMEOUT_DEFAULT;
	o->sysfs_root = "/sys";
	o->self = self;
}

/*
 * getopt's '?' (unknown) or ':' (no value) as one line; returns 2.  An
 * unknown short option is optopt: in a cluster ("-xq") optind stays on it,
 * so argv[optind - 1] is the word before.  A long option has moved optind
 * past it, and its optopt is 0 or its value (>= 256, or 'h': "--help=1").
 */
static int bad_option(int code, char **argv)
{
	char shortopt[3] = { '-', (char)optopt, '\0' };
	int is_short = code == '?' && optopt != 0 && optopt < 256 && optopt != 'h';

	fprintf(stderr, PF_PROGRAM ": %s '%s' (see --help)\n", code == '?' ? "unknown option" :
		"missing value for", is_short ? shortopt : argv[optind - 1]);
	return 2;
}

int pf_parse_args(int argc, char **argv, struct pf_opts *o)
{
	int code, rc = 0;

	set_defaults(o, argv[0]);
	opterr = 0;
	optind = 0; /* 0, not 1: glibc forgets a cluster ("-xq") an earlier parse stopped in */
	while (rc == 0 && (code = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		if (code == 'h') {
			pf_usage(stdout);
			return 1;
		}
		if (code == '?' || code == ':')
			return bad_option(code, argv);
		rc = take_option(code, optarg, o);
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, PF_PROGRAM ": '%s': takes no arguments, only options (see "
			"--help)\n", argv[optind]);
		rc = 2;
	}
	return rc;
}
