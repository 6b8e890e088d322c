/*
 * test_node_preflight.c - dmalab-preflight's judging (harness/preflight/
 * verdict.c) and command line (options.c): every verdict a machine without
 * a GPU cannot show (a link under load below its maximum, a slow pinned
 * copy, a GPU CUDA does not list), the status line and exit code, and the
 * helper's report line read back.  The program itself on this machine is
 * harness/tests/test-preflight.sh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "health.h"
#include "sysinfo.h"

static char line[PF_LINE_LEN];

/* ---- memlock and mlock ---- */

static void test_memlock_floor(void **state)
{
	assert_int_equal(pf_memlock_verdict(-1, 64 * MiB, line, sizeof(line)), PF_PASS);
	assert_string_equal(line, "RLIMIT_MEMLOCK unlimited (need 64 MiB)");
	assert_int_equal(pf_memlock_verdict(64 * MiB, 64 * MiB, line, sizeof(line)), PF_PASS);
	assert_int_equal(pf_memlock_verdict(8 * MiB, 64 * MiB, line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "RLIMIT_MEMLOCK 8 MiB < 64 MiB (--memlock-min)"));
	assert_int_equal(pf_memlock_verdict(64 * KiB, 64 * MiB, line, sizeof(line)), PF_FAIL);
	assert_int_equal(pf_memlock_verdict(0, 4096, line, sizeof(line)), PF_FAIL);
	/* --memlock-min unlimited: any finite limit fails */
	assert_int_equal(pf_memlock_verdict(1024 * GiB, -1, line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "< unlimited"));
	assert_int_equal(pf_memlock_verdict(-1, -1, line, sizeof(line)), PF_PASS);
}

static void test_mlock_counted_and_undone(void **state)
{
	assert_int_equal(pf_mlock_verdict(16 * MiB, 0, 16 * MiB, 0, line, sizeof(line)), PF_PASS);
	assert_string_equal(line, "mlock(16 MiB): VmLck +16 MiB, back to 0 B after munlock");
	/* other locked memory before: only the rise counts */
	assert_int_equal(pf_mlock_verdict(16 * MiB, 4 * MiB, 20 * MiB, 4 * MiB, line,
					  sizeof(line)), PF_PASS);
	/* locked, not counted */
	assert_int_equal(pf_mlock_verdict(16 * MiB, 0, 0, 0, line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "VmLck rose by 0 B, not 16 MiB"));
	assert_int_equal(pf_mlock_verdict(16 * MiB, 0, 16 * MiB - 4096, 0, line, sizeof(line)),
			 PF_FAIL);
	/* not undone */
	assert_int_equal(pf_mlock_verdict(16 * MiB, 0, 16 * MiB, 16 * MiB, line, sizeof(line)),
			 PF_FAIL);
	assert_non_null(strstr(line, "VmLck still 16 MiB after munlock"));
}

/* ---- the GPUs sysfs lists against CUDA's ---- */

static void add(struct pf_gpus *g, const char *bdf, int in_sysfs, int ordinal)
{
	struct pf_gpu *p = &g->gpu[g->n++];

	memset(p, 0, sizeof(*p));
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	snprintf(p->name, sizeof(p->name), "NVIDIA H200");
	p->in_sysfs = in_sysfs;
	p->cuda_ordinal = ordinal;
	g->nsys += in_sysfs;
	if (ordinal >= 0)
		g->cuda_n++;
}

static void test_gpus_none(void **state)
{
	struct pf_gpus g;

	memset(&g, 0, sizeof(g));
	g.cuda_ok = 1;
	assert_int_equal(pf_gpus_verdict(&g, -1, "/sys", line, sizeof(line)), PF_NOT_APPLICABLE);
	assert_non_null(strstr(line, "no NVIDIA GPU under /sys/bus/pci/devices"));
	assert_int_equal(pf_gpus_verdict(&g, 0, "/sys", line, sizeof(line)), PF_NOT_APPLICABLE);
	/* expected some, found none: the GPUs fell off the bus */
	assert_int_equal(pf_gpus_verdict(&g, 8, "/sys", line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "expected 8 NVIDIA GPUs (--expect-gpus), found 0"));
}

