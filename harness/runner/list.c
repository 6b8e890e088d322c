/*
 * list.c - `dmalab list` and `dmalab claims`, from each built lab's
 * --describe (PROTOCOL.md 1).
 *
 * list: every built lab, its plan, and whether it will skip on this machine
 * and why, predicted from its needs and sysinfo.  The lab decides for itself
 * at run time; this is a forecast, in the skip reasons of lab.h.  GPUs are
 * counted and numbered as CUDA does (gpu_topo).
 *
 * claims: one table of every claim of every built lab (README.md, "How a
 * verdict is made"); it prints nothing of this machine, so it is kept as
 * harness/tests/golden/claims.txt and a changed relation is a reviewed diff.
 */
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <string.h>

#include "gpu_topo.h"
#include "lang.h"
#include "runner.h"

/* A row's label ("needs:"), padded to the English's width columns (a
 * Chinese character takes two), after the two-space indent. */
static void row_label(const char *word, int width)
{
	printf("  %s%*s", word, word_pad(word, width - 1) + 1, ""); /* one blank at least */
}

static void print_needs(const struct lab_entry *lab)
{
	const char *sep = MSG("list.sep", ", ");

	row_label(MSG("list.needs", "needs:"), 9);
	if (lab->needs_gpus == 1)
		printf("%s", MSG("list.gpu-one", "a GPU for its CUDA claims"));
	else if (lab->needs_gpus > 1)
		printf(MSG("list.gpus", "%d GPUs for its CUDA claims"), lab->needs_gpus);
	else
		printf("%s", MSG("list.no-cuda", "no CUDA"));
	printf("%s", sep);
	printf(lab->needs_numa == 1 ? MSG("list.numa-one", "%d NUMA node") :
	       MSG("list.numa", "%d NUMA nodes for the full lab"), lab->needs_numa);
	printf("%s%s\n", sep, lab->needs_root ? MSG("list.root", "root for some claims") :
	       MSG("list.no-root", "no root"));
}

/* One "here:" row: a precondition this machine lacks, and the skip it gives. */
__attribute__((format(printf, 1, 2)))
static int here(const char *fmt, ...)
{
	va_list ap;

	row_label(MSG("list.here", "here:"), 9);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 1;
}

/*
 * The skip a lab's CUDA claims will give here (lab.h reasons), NULL if none.
 * The count is CUDA's (CUDA_VISIBLE_DEVICES applies), as the lab's will be.
 */
static const char *cuda_skip_here(const struct gpu_topo *t, const struct lab_entry *lab)
{
	if (!lab->built_with_cuda)
		return SKIP_NOT_BUILT_NO_NVCC;
	if (!t->cuda_loaded || t->order != GPU_ORDER_CUDA)
		return SKIP_NO_CUDA_DRIVER;
	if (t->n == 0)
		return SKIP_NO_CUDA_DEVICE;
	/* a GPU-to-GPU lab on one GPU says single-gpu, as lab-09 does */
	if (lab->needs_gpus > t->n)
		return t->n == 1 && lab->needs_gpus == 2 ? SKIP_SINGLE_GPU : SKIP_TOO_FEW_GPUS;
	return NULL;
}

/* cuda_skip_here as a "here:" row, with what was found; 0 lines if none. */
static int cuda_forecast(const struct gpu_topo *t, const struct lab_entry *lab)
{
	const char *why = lab->needs_gpus > 0 ? cuda_skip_here(t, lab) : NULL;

	if (!why)
		return 0;
	if (!strcmp(why, SKIP_NOT_BUILT_NO_NVCC))
		return here("%s", MSG("list.no-nvcc", "its CUDA claims skip: not-built:no-nvcc "
				      "(built without nvcc)"));
	if (!strcmp(why, SKIP_NO_CUDA_DRIVER) && !t->cuda_loaded)
		return here("%s", MSG("list.no-libcuda", "its CUDA claims skip: no-cuda-driver "
				      "(no NVIDIA driver: libcuda.so.1 not found)"));
	if (!strcmp(why, SKIP_NO_CUDA_DRIVER))
		return here(MSG("list.no-driver", "its CUDA claims skip: no-cuda-driver (%s)"),
			    t->cuda_note);
	/* the driver's note names CUDA_VISIBLE_DEVICES when it hid them */
	if (!strcmp(why, SKIP_NO_CUDA_DEVICE))
		return here(MSG("list.no-device", "its CUDA claims skip: no-cuda-device (a "
				"driver, but CUDA lists no GPU; %d NVIDIA GPU%s in sysfs%s%s)"),
			    t->not_in_cuda, t->not_in_cuda == 1 ? "" : "s",
			    t->cuda_note[0] ? "; " : "", t->cuda_note);
	return here(MSG("list.few-gpus", "some CUDA claims skip: %s (%d CUDA device%s, "
			"need %d)"), why, t->n, t->n == 1 ? "" : "s", lab->needs_gpus);
}

