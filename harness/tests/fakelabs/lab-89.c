/*
 * lab-89 (fake): contradicted claims against their errata (the test errata
 * file, which reaches the lab only as DMALAB_ERRATA from the runner):
 *   89.1 the erratum predicts another value than the one measured:
 *        not-predicted, an unexplained contradiction (the lab fails);
 *   89.2 the erratum applies only where pcie_gen_max >= 4, and pcie_gen_max is 3
 *        here: not-applicable, unexplained too;
 *   89.3 the erratum's when: holds and its relation holds: predicted,
 *        the known erratum;
 *   89.4 the interval straddles the erratum's bound: inconclusive.
 */
#include <stdlib.h>

#include "lab.h"

static const struct claim_spec claims[] = {
	{ "89.1", "fq.Q13", "seven is five", "fake ch0: 7 = 5",
	  "R11 an exact fact", WANT_INT(5, ""), NULL },
	{ "89.2", "fq.Q13", "the fake link reaches 20 GB/s", "fake ch0: 20 GB/s or more",
	  "R10 a stated bound", WANT_GE(20, "GB/s"), NULL },
	{ "89.3", "fq.Q13", "both fake paths take about as long", "fake ch0: about as long",
	  "R7 about the same", WANT_NEAR(1.0, 0.25, "x"), NULL },
	{ "89.4", "fq.Q13", "the fake ratio is at most 1.2", "fake ch0: at most 1.2 x",
	  "R10 a stated bound", WANT_LE(1.2, "x"), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "89", .title = "fake errata: known only when predicted",
	.topic = "a contradiction is the known erratum only when its relation holds",
	.timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	const char *errata = getenv("DMALAB_ERRATA");
	struct lab_est straddle = { 2.0, 1.5, 2.5, 0 };

	lab_note(L, "errata: %s", errata && *errata ? errata : "(built in)");
	lab_fact_num(L, "pcie_gen_max", 3, "");
	lab_fact_num(L, "pcie_width_max", 16, "");
	claim_check_int(L, "89.1", 7);
	claim_check(L, "89.2", lab_est_exact(10));
	claim_check(L, "89.3", lab_est_exact(3));
	claim_check(L, "89.4", straddle);
}

LAB_MAIN(spec, run)
