/*
 * smaps.c - the huge pages behind a buffer, from /proc/self/smaps (smaps.h).
 *
 * An smaps file is a header line per mapping ("lo-hi perms offset dev inode
 * path"), then "Key: value" lines for it, VmFlags last.  A header is told
 * from a key line by its "lo-hi " start: key names hold no '-'.
 *
 * Lines are read whole with getline: a header's path may be as long as
 * PATH_MAX, and a fixed buffer would split it, its tail then read as a key
 * line ("...aRss: 9999 kB" in a file name counted as resident).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "smaps.h"

/* "Key:   1234 kB" -> bytes; 0 when the line is not that key. */
static int kb_line(const char *line, const char *key, uint64_t *bytes)
{
	size_t n = strlen(key);
	unsigned long long kb;

	if (strncmp(line, key, n) || line[n] != ':' || sscanf(line + n + 1, "%llu", &kb) != 1)
		return 0;
	*bytes = (uint64_t)kb * 1024;
	return 1;
}

/* One key line of a mapping that overlaps the range, into r. */
static void add_line(struct smaps_range *r, const char *line, int *nh_all, int *elig_seen)
{
	uint64_t v;
	int e;

	if (kb_line(line, "Rss", &v))
		r->rss += v;
	else if (kb_line(line, "AnonHugePages", &v))
		r->anon_huge += v;
	else if (kb_line(line, "Private_Hugetlb", &v) || kb_line(line, "Shared_Hugetlb", &v))
		r->hugetlb += v;
	else if (sscanf(line, "THPeligible: %d", &e) == 1) {
		r->thp_eligible = *elig_seen ? (r->thp_eligible || e) : e != 0;
		*elig_seen = 1;
	} else if (!strncmp(line, "VmFlags:", 8)) {
		/* the two-letter flags, blanks between */
		*nh_all &= text_list_has(line + 8, "nh", 2, " \n");
		r->hugeadv |= text_list_has(line + 8, "hg", 2, " \n");
	}
}

/*
 * A header line "lo-hi ..." into [*lo, *hi): 1 for a header, 0 for any
 * other line, -1 (EINVAL) for a header whose range is empty or reversed.
 */
static int header_line(const char *line, unsigned long long *lo, unsigned long long *hi)
{
	int n = 0;

	if (sscanf(line, "%llx-%llx %n", lo, hi, &n) != 2 || n == 0 || line[n - 1] != ' ')
		return 0;
	if (*hi <= *lo) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}

/* A header [lo, hi) that overlaps [addr, addr + len) widens r's span. */
static void add_mapping(struct smaps_range *r, unsigned long long lo, unsigned long long hi,
			uint64_t addr, uint64_t len)
{
	r->lo = r->vmas ? (lo < r->lo ? lo : r->lo) : lo;
	r->hi = hi > r->hi ? hi : r->hi;
	r->spills |= lo < addr || hi > addr + len;
	r->vmas++;
}

int smaps_range_read(const char *path, uint64_t addr, uint64_t len, struct smaps_range *r)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	unsigned long long lo, hi;
	int inside = 0, nh_all = 1, elig_seen = 0, head, rc = 0;

	memset(r, 0, sizeof(*r));
	r->thp_eligible = -1;
	if (len == 0 || addr + len < addr) {
		errno = ERANGE;
		return -1;
	}
	if (!(f = fopen(path ? path : "/proc/self/smaps", "re")))
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		head = header_line(line, &lo, &hi);
		if (head < 0) {
			rc = -1;
			break;
		}
		if (head) {
			inside = lo < addr + len && hi > addr;
			if (inside)
				add_mapping(r, lo, hi, addr, len);
		} else if (inside) {
			add_line(r, line, &nh_all, &elig_seen);
		}
	}
	free(line);
	fclose(f);
	if (rc == 0)
		r->nohuge = r->vmas > 0 && nh_all;
	return rc;
}
