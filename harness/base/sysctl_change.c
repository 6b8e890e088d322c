/*
 * sysctl_change.c - machine-wide settings journaled, changed and put back
 * (sysctl_change.h).
 *
 * The cleanup action (cleanup.h) may run in a signal handler, where only
 * async-signal-safe functions may be called, so every string it writes is
 * made when the setting is journaled: the file's full path, the old value
 * with its newline, and the journal's "restored" line, each with its length.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "sysctl_change.h"
#include "sysfs.h"
#include "usage.h"

#define JOURNAL_MAGIC "dmalab-restore 1"
#define ROOT_MAX 256
#define REPLAY_MAX 64 /* "set" lines a replay reads */

struct change {
	char path[SYSCTL_PATH_MAX];
	char full[ROOT_MAX + SYSCTL_PATH_MAX];     /* root + path */
	char old[SYSCTL_VALUE_MAX + 1];            /* with its '\n' */
	size_t old_len;
	char done[SYSCTL_PATH_MAX + 16];           /* "restored PATH\n" */
	size_t done_len;
	volatile sig_atomic_t restored;
};

static struct change tab[SYSCTL_MAX_CHANGES];
static volatile sig_atomic_t ntab;
static int journal_fd = -1;
static char journal_file[PATH_MAX];
static char root_dir[ROOT_MAX];
static pid_t owner;


/* ---- Files ---- */

int sysctl_path_allowed(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (!n || n >= SYSCTL_PATH_MAX || strstr(path, "/..") || strpbrk(path, " \t\n"))
		return 0;
	return !strncmp(path, "/proc/sys/", 10) || !strncmp(path, "/sys/kernel/mm/", 15);
}

static int full_path(const char *root, const char *path, char *buf, size_t len)
{
	if (!sysctl_path_allowed(path)) {
		errno = EINVAL;
		return -1;
	}
	if (snprintf(buf, len, "%s%s", root ? root : "", path) >= (int)len) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

/* Writes n bytes to the file; async-signal-safe.  0, or -1 with errno. */
static int write_file(const char *full, const char *v, size_t n)
{
	int fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC), r, e;

	if (fd < 0)
		return -1;
	r = cleanup_write(fd, v, n);
	e = errno;
	if (close(fd) < 0 && r == 0)
		return -1;
	errno = e;
	return r;
}

int sysctl_read(const char *root, const char *path, char *buf, size_t len)
{
	char full[ROOT_MAX + SYSCTL_PATH_MAX], text[4096], *value = text, *word;

	if (full_path(root, path, full, sizeof(full)) < 0 ||
	    sysfs_read_str(full, text, sizeof(text)) < 0)
		return -1;
	if (strchr(text, '\n')) { /* one line, or it cannot be written back */
		errno = EINVAL;
		return -1;
	}
	if ((word = sysfs_choice(text)))
		value = word;
	if (strlen(value) >= len) {
		errno = ERANGE;
		return -1;
	}
	strcpy(buf, value);
	return 0;
}

const char *sysctl_journal_path(const char *lab_id, char *buf, size_t len)
{
	const char *env = getenv(SYSCTL_RESTORE_ENV), *tmp = getenv("TMPDIR");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else
		snprintf(buf, len, "%s/dmalab-lab-%s.restore", tmp && *tmp ? tmp : "/tmp", lab_id);
	return buf;
}

/* ---- Putting back (async-signal-safe) ---- */

/* Each change not put back yet, the last first; 0 or the first errno. */
static int put_back(void)
{
	int first = 0, all = 1;

	for (int i = (int)ntab - 1; i >= 0; i--) {
		struct change *c = &tab[i];

		if (c->restored)
			continue;
		if (write_file(c->full, c->old, c->old_len) < 0) {
			first = first ? first : errno;
			all = 0;
			continue;
		}
		c->restored = 1;
		if (journal_fd >= 0)
			cleanup_write(journal_fd, c->done, c->done_len);
	}
	if (all && ntab && journal_file[0])
		unlink(journal_file);
	return first;
}

/* The cleanup action: at exit, and on a stop signal (not a crash: a
 * process whose memory is corrupt could write a corrupt value; the runner
 * puts those back from the journal on disk). */
static void put_back_at_end(int sig)
{
	if (sig) {
		int saved = errno;

		put_back();
		errno = saved;
	} else if (sysctl_change_pending() && put_back()) {
		warning("could not put a changed setting back at exit (journal %s)",
			journal_file);
	}
}

/* ---- Journaling ---- */

int sysctl_change_pending(void)
{
	int n = 0;

	for (int i = 0; i < (int)ntab; i++)
		n += !tab[i].restored;
	return n;
}

int sysctl_change_open(const char *journal, const char *root, sysctl_replay_fn fn, void *ctx)
{
	char head[64];
	struct stat st;
	int put, n;

	if (journal_fd >= 0) {
		errno = EALREADY;
		return -1;
	}
	if (strlen(root ? root : "") >= sizeof(root_dir) ||
	    strlen(journal) >= sizeof(journal_file)) {
		errno = ERANGE;
		return -1;
	}
	/* an empty file is replaced; a file that is not a journal is not ours */
	if ((put = sysctl_replay(journal, root, fn, ctx)) < 0 &&
	    (errno != EINVAL || stat(journal, &st) < 0 || st.st_size > 0))
		return -1;
	journal_fd = open(journal, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC |
			  O_NOFOLLOW, 0600);
	if (journal_fd < 0)
		return -1;
	n = snprintf(head, sizeof(head), "%s %ld\n", JOURNAL_MAGIC, (long)getpid());
	if (cleanup_write(journal_fd, head, (size_t)n) < 0) {
		close(journal_fd);
		journal_fd = -1;
		return -1;
	}
	snprintf(journal_file, sizeof(journal_file), "%s", journal);
	snprintf(root_dir, sizeof(root_dir), "%s", root ? root : "");
	owner = getpid();
	cleanup_push(put_back_at_end, CLEANUP_AT_EXIT | CLEANUP_ON_STOP);
	return put > 0 ? put : 0;
}

