/*
 * cleanup.c - one chain of cleanup actions, run at exit and on the signals
 * that end the process, and the temporary files it unlinks (cleanup.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

static const struct {
	int sig, when;
} handled[] = {
	{ SIGINT, CLEANUP_ON_STOP }, { SIGTERM, CLEANUP_ON_STOP }, { SIGHUP, CLEANUP_ON_STOP },
	{ SIGQUIT, CLEANUP_ON_STOP }, { SIGPIPE, CLEANUP_ON_STOP }, { SIGXCPU, CLEANUP_ON_STOP },
	{ SIGXFSZ, CLEANUP_ON_STOP }, { SIGABRT, CLEANUP_ON_CRASH }, { SIGSEGV, CLEANUP_ON_CRASH },
	{ SIGBUS, CLEANUP_ON_CRASH },
};
#define NHANDLED ((int)(sizeof(handled) / sizeof(handled[0])))

static struct sigaction before[NHANDLED]; /* handed the signal after the actions */

/* Written with the signals held, count last: the handler sees whole entries. */
static struct action {
	cleanup_fn fn;
	volatile sig_atomic_t when;
	pid_t owner;
} actions[CLEANUP_MAX];
static volatile sig_atomic_t nactions;

static void run_actions(int sig, int when)
{
	pid_t self = getpid();

	for (int i = (int)nactions - 1; i >= 0; i--)
		if (actions[i].owner == self && (actions[i].when & when))
			actions[i].fn(sig);
}

static int slot_of(int sig)
{
	int i;

	for (i = 0; i < NHANDLED && handled[i].sig != sig; i++)
		;
	return i;
}

static volatile sig_atomic_t *catch_flag; /* cleanup_catch's; NULL: the chain ends it */
static sigset_t catch_set;
static sigset_t pass_set; /* cleanup_let_pass's: a child of ours takes these */

static void on_signal(int sig)
{
	int saved = errno, i = slot_of(sig);

	if (i == NHANDLED || sigismember(&pass_set, sig) == 1)
		return;
	if (catch_flag && sigismember(&catch_set, sig) == 1) {
		*catch_flag = sig;
		return;
	}
	if (before[i].sa_handler == SIG_IGN) /* taken by cleanup_catch, and given back */
		return;
	run_actions(sig, handled[i].when);
	sigaction(sig, &before[i], NULL);
	raise(sig); /* taken when this handler returns: the one before, or death */
	errno = saved;
}

static void at_exit(void)
{
	run_actions(0, CLEANUP_AT_EXIT);
}

int cleanup_write(int fd, const void *buf, size_t n)
{
	const char *p = (const char *)buf;

	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

void cleanup_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (int i = 0; i < NHANDLED; i++)
		if (handled[i].when == CLEANUP_ON_STOP)
			sigaddset(&set, handled[i].sig);
	sigprocmask(SIG_BLOCK, &set, old);
}

void cleanup_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/*
 * The handler on each signal `when` needs, once per process: a forked copy
 * that set its own handler since (a test's) hands the signal on to that one.
 */
static void take(int i, int even_ignored)
{
	struct sigaction sa, now;

	/* ours already (before[] holds the one to hand on to), or ignored */
	if (sigaction(handled[i].sig, NULL, &now) < 0 || now.sa_handler == on_signal ||
	    (now.sa_handler == SIG_IGN && !even_ignored))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int k = 0; k < NHANDLED; k++)
		sigaddset(&sa.sa_mask, handled[k].sig);
	sigaction(handled[i].sig, &sa, &before[i]);
}

static void install(int when)
{
	static pid_t installed_by;
	static int done;

	if (installed_by != getpid()) {
		installed_by = getpid();
		done = 0;
	}
	for (int i = 0; i < NHANDLED; i++)
		if (handled[i].when & when & ~done)
			take(i, 0);
	done |= when;
}

void cleanup_catch(volatile sig_atomic_t *flag, const int *sigs, int n)
{
	sigset_t old, set;

	sigemptyset(&set);
	for (int i = 0; i < n; i++)
		sigaddset(&set, sigs[i]);
	install(CLEANUP_ON_STOP);
	for (int i = 0; i < n; i++) /* asked for by name: caught even where ignored */
		if (slot_of(sigs[i]) < NHANDLED)
			take(slot_of(sigs[i]), 1);
	cleanup_hold(&old);
	catch_set = set;
	catch_flag = flag;
	cleanup_release(&old);
}

