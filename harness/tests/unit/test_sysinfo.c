/*
 * test_sysinfo.c - sysinfo on fixture trees, PCIe rates, JSON and print.
 *
 * The one-node and two-node trees live in harness/tests/fixtures/ (run from
 * the repository root, or set DMALAB_FIXTURES).  Trees that test one detail
 * (an empty machine, a Firecracker guest, GPUs out of bus order) are built in
 * a temporary directory by the test that needs them.
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
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

#include "json.h"
#include "sysinfo.h"

static const char *fixture(const char *rel, char *buf, size_t len)
{
	const char *dir = getenv("DMALAB_FIXTURES");

	snprintf(buf, len, "%s/%s", dir ? dir : "harness/tests/fixtures", rel);
	return buf;
}

/* sysinfo on harness/tests/fixtures/<tree>/{sys,proc}; free() the result. */
static struct sysinfo *collect_tree(const char *tree)
{
	struct sysinfo *si = calloc(1, sizeof(*si));
	char sys[512], proc[512], rel[64];

	assert_non_null(si);
	snprintf(rel, sizeof(rel), "%s/sys", tree);
	fixture(rel, sys, sizeof(sys));
	snprintf(rel, sizeof(rel), "%s/proc", tree);
	fixture(rel, proc, sizeof(proc));
	sysinfo_collect_at(si, sys, proc);
	return si;
}

