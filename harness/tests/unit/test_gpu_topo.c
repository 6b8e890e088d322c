/*
 * test_gpu_topo.c - gpu_topo on fake sysfs trees and made-up CUDA answers.
 *
 * The gpus tree (harness/tests/fixtures/gpus/sys, see its README.md) has six
 * NVIDIA GPUs among other PCI functions; two-node and one-node have one each.
 * Run from the repository root, or set DMALAB_FIXTURES.  CUDA's order is
 * tested through gpu_topo_build with a gpu_cuda_list written here, as a
 * machine without a GPU has no driver to ask.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpu_topo.h"
#include "unit_lab.h"


/* The gpus tree without CUDA: PCI bus order. */
static void build_gpus(struct gpu_topo *t, const struct gpu_cuda_list *cuda)
{
	char root[512];

	assert_int_equal(gpu_topo_build(unit_fixture_sys("gpus", root, sizeof(root)), cuda, t), 0);
}

/* A CUDA answer listing bus ids (CUDA's spelling) in the given order. */
static void cuda_says(struct gpu_cuda_list *c, int n, const char *const *bus_ids)
{
	memset(c, 0, sizeof(*c));
	c->loaded = c->ok = 1;
	c->n = n;
	for (int i = 0; i < n; i++) {
		snprintf(c->bus_id[i], sizeof(c->bus_id[i]), "%s", bus_ids[i]);
		snprintf(c->name[i], sizeof(c->name[i]), "NVIDIA H200 #%d", i);
	}
}

/* ---- gpu_link_speed_gen ---- */

static void test_link_speed_each_generation(void **state)
{
	(void)state;
	assert_int_equal(gpu_link_speed_gen("2.5 GT/s PCIe"), 1);
	assert_int_equal(gpu_link_speed_gen("5.0 GT/s PCIe"), 2);
	assert_int_equal(gpu_link_speed_gen("8.0 GT/s PCIe"), 3);
	assert_int_equal(gpu_link_speed_gen("16.0 GT/s PCIe"), 4);
	assert_int_equal(gpu_link_speed_gen("32.0 GT/s PCIe"), 5);
	assert_int_equal(gpu_link_speed_gen("64.0 GT/s PCIe"), 6);
	/* older kernels print "5 GT/s" without the ".0" and the "PCIe" */
	assert_int_equal(gpu_link_speed_gen("5 GT/s"), 2);
	assert_int_equal(gpu_link_speed_gen("8 GT/s"), 3);
}

static void test_link_speed_unknown(void **state)
{
	(void)state;
	assert_int_equal(gpu_link_speed_gen("Unknown"), 0);
	assert_int_equal(gpu_link_speed_gen(""), 0);
	assert_int_equal(gpu_link_speed_gen(NULL), 0);
	assert_int_equal(gpu_link_speed_gen("128.0 GT/s PCIe"), 0); /* no such generation yet */
	assert_int_equal(gpu_link_speed_gen("10.0 GT/s"), 0);
	assert_int_equal(gpu_link_speed_gen("2.4 GT/s"), 0);
}

/* ---- no CUDA: the sysfs scan in bus order ---- */

static void test_no_driver_bus_order(void **state)
{
	static const char *const want[] = { "0000:07:00.0", "0000:0a:00.0", "0000:41:00.0",
					    "0000:c1:00.0", "0000:e1:00.0", "0001:05:00.0" };
	struct gpu_topo t;

	(void)state;
	build_gpus(&t, NULL);
	assert_int_equal(t.order, GPU_ORDER_PCI_BUS);
	assert_non_null(strstr(t.order_note, "need not be CUDA's"));
	assert_non_null(strstr(t.order_note, "CUDA not asked"));
	/* the audio function, the NVSwitch and the Intel VGA are not GPUs */
	assert_int_equal(t.n, 6);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(t.dev[i].bdf, want[i]);
		assert_int_equal(t.dev[i].cuda_ordinal, -1);
		assert_int_equal(t.dev[i].nvml_index, -1);
	}
	assert_int_equal(t.cuda_loaded, 0);
	assert_int_equal(t.not_in_cuda, 0);
}

