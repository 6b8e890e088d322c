/*
 * cufile.h (lab-10) - cuFile (GPUDirect Storage) for a lab: libcufile
 * loaded with dlopen, a file read into GPU memory with cuFileRead, what
 * the configuration asked for, the mode the reads really took (nvidia-fs,
 * PCI P2PDMA, or compatibility mode through a host bounce buffer), and a
 * teardown that is safe at exit.
 *
 *	lab_cufile_open(&c, fd_direct, dev, bytes, dir, "lab10")   1 ready;
 *	                                      0: c.why says why
 *	lab_cufile_pass(&c, bytes, chunk)     seconds, or -1 (c.why)
 *	lab_cufile_report(L, &c, ran)         the facts, and the mode the reads took
 *	lab_cufile_close(&c)                  before the lab's end
 *
 * Loading.  libcufile.so.0 by the loader's path, then /usr/local/cuda and
 * pip's nvidia/cufile/lib.  Where it is missing, or refuses, c.why says so
 * and the lab skips what needed it.  The library is never dlclose'd: its
 * threads and exit handlers may outlive a close.
 *
 * The declarations are ours, checked against NVIDIA's cufile.h (the
 * CUDA 11 header, and the 12.9-13.x one as NVIDIA/cuda-python mirrors it in
 * cuda_bindings/cuda/bindings/cycufile.pxd): CUfileError_t { CUfileOpError
 * err; CUresult cu_err }, CUfileDescr_t { int type; union { int fd; void
 * *handle }; const CUfileFSOps_t *fs_ops }, CUfileDrvProps_t as
 * lab_cufile_props, CUfileHandle_t a void *; the error codes are
 * CUFILEOP_BASE_ERR (5000) + n, named by lab_cufile_err_name.
 *
 * The mode.  cuFile's level-3 statistics count each read by the path it
 * took, but turning them on has crashed processes at exit
 * (rapidsai/kvikio#497: profile.cufile_stats > 0) and in
 * cuFileGetStatsL3 (NVIDIA/cuda-python#1338), so they are used only where
 * a DMA path can exist at all: the nvidia_fs module loaded (/proc/modules),
 * or P2PDMA in the kernel (/proc/kallsyms) and asked for by the
 * configuration.  Elsewhere, or where compatibility mode is forced, the
 * reads can only go through the host: "compat", by elimination.
 *
 * Exit.  cuFile tears itself down at process exit when the driver is still
 * open, and that teardown calls CUDA after the runtime has gone
 * (NVIDIA/cudf#17121; a segfault after the lab had decided its claims).
 * So lab_cufile_close stops the statistics, deregisters the buffer and the
 * handle and closes the driver, and lab_cufile_open registers an atexit
 * handler that does the same right after cuFileDriverOpen: atexit runs the
 * last registered first, so on every exit (lab_error, lab_skip) it runs
 * before buffer.h's registry frees the GPU buffer and before the CUDA
 * runtime's teardown, both registered earlier.  One open cuFile per process.
 *
 * Plain C with no CUDA header (the pointers are void *): a lab includes it
 * inside `#if DMALAB_HAVE_CUDA` after its CUDA setup; the unit test
 * (harness/tests/unit/test_lab_cufile.c) builds it as C.  Sizes in bytes.
 */
#ifndef DMALAB_LAB_CUFILE_CUDA_H
#define DMALAB_LAB_CUFILE_CUDA_H

#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cleanup.h"
#include "lab.h"
#include "storage.h"

/* cufile.h's types, by layout. */
struct lab_cufile_err { int err, cu_err; };
struct lab_cufile_descr { int type; union { int fd; void *handle; } h; const void *fs_ops; };
struct lab_cufile_props {
	struct {
		unsigned int major, minor;
		size_t poll_kb, io_kb;
		unsigned int status, control;
	} nvfs;
	unsigned int fflags, cache_kb, buffer_kb, pinned_kb, batch_size, batch_timeout_ms;
};

