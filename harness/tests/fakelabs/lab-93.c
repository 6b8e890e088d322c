/*
 * lab-93 (fake): skips as a whole (exit 77), as a CUDA lab does without GPU.
 */
#include "lab.h"

static const struct claim_spec claims[] = {
	{ "93.1", "fq.Q4", "the fake GPU copies", "fake ch0: the GPU copies",
	  "R11 a behaviour", WANT_TRUE, "the fake copy is not made" },
	{ "93.2", "fq.Q4", "the fake GPU copies fast", "fake ch0: at 20 GB/s or more",
	  "R10 a stated bound", WANT_GE(20, "GB/s"), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "93", .title = "fake whole-lab skip",
	.topic = "a missing precondition", .timeout_s = 2,
	.needs = { 1, 1, 0 },
	.claims = claims,
};

static void run(struct lab *L)
{
	lab_skip(L, SKIP_NO_CUDA_DEVICE, "0 devices (fake)");
}

LAB_MAIN(spec, run)
