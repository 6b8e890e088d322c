/*
 * compare_node.c - one results.json (PROTOCOL.md 4) as compare sees it: the
 * node's identity and match key, its headline figures, its claims' verdicts
 * and its machine facts as text (compare.h).  Claims come through
 * results.c's results_load, so a verdict reads exactly as `dmalab check`
 * counted it (a known erratum only when the lab said "predicted").
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "learn.h"

int cmp_headline_unit(const char *unit)
{
	/* the units of the lab facts that are headline figures: rates, times, ratios */
	return cmp_word_in("GB/s GiB/s ns us ms s ms/GiB TFLOP/s x %", unit);
}

void cmp_key_lab(const char *key, char *lab, size_t len)
{
	size_t n = strcspn(key, "./");

	snprintf(lab, len, "%.*s", (int)(n < len ? n : len - 1), key);
}

void cmp_key_text(const struct cmp_key *k, char *buf, size_t len)
{
	if (!k->ngpus)
		snprintf(buf, len, "cpu-only");
	else
		snprintf(buf, len, "%s x%d PCIe Gen%d x%d", k->gpu, k->ngpus, k->gen, k->width);
}

int cmp_key_equal(const struct cmp_key *a, const struct cmp_key *b)
{
	return !strcmp(a->gpu, b->gpu) && a->ngpus == b->ngpus && a->gen == b->gen &&
	       a->width == b->width;
}

int cmp_same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int cmp_folder_runs(const char *dir, glob_t *g, int append)
{
	static const char *const layouts[] = { "%s/*.json", "%s/*/results.json" };
	char pattern[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		snprintf(pattern, sizeof(pattern), layouts[i], dir);
		if (glob(pattern, append ? GLOB_APPEND : 0, NULL, g) == GLOB_NOSPACE)
			return -1;
		append = 1;
	}
	return 0;
}

int cmp_folder_run_load(const char *path, struct cmp_node *n, struct json **doc)
{
	char err[PATH_MAX + 300];
	struct json *d = json_parse_file(path, err, sizeof(err));

	if (!d)
		return warning("skipping '%s': %s", path, err), -1;
	if (strcmp(json_get_str(d, "schema", ""), "dmalab-results/1")) {
		warning("skipping '%s': not a run's results.json (its schema is '%s')", path,
			json_get_str(d, "schema", ""));
	} else if (cmp_node_load(path, n, err, sizeof(err))) {
		warning("skipping '%s': %s", path, err);
	} else {
		if (doc)
			*doc = d;
		else
			json_free(d);
		return 0;
	}
	json_free(d);
	return -1;
}

void *cmp_calloc(size_t n, size_t size)
{
	void *p = calloc(n + 1, size);

	if (!p)
		die("out of memory");
	return p;
}

void *cmp_realloc(void *p, size_t n, size_t size)
{
	p = realloc(p, (n + 1) * size);
	if (!p)
		die("out of memory");
	return p;
}

int cmp_word_in(const char *list, const char *word)
{
	return word && text_list_has(list, word, strlen(word), " ");
}

