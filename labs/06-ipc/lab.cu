/*
 * lab-06: CUDA IPC handles - can two processes share GPU memory, what does
 * opening a shared buffer cost, and what happens when the exporter dies?
 *
 * This process is the exporter and the conductor.  It starts four helpers,
 * itself again with --role (helper.h: posix_spawn, never a bare fork() once
 * CUDA is up), at once so that their contexts are made in parallel, then
 * runs one phase at a time: the importer (06.3 open time, 06.2 read/write
 * through the opened handle, 06.6 the VMM route), the crash exporter and
 * importer (06.5: the lab SIGKILLs the first while the second holds its
 * memory), last the probe (06.1: the lab's raw pointer value; a fault there
 * is sticky).  06.4 needs no second process.  A helper's CUDA errors are
 * findings, sent in its messages (one JSON line each); a helper that breaks
 * stops the lab.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"
#include "lab.h"
#include "need.h"
#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"
#include "vmm.h"
#endif

/*
 * What `make selftest` breaks, one field per mechanism a claim is about.  The
 * sabotage build sets every field to its broken value before run(), or only
 * the fields of the claims it is asked to break (labs/README.md, section 6).
 * The helpers are this program again and inherit the choice, so the
 * importer and the probe read the same K.
 */
static struct knobs {
	int probe_uses_raw_pointer;  /* 06.1: the probe reads through the exporter's number */
	int importer_uses_handle;    /* 06.2: the importer reads through the opened handle */
	int copy_out_after_open;     /* 06.3: each timed open also copies the buffer out */
	int vmm_set_access;          /* 06.6: the VMM importer calls cuMemSetAccess */
} K = { .probe_uses_raw_pointer = 1, .importer_uses_handle = 1, .copy_out_after_open = 0,
	.vmm_set_access = 1 };

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.probe_uses_raw_pointer, 0, "06.1"),
	LAB_KNOB(K.importer_uses_handle, 0, "06.2"),
	LAB_KNOB(K.copy_out_after_open, 1, "06.3"),
	LAB_KNOB(K.vmm_set_access, 0, "06.6"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "06.1", "ch2.S4",
	  "each process has its own GPU address space: the exporter's raw device pointer value "
	  "does not reach its memory from another process, the opened IPC handle does",
	  "ch2 4.1 process isolation: every CUDA context has its own virtual address space; the "
	  "same cudaMalloc address in two instances is not the same HBM",
	  "R11 a behaviour: the raw value misses the data and the opened handle reaches it",
	  WANT_TRUE, "the probe reads through an opened handle instead of the raw pointer value" },
	{ "06.2", "ch2.S4",
	  "cudaIpcOpenMemHandle gives the importer the exporter's memory: it reads the exporter's "
	  "pattern, and the exporter sees the importer's write",
	  "ch2 4.4 CUDA IPC: process B opens A's exported handle and then points at the same "
	  "physical HBM",
	  "R11 a behaviour: every word read matches, and the exporter sees every word written",
	  WANT_TRUE, "the importer uses the exporter's raw pointer value instead of the opened "
	  "handle" },
	{ "06.3", "ch2.S4",
	  "zero copy: opening a 1 GiB IPC handle takes about as long as a 1 MiB one",
	  "ch2 4.4 CUDA IPC: sharing is zero-copy with the lowest latency (read as: the open costs "
	  "the same whatever the size)",
	  "R7 about as long: median open time 1 GiB / 1 MiB near 1 +- 25 %",
	  WANT_NEAR(1, 0.25, "x"), "after each open the importer copies the whole buffer out to "
	  "host memory, as sharing by copying would, so the time grows with the size" },
	{ "06.4", "ch2.S4",
	  "a cudaMallocManaged region can be shared through an IPC handle (cudaIpcGetMemHandle "
	  "succeeds on it)",
	  "ch2 4.3 Unified Memory: two contexts can share one cudaMallocManaged region through "
	  "cudaIpcGetMemHandle",
	  "R11 a CUDA error: cudaIpcGetMemHandle on managed memory returns cudaSuccess",
	  WANT_CUDA_ERR(0, "cudaSuccess"), NULL },
	{ "06.5", "ch2.S4",
	  "when the exporter crashes, the importer segfaults at once",
	  "ch2 4.4 CUDA IPC: if process A crashes or frees the memory, process B segfaults "
	  "immediately",
	  "R11 a behaviour: the importer dies by SIGSEGV after the exporter is SIGKILLed",
	  WANT_TRUE, NULL },
	{ "06.6", "ch2.S4",
	  "the VMM route shares memory too: a cuMemCreate allocation exported as a POSIX file "
	  "descriptor and mapped by another process shows the same bytes both ways",
	  "not a chapter figure: ch2 4.4 names only cudaIpc*; this is the route the 06.4 erratum "
	  "points to instead",
	  "R11 a behaviour: every word read matches, and the exporter sees every word written",
	  WANT_TRUE, "the importer maps the allocation but skips cuMemSetAccess" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static const struct lab_extra_opt extra_opts[] = {
	PROC_TIMEOUT_OPT, PROC_PLUMBING_OPT, { NULL, NULL, NULL }
};

static int lab_role(struct lab *L, const char *role);
static int check_opts(const struct lab *L);

#define MIN_LARGE_BYTES (64 * MiB)

static const struct lab_spec spec = {
	.id = "06",
	.title = "CUDA IPC handles",
	.topic = "Can two processes share GPU memory through IPC handles, what does "
		 "opening one cost, and what does the importer see when the exporter dies?",
	.timeout_s = 120,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.role = lab_role,
	.default_size = 1 * GiB,
	.min_size = MIN_LARGE_BYTES,
	.size_why = " for the large handle of 06.3",
	.default_iters = 9,
	.check_opts = check_opts,
	.knobs = knobs,
};

#define SMALL_HANDLE_BYTES (1 * MiB)
#define HELPER_CONTEXT_BYTES (512 * MiB) /* rough GPU memory of one helper's context */
#define MANAGED_BYTES (2 * MiB)
#define CRASH_SETTLE_S 0.2 /* after the exporter is reaped, before the importer's read */

static struct cfg {
	double t;                       /* --child-timeout: seconds for each answer of a helper */
	unsigned long long large_bytes; /* 06.3's big handle (--size) */
	unsigned long long pat_bytes;   /* 06.1 and 06.2's shared pattern */
	unsigned long long crash_bytes; /* 06.5's buffer */
	unsigned long long vmm_bytes;   /* 06.6's buffer, before rounding to the granularity */
	int samples;                    /* timed opens per size */
	unsigned seed[6];               /* pattern seeds, pairwise different */
} cfg;

/* spec.check_opts (lab_main calls it before run()): the options, then the sizes into cfg. */
static int check_opts(const struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	int i;

	if (proc_check_opts(L))
		return 2;
	cfg.t = proc_child_timeout(L);
	cfg.large_bytes = o->size;
	cfg.pat_bytes = o->quick ? 8 * MiB : 64 * MiB;
	cfg.crash_bytes = o->quick ? 4 * MiB : 16 * MiB;
	cfg.vmm_bytes = o->quick ? 4 * MiB : 32 * MiB;
	cfg.samples = o->quick ? 7 : o->iters;
	for (i = 0; i < 6; i++)
		cfg.seed[i] = (uint32_t)(o->seed * 8u) + (uint32_t)i + 1u;
	return 0;
}

#if DMALAB_HAVE_CUDA
#define DEVPTR(u) ((void *)(uintptr_t)(u))
#define NUM(p) ((unsigned long long)(uintptr_t)(p))
#define ERR(e) cudaGetErrorName(e)
#define STAGE_BYTES (64 * MiB) /* the sabotage of 06.3 copies out this much at a time */
#define is_ok(cuda_err_name) (strcmp((cuda_err_name), "cudaSuccess") == 0)

/* ------------------------------------------------------------------------ */
/* The helpers                                                               */

/* Its own context first (the four are made in parallel), "ready", then the lab's first order. */
static struct msg *role_start(struct lab *L, struct role_io *io, const char *order)
{
	struct json_writer w;

	CUDA_CHECK(L, cudaSetDevice(lab_options(L)->device));
	CUDA_CHECK(L, cudaFree(0));
	msg_begin(&w, "ready");
	jw_kint(&w, "pid", getpid());
	role_send(io, &w, -1);
	return role_expect(io, order);
}

/* K.copy_out_after_open (06.3 broken): all of p out to pinned host memory, as
 * sharing by copying would. */
static cudaError_t copy_out(const void *p, uint64_t bytes)
{
	static void *stage;
	cudaError_t e = stage ? cudaSuccess : cudaMallocHost(&stage, STAGE_BYTES);
	uint64_t off, n;

	for (off = 0; off < bytes && e == cudaSuccess; off += n) {
		n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
		e = cudaMemcpy(stage, (const char *)p + off, n, cudaMemcpyDeviceToHost);
	}
	return e;
}

struct open_timing { cudaIpcMemHandle_t h; unsigned long long bytes; };

/* 06.3's sample: one cudaIpcOpenMemHandle (s, host clock); the close after it
 * is not timed. */
static double time_one_open(void *ctx)
{
	struct open_timing *t = (struct open_timing *)ctx;
	void *p = NULL;
	double t0 = lab_now(), dt;
	cudaError_t e = cudaIpcOpenMemHandle(&p, t->h, cudaIpcMemLazyEnablePeerAccess);

	if (K.copy_out_after_open && e == cudaSuccess)
		e = copy_out(p, t->bytes);
	dt = lab_now() - t0;
	if (e == cudaSuccess && (e = cudaIpcCloseMemHandle(p)) == cudaSuccess)
		return dt;
	fprintf(stderr, "importer: opening a %llu-byte handle: %s (%s)\n", t->bytes, ERR(e),
		cudaGetErrorString(e));
	return -1; /* the lab shows what we printed */
}

/* An IPC handle of the device memory at p into *h, for another process to open; the CUDA
 * error. */
static cudaError_t export_handle(cudaIpcMemHandle_t *h, void *p)
{
	/* EXERCISE 06.export grades 06.1 06.2: export the cudaMalloc memory at p: write
	 * its IPC handle into *h with cudaIpcGetMemHandle, the bytes another process opens
	 * to reach the same GPU memory (the lab sends them to the importer); return its
	 * error */
	return cudaIpcGetMemHandle(h, p);
	/* STUB
	memset(h, 0, sizeof(*h)); // nothing exported yet: a handle of zeros opens nothing
	return cudaSuccess;
	END STUB */
	/* END EXERCISE */
}

/* The exporter's buffer behind handle h, mapped into this process at *p; the CUDA error. */
static cudaError_t open_shared(void **p, cudaIpcMemHandle_t h)
{
	/* EXERCISE 06.open grades 06.1 06.2: map the exporter's buffer into this process:
	 * open the IPC handle h with cudaIpcOpenMemHandle (flag
	 * cudaIpcMemLazyEnablePeerAccess) into *p, the address of that same GPU memory
	 * here; return its error */
	return cudaIpcOpenMemHandle(p, h, cudaIpcMemLazyEnablePeerAccess);
	/* STUB
	*p = NULL; // not opened yet: this process has no address for the exporter's memory
	return cudaErrorInvalidResourceHandle;
	END STUB */
	/* END EXERCISE */
}

/* 06.2: read the exporter's pattern through the opened handle, write ours. */
static void importer_share(struct role_io *io)
{
	struct msg *m = &io->msg; /* the lab's "ipc" still */
	unsigned long long bytes = (unsigned long long)msg_int(m, "pat_bytes");
	unsigned seed = (unsigned)msg_int(m, "seed"), seed2 = (unsigned)msg_int(m, "seed2");
	void *raw = DEVPTR(msg_int(m, "raw")), *p = NULL, *use;
	cudaError_t oe, re, we, ce = cudaSuccess;
	cudaIpcMemHandle_t h;
	struct json_writer w;
	long long bad = -1;

	msg_hex(m, "pat", &h, sizeof(h));
	oe = open_shared(&p, h);
	use = K.importer_uses_handle ? p : raw; /* broken: the exporter's number */
	re = we = oe;
	if (oe != cudaSuccess) {
		(void)cudaGetLastError();
	} else {
		re = lab_gpu_count_bad(use, bytes, seed, &bad);
		we = re == cudaSuccess ? lab_gpu_fill(use, bytes, seed2) : re;
		ce = cudaIpcCloseMemHandle(p);
	}
	msg_begin(&w, "shared");
	jw_kstr(&w, "open_err", ERR(oe));
	jw_kint(&w, "at", (long long)NUM(p));
	jw_kstr(&w, "read_err", ERR(re));
	jw_kint(&w, "bad", bad);
	jw_kstr(&w, "write_err", ERR(we));
	jw_kstr(&w, "close_err", ERR(ce));
	role_send(io, &w, -1);
}

/* 06.6: the allocation behind the passed fd, read and written as in 06.2
 * (K.vmm_set_access broken: mapped without cuMemSetAccess). */
static void importer_vmm(struct msg *m, struct role_io *io)
{
	unsigned long long bytes = (unsigned long long)msg_int(m, "bytes");
	unsigned seed = (unsigned)msg_int(m, "seed"), seed2 = (unsigned)msg_int(m, "seed2");
	const char *re = "not-run", *we = "not-run";
	struct json_writer w;
	long long bad = -1;
	struct lab_vmm v;
	int fd = m->fd;

	m->fd = -1; /* ours now */
	if (lab_vmm_importer(&v, fd, bytes, K.vmm_set_access) == LAB_VMM_OK) {
		re = ERR(lab_gpu_count_bad(DEVPTR(v.va), bytes, seed, &bad));
		if (is_ok(re))
			we = ERR(lab_gpu_fill(DEVPTR(v.va), bytes, seed2));
	} else if (!v.loaded) {
		fprintf(stderr, "importer: %s\n", v.why);
	}
	if (fd >= 0)
		close(fd);
	msg_begin(&w, "vmm-done");
	jw_kstr(&w, "step", v.step);
	jw_kstr(&w, "err", v.err);
	jw_kstr(&w, "read_err", re);
	jw_kint(&w, "bad", bad);
	jw_kstr(&w, "write_err", we);
	role_send(io, &w, -1);
	lab_vmm_release(&v);
}

/* The importer: 06.3, 06.2, 06.6. */
static int role_importer(struct lab *L, struct role_io *io)
{
	struct lab_measure_cfg mc = { .warmup = 2, .cv_max = 0.10 }; /* samples: the lab's */
	struct msg *m = role_start(L, io, "ipc");
	unsigned long long pat_bytes = (unsigned long long)msg_int(m, "pat_bytes");
	struct open_timing small, large;
	struct lab_stats st;
	void *own = NULL;

	mc.samples = (int)msg_int(m, "samples");
	small.bytes = (unsigned long long)msg_int(m, "small_bytes");
	large.bytes = (unsigned long long)msg_int(m, "large_bytes");
	msg_hex(m, "small", &small.h, sizeof(small.h));
	msg_hex(m, "large", &large.h, sizeof(large.h));
	/* its own buffer first: should the exporter's pointer number be valid here, it is our
	 * memory */
	own = lab_cuda_alloc(L, LAB_BUF_DEVICE, pat_bytes); /* tracked: freed at exit */
	CUDA_CHECK(L, cudaMemset(own, 0, pat_bytes));
	CUDA_CHECK(L, cudaDeviceSynchronize());
	lab_measure(L, "ipc_open_small", time_one_open, &small, &mc, &st);
	role_send_stats(io, "small", &st);
	lab_measure(L, "ipc_open_large", time_one_open, &large, &mc, &st);
	role_send_stats(io, "large", &st);
	importer_share(io);
	importer_vmm(role_expect(io, "vmm"), io); /* "quit" instead (no VMM here) ends us with 0 */
	role_expect(io, "quit");
	return 0;
}

/* 06.1: what the lab's raw device pointer value means in a fresh process. */
static int role_probe(struct lab *L, struct role_io *io)
{
	struct msg *m = role_start(L, io, "probe");
	unsigned long long bytes = (unsigned long long)msg_int(m, "bytes");
	unsigned seed = (unsigned)msg_int(m, "seed");
	void *own = NULL, *use = DEVPTR(msg_int(m, "raw"));
	struct cudaPointerAttributes pa = {};
	struct json_writer w;
	cudaError_t ae, re;
	long long bad = -1;

	/* what the runtime knows of it before we have device memory */
	ae = cudaPointerGetAttributes(&pa, use);
	(void)cudaGetLastError();
	own = lab_cuda_alloc(L, LAB_BUF_DEVICE, bytes);
	CUDA_CHECK(L, cudaMemset(own, 0, bytes));
	CUDA_CHECK(L, cudaDeviceSynchronize());
	if (!K.probe_uses_raw_pointer) { /* broken: through an opened handle instead */
		cudaIpcMemHandle_t h;

		msg_hex(m, "h", &h, sizeof(h));
		CUDA_CHECK(L, cudaIpcOpenMemHandle(&use, h, cudaIpcMemLazyEnablePeerAccess));
	}
	re = lab_gpu_count_bad(use, bytes, seed, &bad);
	msg_begin(&w, "probed");
	jw_kstr(&w, "attr_err", ERR(ae));
	jw_kint(&w, "type", (int)pa.type);
	jw_kint(&w, "own", (long long)NUM(own));
	jw_kstr(&w, "read_err", ERR(re));
	jw_kint(&w, "bad", bad);
	role_send(io, &w, -1);
	role_expect(io, "quit");
	fflush(NULL); /* after a fault the context is unusable: no runtime teardown */
	_exit(0);
}

/* 06.5: an exporter that the lab kills with SIGKILL once it is shared. */
static int role_crash_exporter(struct lab *L, struct role_io *io)
{
	struct msg *m = role_start(L, io, "export");
	unsigned long long bytes = (unsigned long long)msg_int(m, "bytes");
	unsigned seed = (unsigned)msg_int(m, "seed");
	cudaIpcMemHandle_t h;
	struct json_writer w;
	void *p = NULL;

	CUDA_CHECK(L, cudaMalloc(&p, bytes));
	CUDA_CHECK(L, lab_gpu_fill(p, bytes, seed));
	CUDA_CHECK(L, cudaIpcGetMemHandle(&h, p));
	msg_begin(&w, "handle");
	msg_put_hex(&w, "h", &h, sizeof(h));
	jw_kint(&w, "raw", (long long)NUM(p));
	role_send(io, &w, -1);
	role_expect(io, "quit"); /* normally killed while waiting here */
	cudaFree(p);
	return 0;
}

/* 06.5: holds the crash exporter's memory; reads and writes after its death, closes it and
 * ends (the lab watches it go). */
static int role_crash_importer(struct lab *L, struct role_io *io)
{
	struct msg *m = role_start(L, io, "open");
	unsigned long long bytes = (unsigned long long)msg_int(m, "bytes");
	unsigned seed = (unsigned)msg_int(m, "seed"), seed2 = (unsigned)msg_int(m, "seed2");
	cudaError_t oe, re, we, ve;
	long long bad = -1, vbad = -1;
	cudaIpcMemHandle_t h;
	struct json_writer w;
	void *p = NULL;

	msg_hex(m, "h", &h, sizeof(h));
	oe = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
	re = oe == cudaSuccess ? lab_gpu_count_bad(p, bytes, seed, &bad) : oe;
	msg_begin(&w, "opened");
	jw_kstr(&w, "open_err", ERR(oe));
	jw_kstr(&w, "read_err", ERR(re));
	jw_kint(&w, "bad", bad);
	role_send(io, &w, -1);
	role_expect(io, "go"); /* the exporter is dead now */
	re = lab_gpu_count_bad(p, bytes, seed, &bad);
	we = re == cudaSuccess ? lab_gpu_fill(p, bytes, seed2) : re;
	ve = we == cudaSuccess ? lab_gpu_count_bad(p, bytes, seed2, &vbad) : we;
	msg_begin(&w, "after");
	jw_kstr(&w, "read_err", ERR(re));
	jw_kint(&w, "read_bad", bad);
	jw_kstr(&w, "write_err", ERR(we));
	jw_kstr(&w, "verify_err", ERR(ve));
	jw_kint(&w, "verify_bad", vbad);
	role_send(io, &w, -1);
	role_expect(io, "close");
	msg_begin(&w, "closed");
	jw_kstr(&w, "err", ERR(cudaIpcCloseMemHandle(p)));
	role_send(io, &w, -1);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The lab: exporter and conductor                                           */

static struct exporter {
	void *pat, *small, *large;
	cudaIpcMemHandle_t h_pat, h_small, h_large;
	struct lab_vmm vmm;
	int vmm_status;     /* LAB_VMM_OK, or why 06.6 is not tried: vmm.why */
	struct helper imp, probe, cexp, cimp;
	int handle_reached; /* 06.2: the importer read the pattern through the handle */
} ex;

/* Skip unless a second process may use the GPU and all buffers and the helpers' contexts fit. */
static void check_device(struct lab *L)
{
	/* only --size is the user's: it must not wrap the sum around */
	uint64_t need = need_bytes(1, cfg.large_bytes,
				       SMALL_HANDLE_BYTES + 3 * cfg.pat_bytes + cfg.crash_bytes +
				       cfg.vmm_bytes + MANAGED_BYTES + 4 * HELPER_CONTEXT_BYTES);
	int mode = cudaComputeModeDefault;
	uint64_t free_b;

	CUDA_CHECK(L, cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode,
							     lab_options(L)->device));
	if (mode == cudaComputeModeExclusiveProcess || mode == cudaComputeModeProhibited)
		lab_skip(L, SKIP_UNSUPPORTED, "GPU compute mode %d (%s): a second process cannot "
			 "use this GPU", mode,
			 mode == cudaComputeModeProhibited ? "prohibited" : "exclusive-process");
	lab_cuda_mem_info(L, &free_b, NULL);
	lab_fact_num(L, "gpu_free_bytes", (double)free_b, "bytes");
	lab_cuda_require_free(L, need,
			      ": --size and 1 MiB handles, 5 buffers, 4 helper contexts of "
			      "~512 MiB");
}

/* `bytes` of device memory and its handle: the pattern's (06.1, 06.2) by export_handle;
 * the two whose opens 06.3 times directly, as a handle that opens nothing there stops
 * the importer's timing (a broken setup, not a finding). */
static void *export_one(struct lab *L, uint64_t bytes, cudaIpcMemHandle_t *h, int pattern)
{
	void *p = NULL;

	CUDA_CHECK(L, cudaMalloc(&p, bytes));
	CUDA_CHECK(L, pattern ? export_handle(h, p) : cudaIpcGetMemHandle(h, p));
	return p;
}

/* 06.4: an IPC handle of managed memory that the GPU touched first (its pages sit in device
 * memory); pinned host memory, documented not to work, for comparison.  Not sticky: cleared. */
static void claim_managed_handle(struct lab *L)
{
	void *managed = NULL, *pinned = NULL;
	cudaIpcMemHandle_t h;
	cudaError_t e, e_pinned;

	CUDA_CHECK(L, cudaMallocManaged(&managed, MANAGED_BYTES, cudaMemAttachGlobal));
	CUDA_CHECK(L, lab_gpu_fill(managed, MANAGED_BYTES, 1));
	e = cudaIpcGetMemHandle(&h, managed);
	(void)cudaGetLastError();
	CUDA_CHECK(L, cudaMallocHost(&pinned, MANAGED_BYTES));
	e_pinned = cudaIpcGetMemHandle(&h, pinned);
	(void)cudaGetLastError();
	CUDA_CHECK(L, cudaFreeHost(pinned));
	CUDA_CHECK(L, cudaFree(managed));
	claim_note(L, MSG("06.note-4",
		"cudaIpcGetMemHandle on cudaMalloc memory: cudaSuccess (the handles this lab "
		"shares); on cudaMallocHost memory: %s; on cudaMallocManaged memory "
		"(GPU-touched): %s"), ERR(e_pinned), ERR(e));
	claim_check_code(L, "06.4", (long long)e, ERR(e));
}

/* 06.3: the two open-time series from the importer. */
static void decide_open_time(struct lab *L)
{
	struct lab_stats small, large;
	char a[32], b[32];

	helper_expect_stats(&ex.imp, "small", "ipc_open_small", &small, cfg.t * 2);
	helper_expect_stats(&ex.imp, "large", "ipc_open_large", &large, cfg.t * 2);
	lab_series_point(L, "ipc_open", "bytes", (double)SMALL_HANDLE_BYTES, &small);
	lab_series_point(L, "ipc_open", "bytes", (double)cfg.large_bytes, &large);
	lab_fmt_size(SMALL_HANDLE_BYTES, a, sizeof(a));
	lab_fmt_size(cfg.large_bytes, b, sizeof(b));
	if (K.copy_out_after_open)
		claim_note(L, MSG("06.note-3-sabotage", "median cudaIpcOpenMemHandle (sabotage: "
			"and a copy out to host): %s %.1f us, %s %.1f us, for %.0fx the bytes"),
			   a, small.median * 1e6, b, large.median * 1e6,
			   (double)cfg.large_bytes / (double)SMALL_HANDLE_BYTES);
	else
		claim_note(L, MSG("06.note-3", "median cudaIpcOpenMemHandle (close not timed): "
			"%s %.1f us, %s %.1f us, for %.0fx the bytes"), a, small.median * 1e6, b,
			   large.median * 1e6,
			   (double)cfg.large_bytes / (double)SMALL_HANDLE_BYTES);
	claim_check_ratio(L, "06.3", &large, &small);
}

/* 06.2: the importer's read and write, then our count of its pattern. */
static void decide_shared_rw(struct lab *L)
{
	struct msg *m = helper_expect(&ex.imp, "shared", cfg.t);
	const char *oe = msg_str(m, "open_err"), *re = msg_str(m, "read_err");
	const char *we = msg_str(m, "write_err");
	long long bad = msg_int(m, "bad"), mine = -1;
	int ok;

	if (is_ok(we))
		CUDA_CHECK(L, lab_gpu_count_bad(ex.pat, cfg.pat_bytes, cfg.seed[1], &mine));
	ex.handle_reached = is_ok(oe) && is_ok(re) && bad == 0;
	ok = ex.handle_reached && is_ok(we) && mine == 0;
	claim_note(L, MSG("06.note-2",
		"the importer (of the %llu-word pattern at %p here) reported %s; here %lld words "
		"differ from its pattern afterwards"), cfg.pat_bytes / 4, ex.pat, m->text, mine);
	claim_check_true(L, "06.2", ok, ok ? MSG("06.what-shared", "shared both ways")
			 : MSG("06.what-not-shared-h",
			       "not shared both ways through the opened handle"));
}

/* 06.6: pass the VMM fd, then count what the importer wrote. */
static void decide_vmm(struct lab *L)
{
	struct lab_vmm *v = &ex.vmm;
	long long bad, mine = -1;
	const char *re, *we;
	struct json_writer w;
	struct msg *m;
	int ok;

	if (ex.vmm_status == LAB_VMM_UNSUPPORTED) /* helper_finish's "quit" answers the importer */
		claim_skip(L, "06.6", SKIP_UNSUPPORTED, "%s", v->why);
	if (ex.vmm_status == LAB_VMM_FAILED)
		claim_check_true(L, "06.6", 0, v->why); /* the exporter's side failed */
	if (ex.vmm_status != LAB_VMM_OK)
		return;
	msg_begin(&w, "vmm");
	jw_kint(&w, "bytes", (long long)v->bytes);
	jw_kint(&w, "seed", cfg.seed[2]);
	jw_kint(&w, "seed2", cfg.seed[3]);
	m = helper_call(&ex.imp, &w, v->fd, "vmm-done", cfg.t);
	close(v->fd); /* the importer holds its own copy */
	v->fd = -1;
	re = msg_str(m, "read_err");
	we = msg_str(m, "write_err");
	bad = msg_int(m, "bad");
	if (is_ok(we))
		CUDA_CHECK(L, lab_gpu_count_bad(DEVPTR(v->va), v->bytes, cfg.seed[3], &mine));
	ok = !strcmp(msg_str(m, "step"), "none") && is_ok(re) && !bad && is_ok(we) && mine == 0;
	claim_note(L, MSG("06.note-6",
		"%zu-byte cuMemCreate allocation, fd passed with SCM_RIGHTS; the importer "
		"reported %s; here %lld words differ from its pattern"), v->bytes, m->text, mine);
	claim_check_true(L, "06.6", ok, ok ? MSG("06.what-shared", "shared both ways") :
			 MSG("06.what-not-shared", "not shared both ways"));
}

/* 06.5 after the crash: the importer reads, writes and re-reads (its report into after), closes
 * (what cudaIpcCloseMemHandle said into closed) and ends.  Its death on the way is the finding,
 * not a broken lab: the step it ended in, or NULL. */
static const char *crash_watch(struct helper *h, char *after, size_t len, char *closed, size_t clen)
{
	struct msg *m;

	if (!helper_linger(h, CRASH_SETTLE_S, cfg.t)) /* a signal from the crash ends it here */
		return "while idle, right after the exporter's death";
	if (!(m = helper_ask(h, "go", "after", cfg.t)))
		return "while reading and writing after the crash";
	snprintf(after, len, "%s", m->text);
	if (!(m = helper_ask(h, "close", "closed", cfg.t)))
		return "in cudaIpcCloseMemHandle";
	snprintf(closed, clen, "%s", msg_str(m, "err"));
	if (helper_linger(h, cfg.t, cfg.t))
		helper_fail(h, "did not quit within %.0f s and was killed", cfg.t);
	return WIFEXITED(h->proc.status) && WEXITSTATUS(h->proc.status) == 0 ? NULL : "at exit";
}

/* 06.5's exporter shares its buffer with the importer, which reads it while the exporter lives. */
static void crash_share(struct lab *L)
{
	cudaIpcMemHandle_t h;
	struct json_writer w;
	struct msg *m;

	msg_begin(&w, "export");
	jw_kint(&w, "bytes", (long long)cfg.crash_bytes);
	jw_kint(&w, "seed", cfg.seed[4]);
	m = helper_call(&ex.cexp, &w, -1, "handle", cfg.t);
	msg_hex(m, "h", &h, sizeof(h));
	msg_begin(&w, "open");
	msg_put_hex(&w, "h", &h, sizeof(h));
	jw_kint(&w, "bytes", (long long)cfg.crash_bytes);
	jw_kint(&w, "seed", cfg.seed[4]);
	jw_kint(&w, "seed2", cfg.seed[5]);
	m = helper_call(&ex.cimp, &w, -1, "opened", cfg.t);
	if (!is_ok(msg_str(m, "open_err")) || !is_ok(msg_str(m, "read_err")) || msg_int(m, "bad"))
		helper_fail(&ex.cimp, "could not use the crash exporter's memory while it lived: "
			    "'%s'", m->text);
}

/* 06.5: share a second exporter's buffer, SIGKILL that exporter, watch the importer. */
static void crash_phase(struct lab *L)
{
	char after[PROC_MSG_MAX] = "", closed[64] = "not-run", st[64];
	struct proc *p = &ex.cimp.proc, *exporter = &ex.cexp.proc;
	const char *ended;
	int segv;

	crash_share(L);
	kill(exporter->pid, SIGKILL);
	proc_reap(exporter, cfg.t);
	if (!WIFSIGNALED(exporter->status) || WTERMSIG(exporter->status) != SIGKILL)
		helper_fail(&ex.cexp, "did not die by SIGKILL (%s)",
			    proc_status_text(exporter, st, sizeof(st)));
	ended = crash_watch(&ex.cimp, after, sizeof(after), closed, sizeof(closed));
	segv = WIFSIGNALED(p->status) && WTERMSIG(p->status) == SIGSEGV;
	claim_note(L, MSG("06.note-5",
		"exporter killed (SIGKILL) and reaped; %.1f s later the importer (of the "
		"%llu-word pattern) reported %s; cudaIpcCloseMemHandle: %s; the importer %s%s%s"),
		CRASH_SETTLE_S,
		   cfg.crash_bytes / 4, after[0] ? after : "nothing", closed,
		   proc_status_text(p, st, sizeof(st)), ended ? " " : "", ended ? ended : "");
	claim_check_true(L, "06.5", segv, segv ?
			 MSG("06.what-segv", "the importer died by SIGSEGV") :
			 MSG("06.what-no-segv", "no SIGSEGV"));
}

/* 06.1: the raw pointer value in a process that never opened the handle. */
static void probe_phase(struct lab *L)
{
	struct json_writer w;
	unsigned long long own;
	struct msg *m;
	int raw_reached;

	/* the importer has written into the pattern (06.2): put it back, so that a probe
	 * that does reach the buffer (the sabotage: through an opened handle) reads it */
	CUDA_CHECK(L, lab_gpu_fill(ex.pat, cfg.pat_bytes, cfg.seed[0]));
	CUDA_CHECK(L, cudaDeviceSynchronize());
	msg_begin(&w, "probe");
	jw_kint(&w, "raw", (long long)NUM(ex.pat));
	jw_kint(&w, "bytes", (long long)cfg.pat_bytes);
	jw_kint(&w, "seed", cfg.seed[0]);
	msg_put_hex(&w, "h", &ex.h_pat, sizeof(ex.h_pat));
	m = helper_call(&ex.probe, &w, -1, "probed", cfg.t);
	own = (unsigned long long)msg_int(m, "own");
	raw_reached = is_ok(msg_str(m, "read_err")) && msg_int(m, "bad") == 0;
	/* a read that faulted raised an XID event: the lab's own, not a cause the report
	 * card may name for the machine */
	lab_fact_num(L, "gpu_faults_on_purpose", !is_ok(msg_str(m, "read_err")), "faults");
	if (own == NUM(ex.pat))
		claim_note(L, MSG("06.note-1-same",
			"a second process given %p (this process's pattern buffer) reported %s "
			"(type 0 unregistered, 2 device; own: its first buffer, the same number; "
			"read_err, bad: a kernel reading through the number)"), ex.pat, m->text);
	else
		claim_note(L, MSG("06.note-1",
			"a second process given %p (this process's pattern buffer) reported %s "
			"(type 0 unregistered, 2 device; own: its first buffer; read_err, bad: a "
			"kernel reading through the number)"), ex.pat, m->text);
	if (ex.handle_reached)
		claim_note_add(L, MSG("06.note-1-handle",
			"through the opened handle the importer read the pattern"));
	else
		claim_note_add(L, MSG("06.note-1-no-handle",
			"through the opened handle the importer read NOT the pattern"));
	claim_check_true(L, "06.1", !raw_reached && ex.handle_reached,
			 raw_reached ? MSG("06.what-raw-reached", "the raw value reached the data")
			 : ex.handle_reached ? MSG("06.what-handle-only",
				"the raw value missed the data, the opened handle reached it") :
			 MSG("06.what-neither",
			     "neither the raw value nor the opened handle reached the data"));
	helper_finish(&ex.probe, cfg.t);
}

/* The importer's order for 06.3, 06.2 and 06.6: the handles, the pattern's number and seeds. */
static void send_ipc_order(void)
{
	struct json_writer w;

	msg_begin(&w, "ipc");
	msg_put_hex(&w, "pat", &ex.h_pat, sizeof(ex.h_pat));
	jw_kint(&w, "raw", (long long)NUM(ex.pat));
	jw_kint(&w, "pat_bytes", (long long)cfg.pat_bytes);
	jw_kint(&w, "seed", cfg.seed[0]);
	jw_kint(&w, "seed2", cfg.seed[1]);
	msg_put_hex(&w, "small", &ex.h_small, sizeof(ex.h_small));
	jw_kint(&w, "small_bytes", SMALL_HANDLE_BYTES);
	msg_put_hex(&w, "large", &ex.h_large, sizeof(ex.h_large));
	jw_kint(&w, "large_bytes", (long long)cfg.large_bytes);
	jw_kint(&w, "samples", cfg.samples);
	helper_send(&ex.imp, &w, -1);
}
#endif /* DMALAB_HAVE_CUDA */

static void run(struct lab *L)
{
	if (proc_plumbing_test(L))
		return;
#if DMALAB_HAVE_CUDA
	struct helper *helper[] = { &ex.imp, &ex.probe, &ex.cexp, &ex.cimp };
	const char *role[] = { "importer", "probe", "crash-exporter", "crash-importer" };
	char dev[16];
	const char *extra[] = { "--device", dev, NULL };
	int i;

	snprintf(dev, sizeof(dev), "%d", lab_options(L)->device);
	lab_cuda_require(L, 1);
	check_device(L);
	lab_progress(L, MSG("06.progress-1", "four helper processes, each with its own "
				       "context; the memory to share"));
	for (i = 0; i < 4; i++)
		helper_start(L, helper[i], role[i], extra);
	/* while their contexts are made: the pattern and the handles, 06.4, 06.6's allocation and
	 * its fd */
	ex.pat = export_one(L, cfg.pat_bytes, &ex.h_pat, 1);
	CUDA_CHECK(L, lab_gpu_fill(ex.pat, cfg.pat_bytes, cfg.seed[0]));
	ex.small = export_one(L, SMALL_HANDLE_BYTES, &ex.h_small, 0);
	ex.large = export_one(L, cfg.large_bytes, &ex.h_large, 0);
	claim_managed_handle(L);
	ex.vmm_status = lab_vmm_exporter(&ex.vmm, lab_options(L)->device, cfg.vmm_bytes);
	if (ex.vmm_status == LAB_VMM_OK) {
		CUDA_CHECK(L, lab_gpu_fill(DEVPTR(ex.vmm.va), ex.vmm.bytes, cfg.seed[2]));
		ex.vmm_status = lab_vmm_export_fd(&ex.vmm);
	}
	for (i = 0; i < 4; i++)
		helper_expect(helper[i], "ready", cfg.t);
	lab_progress(L, MSG("06.progress-2", "the importer opens the handles"));
	send_ipc_order(); /* the importer: 06.3, 06.2, 06.6 */
	decide_open_time(L);
	decide_shared_rw(L);
	decide_vmm(L);
	helper_finish(&ex.imp, cfg.t);
	lab_progress(L, MSG("06.progress-3", "an exporter dies while its memory is open"));
	crash_phase(L);
	lab_progress(L, MSG("06.progress-4", "a raw device pointer read in another process"));
	probe_phase(L);
	/* after the probe's fault the GPU may report errors: freed without checks */
	lab_vmm_release(&ex.vmm);
	cudaFree(ex.pat);
	cudaFree(ex.small);
	cudaFree(ex.large);
	lab_gpu_count_release();
	(void)cudaGetLastError();
#else
	lab_run_not_built(L);
#endif
}

static int lab_role(struct lab *L, const char *role)
{
	static const struct helper_role roles[] = { /* helper.h adds "echo", the plumbing test's */
#if DMALAB_HAVE_CUDA
		{ "importer", role_importer }, { "probe", role_probe },
		{ "crash-exporter", role_crash_exporter },
		{ "crash-importer", role_crash_importer },
#endif
		{ NULL, NULL }
	};

	return helper_role_main(L, role, roles);
}

LAB_MAIN(spec, run)
