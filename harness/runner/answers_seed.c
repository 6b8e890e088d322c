/*
 * answers_seed.c - runs of Chinese text an answer shares with a chapter
 * (answers.h, struct ans_seed), so that the questions and answers stay in
 * their own words.
 *
 * Both texts are reduced to their CJK ideographs (answers.h); the longest
 * run they share is the textbook longest-common-substring programme, one row
 * of run lengths per ideograph of the answer: n x N steps for an answer of n
 * ideographs and a chapter of N (the kit's answers against its two chapters:
 * about 1e8, a tenth of a second).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"
#include "json.h"

/* CJK ideographs: the unified blocks, extension A, the compatibility
 * ideographs and the supplementary ideographic plane. */
static int ideograph(uint32_t cp)
{
	return (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) ||
	       (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2ffff);
}

/* The next code point of s[*i..len), advancing *i; an invalid byte is
 * skipped and reads as 0 (no ideograph). */
static uint32_t next_cp(const unsigned char *s, size_t len, size_t *i)
{
	size_t n = json_utf8_len((const char *)s + *i, len - *i), k;
	uint32_t cp = n > 1 ? s[*i] & (0x7fu >> n) : s[*i];

	if (!n) {
		(*i)++;
		return 0;
	}
	for (k = 1; k < n; k++)
		cp = cp << 6 | (s[*i + k] & 0x3fu);
	*i += n;
	return cp;
}

/* The ideographs of text into a new array (*n of them); NULL out of memory. */
static uint32_t *ideographs(const char *text, size_t len, size_t *n)
{
	uint32_t *out = malloc((len + 1) * sizeof(*out)), cp;
	size_t i = 0;

	*n = 0;
	if (!out)
		return NULL;
	while (i < len) {
		cp = next_cp((const unsigned char *)text, len, &i);
		if (ideograph(cp))
			out[(*n)++] = cp;
	}
	return out;
}

int ans_seed_init(const char *name, const char *text, size_t len, size_t min,
		  struct ans_seed *sd, char *err, size_t errlen)
{
	memset(sd, 0, sizeof(*sd));
	snprintf(sd->name, sizeof(sd->name), "%s", name);
	sd->min = min ? min : 1;
	sd->cp = ideographs(text, len, &sd->n);
	if (sd->cp)
		return 0;
	snprintf(err, errlen, "%s: out of memory", name);
	return -1;
}

int ans_seed_load(const char *path, size_t min, struct ans_seed *sd, char *err,
		  size_t errlen)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *text = sec_read_file(path, &len, err, errlen);
	int rc;

	memset(sd, 0, sizeof(*sd));
	if (!text)
		return -1;
	rc = ans_seed_init(base ? base + 1 : path, text, len, min, sd, err, errlen);
	free(text);
	return rc;
}

void ans_seed_free(struct ans_seed *sd)
{
	free(sd->cp);
	sd->cp = NULL;
	sd->n = 0;
}

/* Code points a[0..n) as UTF-8 into out (outlen bytes, cut to whole
 * characters). */
static void to_utf8(const uint32_t *a, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		uint32_t cp = a[i];
		size_t w = cp < 0x10000 ? 3 : 4; /* ideographs are never shorter */

		if (o + w + 1 > outlen)
			break;
		if (w == 3) {
			out[o++] = (char)(0xe0 | cp >> 12);
		} else {
			out[o++] = (char)(0xf0 | cp >> 18);
			out[o++] = (char)(0x80 | (cp >> 12 & 0x3f));
		}
		out[o++] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[o++] = (char)(0x80 | (cp & 0x3f));
	}
	if (outlen)
		out[o] = '\0';
}

size_t ans_seed_shared(const struct ans_seed *sd, const char *text, size_t len,
		       char *run, size_t runlen)
{
	size_t n, i, j, best = 0, best_end = 0;
	size_t *row = NULL; /* row[j]: the run that ends at the answer's i and the seed's j - 1 */
	uint32_t *a = ideographs(text, len, &n);

	if (run && runlen)
		run[0] = '\0';
	if (a)
		row = calloc(sd->n + 1, sizeof(*row));
	for (i = 0; row && i < n; i++)
		for (j = sd->n; j > 0; j--) { /* from the end: row[j - 1] is still the last i's */
			row[j] = a[i] == sd->cp[j - 1] ? row[j - 1] + 1 : 0;
			if (row[j] > best)
				best = row[j], best_end = i + 1;
		}
	if (best < sd->min) /* out of memory too: nothing found */
		best = 0;
	if (best && run)
		to_utf8(a + best_end - best, best, run, runlen);
	free(row);
	free(a);
	return best;
}