/* Fact `name` of the machine, or of GPU gpu ("gpu0.name") when gpu >= 0. */
__attribute__((format(printf, 4, 5)))
static void add_fact(struct cmp_node *n, int gpu, const char *name, const char *fmt, ...)
{
	struct cmp_fact *f;
	va_list ap;

	if (n->nfact == CMP_MAX_FACTS)
		return;
	f = &n->fact[n->nfact++];
	if (gpu >= 0)
		snprintf(f->name, sizeof(f->name), "gpu%d.%s", gpu, name);
	else
		snprintf(f->name, sizeof(f->name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(f->value, sizeof(f->value), fmt, ap);
	va_end(ap);
}

const char *cmp_node_fact(const struct cmp_node *n, const char *name)
{
	for (int i = 0; i < n->nfact; i++)
		if (!strcmp(n->fact[i].name, name))
			return n->fact[i].value;
	return NULL;
}

/* A string member that says something: not absent, "" or "unknown". */
static const char *known_str(const struct json *o, const char *key)
{
	const char *s = json_get_str(o, key, NULL);

	return s && *s && strcmp(s, "unknown") ? s : NULL;
}

/* Clock-event reasons that hold the clocks back; the others (gpu_idle,
 * sync_boost, display_clocks) are the normal state of an idle GPU. */
static int clocks_held_reason(const char *name)
{
	return cmp_word_in("sw_power_cap hw_slowdown sw_thermal hw_thermal hw_power_brake "
			   "applications_clocks", name);
}

static void gpu_clock_fact(struct cmp_node *n, int i, const struct json *g)
{
	const struct json *names = json_get(g, "clocks_event_names"), *e;
	char held[CMP_VALUE_LEN] = "";
	size_t len = 0;

	if (json_get_num(g, "clocks_event_reasons", -1) < 0 || !names || names->type != JSON_ARR)
		return; /* NVML did not say */
	for (e = names->child; e; e = e->next)
		if (e->type == JSON_STR && clocks_held_reason(e->str) && len < sizeof(held))
			len += (size_t)snprintf(held + len, sizeof(held) - len, "%s%s",
						len ? ", " : "", e->str);
	add_fact(n, i, "clocks_held", "%s", len ? held : "none");
}

static void gpu_facts(struct cmp_node *n, int i, const struct json *g)
{
	struct cmp_gpu *G = &n->gpu[i];
	double procs = json_get_num(g, "compute_procs", -1);

	if (G->gen_cur > 0 && G->width_cur > 0)
		add_fact(n, i, "pcie_cur", "Gen%d x%d", G->gen_cur, G->width_cur);
	if (G->gen_max > 0 && G->width_max > 0)
		add_fact(n, i, "pcie_max", "Gen%d x%d", G->gen_max, G->width_max);
	if (G->numa_node >= 0)
		add_fact(n, i, "numa_node", "%d", G->numa_node);
	if (known_str(g, "iommu"))
		add_fact(n, i, "iommu", "%s", known_str(g, "iommu"));
	if (procs >= 0)
		add_fact(n, i, "compute_procs", "%.0f", procs);
	gpu_clock_fact(n, i, g);
}

static void load_gpus(struct cmp_node *n, const struct json *gpus)
{
	const struct json *g;
	int i = 0;

	for (g = gpus && gpus->type == JSON_ARR ? gpus->child : NULL; g; g = g->next, i++) {
		const char *name = json_get_str(g, "name", "?");

		n->key.ngpus++;
		if (i == 0)
			snprintf(n->key.gpu, sizeof(n->key.gpu), "%s", name);
		else if (!strstr(n->key.gpu, name) && strlen(n->key.gpu) + strlen(name) + 4 <
			 sizeof(n->key.gpu))
			strcat(strcat(n->key.gpu, " + "), name); /* a node of mixed models */
		if (i >= CMP_MAX_GPUS)
			continue;
		n->gpu[i] = (struct cmp_gpu){
			.index = (int)json_get_num(g, "index", i),
			.gen_cur = (int)json_get_num(g, "pcie_gen_cur", 0),
			.width_cur = (int)json_get_num(g, "pcie_width_cur", 0),
			.gen_max = (int)json_get_num(g, "pcie_gen_max", 0),
			.width_max = (int)json_get_num(g, "pcie_width_max", 0),
			.numa_node = (int)json_get_num(g, "numa_node", -1),
		};
		snprintf(n->gpu[i].name, sizeof(n->gpu[i].name), "%s", name);
		snprintf(n->gpu[i].uuid, sizeof(n->gpu[i].uuid), "%s", json_get_str(g, "uuid", ""));
		snprintf(n->gpu[i].bdf, sizeof(n->gpu[i].bdf), "%s", json_get_str(g, "bdf", ""));
		gpu_facts(n, i, g);
	}
	if (n->key.ngpus) {
		n->key.gen = n->gpu[0].gen_max;
		n->key.width = n->gpu[0].width_max;
	} else {
		snprintf(n->key.gpu, sizeof(n->key.gpu), "cpu-only");
	}
}

static void load_cpu_nodes(struct cmp_node *n, const struct json *m)
{
	const struct json *a = json_get(m, "cpu_nodes"), *e;
	char list[CMP_VALUE_LEN] = "";
	size_t len = 0;

	for (e = a && a->type == JSON_ARR ? a->child : NULL; e; e = e->next) {
		if (e->type != JSON_NUM || n->ncpu_nodes == 16)
			continue;
		n->cpu_nodes[n->ncpu_nodes++] = (int)e->num;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
						len ? "," : "", (int)e->num);
	}
	if (n->ncpu_nodes)
		add_fact(n, -1, "cpu_nodes", "%s", list);
}

/* The machine facts compare names (explain.c reads them by these names). */
static void load_machine(struct cmp_node *n, const struct json *m)
{
	/* results.json's text members, each the fact of the name beside it */
	static const char *const words[][2] = {
		{ "thp", "thp" }, { "iommu", "iommu" }, { "cpus_allowed", "cpus_allowed" },
		{ "kernel", "kernel" }, { "virt", "virt" }, { "driver_version", "driver" },
	};
	const struct json *numa = json_get(m, "numa"), *huge = json_get(m, "hugepages");
	double lock = json_get_num(json_get(m, "memlock"), "cur", NAN);

	snprintf(n->host, sizeof(n->host), "%s", json_get_str(m, "hostname", "?"));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (known_str(m, words[i][0]))
			add_fact(n, -1, words[i][1], "%s", known_str(m, words[i][0]));
	if (lock < 0)
		add_fact(n, -1, "memlock", "unlimited");
	else if (isfinite(lock))
		add_fact(n, -1, "memlock", "%.0f", lock);
	if (json_get(m, "cap_ipc_lock"))
		add_fact(n, -1, "cap_ipc_lock", "%s",
			 json_get_num(m, "cap_ipc_lock", 0) ? "yes" : "no");
	if (json_get(numa, "nodes"))
		add_fact(n, -1, "numa_nodes", "%.0f", json_get_num(numa, "nodes", 0));
	if (json_get(huge, "total"))
		add_fact(n, -1, "hugepages", "%.0f", json_get_num(huge, "total", 0));
	load_cpu_nodes(n, m);
	load_gpus(n, json_get(m, "gpus"));
}

/* Each verdict's status (record.h's words); known_erratum is compare's own. */
static const enum status verdict_status[CMP_NVERDICTS] = {
	[CMP_V_PASS] = ST_PASS, [CMP_V_KNOWN] = ST_COUNT, [CMP_V_FAIL] = ST_FAIL,
	[CMP_V_INCONCLUSIVE] = ST_INCONCLUSIVE, [CMP_V_SKIP] = ST_SKIP,
	[CMP_V_ERROR] = ST_ERROR, [CMP_V_NOT_RUN] = ST_NOT_RUN,
};

const char *cmp_verdict_word(enum cmp_verdict v)
{
	if (v == CMP_V_KNOWN)
		return "known_erratum";
	return (unsigned)v < CMP_NVERDICTS ? status_words[verdict_status[v]] : "?";
}

enum cmp_verdict cmp_verdict_parse(const char *word)
{
	for (int v = 0; word && v < CMP_NVERDICTS; v++)
		if (!strcmp(word, cmp_verdict_word((enum cmp_verdict)v)))
			return (enum cmp_verdict)v;
	return CMP_NVERDICTS;
}

static enum cmp_verdict claim_verdict(const struct claim *c)
{
	if (claim_known(c))
		return CMP_V_KNOWN;
	if (c->status == ST_PENDING)
		return CMP_V_NOT_RUN; /* a lab record cut short */
	return cmp_verdict_parse(status_words[c->status]) == CMP_NVERDICTS ? CMP_V_ERROR
		: cmp_verdict_parse(status_words[c->status]);
}

static void add_figure(struct cmp_node *n, const char *key, const char *unit, double v,
		       double lo, double hi)
{
	struct cmp_figure *f = &n->fig[n->nfig++];

	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->unit, sizeof(f->unit), "%.23s", unit ? unit : "");
	f->value = v;
	f->lo = isfinite(lo) ? lo : NAN;
	f->hi = isfinite(hi) ? hi : NAN;
}