static void test_no_driver_says_why(void **state)
{
	struct gpu_cuda_list c;
	struct gpu_topo t;

	(void)state;
	memset(&c, 0, sizeof(c));
	snprintf(c.why, sizeof(c.why), "no NVIDIA driver (libcuda.so.1 not found)");
	build_gpus(&t, &c);
	assert_int_equal(t.order, GPU_ORDER_PCI_BUS);
	assert_int_equal(t.n, 6);
	assert_non_null(strstr(t.order_note, "libcuda.so.1 not found"));
	/* a driver that failed cuInit: loaded, but the order is still not CUDA's */
	c.loaded = 1;
	snprintf(c.why, sizeof(c.why), "cuInit/cuDeviceGetCount: CUDA_ERROR_UNKNOWN (999)");
	build_gpus(&t, &c);
	assert_int_equal(t.order, GPU_ORDER_PCI_BUS);
	assert_int_equal(t.cuda_loaded, 1);
	assert_non_null(strstr(t.order_note, "CUDA_ERROR_UNKNOWN"));
}

/* Flags naming live sources on a fixture root: neither is asked. */
static void test_scan_fixture_asks_no_live_source(void **state)
{
	char root[512];
	struct gpu_topo t;

	(void)state;
	unit_fixture_sys("gpus", root, sizeof(root));
	assert_int_equal(gpu_topo_scan(root, GPU_TOPO_CUDA | GPU_TOPO_NVML, &t), 0);
	assert_int_equal(t.order, GPU_ORDER_PCI_BUS);
	assert_int_equal(t.n, 6);
	assert_int_equal(t.nvml_loaded, 0);
	assert_int_equal(t.cuda_loaded, 0);
	assert_non_null(strstr(t.order_note, "not the live /sys"));
	assert_int_equal(gpu_topo_scan(NULL, 0, &t), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(gpu_topo_scan(root, 0, NULL), -1);
}

/* ---- CUDA's order ---- */

static void test_cuda_order_wins(void **state)
{
	/* e.g. CUDA_VISIBLE_DEVICES=2,0 or CUDA_DEVICE_ORDER=FASTEST_FIRST */
	static const char *const ids[] = { "00000000:41:00.0", "0000:07:00.0", "0001:05:00.0" };
	struct gpu_cuda_list c;
	struct gpu_topo t;

	(void)state;
	cuda_says(&c, 3, ids);
	build_gpus(&t, &c);
	assert_int_equal(t.order, GPU_ORDER_CUDA);
	assert_non_null(strstr(t.order_note, "CUDA's device order"));
	assert_int_equal(t.n, 3);
	assert_string_equal(t.dev[0].bdf, "0000:41:00.0");
	assert_string_equal(t.dev[1].bdf, "0000:07:00.0");
	assert_string_equal(t.dev[2].bdf, "0001:05:00.0");
	for (int i = 0; i < 3; i++)
		assert_int_equal(t.dev[i].cuda_ordinal, i);
	/* --device 0 is CUDA's device 0, not the first GPU on the bus */
	assert_ptr_equal(gpu_topo_device(&t, 0), &t.dev[0]);
	assert_int_equal(gpu_topo_device(&t, 0)->numa_node, 1);
	assert_int_equal(gpu_topo_device(&t, 1)->numa_node, 0);
	assert_null(gpu_topo_device(&t, 3));
	assert_null(gpu_topo_device(&t, -1));
	/* 0a, c1 and e1 are GPUs CUDA does not list */
	assert_int_equal(t.not_in_cuda, 3);
	/* CUDA's name beats sysfs's device id */
	assert_string_equal(t.dev[0].name, "NVIDIA H200 #0");
	assert_int_equal(t.dev[0].src.name, GPU_SRC_CUDA);
}

static void test_cuda_no_device(void **state)
{
	struct gpu_cuda_list c;
	struct gpu_topo t;

	(void)state;
	cuda_says(&c, 0, NULL);
	build_gpus(&t, &c);
	assert_int_equal(t.order, GPU_ORDER_CUDA);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.not_in_cuda, 6); /* CUDA_VISIBLE_DEVICES="" hides them all */
	assert_null(gpu_topo_device(&t, 0));
}

/*
 * CUDA_VISIBLE_DEVICES '', -1 or 5 (one past the GPUs) on a machine whose
 * driver loads: cuInit says no device (or an invalid one); the list is
 * CUDA's, empty, and its note names the variable's value, never "no driver"
 * (`dmalab list` forecasts no-cuda-device from exactly this).
 */
