/*
 * interrupt.c - what a lab run with --json leaves when a signal stops it:
 * its record with status "interrupted", the claims decided so far and the
 * rest "not_run".  The cleanup action may run inside malloc, so it only
 * writes a text rendered beforehand (interrupt_render, after every record),
 * swapped in with the signals held.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "lab_internal.h"

static const char *record_path;
static char *volatile text;     /* the record up to "interrupted_by": */
static volatile size_t text_len;

static const char *signal_text(int sig)
{
	return sig == SIGINT ? "\"SIGINT\"\n}\n" : sig == SIGTERM ? "\"SIGTERM\"\n}\n" :
	       sig == SIGHUP ? "\"SIGHUP\"\n}\n" : NULL;
}

static void write_interrupted(int sig)
{
	const char *end = signal_text(sig);
	int fd, saved = errno;

	if (!end || !text || !record_path)
		return;
	fd = open(record_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		cleanup_write(fd, text, text_len);
		cleanup_write(fd, end, strlen(end));
		close(fd);
	}
	errno = saved;
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
	cleanup_hold(&mask);
	old = text;
	text = next;
	text_len = len;
	cleanup_release(&mask);
	free(old);
}

void interrupt_arm(struct lab *L)
{
	if (!L->opt.json_path || record_path)
		return;
	record_path = L->opt.json_path;
	interrupt_render(L);
	cleanup_push(write_interrupted, CLEANUP_ON_STOP);
}

void interrupt_disarm(void)
{
	sigset_t mask;
	char *old;

	cleanup_hold(&mask);
	old = text;
	text = NULL;
	record_path = NULL;
	cleanup_release(&mask);
	free(old);
}
