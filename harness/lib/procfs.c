/*
 * procfs.c - readers for the /proc and /sys files dmalab bases decisions on.
 *
 * Every reader takes its path so the unit tests can feed fixture files.
 * Errors: -1 with errno (ENOENT: file or key missing, EINVAL: a value that
 * does not parse, ERANGE: a value or string that does not fit).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/* Pagemap entry layout (Documentation/admin-guide/mm/pagemap.rst). */
#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_PFN_MASK ((1ULL << 55) - 1)
#define PAGEMAP_CHUNK 512 /* entries read per pread */

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * Parse the value part of "Key:   1234 kB": digits, then an optional "kB"
 * (scaled to bytes), then only blanks.
 */
static int parse_kb_value(const char *p, uint64_t *bytes)
{
	char *end;
	unsigned long long v;

	p = skip_blanks(p);
	if (!isdigit((unsigned char)*p))
		goto bad;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return -1;
	p = skip_blanks(end);
	if (strncmp(p, "kB", 2) == 0) {
		if (v > UINT64_MAX / 1024) {
			errno = ERANGE;
			return -1;
		}
		v *= 1024;
		p += 2;
	}
	p = skip_blanks(p);
	if (*p != '\0' && *p != '\n')
		goto bad;
	*bytes = v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* Find "key:" at the start of a line; returns the text after the colon. */
static const char *match_key(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) != 0 || line[n] != ':')
		return NULL;
	return line + n + 1;
}

/* Copy the value of "key:" in file path into val (len bytes). */
static int read_keyed_line(const char *path, const char *key, char *val, size_t len)
{
	char line[512];
	const char *rest = NULL;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		rest = match_key(line, key);
		if (rest)
			break;
	}
	fclose(f);
	if (!rest) {
		errno = ENOENT;
		return -1;
	}
	if (strlen(rest) >= len) {
		errno = ERANGE;
		return -1;
	}
	strcpy(val, rest);
	return 0;
}

int procfs_read_kb_field(const char *path, const char *key, uint64_t *bytes)
{
	char val[512];

	if (!path || !key || !bytes || !*key) {
		errno = EINVAL;
		return -1;
	}
	if (read_keyed_line(path, key, val, sizeof(val)) < 0)
		return -1;
	return parse_kb_value(val, bytes);
}

int proc_self_status(const char *key, uint64_t *bytes)
{
	return procfs_read_kb_field("/proc/self/status", key, bytes);
}

