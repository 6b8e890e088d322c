/*
 * lab-06: CUDA IPC handles - can two processes share GPU memory, what does
 * opening a shared buffer cost, and what happens when the exporter dies?
 *
 * Process layout.  The lab process is the exporter and the orchestrator.
 * After its own CUDA start it launches four helpers with posix_spawn (see
 * proc.h: never a bare fork() once CUDA is up), all at once so that their
 * CUDA contexts are created in parallel, then runs one phase at a time:
 *
 *   importer        06.3 open time, 06.2 read/write through the opened
 *                   handle, 06.6 the VMM route (fd passed with SCM_RIGHTS)
 *   crash-exporter  06.5: a second exporter that the lab SIGKILLs ...
 *   crash-importer  ... while this one holds a mapping of its memory
 *   probe           06.1: uses the lab's raw device pointer value; a fault
 *                   there is sticky, so it is a throwaway process and last
 *
 * 06.4 needs no second process: the handle is never handed out.
 * Every helper is reaped on every path (proc.h).  A helper's CUDA errors
 * that are the finding come back as messages; a broken helper stops the lab
 * with lab_error and what it printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab.h"
#include "preflight.h"
#include "proc.h"

#if DMALAB_HAVE_CUDA
/* Driver API types and PFN_ typedefs only: the binary must start without a
 * driver, so it does not link libcuda; entry points come from the runtime. */
#include <cudaTypedefs.h>
#include "lab_buffers_cuda.h"
#endif

