/*
 * numa_topo.h - NUMA topology from sysfs below a root ("/sys"; tests: a
 * fixture tree): devices/system/node/node<N>/{cpulist,distance,meminfo}
 * and bus/pci/devices/<bdf>/numa_node.
 */
#ifndef DMALAB_NUMA_TOPO_H
#define DMALAB_NUMA_TOPO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif


#define TOPO_MAX_NODES 64
#define TOPO_MAX_CPUS 4096

struct numa_node_info {
	int id;                  /* node number */
	int ncpus;               /* CPUs listed in cpulist */
	int first_cpu;           /* lowest CPU number, -1 if none */
	char cpulist[256];       /* as in sysfs, e.g. "0-15" */
	uint64_t mem_total;      /* bytes, from node<N>/meminfo MemTotal; 0 unknown */
	int distance[TOPO_MAX_NODES]; /* SLIT distances to node i (10 = local) */
};

struct numa_topo {
	int nnodes;          /* nodes present (with or without memory) */
	int nmem_nodes;      /* nodes with memory */
	struct numa_node_info node[TOPO_MAX_NODES];
};

/* Read the topology under sysfs_root.  0, or -1 with errno. */
int numa_topo_read(const char *sysfs_root, struct numa_topo *t);
/* Parse a cpulist "0-3,8,10-11" -> count of CPUs and the lowest; -1 on garbage. */
int cpulist_parse(const char *s, int *count, int *first);
/* 1 if cpu is in the cpulist string. */
int cpulist_contains(const char *s, int cpu);
/* NUMA node of a PCI device from sysfs: -1 when sysfs says unknown (typical in
 * VMs), -2 when the file is missing. */
int pci_numa_node(const char *sysfs_root, const char *bdf);

#ifdef __cplusplus
}
#endif
#endif
