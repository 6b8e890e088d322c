/*
 * errata.h - the known errata of the chapters (answers/errata.md).
 *
 * A claim the chapter gets wrong is listed there with the relation the
 * erratum predicts for this run's measurement.  A contradicted claim is a
 * known erratum only when its measured interval meets that relation
 * (claim.c decides, in the lab; the runner reads the lab's word).
 * Format (PROTOCOL.md section 5):
 *
 *	# Known errata
 *	## 02.2
 *	says: what the chapter says
 *	expect: ge 3                 the relation the measurement must meet,
 *	                             in the claim's unit (lab_want_parse)
 *	when: pcie_gen_max ge 4      (optional) only where a lab fact meets this;
 *	                             a fact read from the machine, never a value
 *	                             the run measures (no interval to decide on)
 *	truth: what holds instead, one line
 *	why: the reason it holds, one line  (optional)
 *	source: https://... — what it shows   (one or more)
 *
 * Blank lines and level-1 headings ("# ...") are allowed anywhere; any
 * other line, a missing says/expect/truth/source, a bad relation, a
 * duplicate key (but source) or a duplicate id is an error reported as
 * "FILE:LINE: what".
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
/*
 * Read and parse a file.  Returns 0; -1 with errno ENOENT when the file does
 * not exist (callers decide whether that matters; err says so); -1 with a
 * message for any other problem.
 */
int errata_load(const char *path, struct errata *e, char *err, size_t errlen);
/*
 * Whether the erratum predicts something a run contradicting its claim
 * could refute (DESIGN.md, Honesty): 0; -1 with "erratum ID: why" in err
 * when its expect: is the plain complement of the claim's want, in full
 * ("eq false" on a behaviour) or on one side (every value below a
 * "ratio >= 1.1", every value above an "= 1").  A gap between the two
 * (near 2 +- 25 % against "ge 3") or a bounded expect: passes.
 */
int errata_check_want(const struct erratum *e, const struct claim_want *want, char *err,
		      size_t errlen);
/* The erratum for a claim id, or NULL. */
const struct erratum *errata_find(const struct errata *e, const char *claim_id);
void errata_free(struct errata *e);

/*
 * The errata a lab checks its contradictions against: the file named by
 * DMALAB_ERRATA when set (the runner passes its --errata), else the copy of
 * answers/errata.md built into the library.  Parsed once; NULL with the
 * message in err when it cannot be read or parsed.
 */
const struct errata *errata_builtin(char *err, size_t errlen);


#ifdef __cplusplus
}
#endif
#endif