static struct change *find_change(const char *path)
{
	for (int i = 0; i < (int)ntab; i++)
		if (!strcmp(tab[i].path, path))
			return &tab[i];
	return NULL;
}

/* Journals path's value now: a new entry of tab, or NULL with errno. */
static struct change *journal_change(const char *path)
{
	struct change *c;
	char line[SYSCTL_PATH_MAX + SYSCTL_VALUE_MAX + 8], old[SYSCTL_VALUE_MAX];
	int n;

	if (ntab >= SYSCTL_MAX_CHANGES) {
		errno = ENOSPC;
		return NULL;
	}
	if (sysctl_read(root_dir, path, old, sizeof(old)) < 0)
		return NULL;
	c = &tab[ntab];
	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	full_path(root_dir, path, c->full, sizeof(c->full));
	c->old_len = (size_t)snprintf(c->old, sizeof(c->old), "%s\n", old);
	c->done_len = (size_t)snprintf(c->done, sizeof(c->done), "restored %s\n", path);
	c->restored = 1; /* nothing to put back until the value is written */
	n = snprintf(line, sizeof(line), "set %s %s\n", path, old);
	if (cleanup_write(journal_fd, line, (size_t)n) < 0)
		return NULL;
	ntab++;
	return c;
}

int sysctl_change_set(const char *path, const char *value)
{
	char text[SYSCTL_VALUE_MAX + 1];
	struct change *c;
	int n;

	if (journal_fd < 0 || getpid() != owner) {
		errno = ENOTCONN;
		return -1;
	}
	if (!sysctl_path_allowed(path) || strchr(value, '\n') ||
	    strlen(value) >= SYSCTL_VALUE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (!(c = find_change(path)) && !(c = journal_change(path)))
		return -1;
	c->restored = 0; /* from here on the old value must go back */
	n = snprintf(text, sizeof(text), "%s\n", value);
	return write_file(c->full, text, (size_t)n);
}

int sysctl_change_restore(void)
{
	int e = getpid() == owner ? put_back() : 0;

	if (e)
		errno = e;
	return e ? -1 : 0;
}

/* ---- Replay ---- */

struct journal_set {
	char path[SYSCTL_PATH_MAX];
	char old[SYSCTL_VALUE_MAX];
	int restored;
};

/* The "set" records of an open journal; -1 (EINVAL) for a bad first line. */
static int read_journal(FILE *f, struct journal_set *s, int max, long *pid)
{
	char line[SYSCTL_PATH_MAX + SYSCTL_VALUE_MAX + 16], path[SYSCTL_PATH_MAX];
	int n = 0, off;

	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, JOURNAL_MAGIC " %ld", pid) != 1) {
		errno = EINVAL;
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (n < max && sscanf(line, "set %127s %n", path, &off) == 1 && off > 4) {
			snprintf(s[n].path, sizeof(s[n].path), "%s", path);
			snprintf(s[n].old, sizeof(s[n].old), "%s", line + off);
			s[n++].restored = 0;
		} else if (sscanf(line, "restored %127s", path) == 1) {
			for (int i = 0; i < n; i++)
				s[i].restored |= !strcmp(s[i].path, path);
		}
	}
	return n;
}

static int process_alive(long pid)
{
	return pid > 0 && pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* One setting back where it differs; fills it. */
static void replay_one(const char *root, const struct journal_set *s,
		       struct sysctl_replay_item *it)
{
	char full[ROOT_MAX + SYSCTL_PATH_MAX], text[SYSCTL_VALUE_MAX + 1];
	int n;

	memset(it, 0, sizeof(*it));
	it->path = s->path;
	it->old = s->old;
	if (sysctl_read(root, s->path, it->now, sizeof(it->now)) < 0) {
		it->err = errno;
		return;
	}
	if (!strcmp(it->now, s->old))
		return;
	n = snprintf(text, sizeof(text), "%s\n", s->old);
	if (full_path(root, s->path, full, sizeof(full)) < 0 ||
	    write_file(full, text, (size_t)n) < 0)
		it->err = errno;
	else
		it->wrote = 1;
}

int sysctl_replay(const char *journal, const char *root, sysctl_replay_fn fn, void *ctx)
{
	static struct journal_set sets[REPLAY_MAX];
	struct sysctl_replay_item it;
	FILE *f = fopen(journal, "re");
	int n, wrote = 0, failed = 0;
	long pid;

	if (!f)
		return errno == ENOENT ? 0 : -1;
	n = read_journal(f, sets, REPLAY_MAX, &pid);
	fclose(f);
	if (n < 0)
		return -1;
	if (process_alive(pid)) {
		errno = EBUSY;
		return -1;
	}
	for (int i = n - 1; i >= 0; i--) { /* the last changed first, the first old value last */
		if (sets[i].restored)
			continue;
		replay_one(root, &sets[i], &it);
		wrote += it.wrote;
		failed |= it.err != 0;
		if (fn)
			fn(ctx, &it);
	}
	if (failed) {
		errno = EIO;
		return -1;
	}
	unlink(journal);
	return wrote;
}
