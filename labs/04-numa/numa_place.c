/*
 * numa_place.c - memory and threads placed on a NUMA node (numa_topo.h, the
 * live half): libnuma, mbind, move_pages, a worker thread bound to a node.
 * The lab runtime's; the topology readers the runner links are numa_topo.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <unistd.h>

#include "buffer.h"
#include "lab.h"
#include "numa_place.h"

int numa_mem_nodes(const struct numa_topo *t, int *nodes, int max)
{
	int id, i, n = 0, top = numa_max_node();

	for (id = 0; id <= top && id < TOPO_MAX_NODES && n < max; id++) {
		int in_sysfs = !t;

		for (i = 0; t && i < t->nnodes; i++)
			in_sysfs |= t->node[i].id == id && t->node[i].mem_total > 0;
		if (in_sysfs && numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)id) &&
		    numa_node_size64(id, NULL) > 0)
			nodes[n++] = id;
	}
	return n;
}

int numa_node_first_cpu(int node)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	int cpu, found = -1;

	if (numa_node_to_cpus(node, cpus) == 0)
		for (cpu = 0; cpu < (int)cpus->size && found < 0; cpu++)
			if (numa_bitmask_isbitset(cpus, (unsigned)cpu) &&
			    numa_bitmask_isbitset(numa_all_cpus_ptr, (unsigned)cpu))
				found = cpu;
	numa_free_cpumask(cpus);
	return found;
}

int numa_run_on_first(const int *nodes, int n)
{
	int i;

	errno = EINVAL;
	for (i = 0; i < n; i++)
		if (numa_run_on_node(nodes[i]) == 0)
			return i;
	return -1;
}

int numa_node_short_of(const int *nodes, int n, uint64_t need, uint64_t *free_bytes)
{
	long long have;
	int i;

	for (i = 0; i < n; i++) {
		have = 0;
		numa_node_size64(nodes[i], &have);
		if (have < 0 || (uint64_t)have < need) {
			if (free_bytes)
				*free_bytes = have < 0 ? 0 : (uint64_t)have;
			return i;
		}
	}
	return -1;
}

#define PLACEMENT_CHUNK 4096 /* pages per move_pages() call */

long numa_pages_off_node(const void *buf, uint64_t bytes, int node, long *npages)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), total = bytes / page, done, i;
	void *pages[PLACEMENT_CHUNK];
	int status[PLACEMENT_CHUNK];
	long off = 0;

	if (npages)
		*npages = (long)total;
	if (!buf || !total) {
		errno = EINVAL;
		return -1;
	}
	for (done = 0; done < total; done += i) {
		unsigned long n = total - done < PLACEMENT_CHUNK ? (unsigned long)(total - done) :
				  PLACEMENT_CHUNK;

		for (i = 0; i < n; i++)
			pages[i] = (char *)buf + (done + i) * page;
		if (move_pages(0, n, pages, NULL, status, 0))
			return -1;
		for (i = 0; i < n; i++)
			off += status[i] != node; /* -ENOENT: not faulted in */
	}
	return off;
}

/* One node as the mask of mbind and set_mempolicy: maxnode counts bits + 1. */
#define NODE_MASK_LONGS ((TOPO_MAX_NODES + 63) / 64)
static int node_mask(int node, unsigned long *mask)
{
	memset(mask, 0, NODE_MASK_LONGS * sizeof(*mask));
	if (node < 0 || node >= TOPO_MAX_NODES) {
		errno = EINVAL;
		return -1;
	}
	mask[node / 64] = 1UL << (node % 64);
	return 0;
}

void *numa_map_on_node(uint64_t bytes, int node, unsigned flags, long *off)
{
	unsigned long mask[NODE_MASK_LONGS];
	long n = 0;
	void *p;
	int e;

	if (off)
		*off = 0;
	if (node_mask(node, mask))
		return NULL;
	p = buf_map(bytes, 0, flags & (BUF_HUGE | BUF_NOHUGE), NULL);
	if (!p)
		return NULL;
	if (mbind(p, (unsigned long)bytes, MPOL_BIND, mask, TOPO_MAX_NODES + 1, 0) == 0) {
		buf_touch(p, bytes); /* the policy places the pages, whichever thread faults */
		n = numa_pages_off_node(p, bytes, node, NULL);
		if (n == 0)
			return p;
		if (n > 0) {
			if (off)
				*off = n;
			errno = EXDEV;
		}
	}
	e = errno;
	buf_free(p);
	errno = e;
	return NULL;
}

void *numa_map_on_node_or_die(struct lab *L, uint64_t bytes, int node, unsigned flags)
{
	long off;
	void *p = numa_map_on_node(bytes, node, flags, &off);
	char sz[32];

	if (!p && off)
		lab_error(L, "memory bound to node %d: %ld of %llu pages are elsewhere", node, off,
			  (unsigned long long)(bytes / (uint64_t)sysconf(_SC_PAGESIZE)));
	if (!p)
		lab_error_errno(L, "%s bound to node %d", lab_fmt_size(bytes, sz, sizeof(sz)),
				node);
	return p;
}

struct worker {
	int cpu_node, mem_node;
	void (*fn)(void *arg);
	void *arg;
	const char *failed;
	int err;
};

static void *worker_main(void *arg)
{
	struct worker *w = (struct worker *)arg;
	unsigned long mask[NODE_MASK_LONGS];

	if (w->cpu_node >= 0 && numa_run_on_node(w->cpu_node))
		w->failed = "numa_run_on_node";
	else if (w->mem_node >= 0 && (node_mask(w->mem_node, mask) ||
				      set_mempolicy(MPOL_BIND, mask, TOPO_MAX_NODES + 1)))
		w->failed = "set_mempolicy";
	else
		w->fn(w->arg);
	w->err = w->failed ? (errno ? errno : EINVAL) : 0;
	return NULL;
}

int numa_run_worker(int cpu_node, int mem_node, void (*fn)(void *arg), void *arg,
		    const char **failed)
{
	struct worker w = { cpu_node, mem_node, fn, arg, NULL, 0 };
	pthread_t tid;
	int rc = pthread_create(&tid, NULL, worker_main, &w);

	if (rc) {
		w.failed = "pthread_create";
		w.err = rc;
	} else {
		pthread_join(tid, NULL);
	}
	if (failed)
		*failed = w.failed;
	return w.err;
}

