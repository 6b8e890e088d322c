/*
 * lab-91 (fake, for the runner's tests): passes two claims and fails one
 * that the test errata file lists, so the lab passes as a whole.
 */
#include "fake_stats.h"

static const struct claim_spec claims[] = {
	{ "91.1", "fq.Q1", "two plus two is four", NULL },
	{ "91.2", "fq.Q2", "the fake copy reaches 10 GB/s", NULL },
	{ "91.3", "fq.Q3", "a listed erratum: three is five", NULL },
	{ NULL, NULL, NULL, NULL }
};

static const struct lab_spec spec = {
	.id = "91", .title = "fake pass with a known erratum",
	.topic = "the runner's happy path", .timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	static struct lab_stats rate;

	lab_note(L, "a narrative line, shown by dmalab run");
	claim_int_eq(L, "91.1", 2 + 2, 4, "");
	fake_series(&rate, "fake_copy", "GB/s", 7, 11.0, 0.5);
	claim_stats(L, &rate);
	claim_ge(L, "91.2", rate.median, 10.0, "GB/s");
	claim_int_eq(L, "91.3", 3, 5, "");
}

LAB_MAIN(spec, run)
