/*
 * lab-92 (fake): one claim passes, one fails (not a known erratum).
 */
#include "lab.h"

static const struct claim_spec claims[] = {
	{ "92.1", "fq.Q1", "one is less than two", NULL },
	{ "92.2", "fq.Q1", "the ratio is about 2x", NULL },
	{ NULL, NULL, NULL, NULL }
};

static const struct lab_spec spec = {
	.id = "92", .title = "fake fail",
	.topic = "a contradicted claim", .timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	claim_lt(L, "92.1", 1, 2, "s");
	claim_near(L, "92.2", 3.0, 2.0, 0, 0.25, "x");
}

LAB_MAIN(spec, run)