/* CUFileBoolConfigParameter_t values, in lab_cufile.cfg's order. */
enum { LAB_CUFILE_ALLOW_COMPAT, LAB_CUFILE_FORCE_COMPAT, LAB_CUFILE_USE_P2PDMA };
static const int lab_cufile_cfg_param_[3] = { 1, 2, 7 };
static const char *const lab_cufile_cfg_name[3] = { "allow_compat_mode", "force_compat_mode",
						    "use_pci_p2pdma" };

struct lab_cufile {
	void *lib;
	char lib_path[200];
	char why[512];                /* why it cannot run; "" while it can */
	char config[300];             /* the configuration file read, or "absent: ..." */
	char log_path[4200];          /* cuFile's log; "" unknown */
	int driver_open, stats_on, buf_registered;
	void *fh, *buf;
	struct lab_cufile_err (*drv_open)(void), (*drv_close)(void);
	struct lab_cufile_err (*props)(struct lab_cufile_props *);
	struct lab_cufile_err (*reg)(void **, struct lab_cufile_descr *);
	void (*dereg)(void *);
	struct lab_cufile_err (*buf_reg)(const void *, size_t, int), (*buf_dereg)(const void *);
	ssize_t (*read)(void *, void *, size_t, off_t, off_t);
	struct lab_cufile_err (*get_bool)(int, bool *);                      /* 1.14+ */
	struct lab_cufile_err (*stats_level)(int), (*stats_start)(void);    /* 1.15+ */
	struct lab_cufile_err (*stats_stop)(void), (*stats_l3)(void *);
	struct lab_cufile_props p;    /* zero where cuFileDriverGetProperties failed */
	int cfg[3];                   /* the configuration's booleans; -1 not reported */
	int nvfs_loaded, kernel_p2pdma; /* 1, 0, or -1 when it cannot tell */
	uint64_t bytes_read;          /* by cuFileRead since the statistics started */
	long long n_p2p, n_nvfs, n_posix; /* reads by each path; -1 not counted */
};

/* ------------------------------------------------------------------------ */
/* Error codes (cufile.h's CUfileOpError)                                     */