static void test_cuda_none_visible(void **state)
{
	static const char *const values[] = { "", "-1", "5" };
	static const int codes[] = { 100, 101 };
	static const char *const names[] = { "CUDA_ERROR_NO_DEVICE (100)",
					     "CUDA_ERROR_INVALID_DEVICE (101)" };
	char want[64];
	struct gpu_cuda_list c;
	struct gpu_topo t;

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		for (size_t k = 0; k < 2; k++) {
			cuda_says(&c, 0, NULL);
			assert_int_equal(gpu_cuda_none_visible(codes[k], names[k], values[i], c.why,
							       sizeof(c.why)), 1);
			build_gpus(&t, &c);
			assert_int_equal(t.cuda_loaded, 1);
			assert_int_equal(t.order, GPU_ORDER_CUDA);
			assert_int_equal(t.n, 0);
			snprintf(want, sizeof(want), "CUDA_VISIBLE_DEVICES='%s'", values[i]);
			assert_non_null(strstr(t.cuda_note, want));
			assert_non_null(strstr(t.cuda_note, "no device is visible"));
			assert_non_null(strstr(t.cuda_note, names[k]));
			assert_null(strstr(t.cuda_note, "no NVIDIA driver"));
		}
	/* unset: no device, and no variable named */
	assert_int_equal(gpu_cuda_none_visible(100, "CUDA_ERROR_NO_DEVICE (100)", NULL, c.why,
					       sizeof(c.why)), 1);
	assert_non_null(strstr(c.why, "the driver is there, CUDA sees no device"));
	assert_null(strstr(c.why, "CUDA_VISIBLE_DEVICES"));
	/* any other failure of cuInit is not "no device": why is left alone */
	snprintf(c.why, sizeof(c.why), "kept");
	assert_int_equal(gpu_cuda_none_visible(999, "CUDA_ERROR_UNKNOWN (999)", "", c.why,
					       sizeof(c.why)), 0);
	assert_int_equal(gpu_cuda_none_visible(0, "CUDA_SUCCESS (0)", "5", c.why,
					       sizeof(c.why)), 0);
	assert_string_equal(c.why, "kept");
}

/* A CUDA device sysfs does not have, and a bus id that does not parse. */
static void test_cuda_device_without_sysfs(void **state)
{
	static const char *const ids[] = { "0000:99:00.0", "garbage" };
	struct gpu_cuda_list c;
	struct gpu_topo t;

	(void)state;
	cuda_says(&c, 2, ids);
	build_gpus(&t, &c);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.dev[0].bdf, "0000:99:00.0");
	assert_int_equal(t.dev[0].numa_node, -2);
	assert_int_equal(t.dev[0].src.numa_node, GPU_SRC_NONE);
	assert_int_equal(t.dev[0].pcie_gen_max, 0);
	assert_int_equal(t.dev[0].src.gen_max, GPU_SRC_NONE);
	assert_string_equal(t.dev[1].bdf, "");
	assert_int_equal(t.dev[1].cuda_ordinal, 1);
	assert_int_equal(t.dev[1].numa_node, -2);
	assert_null(gpu_topo_find(&t, "garbage"));
}

/* ---- the fields and their sources ---- */

static void test_numa_node_known_unknown_missing(void **state)
{
	struct gpu_topo t;

	(void)state;
	build_gpus(&t, NULL);
	assert_int_equal(gpu_topo_find(&t, "0000:07:00.0")->numa_node, 0);
	assert_int_equal(gpu_topo_find(&t, "0000:41:00.0")->numa_node, 1);
	/* -1: sysfs answered "unknown" (a VM, or a BIOS without SRAT) */
	assert_int_equal(gpu_topo_find(&t, "0000:0a:00.0")->numa_node, -1);
	assert_int_equal(gpu_topo_find(&t, "0000:0a:00.0")->src.numa_node, GPU_SRC_SYSFS);
	/* -2: no numa_node file at all */
	assert_int_equal(gpu_topo_find(&t, "0000:c1:00.0")->numa_node, -2);
	assert_int_equal(gpu_topo_find(&t, "0000:c1:00.0")->src.numa_node, GPU_SRC_NONE);
}

