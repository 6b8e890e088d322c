/*
 * interrupt.c - what a lab run alone with --json leaves when Ctrl-C (or
 * SIGTERM, SIGHUP) stops it: its record with status "interrupted", the
 * signal named, the claims decided so far and the rest "not_run" -- never a
 * file that still says "running" with claims "pending".
 *
 * The handler may run at any point, inside malloc too, so it only calls
 * open, write, close, sigaction and raise on a text rendered beforehand:
 * interrupt_render runs after every record the lab writes (at start and at
 * each verdict), and swaps the new text in with the signals blocked.
 * Then the handler hands the signal to the handler that was there before
 * (proc.c kills the lab's children; sysctl_change.c puts settings back), or
 * to the default action: the lab still dies by the signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_internal.h"

static const int handled[] = { SIGINT, SIGTERM, SIGHUP };
#define NHANDLED ((int)(sizeof(handled) / sizeof(handled[0])))

static struct sigaction before[NHANDLED];
static int armed[NHANDLED];
static const char *record_path;
static char *volatile text;     /* the record up to "interrupted_by": */
static volatile size_t text_len;
static pid_t owner;             /* a helper process (--role) writes nothing */

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		p += k;
		n -= (size_t)k;
	}
}

static const char *signal_text(int sig)
{
	return sig == SIGINT ? "\"SIGINT\"\n}\n" : sig == SIGTERM ? "\"SIGTERM\"\n}\n" :
	       "\"SIGHUP\"\n}\n";
}

static void on_signal(int sig)
{
	int i, fd, saved = errno;

	if (getpid() == owner && text && record_path) {
		fd = open(record_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			write_all(fd, text, text_len);
			write_all(fd, signal_text(sig), strlen(signal_text(sig)));
			close(fd);
		}
	}
	for (i = 0; i < NHANDLED; i++)
		if (handled[i] == sig && armed[i])
			sigaction(sig, &before[i], NULL);
	raise(sig); /* taken when this handler returns: the next one, or death */
	errno = saved;
}

static void block(sigset_t *old)
{
	sigset_t set;
	int i;

	sigemptyset(&set);
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&set, handled[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void interrupt_render(const struct lab *L)
{
	size_t len = 0;
	char *next, *old;
	sigset_t mask;

	if (!record_path)
		return;
	next = report_json_interrupted(L, &len);
	if (!next)
		return; /* keep the last one: older, but still a record */
	block(&mask);
	old = text;
	text = next;
	text_len = len;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	free(old);
}

void interrupt_arm(struct lab *L)
{
	struct sigaction sa;
	int i;

	if (!L->opt.json_path || record_path)
		return;
	owner = getpid();
	record_path = L->opt.json_path;
	interrupt_render(L);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NHANDLED; i++)
		sigaddset(&sa.sa_mask, handled[i]);
	for (i = 0; i < NHANDLED; i++) {
		/* a background job's ignored SIGINT stays ignored */
		if (sigaction(handled[i], NULL, &before[i]) == 0 &&
		    before[i].sa_handler == SIG_IGN)
			continue;
		armed[i] = sigaction(handled[i], &sa, &before[i]) == 0;
	}
}

void interrupt_disarm(void)
{
	sigset_t mask;
	char *old;

	block(&mask);
	old = text;
	text = NULL;
	record_path = NULL;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	free(old);
}
