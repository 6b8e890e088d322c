/*
 * lang.h - the language a learner reads: English (the default) or Chinese.
 *
 * Chosen once, here: DMALAB_LANG (zh or en), else the locale (LC_ALL,
 * LC_MESSAGES, LANG: the first set one; zh... selects Chinese).  `make
 * ... LANG=zh` works through the last one; QUIZ_LANG is an alias the
 * Makefile turns into DMALAB_LANG.
 *
 * The Chinese texts are one message table, answers/messages.zh.md (the
 * sections format, sections.h), built into the library.  Each message has
 * an id, and the C code names it with its English text next to it:
 *
 *	lab_note(L, MSG("01.fresh", "mlock of %s of fresh memory"), size);
 *
 * An id, not the English text, is the key: the English is long, wraps
 * across source lines and gets reworded, and a reword must not silently
 * drop the Chinese (the coverage test in test-answers.sh finds every MSG
 * id in the C code and wants a zh entry for it; a reworded English keeps
 * its id and its Chinese, which the translator then revisits).
 *
 * Only what a person reads goes through MSG: TAP test lines, JSON, JUnit
 * and reason codes stay English in every language, so tools never change.
 */
#ifndef DMALAB_LANG_H
#define DMALAB_LANG_H

#ifdef __cplusplus
extern "C" {
#endif

enum dmalab_lang { DMALAB_EN = 0, DMALAB_ZH = 1 };

/* The language of this process, read from the environment once. */
enum dmalab_lang dmalab_lang(void);
/* For tests and --lang flags: overrides the environment from now on. */
void dmalab_lang_set(enum dmalab_lang lang);

/*
 * The text to show for message `id`: its Chinese in zh when the table has
 * it and its printf conversions are the English's (a table that does not
 * match falls back to English rather than reading the wrong argument);
 * else `en`.  format_arg: the compiler checks a call's arguments against
 * the English.
 */
const char *msg_text(const char *id, const char *en) __attribute__((format_arg(2)));
#define MSG(id, en) msg_text(id, en)

/* The English a shown text came from (msg_text's result), else shown
 * itself: what JSON keeps whatever the language. */
const char *msg_english(const char *shown);

/* A claim's text as the learner reads it: the table's "claim.<id>" in zh,
 * else en (the claim_spec's text, which TAP test lines and JSON keep). */
const char *msg_claim_text(const char *claim_id, const char *en);

/* A lab's title as the learner reads it: the table's "title.<id>" in zh,
 * else en (the lab_spec's title, which TAP, JSON and the goldens keep). */
const char *msg_lab_title(const char *lab_id, const char *en);

/* Columns a UTF-8 text takes on a terminal: East Asian wide characters
 * (U+1100 and up, the CJK blocks and full-width forms) take two. */
int msg_width(const char *s);

/* The message table's entry for id, NULL if none (tests). */
const char *msg_zh(const char *id);

/* 1 when two printf formats take the same arguments in the same order. */
int msg_same_conversions(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
