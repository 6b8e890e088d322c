/*
 * lang.h - the language a learner reads: English (the default) or Chinese,
 * from DMALAB_LANG, else the locale.  The Chinese texts are one table,
 * answers/messages.zh.md, built into the library; the C code names each
 * message by an id with its English next to it:
 *	lab_note(L, MSG("01.fresh", "mlock of %s of fresh memory"), size);
 * The id is the key, so that a reworded English keeps its Chinese.  Only
 * what a person reads goes through MSG: TAP, JSON, JUnit and reason codes
 * stay English, so tools never change.
 */
#ifndef DMALAB_LANG_H
#define DMALAB_LANG_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dmalab_lang { DMALAB_EN = 0, DMALAB_ZH = 1 };

/* The language of this process, read from the environment once. */
enum dmalab_lang dmalab_lang(void);
/* For tests and --lang flags: overrides the environment from now on. */
void dmalab_lang_set(enum dmalab_lang lang);
/* DMALAB_LANG's value when it names no language of the kit's (en..., zh..., any
 * case; C, C.*, POSIX), else NULL: a typo in the kit's own variable is bad input, where
 * LANG=fr_FR is only a locale the kit has no words for. */
const char *dmalab_lang_env_unknown(void);

/* The text for message `id`: its Chinese in zh when its printf conversions are
 * the English's, else `en` (format_arg: arguments are checked on the English). */
const char *msg_text(const char *id, const char *en) __attribute__((format_arg(2)));
#define MSG(id, en) msg_text(id, en)

/* The English a shown text came from (msg_text's result), else shown
 * itself: what JSON keeps whatever the language. */
const char *msg_english(const char *shown);

/* fmt (maybe a MSG() text) formatted twice: its English (msg_english) into
 * en, for the record, and as the learner reads it into shown. */
void msg_vformat(char *en, size_t enlen, char *shown, size_t shownlen, const char *fmt,
		 va_list ap) __attribute__((format(printf, 5, 0)));

/* A claim's text as the learner reads it: the table's "claim.<id>" in zh,
 * else en (the claim_spec's text, which TAP test lines and JSON keep). */
const char *msg_claim_text(const char *claim_id, const char *en);

/* A lab's title as the learner reads it: the table's "title.<id>" in zh,
 * else en (the lab_spec's title, which TAP, JSON and the goldens keep). */
const char *msg_lab_title(const char *lab_id, const char *en);

/* Columns a UTF-8 text takes on a terminal: East Asian wide characters
 * (U+1100 and up, the CJK blocks and full-width forms) take two. */
int msg_width(const char *s);

/* The name of the table built in, in messages. */
#define MSG_TABLE_BUILT_IN "answers/messages.zh.md (built in)"

/* Each entry of a message table (the format of answers/messages.zh.md) in
 * the file's order, read by the kit's one reader of such files (sections.h):
 * the file at path, or the table built in when path is NULL.  each returns 0,
 * or -1 out of memory.  0, or -1 with "NAME:LINE: what" or "PATH: why" in err. */
int msg_table_each(const char *path, int (*each)(const char *id, const char *zh, void *arg),
		   void *arg, char *err, size_t errlen);

/* The message table's entry for id, NULL if none (tests). */
const char *msg_zh(const char *id);

/* 1 when two printf formats take the same arguments in the same order. */
int msg_same_conversions(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