struct lab_cufile_code_ { int code; const char *name, *gloss; };
static const struct lab_cufile_code_ lab_cufile_codes_[] = {
	{ 5001, "CU_FILE_DRIVER_NOT_INITIALIZED", "the nvidia-fs driver is not loaded" },
	{ 5002, "CU_FILE_DRIVER_INVALID_PROPS", "" },
	{ 5003, "CU_FILE_DRIVER_UNSUPPORTED_LIMIT", "" },
	{ 5004, "CU_FILE_DRIVER_VERSION_MISMATCH", "library and nvidia-fs versions differ" },
	{ 5005, "CU_FILE_DRIVER_VERSION_READ_ERROR", "" },
	{ 5006, "CU_FILE_DRIVER_CLOSING", "" },
	{ 5007, "CU_FILE_PLATFORM_NOT_SUPPORTED", "no GDS on this platform" },
	{ 5008, "CU_FILE_IO_NOT_SUPPORTED", "no GDS for this file's filesystem" },
	{ 5009, "CU_FILE_DEVICE_NOT_SUPPORTED", "no GDS on this GPU" },
	{ 5010, "CU_FILE_NVFS_DRIVER_ERROR", "an nvidia-fs ioctl failed" },
	{ 5011, "CU_FILE_CUDA_DRIVER_ERROR", "a CUDA driver call failed: see cu_err" },
	{ 5012, "CU_FILE_CUDA_POINTER_INVALID", "" },
	{ 5013, "CU_FILE_CUDA_MEMORY_TYPE_INVALID", "" },
	{ 5014, "CU_FILE_CUDA_POINTER_RANGE_ERROR", "" },
	{ 5015, "CU_FILE_CUDA_CONTEXT_MISMATCH", "" },
	{ 5016, "CU_FILE_INVALID_MAPPING_SIZE", "" },
	{ 5017, "CU_FILE_INVALID_MAPPING_RANGE", "" },
	{ 5018, "CU_FILE_INVALID_FILE_TYPE", "not a regular file" },
	{ 5019, "CU_FILE_INVALID_FILE_OPEN_FLAG", "opened with flags cuFile refuses" },
	{ 5020, "CU_FILE_DIO_NOT_SET", "the descriptor lacks O_DIRECT" },
	{ 5022, "CU_FILE_INVALID_VALUE", "a bad argument" },
	{ 5023, "CU_FILE_MEMORY_ALREADY_REGISTERED", "" },
	{ 5024, "CU_FILE_MEMORY_NOT_REGISTERED", "" },
	{ 5025, "CU_FILE_PERMISSION_DENIED", "the driver or the file refused access" },
	{ 5026, "CU_FILE_DRIVER_ALREADY_OPEN", "" },
	{ 5027, "CU_FILE_HANDLE_NOT_REGISTERED", "cuFile holds no registration for the "
	  "descriptor: it did not take it" },
	{ 5028, "CU_FILE_HANDLE_ALREADY_REGISTERED", "" },
	{ 5029, "CU_FILE_DEVICE_NOT_FOUND", "no GPU found" },
	{ 5030, "CU_FILE_INTERNAL_ERROR", "" },
	{ 5031, "CU_FILE_GETNEWFD_FAILED", "" },
	{ 5033, "CU_FILE_NVFS_SETUP_ERROR", "nvidia-fs failed to start" },
	{ 5034, "CU_FILE_IO_DISABLED", "the configuration turns GDS off for this file" },
	{ 5035, "CU_FILE_BATCH_SUBMIT_FAILED", "" },
	{ 5036, "CU_FILE_GPU_MEMORY_PINNING_FAILED", "" },
	{ 5037, "CU_FILE_BATCH_FULL", "" },
	{ 5038, "CU_FILE_ASYNC_NOT_SUPPORTED", "" },
	{ 5043, "CU_FILE_NOMEM_ERROR", "" },
	{ 5044, "CU_FILE_IO_ERROR", "" },
	{ 5047, "CU_FILE_INVALID_CONTEXT_ERROR", "" },
	{ 5048, "CU_FILE_NVFS_INTERNAL_DRIVER_ERROR", "" },
	{ 5049, "CU_FILE_BATCH_NOCOMPAT_ERROR", "" },
	{ 0, NULL, NULL }
};

/* "CU_FILE_X (5027: what it means)" into buf (>= 160 bytes); returns buf. */
static inline const char *lab_cufile_err_text(int code, char *buf, size_t len)
{
	const struct lab_cufile_code_ *k;
	int c = code < 0 ? -code : code;

	for (k = lab_cufile_codes_; k->name && k->code != c; k++)
		;
	if (!k->name)
		snprintf(buf, len, "error %d (not in cufile.h's list)", c);
	else
		snprintf(buf, len, "%s (%d%s%s)", k->name, c, k->gloss[0] ? ": " : "", k->gloss);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* What decides the mode (plain functions, for the tests)                    */

/* 1 if a line of path holds s, 0 if none, -1 if it cannot be read. */
static inline int lab_cufile_file_has(const char *path, const char *s)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, s) != NULL;
	fclose(f);
	return found;
}

/* 1 where a read could go by DMA (unknowns count as could), 0 where not. */
static inline int lab_cufile_dma_possible(const struct lab_cufile *c)
{
	return c->cfg[LAB_CUFILE_FORCE_COMPAT] != 1 &&
	       (c->nvfs_loaded != 0 ||
		(c->kernel_p2pdma != 0 && c->cfg[LAB_CUFILE_USE_P2PDMA] != 0));
}

