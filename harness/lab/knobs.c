/*
 * knobs.c - a lab's sabotage: which of its knobs the sabotage build breaks
 * (every one, or those DMALAB_SABOTAGE names), and the claim-id lists the
 * knobs and the needs are written in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_internal.h"
#include "usage.h"

/* Claim ids in a knob's list and in DMALAB_SABOTAGE: blanks or commas between. */
#define SEP " ,"

/* Each claim DMALAB_SABOTAGE names must be backed by a knob of this lab. */
static int check_sabotage_ids(const struct lab_spec *spec, const char *only)
{
	for (const char *p = only + strspn(only, SEP); *p; p += strspn(p, SEP)) {
		size_t len = strcspn(p, SEP);
		const struct lab_knob *k = spec->knobs;

		while (k && k->knob && !text_list_has(k->claims, p, len, SEP))
			k++;
		if (!k || !k->knob) {
			error("DMALAB_SABOTAGE '%.*s': no knob of this lab backs that claim",
			      (int)len, p);
			return 2;
		}
		p += len;
	}
	return 0;
}

/* Whether the sabotage build breaks knob k: every knob when DMALAB_SABOTAGE
 * names nothing, else those backing a claim it names. */
static int knob_selected(const struct lab_knob *k, const char *only)
{
	if (!only || !only[strspn(only, SEP)])
		return 1;
	for (const char *p = k->claims + strspn(k->claims, SEP); *p; p += strspn(p, SEP)) {
		size_t len = strcspn(p, SEP);

		if (text_list_has(only, p, len, SEP))
			return 1;
		p += len;
	}
	return 0;
}

/*
 * The sabotage build breaks the selected knobs (say 0) and, after the
 * header, says so in a TAP comment each (say 1); the normal build keeps
 * them as declared.  Returns 0, or 2 (a usage error, said on stderr).
 */
int lab_apply_knobs(const struct lab_spec *spec, int build_flags, int say)
{
	const char *only = getenv("DMALAB_SABOTAGE");

	if (!(build_flags & LAB_BUILT_SABOTAGE) || !spec->knobs)
		return 0;
	if (!say && only && check_sabotage_ids(spec, only))
		return 2;
	for (const struct lab_knob *k = spec->knobs; k->knob; k++) {
		if (say)
			printf("# sabotage: %s %s (claims %s)\n", k->name,
			       knob_selected(k, only) ? "broken" : "as declared", k->claims);
		else if (knob_selected(k, only))
			*k->knob = k->broken;
	}
	return 0;
}

