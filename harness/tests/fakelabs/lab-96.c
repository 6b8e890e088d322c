/*
 * lab-96 (fake): decides one claim, then hangs past its 1 s timeout, with a
 * forked helper that ignores SIGTERM: the runner must SIGKILL the group and
 * leave no process behind.
 */
#include <signal.h>
#include <unistd.h>

#include "lab.h"

static const struct claim_spec claims[] = {
	{ "96.1", "fq.Q7", "decided before the hang", NULL },
	{ "96.2", "fq.Q7", "never reached", NULL },
	{ NULL, NULL, NULL, NULL }
};

static const struct lab_spec spec = {
	.id = "96", .title = "fake hang",
	.topic = "a lab that never ends", .timeout_s = 1,
	.claims = claims,
};

static void run(struct lab *L)
{
	pid_t pid;

	claim_int_eq(L, "96.1", 1, 1, "");
	pid = fork();
	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		sleep(60);
		_exit(0);
	}
	sleep(60);
}

LAB_MAIN(spec, run)