/*
 * The mode: with counts (n_posix >= 0), the path that took most reads
 * ("compat" for POSIX, "nvidia-fs", "P2PDMA"; "unknown" before any read);
 * without, "compat" where no DMA path can exist, else "unknown".
 */
static inline const char *lab_cufile_mode(const struct lab_cufile *c)
{
	if (c->n_posix < 0)
		return lab_cufile_dma_possible(c) ? "unknown" : "compat";
	if (c->n_posix + c->n_nvfs + c->n_p2p == 0)
		return "unknown";
	return c->n_nvfs + c->n_p2p <= c->n_posix ? "compat" :
	       c->n_nvfs >= c->n_p2p ? "nvidia-fs" : "P2PDMA";
}

/* What the configuration asks for, in words and values, into buf; returns buf. */
static inline const char *lab_cufile_asked(const struct lab_cufile *c, char *buf, size_t len)
{
	const int *v = c->cfg;
	const char *what = v[LAB_CUFILE_FORCE_COMPAT] == 1 ? "compatibility mode only" :
		v[LAB_CUFILE_ALLOW_COMPAT] == 0 ? "DMA only, no fallback to compatibility mode" :
		v[LAB_CUFILE_ALLOW_COMPAT] == 1 ? "DMA where it can, else compatibility mode" :
		"(not reported)";

	snprintf(buf, len, "%s%s: %s %d, %s %d, %s %d (-1: not reported)", what,
		 v[LAB_CUFILE_USE_P2PDMA] == 1 ? ", DMA by PCI P2PDMA" : "",
		 lab_cufile_cfg_name[0], v[0], lab_cufile_cfg_name[1], v[1],
		 lab_cufile_cfg_name[2], v[2]);
	return buf;
}

/*
 * Reads by path from a CUfileStatsLevel3_t in w (nwords 64-bit words).
 * Its per-GPU block (CUfilePerGpuStats_t: uuid[16], read_bytes,
 * read_bw_bytes_per_sec, read_utilization, read_duration_us,
 * n_total_reads, n_p2p_reads, n_nvfs_reads, n_posix_reads, ...) is found
 * by its values, since the block before it grew between versions:
 * read_bytes equal to ours, past the level-1 block (1 KiB), a uuid before
 * it, and 1 <= the three counts' sum <= n_total_reads.  0 and out[] = p2p,
 * nvfs, posix; -1 when no block matches.
 */
static inline int lab_cufile_find_gpu_stats(const uint64_t *w, size_t nwords,
					    uint64_t bytes_read, long long out[3])
{
	size_t i;

	for (i = 128; bytes_read && i + 8 < nwords; i++)
		if (w[i] == bytes_read && (w[i - 1] | w[i - 2]) &&
		    w[i + 5] + w[i + 6] + w[i + 7] >= 1 &&
		    w[i + 5] + w[i + 6] + w[i + 7] <= w[i + 4]) {
			out[0] = (long long)w[i + 5];
			out[1] = (long long)w[i + 6];
			out[2] = (long long)w[i + 7];
			return 0;
		}
	return -1;
}

/* The last line of cuFile's log holding "ERROR" (else "WARN"), trimmed, into
 * buf; "" when there is none.  Returns buf. */
static inline const char *lab_cufile_log_error(const char *path, char *buf, size_t len)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[1024], warn[1024] = "", *p;
	size_t n;

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		n = strlen(line);
		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (strstr(line, "ERROR"))
			snprintf(buf, len, "%s", line);
		else if (strstr(line, "WARN"))
			snprintf(warn, sizeof(warn), "%s", line);
	}
	if (f)
		fclose(f);
	if (!buf[0] && warn[0])
		snprintf(buf, len, "%s", warn);
	p = strstr(buf, "] "); /* past the time stamp and the [pid, tid] */
	if (p)
		memmove(buf, p + 2, strlen(p + 2) + 1);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Loading, the driver, the reads                                            */

