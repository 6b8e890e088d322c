/*
 * chase.h - the pointer chase: what one load costs when it must wait for
 * the one before (lmbench's lat_mem_rd method).  One node every `stride`
 * bytes of the caller's buffer, linked into one cycle: in random order a
 * uniformly random one (Sattolo's shuffle), so that no prefetcher can guess
 * the next address; in address order for a latency claim's sabotage.  A
 * walk is unrolled 16 loads at a time and ends in lab_sink(), so the
 * compiler can neither drop nor overlap the loads.
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

/* Link the first `bytes` of buf into one cycle of bytes / stride nodes (seed
 * picks the random cycle).  Returns the nodes, or 0 with errno EINVAL. */
uint64_t chase_build(void *buf, uint64_t bytes, uint64_t stride, enum chase_order order,
		     uint64_t seed);

/* Follow the chain from p for `loads` loads (16s); returns where it stopped. */
void **chase_walk(void **p, uint64_t loads);

/* One chase being timed: chase_run's context. */
struct chase {
	void **p;        /* where the walk stands: the buffer's start to begin */
	uint64_t loads;  /* dependent loads per sample, a multiple of 16 */
};

/* A lab_run_fn: one sample of c->loads loads from c->p, which moves on
 * (the walk continues across samples); seconds. */
double chase_run(void *ctx);

/* Set c->loads so that one sample lasts about target_s. */
void chase_calibrate(struct chase *c, double target_s);

/* c->loads, which took t seconds, scaled to last about target_s (a multiple
 * of 16, at least 16): chase_calibrate's last step, and a lab's to size a
 * walk again once the cache holds what its measured walks will meet. */
void chase_scale(struct chase *c, double t, double target_s);

/* Calibrate, lab_measure `name` (a static string) and scale to ns per load;
 * *loads (may be NULL) gets the loads a sample. */
void chase_time(struct lab *L, const char *name, void *buf, double target_s,
		const struct lab_measure_cfg *cfg, struct lab_stats *ns, uint64_t *loads);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_CHASE_H */
