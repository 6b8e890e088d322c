/*
 * vmm.h (lab-06) - the CUDA virtual memory management (VMM) route to share
 * device memory between processes: cuMemCreate with a POSIX file
 * descriptor handle type, exported as an fd (which the lab passes on with
 * SCM_RIGHTS, proc.h), imported, mapped and opened for access there.
 *
 * Include after lab.h, inside `#if DMALAB_HAVE_CUDA` (nvcc only).
 * Header-only, like lab_cuda.h.  The program does not link libcuda (it must
 * start on a machine without a driver): the driver's entry points come from
 * the runtime (cudaGetDriverEntryPointByVersion), cudaTypedefs.h gives only
 * their types.  Nothing here stops the lab: each call returns the driver's
 * CUresult and names the failing call in v->step, since a route that does
 * not work is a finding.
 *
 * The exporter:  lab_vmm_exporter (fill v->va), lab_vmm_export, pass v->fd
 *                on, lab_vmm_release.
 * The importer:  lab_vmm_importer(fd), use v->va, lab_vmm_release.
 * Each returns LAB_VMM_OK, LAB_VMM_UNSUPPORTED (this device or driver
 * cannot: a skip) or LAB_VMM_FAILED, with the failing call and its error in
 * v->step and v->err, and a line in v->why.
 */
#ifndef DMALAB_LAB_VMM_CUDA_H
#define DMALAB_LAB_VMM_CUDA_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include "lab.h"

/* The driver ABI these typedefs describe; any driver that runs CUDA 13 has it. */
#define LAB_VMM_ABI_VERSION 12000

struct lab_vmm_api {
	PFN_cuGetErrorName_v6000 err_name;
	PFN_cuDeviceGet_v2000 dev_get;
	PFN_cuDeviceGetAttribute_v2000 dev_attr;
	PFN_cuMemGetAllocationGranularity_v10020 granularity;
	PFN_cuMemCreate_v10020 create;
	PFN_cuMemRelease_v10020 release;
	PFN_cuMemExportToShareableHandle_v10020 export_fd;
	PFN_cuMemImportFromShareableHandle_v10020 import_fd;
	PFN_cuMemAddressReserve_v10020 reserve;
	PFN_cuMemAddressFree_v10020 addr_free;
	PFN_cuMemMap_v10020 map;
	PFN_cuMemUnmap_v10020 unmap;
	PFN_cuMemSetAccess_v10020 set_access;
};

#define LAB_VMM_OK 0
#define LAB_VMM_UNSUPPORTED 1 /* no VMM or no POSIX fd handles here */
#define LAB_VMM_FAILED 2

/* One shared allocation, on either side.  Fields are read by callers. */
struct lab_vmm {
	struct lab_vmm_api api;
	int loaded;                     /* 1 once every entry point is there */
	CUmemGenericAllocationHandle h; /* 0: none */
	CUdeviceptr va;                 /* 0: not mapped */
	size_t bytes;                   /* mapped (the exporter: rounded up) */
	int fd;                         /* the exporter's fd until released; -1 */
	const char *step;               /* the call that failed, or "none" */
	char err[32];                   /* its CUresult's name; "none" unloaded */
	char why[200];                  /* what stopped the route, one line */
};

static inline int lab_vmm_sym_(struct lab_vmm *v, const char *name, void **fn)
{
	enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	cudaError_t e;

	*fn = NULL;
#if CUDART_VERSION >= 12050
	e = cudaGetDriverEntryPointByVersion(name, fn, LAB_VMM_ABI_VERSION, cudaEnableDefault, &q);
#else
	e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
	if (e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn)
		return 0;
	(void)cudaGetLastError();
	snprintf(v->why, sizeof(v->why), "driver entry point %s: %s, query result %d", name,
		 cudaGetErrorName(e), (int)q);
	return -1;
}

#define LAB_VMM_SYM_(v, field, name) lab_vmm_sym_((v), name, (void **)&(v)->api.field)

/*
 * Clear v (nothing held, fd -1, step "none") and load every entry point.
 * 0, or -1 with v->why ("driver entry point cuMemCreate: ...") and step
 * "load-entry-points".
 */
