/*
 * report_out.c - dmalab-preflight's output: one aligned line per check for
 * people, and the whole result as JSON (--json FILE) for machines.
 *
 * The JSON object (readers ignore keys they do not know):
 *   tool "dmalab-preflight", schema 1, hostname, status ("healthy",
 *   "unhealthy", "could_not_run"), exit_code, summary (the status line),
 *   elapsed_s, options {...}, checks [{name, status, detail}], gpus [{bdf,
 *   name, in_sysfs, cuda_ordinal, measured, why_not, pcie {idle, under_load,
 *   under_load_lowest, max: {gen, width}}, link_readings, link_source,
 *   theoretical_gbs, h2d_gbs, h2d_min_gbs, h2d_max_gbs, h2d_samples,
 *   h2d_bytes, fraction}]; numbers unknown are null.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "health.h"
#include "json.h"
#include "sysinfo.h"

void pf_print_checks(const struct pf_report *r, FILE *f)
{
	for (int i = 0; i < r->n; i++)
		fprintf(f, "%-8s %-7s %s\n", r->check[i].name, pf_status_word(r->check[i].status),
			r->check[i].line);
}

static void json_link(struct json_writer *w, const char *key, const struct pf_link *k)
{
	jw_key(w, key);
	jw_obj_begin(w);
	if (k->gen > 0)
		jw_kint(w, "gen", k->gen);
	else
		jw_knum(w, "gen", NAN);
	if (k->width > 0)
		jw_kint(w, "width", k->width);
	else
		jw_knum(w, "width", NAN);
	jw_obj_end(w);
}

static void json_measure(struct json_writer *w, const struct pf_measure *m)
{
	double theo = pcie_rate_gbs(m->max.gen, m->max.width);

	jw_key(w, "pcie");
	jw_obj_begin(w);
	json_link(w, "idle", &m->idle);
	json_link(w, "under_load", &m->load);
	json_link(w, "under_load_lowest", &m->load_low);
	json_link(w, "max", &m->max);
	jw_obj_end(w);
	jw_kint(w, "link_readings", m->readings);
	jw_kstr(w, "link_source", m->link_src);
	jw_knum(w, "theoretical_gbs", theo > 0 ? theo : NAN);
	jw_knum(w, "h2d_gbs", m->h2d_gbs);
	jw_knum(w, "h2d_min_gbs", m->h2d_min_gbs);
	jw_knum(w, "h2d_max_gbs", m->h2d_max_gbs);
	jw_kint(w, "h2d_samples", m->samples);
	jw_kint(w, "h2d_bytes", (long long)m->bytes);
	jw_knum(w, "fraction", theo > 0 ? m->h2d_gbs / theo : NAN);
}

static void json_gpus(struct json_writer *w, const struct pf_gpus *g)
{
	jw_key(w, "gpus");
	jw_arr_begin(w);
	for (int i = 0; i < g->n; i++) {
		const struct pf_gpu *p = &g->gpu[i];

		jw_obj_begin(w);
		jw_kstr(w, "bdf", p->bdf);
		jw_kstr(w, "name", p->name);
		jw_kbool(w, "in_sysfs", p->in_sysfs);
		jw_kint(w, "cuda_ordinal", p->cuda_ordinal);
		jw_kbool(w, "measured", p->measured);
		jw_kstr(w, "why_not", p->measured ? "" : p->why_not);
		if (p->measured)
			json_measure(w, &p->m);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

static void json_options(struct json_writer *w, const struct pf_opts *o)
{
	jw_key(w, "options");
	jw_obj_begin(w);
	if (o->memlock_min >= 0)
		jw_kint(w, "memlock_min_bytes", o->memlock_min);
	else
		jw_kstr(w, "memlock_min_bytes", "unlimited");
	if (o->expect_gpus >= 0)
		jw_kint(w, "expect_gpus", o->expect_gpus);
	else
		jw_knum(w, "expect_gpus", NAN);
	jw_kint(w, "size_bytes", (long long)o->size);
	jw_knum(w, "min_fraction", o->min_fraction);
	jw_knum(w, "gpu_timeout_s", o->gpu_timeout_s);
	jw_kstr(w, "sysfs_root", o->sysfs_root);
	jw_kbool(w, "gpu_built", o->gpu_built);
	jw_obj_end(w);
}

static void json_checks(struct json_writer *w, const struct pf_report *r)
{
	jw_key(w, "checks");
	jw_arr_begin(w);
	for (int i = 0; i < r->n; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "name", r->check[i].name);
		jw_kstr(w, "status", pf_status_key(r->check[i].status));
		jw_kstr(w, "detail", r->check[i].line);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

int pf_write_json(const char *path, const struct pf_opts *o, const struct pf_report *r,
		  const struct pf_gpus *g, double elapsed_s)
{
	static const char *const status[] = { "healthy", "unhealthy", "could_not_run" };
	int code = pf_report_exit_code(r), rc;
	char host[256] = "", line[PF_LINE_LEN + 64];
	struct json_writer w;

	gethostname(host, sizeof(host) - 1);
	jw_init(&w, 1);
	jw_obj_begin(&w);
	jw_kstr(&w, "tool", PF_PROGRAM);
	jw_kint(&w, "schema", 1);
	jw_kstr(&w, "hostname", host);
	jw_kstr(&w, "status", status[code]);
	jw_kint(&w, "exit_code", code);
	jw_kstr(&w, "summary", pf_status_line(r, line, sizeof(line)));
	jw_knum(&w, "elapsed_s", elapsed_s);
	json_options(&w, o);
	json_checks(&w, r);
	json_gpus(&w, g);
	jw_obj_end(&w);
	rc = w.failed ? (errno = ENOMEM, -1) : jw_write_file(&w, path);
	jw_release(&w);
	return rc;
}
