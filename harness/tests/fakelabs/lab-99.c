/*
 * lab-99 (fake): plans two claims, decides none, exits 0: vacuous.
 */
#include "fake_raw.h"

int main(int argc, char **argv)
{
	fake_describe(argc, argv, "99", "fake vacuous", "fq.Q11");
	printf("TAP version 13\n1..2\n# claims nothing\n");
	return 0;
}
