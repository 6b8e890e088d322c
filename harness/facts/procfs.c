/*
 * procfs.c - readers for the /proc and /sys files dmalab bases decisions on,
 * and this process's right to lock memory (procfs.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sizes.h"
#include "sysfs.h"
#include "procfs.h"

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

void copy_str(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

int sysfs_thp_mode(const char *path, char *mode, size_t len)
{
	char buf[256], *word;

	if (!mode || len == 0) {
		errno = EINVAL;
		return -1;
	}
	if (sysfs_read_str(path, buf, sizeof(buf)) < 0)
		return -1;
	word = sysfs_choice(buf);
	if (!word || !*word) {
		errno = EINVAL;
		return -1;
	}
	if (strlen(word) >= len) {
		errno = ERANGE;
		return -1;
	}
	strcpy(mode, word);
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

/* ---- The right to lock ---- */

int procfs_self_has_cap(int cap)
{
	int has = 0;

	if (procfs_cap_effective("/proc/self/status", cap, &has) < 0)
		return 0;
	return has;
}

static int64_t limit_bytes(rlim_t value)
{
	if (value == RLIM_INFINITY)
		return -1;
	return value > (rlim_t)INT64_MAX ? INT64_MAX : (int64_t)value;
}

int64_t procfs_memlock_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_MEMLOCK, &rl) < 0 ? -1 : limit_bytes(rl.rlim_cur);
}

int64_t procfs_memlock_hard_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_MEMLOCK, &rl) < 0 ? -1 : limit_bytes(rl.rlim_max);
}

const char *procfs_limit_text(int64_t limit, char *buf, size_t len)
{
	if (limit < 0) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	return lab_fmt_size((uint64_t)limit, buf, len);
}

