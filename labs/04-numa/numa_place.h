/*
 * numa_place.h - placing memory and threads on NUMA nodes (libnuma): the
 * lab layer's half of NUMA; numa_topo.h reads the machine.
 */
#ifndef DMALAB_NUMA_PLACE_H
#define DMALAB_NUMA_PLACE_H

#include <stdint.h>

#include "lab.h"
#include "numa_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The memory nodes this process can allocate on: set in libnuma's
 * numa_all_nodes_ptr with memory (numa_node_size64 > 0) and, when t is
 * not NULL, listed by t with a MemTotal (sysfs and libnuma both agree).
 * Ascending, at most max of them into nodes[]; returns how many.
 */
int numa_mem_nodes(const struct numa_topo *t, int *nodes, int max);
/* The lowest CPU of `node` this process may run on, or -1 (none there). */
int numa_node_first_cpu(int node);
/*
 * Bind the calling thread's CPUs to the first of nodes[0..n) that takes
 * it (numa_run_on_node: a node with a CPU this process may use).  Returns
 * that node's index in nodes[], or -1 with errno when none does.
 */
int numa_run_on_first(const int *nodes, int n);
/*
 * The index of the first of nodes[0..n) with less than `need` bytes free
 * (numa_node_size64), or -1 when all have enough; *free_bytes (may be
 * NULL) gets that node's free bytes.
 */
int numa_node_short_of(const int *nodes, int n, uint64_t need, uint64_t *free_bytes);

/*
 * The pages of [buf, buf + bytes) that are not on `node`, asked of
 * move_pages(2) for every page (nothing is moved).  A page not yet faulted
 * in counts as off the node.  *npages (may be NULL) gets the pages in the
 * range (bytes / page size).  Returns the count, or -1 with errno: EINVAL
 * for less than one page, or move_pages's.
 */
long numa_pages_off_node(const void *buf, uint64_t bytes, int node, long *npages);

/*
 * `bytes` of anonymous memory bound to `node` (mbind MPOL_BIND: no other
 * node is allowed), then first-touched by buf_touch (zeroed; the policy
 * holds whichever thread faults a page), so every page is faulted in now,
 * and every page checked with numa_pages_off_node.  flags:
 * BUF_HUGE or BUF_NOHUGE (buffer.h), a hint as in buf_map.  Returns the
 * buffer (tracked: buf_free() it), or NULL with errno: EINVAL for a node
 * outside [0, TOPO_MAX_NODES), buf_map's, mbind's, move_pages's, or EXDEV
 * when pages are on another node all the same (*off gets how many; may be
 * NULL; 0 otherwise).
 */
void *numa_map_on_node(uint64_t bytes, int node, unsigned flags, long *off);
/* numa_map_on_node, or lab_error() saying which step failed. */
void *numa_map_on_node_or_die(struct lab *L, uint64_t bytes, int node, unsigned flags);

/*
 * Run fn(arg) in a new thread and wait for it.  Before fn the thread binds
 * its CPUs to node cpu_node (numa_run_on_node; -1: it keeps this thread's)
 * and its memory policy to mem_node (set_mempolicy MPOL_BIND, for that
 * thread only; -1: the default, first touch).  fn may move the thread on
 * with numa_run_on_node.  Returns 0, or an error number with *failed (may
 * be NULL) naming the call: "pthread_create", "numa_run_on_node",
 * "set_mempolicy"; fn has not run then.
 */
int numa_run_worker(int cpu_node, int mem_node, void (*fn)(void *arg), void *arg,
		    const char **failed);

/* The distances the lab reports, from numa_topo's table (numa_distance.c). */
/* SLIT distance from node id `from` to node id `to`; 0 when unknown. */
int numa_topo_distance(const struct numa_topo *t, int from, int to);
/*
 * The distance table in one line, "node0: 10 21; node1: 21 10" (rows in
 * t's node order), into buf; "" for no nodes.  Truncated to len - 1
 * characters at a whole number.  Returns buf.
 */
const char *numa_topo_distances(const struct numa_topo *t, char *buf, size_t len);

/* Pages NUMA balancing has migrated since boot (vmstat_path; NULL:
 * /proc/vmstat); 0 when it is not there (numa_distance.c). */
long long numa_pages_migrated(const char *vmstat_path);

#ifdef __cplusplus
}
#endif
#endif