/*
 * A CPU-only lab may still have claims about where the GPU sits (lab-04: the
 * NUMA node of its --device, 0 by default, in CUDA's order when the driver
 * answers).  --describe has no per-claim sign of it, so a claim whose text
 * names the GPU is taken for one.
 */
static int about_gpu_place(const struct lab_entry *lab, const char *text)
{
	return lab->needs_gpus <= 0 && text && strstr(text, "GPU");
}

/* The skip of a claim about where GPU 0 sits, NULL if none. */
static const char *gpu_place_skip(const struct gpu_topo *t)
{
	const struct gpu_topo_dev *g = gpu_topo_device(t, 0);

	if (!g)
		return SKIP_NO_CUDA_DEVICE;
	return g->numa_node < 0 ? SKIP_UNKNOWN_TOPOLOGY : NULL;
}

/* The claims about where the GPU sits, and the skip they will give, as a "here:" row. */
static int gpu_place_forecast(const struct gpu_topo *t, const struct lab_entry *lab)
{
	const struct gpu_topo_dev *g = gpu_topo_device(t, 0);
	const char *why = gpu_place_skip(t);
	char ids[128] = "";
	size_t n = 0;

	for (int k = 0; k < lab->nclaims && n < sizeof(ids); k++)
		if (about_gpu_place(lab, lab->claims[k].text))
			n += (size_t)snprintf(ids + n, sizeof(ids) - n, "%s%s", n ? ", " : "",
					      lab->claims[k].id);
	if (!n || !why)
		return 0;
	if (!g)
		return here(MSG("list.place-no-device", "claims %s skip: no-cuda-device (%s)"),
			    ids, t->order == GPU_ORDER_CUDA ?
			    MSG("list.cuda-no-gpu", "CUDA lists no GPU") :
			    MSG("list.no-pci-gpu", "no NVIDIA PCI device"));
	return here(MSG("list.place-unknown", "claims %s skip: unknown-topology (GPU 0 %s "
			"NUMA node %d)"), ids, g->bdf, g->numa_node);
}

int claim_forecast(const struct sysinfo *si, const struct gpu_topo *t,
		   const struct lab_entry *lab, const char *id,
		   const char *why[CLAIM_FORECAST_MAX])
{
	const struct json *c = json_get_by(lab->desc, "claims", "id", id);
	const char *w;
	int n = 0;

	if (!c)
		return -1;
	if (json_get_num(c, "needs_cuda_devices", 0) > 0 && (w = cuda_skip_here(t, lab)))
		why[n++] = w;
	if (about_gpu_place(lab, json_get_str(c, "text", NULL)) && (w = gpu_place_skip(t)))
		why[n++] = w;
	if (json_get_num(c, "needs_numa_nodes", 1) > si->numa.nmem_nodes)
		why[n++] = SKIP_SINGLE_NUMA_NODE;
	if (json_get_str(c, "needs_root", NULL) && si->uid != 0)
		why[n++] = SKIP_NOT_ROOT;
	return n;
}

/* One line per precondition this machine lacks; "runs fully" if none. */
static void print_forecast(const struct run_state *rs, const struct lab_entry *lab,
			   const struct gpu_topo *t)
{
	const struct sysinfo *si = &rs->si;
	int n = cuda_forecast(t, lab) + gpu_place_forecast(t, lab);

	if (lab->needs_numa > si->numa.nmem_nodes)
		n += here(MSG("list.one-node", "some claims skip: single-numa-node (%d node%s "
			      "with memory, needs %d)"), si->numa.nmem_nodes,
			  si->numa.nmem_nodes == 1 ? "" : "s", lab->needs_numa);
	if (lab->needs_root && si->uid != 0)
		n += here(MSG("list.not-root", "some claims skip: not-root (uid %d)"), si->uid);
	if (!n)
		here("%s", MSG("list.all-met", "every precondition is met"));
}