static const struct claim_spec claims[] = {
	{ "06.1", "ch2.S4",
	  "each process has its own GPU address space: the exporter's raw device "
	  "pointer value does not reach its memory from another process, the opened "
	  "IPC handle does",
	  "ch2 4.1 process isolation: every CUDA context has its own virtual address space; "
	  "the same cudaMalloc address in two instances is not the same HBM",
	  "R11 a behaviour: the raw value misses the data and the opened handle reaches it",
	  WANT_TRUE,
	  "the probe reads through an opened handle instead of the raw pointer value" },
	{ "06.2", "ch2.S4",
	  "cudaIpcOpenMemHandle gives the importer the exporter's memory: it reads the "
	  "exporter's pattern, and the exporter sees the importer's write",
	  "ch2 4.4 CUDA IPC: process B opens A's exported handle and then points at the same "
	  "physical HBM",
	  "R11 a behaviour: every word read matches, and the exporter sees every word written",
	  WANT_TRUE,
	  "the importer uses the exporter's raw pointer value instead of the opened handle" },
	{ "06.3", "ch2.S4",
	  "zero copy: opening a 1 GiB IPC handle takes about as long as a 1 MiB one",
	  "ch2 4.4 CUDA IPC: sharing is zero-copy with the lowest latency (read as: the "
	  "open costs the same whatever the size)",
	  "R7 about as long: median open time 1 GiB / 1 MiB near 1 +- 25 %",
	  WANT_NEAR(1, 0.25, "x"),
	  "after each open the importer copies the whole buffer out to host memory, as "
	  "sharing by copying would, so the time grows with the size" },
	{ "06.4", "ch2.S4",
	  "a cudaMallocManaged region can be shared through an IPC handle "
	  "(cudaIpcGetMemHandle succeeds on it)",
	  "ch2 4.3 Unified Memory: two contexts can share one cudaMallocManaged region "
	  "through cudaIpcGetMemHandle",
	  "R11 a CUDA error: cudaIpcGetMemHandle on managed memory returns cudaSuccess",
	  WANT_CUDA_ERR(0, "cudaSuccess"),
	  NULL },
	{ "06.5", "ch2.S4",
	  "when the exporter crashes, the importer segfaults at once",
	  "ch2 4.4 CUDA IPC: if process A crashes or frees the memory, process B segfaults "
	  "immediately",
	  "R11 a behaviour: the importer dies by SIGSEGV after the exporter is SIGKILLed",
	  WANT_TRUE,
	  NULL },
	{ "06.6", "ch2.S4",
	  "the VMM route shares memory too: a cuMemCreate allocation exported as a POSIX "
	  "file descriptor and mapped by another process shows the same bytes both ways",
	  "not a chapter figure: ch2 4.4 names only cudaIpc*; this is the route the 06.4 "
	  "erratum points to instead",
	  "R11 a behaviour: every word read matches, and the exporter sees every word written",
	  WANT_TRUE,
	  "the importer maps the allocation but skips cuMemSetAccess" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static const struct lab_extra_opt extra_opts[] = {
	PROC_CTL_OPT,
	{ "child-timeout", "S", "seconds to wait for a helper's answer before killing it "
	  "(default 20)" },
	{ "plumbing-test", "MODE", "test only the helper plumbing, no GPU needed: ok, hang, "
	  "crash, exit or garbage (the helper's behaviour)" },
	{ NULL, NULL, NULL }
};

static int lab_role(struct lab *L, const char *role);
static int check_opts(const struct lab *L);

static const struct lab_spec spec = {
	/* .id = */ "06",
	/* .title = */ "CUDA IPC handles",
	/* .topic = */ "Can two processes share GPU memory through IPC handles, what does "
		"opening one cost, and what does the importer see when the exporter dies?",
	/* .timeout_s = */ 120,
	/* .needs = */ { 1, 1, 0 },
	/* .claims = */ claims,
	/* .extra_opts = */ extra_opts,
	/* .role = */ lab_role,
	/* .default_size = */ 1 * GiB,
	/* .default_iters = */ 9,
	/* .check_opts = */ check_opts,
	/* .figures = */ NULL,
};

/* ------------------------------------------------------------------------ */
/* Options                                                                   */

#define SMALL_HANDLE_BYTES (1 * MiB)
#define MIN_LARGE_BYTES (64 * MiB)
#define HELPER_CONTEXT_BYTES (512 * MiB) /* rough GPU memory of one helper's context */
#define MANAGED_BYTES (2 * MiB)
#define CRASH_SETTLE_S 0.2 /* after the exporter is reaped, before the importer's read */

struct cfg {
	double child_timeout_s; /* per answer of a helper */
	const char *plumbing;   /* --plumbing-test MODE, or NULL */
	uint64_t large_bytes;   /* 06.3's big handle (--size) */
	uint64_t pat_bytes;     /* 06.1 and 06.2's shared pattern */
	uint64_t crash_bytes;   /* 06.5's buffer */
	uint64_t vmm_bytes;     /* 06.6's buffer, before rounding to the granularity */
	int samples;            /* timed opens per size */
	uint32_t seed[6];       /* pattern seeds, pairwise different */
	char devarg[16];        /* --device for the helpers */
};

static const char *const plumbing_modes[] = { "ok", "hang", "crash", "exit", "garbage", NULL };

static int plumbing_mode_valid(const char *m)
{
	int i;

	for (i = 0; plumbing_modes[i]; i++)
		if (strcmp(m, plumbing_modes[i]) == 0)
			return 1;
	return 0;
}

/* Read the lab's options into c: 0, or -1 with a one-line complaint in err. */
static int cfg_read(const struct lab *L, struct cfg *c, char *err, size_t len)
{
	const struct lab_opts *o = lab_options(L);
	const char *s;
	long v;
	int i;

	memset(c, 0, sizeof(*c));
	c->child_timeout_s = 20;
	s = lab_opt(L, "child-timeout");
	if (s && lab_parse_long(s, 1, 600, &v) < 0) {
		snprintf(err, len, "--child-timeout '%s': must be whole seconds from 1 to 600", s);
		return -1;
	}
	if (s)
		c->child_timeout_s = (double)v;
	c->plumbing = lab_opt(L, "plumbing-test");
	if (c->plumbing && !plumbing_mode_valid(c->plumbing)) {
		snprintf(err, len, "--plumbing-test '%s': must be ok, hang, crash, exit or "
			 "garbage", c->plumbing);
		return -1;
	}
	if (lab_opt(L, "ctl-fd") && !o->role) {
		snprintf(err, len, "--ctl-fd '%s': only helpers take it (the lab starts them "
			 "itself)", lab_opt(L, "ctl-fd"));
		return -1;
	}
	c->large_bytes = o->size;
	if (c->large_bytes < MIN_LARGE_BYTES) {
		preflight_too_small(err, len, "size", o->size, MIN_LARGE_BYTES,
				    " for the large handle of 06.3");
		return -1;
	}
	c->pat_bytes = o->quick ? 8 * MiB : 64 * MiB;
	c->crash_bytes = o->quick ? 4 * MiB : 16 * MiB;
	c->vmm_bytes = o->quick ? 4 * MiB : 32 * MiB;
	c->samples = o->quick ? 7 : o->iters;
	for (i = 0; i < 6; i++)
		c->seed[i] = (uint32_t)(o->seed * 8u) + (uint32_t)i + 1u;
	snprintf(c->devarg, sizeof(c->devarg), "%d", o->device);
	return 0;
}

/* spec.check_opts: bad lab options end the program with exit 2, before TAP. */
static int check_opts(const struct lab *L)
{
	char err[256];
	struct cfg c;

	if (cfg_read(L, &c, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "lab-06: %s (see --help)\n", err);
	return 2;
}

/* The options of the lab itself (check_opts has accepted them). */
static void cfg_parse(struct lab *L, struct cfg *c)
{
	char err[256];

	if (cfg_read(L, c, err, sizeof(err)) < 0)
		lab_error(L, "BUG: options passed check_opts but not cfg_read: %s", err);
}

/* ------------------------------------------------------------------------ */
/* Plumbing test: the helper machinery without CUDA                          */

/*
 * Start an `echo` helper, pass it a pipe with SCM_RIGHTS, check its answers,
 * make it quit and reap it.  A misbehaving helper (--plumbing-test hang,
 * crash, exit, garbage) must end in lab_error with what it printed, within
 * --child-timeout, leaving no process behind.
 */
static void plumbing_test(struct lab *L, const struct cfg *c)
{
	const char *extra[] = { "--plumbing-test", c->plumbing, NULL };
	char msg[256], got[64];
	struct proc p;
	int pfd[2];
	ssize_t n;

	if (proc_spawn_role(&p, lab_self_path(L), "echo", extra, PROC_HELPER) < 0)
		lab_error_errno(L, "cannot start helper 'echo' from '%s'", lab_self_path(L));
	proc_expect(L, &p, "ready", msg, sizeof(msg), c->child_timeout_s);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		lab_error_errno(L, "pipe2");
	proc_sendf(L, &p, pfd[1], "ping n=41");
	close(pfd[1]);
	proc_expect(L, &p, "pong", msg, sizeof(msg), c->child_timeout_s);
	if (proc_field(L, &p, msg, "n") != 42)
		proc_fail(L, &p, "answered '%s' to n=41", msg);
	n = read(pfd[0], got, sizeof(got) - 1);
	close(pfd[0]);
	got[n > 0 ? n : 0] = '\0';
	if (strcmp(got, "pong 41\n") != 0)
		proc_fail(L, &p, "wrote '%s' into the pipe it was passed", got);
	proc_finish(L, &p, c->child_timeout_s);
	lab_note(L, "plumbing test: helper pid %d answered, wrote into the passed pipe, "
		 "quit and was reaped", (int)p.pid);
	claim_skip_rest(L, SKIP_UNSUPPORTED, "--plumbing-test ok: only the helper plumbing "
			"was tested, and it worked");
}

static int role_echo(struct lab *L, struct role_io *io)
{
	const char *mode = lab_opt(L, "plumbing-test");
	long long n;

	mode = mode ? mode : "ok";
	fprintf(stderr, "echo helper: pid %d, mode %s\n", (int)getpid(), mode);
	if (strcmp(mode, "hang") == 0)
		for (;;)
			pause();
	if (strcmp(mode, "crash") == 0)
		abort();
	if (strcmp(mode, "exit") == 0)
		return 3;
	if (strcmp(mode, "garbage") == 0) {
		role_sendf(io, -1, "nonsense 1");
		role_expect(io, "quit");
		return 0;
	}
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "ping");
	if (io->fd < 0) {
		fprintf(stderr, "echo helper: no descriptor came with ping\n");
		return 3;
	}
	n = role_field(io, "n");
	dprintf(io->fd, "pong %lld\n", n);
	close(io->fd);
	io->fd = -1;
	role_sendf(io, -1, "pong n=%lld", n + 1);
	role_expect(io, "quit");
	return 0;
}

/* ------------------------------------------------------------------------ */
#if DMALAB_HAVE_CUDA
/* GPU helpers shared by the lab and its helpers                            */

/*
 * The pattern filled and counted on the GPU (lab_buffers_cuda.h): each
 * returns the CUDA error rather than stopping, since the helpers write
 * through pointers that may not be valid there, and that error is the
 * finding.  Short names for the many calls below.
 */
#define gpu_fill lab_gpu_fill
#define gpu_count_bad lab_gpu_count_bad

static const char *err_name(cudaError_t e)
{
	return cudaGetErrorName(e);
}

static int is_ok(const char *cuda_err_name)
{
	return strcmp(cuda_err_name, "cudaSuccess") == 0;
}

static void hex_encode(const void *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode exactly 2n hex digits into p; 0, or -1 if s is anything else. */
static int hex_decode(const char *s, void *p, size_t n)
{
	unsigned char *b = (unsigned char *)p;
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		int hi = hex_nibble(s[2 * i]), lo = hex_nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

#define HANDLE_HEX (2 * sizeof(cudaIpcMemHandle_t) + 1)

/* ------------------------------------------------------------------------ */
/* The virtual memory management (VMM) driver API, without linking libcuda   */

struct vmm_api {
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
	char why[200]; /* why loading failed */
};

/* The ABI these typedefs describe; any driver that runs CUDA 13 has it. */
#define VMM_ABI_VERSION 12000

static int vmm_sym(const char *name, void **fn, char *why, size_t len)
{
	enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	cudaError_t e;

	*fn = NULL;
#if CUDART_VERSION >= 12050
	e = cudaGetDriverEntryPointByVersion(name, fn, VMM_ABI_VERSION, cudaEnableDefault, &q);
#else
	e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
	if (e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn)
		return 0;
	(void)cudaGetLastError();
	snprintf(why, len, "driver entry point %s: %s, query result %d", name,
		 err_name(e), (int)q);
	return -1;
}

#define VMM_SYM(a, field, name) vmm_sym(name, (void **)&(a)->field, (a)->why, sizeof((a)->why))

/* Load every entry point; 0, or -1 with a->why set. */
static int vmm_load(struct vmm_api *a)
{
	memset(a, 0, sizeof(*a));
	if (VMM_SYM(a, err_name, "cuGetErrorName") || VMM_SYM(a, dev_get, "cuDeviceGet") ||
	    VMM_SYM(a, dev_attr, "cuDeviceGetAttribute") ||
	    VMM_SYM(a, granularity, "cuMemGetAllocationGranularity") ||
	    VMM_SYM(a, create, "cuMemCreate") || VMM_SYM(a, release, "cuMemRelease") ||
	    VMM_SYM(a, export_fd, "cuMemExportToShareableHandle") ||
	    VMM_SYM(a, import_fd, "cuMemImportFromShareableHandle") ||
	    VMM_SYM(a, reserve, "cuMemAddressReserve") ||
	    VMM_SYM(a, addr_free, "cuMemAddressFree") || VMM_SYM(a, map, "cuMemMap") ||
	    VMM_SYM(a, unmap, "cuMemUnmap") || VMM_SYM(a, set_access, "cuMemSetAccess"))
		return -1;
	return 0;
}

static const char *cu_name(const struct vmm_api *a, CUresult r, char *buf, size_t len)
{
	const char *s = NULL;

	if (a->err_name && a->err_name(r, &s) == CUDA_SUCCESS && s)
		return s;
	snprintf(buf, len, "CUresult_%d", (int)r);
	return buf;
}

static void vmm_access_rw(CUmemAccessDesc *d, int dev)
{
	memset(d, 0, sizeof(*d));
	d->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d->location.id = dev;
	d->flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
}

/* Reserve an address range for `bytes` and map allocation h there.
 * Returns the first failing step's result; *step names it. */
static CUresult vmm_map(const struct vmm_api *a, CUmemGenericAllocationHandle h,
			size_t bytes, CUdeviceptr *va, const char **step)
{
	CUresult r;

	*step = "cuMemAddressReserve";
	r = a->reserve(va, bytes, 0, 0, 0);
	if (r != CUDA_SUCCESS) {
		*va = 0;
		return r;
	}
	*step = "cuMemMap";
	r = a->map(*va, bytes, 0, h, 0);
	if (r != CUDA_SUCCESS) {
		a->addr_free(*va, bytes);
		*va = 0;
	}
	return r;
}

static void vmm_unmap(const struct vmm_api *a, CUdeviceptr va, size_t bytes)
{
	if (!va)
		return;
	a->unmap(va, bytes);
	a->addr_free(va, bytes);
}

/* ------------------------------------------------------------------------ */
/* Helpers (the processes the lab starts)                                    */

static void role_cuda_init(struct lab *L)
{
	CUDA_CHECK(L, cudaSetDevice(lab_options(L)->device));
	CUDA_CHECK(L, cudaFree(0)); /* the context now, before "ready" */
}

static void role_handle(const struct role_io *io, const char *key, cudaIpcMemHandle_t *h)
{
	char hex[HANDLE_HEX + 1];

	if (!proc_msg_str(io->msg, key, hex, sizeof(hex)) || hex_decode(hex, h, sizeof(*h)) < 0) {
		fprintf(stderr, "helper: no valid handle %s= in '%.60s'\n", key, io->msg);
		exit(3);
	}
}

struct open_timing {
	cudaIpcMemHandle_t h;
	uint64_t bytes;
};

#ifdef LAB_SABOTAGE
#define STAGE_BYTES (64 * MiB)

/*
 * Sabotage: copy all `bytes` at p out to pinned host memory, STAGE_BYTES at
 * a time, as sharing by copying would; the time grows with the size.
 */
static cudaError_t copy_out(const void *p, uint64_t bytes)
{
	static void *stage;
	cudaError_t e = cudaSuccess;
	uint64_t off, n;

	if (!stage && (e = cudaMallocHost(&stage, STAGE_BYTES)) != cudaSuccess) {
		stage = NULL;
		return e;
	}
	for (off = 0; off < bytes && e == cudaSuccess; off += n) {
		n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
		e = cudaMemcpy(stage, (const char *)p + off, n, cudaMemcpyDeviceToHost);
	}
	return e;
}
#endif

/*
 * One timed cudaIpcOpenMemHandle (s), host clock; the close after it is not
 * timed.  The sabotage build times the open and a copy of the whole buffer
 * out to host memory.  An error is printed (the lab shows it) and returns -1.
 */
static double time_one_open(void *ctx)
{
	struct open_timing *t = (struct open_timing *)ctx;
	void *p = NULL;
	double t0, dt;
	cudaError_t e;

	t0 = lab_now();
	e = cudaIpcOpenMemHandle(&p, t->h, cudaIpcMemLazyEnablePeerAccess);
#ifdef LAB_SABOTAGE
	if (e == cudaSuccess)
		e = copy_out(p, t->bytes);
#endif
	dt = lab_now() - t0;
	if (e == cudaSuccess && (e = cudaIpcCloseMemHandle(p)) == cudaSuccess)
		return dt;
	fprintf(stderr, "importer: opening a %llu-byte handle: %s (%s)\n",
		(unsigned long long)t->bytes, err_name(e), cudaGetErrorString(e));
	return -1;
}

static void send_stats(struct role_io *io, const char *which, const struct lab_stats *s)
{
	static char list[PROC_MSG_MAX - 256];
	size_t o = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < s->n && o + 32 < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.9g", i ? "," : "",
				      s->samples[i]);
	role_sendf(io, -1, "stats which=%s n=%d warmup=%d noisy=%d remeasured=%d too_short=%d "
		   "cv_max=%.6g res=%.6g s=%s", which, i, s->warmup, s->noisy, s->remeasured,
		   s->too_short, s->cv_max, s->clock_res_s, list);
}

/* 06.3: time opening the 1 MiB and the large handle; send both series. */
static void importer_time_opens(struct lab *L, struct role_io *io)
{
	struct lab_measure_cfg mc;
	static struct lab_stats st;
	struct open_timing t;

	memset(&mc, 0, sizeof(mc));
	mc.warmup = 2;
	mc.samples = (int)role_field(io, "samples");
	mc.cv_max = 0.10;
	role_handle(io, "small", &t.h);
	t.bytes = (uint64_t)role_field(io, "small_bytes");
	lab_measure(L, "ipc_open_small", time_one_open, &t, &mc, &st);
	send_stats(io, "small", &st);
	role_handle(io, "large", &t.h);
	t.bytes = (uint64_t)role_field(io, "large_bytes");
	lab_measure(L, "ipc_open_large", time_one_open, &t, &mc, &st);
	send_stats(io, "large", &st);
}

/* 06.2: read the exporter's pattern through the opened handle, write ours. */
static void importer_share(struct role_io *io)
{
	cudaIpcMemHandle_t h;
	uint64_t bytes = (uint64_t)role_field(io, "pat_bytes");
	uint32_t seed = (uint32_t)role_field(io, "seed"), seed2 = (uint32_t)role_field(io, "seed2");
	void *p = NULL, *use;
	cudaError_t oe, re, we, ce = cudaSuccess;
	long long bad = -1;

	role_handle(io, "pat", &h);
	oe = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
#ifdef LAB_SABOTAGE
	use = (void *)(uintptr_t)role_field(io, "raw"); /* the exporter's number */
#else
	use = p;
#endif
	if (oe != cudaSuccess) {
		(void)cudaGetLastError();
		re = we = oe;
	} else {
		re = gpu_count_bad(use, bytes, seed, &bad);
		we = re == cudaSuccess ? gpu_fill(use, bytes, seed2) : re;
		ce = cudaIpcCloseMemHandle(p);
	}
	role_sendf(io, -1, "shared open_err=%s at=%#llx read_err=%s bad=%lld write_err=%s "
		   "close_err=%s", err_name(oe), (unsigned long long)(uintptr_t)p, err_name(re),
		   bad, err_name(we), err_name(ce));
}

/* Import, map and (unless sabotaged) open access to the fd's allocation. */
static CUresult importer_vmm_map(const struct vmm_api *a, int fd, size_t bytes,
				 CUmemGenericAllocationHandle *h, CUdeviceptr *va,
				 const char **step)
{
	CUmemAccessDesc acc;
	CUresult r;
	int dev = 0;

	*step = "cuMemImportFromShareableHandle";
	r = a->import_fd(h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	if (r != CUDA_SUCCESS)
		return r;
	r = vmm_map(a, *h, bytes, va, step);
	if (r != CUDA_SUCCESS)
		return r;
	cudaGetDevice(&dev);
	vmm_access_rw(&acc, dev);
#ifndef LAB_SABOTAGE
	*step = "cuMemSetAccess";
	r = a->set_access(*va, bytes, &acc, 1);
#endif
	return r;
}

/* 06.6: the allocation behind the passed fd, read and written like 06.2. */
static void importer_vmm(struct role_io *io)
{
	size_t bytes = (size_t)role_field(io, "bytes");
	uint32_t seed = (uint32_t)role_field(io, "seed"), seed2 = (uint32_t)role_field(io, "seed2");
	CUmemGenericAllocationHandle h = 0;
	CUdeviceptr va = 0;
	const char *step = "none";
	CUresult r = CUDA_SUCCESS;
	const char *re = "not-run", *we = "not-run";
	long long bad = -1;
	struct vmm_api a;
	char nb[32];
	int fd = io->fd;

	io->fd = -1;
	if (vmm_load(&a) < 0) {
		fprintf(stderr, "importer: %s\n", a.why);
		step = "load-entry-points";
	} else if (fd < 0) {
		step = "receive-fd";
	} else {
		r = importer_vmm_map(&a, fd, bytes, &h, &va, &step);
		if (r == CUDA_SUCCESS) {
			step = "none";
			re = err_name(gpu_count_bad((void *)(uintptr_t)va, bytes, seed, &bad));
			if (is_ok(re))
				we = err_name(gpu_fill((void *)(uintptr_t)va, bytes, seed2));
		}
	}
	if (fd >= 0)
		close(fd);
	role_sendf(io, -1, "vmm-done step=%s err=%s read_err=%s bad=%lld write_err=%s", step,
		   a.err_name ? cu_name(&a, r, nb, sizeof(nb)) : "none", re, bad, we);
	if (va)
		vmm_unmap(&a, va, bytes);
	if (h)
		a.release(h);
}

/*
 * The importer: its own buffer first (the size of the exporter's pattern),
 * so that if the exporter's pointer number happens to be valid here it
 * names this process's own memory, not a mapping of the exporter's.
 */
static int role_importer(struct lab *L, struct role_io *io)
{
	uint64_t pat_bytes;
	void *own = NULL;

	role_cuda_init(L);
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "ipc");
	pat_bytes = (uint64_t)role_field(io, "pat_bytes");
	CUDA_CHECK(L, cudaMalloc(&own, pat_bytes));
	CUDA_CHECK(L, cudaMemset(own, 0, pat_bytes));
	CUDA_CHECK(L, cudaDeviceSynchronize());
	importer_time_opens(L, io);
	importer_share(io);
	role_expect(io, "vmm"); /* "quit" instead (no VMM here) ends us with 0 */
	importer_vmm(io);
	role_expect(io, "quit");
	return 0;
}

/* 06.1: what the lab's raw device pointer value means in a fresh process. */
static int role_probe(struct lab *L, struct role_io *io)
{
	struct cudaPointerAttributes pa;
	void *raw, *own = NULL, *use;
	uint64_t bytes;
	uint32_t seed;
	cudaError_t ae, re;
	long long bad = -1;

	role_cuda_init(L);
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "probe");
	raw = (void *)(uintptr_t)role_field(io, "raw");
	bytes = (uint64_t)role_field(io, "bytes");
	seed = (uint32_t)role_field(io, "seed");
	/* What the runtime knows of that number here, before this process has
	 * any device memory of its own. */
	memset(&pa, 0, sizeof(pa));
	ae = cudaPointerGetAttributes(&pa, raw);
	(void)cudaGetLastError();
	CUDA_CHECK(L, cudaMalloc(&own, bytes));
	CUDA_CHECK(L, cudaMemset(own, 0, bytes));
	CUDA_CHECK(L, cudaDeviceSynchronize());
#ifdef LAB_SABOTAGE
	{
		cudaIpcMemHandle_t h;

		role_handle(io, "h", &h);
		CUDA_CHECK(L, cudaIpcOpenMemHandle(&use, h, cudaIpcMemLazyEnablePeerAccess));
	}
#else
	use = raw;
#endif
	re = gpu_count_bad(use, bytes, seed, &bad);
	role_sendf(io, -1, "probed attr_err=%s type=%d own=%#llx read_err=%s bad=%lld",
		   err_name(ae), (int)pa.type, (unsigned long long)(uintptr_t)own, err_name(re),
		   bad);
	role_expect(io, "quit");
	/* After a fault the context is unusable: skip the runtime's teardown. */
	fflush(NULL);
	_exit(0);
}

/* 06.5: an exporter that the lab kills with SIGKILL once it is shared. */
static int role_crash_exporter(struct lab *L, struct role_io *io)
{
	char hex[HANDLE_HEX];
	cudaIpcMemHandle_t h;
	uint64_t bytes;
	void *p = NULL;

	role_cuda_init(L);
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "export");
	bytes = (uint64_t)role_field(io, "bytes");
	CUDA_CHECK(L, cudaMalloc(&p, bytes));
	CUDA_CHECK(L, gpu_fill(p, bytes, (uint32_t)role_field(io, "seed")));
	CUDA_CHECK(L, cudaIpcGetMemHandle(&h, p));
	hex_encode(&h, sizeof(h), hex);
	role_sendf(io, -1, "handle h=%s raw=%#llx", hex, (unsigned long long)(uintptr_t)p);
	role_expect(io, "quit"); /* normally killed while waiting here */
	cudaFree(p);
	return 0;
}

/* 06.5: holds the crash exporter's memory; reads and writes after its death. */
static int role_crash_importer(struct lab *L, struct role_io *io)
{
	cudaIpcMemHandle_t h;
	uint64_t bytes;
	uint32_t seed, seed2;
	void *p = NULL;
	cudaError_t oe, re, we, ve;
	long long bad = -1, vbad = -1;

	role_cuda_init(L);
	role_sendf(io, -1, "ready pid=%d", (int)getpid());
	role_expect(io, "open");
	role_handle(io, "h", &h);
	bytes = (uint64_t)role_field(io, "bytes");
	seed = (uint32_t)role_field(io, "seed");
	seed2 = (uint32_t)role_field(io, "seed2");
	oe = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
	re = oe == cudaSuccess ? gpu_count_bad(p, bytes, seed, &bad) : oe;
	role_sendf(io, -1, "opened open_err=%s read_err=%s bad=%lld", err_name(oe),
		   err_name(re), bad);
	role_expect(io, "go"); /* the exporter is dead now */
	re = gpu_count_bad(p, bytes, seed, &bad);
	we = re == cudaSuccess ? gpu_fill(p, bytes, seed2) : re;
	ve = we == cudaSuccess ? gpu_count_bad(p, bytes, seed2, &vbad) : we;
	role_sendf(io, -1, "after read_err=%s read_bad=%lld write_err=%s verify_err=%s "
		   "verify_bad=%lld", err_name(re), bad, err_name(we), err_name(ve), vbad);
	role_expect(io, "close");
	role_sendf(io, -1, "closed err=%s", err_name(cudaIpcCloseMemHandle(p)));
	role_expect(io, "quit");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The lab: exporter and orchestrator                                        */

struct vmm_side {
	struct vmm_api api;
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	size_t bytes;
	int fd;         /* the exported descriptor until it is passed on */
	char skip[256]; /* why the route cannot be tried here, or "" */
	char fail[256]; /* an exporter-side step that failed, or "" */
};

struct exporter {
	const struct cfg *c;
	void *pat, *small, *large;
	char hex_pat[HANDLE_HEX], hex_small[HANDLE_HEX], hex_large[HANDLE_HEX];
	struct vmm_side vmm;
	struct proc imp, probe, cexp, cimp;
	int handle_reached;      /* the importer read the pattern via the handle */
	unsigned long long imp_at; /* where the importer mapped it */
	char msg[PROC_MSG_MAX];
};

/* Skip the lab unless every buffer and the helpers' contexts fit. */
static void check_free_memory(struct lab *L, const struct cfg *c)
{
	/* only --size is the user's: it must not wrap the sum around */
	uint64_t need = preflight_need(1, c->large_bytes, SMALL_HANDLE_BYTES + 3 * c->pat_bytes +
				       c->crash_bytes + c->vmm_bytes + MANAGED_BYTES +
				       4 * HELPER_CONTEXT_BYTES);
	char f[32], t[32], n[32], lg[32], pt[32];
	uint64_t free_b, total;

	lab_cuda_mem_info(L, &free_b, &total);
	lab_fact_num(L, "gpu_free_bytes", (double)free_b, "bytes");
	if (free_b >= need)
		return;
	lab_skip(L, SKIP_GPU_TOO_SMALL, "%s free of %s, need %s: handles of %s and 1 MiB, "
		 "3 x %s pattern buffers, crash and VMM buffers, 4 helper contexts of ~512 MiB",
		 lab_fmt_size(free_b, f, sizeof(f)), lab_fmt_size(total, t, sizeof(t)),
		 lab_fmt_size(need, n, sizeof(n)), lab_fmt_size(c->large_bytes, lg, sizeof(lg)),
		 lab_fmt_size(c->pat_bytes, pt, sizeof(pt)));
}

/* Helpers need contexts of their own on the same GPU. */
static void require_shared_device(struct lab *L)
{
	int mode = cudaComputeModeDefault;

	CUDA_CHECK(L, cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode,
					     lab_options(L)->device));
	if (mode == cudaComputeModeExclusiveProcess || mode == cudaComputeModeProhibited)
		lab_skip(L, SKIP_UNSUPPORTED, "GPU compute mode %d (%s): a second process "
			 "cannot use this GPU", mode, mode == cudaComputeModeProhibited ?
			 "prohibited" : "exclusive-process");
}

static void start_helper(struct lab *L, struct proc *p, const struct cfg *c, const char *role)
{
	const char *extra[] = { "--device", c->devarg, NULL };

	if (proc_spawn_role(p, lab_self_path(L), role, extra, PROC_HELPER) < 0)
		lab_error_errno(L, "cannot start helper '%s' from '%s'", role, lab_self_path(L));
}

static void *export_one(struct lab *L, uint64_t bytes, char *hex)
{
	cudaIpcMemHandle_t h;
	void *p = NULL;

	CUDA_CHECK(L, cudaMalloc(&p, bytes));
	CUDA_CHECK(L, cudaIpcGetMemHandle(&h, p));
	hex_encode(&h, sizeof(h), hex);
	return p;
}

static void export_buffers(struct lab *L, struct exporter *x)
{
	const struct cfg *c = x->c;

	x->pat = export_one(L, c->pat_bytes, x->hex_pat);
	CUDA_CHECK(L, gpu_fill(x->pat, c->pat_bytes, c->seed[0]));
	x->small = export_one(L, SMALL_HANDLE_BYTES, x->hex_small);
	x->large = export_one(L, c->large_bytes, x->hex_large);
}

/*
 * 06.4: ask for an IPC handle of managed memory that the GPU touched first
 * (so its pages sit in device memory), with pinned host memory as a second
 * kind that is documented not to work.  The error is not sticky; cleared.
 */
static void claim_managed_handle(struct lab *L)
{
	void *managed = NULL, *pinned = NULL;
	cudaIpcMemHandle_t h;
	cudaError_t e, e_pinned;

	CUDA_CHECK(L, cudaMallocManaged(&managed, MANAGED_BYTES, cudaMemAttachGlobal));
	CUDA_CHECK(L, gpu_fill(managed, MANAGED_BYTES, 1));
	e = cudaIpcGetMemHandle(&h, managed);
	(void)cudaGetLastError();
	CUDA_CHECK(L, cudaMallocHost(&pinned, MANAGED_BYTES));
	e_pinned = cudaIpcGetMemHandle(&h, pinned);
	(void)cudaGetLastError();
	CUDA_CHECK(L, cudaFreeHost(pinned));
	CUDA_CHECK(L, cudaFree(managed));
	claim_note(L, "cudaIpcGetMemHandle on cudaMalloc memory: cudaSuccess (the handles this "
		   "lab shares); on cudaMallocHost memory: %s; on cudaMallocManaged memory "
		   "(GPU-touched): %s", err_name(e_pinned), err_name(e));
	claim_check_code(L, "06.4", (long long)e, err_name(e));
}

/* Record why the VMM route stopped on the exporter's side. */
static void vmm_stop(struct vmm_side *v, const char *step, CUresult r)
{
	char nb[32];
	char *dst = r == CUDA_ERROR_NOT_SUPPORTED ? v->skip : v->fail;

	snprintf(dst, sizeof(v->skip), "%s: %s", step, cu_name(&v->api, r, nb, sizeof(nb)));
}

/* Is the VMM route with POSIX fds there?  0, or -1 with v->skip set. */
static int vmm_supported(struct vmm_side *v, int dev)
{
	struct vmm_api *a = &v->api;
	int vmm = 0, fds = 0;
	CUdevice d;

	if (vmm_load(a) < 0) {
		snprintf(v->skip, sizeof(v->skip), "%s", a->why);
		return -1;
	}
	if (a->dev_get(&d, dev) != CUDA_SUCCESS ||
	    a->dev_attr(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d) ||
	    a->dev_attr(&fds, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, d))
		snprintf(v->skip, sizeof(v->skip), "cuDeviceGetAttribute failed");
	else if (!vmm || !fds)
		snprintf(v->skip, sizeof(v->skip), "device %d: VMM supported %d, POSIX fd "
			 "handles supported %d", dev, vmm, fds);
	return v->skip[0] ? -1 : 0;
}

/* 06.6, exporter side: allocate, map, fill with seed[2], export an fd. */
static void vmm_export(struct lab *L, struct exporter *x)
{
	struct vmm_side *v = &x->vmm;
	struct vmm_api *a = &v->api;
	int dev = lab_options(L)->device;
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;
	const char *step;
	size_t gran = 0;
	CUresult r;

	v->fd = -1;
	if (vmm_supported(v, dev) < 0)
		return;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	step = "cuMemGetAllocationGranularity";
	r = a->granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	if (r == CUDA_SUCCESS && !gran)
		r = CUDA_ERROR_UNKNOWN;
	if (r == CUDA_SUCCESS) {
		v->bytes = (x->c->vmm_bytes + gran - 1) / gran * gran;
		step = "cuMemCreate";
		r = a->create(&v->h, v->bytes, &prop, 0);
		if (r != CUDA_SUCCESS)
			v->h = 0;
	}
	if (r == CUDA_SUCCESS)
		r = vmm_map(a, v->h, v->bytes, &v->va, &step);
	if (r == CUDA_SUCCESS) {
		vmm_access_rw(&acc, dev);
		step = "cuMemSetAccess";
		r = a->set_access(v->va, v->bytes, &acc, 1);
	}
	if (r != CUDA_SUCCESS) {
		vmm_stop(v, step, r);
		return;
	}
	CUDA_CHECK(L, gpu_fill((void *)(uintptr_t)v->va, v->bytes, x->c->seed[2]));
	r = a->export_fd(&v->fd, v->h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
	if (r != CUDA_SUCCESS) {
		v->fd = -1;
		vmm_stop(v, "cuMemExportToShareableHandle", r);
	}
}

static void vmm_release(struct vmm_side *v)
{
	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
	if (v->va)
		vmm_unmap(&v->api, v->va, v->bytes);
	if (v->h)
		v->api.release(v->h);
	v->va = 0;
	v->h = 0;
}

/* A number field of the importer's stats message; stop the lab if absent. */
static double stats_num(struct lab *L, struct proc *p, const char *m, const char *key)
{
	char v[32];

	return strtod(proc_field_str(L, p, m, key, v, sizeof(v)), NULL);
}

/*
 * Rebuild a series the importer measured (host clock, its resolution sent
 * along) with lab_stats_from, so that its interval and too_short hold as
 * for a series measured here; stop the lab if the message is garbled.
 */
static void recv_stats(struct lab *L, struct exporter *x, const char *which,
		       const char *name, struct lab_stats *s)
{
	static char list[PROC_MSG_MAX];
	static double v[LAB_MAX_SAMPLES];
	struct proc *p = &x->imp;
	char *m, *q, *end, w[16];
	double res;
	int i, n, too_short;

	m = proc_expect(L, p, "stats", x->msg, sizeof(x->msg), x->c->child_timeout_s * 2);
	proc_field_str(L, p, m, "which", w, sizeof(w));
	n = (int)proc_field(L, p, m, "n");
	res = stats_num(L, p, m, "res");
	if (strcmp(w, which) != 0 || n < 1 || n > LAB_MAX_SAMPLES || !(res > 0))
		proc_fail(L, p, "sent stats which=%s n=%d res=%g, expected which=%s", w, n, res,
			  which);
	q = (char *)proc_field_str(L, p, m, "s", list, sizeof(list));
	for (i = 0; i < n; i++, q = end + (*end == ',')) {
		v[i] = strtod(q, &end);
		if (end == q || !(v[i] > 0))
			proc_fail(L, p, "sent a bad sample %d in '%.60s'", i, m);
	}
	too_short = (int)proc_field(L, p, m, "too_short");
	lab_stats_from(s, name, "s", v, n, res);
	s->too_short |= too_short;
	s->warmup = (int)proc_field(L, p, m, "warmup");
	s->noisy = (int)proc_field(L, p, m, "noisy");
	s->remeasured = (int)proc_field(L, p, m, "remeasured");
	s->cv_max = stats_num(L, p, m, "cv_max");
}

/* 06.3: the two open-time series from the importer. */
static void decide_open_time(struct lab *L, struct exporter *x)
{
	static struct lab_stats small, large;
	char a[32], b[32];

	recv_stats(L, x, "small", "ipc_open_small", &small);
	recv_stats(L, x, "large", "ipc_open_large", &large);
	lab_series_point(L, "ipc_open", "bytes", (double)SMALL_HANDLE_BYTES, &small);
	lab_series_point(L, "ipc_open", "bytes", (double)x->c->large_bytes, &large);
	claim_note(L, "median cudaIpcOpenMemHandle (%s): %s %.1f us, %s %.1f us, "
		   "for %.0fx the bytes", LAB_SABOTAGED ? "sabotage: and a copy out to host" :
		   "close not timed", lab_fmt_size(SMALL_HANDLE_BYTES, a, sizeof(a)),
		   small.median * 1e6, lab_fmt_size(x->c->large_bytes, b, sizeof(b)),
		   large.median * 1e6, (double)x->c->large_bytes / (double)SMALL_HANDLE_BYTES);
	claim_check_ratio(L, "06.3", &large, &small);
}

/* 06.2: the importer's read and write, then our check of its write. */
static void decide_shared_rw(struct lab *L, struct exporter *x)
{
	const struct cfg *c = x->c;
	struct proc *p = &x->imp;
	char oe[64], re[64], we[64], ce[64];
	long long bad, mine = -1;
	const char *m;
	int ok;

	m = proc_expect(L, p, "shared", x->msg, sizeof(x->msg), c->child_timeout_s);
	proc_field_str(L, p, m, "open_err", oe, sizeof(oe));
	proc_field_str(L, p, m, "read_err", re, sizeof(re));
	proc_field_str(L, p, m, "write_err", we, sizeof(we));
	proc_field_str(L, p, m, "close_err", ce, sizeof(ce));
	bad = proc_field(L, p, m, "bad");
	x->imp_at = (unsigned long long)proc_field(L, p, m, "at");
	if (is_ok(we))
		CUDA_CHECK(L, gpu_count_bad(x->pat, c->pat_bytes, c->seed[1], &mine));
	x->handle_reached = is_ok(oe) && is_ok(re) && bad == 0;
	ok = x->handle_reached && is_ok(we) && mine == 0;
	claim_note(L, "importer: cudaIpcOpenMemHandle %s, mapped at %#llx (here %p); its read "
		   "%s, %lld of %llu words differ; its write %s; here %lld words differ from "
		   "its pattern afterwards; close %s", oe, x->imp_at, x->pat, re, bad,
		   (unsigned long long)(c->pat_bytes / 4), we, mine, ce);
	claim_check_true(L, "06.2", ok, ok ? "the importer read the exporter's pattern and the "
			 "exporter saw the importer's write" : "the pattern did not go both ways "
			 "through the opened handle");
}

/* 06.6: pass the VMM fd, then check what the importer wrote. */
static void decide_vmm(struct lab *L, struct exporter *x)
{
	const struct cfg *c = x->c;
	struct vmm_side *v = &x->vmm;
	struct proc *p = &x->imp;
	char step[64], err[64], re[64], we[64];
	long long bad, mine = -1;
	const char *m;
	int ok;

	if (v->skip[0] || v->fail[0]) { /* proc_finish's "quit" answers the importer */
		if (v->skip[0]) {
			claim_skip(L, "06.6", SKIP_UNSUPPORTED, "%s", v->skip);
		} else {
			claim_note(L, "exporter side failed: %s", v->fail);
			claim_check_true(L, "06.6", 0, "the VMM allocation was not shared");
		}
		return;
	}
	proc_sendf(L, p, v->fd, "vmm bytes=%zu seed=%u seed2=%u", v->bytes, c->seed[2],
		   c->seed[3]);
	close(v->fd); /* the importer holds its own copy now */
	v->fd = -1;
	m = proc_expect(L, p, "vmm-done", x->msg, sizeof(x->msg), c->child_timeout_s);
	proc_field_str(L, p, m, "step", step, sizeof(step));
	proc_field_str(L, p, m, "err", err, sizeof(err));
	proc_field_str(L, p, m, "read_err", re, sizeof(re));
	proc_field_str(L, p, m, "write_err", we, sizeof(we));
	bad = proc_field(L, p, m, "bad");
	if (is_ok(we))
		CUDA_CHECK(L, gpu_count_bad((void *)(uintptr_t)v->va, v->bytes, c->seed[3], &mine));
	claim_note(L, "%zu-byte cuMemCreate allocation, fd passed with SCM_RIGHTS; importer: "
		   "failed step %s (%s); its read %s, %lld words differ; its write %s; here %lld "
		   "words differ from its pattern", v->bytes, step, err, re, bad, we, mine);
	ok = strcmp(step, "none") == 0 && is_ok(re) && bad == 0 && is_ok(we) && mine == 0;
	claim_check_true(L, "06.6", ok, ok ? "the VMM allocation was shared both ways" :
			 "the VMM allocation was not shared both ways");
}

static void importer_phase(struct lab *L, struct exporter *x)
{
	const struct cfg *c = x->c;

	proc_sendf(L, &x->imp, -1, "ipc pat=%s raw=%#llx pat_bytes=%llu seed=%u seed2=%u "
		   "small=%s small_bytes=%llu large=%s large_bytes=%llu samples=%d", x->hex_pat,
		   (unsigned long long)(uintptr_t)x->pat, (unsigned long long)c->pat_bytes,
		   c->seed[0], c->seed[1], x->hex_small, (unsigned long long)SMALL_HANDLE_BYTES,
		   x->hex_large, (unsigned long long)c->large_bytes, c->samples);
	decide_open_time(L, x);
	decide_shared_rw(L, x);
	decide_vmm(L, x);
	proc_finish(L, &x->imp, c->child_timeout_s);
}

/* What the crash importer reported after the exporter's death. */
struct crash_obs {
	char read_err[64], write_err[64], verify_err[64], close_err[64];
	long long read_bad, verify_bad;
	const char *ended; /* the step in which it ended on its own, or NULL */
};

/* Share the crash exporter's buffer with the crash importer. */
static void crash_share(struct lab *L, struct exporter *x)
{
	const struct cfg *c = x->c;
	char hex[HANDLE_HEX], oe[64], re[64];
	const char *m;

	proc_sendf(L, &x->cexp, -1, "export bytes=%llu seed=%u",
		   (unsigned long long)c->crash_bytes, c->seed[4]);
	m = proc_expect(L, &x->cexp, "handle", x->msg, sizeof(x->msg), c->child_timeout_s);
	proc_field_str(L, &x->cexp, m, "h", hex, sizeof(hex));
	proc_sendf(L, &x->cimp, -1, "open h=%s bytes=%llu seed=%u seed2=%u", hex,
		   (unsigned long long)c->crash_bytes, c->seed[4], c->seed[5]);
	m = proc_expect(L, &x->cimp, "opened", x->msg, sizeof(x->msg), c->child_timeout_s);
	proc_field_str(L, &x->cimp, m, "open_err", oe, sizeof(oe));
	proc_field_str(L, &x->cimp, m, "read_err", re, sizeof(re));
	if (!is_ok(oe) || !is_ok(re) || proc_field(L, &x->cimp, m, "bad") != 0)
		proc_fail(L, &x->cimp, "could not use the crash exporter's memory while it "
			  "lived: '%s'", m);
}

/* SIGKILL the crash exporter and reap it; stop the lab if it survives. */
static void crash_kill_exporter(struct lab *L, struct exporter *x)
{
	char st[64];

	kill(x->cexp.pid, SIGKILL);
	proc_reap(&x->cexp, x->c->child_timeout_s);
	if (!WIFSIGNALED(x->cexp.status) || WTERMSIG(x->cexp.status) != SIGKILL)
		proc_fail(L, &x->cexp, "did not die by SIGKILL (%s)",
			  proc_status_text(&x->cexp, st, sizeof(st)));
}

/*
 * Tell the crash importer `cmd`, then wait for `tag`.  Its death on the way
 * is the finding, not a broken lab: it is reaped, o->ended names `step` and
 * NULL comes back.  Only a hang (or nonsense) stops the lab.
 */
static const char *crash_step(struct lab *L, struct exporter *x, struct crash_obs *o,
			      const char *cmd, const char *tag, const char *step)
{
	struct proc *p = &x->cimp;
	double t = x->c->child_timeout_s;
	int r = proc_msg_send(p->ctl, -1, cmd) < 0 ? 0 : proc_recv(p, x->msg, sizeof(x->msg), t);

	if (r == 0 || r == -2) {
		proc_reap(p, t);
		o->ended = step;
		return NULL;
	}
	if (r == -1)
		proc_fail(L, p, "sent no '%s' %s within %.0f s and was killed", tag, step, t);
	if (!proc_msg_is(x->msg, tag))
		proc_fail(L, p, "sent '%.60s' where '%s' was expected", x->msg, tag);
	return x->msg;
}

/* After the exporter's death: let the importer read, write, close, quit. */
static void crash_observe(struct lab *L, struct exporter *x, struct crash_obs *o)
{
	struct proc *p = &x->cimp;
	const char *m;
	int r;

	memset(o, 0, sizeof(*o));
	o->read_bad = o->verify_bad = -1;
	snprintf(o->close_err, sizeof(o->close_err), "not-run");
	/* If the crash sent the importer a signal, it ends during this wait. */
	r = proc_recv(p, x->msg, sizeof(x->msg), CRASH_SETTLE_S);
	if (r == 1)
		proc_fail(L, p, "sent '%.60s' unasked", x->msg);
	if (r == 0) {
		proc_reap(p, x->c->child_timeout_s);
		o->ended = "while idle, right after the exporter's death";
		return;
	}
	m = crash_step(L, x, o, "go", "after", "while reading and writing after the crash");
	if (!m)
		return;
	proc_field_str(L, p, m, "read_err", o->read_err, sizeof(o->read_err));
	proc_field_str(L, p, m, "write_err", o->write_err, sizeof(o->write_err));
	proc_field_str(L, p, m, "verify_err", o->verify_err, sizeof(o->verify_err));
	o->read_bad = proc_field(L, p, m, "read_bad");
	o->verify_bad = proc_field(L, p, m, "verify_bad");
	m = crash_step(L, x, o, "close", "closed", "in cudaIpcCloseMemHandle");
	if (!m)
		return;
	proc_field_str(L, p, m, "err", o->close_err, sizeof(o->close_err));
	proc_msg_send(p->ctl, -1, "quit");
	if (!proc_reap(p, x->c->child_timeout_s))
		proc_fail(L, p, "did not quit within %.0f s and was killed", x->c->child_timeout_s);
	if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		o->ended = "at exit";
}

/* 06.5: kill the exporter while the importer holds its memory. */
static void crash_phase(struct lab *L, struct exporter *x)
{
	struct proc *p = &x->cimp;
	struct crash_obs o;
	char st[64];
	int segv;

	crash_share(L, x);
	crash_kill_exporter(L, x);
	crash_observe(L, x, &o);
	segv = WIFSIGNALED(p->status) && WTERMSIG(p->status) == SIGSEGV;
	if (o.read_err[0])
		claim_note(L, "exporter killed (SIGKILL) and reaped; %.1f s later the "
			   "importer's read: %s, %lld of %llu words differ from the exporter's "
			   "pattern (data %s); its write: %s; its re-read: %s, %lld differ; "
			   "cudaIpcCloseMemHandle: %s; the importer %s%s%s", CRASH_SETTLE_S,
			   o.read_err, o.read_bad, (unsigned long long)(x->c->crash_bytes / 4),
			   o.read_bad == 0 ? "intact" : "not intact", o.write_err, o.verify_err,
			   o.verify_bad, o.close_err, proc_status_text(p, st, sizeof(st)),
			   o.ended ? " " : "", o.ended ? o.ended : "");
	else
		claim_note(L, "exporter killed (SIGKILL) and reaped; the importer ended %s, "
			   "before reporting its read: %s", o.ended ? o.ended : "?",
			   proc_status_text(p, st, sizeof(st)));
	claim_check_true(L, "06.5", segv, segv ? "the importer died by SIGSEGV after the exporter "
			 "was killed" : "the importer did not die by SIGSEGV after the exporter was killed");
}

/* 06.1: the raw pointer value in a process that never opened the handle. */
static void probe_phase(struct lab *L, struct exporter *x)
{
	const struct cfg *c = x->c;
	struct proc *p = &x->probe;
	char ae[64], re[64];
	long long type, bad;
	unsigned long long own;
	const char *m;
	int raw_reached;

	proc_sendf(L, p, -1, "probe raw=%#llx bytes=%llu seed=%u h=%s",
		   (unsigned long long)(uintptr_t)x->pat, (unsigned long long)c->pat_bytes,
		   c->seed[0], x->hex_pat);
	m = proc_expect(L, p, "probed", x->msg, sizeof(x->msg), c->child_timeout_s);
	proc_field_str(L, p, m, "attr_err", ae, sizeof(ae));
	proc_field_str(L, p, m, "read_err", re, sizeof(re));
	type = proc_field(L, p, m, "type");
	own = (unsigned long long)proc_field(L, p, m, "own");
	bad = proc_field(L, p, m, "bad");
	raw_reached = is_ok(re) && bad == 0;
	claim_note(L, "in a second process, %p (this process's pattern buffer): "
		   "cudaPointerGetAttributes %s, type %lld (0 unregistered, 2 device); a "
		   "kernel reading through it: %s, %lld words differ (its own first buffer is "
		   "at %#llx%s); through the opened handle the importer read %s",
		   x->pat, ae, type, re, bad, own,
		   own == (unsigned long long)(uintptr_t)x->pat ? ", the same number" : "",
		   x->handle_reached ? "the pattern" : "NOT the pattern");
	claim_check_true(L, "06.1", !raw_reached && x->handle_reached, raw_reached ?
			 "the raw pointer value reached the exporter's data" : x->handle_reached ?
			 "the raw value missed the exporter's data and the opened handle reached it" :
			 "neither the raw value nor the opened handle reached the exporter's data");
	proc_finish(L, p, c->child_timeout_s);
}

/* After the probe's fault the GPU may report errors: free without checks. */
static void release_buffers(struct exporter *x)
{
	vmm_release(&x->vmm);
	cudaFree(x->pat);
	cudaFree(x->small);
	cudaFree(x->large);
	lab_gpu_count_release();
	(void)cudaGetLastError();
}

static void run(struct lab *L)
{
	static struct exporter x;
	struct cfg c;

	cfg_parse(L, &c);
	if (c.plumbing) {
		plumbing_test(L, &c);
		return;
	}
	lab_cuda_require(L, 1);
	require_shared_device(L);
	x.c = &c;
	x.vmm.fd = -1;
	check_free_memory(L, &c);
	start_helper(L, &x.imp, &c, "importer");
	start_helper(L, &x.probe, &c, "probe");
	start_helper(L, &x.cexp, &c, "crash-exporter");
	start_helper(L, &x.cimp, &c, "crash-importer");
	export_buffers(L, &x);
	claim_managed_handle(L);
	vmm_export(L, &x);
	proc_expect(L, &x.imp, "ready", x.msg, sizeof(x.msg), c.child_timeout_s);
	proc_expect(L, &x.probe, "ready", x.msg, sizeof(x.msg), c.child_timeout_s);
	proc_expect(L, &x.cexp, "ready", x.msg, sizeof(x.msg), c.child_timeout_s);
	proc_expect(L, &x.cimp, "ready", x.msg, sizeof(x.msg), c.child_timeout_s);
	importer_phase(L, &x);
	crash_phase(L, &x);
	probe_phase(L, &x);
	release_buffers(&x);
}

#else /* !DMALAB_HAVE_CUDA */

static void run(struct lab *L)
{
	struct cfg c;

	cfg_parse(L, &c);
	if (c.plumbing)
		plumbing_test(L, &c);
	else
		lab_run_not_built(L);
}

#endif /* DMALAB_HAVE_CUDA */

/* ------------------------------------------------------------------------ */
/* Role dispatch                                                             */

static int lab_role(struct lab *L, const char *role)
{
	static struct role_io io;
	const char *s = lab_opt(L, "ctl-fd");

	if (role_io_open(&io, s) < 0) {
		fprintf(stderr, "lab-06: --role %s needs --ctl-fd N, a socket from the lab "
			"(got '%s'); helpers are started by the lab itself (see --help)\n",
			role, s ? s : "");
		return 2;
	}
	/* A helper must not outlive a lab that was killed outright. */
	if (proc_child_init() < 0)
		return 3;
	if (strcmp(role, "echo") == 0)
		return role_echo(L, &io);
#if DMALAB_HAVE_CUDA
	if (strcmp(role, "importer") == 0)
		return role_importer(L, &io);
	if (strcmp(role, "probe") == 0)
		return role_probe(L, &io);
	if (strcmp(role, "crash-exporter") == 0)
		return role_crash_exporter(L, &io);
	if (strcmp(role, "crash-importer") == 0)
		return role_crash_importer(L, &io);
#endif
	fprintf(stderr, "lab-06: --role '%s': unknown here (helpers: importer, probe, "
		"crash-exporter, crash-importer, echo; CUDA ones need an nvcc build)\n", role);
	return 2;
}

LAB_MAIN(spec, run)