static void test_gpus_no_driver(void **state)
{
	struct pf_gpus g;

	memset(&g, 0, sizeof(g));
	add(&g, "0000:3b:00.0", 1, -1);
	add(&g, "0000:86:00.0", 1, -1);
	snprintf(g.cuda_why, sizeof(g.cuda_why), "no NVIDIA driver (libcuda.so.1 not found)");
	assert_int_equal(pf_gpus_verdict(&g, -1, "/sys", line, sizeof(line)), PF_FAIL);
	assert_string_equal(line, "2 NVIDIA GPUs in sysfs (0000:3b:00.0, ...) but CUDA lists "
			    "none: no NVIDIA driver (libcuda.so.1 not found)");
}

static void test_gpus_one_missing(void **state)
{
	struct pf_gpus g;

	memset(&g, 0, sizeof(g));
	g.cuda_ok = 1;
	add(&g, "0000:3b:00.0", 1, 0);
	add(&g, "0000:86:00.0", 1, -1);
	assert_int_equal(pf_gpus_verdict(&g, -1, "/sys", line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "GPU 0000:86:00.0 (NVIDIA H200) is in sysfs but CUDA does "
			       "not list it (1 of the 2 missing)"));
	/* right count, one still missing */
	assert_int_equal(pf_gpus_verdict(&g, 2, "/sys", line, sizeof(line)), PF_FAIL);
}

static void test_gpus_all_visible(void **state)
{
	struct pf_gpus g;

	memset(&g, 0, sizeof(g));
	g.cuda_ok = 1;
	add(&g, "0000:3b:00.0", 1, 0);
	add(&g, "0000:86:00.0", 1, 1);
	assert_int_equal(pf_gpus_verdict(&g, -1, "/sys", line, sizeof(line)), PF_PASS);
	assert_string_equal(line, "2 NVIDIA GPUs in sysfs, all visible to CUDA");
	assert_int_equal(pf_gpus_verdict(&g, 2, "/sys", line, sizeof(line)), PF_PASS);
	assert_int_equal(pf_gpus_verdict(&g, 3, "/sys", line, sizeof(line)), PF_FAIL);
	assert_int_equal(pf_gpus_verdict(&g, 1, "/sys", line, sizeof(line)), PF_FAIL);
	snprintf(g.hidden_by, sizeof(g.hidden_by), "1");
	assert_int_equal(pf_gpus_verdict(&g, -1, "/sys", line, sizeof(line)), PF_PASS);
	assert_non_null(strstr(line, "CUDA_VISIBLE_DEVICES='1' was set: cleared"));
}

static void test_gpus_cuda_only(void **state)
{
	struct pf_gpus g;

	memset(&g, 0, sizeof(g));
	g.cuda_ok = 1;
	add(&g, "0000:3b:00.0", 0, 0); /* a container whose /sys is not the host's */
	assert_int_equal(pf_gpus_verdict(&g, -1, "/sys", line, sizeof(line)), PF_PASS);
	assert_non_null(strstr(line, "CUDA lists 1 GPU, sysfs none"));
	assert_int_equal(pf_gpus_verdict(&g, 1, "/sys", line, sizeof(line)), PF_PASS);
}

/* ---- one GPU's link and rate ---- */

/* A measured H200 on Gen5 x16, idle at Gen1, 55.5 GB/s. */
static struct pf_gpu h200(void)
{
	struct pf_gpu g;

	memset(&g, 0, sizeof(g));
	snprintf(g.bdf, sizeof(g.bdf), "0000:3b:00.0");
	g.cuda_ordinal = 0;
	g.measured = 1;
	g.m.idle = (struct pf_link){ 1, 16 };
	g.m.load = g.m.load_low = g.m.max = (struct pf_link){ 5, 16 };
	g.m.readings = 40;
	snprintf(g.m.link_src, sizeof(g.m.link_src), "nvml");
	g.m.h2d_gbs = 55.5;
	g.m.samples = 7;
	g.m.bytes = 256 * MiB;
	return g;
}

