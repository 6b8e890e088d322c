/* sizes.c - see sizes.h. */
#include "sizes.h"

static uint64_t lowest_above(uint64_t x, uint64_t cand, uint64_t prev)
{
	return cand > prev && (!x || cand < x) ? cand : x;
}

uint64_t sizes_next(uint64_t prev, uint64_t first, uint64_t factor, uint64_t max,
		    const uint64_t *extra, int n_extra)
{
	uint64_t g = first, x = 0;
	int i;

	if (first && factor >= 2) {
		while (g <= prev && g <= max && g <= UINT64_MAX / factor)
			g *= factor;
		if (g > prev && g <= max)
			x = g;
	}
	x = lowest_above(x, max, prev);
	for (i = 0; i < n_extra; i++)
		x = lowest_above(x, extra[i], prev);
	return x;
}
