/*
 * fake_stats.h - fixed series for the fake labs, so the runner's golden
 * output does not depend on this machine's timing.
 */
#ifndef FAKE_STATS_H
#define FAKE_STATS_H

#include "lab.h"

/*
 * A series of n samples v0, v0 + step, ... in `unit` (n <= LAB_MAX_SAMPLES),
 * timed, as far as too_short goes, with a 1 ns clock whatever this one's is.
 */
static inline void fake_series(struct lab_stats *s, const char *name, const char *unit,
			int n, double v0, double step)
{
	double v[LAB_MAX_SAMPLES];
	int i;

	for (i = 0; i < n && i < LAB_MAX_SAMPLES; i++)
		v[i] = v0 + step * i;
	lab_stats_from(s, name, unit, v, i, 1e-9);
	s->cv_max = 0.10;
}

#endif