static void load_claims(struct cmp_node *n, const struct learn_results *r)
{
	for (int i = 0; i < r->nlabs; i++)
		for (int k = 0; k < r->labs[i].nclaims; k++) {
			const struct claim *c = &r->labs[i].claims[k];
			struct cmp_claim *cc = &n->claim[n->nclaim++];

			snprintf(cc->id, sizeof(cc->id), "%s", c->id);
			cc->verdict = claim_verdict(c);
			if (isfinite(c->got))
				add_figure(n, c->id, c->unit, c->got, c->got_lo, c->got_hi);
		}
}

/* The GPU faults a lab made on purpose (lab-06's probe reads through a pointer no
 * context maps): each raises an XID event that is the lab's own, not the machine's. */
static double faults_on_purpose(const struct json *lab)
{
	const struct json *v = json_get(json_get(json_get(lab, "facts"),
						 "gpu_faults_on_purpose"), "value");

	return v && v->type == JSON_NUM && v->num > 0 ? v->num : 0;
}

/* A GPU error counter that rose during a lab: fact "lab02.gpu0.pcie_replay" = "3";
 * XID events less the lab's own faults, taken from the first GPUs that raised any. */
static void load_counter_moves(struct cmp_node *n, const struct json *lab)
{
	const struct json *moved = json_get(lab, "counters_moved"), *g, *c;
	double own = faults_on_purpose(lab), rose;
	char name[CMP_FACT_LEN];

	for (g = moved && moved->type == JSON_OBJ ? moved->child : NULL; g; g = g->next)
		for (c = g->type == JSON_OBJ ? g->child : NULL; c; c = c->next) {
			if (c->type != JSON_NUM || !(c->num > 0))
				continue;
			rose = c->num;
			if (!strcmp(c->key, gpu_counter_names[GPU_C_XID])) {
				rose -= fmin(rose, own);
				own -= c->num - rose;
			}
			if (rose > 0) {
				snprintf(name, sizeof(name), "lab%s.gpu%s.%s",
					 json_get_str(lab, "id", "?"), g->key, c->key);
				add_fact(n, -1, name, "%.0f", rose);
			}
		}
}

