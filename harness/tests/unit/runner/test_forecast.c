/*
 * test_forecast.c - claim_forecast (list.c): the skips a claim will give on a
 * machine, from its lab's --describe and the machine's facts, as `dmalab
 * exercises` marks the exercises a machine cannot grade.  GPUs, NUMA nodes and
 * uid are made up here, so every branch runs on any machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_topo.h"
#include "runner.h"

/* A lab of two GPUs' claims (02.1), a CPU claim (02.2), a claim of two NUMA
 * nodes (02.3) and one of root (02.4); then a CPU-only lab's claim about where
 * the GPU sits (04.5). */
static const char cuda_lab[] =
	"{\"schema\": \"dmalab-describe/1\", \"claims\": ["
	"{\"id\": \"02.1\", \"text\": \"a copy\", \"needs_root\": null,"
	" \"needs_cuda_devices\": 2, \"needs_numa_nodes\": 1},"
	"{\"id\": \"02.2\", \"text\": \"a fault\", \"needs_root\": null,"
	" \"needs_cuda_devices\": 0, \"needs_numa_nodes\": 1},"
	"{\"id\": \"02.3\", \"text\": \"a node\", \"needs_root\": null,"
	" \"needs_cuda_devices\": 0, \"needs_numa_nodes\": 2},"
	"{\"id\": \"02.4\", \"text\": \"a lock\", \"needs_root\": \"the limit\","
	" \"needs_cuda_devices\": 0, \"needs_numa_nodes\": 1}]}";
static const char cpu_lab[] =
	"{\"schema\": \"dmalab-describe/1\", \"claims\": ["
	"{\"id\": \"04.5\", \"text\": \"bound to the GPU's node\", \"needs_cuda_devices\": 0,"
	" \"needs_numa_nodes\": 2}]}";

struct machine {
	struct sysinfo si;
	struct gpu_topo t;
	struct lab_entry lab;
};

/* A root machine of two NUMA nodes and `gpus` CUDA GPUs on node 0, the lab
 * described by text (needing `need` GPUs), built with nvcc. */
static void machine(struct machine *m, int gpus, const char *text, int need)
{
	char err[128];

	memset(m, 0, sizeof(*m));
	m->si.numa.nmem_nodes = 2;
	m->t.cuda_loaded = 1;
	m->t.order = GPU_ORDER_CUDA;
	m->t.n = gpus;
	for (int i = 0; i < gpus; i++)
		m->t.dev[i].cuda_ordinal = i;
	m->lab.desc = json_parse(text, strlen(text), err, sizeof(err));
	assert_non_null(m->lab.desc);
	m->lab.needs_gpus = need;
	m->lab.built_with_cuda = 1;
}

/* The one skip claim id is forecast to give, NULL for none; fails on more. */
static const char *one_skip(const struct machine *m, const char *id)
{
	const char *why[CLAIM_FORECAST_MAX];
	int n = claim_forecast(&m->si, &m->t, &m->lab, id, why);

	assert_in_range(n, 0, 1);
	return n ? why[0] : NULL;
}

static void test_forecast_cuda(void **state)
{
	struct machine m;

	(void)state;
	machine(&m, 2, cuda_lab, 2);
	assert_null(one_skip(&m, "02.1"));
	m.t.n = 1;
	assert_string_equal(one_skip(&m, "02.1"), "single-gpu");
	m.t.n = 0;
	assert_string_equal(one_skip(&m, "02.1"), "no-cuda-device");
	m.t.order = GPU_ORDER_PCI_BUS; /* the driver did not answer */
	assert_string_equal(one_skip(&m, "02.1"), "no-cuda-driver");
	m.t.cuda_loaded = 0;
	assert_string_equal(one_skip(&m, "02.1"), "no-cuda-driver");
	m.lab.built_with_cuda = 0;
	assert_string_equal(one_skip(&m, "02.1"), "not-built:no-nvcc");
	assert_null(one_skip(&m, "02.2")); /* a CPU claim of a CUDA lab: graded anywhere */
	json_free(m.lab.desc);
}

static void test_forecast_numa_root(void **state)
{
	struct machine m;

	(void)state;
	machine(&m, 0, cuda_lab, 2);
	assert_null(one_skip(&m, "02.3"));
	assert_null(one_skip(&m, "02.4"));
	m.si.numa.nmem_nodes = 1;
	m.si.uid = 1000;
	assert_string_equal(one_skip(&m, "02.3"), "single-numa-node");
	assert_string_equal(one_skip(&m, "02.4"), "not-root");
	assert_null(one_skip(&m, "02.2"));
	json_free(m.lab.desc);
}

static void test_forecast_gpu_place(void **state)
{
	const char *why[CLAIM_FORECAST_MAX];
	struct machine m;

	(void)state;
	machine(&m, 1, cpu_lab, 0);
	m.t.dev[0].numa_node = 0;
	assert_null(one_skip(&m, "04.5"));
	m.t.dev[0].numa_node = -1; /* typical in a VM */
	assert_string_equal(one_skip(&m, "04.5"), "unknown-topology");
	m.t.n = 0;
	m.si.numa.nmem_nodes = 1; /* both lacking: both said */
	assert_int_equal(claim_forecast(&m.si, &m.t, &m.lab, "04.5", why), 2);
	assert_string_equal(why[0], "no-cuda-device");
	assert_string_equal(why[1], "single-numa-node");
	assert_int_equal(claim_forecast(&m.si, &m.t, &m.lab, "04.9", why), -1);
	json_free(m.lab.desc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forecast_cuda),
		cmocka_unit_test(test_forecast_numa_root),
		cmocka_unit_test(test_forecast_gpu_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
