/*
 * test_gpu_links.c - the GPU-to-GPU reader on a fixture tree and a fake NVML.
 *
 * harness/tests/fixtures/gpus-p2p/sys has four GPUs under PCIe bridges (its
 * README.md); NVML's answers come from a struct gpu_link_ops filled here, one
 * machine a test: two GPUs joined by 18 NVLink 4.0 links, two on PCIe under
 * one switch, two across sockets, and NVML answering "not supported".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../../labs/09-p2p/links.h"
#include "unit_lab.h"

#define NVLINK_4_0 6 /* nvmlNvlinkVersion_t of Hopper's links */

/* One made-up NVML: what it answers for every GPU. */
struct fake_nvml {
	int state_rc;      /* nvmlDeviceGetNvLinkState's code */
	int active_links;  /* links 0..n-1 active, each to the other GPU */
	int ancestor_rc;
	int level;         /* nvmlGpuTopologyLevel_t */
	const char *bdf[2];
};

static int fake_state(void *ctx, int dev, unsigned link, int *active)
{
	struct fake_nvml *f = (struct fake_nvml *)ctx;

	*active = (int)link < f->active_links;
	return f->state_rc;
}

static int fake_version(void *ctx, int dev, unsigned link, unsigned *version)
{
	*version = NVLINK_4_0;
	return GPU_NVML_SUCCESS;
}