static inline int lab_vmm_load(struct lab_vmm *v)
{
	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->step = "none";
	if (LAB_VMM_SYM_(v, err_name, "cuGetErrorName") ||
	    LAB_VMM_SYM_(v, dev_get, "cuDeviceGet") ||
	    LAB_VMM_SYM_(v, dev_attr, "cuDeviceGetAttribute") ||
	    LAB_VMM_SYM_(v, granularity, "cuMemGetAllocationGranularity") ||
	    LAB_VMM_SYM_(v, create, "cuMemCreate") || LAB_VMM_SYM_(v, release, "cuMemRelease") ||
	    LAB_VMM_SYM_(v, export_fd, "cuMemExportToShareableHandle") ||
	    LAB_VMM_SYM_(v, import_fd, "cuMemImportFromShareableHandle") ||
	    LAB_VMM_SYM_(v, reserve, "cuMemAddressReserve") ||
	    LAB_VMM_SYM_(v, addr_free, "cuMemAddressFree") || LAB_VMM_SYM_(v, map, "cuMemMap") ||
	    LAB_VMM_SYM_(v, unmap, "cuMemUnmap") || LAB_VMM_SYM_(v, set_access, "cuMemSetAccess")) {
		v->step = "load-entry-points";
		return -1;
	}
	v->loaded = 1;
	return 0;
}

/* The name of r ("CUDA_ERROR_NOT_SUPPORTED"; buf: 32 bytes, for a code
 * without one: "CUresult_N"), or "none" when the entry points are not loaded. */
static inline const char *lab_vmm_err_name(const struct lab_vmm *v, CUresult r, char *buf,
					   size_t len)
{
	const char *s = NULL;

	if (!v->loaded)
		return "none";
	if (v->api.err_name(r, &s) == CUDA_SUCCESS && s)
		return s;
	snprintf(buf, len, "CUresult_%d", (int)r);
	return buf;
}

/*
 * 1 when device dev (an ordinal) reports both VMM and POSIX fd handles, else
 * 0 with v->why: "cuDeviceGetAttribute failed" or "device 0: VMM supported
 * 1, POSIX fd handles supported 0".  After lab_vmm_load.
 */
static inline int lab_vmm_fd_supported(struct lab_vmm *v, int dev)
{
	int vmm = 0, fds = 0;
	CUdevice d;

	if (v->api.dev_get(&d, dev) != CUDA_SUCCESS ||
	    v->api.dev_attr(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d) ||
	    v->api.dev_attr(&fds, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
			    d))
		snprintf(v->why, sizeof(v->why), "cuDeviceGetAttribute failed");
	else if (!vmm || !fds)
		snprintf(v->why, sizeof(v->why), "device %d: VMM supported %d, POSIX fd "
			 "handles supported %d", dev, vmm, fds);
	else
		return 1;
	return 0;
}

/* Reserve a range of v->bytes and map v->h there (cuMemAddressReserve,
 * cuMemMap; the range is freed again if the map fails). */
static inline CUresult lab_vmm_map_(struct lab_vmm *v)
{
	CUresult r;

	v->step = "cuMemAddressReserve";
	r = v->api.reserve(&v->va, v->bytes, 0, 0, 0);
	if (r != CUDA_SUCCESS) {
		v->va = 0;
		return r;
	}
	v->step = "cuMemMap";
	r = v->api.map(v->va, v->bytes, 0, v->h, 0);
	if (r != CUDA_SUCCESS) {
		v->api.addr_free(v->va, v->bytes);
		v->va = 0;
	}
	return r;
}

/* cuMemSetAccess: read and write for device dev over the mapped range. */
static inline CUresult lab_vmm_grant_(struct lab_vmm *v, int dev)
{
	CUmemAccessDesc acc;

	memset(&acc, 0, sizeof(acc));
	acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	acc.location.id = dev;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	v->step = "cuMemSetAccess";
	return v->api.set_access(v->va, v->bytes, &acc, 1);
}

/*
 * The exporter: at least `bytes` of device memory on dev (rounded up to the
 * minimum granularity, into v->bytes), pinned, shareable as a POSIX fd
 * (cuMemGetAllocationGranularity, cuMemCreate), mapped at v->va with read
 * and write access for dev.  CUDA_SUCCESS (step "none"), or the first
 * failing call's result, named in v->step; what was made stays in v for
 * lab_vmm_release.  After lab_vmm_load.
 */
static inline CUresult lab_vmm_create(struct lab_vmm *v, int dev, size_t bytes)
{
	CUmemAllocationProp prop;
	size_t gran = 0;
	CUresult r;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	v->step = "cuMemGetAllocationGranularity";
	r = v->api.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	if (r == CUDA_SUCCESS && !gran)
		r = CUDA_ERROR_UNKNOWN;
	if (r != CUDA_SUCCESS)
		return r;
	v->bytes = (bytes + gran - 1) / gran * gran;
	v->step = "cuMemCreate";
	r = v->api.create(&v->h, v->bytes, &prop, 0);
	if (r != CUDA_SUCCESS) {
		v->h = 0;
		return r;
	}
	r = lab_vmm_map_(v);
	if (r == CUDA_SUCCESS)
		r = lab_vmm_grant_(v, dev);
	if (r == CUDA_SUCCESS)
		v->step = "none";
	return r;
}

