/*
 * fake_stats.h - fixed series for the fake labs, so the runner's golden
 * output does not depend on this machine's timing.
 */
#ifndef FAKE_STATS_H
#define FAKE_STATS_H

#include <string.h>

#include "lab.h"

/* A series of n samples v0, v0 + step, ... in `unit`. */
static inline void fake_series(struct lab_stats *s, const char *name, const char *unit,
			int n, double v0, double step)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->unit = unit;
	s->n = n;
	s->cv_max = 0.10;
	for (i = 0; i < n; i++)
		s->samples[i] = v0 + step * i;
	lab_stats_compute(s);
}

#endif