/* NVML's spelling of the far end: 8-digit domain, upper case. */
static int fake_remote(void *ctx, int dev, unsigned link, char *bdf, size_t len)
{
	struct fake_nvml *f = (struct fake_nvml *)ctx;

	snprintf(bdf, len, "0000%s", f->bdf[1 - dev]);
	for (char *p = bdf; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
	return GPU_NVML_SUCCESS;
}

static int fake_ancestor(void *ctx, int a, int b, int *level)
{
	struct fake_nvml *f = (struct fake_nvml *)ctx;

	*level = f->level;
	return f->ancestor_rc;
}

/* gpu_topo of the fixture's two GPUs bdf0 and bdf1 in that order, then the links. */
static void read_machine(struct fake_nvml *f, struct gpu_topo *t, struct gpu_links *k)
{
	struct gpu_link_ops ops = { f, fake_state, fake_version, fake_remote, fake_ancestor };
	struct gpu_cuda_list c;
	char root[512];

	memset(&c, 0, sizeof(c));
	c.loaded = c.ok = 1;
	c.n = 2;
	snprintf(c.bus_id[0], sizeof(c.bus_id[0]), "%s", f->bdf[0]);
	snprintf(c.bus_id[1], sizeof(c.bus_id[1]), "%s", f->bdf[1]);
	unit_fixture_sys("gpus-p2p", root, sizeof(root));
	assert_int_equal(gpu_topo_build(root, &c, t), 0);
	assert_int_equal(gpu_links_read(t, root, &ops, k), 0);
	assert_int_equal(k->n, 2);
}

static struct gpu_topo topo;   /* large: kept off the stack */
static struct gpu_links links;

static void test_nv18_pair(void **state)
{
	struct fake_nvml f = { GPU_NVML_SUCCESS, 18, GPU_NVML_SUCCESS, 10,
			       { "0000:03:00.0", "0000:06:00.0" } };
	char w[16];

	(void)state;
	read_machine(&f, &topo, &links);
	assert_string_equal(gpu_path_word(&links, 0, 1, w, sizeof(w)), "NV18");
	assert_string_equal(gpu_path_word(&links, 1, 0, w, sizeof(w)), "NV18");
	assert_string_equal(gpu_path_word(&links, 0, 0, w, sizeof(w)), "X");
	assert_int_equal(links.dev[0].links_active, 18);
	assert_int_equal(links.dev[0].version, NVLINK_4_0);
	/* 18 links x 25 GB/s a direction, from what NVML said, not from a GPU name */
	assert_float_equal(gpu_links_nvlink_gbs(&links, 0, 1), 450.0, 1e-9);
	assert_float_equal(gpu_links_nvlink_gbs(&links, 1, 0), 450.0, 1e-9);
}

static void test_pcie_one_switch(void **state)
{
	struct fake_nvml f = { GPU_NVML_SUCCESS, 0, GPU_NVML_SUCCESS, 10,
			       { "0000:03:00.0", "0000:06:00.0" } };
	char w[16];

	(void)state;
	read_machine(&f, &topo, &links);
	assert_string_equal(gpu_path_word(&links, 0, 1, w, sizeof(w)), "PIX");
	/* NVML answered: no link is a fact ("none"), not "unknown" */
	assert_int_equal(links.dev[0].nvlink_known, 1);
	assert_int_equal(links.dev[0].links_active, 0);
	assert_float_equal(gpu_links_nvlink_gbs(&links, 0, 1), 0.0, 0);
	f.level = 20;
	read_machine(&f, &topo, &links);
	assert_string_equal(gpu_path_word(&links, 0, 1, w, sizeof(w)), "PXB");
}

static void test_across_sockets(void **state)
{
	struct fake_nvml f = { GPU_NVML_SUCCESS, 0, GPU_NVML_SUCCESS, 50,
			       { "0000:04:00.0", "0000:05:00.0" } };
	char w[16];

	(void)state;
	read_machine(&f, &topo, &links);
	assert_string_equal(gpu_path_word(&links, 0, 1, w, sizeof(w)), "SYS");
	assert_string_equal(gpu_path_word(&links, 1, 0, w, sizeof(w)), "SYS");
	assert_float_equal(gpu_links_nvlink_gbs(&links, 1, 0), 0.0, 0);
}

static void test_links_unsupported_is_unknown(void **state)
{
	struct fake_nvml f = { GPU_NVML_NOT_SUPPORTED, 0, GPU_NVML_NOT_SUPPORTED, 0,
			       { "0000:03:00.0", "0000:04:00.0" } };
	char w[16];

	(void)state;
	read_machine(&f, &topo, &links);
	assert_string_equal(gpu_path_word(&links, 0, 1, w, sizeof(w)), "unknown");
	assert_int_equal(links.dev[0].nvlink_known, 0);
	assert_int_equal(links.dev[0].link[0].state, -1);
	assert_non_null(strstr(links.dev[0].why, "not supported"));
	/* unknown stays apart from none */
	assert_true(gpu_links_nvlink_gbs(&links, 0, 1) < 0);
}

static void test_no_nvml_is_unknown(void **state)
{
	struct gpu_cuda_list c;
	char root[512], w[16];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.loaded = c.ok = 1;
	c.n = 2;
	snprintf(c.bus_id[0], sizeof(c.bus_id[0]), "0000:03:00.0");
	snprintf(c.bus_id[1], sizeof(c.bus_id[1]), "0000:04:00.0");
	unit_fixture_sys("gpus-p2p", root, sizeof(root));
	assert_int_equal(gpu_topo_build(root, &c, &topo), 0);
	assert_int_equal(gpu_links_read(&topo, root, NULL, &links), 0);
	assert_string_equal(gpu_path_word(&links, 0, 1, w, sizeof(w)), "unknown");
	assert_true(gpu_links_nvlink_gbs(&links, 0, 1) < 0);
	assert_int_equal(gpu_links_read(NULL, root, NULL, &links), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_link_rate_by_version(void **state)
{
	(void)state;
	assert_float_equal(gpu_nvlink_link_gbs(1), 20, 0);  /* 1.0 */
	assert_float_equal(gpu_nvlink_link_gbs(4), 25, 0);  /* 3.0 */
	assert_float_equal(gpu_nvlink_link_gbs(6), 25, 0);  /* 4.0 */
	assert_float_equal(gpu_nvlink_link_gbs(7), 50, 0);  /* 5.0 */
	assert_float_equal(gpu_nvlink_link_gbs(0), 0, 0);
	assert_float_equal(gpu_nvlink_link_gbs(99), 0, 0);
}

static void test_acs_on_off_unknown(void **state)
{
	char root[512], why[160];

	(void)state;
	unit_fixture_sys("gpus-p2p", root, sizeof(root));
	assert_string_equal(gpu_acs_state(root, "0000:03:00.0", why, sizeof(why)), "on");
	assert_non_null(strstr(why, "0000:00:01.0"));
	assert_string_equal(gpu_acs_state(root, "0000:04:00.0", why, sizeof(why)), "off");
	assert_string_equal(gpu_acs_state(root, "0000:05:00.0", why, sizeof(why)), "unknown");
	assert_string_equal(gpu_acs_state(root, "0000:99:00.0", why, sizeof(why)), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nv18_pair),
		cmocka_unit_test(test_pcie_one_switch),
		cmocka_unit_test(test_across_sockets),
		cmocka_unit_test(test_links_unsupported_is_unknown),
		cmocka_unit_test(test_no_nvml_is_unknown),
		cmocka_unit_test(test_link_rate_by_version),
		cmocka_unit_test(test_acs_on_off_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
