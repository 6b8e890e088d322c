/*
 * lab-90 (fake): prints one passing claim and one known erratum in TAP (the
 * "# TODO known erratum" directive, its status in the YAML), then aborts
 * without ever writing its JSON record: the runner must fall back to the
 * TAP it saw, erratum included.
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
	printf("not ok 2 - 90.2 second fake claim [fq.Q8] # TODO known erratum 90.2\n");
	printf("  ---\n  status: fail\n  op: eq\n  got: 4\n  want: 3\n  unit: \"x\"\n"
	       "  erratum: \"predicted\"\n  erratum_expect: \"ge 4\"\n  ...\n");
	setrlimit(RLIMIT_CORE, &no_core);
	abort();
}
