/*
 * lab-90 (fake): prints one passing claim in TAP, then aborts without ever
 * writing its JSON record: the runner must fall back to the TAP it saw.
 */
#include <signal.h>
#include <sys/resource.h>

#include "fake_raw.h"

int main(int argc, char **argv)
{
	struct rlimit no_core = { 0, 0 };

	fake_describe(argc, argv, "90", "fake abort without a JSON record", "fq.Q8");
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("TAP version 13\n# lab-90: fake abort\n1..2\n");
	fake_pass_point(1, "90.1", "fq.Q8");
	setrlimit(RLIMIT_CORE, &no_core);
	abort();
}