#define LAB_CUFILE_BIND_(c, f, name) \
	do { void *p_ = dlsym((c)->lib, name); memcpy(&(c)->f, &p_, sizeof(p_)); } while (0)

/* dlopen and dlsym: 1, or 0 with c->why. */
static inline int lab_cufile_load(struct lab_cufile *c)
{
	static const char *const where[] = { "libcufile.so.0",
		"/usr/local/cuda/lib64/libcufile.so.0",
		"/usr/local/cuda/targets/*/lib/libcufile.so.0",
		"/usr/*/python3*/*-packages/nvidia/cufile/lib/libcufile.so.0",
		"/usr/local/lib/python3*/*-packages/nvidia/cufile/lib/libcufile.so.0", NULL };
	Dl_info info;
	glob_t g;
	size_t i, k;

	for (i = 0; where[i] && !c->lib; i++)
		if (glob(where[i], GLOB_NOCHECK, NULL, &g) == 0) {
			for (k = 0; k < g.gl_pathc && !c->lib; k++)
				c->lib = dlopen(g.gl_pathv[k], RTLD_NOW | RTLD_LOCAL);
			globfree(&g);
		}
	if (!c->lib)
		return snprintf(c->why, sizeof(c->why), "libcufile.so.0 not found (the loader's "
				"path, /usr/local/cuda, pip's nvidia/cufile)"), 0;
	LAB_CUFILE_BIND_(c, drv_open, "cuFileDriverOpen");
	LAB_CUFILE_BIND_(c, drv_close, "cuFileDriverClose_v2"); /* cufile.h maps the name to it */
	if (!c->drv_close)
		LAB_CUFILE_BIND_(c, drv_close, "cuFileDriverClose");
	LAB_CUFILE_BIND_(c, props, "cuFileDriverGetProperties");
	LAB_CUFILE_BIND_(c, reg, "cuFileHandleRegister");
	LAB_CUFILE_BIND_(c, dereg, "cuFileHandleDeregister");
	LAB_CUFILE_BIND_(c, buf_reg, "cuFileBufRegister");
	LAB_CUFILE_BIND_(c, buf_dereg, "cuFileBufDeregister");
	LAB_CUFILE_BIND_(c, read, "cuFileRead");
	LAB_CUFILE_BIND_(c, get_bool, "cuFileGetParameterBool");
	LAB_CUFILE_BIND_(c, stats_level, "cuFileSetStatsLevel");
	LAB_CUFILE_BIND_(c, stats_start, "cuFileStatsStart");
	LAB_CUFILE_BIND_(c, stats_stop, "cuFileStatsStop");
	LAB_CUFILE_BIND_(c, stats_l3, "cuFileGetStatsL3");
	snprintf(c->lib_path, sizeof(c->lib_path), "%.190s",
		 c->read && dladdr((void *)c->read, &info) ? info.dli_fname : "?");
	if (c->drv_open && c->drv_close && c->props && c->reg && c->dereg && c->buf_reg &&
	    c->buf_dereg && c->read)
		return 1;
	return snprintf(c->why, sizeof(c->why), "%.120s lacks a call of cuFile 1.0",
			c->lib_path), 0;
}

static struct lab_cufile *lab_cufile_open_one_; /* the exit handler's; NULL once closed */
static pid_t lab_cufile_owner_;

/* Stop the statistics, deregister the buffer and the handle, close the
 * driver; what was never done is skipped, so any number of calls is safe,
 * and after it the exit handler no longer looks at c (the lab may free
 * it).  Call it before the lab frees the GPU buffer. */
static inline void lab_cufile_close(struct lab_cufile *c)
{
	if (lab_cufile_open_one_ == c)
		lab_cufile_open_one_ = NULL;
	if (c->stats_on && c->stats_stop)
		c->stats_stop();
	c->stats_on = 0;
	if (c->buf_registered)
		c->buf_dereg(c->buf);
	c->buf_registered = 0;
	if (c->fh)
		c->dereg(c->fh);
	c->fh = NULL;
	if (c->driver_open)
		c->drv_close();
	c->driver_open = 0;
}

