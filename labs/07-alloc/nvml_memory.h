/*
 * nvml_memory.h - lab-07's reading of one GPU's memory as NVML reports it:
 * 07.2 compares what the GPU has in use before and after this process makes
 * its CUDA context, and NVML makes none.  Plain C (nvcc and gcc both take
 * it), tested by harness/tests/unit/test_nvml_memory.c without a GPU.
 */
#ifndef DMALAB_LAB07_NVML_MEMORY_H
#define DMALAB_LAB07_NVML_MEMORY_H

#include <stdint.h>

#include "gpu_topo.h" /* the lab finds its GPU's bus id with the scan */

#ifdef __cplusplus
extern "C" {
#endif

/* One GPU's memory as NVML reports it (nvmlMemory_t v1), bytes. */
struct gpu_nvml_memory {
	uint64_t total, free, used; /* used: by every process and the driver */
	int processes;  /* compute processes with a context on it; -1 unknown */
	char why[160];  /* on failure: what went wrong */
};

/*
 * Read NVML's memory figures and compute-process count of the GPU at PCI
 * bus id bus_id (any spelling gpu_topo_find takes).  NVML is loaded,
 * initialised and shut down within the call; it makes no CUDA context, so
 * a process can read its GPU's memory before and after making its own.
 * Returns 0, or -1 with m->why and errno EINVAL (NULL or a bad bus id),
 * ENOENT (no NVML), ENODEV (NVML lists no such GPU) or EIO (the query
 * failed).
 */
int gpu_nvml_memory(const char *bus_id, struct gpu_nvml_memory *m);

#ifdef __cplusplus
}
#endif
#endif
