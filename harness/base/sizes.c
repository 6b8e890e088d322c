/* sizes.c - see sizes.h: sizes and numbers read and written, sweeps. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sizes.h"

int lab_parse_size(const char *s, uint64_t *out)
{
	const char *p = s;
	uint64_t v = 0, mul = 1;

	if (!s || !isdigit((unsigned char)*p)) {
		errno = EINVAL;
		return -1;
	}
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		v = v * 10 + d;
	}
	switch (toupper((unsigned char)*p)) {
	case 'K': mul = KiB; p++; break;
	case 'M': mul = MiB; p++; break;
	case 'G': mul = GiB; p++; break;
	case 'T': mul = GiB * 1024; p++; break;
	}
	if (mul > 1 && (*p == 'i' || *p == 'I'))
		p++;
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p != '\0' || v == 0) {
		errno = EINVAL;
		return -1;
	}
	if (v > UINT64_MAX / mul) {
		errno = ERANGE;
		return -1;
	}
	*out = v * mul;
	return 0;
}

int lab_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0') {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

const char *lab_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[i]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[i]);
	return buf;
}

const char *lab_size_arg(uint64_t bytes, char *buf, size_t len)
{
	static const char *const suffix[] = { "", "K", "M", "G", "T" };
	int i = 0;

	while (i < 4 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)bytes, suffix[i]);
	return buf;
}


static uint64_t lowest_above(uint64_t x, uint64_t cand, uint64_t prev)
{
	return cand > prev && (!x || cand < x) ? cand : x;
}

uint64_t sizes_next(uint64_t prev, uint64_t first, uint64_t factor, uint64_t max,
		    const uint64_t *extra, int n_extra)
{
	uint64_t g = first, x = 0;

	if (first && factor >= 2) {
		while (g <= prev && g <= max && g <= UINT64_MAX / factor)
			g *= factor;
		if (g > prev && g <= max)
			x = g;
	}
	x = lowest_above(x, max, prev);
	for (int i = 0; i < n_extra; i++)
		x = lowest_above(x, extra[i], prev);
	return x;
}