static void lab_cufile_at_exit_(void)
{
	if (lab_cufile_open_one_ && getpid() == lab_cufile_owner_)
		lab_cufile_close(lab_cufile_open_one_);
}

/* After cuFileDriverOpen: what it was configured for, and the machine. */
static inline void lab_cufile_read_setup_(struct lab_cufile *c)
{
	bool v;
	int i;

	if (c->props(&c->p).err)
		memset(&c->p, 0, sizeof(c->p));
	for (i = 0; i < 3; i++)
		c->cfg[i] = c->get_bool && !c->get_bool(lab_cufile_cfg_param_[i], &v).err ? v : -1;
	if (c->cfg[LAB_CUFILE_ALLOW_COMPAT] < 0 && c->p.nvfs.major) /* dcontrolflags bit 1 */
		c->cfg[LAB_CUFILE_ALLOW_COMPAT] = (c->p.nvfs.control >> 1) & 1;
	c->nvfs_loaded = lab_cufile_file_has("/proc/modules", "nvidia_fs ");
	c->kernel_p2pdma = lab_cufile_file_has("/proc/kallsyms", "p2pdma_pgmap_ops");
}

/* Where the configuration and the log are (see lab_cufile_open). */
static inline void lab_cufile_paths_(struct lab_cufile *c, const char *log_dir, const char *prefix)
{
	const char *cfg = getenv("CUFILE_ENV_PATH_JSON"), *log = getenv("CUFILE_LOGFILE_PATH");

	cfg = cfg ? cfg : "/etc/cufile.json";
	snprintf(c->config, sizeof(c->config), "%.250s%s", access(cfg, R_OK) ? "absent, so the "
		 "built-in defaults: " : "", cfg);
	if (log || !log_dir) {
		snprintf(c->log_path, sizeof(c->log_path), "%.4000s", log ? log : "");
		return; /* else cufile.log lands in the working folder */
	}
	snprintf(c->log_path, sizeof(c->log_path), "%.4000s/%.64s-%ld.cufile.log", log_dir, prefix,
		 (long)getpid());
	if (tempfile_add(c->log_path) == 0)
		setenv("CUFILE_LOGFILE_PATH", c->log_path, 1);
	else
		c->log_path[0] = '\0';
}

/*
 * The driver, the O_DIRECT descriptor fd, the GPU buffer of `bytes`: 1
 * when cuFileRead can run, or 0 with c->why (the error code named, with
 * what the configuration asked for).  cuFile's log goes beside the test
 * file (log_dir, named PREFIX-PID.cufile.log, storage.h removes it) unless
 * CUFILE_LOGFILE_PATH is set or log_dir is NULL.  The statistics are
 * started only where a DMA path can exist (see the top).  A buffer cuFile
 * will not register is no error: it reads through its own buffers instead.
 * Call it after the lab's CUDA allocations (see Exit above).
 */
