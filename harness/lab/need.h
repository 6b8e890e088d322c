/*
 * need.h - will the lab's buffers fit, and is --size large enough for
 * the claims: the checks a lab makes before it measures.
 *
 * Host memory: MemTotal and MemAvailable from /proc/meminfo, capped by the
 * memory limit of this process's cgroup (v2 memory.max, v1
 * memory.limit_in_bytes; the lowest from its cgroup up to the root), since
 * inside a container the cgroup, not the machine, is what runs out.  Every
 * reader takes a root directory so the tests can point it at a fake /proc
 * and /sys.  GPU memory (cudaMemGetInfo) is on the CUDA side, in
 * lab_buffers_cuda.h.
 *
 * Needs are computed with checked arithmetic: a --size near 2^64 must give
 * "does not fit" or "too large", never wrap around to a small number.
 *
 * Sizes in bytes.  Usage errors print one line on stderr in the library's
 * words and return 2, the exit code of a usage error.
 */
#ifndef DMALAB_NEED_H
#define DMALAB_NEED_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Checked arithmetic                                                        */

/* *out = a + b.  Returns 0, or -1 with errno ERANGE (and *out untouched)
 * when the sum passes 2^64 - 1. */
int need_add(uint64_t a, uint64_t b, uint64_t *out);
/* *out = k x size.  Returns 0, or -1 with errno ERANGE when the product
 * passes 2^64 - 1. */
int need_mul(uint64_t k, uint64_t size, uint64_t *out);
/*
 * k x size + spare (bytes), or UINT64_MAX when that passes 2^64 - 1: a need
 * so large fits nowhere, and saying so is the right answer.
 */
uint64_t need_bytes(uint64_t k, uint64_t size, uint64_t spare);
/* 1 when k x size <= have (an overflowing product never fits), else 0. */
int need_fits(uint64_t k, uint64_t size, uint64_t have);

/* ------------------------------------------------------------------------ */
/* Host memory                                                               */

struct need_host {
	uint64_t mem_total;     /* MemTotal, bytes; 0 unknown */
	uint64_t mem_available; /* MemAvailable, bytes; 0 unknown */
	/*
	 * The lowest limit from this process's memory cgroup up to the root
	 * of its hierarchy (bytes); UINT64_MAX when none is set or found.  The
	 * cgroup's usage is not subtracted: it counts page cache the kernel
	 * reclaims before it refuses memory, as MemAvailable already allows.
	 */
	uint64_t cgroup_max;
	int cgroup_version;     /* 1 or 2: the hierarchy read; 0 none found */
	char cgroup_path[256];  /* the memory cgroup in /proc/self/cgroup, "" none */
	uint64_t ram;           /* min(mem_total, cgroup_max); 0 unknown */
	uint64_t available;     /* min(mem_available, cgroup_max); 0 unknown */
	/* what ram and available are, for a skip's detail: "RAM" and
	 * "MemAvailable", or "the cgroup's memory limit" where that is lower */
	const char *ram_name, *available_name;
};

/*
 * Read the host figures under root ("" or NULL: the live /proc and /sys;
 * tests: a fixture directory holding proc/ and sys/).  Files:
 * proc/meminfo, proc/self/cgroup, and sys/fs/cgroup/<path>/memory.max (v2)
 * or sys/fs/cgroup/memory/<path>/memory.limit_in_bytes (v1; a value of
 * 2^62 or more is v1's "no limit").  A cgroup directory that does not
 * exist (a container that sees its own cgroup as the root) is passed over.
 * Returns 0, or -1 with errno when /proc/meminfo has no MemTotal or no
 * MemAvailable (the rest is filled in all the same).
 */
int need_host_read(const char *root, struct need_host *h);
/*
 * For a lab: the live figure, lab_error() when it cannot be read.  name
 * (may be NULL) receives what the figure is (h.available_name, h.ram_name).
 */
uint64_t need_available(struct lab *L, const char **name);
uint64_t need_ram(struct lab *L, const char **name);
/*
 * A claim's buffers against the host memory have (bytes; what names it, as
 * "MemAvailable"): NULL when k x bytes fits (need_fits), else
 * SKIP_NOT_ENOUGH_MEMORY, with detail "<bytes> wanted, <what> <have>"
 * ("256 MiB wanted, MemAvailable 100 MiB") written into detail (len bytes).
 */
const char *need_shortfall(uint64_t k, uint64_t bytes, uint64_t have, const char *what,
				char *detail, size_t len);
/*
 * A whole lab's host buffers, k x bytes, against the machine's RAM
 * (need_ram, capped by the cgroup): returns when they fit, else
 * lab_skip(SKIP_NOT_ENOUGH_MEMORY, "<ram> of <what>, need k x <bytes>").
 */
void need_ram_require(struct lab *L, uint64_t k, uint64_t bytes);
/* need_shortfall against need_available(L) (lab_error if unreadable). */
const char *need_host_short(struct lab *L, uint64_t k, uint64_t bytes, char *detail,
				 size_t len);

/* ------------------------------------------------------------------------ */
/* Usage errors                                                              */

/*
 * Any bad option value, in one format on stderr:
 *   lab-NN: --OPT 'VALUE': WHY (see --help)
 * why_fmt is printf-style.  Returns 2 (for check_opts to return).
 */
int lab_usage_error(const struct lab *L, const char *opt, const char *value,
		    const char *why_fmt, ...) LAB_PRINTF(4, 5);
/*
 * The "too small for this claim" text, without the lab's prefix:
 *   --OPT 'X': too small: need at least Y<why>
 * X in --size syntax ("1M"), Y readable ("64 MiB"); why is appended as
 * given (", as 02.1 compares ..." or " for the bandwidth test").  Returns buf.
 */
const char *lab_size_too_small(char *buf, size_t len, const char *opt, uint64_t got,
				uint64_t floor, const char *why);
/*
 * A size option under the floor its claims need: prints
 *   lab-NN: --OPT 'X': too small: need at least Y<why> (see --help)
 * and returns 2; returns 0 when got >= floor.
 */
int lab_size_floor(const struct lab *L, const char *opt, uint64_t got,
			 uint64_t floor, const char *why);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_NEED_H */
