/*
 * messages.c - `dmalab messages [FILE]`: a message table (answers/messages.zh.md,
 * or the copy built in) as JSON on stdout, {"zh": {id: text}} in the table's
 * order, read by the kit's one reader of its sections files (lang.h,
 * sections.h).  plots/ takes its Chinese from here rather than parse the
 * file a second way.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "lang.h"
#include "runner.h"

static void messages_usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab messages [FILE]\n"
		"  the Chinese message table as JSON on standard output: {\"schema\":\n"
		"  \"dmalab-messages/1\", \"table\": its name, \"zh\": {ID: TEXT, ...}}, in the\n"
		"  table's order; a text of several lines keeps its line breaks\n"
		"  FILE         a table in the format of answers/messages.zh.md (default: the\n"
		"               copy built into dmalab, which its own messages use)\n"
		"  -h, --help   this text\n"
		"exit: 0 printed, 2 usage, or a table that cannot be read (FILE:LINE: what)\n");
}

/* FILE, or NULL for the table built in. */
static const char *parse_messages(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	int c;

	opterr = 0;
	optind = 1; /* argv[0] is "messages" */
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		if (c != 'h')
			die_bad_option(c, argv);
		messages_usage(stdout);
		exit(0);
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		die_usage(MSG("messages.err-two-files", "'%s': messages reads one table"),
			  argv[optind]);
	if (path && !*path)
		die_usage(MSG("messages.err-empty-file",
			      "FILE is '' (want a table like answers/messages.zh.md)"));
	return path;
}

static int put_entry(const char *id, const char *zh, void *w)
{
	jw_kstr(w, id, zh);
	return ((struct json_writer *)w)->failed ? -1 : 0;
}

int cmd_messages(int argc, char **argv)
{
	struct json_writer w;
	const char *path;
	char err[PATH_MAX + 300];
	int rc;

	usage_set_help("dmalab messages");
	path = parse_messages(argc, argv);
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "dmalab-messages/1");
	jw_kstr(&w, "table", path ? path : MSG_TABLE_BUILT_IN);
	jw_kobj(&w, "zh");
	rc = msg_table_each(path, put_entry, &w, err, sizeof(err));
	jw_obj_end(&w);
	jw_obj_end(&w);
	if (!rc && w.failed)
		rc = error("out of memory");
	else if (rc)
		error("%s", err);
	else
		printf("%.*s\n", (int)w.len, w.buf);
	jw_release(&w);
	return rc || fflush(stdout) ? 2 : 0;
}
