/*
 * interrupt.c - what a lab run alone with --json leaves when Ctrl-C (or
 * SIGTERM, SIGHUP) stops it: its record with status "interrupted", the
 * signal named, the claims decided so far and the rest "not_run" -- never a
 * file that still says "running" with claims "pending".
 *
 * The record is written by an action of the cleanup chain (cleanup.h), which
 * may run at any point, inside malloc too, so it only calls open, write and
 * close on a text rendered beforehand: interrupt_render runs after every
 * record the lab writes (at start and at each verdict), and swaps the new
 * text in with the signals held.  The chain then lets the lab die by the
 * signal.
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
