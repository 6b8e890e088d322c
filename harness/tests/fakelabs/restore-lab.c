/*
 * restore-lab (fake, for harness/tests/test-restore.sh; not one of the
 * runner's fake labs lab-NN, so test-runner.sh never sees it): changes
 * /proc/sys/vm/nr_hugepages through sysctl_change.h, one more page than it
 * was, writes its pid to $FAKE_RESTORE_PIDFILE, then ends as
 * $FAKE_RESTORE_END says:
 *   wait         sleeps until killed (SIGKILL: only the runner can restore;
 *                SIGTERM: the lab restores itself), at most 60 s
 *   crash        dies of SIGSEGV
 *   ignore-term  ignores SIGTERM and outlives its 2 s timeout, so that the
 *                runner must SIGKILL it
 *   (else)       puts the value back itself and passes its claim
 * Root only (it skips otherwise).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "sysctl_change.h"

#define NR "/proc/sys/vm/nr_hugepages"

static const struct claim_spec claims[] = {
	{ "87.1", "fq.Q1", "the setting is back at the end", "test", "R11", WANT_TRUE, NULL },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

static struct lab_spec spec = {
	.id = "87", .title = "fake: changes nr_hugepages", .timeout_s = 30,
	.needs = { 0, 1, 1 }, .claims = claims, .default_iters = 7,
};

static void write_pid(void)
{
	const char *path = getenv("FAKE_RESTORE_PIDFILE");
	FILE *f = path && *path ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
}

static void run(struct lab *L)
{
	const char *end = getenv("FAKE_RESTORE_END");
	char journal[4096], old[64], now[64], more[32];
	int i;

	if (geteuid() != 0)
		lab_skip(L, SKIP_NOT_ROOT, "euid %d", (int)geteuid());
	if (sysctl_change_open(sysctl_journal_path("87", journal, sizeof(journal)), NULL,
			       NULL, NULL) < 0)
		lab_error_errno(L, "journal %s", journal);
	if (sysctl_read(NULL, NR, old, sizeof(old)) < 0)
		lab_error_errno(L, "reading %s", NR);
	snprintf(more, sizeof(more), "%ld", atol(old) + 1);
	if (sysctl_change_set(NR, more) < 0)
		lab_error_errno(L, "writing %s", NR);
	lab_note(L, "%s: %s -> %s, journal %s", NR, old, more, journal);
	write_pid();
	if (end && !strcmp(end, "crash"))
		raise(SIGSEGV);
	if (end && !strcmp(end, "ignore-term"))
		signal(SIGTERM, SIG_IGN);
	for (i = 0; end && (!strcmp(end, "wait") || !strcmp(end, "ignore-term")) && i < 600; i++)
		usleep(100000);
	if (sysctl_change_restore() < 0)
		lab_error_errno(L, "putting %s back", NR);
	claim_check_true(L, "87.1", sysctl_read(NULL, NR, now, sizeof(now)) == 0 &&
			 !strcmp(now, old), "nr_hugepages read back");
}

int main(int argc, char **argv)
{
	const char *end = getenv("FAKE_RESTORE_END");

	if (end && !strcmp(end, "ignore-term"))
		spec.timeout_s = 2;
	return lab_main(&spec, run, argc, argv, 0);
}