static void test_link_fields(void **state)
{
	const struct gpu_topo_dev *g;
	struct gpu_topo t;

	(void)state;
	build_gpus(&t, NULL);
	g = gpu_topo_find(&t, "0000:07:00.0"); /* idle: down-trained to gen1 */
	assert_int_equal(g->pcie_gen_cur, 1);
	assert_int_equal(g->pcie_width_cur, 16);
	assert_int_equal(g->pcie_gen_max, 5);
	assert_int_equal(g->pcie_width_max, 16);
	assert_int_equal(g->src.gen_max, GPU_SRC_SYSFS);
	assert_string_equal(g->name, "NVIDIA device 0x2335");
	assert_int_equal(g->src.name, GPU_SRC_SYSFS);
	g = gpu_topo_find(&t, "0000:0a:00.0");
	assert_int_equal(g->pcie_gen_cur, 2);
	assert_int_equal(g->pcie_width_cur, 8);
	assert_int_equal(g->pcie_gen_max, 4);
	g = gpu_topo_find(&t, "0000:41:00.0");
	assert_int_equal(g->pcie_gen_cur, 3);
	assert_int_equal(g->pcie_gen_max, 3);
	g = gpu_topo_find(&t, "0001:05:00.0");
	assert_int_equal(g->pcie_gen_cur, 6);
	assert_int_equal(g->pcie_gen_max, 6);
	/* NVML's facts stay unknown without NVML */
	assert_int_equal(g->cc_major, -1);
	assert_true(g->mem_total == 0);
}

static void test_missing_and_bad_files(void **state)
{
	const struct gpu_topo_dev *g;
	struct gpu_topo t;

	(void)state;
	build_gpus(&t, NULL);
	g = gpu_topo_find(&t, "0000:c1:00.0"); /* no link files at all */
	assert_non_null(g);
	assert_int_equal(g->pcie_gen_cur, 0);
	assert_int_equal(g->pcie_width_cur, 0);
	assert_int_equal(g->pcie_gen_max, 0);
	assert_int_equal(g->pcie_width_max, 0);
	assert_int_equal(g->src.gen_cur, GPU_SRC_NONE);
	assert_int_equal(g->src.width_max, GPU_SRC_NONE);
	g = gpu_topo_find(&t, "0000:e1:00.0"); /* "Unknown", width 0 and "x16" */
	assert_int_equal(g->pcie_gen_cur, 0);
	assert_int_equal(g->pcie_gen_max, 0);
	assert_int_equal(g->pcie_width_cur, 0);
	assert_int_equal(g->pcie_width_max, 0);
	assert_int_equal(g->src.gen_cur, GPU_SRC_NONE);
	assert_int_equal(g->src.width_max, GPU_SRC_NONE);
	assert_int_equal(g->numa_node, 1);
}

static void test_missing_tree(void **state)
{
	struct gpu_topo t;

	(void)state;
	assert_int_equal(gpu_topo_build("/nonexistent/dmalab-sys", NULL, &t), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.order, GPU_ORDER_PCI_BUS);
	assert_null(gpu_topo_device(&t, 0));
}

static void test_find_any_spelling(void **state)
{
	struct gpu_topo t;

	(void)state;
	build_gpus(&t, NULL);
	assert_ptr_equal(gpu_topo_find(&t, "00000000:0A:00.0"), &t.dev[1]); /* NVML's form */
	assert_ptr_equal(gpu_topo_find(&t, "0000:0A:00.0"), &t.dev[1]);     /* CUDA's */
	assert_null(gpu_topo_find(&t, "0000:0b:00.0"));
	assert_null(gpu_topo_find(&t, NULL));
	assert_null(gpu_topo_find(NULL, "0000:0a:00.0"));
}

/* The other fixture trees: one GPU each. */
static void test_two_node_and_one_node_trees(void **state)
{
	char root[512];
	struct gpu_topo t;

	(void)state;
	assert_int_equal(gpu_topo_build(unit_fixture_sys("two-node", root, sizeof(root)), NULL,
					&t), 0);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.dev[0].bdf, "0000:3b:00.0");
	assert_int_equal(t.dev[0].numa_node, 1);
	assert_int_equal(t.dev[0].pcie_gen_max, 5);
	assert_int_equal(t.dev[0].pcie_width_max, 16);
	assert_int_equal(gpu_topo_build(unit_fixture_sys("one-node", root, sizeof(root)), NULL,
					&t), 0);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.dev[0].bdf, "0000:00:05.0");
	assert_int_equal(t.dev[0].numa_node, -1);
}

