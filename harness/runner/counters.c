/*
 * counters.c - the GPUs' error counters (PCIe replays, ECC, remapped rows,
 * AER) read before the first lab and after each one, so that what moved
 * during a lab is kept with that lab in results.json and named by compare as
 * a likely cause of its low figures (explain.c).  One NVML session for the
 * run: a reading costs microseconds, not an nvmlInit per lab.
 */
#include "runner.h"

static void read_all(struct run_state *rs, struct gpu_counters *c)
{
	const struct gpu_counter_ops *ops = rs->nvml.ctx ? &rs->nvml : NULL;

	for (int g = 0; g < rs->si.ngpus; g++) /* at most SYSINFO_MAX_GPUS */
		gpu_counters_read("/sys", rs->si.gpu[g].bdf, ops, &c[g]);
}

void counters_begin(struct run_state *rs)
{
	if (!rs->si.ngpus)
		return;
	gpu_counters_nvml_open(&rs->nvml); /* without NVML the AER counts alone */
	read_all(rs, rs->counters_last);
}

void counters_after_lab(struct run_state *rs, struct lab_entry *lab)
{
	struct gpu_counters now[SYSINFO_MAX_GPUS];

	read_all(rs, now);
	for (int g = 0; g < rs->si.ngpus; g++) {
		gpu_counters_moved(&rs->counters_last[g], &now[g], &lab->counters_moved[g]);
		rs->counters_last[g] = now[g];
	}
	lab->counters_read = rs->si.ngpus;
}

void counters_end(struct run_state *rs)
{
	if (rs->nvml.ctx)
		gpu_counters_nvml_close(&rs->nvml);
}

void counters_write(const struct lab_entry *lab, struct json_writer *w)
{
	char gpu[16];

	if (!lab->counters_read)
		return;
	jw_key(w, "counters_moved");
	jw_obj_begin(w);
	for (int g = 0; g < lab->counters_read; g++) {
		snprintf(gpu, sizeof(gpu), "%d", g);
		jw_key(w, gpu);
		jw_obj_begin(w);
		for (int i = 0; i < GPU_NCOUNTERS; i++)
			if (lab->counters_moved[g].v[i] >= 0)
				jw_kint(w, gpu_counter_names[i], lab->counters_moved[g].v[i]);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}
