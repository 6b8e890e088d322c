/*
 * test_numa_topo.c - numa_topo on fake sysfs trees.
 *
 * Fixtures live in harness/tests/fixtures/<tree>/sys (run from the repository
 * root, or set DMALAB_FIXTURES to the fixtures directory).  Trees that lack a
 * file on purpose (no "online", no "has_memory") are built in a temporary
 * directory by the test that needs them.
 *
 * The live half (libnuma) runs on this machine's nodes, whatever they are:
 * node 0 always exists where numa_available() >= 0, a node number with no
 * node behind it is TOPO_MAX_NODES - 1 (skipped where it is a real node).
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
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#include "buffer.h"
#include "../../../labs/04-numa/numa_place.h"
#include "unit_lab.h"


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
	assert_int_equal(numa_topo_read(unit_fixture_sys("one-node", root, sizeof(root)), t), 0);
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
	assert_int_equal(numa_topo_read(unit_fixture_sys("two-node", root, sizeof(root)), t), 0);
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
	assert_int_equal(pci_numa_node(unit_fixture_sys("one-node", root, sizeof(root)),
				       "0000:00:05.0"), -1);
}

static void test_pci_numa_node_missing(void **state)
{
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(pci_numa_node(unit_fixture_sys("one-node", root, sizeof(root)),
				       "0000:99:00.0"), -2);
	assert_int_equal(pci_numa_node("/nonexistent/dmalab-sys", "0000:3b:00.0"), -2);
}

static void test_pci_numa_node_known(void **state)
{
	char root[PATH_MAX];

	(void)state;
	assert_int_equal(pci_numa_node(unit_fixture_sys("two-node", root, sizeof(root)),
				       "0000:3b:00.0"), 1);
	assert_int_equal(pci_numa_node(root, "0000:00:00.0"), 0);
}

static void test_distances_line(void **state)
{
	struct numa_topo *t = malloc(sizeof(*t));
	char root[PATH_MAX], line[64];

	(void)state;
	assert_non_null(t);
	assert_int_equal(numa_topo_read(unit_fixture_sys("two-node", root, sizeof(root)), t), 0);
	assert_string_equal(numa_topo_distances(t, line, sizeof(line)),
			    "node0: 10 21; node1: 21 10");
	assert_int_equal(numa_topo_distance(t, 0, 1), 21);
	assert_int_equal(numa_topo_distance(t, 1, 1), 10);
	assert_int_equal(numa_topo_distance(t, 5, 1), 0);
	assert_int_equal(numa_topo_distance(t, 0, -1), 0);
	assert_int_equal(numa_topo_distance(NULL, 0, 0), 0);
	/* cut at a whole number */
	assert_string_equal(numa_topo_distances(t, line, 18), "node0: 10 21");
	assert_string_equal(numa_topo_distances(t, line, 3), "");
	t->nnodes = 0;
	assert_string_equal(numa_topo_distances(t, line, sizeof(line)), "");
	free(t);
}

/* ---- the live machine ---- */

#define NO_NODE (TOPO_MAX_NODES - 1)

static void need_numa(void)
{
	if (numa_available() < 0 || numa_max_node() >= NO_NODE)
		skip();
}

