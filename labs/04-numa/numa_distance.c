/*
 * numa_distance.c - what lab-04 reads of the machine beside its remote
 * reads, without libnuma (see numa_place.h): the SLIT distances, from the
 * table numa_topo_read filled, and the pages NUMA balancing migrated
 * meanwhile.  Apart from numa_place.c, which needs libnuma: the fuzz
 * targets link this alone.
 */
#include <stdio.h>
#include <string.h>

#include "numa_place.h"

int numa_topo_distance(const struct numa_topo *t, int from, int to)
{
	int i;

	for (i = 0; t && to >= 0 && to < TOPO_MAX_NODES && i < t->nnodes; i++)
		if (t->node[i].id == from)
			return t->node[i].distance[to];
	return 0;
}

const char *numa_topo_distances(const struct numa_topo *t, char *buf, size_t len)
{
	size_t off = 0;
	int i, j, n;
	char one[32];

	buf[0] = '\0';
	for (i = 0; i < t->nnodes; i++) {
		for (j = -1; j < t->nnodes; j++) {
			if (j < 0)
				n = snprintf(one, sizeof(one), "%snode%d:", i ? "; " : "",
					     t->node[i].id);
			else
				n = snprintf(one, sizeof(one), " %d",
					     t->node[i].distance[t->node[j].id]);
			if (off + (size_t)n >= len)
				return buf;
			memcpy(buf + off, one, (size_t)n + 1);
			off += (size_t)n;
		}
	}
	return buf;
}

long long numa_pages_migrated(const char *vmstat_path)
{
	FILE *f = fopen(vmstat_path ? vmstat_path : "/proc/vmstat", "re");
	char key[64];
	long long v, n = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "numa_pages_migrated"))
			n = v;
	fclose(f);
	return n;
}