/* ---- temporary trees ---- */

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static char *temp_tree(void)
{
	char *dir = strdup("/tmp/dmalab-sysinfo-XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void drop_tree(char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void collect_temp(const char *dir, struct sysinfo *si)
{
	char sys[1024], proc[1024];

	snprintf(sys, sizeof(sys), "%s/sys", dir);
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	sysinfo_collect_at(si, sys, proc);
}

/* ---- pcie_rate_gbs ---- */

static void test_pcie_rate_gbs_gen5_x16(void **state)
{
	(void)state;
	assert_true(fabs(pcie_rate_gbs(5, 16) - 63.02) <= 0.05);
}

static void test_pcie_rate_gbs_each_gen(void **state)
{
	(void)state;
	assert_true(fabs(pcie_rate_gbs(1, 1) - 0.25) < 1e-9);   /* 2.5 GT/s, 8b/10b */
	assert_true(fabs(pcie_rate_gbs(2, 8) - 4.0) < 1e-9);    /* 5 GT/s, 8b/10b */
	assert_true(fabs(pcie_rate_gbs(3, 16) - 15.754) < 0.01);
	assert_true(fabs(pcie_rate_gbs(4, 16) - 31.508) < 0.01);
	assert_true(fabs(pcie_rate_gbs(6, 16) - 121.0) < 0.01); /* 64 GT/s x 242/256 */
	assert_true(fabs(pcie_rate_gbs(5, 8) * 2 - pcie_rate_gbs(5, 16)) < 1e-9);
}

static void test_pcie_rate_gbs_unknown(void **state)
{
	(void)state;
	assert_true(pcie_rate_gbs(0, 16) == 0);
	assert_true(pcie_rate_gbs(7, 16) == 0);
	assert_true(pcie_rate_gbs(-1, 16) == 0);
	assert_true(pcie_rate_gbs(5, 0) == 0);
	assert_true(pcie_rate_gbs(5, -4) == 0);
	assert_true(pcie_rate_gbs(5, 64) == 0);
}

/* ---- sysinfo_collect_at on the fixture trees ---- */

static void test_sysinfo_collect_at_two_node_numa(void **state)
{
	struct sysinfo *si = collect_tree("two-node");

	(void)state;
	assert_int_equal(si->numa.nnodes, 2);
	assert_int_equal(si->numa.nmem_nodes, 2);
	assert_int_equal(si->numa.node[0].ncpus, 16);
	assert_int_equal(si->numa.node[1].first_cpu, 16);
	assert_int_equal(si->numa.node[0].distance[1], 21);
	assert_int_equal(si->numa.node[1].distance[1], 10);
	assert_int_equal(si->cpus_online, 32);
	free(si);
}

static void test_sysinfo_collect_at_two_node_gpu(void **state)
{
	struct sysinfo *si = collect_tree("two-node");

	(void)state;
	/* 0000:3b:00.1 (NVIDIA audio) and the Intel bridge are not GPUs. */
	assert_int_equal(si->ngpus, 1);
	assert_string_equal(si->gpu[0].bdf, "0000:3b:00.0");
	assert_int_equal(si->gpu[0].nvml_index, -1); /* numbered in bus order: 0 */
	assert_int_equal(si->gpu[0].numa_node, 1);
	assert_int_equal(si->gpu[0].pcie_gen_cur, 5);
	assert_int_equal(si->gpu[0].pcie_width_cur, 16);
	assert_int_equal(si->gpu[0].pcie_gen_max, 5);
	assert_int_equal(si->gpu[0].pcie_width_max, 16);
	assert_int_equal(si->gpu[0].cc_major, -1); /* only NVML knows */
	assert_int_equal(si->nvml_loaded, 0);      /* never asked on a fixture */
	free(si);
}

static void test_sysinfo_collect_at_two_node_memory(void **state)
{
	struct sysinfo *si = collect_tree("two-node");

	(void)state;
	assert_int_equal(si->mem_total, 131072000ULL * 1024);
	assert_int_equal(si->hugepages_total, 8);
	assert_int_equal(si->hugepages_free, 6);
	assert_int_equal(si->hugepage_size, 2 * 1024 * 1024);
	assert_string_equal(si->thp, "always");
	assert_int_equal(si->cap_ipc_lock, 1);
	free(si);
}

static void test_sysinfo_collect_at_two_node_host(void **state)
{
	struct sysinfo *si = collect_tree("two-node");

	(void)state;
	assert_string_equal(si->kernel, "6.8.0-49-generic");
	assert_string_equal(si->hostname, "gpu-box-2s");
	assert_string_equal(si->virt, "none");
	assert_int_equal(si->cuda_runtime_version, DMALAB_CUDA_RT_VERSION);
	assert_int_equal(si->have_nvcc, DMALAB_HAVE_NVCC);
	assert_true(si->page_size > 0);
	free(si);
}

static void test_sysinfo_collect_at_one_node(void **state)
{
	struct sysinfo *si = collect_tree("one-node");

	(void)state;
	assert_int_equal(si->numa.nnodes, 1);
	assert_int_equal(si->cpus_online, 8);
	assert_int_equal(si->ngpus, 1);
	assert_string_equal(si->gpu[0].bdf, "0000:00:05.0");
	assert_int_equal(si->gpu[0].numa_node, -1); /* a VM hides it */
	assert_int_equal(si->gpu[0].pcie_gen_cur, 1); /* down-trained at idle */
	assert_int_equal(si->gpu[0].pcie_gen_max, 4);
	assert_string_equal(si->thp, "never");
	assert_int_equal(si->cap_ipc_lock, 0);
	assert_int_equal(si->hugepages_total, 0);
	free(si);
}

static void test_sysinfo_collect_at_one_node_virt(void **state)
{
	struct sysinfo *si = collect_tree("one-node");

	(void)state;
	/* QEMU in DMI; the Fedora release ".fc39" must not read as Firecracker. */
	assert_string_equal(si->kernel, "6.5.6-300.fc39.x86_64");
	assert_string_equal(si->virt, "kvm");
	free(si);
}

static void test_sysinfo_collect_at_empty_tree(void **state)
{
	char *dir = temp_tree();
	struct sysinfo *si = calloc(1, sizeof(*si));

	(void)state;
	assert_non_null(si);
	/* Only a release, or uname's (this machine's) would decide virt. */
	put(dir, "proc/sys/kernel/osrelease", "6.1.0\n");
	collect_temp(dir, si);
	assert_int_equal(si->ngpus, 0);
	assert_int_equal(si->numa.nnodes, 0);
	assert_string_equal(si->thp, "unknown");
	assert_string_equal(si->virt, ""); /* no evidence either way */
	assert_int_equal(si->mem_total, 0);
	assert_true(si->cpus_online >= 1); /* falls back to sysconf */
	free(si);
	drop_tree(dir);
}

static void test_sysinfo_collect_at_firecracker(void **state)
{
	char *dir = temp_tree();
	struct sysinfo *si = calloc(1, sizeof(*si));

	(void)state;
	assert_non_null(si);
	put(dir, "proc/sys/kernel/osrelease", "6.1.102-fc-v5\n");
	put(dir, "proc/cpuinfo", "flags\t\t: fpu sse2 hypervisor\n");
	collect_temp(dir, si);
	assert_string_equal(si->virt, "firecracker");
	put(dir, "proc/sys/kernel/osrelease", "6.1.102\n");
	collect_temp(dir, si);
	assert_string_equal(si->virt, "vm"); /* a hypervisor we cannot name */
	free(si);
	drop_tree(dir);
}

static void add_gpu(const char *dir, const char *bdf, const char *cls, const char *speed)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", bdf);
	put(dir, rel, "0x10de\n");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", bdf);
	put(dir, rel, cls);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/current_link_speed", bdf);
	put(dir, rel, speed);
}

static struct json *machine_json(const struct sysinfo *si);
static const struct json *nth(const struct json *arr, int n);

static void test_sysinfo_collect_at_gpu_order_and_class(void **state)
{
	char *dir = temp_tree();
	struct sysinfo *si = calloc(1, sizeof(*si));
	struct json *j;

	(void)state;
	assert_non_null(si);
	add_gpu(dir, "0000:c1:00.0", "0x030200\n", "16.0 GT/s PCIe\n");
	add_gpu(dir, "0000:41:00.0", "0x030000\n", "8 GT/s\n");  /* VGA class */
	add_gpu(dir, "0000:81:00.0", "0x030200\n", "Unknown\n"); /* no numa_node */
	add_gpu(dir, "0000:01:00.0", "0x020000\n", "8 GT/s\n");  /* NIC class */
	collect_temp(dir, si);
	assert_int_equal(si->ngpus, 3);
	assert_string_equal(si->gpu[0].bdf, "0000:41:00.0");
	assert_string_equal(si->gpu[2].bdf, "0000:c1:00.0");
	j = machine_json(si); /* without NVML: numbered in bus order */
	assert_true(json_get_num(nth(json_get(j, "gpus"), 2), "index", -9) == 2);
	json_free(j);
	assert_int_equal(si->gpu[0].pcie_gen_cur, 3);
	assert_int_equal(si->gpu[1].pcie_gen_cur, 0);
	assert_int_equal(si->gpu[2].pcie_gen_cur, 4);
	assert_int_equal(si->gpu[1].numa_node, -2);
	free(si);
	drop_tree(dir);
}

/* ---- sysinfo_write_json / sysinfo_print ---- */

static struct json *machine_json(const struct sysinfo *si)
{
	struct json_writer w;
	struct json *j;
	char err[256];

	jw_init(&w, 0);
	sysinfo_write_json(si, &w);
	assert_false(w.failed);
	j = json_parse(w.buf, w.len, err, sizeof(err));
	if (!j)
		fail_msg("machine JSON does not parse: %s\n%s", err, w.buf);
	jw_release(&w);
	return j;
}

static const struct json *nth(const struct json *arr, int n)
{
	const struct json *c = arr ? arr->child : NULL;

	while (c && n-- > 0)
		c = c->next;
	assert_non_null(c);
	return c;
}

static void test_sysinfo_write_json_two_node(void **state)
{
	struct sysinfo *si = collect_tree("two-node");
	struct json *j = machine_json(si);
	const struct json *numa = json_get(j, "numa"), *gpu;

	(void)state;
	assert_non_null(numa);
	assert_true(json_get_num(numa, "nodes", -1) == 2);
	assert_string_equal(json_get_str(nth(json_get(numa, "node"), 1), "cpulist", ""), "16-31");
	assert_true(nth(nth(json_get(numa, "distances"), 0), 1)->num == 21);
	assert_true(json_get_num(json_get(j, "hugepages"), "free", -1) == 6);
	assert_int_equal(json_get(j, "cap_ipc_lock")->type, JSON_BOOL);
	assert_non_null(json_get(json_get(j, "memlock"), "max"));
	assert_string_equal(json_get_str(j, "thp", ""), "always");
	assert_string_equal(json_get_str(j, "virt", "?"), "none");
	assert_non_null(json_get(j, "cuda_runtime_version"));
	assert_non_null(json_get(j, "driver_version"));
	gpu = nth(json_get(j, "gpus"), 0);
	assert_string_equal(json_get_str(gpu, "bdf", ""), "0000:3b:00.0");
	assert_true(json_get_num(gpu, "numa_node", -9) == 1);
	assert_true(json_get_num(gpu, "pcie_gen_cur", -9) == 5);
	assert_true(fabs(json_get_num(gpu, "pcie_max_rate_gbs", 0) - 63.02) <= 0.05);
	assert_non_null(json_get(gpu, "nvlinks_active"));
	assert_non_null(json_get(gpu, "cc_major"));
	json_free(j);
	free(si);
}

static void test_sysinfo_write_json_empty(void **state)
{
	struct sysinfo *si = calloc(1, sizeof(*si));
	struct json *j;

	(void)state;
	assert_non_null(si);
	j = machine_json(si); /* all defaults still give valid JSON */
	assert_int_equal(json_get(j, "gpus")->count, 0);
	assert_int_equal(json_get(json_get(j, "numa"), "distances")->count, 0);
	json_free(j);
	free(si);
}

static void test_sysinfo_print_two_node(void **state)
{
	struct sysinfo *si = collect_tree("two-node");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	sysinfo_print(si, f);
	fclose(f);
	assert_non_null(strstr(text, "2 nodes"));
	assert_non_null(strstr(text, "distances 21 10"));
	assert_non_null(strstr(text, "0000:3b:00.0"));
	assert_non_null(strstr(text, "numa node 1"));
	assert_non_null(strstr(text, "gen5 x16"));
	assert_non_null(strstr(text, "63.0 GB/s"));
	assert_non_null(strstr(text, "6 of 8 free"));
	free(text);
	free(si);
}

static void test_sysinfo_collect_live(void **state)
{
	struct sysinfo *si = calloc(1, sizeof(*si));

	(void)state;
	assert_non_null(si);
	sysinfo_collect(si);
	assert_true(si->cpus_online >= 1);
	assert_true(si->page_size >= 4096);
	assert_true(si->mem_total > 0);
	assert_true(si->kernel[0] != '\0');
	assert_true(si->ngpus >= 0 && si->ngpus <= SYSINFO_MAX_GPUS);
	free(si);
}

static void test_pci_bdf_normalise_forms(void **state)
{
	char b[32];

	(void)state;
	assert_int_equal(pci_bdf_normalise("00000000:3B:00.0", b, sizeof(b)), 0);
	assert_string_equal(b, "0000:3b:00.0");
	assert_int_equal(pci_bdf_normalise("0000:00:06.0", b, sizeof(b)), 0);
	assert_string_equal(b, "0000:00:06.0");
	assert_int_equal(pci_bdf_normalise("not a bus id", b, sizeof(b)), -1);
	assert_int_equal(pci_bdf_normalise("", b, sizeof(b)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_bdf_normalise_forms),
		cmocka_unit_test(test_pcie_rate_gbs_gen5_x16),
		cmocka_unit_test(test_pcie_rate_gbs_each_gen),
		cmocka_unit_test(test_pcie_rate_gbs_unknown),
		cmocka_unit_test(test_sysinfo_collect_at_two_node_numa),
		cmocka_unit_test(test_sysinfo_collect_at_two_node_gpu),
		cmocka_unit_test(test_sysinfo_collect_at_two_node_memory),
		cmocka_unit_test(test_sysinfo_collect_at_two_node_host),
		cmocka_unit_test(test_sysinfo_collect_at_one_node),
		cmocka_unit_test(test_sysinfo_collect_at_one_node_virt),
		cmocka_unit_test(test_sysinfo_collect_at_empty_tree),
		cmocka_unit_test(test_sysinfo_collect_at_firecracker),
		cmocka_unit_test(test_sysinfo_collect_at_gpu_order_and_class),
		cmocka_unit_test(test_sysinfo_write_json_two_node),
		cmocka_unit_test(test_sysinfo_write_json_empty),
		cmocka_unit_test(test_sysinfo_print_two_node),
		cmocka_unit_test(test_sysinfo_collect_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
