/*
 * fuzz_util.h - what the fuzz targets share: a scratch directory of their
 * own (tmpfs when there is one), the fuzz input written as one file, or as a
 * fixture tree of /proc and /sys files (the format below), and a NUL-ended
 * copy of the input for parsers that take a C string.
 *
 * A fixture tree is written from text records:
 *
 *	=== sys/devices/system/node/online
 *	0-1
 *	=== sys/devices/system/node/node0/cpulist
 *	0-3
 *
 * Each "=== PATH" line starts a file whose content is every byte up to the
 * next line that starts with "=== " (its trailing newline included);
 * "=== PATH/" makes a directory.  PATH is relative, at most 12 components of
 * [A-Za-z0-9_.:+-] and no "." or ".." component: a record naming anything
 * else is skipped, so no input writes outside the tree.  Bytes before the
 * first record are ignored.
 *
 * Include once per target (static functions, no library).
 */
#ifndef DMALAB_FUZZ_UTIL_H
#define DMALAB_FUZZ_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_UNUSED __attribute__((unused))

static char fuzz_dir[256];     /* this process's scratch directory */

static int fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Empties (and with `self` removes) a directory tree. */
static FUZZ_UNUSED void fuzz_rm_tree(const char *dir, int self)
{
	char keep[300];

	nftw(dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (!self) {
		snprintf(keep, sizeof(keep), "%s", dir);
		mkdir(keep, 0700);
	}
}

static void fuzz_cleanup(void)
{
	if (fuzz_dir[0])
		fuzz_rm_tree(fuzz_dir, 1);
}

/* The scratch directory (made on first use, removed at exit). */
static FUZZ_UNUSED const char *fuzz_scratch(void)
{
	const char *base;

	if (fuzz_dir[0])
		return fuzz_dir;
	base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/dmalab-fuzz-%ld", base ? base : "/tmp",
		 (long)getpid());
	fuzz_rm_tree(fuzz_dir, 1);
	if (mkdir(fuzz_dir, 0700) < 0) {
		perror(fuzz_dir);
		abort();
	}
	atexit(fuzz_cleanup);
	return fuzz_dir;
}

static FUZZ_UNUSED void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	while (size > 0) {
		ssize_t n = write(fd, data, size);

		if (n <= 0)
			break;
		data += n;
		size -= (size_t)n;
	}
	close(fd);
}

/* The input as the file <scratch>/name; returns its path (static). */
static FUZZ_UNUSED const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", fuzz_scratch(), name);
	fuzz_write(path, data, size);
	return path;
}

/* A NUL-ended malloc'd copy of the input (free() it). */
static FUZZ_UNUSED char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* 1 if name[0..n) is a path a record may write (see the top). */
static int fuzz_path_ok(const char *name, size_t n)
{
	size_t i, comp = 0, parts = 0;

	if (n == 0 || n > 400 || name[0] == '/')
		return 0;
	for (i = 0; i <= n; i++) {
		char c = i < n ? name[i] : '/';

		if (c == '/') {
			if (comp == 0 && i < n)
				return 0;                 /* "a//b" */
			if ((comp == 1 && name[i - 1] == '.') ||
			    (comp == 2 && name[i - 1] == '.' && name[i - 2] == '.'))
				return 0;
			if (comp)
				parts++;
			comp = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == ':' || c == '+' || c == '-'))
			return 0;
		comp++;
	}
	return parts <= 12;
}

/* mkdir -p of every parent of path (below root, which exists). */
static void fuzz_mkparents(char *path, size_t root_len)
{
	for (char *p = path + root_len + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
}

/* The first line at or after the line start q that begins "=== ", or NULL. */
static const char *fuzz_next_record(const char *q, const char *end)
{
	while (q < end) {
		if (end - q >= 4 && !memcmp(q, "=== ", 4))
			return q;
		q = memchr(q, '\n', (size_t)(end - q));
		q = q ? q + 1 : end;
	}
	return NULL;
}

/* Writes the records of the input as a fresh tree; returns its root (static). */
static FUZZ_UNUSED const char *fuzz_tree(const uint8_t *data, size_t size)
{
	static char root[300];
	const char *end = (const char *)data + size;
	const char *p = fuzz_next_record((const char *)data, end);
	char path[800];
	size_t rl;

	snprintf(root, sizeof(root), "%s/tree", fuzz_scratch());
	fuzz_rm_tree(root, 0);
	rl = strlen(root);
	while (p) {
		const char *name = p + 4, *nl = memchr(name, '\n', (size_t)(end - name));
		const char *body = nl ? nl + 1 : end, *next = fuzz_next_record(body, end);
		size_t nlen = (size_t)((nl ? nl : end) - name);

		if (fuzz_path_ok(name, nlen)) {
			snprintf(path, sizeof(path), "%s/%.*s", root, (int)nlen, name);
			fuzz_mkparents(path, rl);
			if (name[nlen - 1] == '/')
				mkdir(path, 0700);
			else
				fuzz_write(path, (const uint8_t *)body,
					   (size_t)((next ? next : end) - body));
		}
		p = next;
	}
	return root;
}

#endif
