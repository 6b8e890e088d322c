/*
 * lab_main.c - a lab's life from the top: its record set up, its options and
 * inputs checked before anything is measured, its knobs applied, its run,
 * and every claim decided by the end (notebook.c writes what happens).
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_topo.h"
#include "lab_internal.h"
#include "lang.h"
#include "need.h"
#include "usage.h"

static int count_claims(const struct lab_spec *spec)
{
	int n = 0;

	while (spec->claims && spec->claims[n].id)
		n++;
	return n;
}

static void lab_init(struct lab *L, const struct lab_spec *spec, const char *self)
{
	memset(L, 0, sizeof(*L));
	L->spec = spec;
	L->self = self;
	L->status = ST_RUNNING;
	L->tap_next = 1;
	L->opt.size = spec->default_size;
	L->opt.iters = spec->default_iters >= 7 ? spec->default_iters : 7;
	L->opt.seed = 1;
	L->nclaims = count_claims(spec);
	L->claims = calloc((size_t)L->nclaims + 1, sizeof(*L->claims));
	if (!L->claims) {
		error("out of memory");
		exit(99);
	}
	for (int i = 0; i < L->nclaims; i++) {
		struct claim_rec *c = &L->claims[i];
		const struct claim_spec *s = &spec->claims[i];

		c->spec = s;
		claim_reset(&c->r);
		snprintf(c->r.id, sizeof(c->r.id), "%s", s->id);
		c->r.question = claim_own_question(s, c->question, sizeof(c->question));
		c->r.text = s->text;
		c->r.chapter = s->chapter;
		c->r.sabotage = s->sabotage;
	}
}

/* Every claim must have a verdict: an undecided one is a bug in the lab. */
static void check_all_decided(struct lab *L)
{
	for (int i = 0; i < L->nclaims; i++)
		if (L->claims[i].r.status == ST_PENDING)
			lab_error(L, "BUG: claim %s was never decided (no verdict, no skip)",
				  L->claims[i].spec->id);
}

/*
 * An unusable --json path is a usage error, found before measuring: a
 * directory or a device, or a directory where no file can be made (the
 * record is written to a temporary file there, then renamed over FILE).
 */
static int check_json_path(const struct lab *L)
{
	const char *path = L->opt.json_path, *why = NULL;
	char tmp[4096], dir[4096];
	struct stat st;
	int fd;

	if (!path)
		return 0;
	if (!path[0] || snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		why = "not a usable file name";
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		why = "is a directory";
	else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		why = "not a regular file";
	if (!why && (fd = mkstemp(tmp)) < 0) {
		snprintf(dir, sizeof(dir), "%s", path);
		snprintf(tmp, sizeof(tmp), "cannot create a file in %s: %s", dirname(dir),
			 strerror(errno));
		why = tmp;
	} else if (!why) {
		close(fd);
		unlink(tmp);
	}
	if (why)
		lab_usage_error(L, "json", path, "%s", why);
	return why != NULL;
}

/*
 * --device past the last GPU is a usage error in every lab, found before
 * measuring (asked only when --device was given: it runs cuInit here).
 */
static int check_device(const struct lab *L)
{
	struct gpu_cuda_list c;
	char msg[80], ordinal[16];

	if (!L->opt.device_given)
		return 0;
	gpu_cuda_list_read(&c);
	if (gpu_ordinal_check(L->opt.device, &c, msg, sizeof(msg)) == 0)
		return 0;
	snprintf(ordinal, sizeof(ordinal), "%d", L->opt.device);
	lab_usage_error(L, "device", ordinal, "no such GPU: %s", msg);
	return 1;
}

/*
 * The errata are read before anything is measured: a missing or malformed
 * DMALAB_ERRATA file, or an erratum of this lab's that could not be wrong
 * (errata_check_want), is bad input (one line, exit 2), not found after a
 * contradiction.  --describe checks too, for `dmalab claims`.
 */
static int check_errata(const struct lab *L)
{
	const struct errata *all;
	const struct erratum *e;
	char err[300];

	if (!(all = errata_builtin(err, sizeof(err))))
		goto refused;
	for (const struct claim_spec *c = L->spec->claims; c->id; c++)
		if ((e = errata_find(all, c->id)) && errata_check_want(e, &c->want, err,
								       sizeof(err)) < 0)
			goto refused;
	return 0;
refused:
	error("errata: %s", err);
	return 1;
}

int lab_main(const struct lab_spec *spec, void (*run)(struct lab *L),
	     int argc, char **argv, int build_flags)
{
	static struct lab lab;
	static char prog[16];
	struct lab *L = &lab;
	int describe = 0, rc;

	/* every line this lab writes to stderr opens with "lab-NN: " (usage.h) */
	snprintf(prog, sizeof(prog), "lab-%s", spec->id);
	usage_set_prog(prog);
	if (dmalab_lang_env_unknown()) {
		error("DMALAB_LANG '%s': the kit speaks en or zh", dmalab_lang_env_unknown());
		return 2;
	}
	lab_init(L, spec, argv[0]);
	stats_storage_owner(L);
	L->build_flags = build_flags;
	rc = lab_parse_args(L, argc, argv, &describe);
	if (rc)
		return rc;
	if (!describe && lab_apply_knobs(spec, build_flags, 0))
		return 2;
	if (!describe && !L->opt.role && check_json_path(L))
		return 2;
	if (!L->opt.role && check_errata(L))
		return 2;
	if (!describe && !L->opt.role && check_device(L))
		return 2;
	if (!describe && !L->opt.role && spec->check_opts) {
		rc = spec->check_opts(L);
		if (rc)
			return rc;
	}
	if (describe) {
		report_describe(spec, build_flags, stdout);
		return 0;
	}
	if (L->opt.role) {
		if (!spec->role)
			return lab_usage_error(L, "role", L->opt.role,
					       "this lab has no helper roles");
		return spec->role(L, L->opt.role);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	report_tap_header(L);
	lab_apply_knobs(spec, build_flags, 1);
	interrupt_arm(L); /* Ctrl-C from here on leaves an "interrupted" record */
	L->started = lab_now();
	lab_phase_begin(L, "start: before the lab's first step", L->started);
	run(L);
	check_all_decided(L);
	lab_finish_exit(L, 0);
	return 0;
}
