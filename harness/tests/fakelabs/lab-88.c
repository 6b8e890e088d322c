/*
 * lab-88 (fake): every claim inconclusive (an interval that straddles its
 * bound, a series timed too close to its clock): no claim passed or
 * failed, so the lab's status is "inconclusive" and it exits 0.
 */
#include "fake_stats.h"

static const struct claim_spec claims[] = {
	{ "88.1", "fq.Q12", "the fake copy reaches 4 GB/s", "fake ch0: 4 GB/s or more",
	  "R10 a stated bound", WANT_GE(4.0, "GB/s"), NULL },
	{ "88.2", "fq.Q12", "the fake call takes under 1 ms", "fake ch0: under 1 ms",
	  "R10 a stated bound", WANT_LT(1e-3, "s"), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "88", .title = "fake all inconclusive",
	.topic = "a lab that decides nothing either way", .timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	struct lab_stats wide, fast;

	fake_series(&wide, "fake_wide", "GB/s", 7, 1.0, 1.0); /* [1, 7] around 4 */
	claim_check_median(L, "88.1", &wide);
	fake_series(&fast, "fake_fast", "s", 7, 1e-8, 1e-9);
	fast.too_short = 1; /* under 100 steps of its clock */
	claim_check_median(L, "88.2", &fast);
}

LAB_MAIN(spec, run)