void cleanup_let_pass(const int *sigs, int n)
{
	sigset_t old, set;

	sigemptyset(&set);
	for (int i = 0; i < n; i++)
		sigaddset(&set, sigs[i]);
	install(CLEANUP_ON_STOP);
	cleanup_hold(&old);
	pass_set = set;
	cleanup_release(&old);
}

int cleanup_push(cleanup_fn fn, int when)
{
	static int at_exit_armed;
	pid_t self = getpid();
	sigset_t old;
	int i, rc = 0;

	if ((when & CLEANUP_AT_EXIT) && !at_exit_armed)
		at_exit_armed = atexit(at_exit) == 0;
	install(when);
	cleanup_hold(&old);
	for (i = 0; i < (int)nactions; i++)
		if (actions[i].fn == fn && actions[i].owner == self)
			break;
	if (i < (int)nactions) {
		actions[i].when |= when;
	} else if (i == CLEANUP_MAX) {
		errno = ENOSPC;
		rc = -1;
	} else {
		actions[i].fn = fn;
		actions[i].when = when;
		actions[i].owner = self;
		nactions = i + 1;
	}
	cleanup_release(&old);
	return rc;
}

/* ---- Temporary files ---- */

static char files[TEMPFILE_MAX][PATH_MAX]; /* "" free */
static pid_t files_owner;                  /* a parent's files are not a child's */

static void unlink_files(int sig)
{
	(void)sig;
	for (int i = 0; i < TEMPFILE_MAX; i++)
		if (files[i][0])
			unlink(files[i]);
}

/* A path the list may hold: the runner unlinks it, maybe as root. */
static int listable(const char *path)
{
	return path[0] == '/' && !strstr(path, "/../") && !strchr(path, '\n') &&
	       strlen(path) < PATH_MAX;
}

/* Append path to $DMALAB_TEMP_LIST, in one write: the line is whole. */
static void announce(const char *path)
{
	const char *list = getenv(TEMPFILES_ENV);
	char line[PATH_MAX + 1];
	int fd, n;

	if (!list || !*list || !listable(path))
		return;
	fd = open(list, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s\n", path);
	cleanup_write(fd, line, (size_t)n); /* O_APPEND: the line lands whole */
	close(fd);
}

static void set_file(int i, const char *path)
{
	sigset_t old;

	cleanup_hold(&old);
	snprintf(files[i], sizeof(files[i]), "%s", path);
	cleanup_release(&old);
}

int tempfile_add(const char *path)
{
	int free_slot = -1;

	if (strlen(path) >= PATH_MAX)
		return errno = ENAMETOOLONG, -1;
	if (files_owner != getpid()) {
		files_owner = getpid();
		memset(files, 0, sizeof(files));
	}
	for (int i = 0; i < TEMPFILE_MAX; i++) {
		if (!strcmp(files[i], path))
			return 0;
		if (!files[i][0] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return errno = ENOSPC, -1;
	if (cleanup_push(unlink_files, CLEANUP_AT_EXIT | CLEANUP_ON_STOP | CLEANUP_ON_CRASH) < 0)
		return -1;
	set_file(free_slot, path);
	announce(path);
	return 0;
}

void tempfile_forget(const char *path)
{
	for (int i = 0; i < TEMPFILE_MAX && files_owner == getpid(); i++)
		if (!strcmp(files[i], path))
			set_file(i, "");
}

int tempfile_remove(const char *path)
{
	int rc = unlink(path) < 0 && errno != ENOENT ? -1 : 0, e = errno;

	tempfile_forget(path);
	errno = e;
	return rc;
}

/* Removes one listed file if it is still there; 1 removed, 0 not. */
static int sweep_one(const char *path, tempfile_fn fn, void *ctx)
{
	struct stat st;

	if (!listable(path) || lstat(path, &st) < 0 || S_ISDIR(st.st_mode))
		return 0;
	if (unlink(path) < 0) {
		if (fn)
			fn(ctx, path, errno);
		return 0;
	}
	if (fn)
		fn(ctx, path, 0);
	return 1;
}

int tempfile_sweep(const char *list, tempfile_fn fn, void *ctx)
{
	char line[PATH_MAX + 2];
	FILE *f = fopen(list, "re");
	int n = 0;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n += sweep_one(line, fn, ctx);
	}
	fclose(f);
	unlink(list);
	return n;
}
