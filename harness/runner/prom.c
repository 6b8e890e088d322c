/*
 * prom.c - the pieces of the Prometheus text exposition format (0.0.4) that
 * metrics.c and preflight.c write with: escaped label values, and the HELP
 * and TYPE lines of a gauge.
 */
#include <stdio.h>

#include "runner.h"

void prom_label(FILE *f, const char *name, const char *value, int first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fputc('\\', f);
		if (*value == '\n')
			fputs("\\n", f);
		else
			fputc(*value, f);
	}
	fputc('"', f);
}

void prom_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}
