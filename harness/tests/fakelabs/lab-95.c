/*
 * lab-95 (fake): decides one claim, then dies by SIGSEGV; its JSON record
 * keeps the decided claim.
 */
#include <signal.h>
#include <sys/resource.h>

#include "lab.h"

static const struct claim_spec claims[] = {
	{ "95.1", "fq.Q6", "decided before the crash", "fake ch0: decided before the crash",
	  "R11 an exact fact", WANT_INT(1, ""), NULL },
	{ "95.2", "fq.Q6", "never reached", "fake ch0: never reached",
	  "R11 an exact fact", WANT_INT(1, ""), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "95", .title = "fake crash",
	.topic = "a lab that dies", .timeout_s = 2,
	.claims = claims,
};

static void run(struct lab *L)
{
	struct rlimit no_core = { 0, 0 };

	claim_check_int(L, "95.1", 1);
	setrlimit(RLIMIT_CORE, &no_core); /* no core file from a test */
	raise(SIGSEGV);
}

LAB_MAIN(spec, run)
