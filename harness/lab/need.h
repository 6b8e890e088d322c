/*
 * need.h - will the lab's buffers fit, and is --size large enough for the
 * claims.  Host memory is capped by this process's cgroup limit: inside a
 * container the cgroup, not the machine, is what runs out.  Needs use
 * checked arithmetic: a --size near 2^64 must never wrap to a small number.
 */
#ifndef DMALAB_NEED_H
#define DMALAB_NEED_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Checked arithmetic ---- */

/* *out = a + b, or -1 (ERANGE, *out untouched) past 2^64 - 1. */
int need_add(uint64_t a, uint64_t b, uint64_t *out);
/* *out = k x size, or -1 (ERANGE) past 2^64 - 1. */
int need_mul(uint64_t k, uint64_t size, uint64_t *out);
/* k x size + spare, or UINT64_MAX past 2^64 - 1: a need that fits nowhere. */
uint64_t need_bytes(uint64_t k, uint64_t size, uint64_t spare);
/* 1 when k x size <= have (an overflowing product never fits), else 0. */
int need_fits(uint64_t k, uint64_t size, uint64_t have);

/* ---- Host memory ---- */

struct need_host {
	uint64_t mem_total;     /* MemTotal, bytes; 0 unknown */
	uint64_t mem_available; /* MemAvailable, bytes; 0 unknown */
	/* The lowest limit from this memory cgroup up to the root; UINT64_MAX none.
	 * Its usage is not subtracted: it counts reclaimable page cache. */
	uint64_t cgroup_max;
	int cgroup_version;     /* 1 or 2: the hierarchy read; 0 none found */
	char cgroup_path[256];  /* the memory cgroup in /proc/self/cgroup, "" none */
	uint64_t ram;           /* min(mem_total, cgroup_max); 0 unknown */
	uint64_t available;     /* min(mem_available, cgroup_max); 0 unknown */
	/* what ram and available are, for a skip's detail: "RAM" and
	 * "MemAvailable", or "the cgroup's memory limit" where that is lower */
	const char *ram_name, *available_name;
};

/* The host figures under root ("" or NULL: live); -1 when meminfo lacks
 * MemTotal or MemAvailable (the rest is filled in all the same). */
int need_host_read(const char *root, struct need_host *h);
/* The live figure (lab_error when unreadable); *name (may be NULL): what it is. */
uint64_t need_available(struct lab *L, const char **name);
/* NULL when k x bytes fits in have, else SKIP_NOT_ENOUGH_MEMORY and a detail. */
const char *need_shortfall(uint64_t k, uint64_t bytes, uint64_t have, const char *what,
				char *detail, size_t len);
/* lab_skip(SKIP_NOT_ENOUGH_MEMORY) unless k x bytes fit in the live ram figure. */
void need_ram_require(struct lab *L, uint64_t k, uint64_t bytes);
/* need_shortfall against need_available(L) (lab_error if unreadable). */
const char *need_host_short(struct lab *L, uint64_t k, uint64_t bytes, char *detail,
				 size_t len);

/* ---- Usage errors ---- */

/* "lab-NN: --OPT 'VALUE': WHY (see --help)" on stderr; returns 2. */
int lab_usage_error(const struct lab *L, const char *opt, const char *value,
		    const char *why_fmt, ...) LAB_PRINTF(4, 5);
/* The line without an option's value ("lab-NN: " fmt " (see --help)"), the one
 * printer lab_usage_error builds on.  Returns 2. */
int lab_usage_line(const struct lab *L, const char *fmt, ...) LAB_PRINTF(2, 3);
/* "--OPT 'X': too small: need at least Y<why>" into buf.  Returns buf. */
const char *lab_size_too_small(char *buf, size_t len, const char *opt, uint64_t got,
				uint64_t floor, const char *why);
/* 0 when got >= floor, else lab_size_too_small's line as a usage error: 2. */
int lab_size_floor(const struct lab *L, const char *opt, uint64_t got,
			 uint64_t floor, const char *why);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_NEED_H */
