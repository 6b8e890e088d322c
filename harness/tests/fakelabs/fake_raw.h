/*
 * fake_raw.h - for fake labs that misbehave in ways the lab library would
 * not allow: they print their own --describe and TAP with printf.
 */
#ifndef FAKE_RAW_H
#define FAKE_RAW_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One claim of a describe document: "= 3" on an exact count (R11). */
#define FAKE_CLAIM(n, text)                                                    \
	"{\"id\": \"%s." n "\", \"question\": \"%s\", \"text\": \"" text "\", "          \
	"\"chapter\": \"fake ch0: the count is 3\", \"rule\": \"R11 an exact fact\", "    \
	"\"want\": {\"op\": \"eq\", \"a\": 3, \"b\": 0, \"abs_tol\": 0, \"rel_tol\": 0, " \
	"\"unit\": \"x\", \"name\": null, \"text\": \"= 3\"}, \"sabotage\": null}"

/* Prints a dmalab-describe/1 document for two claims and exits, when asked. */
static inline void fake_describe(int argc, char **argv, const char *id, const char *title,
			  const char *question)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--describe") != 0)
			continue;
		printf("{\"schema\": \"dmalab-describe/1\", \"id\": \"%s\", "
		       "\"title\": \"%s\", \"topic\": \"runner test\", \"timeout_s\": 2, "
		       "\"needs\": {\"cuda_devices\": 0, \"numa_nodes\": 1, \"root\": 0}, "
		       "\"built_with_cuda\": false, \"sabotage\": false, \"claims\": ["
		       FAKE_CLAIM("1", "first fake claim") ", "
		       FAKE_CLAIM("2", "second fake claim") "], "
		       "\"extra_options\": []}\n", id, title, id, question, id, question);
		exit(0);
	}
}

/* A passing test point with its YAML block, as the library prints it. */
static inline void fake_pass_point(int number, const char *id, const char *question)
{
	printf("ok %d - %s first fake claim [%s]\n", number, id, question);
	printf("  ---\n  status: pass\n  op: eq\n  got: 3\n  want: 3\n"
	       "  unit: \"x\"\n  ...\n");
}

#endif