int proc_meminfo(const char *key, uint64_t *bytes)
{
	return procfs_read_kb_field("/proc/meminfo", key, bytes);
}

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char extra;
	int fd;

	if (!path || !buf || len == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	/* A file longer than the buffer would be silently cut: refuse it. */
	if (n >= 0 && (size_t)n == len - 1 && read(fd, &extra, 1) == 1) {
		close(fd);
		errno = ERANGE;
		return -1;
	}
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * sysfs numbers are decimal ("-1", "16") or, for PCI ids, hex with "0x";
 * base 0 is avoided so that a leading zero is not read as octal.
 */
int sysfs_read_long(const char *path, long *v)
{
	char buf[64], *end;
	const char *p;
	int base = 10;
	long x;

	if (sysfs_read_str(path, buf, sizeof(buf)) < 0)
		return -1;
	p = skip_blanks(buf);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16;
	errno = 0;
	x = strtol(p, &end, base);
	if (errno == ERANGE)
		return -1;
	if (end == p || *skip_blanks(end) != '\0') {
		errno = EINVAL;
		return -1;
	}
	*v = x;
	return 0;
}

int sysfs_thp_mode(const char *path, char *mode, size_t len)
{
	char buf[256];
	char *open_br, *close_br;
	size_t n;

	if (!mode || len == 0) {
		errno = EINVAL;
		return -1;
	}
	if (sysfs_read_str(path, buf, sizeof(buf)) < 0)
		return -1;
	open_br = strchr(buf, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br || close_br == open_br + 1) {
		errno = EINVAL;
		return -1;
	}
	n = (size_t)(close_br - open_br - 1);
	if (n >= len) {
		errno = ERANGE;
		return -1;
	}
	memcpy(mode, open_br + 1, n);
	mode[n] = '\0';
	return 0;
}

int procfs_cap_effective(const char *status_path, int cap, int *has)
{
	char val[512], *end;
	const char *p;
	unsigned long long mask;

	if (!status_path || !has || cap < 0 || cap > 63) {
		errno = EINVAL;
		return -1;
	}
	if (read_keyed_line(status_path, "CapEff", val, sizeof(val)) < 0)
		return -1;
	p = skip_blanks(val);
	errno = 0;
	mask = strtoull(p, &end, 16);
	if (errno == ERANGE)
		return -1;
	if (end == p || (*skip_blanks(end) != '\0' && *skip_blanks(end) != '\n')) {
		errno = EINVAL;
		return -1;
	}
	*has = (mask >> cap) & 1;
	return 0;
}

/* Running state of the contiguity scan, one pagemap entry at a time. */
struct run_scan {
	uint64_t prev_pfn; /* PFN of the previous page, 0: no run open */
	uint64_t cur_run;  /* pages in the run now open */
};

static void scan_entry(struct run_scan *s, uint64_t e, struct pagemap_runs *out)
{
	uint64_t pfn = e & PAGEMAP_PFN_MASK;

	/* Without the present bit the PFN field holds swap data, not a frame. */
	if (!(e & PAGEMAP_PRESENT)) {
		s->prev_pfn = 0;
		return;
	}
	out->present++;
	if (pfn == 0) { /* hidden by the kernel (no CAP_SYS_ADMIN) */
		s->prev_pfn = 0;
		return;
	}
	out->pfn_visible = 1;
	if (s->prev_pfn && pfn == s->prev_pfn + 1) {
		s->cur_run++;
	} else {
		out->runs++;
		s->cur_run = 1;
	}
	if (s->cur_run > out->longest_run)
		out->longest_run = s->cur_run;
	s->prev_pfn = pfn;
}

/* Read entries [first, first + n) of the pagemap and feed them to the scan. */
static int scan_pagemap(int fd, uint64_t first, uint64_t n, struct pagemap_runs *out)
{
	uint64_t buf[PAGEMAP_CHUNK];
	struct run_scan s = { 0, 0 };
	uint64_t done = 0;

	while (done < n) {
		uint64_t want = n - done < PAGEMAP_CHUNK ? n - done : PAGEMAP_CHUNK;
		off_t off = (off_t)((first + done) * sizeof(uint64_t));
		ssize_t got = pread(fd, buf, want * sizeof(uint64_t), off);

		if (got < 0)
			return -1;
		if (got == 0 || got % sizeof(uint64_t)) {
			errno = EINVAL; /* the file ends inside the range */
			return -1;
		}
		for (uint64_t i = 0; i < (uint64_t)got / sizeof(uint64_t); i++)
			scan_entry(&s, buf[i], out);
		done += (uint64_t)got / sizeof(uint64_t);
	}
	return 0;
}

/*
 * Runs are counted only over visible PFNs: when every PFN reads as 0 the
 * physical layout is unknown, so runs and longest_run stay 0.
 */
int pagemap_count_runs(const char *pagemap_path, uintptr_t addr, size_t len,
		       size_t page_size, struct pagemap_runs *out)
{
	uint64_t first, last;
	int fd, rc, saved;

	if (!out || page_size == 0 || (page_size & (page_size - 1))) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (len == 0)
		return 0;
	if (addr + len < addr) {
		errno = EINVAL;
		return -1;
	}
	first = addr / page_size;
	last = (addr + len - 1) / page_size;
	out->pages = last - first + 1;
	fd = open(pagemap_path ? pagemap_path : "/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = scan_pagemap(fd, first, out->pages, out);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