/* The exporter: the allocation as a POSIX fd into v->fd
 * (cuMemExportToShareableHandle); on failure v->fd stays -1. */
static inline CUresult lab_vmm_export(struct lab_vmm *v)
{
	CUresult r = v->api.export_fd(&v->fd, v->h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);

	if (r != CUDA_SUCCESS) {
		v->fd = -1;
		v->step = "cuMemExportToShareableHandle";
	}
	return r;
}

/*
 * The importer: the allocation behind fd (cuMemImportFromShareableHandle;
 * fd stays the caller's to close), `bytes` of it mapped at v->va, then,
 * when grant is nonzero, read and write access for the current device
 * (cudaGetDevice, cuMemSetAccess).  grant 0 leaves the mapping without
 * access (a sabotage: every use of it must fault).  CUDA_SUCCESS (step
 * "none") or the first failing call's result, named in v->step.
 */
static inline CUresult lab_vmm_import(struct lab_vmm *v, int fd, size_t bytes, int grant)
{
	CUresult r;
	int dev = 0;

	v->step = "cuMemImportFromShareableHandle";
	r = v->api.import_fd(&v->h, (void *)(uintptr_t)fd,
			     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (r != CUDA_SUCCESS) {
		v->h = 0;
		return r;
	}
	v->bytes = bytes;
	r = lab_vmm_map_(v);
	if (r != CUDA_SUCCESS)
		return r;
	cudaGetDevice(&dev);
	if (grant)
		r = lab_vmm_grant_(v, dev);
	if (r == CUDA_SUCCESS)
		v->step = "none";
	return r;
}

/* r into v->err, and the status it means (CUDA_ERROR_NOT_SUPPORTED:
 * unsupported), with "STEP: ERR" in v->why when it failed. */
static inline int lab_vmm_status_(struct lab_vmm *v, CUresult r)
{
	char nb[32];

	snprintf(v->err, sizeof(v->err), "%s", lab_vmm_err_name(v, r, nb, sizeof(nb)));
	if (r == CUDA_SUCCESS)
		return LAB_VMM_OK;
	snprintf(v->why, sizeof(v->why), "%s: %s", v->step, v->err);
	return r == CUDA_ERROR_NOT_SUPPORTED ? LAB_VMM_UNSUPPORTED : LAB_VMM_FAILED;
}

/*
 * The exporter, up to the fill: load the entry points, check that device
 * dev (an ordinal) shares VMM memory as POSIX fds, then lab_vmm_create.  A
 * driver without the entry points, or a device without VMM or fd handles,
 * is LAB_VMM_UNSUPPORTED, with why.
 */
static inline int lab_vmm_exporter(struct lab_vmm *v, int dev, size_t bytes)
{
	if (lab_vmm_load(v) < 0 || !lab_vmm_fd_supported(v, dev))
		return LAB_VMM_UNSUPPORTED;
	return lab_vmm_status_(v, lab_vmm_create(v, dev, bytes));
}

/* The exporter: lab_vmm_export as a status. */
static inline int lab_vmm_export_fd(struct lab_vmm *v)
{
	return lab_vmm_status_(v, lab_vmm_export(v));
}

/*
 * The importer, all of it: load the entry points (failing: step
 * "load-entry-points", err "none"), check that an fd came (fd < 0: step
 * "receive-fd"), then lab_vmm_import(fd, bytes, grant).  A status; v->step
 * and v->err name the failing call ("none" and "CUDA_SUCCESS" when none).
 */
static inline int lab_vmm_importer(struct lab_vmm *v, int fd, size_t bytes, int grant)
{
	if (lab_vmm_load(v) < 0) {
		lab_vmm_status_(v, CUDA_SUCCESS); /* err "none" */
		return LAB_VMM_UNSUPPORTED;
	}
	if (fd < 0) {
		lab_vmm_status_(v, CUDA_SUCCESS);
		v->step = "receive-fd";
		snprintf(v->why, sizeof(v->why), "no descriptor came with the message");
		return LAB_VMM_FAILED;
	}
	return lab_vmm_status_(v, lab_vmm_import(v, fd, bytes, grant));
}

/* Give back what v holds, unchecked: close the exporter's fd, unmap and
 * free the range (cuMemUnmap, cuMemAddressFree), release the handle. */
static inline void lab_vmm_release(struct lab_vmm *v)
{
	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
	if (v->va) {
		v->api.unmap(v->va, v->bytes);
		v->api.addr_free(v->va, v->bytes);
	}
	if (v->h)
		v->api.release(v->h);
	v->va = 0;
	v->h = 0;
}

#endif /* DMALAB_LAB_VMM_CUDA_H */
