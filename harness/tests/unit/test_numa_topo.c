/*
 * test_numa_topo.c - numa_topo on fake sysfs trees.
 *
 * Fixtures live in harness/tests/fixtures/<tree>/sys (run from the repository
 * root, or set DMALAB_FIXTURES to the fixtures directory).  Trees that lack a
 * file on purpose (no "online", no "has_memory") are built in a temporary
 * directory by the test that needs them.
 */
#include <errno.h>
#include <limits.h>
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

#include "numa_topo.h"

static const char *fixture(const char *tree, char *buf, size_t len)
{
	const char *dir = getenv("DMALAB_FIXTURES");

	snprintf(buf, len, "%s/%s/sys", dir ? dir : "harness/tests/fixtures", tree);
	return buf;
}

static void test_cpulist_parse_ranges(void **state)
{
	int count = -7, first = -7;

	(void)state;
	assert_int_equal(cpulist_parse("0-3,8,10-11", &count, &first), 0);
	assert_int_equal(count, 7);
	assert_int_equal(first, 0);
	assert_int_equal(cpulist_parse("16-31\n", &count, &first), 0);
	assert_int_equal(count, 16);
	assert_int_equal(first, 16);
}

static void test_cpulist_parse_empty(void **state)
{
	int count = -7, first = -7;

	(void)state;
	assert_int_equal(cpulist_parse("", &count, &first), 0);
	assert_int_equal(count, 0);
	assert_int_equal(first, -1);
}