static void list_lab(const struct run_state *rs, const struct lab_entry *lab,
		     const struct gpu_topo *t)
{
	printf("lab-%s  %s\n", lab->id, msg_lab_title(lab->id, lab->title));
	if (lab->desc_error[0]) {
		printf("  error:   %s\n\n", lab->desc_error);
		return;
	}
	printf("  "); /* indents outside the message: a table's text has none */
	printf(MSG("list.timeout", "timeout: %d s"), lab->timeout_s);
	if (rs->opt->timeout_mul != 1)
		printf(" (x %g = %.0f s)", rs->opt->timeout_mul,
		       lab->timeout_s * rs->opt->timeout_mul);
	printf("\n");
	print_needs(lab);
	print_forecast(rs, lab, t);
	for (int k = 0; k < lab->nclaims; k++)
		printf("  %-7s [%s] %s\n", lab->claims[k].id, lab->claims[k].question,
		       msg_claim_text(lab->claims[k].id, lab->claims[k].text));
	printf("\n");
}

int cmd_list(struct run_state *rs)
{
	struct gpu_topo t;
	int i, bad = 0;

	/*
	 * CUDA's device list, from the driver API: this runs cuInit, which the
	 * runner must not do before it forks a lab.  Here every --describe has
	 * been run and `list` starts nothing after this.
	 */
	gpu_topo_scan("/sys", GPU_TOPO_CUDA, &t);
	for (i = 0; i < rs->nlabs; i++) {
		list_lab(rs, &rs->labs[i], &t);
		bad += rs->labs[i].desc_error[0] != '\0';
	}
	printf(rs->nlabs == 1 ? MSG("list.one", "%d lab") : MSG("list.count", "%d labs"),
	       rs->nlabs);
	if (bad)
		printf(MSG("list.bad", ", %d without a usable --describe"), bad);
	printf("\n");
	return bad ? 1 : 0;
}

