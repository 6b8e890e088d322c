/*
 * fuzz_numa_topo.c - the NUMA topology reader (numa_topo_read) on a sysfs
 * tree written from the input (fuzz_util.h's records under sys/), the
 * distance table it prints at several buffer sizes, pci_numa_node for every
 * device directory of the tree, and cpulist_parse / cpulist_contains on
 * every line of the input.
 *
 * Checked: at most TOPO_MAX_NODES nodes in ascending id order, no more
 * memory nodes than nodes, NUL-ended cpulists and distance text inside
 * their buffers, and a parsed cpulist contains its first CPU.
 */
#include <dirent.h>

#include "fuzz_util.h"
#include "../../../labs/04-numa/numa_place.h" /* numa_topo.h, and the distances */

static void lists(const char *s)
{
	int count = -7, first = -7;

	if (cpulist_parse(s, &count, &first) < 0)
		return;
	if (count < 0 || count > TOPO_MAX_CPUS || (count == 0) != (first == -1))
		abort();
	if (count > 0 && !cpulist_contains(s, first))
		abort();
	cpulist_contains(s, -1);
	cpulist_contains(s, TOPO_MAX_CPUS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct numa_topo t;
	static const size_t lens[] = { 1, 5, 12, 64, 4096 };
	const char *root = fuzz_tree(data, size);
	char sys[400], dir[480], buf[4096], *text, *line;
	DIR *d;

	snprintf(sys, sizeof(sys), "%s/sys", root);
	if (numa_topo_read(sys, &t) == 0) {
		if (t.nnodes < 0 || t.nnodes > TOPO_MAX_NODES || t.nmem_nodes > t.nnodes)
			abort();
		for (int i = 0; i < t.nnodes; i++) {
			if (t.node[i].id < 0 || t.node[i].id >= TOPO_MAX_NODES ||
			    (i && t.node[i].id <= t.node[i - 1].id) ||
			    strnlen(t.node[i].cpulist, sizeof(t.node[i].cpulist)) ==
				    sizeof(t.node[i].cpulist))
				abort();
			for (int j = 0; j < t.nnodes; j++)
				numa_topo_distance(&t, t.node[i].id, t.node[j].id);
		}
		numa_topo_distance(&t, 0, -1);
		numa_topo_distance(&t, 0, TOPO_MAX_NODES);
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			memset(buf, 'x', sizeof(buf));
			numa_topo_distances(&t, buf, lens[i]);
			if (strnlen(buf, lens[i]) == lens[i])
				abort();
		}
	}
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", sys);
	if ((d = opendir(dir))) {
		struct dirent *de;

		while ((de = readdir(d)))
			pci_numa_node(sys, de->d_name);
		closedir(d);
	}
	pci_numa_node(sys, "0000:00:00.0");

	text = fuzz_cstr(data, size);
	for (line = text; line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		lists(line);
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return 0;
}