static void test_cpulist_parse_garbage(void **state)
{
	int count, first;

	(void)state;
	errno = 0;
	assert_int_equal(cpulist_parse("garbage", &count, &first), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(cpulist_parse("0-3,", &count, &first), -1);
	assert_int_equal(cpulist_parse("0-3;4", &count, &first), -1);
	assert_int_equal(cpulist_parse("-1", &count, &first), -1);
	assert_int_equal(cpulist_parse("99999", &count, &first), -1);
}

static void test_cpulist_parse_reversed(void **state)
{
	int count, first;

	(void)state;
	errno = 0;
	assert_int_equal(cpulist_parse("5-2", &count, &first), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_cpulist_parse_overlap_counted_once(void **state)
{
	int count, first;

	(void)state;
	assert_int_equal(cpulist_parse("4-7,0-5", &count, &first), 0);
	assert_int_equal(count, 8);
	assert_int_equal(first, 0);
}

static void test_cpulist_contains_members(void **state)
{
	(void)state;
	assert_true(cpulist_contains("0-3,8,10-11", 0));
	assert_true(cpulist_contains("0-3,8,10-11", 8));
	assert_true(cpulist_contains("0-3,8,10-11", 11));
	assert_false(cpulist_contains("0-3,8,10-11", 9));
	assert_false(cpulist_contains("0-3,8,10-11", 12));
	assert_false(cpulist_contains("", 0));
	assert_false(cpulist_contains("garbage", 0));
	assert_false(cpulist_contains("0-3", -1));
}

static void test_numa_topo_read_one_node(void **state)
{
	struct numa_topo *t = malloc(sizeof(*t));
	char root[PATH_MAX];

	(void)state;
	assert_non_null(t);
	assert_int_equal(numa_topo_read(fixture("one-node", root, sizeof(root)), t), 0);
	assert_int_equal(t->nnodes, 1);
	assert_int_equal(t->nmem_nodes, 1);
	assert_int_equal(t->node[0].id, 0);
	assert_int_equal(t->node[0].ncpus, 8);
	assert_int_equal(t->node[0].first_cpu, 0);
	assert_string_equal(t->node[0].cpulist, "0-7");
	assert_true(t->node[0].mem_total == 32768000ULL * 1024);
	assert_int_equal(t->node[0].distance[0], 10);
	free(t);
}

static void test_numa_topo_read_two_node(void **state)
{
	struct numa_topo *t = malloc(sizeof(*t));
	char root[PATH_MAX];

	(void)state;
	assert_non_null(t);
	assert_int_equal(numa_topo_read(fixture("two-node", root, sizeof(root)), t), 0);
	assert_int_equal(t->nnodes, 2);
	assert_int_equal(t->nmem_nodes, 2);
	assert_int_equal(t->node[0].id, 0);
	assert_int_equal(t->node[1].id, 1);
	assert_int_equal(t->node[0].ncpus, 16);
	assert_int_equal(t->node[1].ncpus, 16);
	assert_int_equal(t->node[1].first_cpu, 16);
	assert_string_equal(t->node[1].cpulist, "16-31");
	assert_true(t->node[0].mem_total == 65536000ULL * 1024);
	assert_true(t->node[1].mem_total == 65536000ULL * 1024);
	assert_int_equal(t->node[0].distance[0], 10);
	assert_int_equal(t->node[0].distance[1], 21);
	assert_int_equal(t->node[1].distance[0], 21);
	assert_int_equal(t->node[1].distance[1], 10);
	free(t);
}

static void test_numa_topo_read_missing_root(void **state)
{
	struct numa_topo *t = malloc(sizeof(*t));

	(void)state;
	assert_non_null(t);
	errno = 0;
	assert_int_equal(numa_topo_read("/nonexistent/dmalab-sys", t), -1);
	assert_int_equal(errno, ENOENT);
	free(t);
}

/* Write text to root/rel, creating the directories on the way. */
static void put_file(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_tree(const char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * No "online" and no "has_memory": nodes come from the node<N> directories
 * and memory from MemTotal; node 2 is a CPU-less memory node, node 1 a
 * memory-less CPU node (ids need not be contiguous in the distance file).
 */
static void test_numa_topo_read_fallbacks(void **state)
{
	struct numa_topo *t = malloc(sizeof(*t));
	char root[] = "/tmp/dmalab-numa-XXXXXX";

	(void)state;
	assert_non_null(t);
	assert_non_null(mkdtemp(root));
	put_file(root, "devices/system/node/node0/cpulist", "0-1\n");
	put_file(root, "devices/system/node/node0/distance", "10 20 30\n");
	put_file(root, "devices/system/node/node0/meminfo",
		 "Node 0 MemTotal:       1024 kB\n");
	put_file(root, "devices/system/node/node1/cpulist", "2-3\n");
	put_file(root, "devices/system/node/node1/meminfo",
		 "Node 1 MemTotal:          0 kB\n");
	put_file(root, "devices/system/node/node2/cpulist", "\n");
	put_file(root, "devices/system/node/node2/meminfo",
		 "Node 2 MemTotal:       2048 kB\n");
	put_file(root, "devices/system/node/nodefoo/cpulist", "7\n");
	assert_int_equal(numa_topo_read(root, t), 0);
	assert_int_equal(t->nnodes, 3);
	assert_int_equal(t->nmem_nodes, 2);
	assert_int_equal(t->node[2].id, 2);
	assert_int_equal(t->node[2].ncpus, 0);
	assert_int_equal(t->node[2].first_cpu, -1);
	assert_int_equal(t->node[0].distance[2], 30);
	assert_true(t->node[2].mem_total == 2048 * 1024);
	remove_tree(root);
	free(t);
}

static void test_pci_numa_node_unknown(void **state)
{
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(pci_numa_node(fixture("one-node", root, sizeof(root)),
				       "0000:00:05.0"), -1);
}

static void test_pci_numa_node_missing(void **state)
{
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(pci_numa_node(fixture("one-node", root, sizeof(root)),
				       "0000:99:00.0"), -2);
	assert_int_equal(pci_numa_node("/nonexistent/dmalab-sys", "0000:3b:00.0"), -2);
}

static void test_pci_numa_node_known(void **state)
{
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(pci_numa_node(fixture("two-node", root, sizeof(root)),
				       "0000:3b:00.0"), 1);
	assert_int_equal(pci_numa_node(root, "0000:00:00.0"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse_ranges),
		cmocka_unit_test(test_cpulist_parse_empty),
		cmocka_unit_test(test_cpulist_parse_garbage),
		cmocka_unit_test(test_cpulist_parse_reversed),
		cmocka_unit_test(test_cpulist_parse_overlap_counted_once),
		cmocka_unit_test(test_cpulist_contains_members),
		cmocka_unit_test(test_numa_topo_read_one_node),
		cmocka_unit_test(test_numa_topo_read_two_node),
		cmocka_unit_test(test_numa_topo_read_missing_root),
		cmocka_unit_test(test_numa_topo_read_fallbacks),
		cmocka_unit_test(test_pci_numa_node_unknown),
		cmocka_unit_test(test_pci_numa_node_missing),
		cmocka_unit_test(test_pci_numa_node_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
