/*
 * lab-94 (fake): one claim passes, one skips, one is inconclusive (its
 * series is too noisy), so the lab passes.
 */
#include "fake_stats.h"

static const struct claim_spec claims[] = {
	{ "94.1", "fq.Q5", "the fake latency is under 100 ns", NULL },
	{ "94.2", "fq.Q2", "remote memory is slower", NULL },
	{ "94.3", "fq.Q5", "the noisy series reaches 1 GB/s", NULL },
	{ NULL, NULL, NULL, NULL }
};

static const struct lab_spec spec = {
	.id = "94", .title = "fake per-claim skip",
	.topic = "skips and inconclusive claims", .timeout_s = 2,
	.needs = { 0, 2, 0 },
	.claims = claims,
};

static void run(struct lab *L)
{
	static struct lab_stats noisy;

	claim_le(L, "94.1", 80, 100, "ns");
	claim_skip(L, "94.2", SKIP_SINGLE_NUMA_NODE, "1 node, need 2 (fake)");
	fake_series(&noisy, "fake_noisy", "GB/s", 7, 1.0, 1.0);
	noisy.noisy = 1;
	claim_stats(L, &noisy);
	claim_ge(L, "94.3", noisy.median, 1.0, "GB/s");
}

LAB_MAIN(spec, run)
