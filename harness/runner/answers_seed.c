/*
 * answers_seed.c - runs of Chinese text an answer shares with a chapter
 * (answers.h, struct ans_seed), so that the questions and answers stay in
 * their own words.
 *
 * Both texts are reduced to their CJK ideographs (answers.h).  Every run of
 * `min` ideographs of the chapter is indexed (sorted start offsets, searched
 * by bisection); a run of the answer found there is then extended as far as
 * both texts agree.
 *
 * Time: a place (i in the answer, j in the chapter) on the same diagonal
 * j - i as a match already extended past it can only give a shorter run, so
 * it is not extended again.  Each diagonal is then walked once, and the
 * worst case (one ideograph repeated on both sides, every place a match) is
 * n x N steps, not n x N x n as when every place was extended.
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

/* qsort has no context argument: the array being sorted. */
static const struct ans_seed *sorting;

static int run_cmp(const uint32_t *a, const uint32_t *b, size_t min)
{
	for (size_t k = 0; k < min; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int at_cmp(const void *x, const void *y)
{
	return run_cmp(sorting->cp + *(const size_t *)x, sorting->cp + *(const size_t *)y,
		       sorting->min);
}

int ans_seed_init(const char *name, const char *text, size_t len, size_t min,
		  struct ans_seed *sd, char *err, size_t errlen)
{
	memset(sd, 0, sizeof(*sd));
	snprintf(sd->name, sizeof(sd->name), "%s", name);
	sd->min = min ? min : 1;
	sd->cp = ideographs(text, len, &sd->n);
	sd->nat = sd->n >= sd->min ? sd->n - sd->min + 1 : 0;
	sd->at = malloc((sd->nat + 1) * sizeof(*sd->at));
	if (!sd->cp || !sd->at) {
		ans_seed_free(sd);
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	for (size_t i = 0; i < sd->nat; i++)
		sd->at[i] = i;
	sorting = sd;
	qsort(sd->at, sd->nat, sizeof(*sd->at), at_cmp);
	return 0;
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
	free(sd->at);
	sd->cp = NULL;
	sd->at = NULL;
	sd->n = sd->nat = 0;
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

/* The first place in sd->at whose run is not below key (upper: not below
 * nor equal to it); the runs equal to key lie between the two. */
static size_t run_bound(const struct ans_seed *sd, const uint32_t *key, int upper)
{
	size_t lo = 0, hi = sd->nat, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = run_cmp(sd->cp + sd->at[mid], key, sd->min);
		if (c < 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How far a[i..n) and the seed from j agree, knowing the first min do. */
static size_t agree(const uint32_t *a, size_t n, size_t i, const struct ans_seed *sd, size_t j)
{
	size_t k = sd->min;

	while (i + k < n && j + k < sd->n && a[i + k] == sd->cp[j + k])
		k++;
	return k;
}

size_t ans_seed_shared(const struct ans_seed *sd, const char *text, size_t len,
		       char *run, size_t runlen)
{
	size_t n, i, at, end, k, diag, best = 0, best_at = 0;
	size_t *reach = NULL; /* per diagonal j - i + n: where a match extended on it ended */
	uint32_t *a = ideographs(text, len, &n);

	if (run && runlen)
		run[0] = '\0';
	if (a && sd->nat)
		reach = calloc(n + sd->n + 1, sizeof(*reach));
	if (!reach) { /* out of memory, or a seed shorter than min: nothing found */
		free(a);
		return 0;
	}
	for (i = 0; i + sd->min <= n; i++) {
		end = run_bound(sd, a + i, 1);
		for (at = run_bound(sd, a + i, 0); at < end; at++) {
			diag = sd->at[at] + n - i;
			if (i < reach[diag])
				continue; /* inside a run already extended: shorter than it */
			k = agree(a, n, i, sd, sd->at[at]);
			reach[diag] = i + k;
			if (k > best)
				best = k, best_at = i;
		}
	}
	if (best && run)
		to_utf8(a + best_at, best, run, runlen);
	free(reach);
	free(a);
	return best;
}
