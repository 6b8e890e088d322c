/*
 * sections.h - the one reader of the kit's text files of sections ("# title",
 * "## id", "key: value" at column 0, indented continuation lines; the format:
 * answers/README.md): the questions, claims and hints (answers.h), the
 * errata (errata.h) and the message table (lang.h).  Strict on purpose: any
 * slip is an error "FILE:LINE: what", so that a typo never silently drops a
 * section.
 */
#ifndef DMALAB_SECTIONS_H
#define DMALAB_SECTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SEC_REQUIRED 1
#define SEC_REPEAT   2

struct sec_key {
	const char *name;
	int flags;               /* SEC_REQUIRED, SEC_REPEAT */
};

struct sec_field {
	int key;                 /* index into the kind's keys */
	char *value;
	size_t len;
	int line;
};

struct sec_section {
	char id[40];             /* a longer id is an error */
	int line;                /* of its "## id" heading */
	struct sec_field *f;
	int nf;
};

struct sec_doc;

/* What one kind of file holds. */
struct sec_kind {
	const char *what;        /* "question", "lab", "erratum": in messages */
	const struct sec_key *keys;
	int nkeys;
	int (*id_ok)(const char *id, const char *prefix);
	const char *id_want;     /* what an id looks like, in messages */
	const char *id_what;     /* "claim" in "not a claim id"; NULL: what */
	/* checks the title and may set doc->prefix; NULL: any title */
	int (*title)(struct sec_doc *d, const char *title);
	int comments;            /* "# ..." lines are comments; no title needed */
	const char *retired_key; /* a key no longer written here, and why */
	const char *retired_why;
};

struct sec_doc {
	const char *name;        /* the file, in messages */
	const struct sec_kind *kind;
	char *title;
	int title_line;
	char prefix[16];         /* set by kind->title: e.g. the chapter id */
	struct sec_section *s;
	int ns;
	struct sec_field *cur;   /* the value being read */
	int blanks;              /* blank lines pending inside cur */
	int line;
	char *err;
	size_t errlen;
};

void sec_init(struct sec_doc *d, const struct sec_kind *k, const char *name,
	      char *err, size_t errlen);
/* 0, or -1 with "NAME:LINE: what" in the doc's err. */
int sec_parse(struct sec_doc *d, const char *text, size_t len);
void sec_free(struct sec_doc *d);
/* Writes "NAME:LINE: what" into the doc's err; returns -1. */
int sec_error(struct sec_doc *d, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Takes a field's value: the doc no longer owns it. */
char *sec_take(struct sec_field *f);

/* A whole file, NUL-terminated, its length in *len; NULL with errno set and
 * *opened saying whether the open or the read failed. */
char *sec_read_all(const char *path, size_t *len, int *opened);
/* A whole file, NUL-terminated, its length in *len; NULL with "PATH: why"
 * in err and errno set (ENOENT when it is missing). */
char *sec_read_file(const char *path, size_t *len, char *err, size_t errlen);

/* UTF-8: valid (else *bad is the offset of the first bad byte), and a copy
 * made printable by turning each bad byte into '?' (returns how many). */
int utf8_valid(const char *s, size_t len, size_t *bad);
size_t utf8_fix(char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