/* "+- 25 %", "+- 0.5 MiB", "+- (0.5 MiB + 10 %)", or "none". */
static void fmt_tolerance(const struct json *want, char *buf, size_t len)
{
	double a = json_get_num(want, "abs_tol", 0), r = json_get_num(want, "rel_tol", 0);
	const char *unit = json_get_str(want, "unit", "");
	const char *sp = *unit ? " " : "";

	if (strcmp(json_get_str(want, "op", ""), "near") != 0 || (isnan(a) && isnan(r)))
		snprintf(buf, len, "none");
	else if (a > 0 && r > 0)
		snprintf(buf, len, "+- (%g%s%s + %g %%)", a, sp, unit, 100 * r);
	else if (r > 0)
		snprintf(buf, len, "+- %g %%", 100 * r);
	else
		snprintf(buf, len, "+- %g%s%s", a, sp, unit);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* One row of a claim in `dmalab claims`: its label, then its value. */
static void claim_row(const char *label, const char *value)
{
	row_label(label, 11);
	printf("%s\n", value);
}

/* The erratum of claim `id` in a line: its prediction, where it holds, and
 * the corrected statement; "none" without one. */
static const char *erratum_row(const struct errata *all, const char *id, const char *unit,
			       char *buf, size_t len)
{
	const struct erratum *e = errata_find(all, id);

	if (!e)
		return MSG("claims.no-erratum", "none");
	snprintf(buf, len, MSG("claims.erratum-is", "predicts %s%s%s%s%s: %s"), e->expect_text,
		 *unit && !e->expect_name[0] ? " " : "", !e->expect_name[0] ? unit : "",
		 e->when_text ? MSG("claims.erratum-when", " when ") : "",
		 e->when_text ? e->when_text : "", e->truth);
	return buf;
}

static void human_claim(const struct json *c, const struct errata *errata)
{
	const struct json *want = json_get(c, "want");
	char tol[128], erratum[1024];
	const char *id = json_get_str(c, "id", "?");

	fmt_tolerance(want, tol, sizeof(tol));
	printf("%s [%s] %s\n", id, json_get_str(c, "question", "?"),
	       msg_claim_text(id, json_get_str(c, "text", "")));
	claim_row(MSG("claims.chapter", "chapter:"), or_dash(json_get_str(c, "chapter", NULL)));
	claim_row(MSG("claims.relation", "relation:"), or_dash(json_get_str(want, "text", NULL)));
	claim_row(MSG("claims.tolerance", "tolerance:"), tol);
	claim_row(MSG("claims.unit", "unit:"), or_dash(json_get_str(want, "unit", NULL)));
	claim_row(MSG("claims.rule", "rule:"), or_dash(json_get_str(c, "rule", NULL)));
	claim_row(MSG("claims.sabotage", "sabotage:"), json_get_str(c, "sabotage", NULL) ?
		  json_get_str(c, "sabotage", NULL) :
		  MSG("claims.no-sabotage", "none (no sabotage build breaks it)"));
	claim_row(MSG("claims.erratum", "erratum:"),
		  erratum_row(errata, id, json_get_str(want, "unit", ""), erratum,
			      sizeof(erratum)));
	row_label(MSG("claims.root", "root:"), 11);
	printf("%s%s\n", json_get_str(c, "needs_root", NULL) ?
	       MSG("claims.root-needed", "needed: ") : MSG("claims.root-not", "not needed"),
	       json_get_str(c, "needs_root", ""));
}

/* "erratum": {expect, when, truth} of claim `id`, or null. */
static void json_erratum(struct json_writer *w, const struct errata *all, const char *id)
{
	const struct erratum *e = errata_find(all, id);

	jw_key(w, "erratum");
	if (!e) {
		jw_null(w);
		return;
	}
	jw_obj_begin(w);
	jw_kstr(w, "expect", e->expect_text);
	jw_kstr(w, "when", e->when_text);
	jw_kstr(w, "truth", e->truth);
	jw_obj_end(w);
}

static void json_claim(struct json_writer *w, const struct lab_entry *lab, const struct json *c,
		       const struct errata *errata)
{
	const struct json *want = json_get(c, "want");
	char tol[128];

	fmt_tolerance(want, tol, sizeof(tol));
	jw_obj_begin(w);
	jw_kstr(w, "lab", lab->id);
	jw_kstr(w, "lab_title", lab->title);
	jw_kstr(w, "id", json_get_str(c, "id", NULL));
	jw_kstr(w, "question", json_get_str(c, "question", NULL));
	jw_kstr(w, "text", json_get_str(c, "text", NULL));
	jw_kstr(w, "chapter", json_get_str(c, "chapter", NULL));
	jw_kstr(w, "relation", json_get_str(want, "text", NULL));
	jw_kstr(w, "tolerance", tol);
	jw_kstr(w, "unit", json_get_str(want, "unit", NULL));
	jw_kstr(w, "rule", json_get_str(c, "rule", NULL));
	jw_key(w, "want");
	if (want)
		jw_value(w, want);
	else
		jw_null(w);
	jw_kstr(w, "sabotage", json_get_str(c, "sabotage", NULL));
	jw_kstr(w, "needs_root", json_get_str(c, "needs_root", NULL));
	json_erratum(w, errata, json_get_str(c, "id", ""));
	jw_obj_end(w);
}

/* nclaims: the claims of the nlabs labs whose --describe was read. */
static void print_human(const struct run_state *rs, int nclaims, int nlabs)
{
	int i;

	/* line ends outside the messages: a table's text has none */
	printf(MSG("claims.head", "dmalab claims: %d claims of %d labs, from each lab's "
		   "--describe"), nclaims, nlabs);
	printf("\n%s\n", MSG("claims.how", "(the relation is what the chapter says, by the "
			       "rule named; README.md, \"How a verdict is made\")"));
	for (i = 0; i < rs->nlabs; i++) {
		const struct lab_entry *lab = &rs->labs[i];

		printf("\nlab-%s  %s\n", lab->id, msg_lab_title(lab->id, lab->title));
		if (lab->desc_error[0]) {
			printf("  error: %s\n", lab->desc_error);
			continue;
		}
		for (const struct json *c = json_get(lab->desc, "claims")->child; c; c = c->next) {
			printf("\n");
			human_claim(c, &rs->errata);
		}
	}
}

static int print_json(const struct run_state *rs)
{
	struct json_writer w;
	int rc;

	jw_init(&w, 1);
	jw_arr_begin(&w);
	for (int i = 0; i < rs->nlabs; i++) {
		const struct json *c;

		if (rs->labs[i].desc_error[0])
			continue;
		for (c = json_get(rs->labs[i].desc, "claims")->child; c; c = c->next)
			json_claim(&w, &rs->labs[i], c, &rs->errata);
	}
	jw_arr_end(&w);
	rc = w.failed ? -1 : 0;
	if (!rc)
		printf("%.*s\n", (int)w.len, w.buf);
	jw_release(&w);
	return rc;
}

/* 0; 1 when a lab's --describe could not be read (said on stderr too). */
int cmd_claims(struct run_state *rs)
{
	int i, bad = 0, nclaims = 0, nlabs = 0;

	for (i = 0; i < rs->nlabs; i++) {
		const struct lab_entry *lab = &rs->labs[i];
		const struct json *claims = json_get(lab->desc, "claims");

		if (lab->desc_error[0]) {
			error("lab-%s: %s", lab->id, lab->desc_error);
			bad++;
		} else if (claims) {
			nclaims += (int)claims->count;
			nlabs++;
		}
	}
	if (rs->opt->format == FMT_JSON) {
		if (print_json(rs))
			return 1;
	} else {
		print_human(rs, nclaims, nlabs);
	}
	return bad ? 1 : 0;
}
