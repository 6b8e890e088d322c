/*
 * fuzz_sysinfo.c - sysinfo_collect_at on a fixture tree written from the
 * input (fuzz_util.h's records: sys/... and proc/... files), then the
 * machine object it writes (sysinfo_write_json) and its printout
 * (sysinfo_print); pci_bdf_normalise and pcie_rate_gbs on the input too.
 *
 * Checked: the machine object is valid JSON (json_parse reads it back),
 * whatever the tree's strings hold (host names, DMI, kernel release), and
 * its fixed-size strings are NUL-ended.
 */
#include "fuzz_util.h"
#include "json.h"
#include "sysinfo.h"

#define ENDED(s) (strnlen((s), sizeof(s)) < sizeof(s))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sysinfo si;
	const char *root = fuzz_tree(data, size);
	char sys[400], proc[400], err[256], bdf[32], *first;
	struct json_writer w;
	struct json *back;
	FILE *out;

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	sysinfo_collect_at(&si, sys, proc);
	if (!ENDED(si.kernel) || !ENDED(si.hostname) || !ENDED(si.thp) || !ENDED(si.virt) ||
	    si.ngpus < 0 || si.ngpus > SYSINFO_MAX_GPUS)
		abort();
	for (int i = 0; i < si.ngpus; i++)
		if (!ENDED(si.gpu[i].name) || !ENDED(si.gpu[i].bdf))
			abort();

	jw_init(&w, 1);
	sysinfo_write_json(&si, &w);
	if (w.failed)
		abort();
	back = json_parse(w.buf, w.len, err, sizeof(err));
	if (!back) {
		fprintf(stderr, "machine object does not parse: %s\n%.*s\n", err, (int)w.len,
			w.buf);
		abort();
	}
	json_free(back);
	jw_release(&w);

	out = fopen("/dev/null", "w");
	if (out) {
		sysinfo_print(&si, out);
		fclose(out);
	}

	first = fuzz_cstr(data, size < 64 ? size : 64);
	if (pci_bdf_normalise(first, bdf, sizeof(bdf)) == 0 && !ENDED(bdf))
		abort();
	pci_bdf_normalise(first, bdf, 8);
	free(first);
	for (int g = -1; g < 8; g++)
		for (int wd = -1; wd < 40; wd += 7)
			pcie_rate_gbs(g, wd);
	return 0;
}
