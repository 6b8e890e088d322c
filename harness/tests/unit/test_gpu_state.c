/*
 * test_gpu_state.c - the facts a fleet compares nodes by: each GPU's IOMMU
 * domain (gpu_topo), the machine's IOMMU and CPU affinity (sysinfo), the
 * names of NVML's clocks-event reason bits.
 *
 * The sysfs trees are made in a temporary directory per test, so each case
 * shows exactly the files it depends on.
 */
#include <errno.h>
#include <ftw.h>
#include <sched.h>
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
#include "sysinfo.h"

static char root[256];

/* mkdir -p root/rel's directory, then write text to root/rel. */
static void put(const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdir_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/.keep", root, rel);
	put(path + strlen(root) + 1, "");
}

/* One NVIDIA GPU at bdf in the tree. */
static void put_gpu(const char *bdf)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/vendor", bdf);
	put(rel, "0x10de\n");
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/class", bdf);
	put(rel, "0x030200\n");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/dmalab-gpu-state-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	return nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const struct gpu_topo_dev *scan_one(struct gpu_topo *t, const char *bdf)
{
	assert_int_equal(gpu_topo_scan(root, 0, t), 0);
	const struct gpu_topo_dev *g = gpu_topo_find(t, bdf);
	assert_non_null(g);
	return g;
}

static void test_iommu_words(void **state)
{
	assert_string_equal(gpu_iommu_word("identity"), "identity");
	assert_string_equal(gpu_iommu_word("DMA"), "translated");
	assert_string_equal(gpu_iommu_word("DMA-FQ"), "translated");
	assert_string_equal(gpu_iommu_word("blocked"), "unknown");
	assert_string_equal(gpu_iommu_word(""), "unknown");
	assert_string_equal(gpu_iommu_word(NULL), "unknown");
}

static void test_gpu_in_translated_group(void **state)
{
	struct gpu_topo t;

	put_gpu("0000:3b:00.0");
	put("bus/pci/devices/0000:3b:00.0/iommu_group/type", "DMA-FQ\n");
	assert_string_equal(scan_one(&t, "0000:3b:00.0")->iommu, "translated");
}

static void test_gpu_in_identity_group(void **state)
{
	struct gpu_topo t;

	put_gpu("0000:3b:00.0");
	put("bus/pci/devices/0000:3b:00.0/iommu_group/type", "identity\n");
	assert_string_equal(scan_one(&t, "0000:3b:00.0")->iommu, "identity");
}

static void test_gpu_without_group_has_no_iommu(void **state)
{
	struct gpu_topo t;

	put_gpu("0000:3b:00.0");
	assert_string_equal(scan_one(&t, "0000:3b:00.0")->iommu, "none");
}

static void test_group_without_type_is_unknown(void **state)
{
	struct gpu_topo t;

	put_gpu("0000:3b:00.0");
	mkdir_rel("bus/pci/devices/0000:3b:00.0/iommu_group");
	assert_string_equal(scan_one(&t, "0000:3b:00.0")->iommu, "unknown");
}

/* Without NVML (a fixture tree is never asked) the NVML facts stay unknown. */
static void test_nvml_facts_unknown_on_a_fixture(void **state)
{
	struct gpu_topo t;
	const struct gpu_topo_dev *g;

	put_gpu("0000:3b:00.0");
	g = scan_one(&t, "0000:3b:00.0");
	assert_string_equal(g->uuid, "");
	assert_int_equal(g->sm_max_mhz, 0);
	assert_int_equal(g->clocks_event_reasons, -1);
	assert_int_equal(g->compute_procs, -1);
}

static void test_clocks_reason_names(void **state)
{
	assert_string_equal(gpu_clocks_reason_name(0), "gpu_idle");
	assert_string_equal(gpu_clocks_reason_name(2), "sw_power_cap");
	assert_int_equal(GPU_CLOCKS_SW_POWER_CAP, 1ull << 2);
	assert_string_equal(gpu_clocks_reason_name(6), "hw_thermal");
	assert_int_equal(GPU_CLOCKS_HW_THERMAL, 1ull << 6);
	assert_string_equal(gpu_clocks_reason_name(8), "display_clocks");
	assert_null(gpu_clocks_reason_name(9));
	assert_null(gpu_clocks_reason_name(-1));
}

static void machine_iommu(char *out, size_t len)
{
	struct sysinfo *si = malloc(sizeof(*si));

	assert_non_null(si);
	sysinfo_collect_at(si, root, root);
	snprintf(out, len, "%s", si->iommu);
	free(si);
}

static void test_machine_iommu(void **state)
{
	char word[16];

	mkdir_rel("class/net");
	machine_iommu(word, sizeof(word));
	assert_string_equal(word, "none"); /* no class/iommu entry at all */
	mkdir_rel("class/iommu/dmar0");
	put("kernel/iommu_groups/0/type", "identity\n");
	put("kernel/iommu_groups/1/type", "identity\n");
	machine_iommu(word, sizeof(word));
	assert_string_equal(word, "identity");
	put("kernel/iommu_groups/2/type", "DMA\n");
	machine_iommu(word, sizeof(word));
	assert_string_equal(word, "translated");
}

static void test_machine_iommu_unknown_without_sysfs(void **state)
{
	char word[16];

	machine_iommu(word, sizeof(word)); /* the root has no class/ directory */
	assert_string_equal(word, "unknown");
}

/* The CPUs this test may use, as sysinfo lists them, against sched_getaffinity. */
static void test_cpu_affinity_listed(void **state)
{
	struct sysinfo *si = malloc(sizeof(*si));
	cpu_set_t set;
	int count = 0, first = -1;

	assert_non_null(si);
	put("devices/system/node/node0/cpulist", "0-4095\n");
	put("devices/system/node/node0/meminfo", "Node 0 MemTotal: 1024 kB\n");
	put("devices/system/node/node0/distance", "10\n");
	put("devices/system/node/has_memory", "0\n");
	put("devices/system/node/online", "0\n");
	sysinfo_collect_at(si, root, root);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(cpulist_parse(si->cpus_allowed, &count, &first), 0);
	assert_int_equal(count, CPU_COUNT(&set));
	assert_true(CPU_ISSET(first, &set));
	assert_int_equal(si->ncpu_nodes, 1);
	assert_int_equal(si->cpu_nodes[0], 0);
	free(si);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iommu_words),
		cmocka_unit_test_setup_teardown(test_gpu_in_translated_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_in_identity_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_without_group_has_no_iommu, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_group_without_type_is_unknown, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nvml_facts_unknown_on_a_fixture, setup,
						teardown),
		cmocka_unit_test(test_clocks_reason_names),
		cmocka_unit_test_setup_teardown(test_machine_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_machine_iommu_unknown_without_sysfs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cpu_affinity_listed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
