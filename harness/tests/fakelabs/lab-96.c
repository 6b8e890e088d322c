/*
 * lab-96 (fake): decides one claim, then hangs past its 1 s timeout and
 * ignores SIGTERM, so the runner must wait out the grace period and SIGKILL
 * the group.  Its helper is orphaned (double fork) and ignores SIGTERM too:
 * the runner must still kill and reap it, and leave no process behind.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab.h"

static const struct claim_spec claims[] = {
	{ "96.1", "fq.Q7", "decided before the hang", "fake ch0: decided before the hang",
	  "R11 an exact fact", WANT_INT(1, ""), NULL },
	{ "96.2", "fq.Q7", "never reached", "fake ch0: never reached",
	  "R11 an exact fact", WANT_INT(1, ""), NULL },
	{ NULL }
};

static const struct lab_spec spec = {
	.id = "96", .title = "fake hang",
	.topic = "a lab that never ends", .timeout_s = 1,
	.claims = claims,
};

static void run(struct lab *L)
{
	pid_t pid;

	claim_check_int(L, "96.1", 1);
	signal(SIGTERM, SIG_IGN);
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			sleep(60); /* the orphaned helper */
			_exit(0);
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	sleep(60);
}

LAB_MAIN(spec, run)
