/*
 * chase.c - the pointer chase (see chase.h).
 */
#include <errno.h>

#include "chase.h"

/* xorshift64* (Vigna): small, seeded, good enough to shuffle with. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* In [0, n) by multiply-shift (Lemire): no division; bias < n / 2^64. */
static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

uint64_t chase_build(void *buf, uint64_t bytes, uint64_t stride, enum chase_order order,
		     uint64_t seed)
{
	char *base = (char *)buf;
	uint64_t n = stride ? bytes / stride : 0, i, rng = seed ? seed : 0x9e3779b97f4a7c15ULL;

#define NODE(k) (*(uintptr_t *)(base + (k) * stride))
	if (!buf || (uintptr_t)buf % sizeof(void *) || !stride || stride % sizeof(void *) ||
	    n < 2 || (order != CHASE_RANDOM && order != CHASE_SEQUENTIAL)) {
		errno = EINVAL;
		return 0;
	}
	/* node k holds the index of its successor (itself, before the shuffle), then its address */
	for (i = 0; i < n; i++)
		NODE(i) = order == CHASE_SEQUENTIAL ? (i + 1) % n : i;
	/* Sattolo: swapping with j < i (never i itself) leaves one n-cycle,
	 * each of the (n - 1)! cycles equally likely */
	for (i = n - 1; order == CHASE_RANDOM && i > 0; i--) {
		uint64_t j = rng_below(&rng, i);
		uintptr_t t = NODE(i);

		NODE(i) = NODE(j);
		NODE(j) = t;
	}
	for (i = 0; i < n; i++)
		NODE(i) = (uintptr_t)(base + NODE(i) * stride);
#undef NODE
	return n;
}

#define HOP p = (void **)*p;
#define HOP4 HOP HOP HOP HOP
#define HOP16 HOP4 HOP4 HOP4 HOP4

void **chase_walk(void **p, uint64_t loads)
{
	for (uint64_t i = 0; i < loads; i += 16) {
		HOP16
	}
	return p;
}

double chase_run(void *ctx)
{
	struct chase *c = (struct chase *)ctx;
	double t0 = lab_now(), t;

	c->p = chase_walk(c->p, c->loads);
	t = lab_now() - t0;
	lab_sink((uint64_t)(uintptr_t)c->p);
	return t;
}

void chase_scale(struct chase *c, double t, double target_s)
{
	c->loads = (uint64_t)((double)c->loads * target_s / t);
	c->loads = (c->loads + 15) & ~15ULL;
	if (c->loads < 16)
		c->loads = 16;
}

void chase_calibrate(struct chase *c, double target_s)
{
	double t;

	for (c->loads = 4096;; c->loads *= 4) {
		t = chase_run(c);
		if (t >= 2e-3 || c->loads >= (1ULL << 40))
			break;
	}
	chase_scale(c, t, target_s);
}

void chase_time(struct lab *L, const char *name, void *buf, double target_s,
		const struct lab_measure_cfg *cfg, struct lab_stats *ns, uint64_t *loads)
{
	struct chase c = { (void **)buf, 0 };

	chase_calibrate(&c, target_s);
	lab_measure(L, name, chase_run, &c, cfg, ns);
	lab_stats_scale(ns, 1e9 / (double)c.loads, "ns");
	if (loads)
		*loads = c.loads;
}
