/*
 * answers_seed.c - runs of Chinese text an answer shares with a chapter
 * (answers.h, struct ans_seed), so that the questions and answers stay in
 * their own words.
 *
 * Both texts are reduced to their CJK ideographs: code, API names, digits
 * and punctuation drop out, so "锁页内存（pinned）的拷贝" and "锁页内存的拷贝"
 * compare equal, and a copied sentence is found whatever was changed around
 * its identifiers.  Every run of `min` ideographs of the chapter is indexed
 * (sorted start offsets, searched with bsearch); a run of the answer found
 * there is then extended as far as both texts agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"

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
	unsigned char c = s[*i];
	size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
	uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1fu : n == 3 ? c & 0x0fu : c & 0x07u;
	size_t k;

	if (!n || *i + n > len) {
		(*i)++;
		return 0;
	}
	for (k = 1; k < n; k++) {
		if ((s[*i + k] & 0xc0) != 0x80) {
			(*i)++;
			return 0;
		}
		cp = cp << 6 | (s[*i + k] & 0x3fu);
	}
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

/* qsort and bsearch have no context argument: the array being sorted. */
static const struct ans_seed *sorting;

static int run_cmp(const uint32_t *a, const uint32_t *b, size_t min)
{
	size_t k;

	for (k = 0; k < min; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int at_cmp(const void *x, const void *y)
{
	return run_cmp(sorting->cp + *(const size_t *)x, sorting->cp + *(const size_t *)y,
		       sorting->min);
}

/* bsearch's key is the run itself (a pointer into the answer's ideographs). */
static int key_cmp(const void *key, const void *elem)
{
	return run_cmp(key, sorting->cp + *(const size_t *)elem, sorting->min);
}

int ans_seed_init(const char *name, const char *text, size_t len, size_t min,
		  struct ans_seed *sd, char *err, size_t errlen)
{
	size_t i;

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
	for (i = 0; i < sd->nat; i++)
		sd->at[i] = i;
	sorting = sd;
	qsort(sd->at, sd->nat, sizeof(*sd->at), at_cmp);
	return 0;
}

int ans_seed_load(const char *path, size_t min, struct ans_seed *sd, char *err,
		  size_t errlen)
{
	FILE *f = fopen(path, "rb");
	const char *base = strrchr(path, '/');
	char *text = NULL, *grown;
	size_t len = 0, cap = 0, n;
	int rc;

	memset(sd, 0, sizeof(*sd));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			grown = realloc(text, cap);
			if (!grown)
				break;
			text = grown;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f) || !text || len + 4096 > cap) {
		snprintf(err, errlen, "%s: cannot read it", path);
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
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

size_t ans_seed_shared(const struct ans_seed *sd, const char *text, size_t len,
		       char *run, size_t runlen)
{
	size_t n, i, best = 0, best_at = 0, k;
	const size_t *hit, *lo;
	uint32_t *a = ideographs(text, len, &n);

	if (run && runlen)
		run[0] = '\0';
	if (!a || !sd->nat) {
		free(a);
		return 0;
	}
	sorting = sd;
	for (i = 0; i + sd->min <= n; i++) {
		hit = bsearch(a + i, sd->at, sd->nat, sizeof(*sd->at), key_cmp);
		if (!hit)
			continue;
		/* equal runs sit together: try each place the seed has this one */
		for (lo = hit; lo > sd->at && !key_cmp(a + i, lo - 1); lo--)
			;
		for (; lo < sd->at + sd->nat && !key_cmp(a + i, lo); lo++) {
			for (k = sd->min; i + k < n && *lo + k < sd->n &&
					  a[i + k] == sd->cp[*lo + k]; k++)
				;
			if (k > best)
				best = k, best_at = i;
		}
	}
	if (best && run)
		to_utf8(a + best_at, best, run, runlen);
	free(a);
	return best;
}
