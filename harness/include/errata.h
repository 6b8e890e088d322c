/*
 * errata.h - the known errata of the chapters (answers/errata.md).
 *
 * A claim the chapter gets wrong, and that this kit shows to be wrong, is
 * listed there; a failed claim with a listed id is reported as a known
 * erratum and does not fail `dmalab check`.  Format (PROTOCOL.md section 5):
 *
 *	# Known errata
 *	## 02.2
 *	says: what the chapter says
 *	truth: what holds instead, one line
 *	why: the reason it holds, one line  (optional)
 *	source: https://...            (one or more)
 *
 * Blank lines and level-1 headings ("# ...") are allowed anywhere; any
 * other line, a missing says/truth/source, a duplicate key (but source) or
 * a duplicate id is an error reported as "FILE:LINE: what".
 */
#ifndef DMALAB_ERRATA_H
#define DMALAB_ERRATA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ERRATA_MAX_SOURCES 8

struct erratum {
	char id[32];     /* claim id, "02.2" */
	char *says;      /* what the chapter says */
	char *truth;     /* the corrected statement, one line */
	char *why;       /* why it holds, one line; NULL when not given */
	char *source[ERRATA_MAX_SOURCES];
	int nsources;
	int line;        /* line of the "## id" heading */
};

struct errata {
	struct erratum *items;
	int n;
};

/*
 * Parse text (NUL-terminated); `name` is used in messages.  Returns 0, or -1
 * with "name:line: what" in err (errlen bytes) and e left empty.
 */
int errata_parse(const char *text, const char *name, struct errata *e,
		 char *err, size_t errlen);
/*
 * Read and parse a file.  Returns 0; -1 with errno ENOENT when the file does
 * not exist (callers decide whether that matters; err says so); -1 with a
 * message for any other problem.
 */
int errata_load(const char *path, struct errata *e, char *err, size_t errlen);
/* The erratum for a claim id, or NULL. */
const struct erratum *errata_find(const struct errata *e, const char *claim_id);
void errata_free(struct errata *e);

#ifdef __cplusplus
}
#endif
#endif
