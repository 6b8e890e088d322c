/*
 * errata.h - the known errata of the chapters (answers/errata.md, format:
 * PROTOCOL.md section 5).  A contradicted claim is a known erratum only
 * when its measured interval meets the relation the erratum predicts
 * (claim.c decides, in the lab; the runner reads the lab's word).  An
 * error in the file is reported as "FILE:LINE: what".
 */
#ifndef DMALAB_ERRATA_H
#define DMALAB_ERRATA_H

#include <stddef.h>

#include "want.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ERRATA_MAX_SOURCES 8

struct erratum {
	char id[32];     /* claim id, "02.2" */
	char *says;      /* what the chapter says */
	char *truth;     /* the corrected statement, one line */
	char *why;       /* why it holds, one line; NULL when not given */
	struct claim_want expect; /* the predicted relation on the claim's got */
	char expect_name[64];     /* expect.name points here for "eq NAME" */
	char *expect_text;        /* as written */
	char when_fact[64];       /* "": the erratum holds everywhere */
	struct claim_want when;   /* relation on that lab fact */
	char *when_text;          /* as written, NULL when absent */
	char *source[ERRATA_MAX_SOURCES]; /* "URL — what it shows" */
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
/* Read and parse a file: 0, or -1 (errno ENOENT: no such file) with err. */
int errata_load(const char *path, struct errata *e, char *err, size_t errlen);
/*
 * 0 when the erratum predicts something a contradicting run could refute
 * (README.md "Errata are predictions"); -1 with err when its expect: is the plain
 * complement of the claim's want, in full or on one side.
 */
int errata_check_want(const struct erratum *e, const struct claim_want *want, char *err,
		      size_t errlen);
/* The erratum for a claim id, or NULL. */
const struct erratum *errata_find(const struct errata *e, const char *claim_id);
void errata_free(struct errata *e);

/*
 * The errata every reader uses: the file `named` (--errata), else the one
 * DMALAB_ERRATA names (both must exist), else `fallback` when it exists, else
 * the copy built into the library.  *path: the file read, NULL for the
 * built-in copy.  0, or -1 with err when it cannot be read or parsed.
 */
int errata_read(const char *named, const char *fallback, const char **path,
		struct errata *e, char *err, size_t errlen);
/* errata_read without a name or fallback (as the labs read them); parsed once;
 * NULL with err. */
const struct errata *errata_builtin(char *err, size_t errlen);


#ifdef __cplusplus
}
#endif
#endif
