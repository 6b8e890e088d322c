/*
 * lab-94 (fake): one claim passes, one skips, one is inconclusive (the
 * interval of its noisy series straddles the bound), so the lab passes.
 */
#include "fake_stats.h"

static const struct claim_spec claims[] = {
	{ "94.1", "fq.Q5", "the fake latency is under 100 ns", "fake ch0: under 100 ns",
	  "R10 a stated bound", WANT_LE(100, "ns"), NULL },
	{ "94.2", "fq.Q2", "remote memory is slower", "fake ch0: remote is slower",
	  "R6 a bare comparison", WANT_RATIO_GE(1.1), "memory placed on the local node" },
	{ "94.3", "fq.Q5", "the noisy series reaches 3 GB/s", "fake ch0: 3 GB/s or more",
	  "R10 a stated bound", WANT_GE(3.0, "GB/s"), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "94", .title = "fake per-claim skip",
	.topic = "skips and inconclusive claims", .timeout_s = 2,
	.needs = { 0, 2, 0 },
	.claims = claims,
};

static void run(struct lab *L)
{
	struct lab_stats noisy;

	claim_check(L, "94.1", lab_est_exact(80));
	claim_skip(L, "94.2", SKIP_SINGLE_NUMA_NODE, "1 node, need 2 (fake)");
	fake_series(&noisy, "fake_noisy", "GB/s", 7, 1.0, 1.0);
	noisy.noisy = 1;
	claim_check_median(L, "94.3", &noisy); /* median 4, interval [1, 7] */
}

LAB_MAIN(spec, run)