static void load_facts(struct cmp_node *n, const struct json *labs)
{
	const struct json *lab, *f;
	char key[CMP_KEY_LEN];

	for (lab = labs->child; lab; lab = lab->next) {
		const struct json *facts = json_get(lab, "facts");

		load_counter_moves(n, lab);
		for (f = facts && facts->type == JSON_OBJ ? facts->child : NULL; f; f = f->next) {
			const struct json *v = json_get(f, "value");

			if (f->type != JSON_OBJ || !v || v->type != JSON_NUM ||
			    !cmp_headline_unit(json_get_str(f, "unit", "")))
				continue;
			snprintf(key, sizeof(key), "%s/%s", json_get_str(lab, "id", "?"), f->key);
			add_figure(n, key, json_get_str(f, "unit", ""), v->num, NAN, NAN);
		}
	}
}

/* Upper bounds of the figures and claims a document holds. */
static void count_entries(const struct learn_results *r, const struct json *labs,
			  size_t *nclaims, size_t *nfacts)
{
	const struct json *lab, *facts;

	*nclaims = *nfacts = 0;
	for (int i = 0; i < r->nlabs; i++)
		*nclaims += (size_t)r->labs[i].nclaims;
	for (lab = labs->child; lab; lab = lab->next)
		if ((facts = json_get(lab, "facts")) && facts->type == JSON_OBJ)
			*nfacts += facts->count;
}

int cmp_node_load(const char *path, struct cmp_node *n, char *err, size_t errlen)
{
	struct learn_results r;
	const struct json *labs;
	size_t nclaims, nfacts;

	memset(n, 0, sizeof(*n));
	if (results_load(path, &r, err, errlen))
		return -1;
	snprintf(n->path, sizeof(n->path), "%s", path);
	snprintf(n->started, sizeof(n->started), "%s", r.started);
	snprintf(n->version, sizeof(n->version), "%s",
		 json_get_str(json_get(r.doc, "dmalab"), "version", "?"));
	n->quick = json_get_num(r.doc, "quick", 0) != 0;
	n->aborted = status_parse(json_get_str(r.doc, "status", "")) == ST_ABORTED;
	load_machine(n, json_get(r.doc, "machine"));
	labs = json_get(r.doc, "labs");
	count_entries(&r, labs, &nclaims, &nfacts);
	n->fig = calloc(nclaims + nfacts + 1, sizeof(*n->fig));
	n->claim = calloc(nclaims + 1, sizeof(*n->claim));
	if (!n->fig || !n->claim) {
		results_unload(&r);
		cmp_node_free(n);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	load_claims(n, &r);
	load_facts(n, labs);
	results_unload(&r);
	return 0;
}

void cmp_node_free(struct cmp_node *n)
{
	free(n->fig);
	free(n->claim);
	memset(n, 0, sizeof(*n));
}

const struct cmp_figure *cmp_node_figure(const struct cmp_node *n, const char *key)
{
	for (int i = 0; i < n->nfig; i++)
		if (!strcmp(n->fig[i].key, key))
			return &n->fig[i];
	return NULL;
}
