/*
 * lab-97 (fake): prints garbage instead of TAP and writes no record.
 */
#include "fake_raw.h"

int main(int argc, char **argv)
{
	fake_describe(argc, argv, "97", "fake garbage output", "fq.Q9");
	printf("Segmentation fault? no: just noise\n{ not json\nok-ish\n");
	fprintf(stderr, "lab-97: something went wrong on stderr\n");
	return 0;
}
