/*
 * chase.h - the pointer chase: what one load costs when it must wait for
 * the one before (lmbench's lat_mem_rd method).
 *
 * A chain lives in a buffer the caller provides (its page size and NUMA
 * node are the experiment's): one node every `stride` bytes (64: one per
 * cache line; 4096: one per page), the node's first word holding the
 * address of the next node, all of them linked into one cycle.  In random
 * order the cycle is a uniformly random one (Sattolo's shuffle, seeded), so
 * consecutive loads land on random lines of random pages and neither the
 * stride prefetchers nor the next-page prefetcher can guess the next
 * address.  Sequential order links the nodes in address order: a latency
 * claim's sabotage (with stride 8, most loads hit a line already fetched
 * and the prefetcher streams the rest).
 *
 * A walk is unrolled 16 loads at a time and its last pointer goes to
 * lab_sink(), so the compiler can neither drop nor overlap the loads.
 *
 * Sizes in bytes, times in seconds.
 */
#ifndef DMALAB_CHASE_H
#define DMALAB_CHASE_H

#include <stdint.h>

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

enum chase_order {
	CHASE_RANDOM,     /* one uniformly random cycle through every node */
	CHASE_SEQUENTIAL  /* node i -> node i + 1, the last -> the first */
};

/*
 * Link the first `bytes` of buf into one cycle of bytes / stride nodes,
 * node k at buf + k x stride, in `order`; seed picks the random cycle (the
 * same seed, bytes and stride give the same chain).  Writes only the first
 * word of each node, and every node: each page of the chain is faulted in.
 * Returns the number of nodes, or 0 with errno EINVAL: buf NULL or not
 * aligned to a pointer, stride 0 or not a multiple of sizeof(void *),
 * fewer than 2 nodes, or an unknown order.
 */
uint64_t chase_build(void *buf, uint64_t bytes, uint64_t stride, enum chase_order order,
		     uint64_t seed);

/*
 * Follow the chain from p for `loads` dependent loads (rounded up to a
 * multiple of 16); returns the node it stopped at.
 */
void **chase_walk(void **p, uint64_t loads);

/* One chase being timed: chase_run's context. */
struct chase {
	void **p;        /* where the walk stands: the buffer's start to begin */
	uint64_t loads;  /* dependent loads per sample, a multiple of 16 */
};

/* A lab_run_fn: one sample of c->loads loads from c->p, which moves on
 * (the walk continues across samples); seconds. */
double chase_run(void *ctx);

/*
 * Set c->loads so that one sample lasts about target_s: walks of 4096
 * loads, x4 each time, until one lasts 2 ms, then scaled.  At least 16.
 */
void chase_calibrate(struct chase *c, double target_s);

/*
 * Time the chain at buf: calibrate to samples of about target_s, then
 * lab_measure `name` (cfg as lab_measure's, NULL for the defaults) and
 * scale it to ns per load.  *loads (may be NULL) gets the loads a sample.
 * The statistics keep the pointer `name`: a static string.
 */
void chase_time(struct lab *L, const char *name, void *buf, double target_s,
		const struct lab_measure_cfg *cfg, struct lab_stats *ns, uint64_t *loads);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_CHASE_H */
