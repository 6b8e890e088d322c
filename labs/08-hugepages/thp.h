/*
 * thp.h - lab-08's own helpers, in C that nvcc and gcc both take: how many
 * bytes of a range transparent huge pages can cover and whether its
 * mappings may hold one at all (from smaps), /proc/meminfo's figures,
 * two pointer chases timed in alternation for 08.1's ratio, and the ABBA
 * blocks of such pairs.  Tested without
 * a GPU by harness/tests/unit/test_smaps.c, test_procfs.c, test_chase_pair.c.
 */
#ifndef DMALAB_LAB08_THP_H
#define DMALAB_LAB08_THP_H

#include <stdint.h>

#include "chase.h"
#include "procfs.h"
#include "smaps.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The most AnonHugePages [addr, addr + len) can show: the bytes of the
 * pmd-aligned blocks of pmd bytes (a power of two, 2 MiB on x86-64) that
 * lie wholly inside it.  0 for pmd 0 or a range shorter than a block.
 */
uint64_t smaps_thp_expected(uint64_t addr, uint64_t len, uint64_t pmd);

/*
 * 1 when the range's mappings may hold a transparent huge page, 0 when
 * they cannot: every one says "THPeligible: 0", or (a kernel without that
 * line) every one carries "nh".  A range with no mapping cannot.
 */
int smaps_thp_possible(const struct smaps_range *r);

/* /proc/meminfo's figure for key (Hugepagesize, Mlocked, ...) in bytes: 0, or -1 with errno. */
int proc_meminfo(const char *key, uint64_t *bytes);

/*
 * Two chains timed in alternation, for a claim on their ratio: a machine
 * whose load comes and goes (another process, a noisy neighbour in a VM)
 * slows both alike, and the per-pair ratio cancels it.  Each sample is the
 * same number of loads on both (calibrated on a to about target_s), two
 * warm-up pairs first, the order within a pair swapped every pair
 * (lab_copy_pair_run's order).
 */
struct chase_pair {
	const char *name_a, *name_b, *name_ratio; /* the series' names (static strings) */
	struct lab_stats a, b;  /* ns per load, one sample per pair */
	struct lab_stats ratio; /* "x": b's time / a's time within each pair */
	uint64_t loads;         /* loads per sample, on each */
};

/*
 * n pairs (at most LAB_MAX_SAMPLES) of samples of the chains that start at
 * buf_a and buf_b (chase_build them first) into p's series; p's names are
 * set by the caller.
 */
void chase_pair_time(void *buf_a, void *buf_b, double target_s, int n, struct chase_pair *p);

/*
 * The ABBA blocks of n pairs in lab_copy_pair_run's order (08.1, 08.2, 08.3
 * and 08.5 are decided on them): block k joins pairs 2k + 1 (a b) and
 * 2k + 2 (b a), so that what a sample inherits from the one before it
 * reaches both arms alike.  ba[k], bb[k]: each arm's two samples added.
 * Returns the blocks, (n - 1) / 2.
 */
int abba_blocks(const double *sa, const double *sb, int n, double *ba, double *bb);

#ifdef __cplusplus
}
#endif
#endif
