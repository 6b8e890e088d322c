/*
 * fuzz_json_parse.c - the JSON reader (json_parse.c: json_parse on the
 * input's bytes, not NUL-ended, so a read past the end is seen) and, on
 * what it accepts, the writer that copies lab records verbatim (json.c:
 * jw_value), json_get / json_get_str / json_get_num on every key of the top
 * object, and json_escape on the input as a string.
 *
 * Checked: a parsed document written out by jw_value parses again, and
 * reading and writing that copy gives the same text again (the reader
 * refuses strings that are not UTF-8, so the writer has nothing to replace);
 * every node's count is its number of children; json_escape's text of the
 * input (to its first NUL) parses back as one string.
 */
#include "fuzz_util.h"
#include "json.h"

static void counts(const struct json *j)
{
	for (; j; j = j->next) {
		size_t n = 0;

		for (const struct json *c = j->child; c; c = c->next)
			n++;
		if (n != j->count || ((j->type == JSON_STR) != (j->str != NULL)))
			abort();
		counts(j->child);
	}
}

static char *write_out(const struct json *j, int pretty, size_t *len)
{
	struct json_writer w;
	char *s;

	jw_init(&w, pretty);
	jw_value(&w, j);
	if (w.failed)
		abort();
	s = malloc(w.len + 1);
	memcpy(s, w.buf, w.len);
	s[w.len] = '\0';
	*len = w.len;
	jw_release(&w);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128], *one, *two, *str, *esc = NULL;
	struct json *j = json_parse((const char *)data, size, err, sizeof(err)), *k;
	size_t n1, n2, nesc;
	FILE *f;

	if (!j) {
		json_parse((const char *)data, size, err, 1);
		json_parse((const char *)data, size, NULL, 0);
		goto escape;
	}
	counts(j);
	for (const struct json *c = j->type == JSON_OBJ ? j->child : NULL; c; c = c->next) {
		json_get(j, c->key);
		json_get_str(j, c->key, NULL);
		json_get_num(j, c->key, 0);
	}
	for (int pretty = 0; pretty < 2; pretty++) {
		one = write_out(j, pretty, &n1);
		k = json_parse(one, n1, err, sizeof(err));
		if (!k) {
			fprintf(stderr, "jw_value's output does not parse: %s\n%s\n", err, one);
			abort();
		}
		two = write_out(k, pretty, &n2);
		if (n1 != n2 || memcmp(one, two, n1)) {
			fprintf(stderr, "written twice, differs:\n%s\n%s\n", one, two);
			abort();
		}
		json_free(k);
		free(one);
		free(two);
	}
	json_free(j);
escape:
	str = fuzz_cstr(data, size);
	f = open_memstream(&esc, &nesc);
	if (!f)
		abort();
	json_escape(f, str);
	fclose(f);
	k = json_parse(esc, nesc, err, sizeof(err));
	if (!k || k->type != JSON_STR) {
		fprintf(stderr, "json_escape's output is no string: %s\n%s\n", err, esc);
		abort();
	}
	json_free(k);
	free(esc);
	free(str);
	return 0;
}
