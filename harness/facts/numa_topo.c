/*
 * numa_topo.c - NUMA topology from a sysfs tree (numa_topo.h).  Node numbers
 * need not be contiguous: node[] holds the present nodes in ascending id
 * order, and distance[] is indexed by node id.  Readers only: placing
 * memory is lab-04's (labs/04-numa/numa_place.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numa_topo.h"
#include "procfs.h"
#include "sysfs.h"

#define NODE_DIR "devices/system/node"

/* Parse a non-negative decimal at *sp into *v, advancing *sp; -1 if none. */
static int parse_uint(const char **sp, long *v)
{
	char *end;

	if (!isdigit((unsigned char)**sp))
		return -1;
	errno = 0;
	*v = strtol(*sp, &end, 10);
	if (errno || *v >= TOPO_MAX_CPUS)
		return -1;
	*sp = end;
	return 0;
}

struct cpu_set_bits {
	unsigned char bit[TOPO_MAX_CPUS / 8];
};

static void mark_range(struct cpu_set_bits *set, long lo, long hi)
{
	for (; lo <= hi; lo++)
		set->bit[lo / 8] |= (unsigned char)(1u << (lo % 8));
}

/*
 * The set a list like "0-3,8,10-11" names (sysfs cpulist and node list
 * format); an empty list names none.  -1 with errno = EINVAL, and the set
 * empty, on garbage, a reversed range or a number >= TOPO_MAX_CPUS.
 */
static int list_set(const char *s, struct cpu_set_bits *set)
{
	long lo, hi;

	memset(set, 0, sizeof(*set));
	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s)) {
		if (parse_uint(&s, &lo))
			goto bad;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_uint(&s, &hi) || hi < lo)
				goto bad;
		}
		mark_range(set, lo, hi);
		if (*s == ',' && isdigit((unsigned char)s[1]))
			s++;
		else if (*s && !isspace((unsigned char)*s))
			goto bad;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return 0;
bad:
	memset(set, 0, sizeof(*set));
	errno = EINVAL;
	return -1;
}

static int set_has(const struct cpu_set_bits *set, int cpu)
{
	return (set->bit[cpu / 8] >> (cpu % 8)) & 1;
}

int cpulist_parse(const char *s, int *count, int *first)
{
	struct cpu_set_bits set;
	int n = 0, lowest = -1;

	if (!s || list_set(s, &set)) {
		errno = EINVAL;
		return -1;
	}
	/* Count set bits, so overlapping ranges are not counted twice. */
	for (int cpu = 0; cpu < TOPO_MAX_CPUS; cpu++) {
		if (!set_has(&set, cpu))
			continue;
		if (lowest < 0)
			lowest = cpu;
		n++;
	}
	if (count)
		*count = n;
	if (first)
		*first = lowest;
	return 0;
}

int cpulist_contains(const char *s, int cpu)
{
	struct cpu_set_bits set;

	if (!s || cpu < 0 || cpu >= TOPO_MAX_CPUS)
		return 0;
	if (list_set(s, &set))
		return 0;
	return set_has(&set, cpu);
}

/* Node ids of a node list ("0-1") as a set; -1 if missing or garbage. */
static int read_node_set(const char *root, const char *name,
			 struct cpu_set_bits *set)
{
	char path[PATH_MAX], buf[1024];

	memset(set, 0, sizeof(*set));
	snprintf(path, sizeof(path), "%s/" NODE_DIR "/%s", root, name);
	if (sysfs_read_str(path, buf, sizeof(buf)))
		return -1;
	return list_set(buf, set);
}

/* Fallback when "online" is missing: every node<N> directory. */
static int list_node_dirs(const char *root, struct cpu_set_bits *set)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	memset(set, 0, sizeof(*set));
	snprintf(path, sizeof(path), "%s/" NODE_DIR, root);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		const char *p = de->d_name + 4;
		long id;

		if (strncmp(de->d_name, "node", 4) || parse_uint(&p, &id) || *p)
			continue;
		if (id < TOPO_MAX_NODES)
			mark_range(set, id, id);
	}
	closedir(d);
	return 0;
}

/* MemTotal of "Node 0 MemTotal:  65536000 kB" in node<N>/meminfo, bytes. */
static uint64_t read_node_mem_total(const char *root, int id)
{
	char path[PATH_MAX], line[256];
	unsigned long long kb;
	uint64_t bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" NODE_DIR "/node%d/meminfo", root, id);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *key = strstr(line, "MemTotal:");

		if (key && sscanf(key + strlen("MemTotal:"), "%llu", &kb) == 1) {
			bytes = (uint64_t)kb * 1024;
			break;
		}
	}
	fclose(f);
	return bytes;
}

/* The distance file lists one value per online node, in id order. */
static void read_node_distances(const char *root, struct numa_node_info *n,
				const struct cpu_set_bits *online)
{
	char path[PATH_MAX], buf[1024];
	const char *s = buf;

	snprintf(path, sizeof(path), "%s/" NODE_DIR "/node%d/distance", root, n->id);
	if (sysfs_read_str(path, buf, sizeof(buf)))
		return;
	for (int to = 0; to < TOPO_MAX_NODES; to++) {
		char *end;
		long d;

		if (!set_has(online, to))
			continue;
		d = strtol(s, &end, 10);
		if (end == s)
			return;
		n->distance[to] = (int)d;
		s = end;
	}
}

static void read_node(const char *root, struct numa_node_info *n,
		      const struct cpu_set_bits *online)
{
	char path[PATH_MAX];

	n->first_cpu = -1;
	snprintf(path, sizeof(path), "%s/" NODE_DIR "/node%d/cpulist", root, n->id);
	if (sysfs_read_str(path, n->cpulist, sizeof(n->cpulist)) ||
	    cpulist_parse(n->cpulist, &n->ncpus, &n->first_cpu)) {
		n->cpulist[0] = '\0';
		n->ncpus = 0;
		n->first_cpu = -1;
	}
	n->mem_total = read_node_mem_total(root, n->id);
	read_node_distances(root, n, online);
}

int numa_topo_read(const char *sysfs_root, struct numa_topo *t)
{
	struct cpu_set_bits online, has_mem;
	int id, have_mem_list;

	memset(t, 0, sizeof(*t));
	if (read_node_set(sysfs_root, "online", &online) &&
	    list_node_dirs(sysfs_root, &online))
		return -1; /* errno from opendir: ENOENT for a missing tree */
	have_mem_list = !read_node_set(sysfs_root, "has_memory", &has_mem);
	for (id = 0; id < TOPO_MAX_NODES; id++) {
		struct numa_node_info *n = &t->node[t->nnodes];

		if (!set_has(&online, id))
			continue;
		n->id = id;
		read_node(sysfs_root, n, &online);
		t->nnodes++;
	}
	for (int i = 0; i < t->nnodes; i++) {
		id = t->node[i].id;
		if (have_mem_list ? set_has(&has_mem, id) : t->node[i].mem_total > 0)
			t->nmem_nodes++;
	}
	return 0;
}

int pci_numa_node(const char *sysfs_root, const char *bdf)
{
	char path[PATH_MAX];
	long v;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node",
		 sysfs_root, bdf);
	if (sysfs_read_long(path, &v) || v < -1 || v >= TOPO_MAX_NODES)
		return -2; /* unreadable: as good as missing */
	return (int)v;
}
