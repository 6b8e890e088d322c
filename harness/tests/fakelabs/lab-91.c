/*
 * lab-91 (fake, for the runner's tests): passes two claims and fails one
 * whose erratum (the test errata file, reaching the lab as DMALAB_ERRATA)
 * predicts the value measured, so the lab passes as a whole.
 */
#include "fake_stats.h"

static const struct claim_spec claims[] = {
	{ "91.1", "fq.Q1", "two plus two is four", "fake ch0: 2 + 2 = 4",
	  "R11 an exact fact", WANT_INT(4, ""), NULL },
	{ "91.2", "fq.Q2", "the fake copy reaches 10 GB/s", "fake ch0: copies at 10 GB/s or more",
	  "R10 a stated bound", WANT_GE(10.0, "GB/s"), "the fake copy is not slowed down" },
	{ "91.3", "fq.Q3", "a listed erratum: three is five", "fake ch0: 3 = 5",
	  "R11 an exact fact", WANT_INT(5, ""), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "91", .title = "fake pass with a known erratum",
	.topic = "the runner's happy path", .timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	struct lab_stats rate;

	lab_note(L, "a narrative line, shown by dmalab run");
	claim_check_int(L, "91.1", 2 + 2);
	fake_series(&rate, "fake_copy", "GB/s", 7, 11.0, 0.5);
	claim_check_median(L, "91.2", &rate);
	claim_check_int(L, "91.3", 3);
}

LAB_MAIN(spec, run)
