/*
 * clock.c - the monotonic clock and the sink every measurement uses.
 */
#include <stdint.h>
#include <time.h>

#include "clock.h"

double lab_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/*
 * The clock's advertised resolution (clock_getres) can be finer than what a
 * read-to-read step really is, so take the smallest positive step seen
 * (STREAM's checktick habit).
 */
double lab_clock_resolution(void)
{
	static double cached;
	uint64_t best = UINT64_MAX;

	if (cached > 0)
		return cached;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = now_ns(), b;

		do
			b = now_ns();
		while (b == a);
		if (b - a < best)
			best = b - a;
	}
	cached = (double)best * 1e-9;
	return cached;
}

static volatile uint64_t lab_sink_value;

void lab_sink(uint64_t v)
{
	lab_sink_value += v;
}