static void test_link_idle_never_judged(void **state)
{
	struct pf_gpu g = h200();

	assert_int_equal(pf_link_verdict(&g, line, sizeof(line)), PF_PASS);
	assert_non_null(strstr(line, "GPU 0 (0000:3b:00.0) PCIe Gen5 x16 under load"));
	assert_non_null(strstr(line, "idle Gen1 x16"));
}

static void test_link_below_max(void **state)
{
	struct pf_gpu g = h200();

	g.m.load = (struct pf_link){ 4, 16 };
	assert_int_equal(pf_link_verdict(&g, line, sizeof(line)), PF_FAIL);
	assert_string_equal(line, "GPU 0 (0000:3b:00.0) PCIe Gen4 x16 under load < its maximum "
			    "Gen5 x16");
	g = h200();
	g.m.load = (struct pf_link){ 5, 8 };
	assert_int_equal(pf_link_verdict(&g, line, sizeof(line)), PF_FAIL);
	g = h200();
	g.m.readings = 0;
	assert_int_equal(pf_link_verdict(&g, line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "not read while copies ran"));
	g = h200();
	g.m.max = (struct pf_link){ 0, 16 };
	assert_int_equal(pf_link_verdict(&g, line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "maximum unknown"));
}

static void test_h2d_fraction(void **state)
{
	struct pf_gpu g = h200();

	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_PASS);
	assert_non_null(strstr(line, "pinned H2D 55.5 GB/s >= 0.70 x 63.0 GB/s (Gen5 x16): 0.88"));
	g.m.h2d_gbs = 24.1;
	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_FAIL);
	assert_string_equal(line, "GPU 0 (0000:3b:00.0) pinned H2D 24.1 GB/s < 0.70 x 63.0 GB/s "
			    "(Gen5 x16)");
	/* a Gen4-trained link's best, 31.5 GB/s = 0.50 of Gen5 x16, fails the default */
	g.m.h2d_gbs = 31.5;
	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_FAIL);
	g.m.h2d_gbs = 0.70 * pcie_rate_gbs(5, 16); /* the boundary is healthy */
	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_PASS);
	g.m.h2d_gbs = NAN;
	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_FAIL);
	g = h200();
	g.m.max = (struct pf_link){ 0, 0 };
	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_FAIL);
	assert_non_null(strstr(line, "theoretical rate is unknown"));
	/* judged against the maximum, not the link it trained to */
	g = h200();
	g.m.load = (struct pf_link){ 4, 16 };
	g.m.h2d_gbs = 27.0;
	assert_int_equal(pf_h2d_verdict(&g, 0.70, line, sizeof(line)), PF_FAIL);
}

/* ---- the helper's report line ---- */

static void test_result_round_trip(void **state)
{
	struct pf_gpu g = h200();
	struct pf_measure back;
	char buf[512];

	g.m.h2d_min_gbs = 54.25;
	g.m.h2d_max_gbs = 55.75;
	g.m.load_low = (struct pf_link){ 4, 16 };
	assert_int_equal(pf_result_format(&g.m, buf, sizeof(buf)), 0);
	assert_int_equal(pf_result_parse(buf, &back), 0);
	assert_int_equal(back.idle.gen, 1);
	assert_int_equal(back.load.gen, 5);
	assert_int_equal(back.load_low.gen, 4);
	assert_int_equal(back.max.width, 16);
	assert_int_equal(back.readings, 40);
	assert_string_equal(back.link_src, "nvml");
	assert_true(back.h2d_gbs == 55.5 && back.h2d_min_gbs == 54.25 && back.h2d_max_gbs == 55.75);
	assert_int_equal(back.samples, 7);
	assert_true(back.bytes == 256 * MiB);
	assert_int_equal(pf_result_format(&g.m, buf, 40), -1); /* does not fit */
}

