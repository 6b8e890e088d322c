/*
 * lab-92 (fake): one claim passes, one fails (no erratum listed for it).
 */
#include "lab.h"

static const struct claim_spec claims[] = {
	{ "92.1", "fq.Q1", "one is less than two", "fake ch0: 1 s is under 2 s",
	  "R10 a stated bound", WANT_LT(2, "s"), NULL },
	{ "92.2", "fq.Q1", "the ratio is about 2x", "fake ch0: about twice as fast",
	  "R4 N times", WANT_NEAR(2.0, 0.25, "x"), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "92", .title = "fake fail",
	.topic = "a contradicted claim", .timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	claim_check(L, "92.1", lab_est_exact(1));
	claim_check(L, "92.2", lab_est_exact(3.0));
}

LAB_MAIN(spec, run)
