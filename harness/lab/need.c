/*
 * need.c - what a lab needs: checked sizes, host memory with the cgroup's limit, usage
 * errors.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "need.h"
#include "procfs.h"
#include "sysfs.h"
#include "usage.h"

/* ---- Checked arithmetic ---- */

int need_add(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a > UINT64_MAX - b) {
		errno = ERANGE;
		return -1;
	}
	*out = a + b;
	return 0;
}

int need_mul(uint64_t k, uint64_t size, uint64_t *out)
{
	if (k && size > UINT64_MAX / k) {
		errno = ERANGE;
		return -1;
	}
	*out = k * size;
	return 0;
}

uint64_t need_bytes(uint64_t k, uint64_t size, uint64_t spare)
{
	uint64_t prod, sum;

	if (need_mul(k, size, &prod) < 0 || need_add(prod, spare, &sum) < 0)
		return UINT64_MAX;
	return sum;
}

int need_fits(uint64_t k, uint64_t size, uint64_t have)
{
	uint64_t need;

	return need_mul(k, size, &need) == 0 && need <= have;
}

/* ---- The memory cgroup ---- */

/*
 * v1 reports "no limit" as the largest page count times the page size
 * (9223372036854771712 with 4 KiB pages); no machine has 2^62 bytes.
 */
#define V1_NO_LIMIT (1ULL << 62)

/*
 * The memory cgroup of this process from <root>/proc/self/cgroup: the v1
 * line whose controllers include "memory" wins over v2's "0::" line (on a
 * hybrid system v2 carries no memory controller).  Returns 1 or 2, or 0.
 */
static int cgroup_of_self(const char *root, char *path, size_t len)
{
	char file[512], line[1024];
	int version = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/proc/self/cgroup", root);
	f = fopen(file, "re");
	if (!f)
		return 0;
	while (version != 1 && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		c2[strcspn(c2, "\n")] = '\0';
		*c2 = '\0'; /* ends the controllers; the path is at c2 + 1 */
		if (text_list_has(c1 + 1, "memory", 6, ","))
			version = 1;
		else if (c2 == c1 + 1 && strncmp(line, "0:", 2) == 0)
			version = 2;
		else
			continue;
		snprintf(path, len, "%s", c2 + 1);
	}
	fclose(f);
	return version;
}

/* A limit file's value: bytes, UINT64_MAX for none; -1 if absent or garbage. */
static int read_limit(const char *file, int version, uint64_t *v)
{
	char buf[64], *end;
	unsigned long long n;

	if (sysfs_read_str(file, buf, sizeof(buf)) < 0)
		return -1;
	if (strcmp(buf, "max") == 0) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	n = strtoull(buf, &end, 10);
	if (errno || end == buf || *end != '\0')
		return -1;
	*v = version == 1 && n >= V1_NO_LIMIT ? UINT64_MAX : (uint64_t)n;
	return 0;
}

/*
 * The lowest limit on the way from the cgroup `path` up to the root of its
 * hierarchy at `base`: a parent's limit binds its children too.  Returns
 * the number of limit files read.
 */
static int lowest_limit(const char *base, const char *path, int version, uint64_t *lowest)
{
	const char *name = version == 1 ? "memory.limit_in_bytes" : "memory.max";
	char dir[512], file[1024];
	int nread = 0;

	/* "/a/b" -> "/a" -> "" (the root), each a directory under base */
	snprintf(dir, sizeof(dir), "%s%s", path[0] == '/' ? "" : "/", path);
	if (strcmp(dir, "/") == 0)
		dir[0] = '\0';
	for (;;) {
		uint64_t v;

		snprintf(file, sizeof(file), "%s%s/%s", base, dir, name);
		if (read_limit(file, version, &v) == 0) {
			nread++;
			if (v < *lowest)
				*lowest = v;
		}
		if (dir[0] == '\0')
			break;
		*strrchr(dir, '/') = '\0';
	}
	return nread;
}

/* ---- Host memory ---- */

#define CGROUP_LIMIT_NAME "the cgroup's memory limit"