static void test_result_garbage(void **state)
{
	struct pf_measure m;

	assert_int_equal(pf_result_parse("", &m), -1);
	assert_int_equal(pf_result_parse("lab-preflight: error: cudaMalloc failed", &m), -1);
	assert_int_equal(pf_result_parse("result idle_gen=1", &m), -1);
	assert_int_equal(pf_result_parse("result idle_gen=1 idle_width=16 load_gen=5 "
					 "load_width=16 low_gen=5 low_width=16 max_gen=5 "
					 "max_width=16 readings=x src=nvml gbs=55 min_gbs=54 "
					 "max_gbs=56 samples=7 bytes=268435456", &m), -1);
}

/* ---- the status line and exit code ---- */

static void test_status_and_exit(void **state)
{
	struct pf_report r;
	char s[PF_LINE_LEN + 64];

	memset(&r, 0, sizeof(r));
	pf_report_add(&r, "memlock", PF_PASS, "RLIMIT_MEMLOCK unlimited");
	assert_int_equal(pf_report_exit_code(&r), 0);
	assert_string_equal(pf_status_line(&r, s, sizeof(s)), "preflight: healthy");
	pf_report_add(&r, "gpus", PF_NOT_APPLICABLE, "no NVIDIA GPU");
	assert_int_equal(pf_report_exit_code(&r), 0);
	assert_string_equal(pf_status_line(&r, s, sizeof(s)),
			    "preflight: healthy (no NVIDIA GPU: memlock and mlock only)");
	pf_report_add(&r, "link", PF_NOT_RUN, "built without nvcc");
	assert_int_equal(pf_report_exit_code(&r), 2);
	assert_string_equal(pf_status_line(&r, s, sizeof(s)),
			    "preflight: could not run: built without nvcc");
	pf_report_add(&r, "h2d", PF_FAIL, "GPU 0 (0000:3b:00.0) pinned H2D 24.1 GB/s");
	assert_int_equal(pf_report_exit_code(&r), 1); /* a failure outweighs "not run" */
	assert_string_equal(pf_status_line(&r, s, sizeof(s)),
			    "preflight: unhealthy: GPU 0 (0000:3b:00.0) pinned H2D 24.1 GB/s");
	pf_report_add(&r, "h2d", PF_FAIL, "GPU 1");
	pf_report_add(&r, "h2d", PF_FAIL, "GPU 2");
	assert_non_null(strstr(pf_status_line(&r, s, sizeof(s)), "24.1 GB/s (and 2 more failed "
							    "checks)"));
	assert_string_equal(pf_status_word(PF_FAIL), "FAIL");
	assert_string_equal(pf_status_key(PF_NOT_APPLICABLE), "not_applicable");
}

/* ---- the command line ---- */

static int parse(struct pf_opts *o, int argc, const char **argv)
{
	return pf_parse_args(argc, (char **)argv, o);
}

static void test_options(void **state)
{
	const char *none[] = { "dmalab-preflight", NULL };
	const char *all[] = { "dmalab-preflight", "--memlock-min", "unlimited", "--expect-gpus",
			      "8", "--size", "1G", "--min-fraction", "0.8", "--gpu-timeout",
			      "45", "--brief", NULL };
	const char *floor[] = { "x", "--memlock-min", "8M", NULL };
	struct pf_opts o;

	assert_int_equal(parse(&o, 1, none), 0);
	assert_true(o.memlock_min == (int64_t)(64 * MiB) && o.expect_gpus == -1);
	assert_true(o.size == 256 * MiB && o.min_fraction == 0.70 && o.gpu_timeout_s == 30);
	assert_string_equal(o.sysfs_root, "/sys");
	assert_int_equal(parse(&o, 12, all), 0);
	assert_true(o.memlock_min == -1 && o.expect_gpus == 8 && o.size == GiB);
	assert_true(o.min_fraction == 0.8 && o.gpu_timeout_s == 45 && o.brief == 1);
	assert_int_equal(parse(&o, 3, floor), 0);
	assert_true(o.memlock_min == (int64_t)(8 * MiB));
}

