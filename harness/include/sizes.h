/*
 * sizes.h - the sizes of a sweep: a geometric ladder up to a largest size,
 * that size itself, and a few extra sizes (a claim's), walked in ascending
 * order without repeats.  Sizes in bytes.
 */
#ifndef DMALAB_SIZES_H
#define DMALAB_SIZES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
