/*
 * sizes.h - sizes and numbers as a user types and reads them ("64M", "64
 * MiB"), and the sizes of a sweep: a geometric ladder up to a largest size,
 * that size itself, and a few extra sizes (a claim's), walked in ascending
 * order without repeats.  Sizes in bytes.  The one size parser and
 * formatter of the kit: labs and the runner use these.
 */
#ifndef DMALAB_SIZES_H
#define DMALAB_SIZES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KiB (1024ULL)
#define MiB (1024ULL * 1024ULL)
#define GiB (1024ULL * 1024ULL * 1024ULL)

/* Parse a size: digits with an optional binary K, M, G or T ("iB", "B" may
 * follow).  0, or -1 with EINVAL (garbage, empty, zero) or ERANGE. */
int lab_parse_size(const char *s, uint64_t *out);
/* Parse a non-negative decimal integer in [min, max]: 0 or -1 as above. */
int lab_parse_long(const char *s, long min, long max, long *out);
/* Format bytes as "64 MiB", "4 KiB", "1.5 GiB" into buf (>= 32 bytes). */
const char *lab_fmt_size(uint64_t bytes, char *buf, size_t len);
/* Bytes in the syntax of --size, exact, for messages: "64M", "1536K", "1000". */
const char *lab_size_arg(uint64_t bytes, char *buf, size_t len);


/* The smallest size greater than prev (0: the first) among first x factor^k
 * for k >= 0 while <= max, max itself, and the n_extra sizes in extra (any
 * order, may exceed max; NULL when n_extra is 0).  Returns 0 after the last.
 * first > 0 and factor >= 2 (else only max and the extras are walked);
 * the ladder stops before it would pass UINT64_MAX.  Usage:
 *   for (b = sizes_next(0, ...); b; b = sizes_next(b, ...)) */
uint64_t sizes_next(uint64_t prev, uint64_t first, uint64_t factor, uint64_t max,
		    const uint64_t *extra, int n_extra);

#ifdef __cplusplus
}
#endif

#endif
