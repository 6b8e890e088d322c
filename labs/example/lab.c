/*
 * labs/example/lab.c - the example of labs/README.md: is a walk through
 * memory in address order faster than one in random order?  Not a real lab
 * (only labs/NN-name are found): `make test-example` demands that this build
 * confirms both claims and the sabotage build contradicts both.
 *
 * A chain has one link per 64-byte cache line: the line's first word holds
 * the index of the next word to read, so every read waits for the one before
 * (no overlap hides a miss).  The random chain is a Sattolo shuffle of the
 * identity: one cycle through all lines, none pointing at itself (the exact
 * claim).
 */
#include <stdlib.h>

#include "lab.h"

#define READS_PER_SAMPLE (1 << 16)
#define LINE (64 / sizeof(uint32_t)) /* words in a cache line */

/* What `make selftest` breaks, in one place: the sabotage build sets each
 * knob to its broken value (DMALAB_SABOTAGE=00.2: only that claim's). */
static struct knobs {
	int shuffle; /* 00.1 00.2: the random chain is shuffled (Sattolo) */
} K = { .shuffle = 1 };

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.shuffle, 0, "00.1 00.2"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "00.1", "example.Q1",
	  "reading a buffer larger than the caches in random order is several times slower per "
	  "read than in address order",
	  "example, not the chapters: in random order every read misses the caches and the TLB; in "
	  "address order the prefetcher hides them",
	  "R5 'several times' -> ratio >= 3",
	  WANT_RATIO_GE(3),
	  "the shuffle is skipped: every line points at itself, so the 'random' chain reads one "
	  "cached word" },
	{ "00.2", "example.Q1",
	  "the random chain moves on at every read: no cache line points at itself",
	  "example, not the chapters: Sattolo's shuffle makes one cycle through all lines",
	  "R11 exact count -> 0 lines",
	  WANT_INT(0, "lines"),
	  "the shuffle is skipped: every line points at itself" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static const struct lab_spec spec = {
	.id = "00",
	.title = "example: reads in address order and in random order",
	.topic = "what does the order of dependent reads cost once the caches are too small",
	.timeout_s = 60,
	.needs = { .cuda_devices = 0, .numa_nodes = 1, .root = 0 },
	.claims = claims,
	.default_size = 256 * MiB,
	.quick_size = 64 * MiB,
	.min_size = 64 * MiB, /* more than the caches */
	.max_size = 4ULL * UINT32_MAX, /* a word index is 32 bits */
	.size_why = " (more than the caches)",
	.default_iters = 21, /* a narrow interval on a busy machine too */
	.knobs = knobs,
};

struct chase {
	const uint32_t *next; /* next[i]: the word read after word i */
	uint32_t at;          /* where the walk stands; kept across samples */
};

/* One sample (a lab_run_fn): READS_PER_SAMPLE dependent reads; seconds. */
static double chase_run(void *ctx)
{
	struct chase *c = (struct chase *)ctx;
	uint32_t at = c->at;
	double t0 = lab_now(), t;

	for (int i = 0; i < READS_PER_SAMPLE; i++)
		at = c->next[at];
	t = lab_now() - t0;
	c->at = at;
	lab_sink(at); /* or the compiler may drop the loop */
	return t;
}

static void run(struct lab *L)
{
	const struct lab_opts *o = lab_options(L);
	uint64_t bytes = o->size;
	uint64_t n = bytes / 64, i, self = 0, rng = o->seed; /* n lines */
	uint32_t *seq = (uint32_t *)malloc(bytes), *rnd = (uint32_t *)malloc(bytes);
	struct chase c_seq = { seq, 0 }, c_rnd = { rnd, 0 };
	struct lab_stats s_seq, s_rnd;
	char sz[32];

	if (!seq || !rnd)
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "malloc of 2 x %s failed",
			 lab_fmt_size(bytes, sz, sizeof(sz)));
	for (i = 0; i < n; i++) { /* writes every page before anything is timed */
		seq[i * LINE] = (uint32_t)((i + 1) % n * LINE);
		rnd[i * LINE] = (uint32_t)(i * LINE);
	}
	for (i = n - 1; K.shuffle && i > 0; i--) { /* Sattolo: j < i, never i */
		uint64_t j = lab_random(&rng) % i;
		uint32_t t = rnd[i * LINE];

		rnd[i * LINE] = rnd[j * LINE];
		rnd[j * LINE] = t;
	}
	for (i = 0; i < n; i++)
		self += rnd[i * LINE] == i * LINE;

	lab_note(L, MSG("00.say-1",
		"two chains of %s each, %d reads a sample"), lab_fmt_size(bytes, sz, sizeof(sz)),
		 READS_PER_SAMPLE);
	lab_measure(L, "chase_address_order", chase_run, &c_seq, NULL, &s_seq);
	lab_measure(L, "chase_random_order", chase_run, &c_rnd, NULL, &s_rnd);
	lab_stats_scale(&s_seq, 1e9 / READS_PER_SAMPLE, "ns"); /* per read */
	lab_stats_scale(&s_rnd, 1e9 / READS_PER_SAMPLE, "ns");
	lab_fact_num(L, "ns_per_read_random", s_rnd.median, "ns");

	claim_note(L, MSG("00.note-1",
		"%.1f ns a read in random order, %.2f ns in address order"), s_rnd.median,
		   s_seq.median);
	claim_check_ratio(L, "00.1", &s_rnd, &s_seq);
	claim_note(L, MSG("00.note-2",
		"%llu of %llu lines point at themselves"), (unsigned long long)self,
		   (unsigned long long)n);
	claim_check_int(L, "00.2", (long long)self);
	free(seq);
	free(rnd);
}

LAB_MAIN(spec, run)