int need_host_read(const char *root, struct need_host *h)
{
	char file[512], base[512];
	int version, rc = 0;

	if (!root)
		root = "";
	memset(h, 0, sizeof(*h));
	h->cgroup_max = UINT64_MAX;
	snprintf(file, sizeof(file), "%s/proc/meminfo", root);
	if (procfs_read_kb_field(file, "MemTotal", &h->mem_total) < 0)
		rc = -1;
	if (procfs_read_kb_field(file, "MemAvailable", &h->mem_available) < 0)
		rc = -1;
	version = cgroup_of_self(root, h->cgroup_path, sizeof(h->cgroup_path));
	if (version) {
		snprintf(base, sizeof(base), "%s/sys/fs/cgroup%s", root,
			 version == 1 ? "/memory" : "");
		if (lowest_limit(base, h->cgroup_path, version, &h->cgroup_max) > 0)
			h->cgroup_version = version;
	}
	h->ram = h->mem_total;
	h->ram_name = "RAM";
	if (h->ram && h->cgroup_max < h->ram) {
		h->ram = h->cgroup_max;
		h->ram_name = CGROUP_LIMIT_NAME;
	}
	h->available = h->mem_available;
	h->available_name = "MemAvailable";
	if (h->available && h->cgroup_max < h->available) {
		h->available = h->cgroup_max;
		h->available_name = CGROUP_LIMIT_NAME;
	}
	if (rc < 0)
		errno = ENOENT;
	return rc;
}

/* The live ram (or available) figure and its name; lab_error when unknown. */
static uint64_t live_figure(struct lab *L, int ram, const char **name)
{
	struct need_host h;
	const char *key = ram ? "MemTotal" : "MemAvailable";

	if (need_host_read(NULL, &h) < 0 && !(ram ? h.mem_total : h.mem_available))
		lab_error(L, "reading %s from /proc/meminfo: not found", key);
	if (name)
		*name = ram ? h.ram_name : h.available_name;
	return ram ? h.ram : h.available;
}

uint64_t need_available(struct lab *L, const char **name)
{
	return live_figure(L, 0, name);
}

const char *need_shortfall(uint64_t k, uint64_t bytes, uint64_t have, const char *what,
				char *detail, size_t len)
{
	char a[32], b[32];

	if (need_fits(k, bytes, have))
		return NULL;
	snprintf(detail, len, "%s wanted, %s %s", lab_fmt_size(bytes, a, sizeof(a)), what,
		 lab_fmt_size(have, b, sizeof(b)));
	return SKIP_NOT_ENOUGH_MEMORY;
}

void need_ram_require(struct lab *L, uint64_t k, uint64_t bytes)
{
	const char *what;
	uint64_t ram = live_figure(L, 1, &what);
	char a[32], b[32];

	if (!need_fits(k, bytes, ram))
		lab_skip(L, SKIP_NOT_ENOUGH_MEMORY, "%s of %s, need %" PRIu64 " x %s",
			 lab_fmt_size(ram, a, sizeof(a)), what, k,
			 lab_fmt_size(bytes, b, sizeof(b)));
}

const char *need_host_short(struct lab *L, uint64_t k, uint64_t bytes, char *detail,
				 size_t len)
{
	const char *what;
	uint64_t have = need_available(L, &what);

	return need_shortfall(k, bytes, have, what, detail, len);
}

/* ---- Usage errors ---- */

/* The kit's one usage line (usage.h), opened by "lab-ID" and pointing at --help. */
static int usage_vline(const struct lab *L, const char *head, const char *fmt, va_list ap)
{
	static char prog[32];
	char why[1024];

	vsnprintf(why, sizeof(why), fmt, ap);
	snprintf(prog, sizeof(prog), "lab-%s", L->spec->id);
	usage_set_prog(prog);
	usage_set_help(NULL);
	return usage_line("%s%s", head, why);
}

int lab_usage_line(const struct lab *L, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = usage_vline(L, "", fmt, ap);
	va_end(ap);
	return rc;
}

int lab_usage_error(const struct lab *L, const char *opt, const char *value,
		    const char *why_fmt, ...)
{
	char head[256];
	va_list ap;
	int rc;

	snprintf(head, sizeof(head), "--%s '%s': ", opt, value);
	va_start(ap, why_fmt);
	rc = usage_vline(L, head, why_fmt, ap);
	va_end(ap);
	return rc;
}

const char *lab_size_too_small(char *buf, size_t len, const char *opt, uint64_t got,
				uint64_t floor, const char *why)
{
	char x[32], y[32];

	snprintf(buf, len, "--%s '%s': too small: need at least %s%s", opt,
		 lab_size_arg(got, x, sizeof(x)), lab_fmt_size(floor, y, sizeof(y)),
		 why ? why : "");
	return buf;
}

int lab_size_floor(const struct lab *L, const char *opt, uint64_t got,
			 uint64_t floor, const char *why)
{
	char msg[512];

	if (got >= floor)
		return 0;
	return lab_usage_line(L, "%s", lab_size_too_small(msg, sizeof(msg), opt, got, floor,
							   why));
}
