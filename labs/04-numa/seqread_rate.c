/*
 * seqread_rate.c - one thread's read rate as a measured series (seqread.h):
 * lab_measure of one seqread_sum pass a sample.
 */
#include "seqread.h"

struct seqread_job {
	const void *buf;
	uint64_t bytes;
};

/* A lab_run_fn: one pass, seconds; the sum to lab_sink so it is computed. */
static double seqread_pass(void *ctx)
{
	const struct seqread_job *j = (const struct seqread_job *)ctx;
	double t0 = lab_now(), t;
	uint64_t sum = seqread_sum(j->buf, j->bytes);

	t = lab_now() - t0;
	lab_sink(sum);
	return t;
}

void seqread_rate(struct lab *L, const char *name, const void *buf, uint64_t bytes,
		  const struct lab_measure_cfg *cfg, struct lab_stats *rate)
{
	struct seqread_job j = { buf, bytes - bytes % SEQREAD_CHUNK };
	struct lab_stats secs;

	lab_measure(L, name, seqread_pass, &j, cfg, &secs);
	lab_stats_to_rate(&secs, j.bytes, rate);
}
