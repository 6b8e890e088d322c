/*
 * fuzz_answers.c - the parsers of answers/ (answers.c): the input as a
 * chapter (ans_parse_chapter), as planned-claims.md (ans_parse_planned) and
 * as hints.md (ans_parse_hints); an input that starts with "=== " is a
 * directory of such files instead (fuzz_util.h's records: ch1.md, hints.md,
 * ...), read with ans_load_dir.  Also the UTF-8 check and repair
 * (utf8_valid, utf8_fix), ans_question_id_ok and ans_claim_lab on
 * the first line, and the copied-text search (ans_seed_init, ans_seed_shared,
 * answers_seed.c) on inputs up to 2 KiB (it is quadratic in the
 * ideographs, about 5e5 steps there; larger inputs would slow every run).
 *
 * Checked: every string a parser returns is valid UTF-8 and NUL-ended, every
 * question is found again by its id, utf8_fix leaves valid UTF-8 and
 * replaces exactly the bytes utf8_valid stops at, and a text shares
 * itself with its own index (all its ideographs, when at least min).
 */
#include "answers.h"
#include "fuzz_util.h"

static void valid(const char *s)
{
	if (s && !utf8_valid(s, strlen(s), NULL))
		abort();
}

static void check_chapter(const struct ans_chapter *c)
{
	valid(c->title);
	for (int i = 0; i < c->n; i++) {
		const struct ans_question *q = &c->q[i];

		if (strnlen(q->id, sizeof(q->id)) == sizeof(q->id))
			abort();
		for (int l = 0; l < ANS_NLANGS; l++) {
			valid(q->prompt[l]);
			valid(q->answer[l]);
		}
	}
}

static void check_set(const struct ans_set *s)
{
	for (int i = 0; i < s->nch; i++) {
		check_chapter(&s->ch[i]);
		if (ans_find_chapter(s, s->ch[i].id) != &s->ch[i])
			abort();
		for (int k = 0; k < s->ch[i].n; k++)
			if (ans_find_question(s, s->ch[i].q[k].id) != &s->ch[i].q[k])
				abort();
	}
	for (int i = 0; i < s->nplanned; i++) {
		valid(s->planned[i].title);
		for (int k = 0; k < s->planned[i].n; k++) {
			valid(s->planned[i].claims[k].text);
			valid(s->planned[i].claims[k].questions);
			ans_find_planned(s, s->planned[i].claims[k].id);
		}
		ans_find_planned_lab(s, s->planned[i].id);
	}
	for (int i = 0; i < s->nhints; i++) {
		for (int k = 0; k < s->hints[i].n; k++)
			for (int l = 0; l < ANS_NLANGS; l++)
				valid(s->hints[i].hint[l][k]);
		ans_find_hints(s, s->hints[i].id);
	}
}

static void utf8(const uint8_t *data, size_t size)
{
	char *copy = fuzz_cstr(data, size);
	size_t bad = 0, fixed;
	int ok = utf8_valid(copy, size, &bad);

	if (!ok && bad >= size)
		abort();
	fixed = utf8_fix(copy, size);
	if ((fixed == 0) != ok || !utf8_valid(copy, size, NULL))
		abort();
	if (!ok && copy[bad] != '?')
		abort();
	free(copy);
}

static void seed(const uint8_t *data, size_t size)
{
	static const size_t mins[] = { 1, 3, 12 };
	struct ans_seed sd;
	char err[128], run[64];

	for (size_t i = 0; i < sizeof(mins) / sizeof(mins[0]); i++) {
		size_t got;

		if (ans_seed_init("fuzz", (const char *)data, size, mins[i], &sd, err, sizeof(err)))
			abort();
		got = ans_seed_shared(&sd, (const char *)data, size, run, sizeof(run));
		if (got != (sd.n >= sd.min ? sd.n : 0) || strnlen(run, sizeof(run)) == sizeof(run))
			abort();
		ans_seed_shared(&sd, (const char *)data, size / 2, run, 1);
		ans_seed_free(&sd);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ans_chapter c;
	struct ans_set s;
	char err[256], lab[8], *first;
	const char *nl;

	if (size >= 4 && !memcmp(data, "=== ", 4)) {
		memset(&s, 0, sizeof(s));
		if (ans_load_dir(fuzz_tree(data, size), &s, err, sizeof(err)) == 0)
			check_set(&s);
		ans_set_free(&s);
		return 0;
	}
	memset(&c, 0, sizeof(c));
	if (ans_parse_chapter((const char *)data, size, "fuzz", &c, err, sizeof(err)) == 0)
		check_chapter(&c);
	ans_chapter_free(&c);

	memset(&s, 0, sizeof(s));
	ans_parse_planned((const char *)data, size, "fuzz", &s, err, sizeof(err));
	ans_parse_hints((const char *)data, size, "fuzz", &s, err, sizeof(err));
	check_set(&s);
	ans_set_free(&s);

	utf8(data, size);
	nl = memchr(data, '\n', size);
	first = fuzz_cstr(data, nl ? (size_t)(nl - (const char *)data) : size);
	ans_question_id_ok(first);
	ans_claim_lab(first, lab, sizeof(lab));
	ans_claim_lab(first, lab, 1);
	free(first);
	if (size <= 2048)
		seed(data, size);
	return 0;
}