static inline int lab_cufile_open(struct lab_cufile *c, int fd, void *buf, uint64_t bytes,
				  const char *log_dir, const char *prefix)
{
	struct lab_cufile_descr d;
	struct lab_cufile_err e;
	char code[200], asked[200];

	memset(c, 0, sizeof(*c));
	lab_cufile_paths_(c, log_dir, prefix);
	memset(&d, 0, sizeof(d));
	d.type = 1; /* CU_FILE_HANDLE_TYPE_OPAQUE_FD */
	d.h.fd = fd;
	c->n_p2p = c->n_nvfs = c->n_posix = -1;
	c->cfg[0] = c->cfg[1] = c->cfg[2] = c->nvfs_loaded = c->kernel_p2pdma = -1;
	if (!lab_cufile_load(c))
		return 0;
	if ((e = c->drv_open()).err)
		return snprintf(c->why, sizeof(c->why), "cuFileDriverOpen: %s, cu_err %d",
				lab_cufile_err_text(e.err, code, sizeof(code)), e.cu_err), 0;
	c->driver_open = 1;
	if (!lab_cufile_owner_) /* once: registered after the runtime's and the registry's,
				 * so it runs before them */
		atexit(lab_cufile_at_exit_);
	lab_cufile_owner_ = getpid();
	lab_cufile_open_one_ = c;
	lab_cufile_read_setup_(c);
	if (lab_cufile_dma_possible(c) && c->stats_level && c->stats_start && c->stats_l3 &&
	    !c->stats_level(3).err && !c->stats_start().err)
		c->stats_on = 1;
	if ((e = c->reg(&c->fh, &d)).err) {
		c->fh = NULL;
		return snprintf(c->why, sizeof(c->why), "cuFileHandleRegister: %.160s, cu_err %d; "
				"the configuration asks for %.200s",
				lab_cufile_err_text(e.err, code, sizeof(code)), e.cu_err,
				lab_cufile_asked(c, asked, sizeof(asked))), 0;
	}
	c->buf = buf;
	c->buf_registered = !c->buf_reg(buf, (size_t)bytes, 0).err;
	return 1;
}

/* One pass over the file, chunk by chunk into the buffer, each read
 * synchronous.  Seconds, or -1 with c->why. */
static inline double lab_cufile_pass(struct lab_cufile *c, uint64_t bytes, uint64_t chunk)
{
	double t0 = lab_now();
	char code[200];
	uint64_t off;
	ssize_t n;

	for (off = 0; off < bytes; off += chunk, c->bytes_read += chunk)
		if ((n = c->read(c->fh, c->buf, (size_t)chunk, (off_t)off, (off_t)off)) !=
		    (ssize_t)chunk)
			return snprintf(c->why, sizeof(c->why),
					"cuFileRead at byte %llu: %lld (%s)",
					(unsigned long long)off, (long long)n, n >= 0 ? "short" :
					n == -1 ? strerror(errno) :
					lab_cufile_err_text((int)n, code, sizeof(code))), -1;
	return lab_now() - t0;
}

/* The reads by path from the statistics, where they run (else -1s). */
static inline void lab_cufile_count(struct lab_cufile *c)
{
	static uint64_t w[8192]; /* CUfileStatsLevel3_t is about 5 KiB in 13.x */
	long long n[3];

	memset(w, 0, sizeof(w));
	if (c->stats_on && !c->stats_l3(w).err &&
	    lab_cufile_find_gpu_stats(w, sizeof(w) / sizeof(w[0]), c->bytes_read, n) == 0) {
		c->n_p2p = n[0];
		c->n_nvfs = n[1];
		c->n_posix = n[2];
	}
}

/*
 * The facts cufile_config, cufile_library, nvidia_fs_loaded,
 * kernel_p2pdma and cufile_mode ("not run" unless ran: a timed pass read
 * the file); returns the mode.  Counts the reads first (lab_cufile_count).
 */
static inline const char *lab_cufile_report(struct lab *L, struct lab_cufile *c, int ran)
{
	const char *mode;

	lab_cufile_count(c);
	mode = ran ? lab_cufile_mode(c) : "not run";
	lab_fact_str(L, "cufile_config", c->config);
	lab_fact_str(L, "cufile_library", c->lib ? c->lib_path : "none");
	lab_fact_num(L, "nvidia_fs_loaded", c->nvfs_loaded, "");
	lab_fact_num(L, "kernel_p2pdma", c->kernel_p2pdma, "");
	lab_fact_str(L, "cufile_mode", mode);
	return mode;
}

#endif /* DMALAB_LAB_CUFILE_CUDA_H */