static void test_bad_options(void **state)
{
	const char *bad[][4] = { /* NULL-terminated, as argv is */
		{ "x", "--size", "1M" },         { "x", "--size", "8G" },
		{ "x", "--min-fraction", "0" },  { "x", "--min-fraction", "1.01" },
		{ "x", "--min-fraction", "nan" }, { "x", "--memlock-min", "lots" },
		{ "x", "--expect-gpus", "-1" },  { "x", "--expect-gpus", "65" },
		{ "x", "--gpu-timeout", "0.5" }, { "x", "--sysfs-root", "/no/such/dir" },
		{ "x", "--json", "/no/such/dir/out.json" }, { "x", "--bogus", "1" },
		{ "x", "positional", NULL },
	};
	struct pf_opts o;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = bad[i][2] ? 3 : 2;

		assert_int_equal(parse(&o, argc, bad[i]), 2);
	}
}

/* A parse that stopped inside a cluster ("-xq") leaves glibc's getopt there:
 * the next parse must start on its own argv (fuzz crasher preflight/short-cluster). */
static void test_options_parse_afresh(void **state)
{
	const char *cluster[] = { "x", "-xq", NULL }, *brief[] = { "x", "--brief", NULL };
	struct pf_opts o;

	assert_int_equal(parse(&o, 2, cluster), 2);
	assert_int_equal(parse(&o, 2, brief), 0);
	assert_true(o.brief == 1 && o.size == PF_SIZE_DEFAULT);
}

/* stderr of one parse (its first line) into err. */
static int parse_err(struct pf_opts *o, int argc, const char **argv, char *err, size_t len)
{
	FILE *t = tmpfile();
	int saved = dup(2), rc;

	assert_non_null(t);
	fflush(stderr);
	dup2(fileno(t), 2);
	rc = parse(o, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(t);
	if (!fgets(err, (int)len, t))
		err[0] = '\0';
	fclose(t);
	return rc;
}

/* An unknown short option is named itself, not the word before it. */
static void test_bad_short_option_named(void **state)
{
	const char *cluster[] = { "x", "--brief", "-xq", NULL }, *last[] = { "x", "-qx", NULL };
	const char *help_arg[] = { "x", "--help=1", NULL }, *bogus[] = { "x", "--bogus", NULL };
	struct pf_opts o;
	char err[256];

	assert_int_equal(parse_err(&o, 3, cluster, err, sizeof(err)), 2);
	assert_string_equal(err, PF_PROGRAM ": unknown option '-x' (see --help)\n");
	assert_int_equal(parse_err(&o, 2, last, err, sizeof(err)), 2);
	assert_string_equal(err, PF_PROGRAM ": unknown option '-q' (see --help)\n");
	assert_int_equal(parse_err(&o, 2, help_arg, err, sizeof(err)), 2);
	assert_string_equal(err, PF_PROGRAM ": unknown option '--help=1' (see --help)\n");
	assert_int_equal(parse_err(&o, 2, bogus, err, sizeof(err)), 2);
	assert_string_equal(err, PF_PROGRAM ": unknown option '--bogus' (see --help)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memlock_floor),
		cmocka_unit_test(test_mlock_counted_and_undone),
		cmocka_unit_test(test_gpus_none),
		cmocka_unit_test(test_gpus_no_driver),
		cmocka_unit_test(test_gpus_one_missing),
		cmocka_unit_test(test_gpus_all_visible),
		cmocka_unit_test(test_gpus_cuda_only),
		cmocka_unit_test(test_link_idle_never_judged),
		cmocka_unit_test(test_link_below_max),
		cmocka_unit_test(test_h2d_fraction),
		cmocka_unit_test(test_result_round_trip),
		cmocka_unit_test(test_result_garbage),
		cmocka_unit_test(test_status_and_exit),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_options_parse_afresh),
		cmocka_unit_test(test_bad_short_option_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
