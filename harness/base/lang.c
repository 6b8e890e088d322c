/*
 * lang.c - the language setting and the Chinese message table (lang.h).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lang.h"
#include "sections.h"

static int lang_forced = -1;

enum dmalab_lang dmalab_lang(void)
{
	/* ours first, then POSIX order: the first one set decides, as setlocale would */
	static const char *const vars[] = { "DMALAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG" };
	size_t i;

	if (lang_forced >= 0)
		return (enum dmalab_lang)lang_forced;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return !strncasecmp(v, "zh", 2) ? DMALAB_ZH : DMALAB_EN;
	}
	return DMALAB_EN;
}

void dmalab_lang_set(enum dmalab_lang lang)
{
	lang_forced = (int)lang;
}

const char *dmalab_lang_env_unknown(void)
{
	const char *v = getenv("DMALAB_LANG");

	if (!v || !*v || !strncasecmp(v, "en", 2) || !strncasecmp(v, "zh", 2) ||
	    !strcmp(v, "C") || !strncmp(v, "C.", 2) || !strcmp(v, "POSIX"))
		return NULL;
	return v;
}

/* Where the next printf conversion starts, or NULL; skips "%%". */
static const char *next_conversion(const char *s)
{
	for (; (s = strchr(s, '%')); s += 2)
		if (s[1] != '%')
			return s;
	return NULL;
}

/* The part of a conversion that decides its argument: '*'s, the length
 * modifier and the conversion letter ("%+.1f" and "%.0f" both give "f"). */
static const char *conversion_kind(const char *s, char *kind, size_t len)
{
	size_t n = 0;

	for (s++; *s && !isalpha((unsigned char)*s); s++)
		if (*s == '*' && n + 1 < len)
			kind[n++] = '*';
	for (; *s && strchr("hljztL", *s); s++)
		if (n + 1 < len)
			kind[n++] = *s;
	if (*s && n + 1 < len)
		kind[n++] = *s++;
	kind[n] = '\0';
	return s;
}

int msg_same_conversions(const char *a, const char *b)
{
	char ka[8], kb[8];

	for (;;) {
		a = next_conversion(a);
		b = next_conversion(b);
		if (!a || !b)
			return !a && !b;
		a = conversion_kind(a, ka, sizeof(ka));
		b = conversion_kind(b, kb, sizeof(kb));
		if (strcmp(ka, kb))
			return 0;
	}
}

/* The table, parsed once.  `en` is the English a lookup last paired with
 * the entry, so that msg_english can map a shown text back. */
struct msg_entry {
	char id[40];
	char *zh;
	const char *en;
};

static struct msg_entry *table;
static int table_n;

static int msg_id_ok(const char *id, const char *prefix)
{
	const char *p;

	for (p = id; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    !strchr(".-_", *p))
			return 0;
	return p > id;
}

static const struct sec_key msg_keys[] = { { "zh", SEC_REQUIRED } };

static const struct sec_kind msg_kind = {
	.what = "message",
	.keys = msg_keys,
	.nkeys = 1,
	.id_ok = msg_id_ok,
	.id_want = "lower case, digits and .-_",
	.comments = 1,
};

extern const char dmalab_messages_zh[];

int msg_table_each(const char *path, int (*each)(const char *id, const char *zh, void *arg),
		   void *arg, char *err, size_t errlen)
{
	char *text = NULL;
	struct sec_doc d;
	size_t len;
	int rc;

	if (path && !(text = sec_read_file(path, &len, err, errlen)))
		return -1;
	sec_init(&d, &msg_kind, path ? path : MSG_TABLE_BUILT_IN, err, errlen);
	rc = text ? sec_parse(&d, text, len)
		  : sec_parse(&d, dmalab_messages_zh, strlen(dmalab_messages_zh));
	for (int i = 0; !rc && i < d.ns; i++)
		if (each(d.s[i].id, d.s[i].f[0].value, arg))
			rc = sec_error(&d, d.s[i].line, "out of memory");
	sec_free(&d);
	free(text);
	return rc;
}

static int table_add(const char *id, const char *zh, void *arg)
{
	struct msg_entry *grown = realloc(table, (size_t)(table_n + 1) * sizeof(*table));

	(void)arg;
	if (!grown)
		return -1;
	table = grown;
	memset(&table[table_n], 0, sizeof(*table));
	snprintf(table[table_n].id, sizeof(table[table_n].id), "%s", id);
	if (!(table[table_n].zh = strdup(zh)))
		return -1;
	table_n++;
	return 0;
}

static void table_load(void)
{
	char err[256];

	if (msg_table_each(NULL, table_add, NULL, err, sizeof(err))) {
		/* A broken table is caught by the tests; a learner still gets
		 * every message, in English. */
		fprintf(stderr, "dmalab: %s; messages stay English\n", err);
		while (table_n)
			free(table[--table_n].zh);
	}
}

static struct msg_entry *find(const char *id)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, table_load);
	for (int i = 0; i < table_n; i++)
		if (!strcmp(table[i].id, id))
			return &table[i];
	return NULL;
}

const char *msg_zh(const char *id)
{
	struct msg_entry *e = find(id);

	return e ? e->zh : NULL;
}

const char *msg_text(const char *id, const char *en)
{
	struct msg_entry *e;

	if (dmalab_lang() != DMALAB_ZH || !(e = find(id)) || !msg_same_conversions(en, e->zh))
		return en;
	e->en = en;
	return e->zh;
}

const char *msg_english(const char *shown)
{
	for (int i = 0; i < table_n; i++)
		if (table[i].zh == shown && table[i].en)
			return table[i].en;
	return shown;
}

void msg_vformat(char *en, size_t enlen, char *shown, size_t shownlen, const char *fmt,
		 va_list ap)
{
	va_list again;

	va_copy(again, ap);
	vsnprintf(en, enlen, msg_english(fmt), again);
	va_end(again);
	vsnprintf(shown, shownlen, fmt, ap);
}

/* The zh entry "<prefix>.<key>" in zh, else en. */
static const char *msg_keyed(const char *prefix, const char *key, const char *en)
{
	char id[40];
	const char *zh;

	if (dmalab_lang() != DMALAB_ZH)
		return en;
	snprintf(id, sizeof(id), "%s.%s", prefix, key);
	zh = msg_zh(id);
	return zh ? zh : en;
}

const char *msg_claim_text(const char *claim_id, const char *en)
{
	return msg_keyed("claim", claim_id, en);
}

const char *msg_lab_title(const char *lab_id, const char *en)
{
	return msg_keyed("title", lab_id, en);
}

/* East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, W and
 * F, folded into blocks): enough for Chinese text and its punctuation. */
static int wide(unsigned cp)
{
	static const unsigned ranges[][2] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf },
		{ 0x4e00, 0x9fff }, { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
		{ 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x20000, 0x3fffd },
	};
	size_t i;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return 1;
	return 0;
}

int msg_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;
	int w = 0, more;

	while (*p) {
		more = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : *p >= 0xc0 ? 1 : 0;
		cp = more ? *p & (0x3f >> more) : *p;
		for (p++; more-- && (*p & 0xc0) == 0x80; p++)
			cp = cp << 6 | (*p & 0x3f);
		w += wide(cp) ? 2 : 1;
	}
	return w;
}