static uint64_t page(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static void test_mem_nodes_libnuma_and_sysfs(void **state)
{
	struct numa_topo *t = calloc(1, sizeof(*t));
	char root[PATH_MAX];
	int nodes[TOPO_MAX_NODES], n, i;

	(void)state;
	need_numa();
	assert_non_null(t);
	n = numa_mem_nodes(NULL, nodes, TOPO_MAX_NODES);
	assert_true(n >= 1);
	for (i = 1; i < n; i++)
		assert_true(nodes[i] > nodes[i - 1]);
	assert_int_equal(numa_mem_nodes(NULL, nodes, 1), 1);
	/* the two-node fixture: only the nodes libnuma has too */
	assert_int_equal(numa_topo_read(unit_fixture_sys("two-node", root, sizeof(root)), t), 0);
	assert_int_equal(numa_mem_nodes(t, nodes, TOPO_MAX_NODES),
			 numa_max_node() >= 1 && numa_node_size64(1, NULL) > 0 ? 2 : 1);
	assert_int_equal(nodes[0], 0);
	/* sysfs with no memory on node 0: none */
	t->node[0].mem_total = 0;
	t->node[1].mem_total = 0;
	assert_int_equal(numa_mem_nodes(t, nodes, TOPO_MAX_NODES), 0);
	free(t);
}

static void test_node_first_cpu(void **state)
{
	int cpu;

	(void)state;
	need_numa();
	cpu = numa_node_first_cpu(numa_node_of_cpu(sched_getcpu()));
	assert_true(cpu >= 0);
	assert_int_equal(numa_node_first_cpu(NO_NODE), -1);
}

static void test_run_on_first_and_free_memory(void **state)
{
	int nodes[3] = { NO_NODE, 0, 0 };
	uint64_t have = 7;
	cpu_set_t before;

	(void)state;
	need_numa();
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	assert_int_equal(numa_run_on_first(nodes, 3), 1); /* NO_NODE refuses */
	errno = 0;
	assert_int_equal(numa_run_on_first(nodes, 1), -1);
	assert_true(errno != 0);
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
	assert_int_equal(numa_node_short_of(nodes + 1, 1, 1, &have), -1);
	assert_int_equal(have, 7);
	assert_int_equal(numa_node_short_of(nodes + 1, 2, UINT64_MAX, &have), 0);
	assert_true(have > 0 && have < UINT64_MAX);
	assert_int_equal(numa_node_short_of(nodes, 3, 1, &have), 0); /* no node: nothing free */
	assert_int_equal(have, 0);
}

static void test_pages_off_node(void **state)
{
	uint64_t bytes = 64 * page();
	char *p = buf_map(bytes, 0, BUF_NOHUGE, NULL);
	long npages = -1;
	int node;

	(void)state;
	need_numa();
	assert_non_null(p);
	/* untouched: no page is anywhere yet */
	assert_int_equal(numa_pages_off_node(p, bytes, 0, &npages), 64);
	assert_int_equal(npages, 64);
	memset(p, 1, bytes);
	node = numa_node_of_cpu(sched_getcpu());
	assert_true(numa_pages_off_node(p, bytes, node, NULL) <= 64);
	assert_int_equal(numa_pages_off_node(p, bytes, NO_NODE, NULL), 64);
	/* half a page past the end is not a page */
	assert_int_equal(numa_pages_off_node(p, bytes + page() / 2, NO_NODE, &npages), 64);
	errno = 0;
	assert_int_equal(numa_pages_off_node(p, page() - 1, 0, NULL), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(numa_pages_off_node(NULL, bytes, 0, NULL), -1);
	assert_int_equal(errno, EINVAL);
	buf_free(p);
}

static void test_map_on_node(void **state)
{
	size_t before = buf_tracked();
	uint64_t bytes = 4 * MiB + 100;
	long off = -1;
	char *p;

	(void)state;
	need_numa();
	p = numa_map_on_node(bytes, 0, BUF_HUGE, &off);
	assert_non_null(p);
	assert_int_equal(off, 0);
	assert_int_equal(numa_pages_off_node(p, bytes, 0, NULL), 0); /* every page there */
	assert_int_equal((unsigned char)p[bytes - 1], 0); /* first-touched: zeroed */
	assert_int_equal(buf_tracked(), before + 1);
	assert_int_equal(buf_free(p), 0);
	errno = 0;
	assert_null(numa_map_on_node(bytes, -1, 0, &off));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(numa_map_on_node(bytes, TOPO_MAX_NODES, 0, NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(numa_map_on_node(bytes, NO_NODE, 0, &off)); /* mbind refuses */
	assert_true(errno != 0);
	assert_int_equal(off, 0);
	assert_int_equal(buf_tracked(), before);
}

struct seen {
	int ran, node, policy, bound_to_0;
};

static void look(void *arg)
{
	struct seen *s = arg;
	unsigned long mask[(TOPO_MAX_NODES + 63) / 64] = { 0 };

	s->ran = 1;
	s->node = numa_node_of_cpu(sched_getcpu());
	assert_int_equal(get_mempolicy(&s->policy, mask, TOPO_MAX_NODES + 1, NULL, 0), 0);
	s->bound_to_0 = mask[0] == 1;
}

static void test_run_worker(void **state)
{
	struct seen s = { 0, -1, -1, 0 };
	const char *failed = "x";
	int policy = -1, node;

	(void)state;
	need_numa();
	node = numa_node_of_cpu(sched_getcpu());
	assert_int_equal(numa_run_worker(node, 0, look, &s, &failed), 0);
	assert_null(failed);
	assert_true(s.ran);
	assert_int_equal(s.node, node);
	assert_int_equal(s.policy, MPOL_BIND);
	assert_true(s.bound_to_0);
	/* the binding was the worker's alone */
	assert_int_equal(get_mempolicy(&policy, NULL, 0, NULL, 0), 0);
	assert_int_equal(policy, MPOL_DEFAULT);
	memset(&s, 0, sizeof(s));
	assert_int_equal(numa_run_worker(-1, -1, look, &s, NULL), 0);
	assert_true(s.ran);
	assert_int_equal(s.policy, MPOL_DEFAULT);
}

static void test_run_worker_fails_before_fn(void **state)
{
	struct seen s = { 0, -1, -1, 0 };
	const char *failed = NULL;

	(void)state;
	need_numa();
	assert_true(numa_run_worker(NO_NODE, -1, look, &s, &failed) != 0);
	assert_string_equal(failed, "numa_run_on_node");
	assert_int_equal(numa_run_worker(-1, TOPO_MAX_NODES, look, &s, &failed), EINVAL);
	assert_string_equal(failed, "set_mempolicy");
	assert_true(numa_run_worker(-1, NO_NODE, look, &s, &failed) != 0);
	assert_string_equal(failed, "set_mempolicy");
	assert_false(s.ran);
}

static void test_pages_migrated(void **state)
{
	char root[] = "/tmp/dmalab-vmstat-XXXXXX", path[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/vmstat", root);
	put_file(root, "vmstat", "nr_free_pages 5\nnuma_pages_migrated 1234\nnuma_hint_faults 9\n");
	assert_int_equal(numa_pages_migrated(path), 1234);
	put_file(root, "vmstat", "nr_free_pages 5\n");
	assert_int_equal(numa_pages_migrated(path), 0);
	remove_tree(root);
	assert_int_equal(numa_pages_migrated(path), 0); /* no file */
	assert_true(numa_pages_migrated(NULL) >= 0);
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
		cmocka_unit_test(test_distances_line),
		cmocka_unit_test(test_mem_nodes_libnuma_and_sysfs),
		cmocka_unit_test(test_run_on_first_and_free_memory),
		cmocka_unit_test(test_node_first_cpu),
		cmocka_unit_test(test_pages_off_node),
		cmocka_unit_test(test_map_on_node),
		cmocka_unit_test(test_run_worker),
		cmocka_unit_test(test_run_worker_fails_before_fn),
		cmocka_unit_test(test_pages_migrated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
