/*
 * lab-98 (fake): prints a valid TAP record, then exits with code 3, which
 * no lab may use.
 */
#include "fake_raw.h"

int main(int argc, char **argv)
{
	fake_describe(argc, argv, "98", "fake wrong exit code", "fq.Q10");
	printf("TAP version 13\n1..2\n");
	fake_pass_point(1, "98.1", "fq.Q10");
	printf("ok 2 - 98.2 second fake claim [fq.Q10]\n");
	return 3;
}
