/*
 * fake_libcuda.c - a made-up libcuda.so.1 for test-preflight.sh, loaded
 * through LD_LIBRARY_PATH, so that dmalab-preflight's GPU paths run on a
 * machine without a GPU.  It answers the driver-API queries gpu_topo.h's
 * gpu_cuda_list_read makes (cuInit, cuDeviceGetCount, cuDeviceGet,
 * cuDeviceGetPCIBusId, cuDeviceGetName, cuGetErrorName) and nothing else,
 * so the CUDA runtime in the GPU helper finds no usable driver and fails
 * its first call (the helper's failure path).
 *
 * Environment:
 *   FAKE_CUDA_BUS_IDS   the GPUs it lists, "0000:07:00.0,0000:41:00.0" ("" none)
 *   FAKE_CUDA_INIT      a CUresult for cuInit to return (default 0)
 *   FAKE_CUDA_HANG_HELPER=1  a process started with --role (the helper)
 *                       sleeps when it loads this library: a hung driver
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_IDS 16

static char ids[MAX_IDS][32];
static int nids;

/* 1 when this process's command line has the word --role. */
static int is_helper(void)
{
	char cmd[4096];
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n, i;

	if (!f)
		return 0;
	n = fread(cmd, 1, sizeof(cmd) - 1, f);
	fclose(f);
	cmd[n] = '\0';
	for (i = 0; i < n; i += strlen(cmd + i) + 1) {
		if (!strcmp(cmd + i, "--role"))
			return 1;
	}
	return 0;
}

__attribute__((constructor)) static void fake_load(void)
{
	const char *hang = getenv("FAKE_CUDA_HANG_HELPER");

	if (hang && !strcmp(hang, "1") && is_helper())
		for (;;)
			pause();
}

static void read_ids(void)
{
	const char *s = getenv("FAKE_CUDA_BUS_IDS");

	nids = 0;
	while (s && *s && nids < MAX_IDS) {
		size_t n = strcspn(s, ",");

		snprintf(ids[nids++], sizeof(ids[0]), "%.*s", (int)(n < 31 ? n : 31), s);
		s += n + (s[n] == ',');
	}
}

int cuInit(unsigned int flags)
{
	const char *rc = getenv("FAKE_CUDA_INIT");

	read_ids();
	return rc ? atoi(rc) : 0;
}

int cuDeviceGetCount(int *n)
{
	*n = nids;
	return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
	if (ordinal < 0 || ordinal >= nids)
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	*dev = ordinal;
	return 0;
}

int cuDeviceGetPCIBusId(char *buf, int len, int dev)
{
	if (dev < 0 || dev >= nids)
		return 101;
	snprintf(buf, (size_t)len, "%s", ids[dev]);
	return 0;
}

int cuDeviceGetName(char *buf, int len, int dev)
{
	snprintf(buf, (size_t)len, "Fake GPU %d", dev);
	return 0;
}

int cuGetErrorName(int e, const char **s)
{
	*s = e == 999 ? "CUDA_ERROR_UNKNOWN" : "CUDA_ERROR_FAKE";
	return 0;
}