/* ---- more GPUs than the table holds ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void put(const char *dir, const char *bdf, const char *attr, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci/devices", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", dir, bdf);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", dir, bdf, attr);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_more_gpus_than_fit(void **state)
{
	char dir[] = "/tmp/dmalab-gpu-topo-XXXXXX", bdf[32];
	int total = GPU_TOPO_MAX_GPUS + 6;
	struct gpu_topo t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < total; i++) {
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", total - i); /* reverse bus order */
		put(dir, bdf, "vendor", "0x10de\n");
		put(dir, bdf, "class", "0x030200\n");
	}
	assert_int_equal(gpu_topo_build(dir, NULL, &t), 0);
	assert_int_equal(t.n, GPU_TOPO_MAX_GPUS);
	assert_int_equal(t.left_out, 6);
	assert_string_equal(t.dev[0].bdf, "0000:01:00.0"); /* the lowest bus ids are kept */
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- this machine ---- */

static void test_live_scan(void **state)
{
	struct gpu_cuda_list *c = malloc(sizeof(*c));
	struct gpu_topo t;
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);

	(void)state;
	assert_non_null(c);
	if (!h)
		h = dlopen("libcuda.so.1", RTLD_LAZY);
	assert_int_equal(gpu_topo_scan("/sys", GPU_TOPO_CUDA | GPU_TOPO_NVML, &t), 0);
	assert_true(t.n >= 0 && t.n <= GPU_TOPO_MAX_GPUS);
	if (!h) {
		/* no driver: the fallback, and it says why */
		assert_int_equal(t.order, GPU_ORDER_PCI_BUS);
		assert_int_equal(t.cuda_loaded, 0);
		assert_non_null(strstr(t.order_note, "libcuda.so.1 not found"));
		assert_int_equal(gpu_cuda_list_read(c), -1);
		assert_int_equal(errno, ENOENT);
		assert_int_equal(c->loaded, 0);
		assert_int_equal(c->ok, 0);
	} else {
		assert_int_equal(t.cuda_loaded, 1);
		if (t.order == GPU_ORDER_CUDA)
			for (int i = 0; i < t.n; i++)
				assert_int_equal(t.dev[i].cuda_ordinal, i);
		dlclose(h); /* our reference only: gpu_topo keeps its own */
	}
	free(c);
}

/* --device against what CUDA lists: one rule, a usage error past the last. */
static void test_ordinal_check(void **state)
{
	struct gpu_cuda_list c;
	char msg[80] = "";

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(gpu_ordinal_check(5, &c, msg, sizeof(msg)), 0); /* no answer */
	c.ok = 1;
	assert_int_equal(gpu_ordinal_check(5, &c, msg, sizeof(msg)), 0); /* none: lab skips */
	c.n = 1;
	assert_int_equal(gpu_ordinal_check(0, &c, msg, sizeof(msg)), 0);
	assert_int_equal(gpu_ordinal_check(1, &c, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "CUDA lists 1 device, 0");
	c.n = 8;
	assert_int_equal(gpu_ordinal_check(7, &c, msg, sizeof(msg)), 0);
	assert_int_equal(gpu_ordinal_check(8, &c, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "CUDA lists 8 devices, 0 to 7");
	assert_int_equal(gpu_ordinal_check(-1, &c, msg, sizeof(msg)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinal_check),
		cmocka_unit_test(test_link_speed_each_generation),
		cmocka_unit_test(test_link_speed_unknown),
		cmocka_unit_test(test_no_driver_bus_order),
		cmocka_unit_test(test_no_driver_says_why),
		cmocka_unit_test(test_scan_fixture_asks_no_live_source),
		cmocka_unit_test(test_cuda_order_wins),
		cmocka_unit_test(test_cuda_no_device),
		cmocka_unit_test(test_cuda_none_visible),
		cmocka_unit_test(test_cuda_device_without_sysfs),
		cmocka_unit_test(test_numa_node_known_unknown_missing),
		cmocka_unit_test(test_link_fields),
		cmocka_unit_test(test_missing_and_bad_files),
		cmocka_unit_test(test_missing_tree),
		cmocka_unit_test(test_find_any_spelling),
		cmocka_unit_test(test_two_node_and_one_node_trees),
		cmocka_unit_test(test_more_gpus_than_fit),
		cmocka_unit_test(test_live_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
