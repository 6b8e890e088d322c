/*
 * check.c - judge what the emulated two-node guest printed (`make test-numa`).
 *
 * usage: numa-check DIR, where DIR holds the files harness/tests/numa/init
 * sent: facts, steps, sysinfo.out, run.out (the runner's report),
 * run-results.json and run-lab-04.json (the runner's run, GPU fixture on
 * node 1, balancing off), gpu0.json (lab-04, GPU on node 0, balancing on),
 * sab.json (the sabotage build of lab-04, GPU on node 1, balancing off),
 * stub.json (lab-04 with exercises 04.first-touch and 04.bind as handed out, the same),
 * lab01-small.json and lab01-zero.json (lab-01 as uid 1000 under a 64 KiB
 * RLIMIT_MEMLOCK and under a hard limit of 0).  Prints TAP; exit 1 if any
 * check fails.
 *
 * It asserts that the paths ran and reported the truth: two nodes with their
 * CPUs and distances, every two-node claim evaluated, pages found on the node
 * they were put on (both nodes), the sabotage's pages all on the wrong node,
 * lab-01's refusals reported without an error.  Emulated nodes share one
 * DRAM, so 04.2 and 04.3 (remote latency, bandwidth) are shown, never
 * required to pass.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static const char *dir;
static int ntest, nfail;

static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	nfail += !cond;
	return cond;
}

static char *slurp(const char *name)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static struct json *load(const char *name)
{
	char path[4096], err[512];
	struct json *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_parse_file(path, err, sizeof(err));
	ok(j != NULL, "%s came back from the guest and parses%s%s", name, j ? "" : ": ",
	   j ? "" : err);
	return j;
}

static int text_has(const char *text, const char *what)
{
	return text && strstr(text, what);
}

/* "step NAME rc=R" from the steps file; -1 if absent. */
static int step_rc(const char *steps, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "step %s rc=", name);
	p = steps ? strstr(steps, key) : NULL;
	return p ? atoi(p + strlen(key)) : -1;
}

static const struct json *claim(const struct json *lab, const char *id)
{
	const struct json *c;

	for (c = lab ? json_get(lab, "claims") : NULL, c = c ? c->child : NULL; c; c = c->next)
		if (!strcmp(json_get_str(c, "id", ""), id))
			return c;
	return NULL;
}

static const char *cstatus(const struct json *lab, const char *id)
{
	return json_get_str(claim(lab, id), "status", "absent");
}

static double cgot(const struct json *lab, const char *id)
{
	return json_get_num(claim(lab, id), "got", -1);
}

static const char *cnote(const struct json *lab, const char *id)
{
	return json_get_str(claim(lab, id), "note", "");
}

static double fact_num(const struct json *lab, const char *key)
{
	const struct json *f = lab ? json_get(json_get(lab, "facts"), key) : NULL;

	if (f && f->type == JSON_OBJ)
		return json_get_num(f, "value", -99);
	return f && f->type == JSON_NUM ? f->num : -99;
}

static const char *fact_str(const struct json *lab, const char *key)
{
	return lab ? json_get_str(json_get(lab, "facts"), key, "") : "";
}

/* A note of the lab starting with `prefix` then "A of B pages": A, B; 0 if none. */
static int lab_note_pages(const struct json *lab, const char *prefix, long *a, long *b)
{
	const struct json *n;

	for (n = lab ? json_get(lab, "notes") : NULL, n = n ? n->child : NULL; n; n = n->next) {
		const char *p = n->str ? strstr(n->str, prefix) : NULL;

		if (p && sscanf(p + strlen(prefix), "%ld of %ld pages", a, b) == 2)
			return 1;
	}
	return 0;
}

static int lab_has_note(const struct json *lab, const char *what)
{
	const struct json *n;

	for (n = lab ? json_get(lab, "notes") : NULL, n = n ? n->child : NULL; n; n = n->next)
		if (n->str && strstr(n->str, what))
			return 1;
	return 0;
}

/* Decided either way or inconclusive: measured, neither skipped nor broken. */
static int evaluated(const char *status)
{
	return !strcmp(status, "pass") || !strcmp(status, "fail") ||
	       !strcmp(status, "inconclusive");
}

static const struct json *lab_in_results(const struct json *res, const char *id)
{
	const struct json *l;

	for (l = res ? json_get(res, "labs") : NULL, l = l ? l->child : NULL; l; l = l->next)
		if (!strcmp(json_get_str(l, "id", ""), id))
			return l;
	return NULL;
}

static void show(const struct json *lab, const char *id, const char *why)
{
	const struct json *c = claim(lab, id);

	printf("# %s %s: got %.3g [%.3g, %.3g]; %s\n", id, json_get_str(c, "status", "absent"),
	       json_get_num(c, "got", -1), json_get_num(c, "got_lo", -1),
	       json_get_num(c, "got_hi", -1), why);
}

/* ---- the machine: two nodes, one CPU each, distances 10/21 ------------ */
static void check_machine(const struct json *res, const char *sysinfo, const char *runout,
			  const char *facts)
{
	const struct json *numa = json_get(json_get(res, "machine"), "numa");
	const struct json *nodes = json_get(numa, "node"), *dist = json_get(numa, "distances");
	const struct json *n, *row;
	int i, want[2][2] = { { 10, 21 }, { 21, 10 } }, good = dist && dist->count == 2;
	char cpus[8];

	ok(json_get_num(numa, "nodes", 0) == 2 && json_get_num(numa, "mem_nodes", 0) == 2,
	   "results.json: machine.numa has 2 nodes, 2 with memory (got %g, %g)",
	   json_get_num(numa, "nodes", 0), json_get_num(numa, "mem_nodes", 0));
	for (i = 0, n = nodes ? nodes->child : NULL; i < 2; i++, n = n ? n->next : NULL) {
		snprintf(cpus, sizeof(cpus), "%d", i);
		ok(n && json_get_num(n, "id", -1) == i && json_get_num(n, "cpus", 0) == 1 &&
		   !strcmp(json_get_str(n, "cpulist", ""), cpus) &&
		   json_get_num(n, "mem_total", 0) >= 256.0 * 1024 * 1024,
		   "results.json: node %d has CPU %d (cpulist '%s') and %.0f MiB", i, i,
		   json_get_str(n, "cpulist", "?"), json_get_num(n, "mem_total", 0) / 1048576);
	}
	for (i = 0, row = good ? dist->child : NULL; i < 2 && good; i++, row = row->next) {
		const struct json *v = row->child;

		good = row->count == 2 && v && v->next && v->num == want[i][0] &&
		       v->next->num == want[i][1];
	}
	ok(good, "results.json: SLIT distances [[10, 21], [21, 10]]");
	ok(text_has(facts, "node0 cpulist=0 distance=10 21") &&
	   text_has(facts, "node1 cpulist=1 distance=21 10"),
	   "the guest's own sysfs says the same (facts)");
	ok(text_has(sysinfo, "2 nodes, 2 with memory") &&
	   text_has(sysinfo, "node 0       cpus 0 (1)") && text_has(sysinfo, "distances 10 21") &&
	   text_has(sysinfo, "node 1       cpus 1 (1)") && text_has(sysinfo, "distances 21 10"),
	   "dmalab sysinfo: 2 nodes, CPU 0 and CPU 1, distances 10 21 / 21 10");
	ok(text_has(runout, "2 NUMA node(s), 2 with memory usable here; CPU on node 0; "
		    "distances: node0: 10 21; node1: 21 10") && text_has(runout, "report card"),
	   "the runner's report: lab-04 sees 2 nodes and their distances; a report card");
}

/* ---- lab-04 as the runner ran it: GPU fixture on node 1, balancing off -- */
static void check_runner_lab04(const struct json *res, const struct json *lab, int run_rc)
{
	const struct json *r4 = lab_in_results(res, "04");
	static const char *const two_node[] = { "04.2", "04.3", "04.4", "04.5", "04.6", "04.7" };
	long a, b;
	size_t i;

	ok(run_rc == 0 || run_rc == 1,
	   "the runner finished (exit %d; 1: a lab contradicted a claim)", run_rc);
	ok(r4 && fact_num(r4, "numa_nodes") == 2 && fact_num(r4, "numa_memory_nodes") == 2 &&
	   !strcmp(fact_str(r4, "numa_distances"), "node0: 10 21; node1: 21 10"),
	   "results.json, lab-04 facts: 2 nodes, 2 with memory, distances '%s'",
	   fact_str(r4, "numa_distances"));
	ok(fact_num(r4, "numa_balancing") == 0 && fact_num(r4, "gpu_numa_node") == 1,
	   "lab-04 facts: numa_balancing %g (set to 0), GPU (fixture) on node %g",
	   fact_num(r4, "numa_balancing"), fact_num(r4, "gpu_numa_node"));
	for (i = 0; i < sizeof(two_node) / sizeof(two_node[0]); i++)
		ok(evaluated(cstatus(r4, two_node[i])),
		   "%s evaluated on two nodes, not skipped (%s)",
		   two_node[i], cstatus(r4, two_node[i]));
	ok(!strcmp(cstatus(r4, "04.4"), "pass") && cgot(r4, "04.4") == 0 &&
	   text_has(cnote(r4, "04.4"), "written from node 1: 0 of") &&
	   lab_note_pages(lab, "first written from CPU 1 (node 1): ", &a, &b) && a == b && b > 0,
	   "04.4 first touch from node 1: every page on node 1 (%s)", cnote(r4, "04.4"));
	ok(!strcmp(cstatus(r4, "04.6"), "pass") && cgot(r4, "04.6") == 1 &&
	   lab_note_pages(lab, "then read from CPU 1 (node 1): ", &a, &b) && a == b && b > 0,
	   "04.6 first touch from node 0: every page on node 0, after the move too (%s)",
	   cnote(r4, "04.6"));
	ok(!strcmp(cstatus(r4, "04.5"), "pass") && cgot(r4, "04.5") == 0 &&
	   lab_note_pages(lab, "worker on node 1, memory bound to node 1: ", &a, &b) &&
	   a == b && b > 0,
	   "04.5 CPU and memory bound to node 1: every page on node 1");
	ok(!strcmp(cstatus(r4, "04.7"), "pass") && cgot(r4, "04.7") == 0 &&
	   lab_note_pages(lab, "worker on node 0, memory bound to node 1: ", &a, &b) &&
	   a == b && b > 0,
	   "04.7 running on node 0, memory bound to node 1: every page on node 1");
	show(r4, "04.2", "emulated nodes share one DRAM: reported, not required to pass");
	show(r4, "04.3", "emulated nodes share one DRAM: reported, not required to pass");
}

/* ---- lab-04, GPU on node 0, balancing on -------------------------------- */
static void check_gpu0(const struct json *lab, int rc, const char *facts)
{
	static const char *const first_touch[] = { "04.4", "04.6" };
	int balancing = !text_has(facts, "numa_balancing_at_boot absent");
	long a, b;
	size_t i;

	ok(rc == 0 || rc == 1, "lab-04 (GPU on node 0) finished without an error (exit %d)", rc);
	ok(fact_num(lab, "gpu_numa_node") == 0 &&
	   fact_num(lab, "numa_balancing") == (balancing ? 1 : -1),
	   "lab-04 facts: GPU (fixture) on node 0, numa_balancing %g",
	   fact_num(lab, "numa_balancing"));
	ok(!strcmp(cstatus(lab, "04.5"), "pass") && cgot(lab, "04.5") == 0 &&
	   lab_note_pages(lab, "worker on node 0, memory bound to node 0: ", &a, &b) &&
	   a == b && b > 0,
	   "04.5 CPU and memory bound to node 0: every page on node 0");
	ok(!strcmp(cstatus(lab, "04.7"), "pass") && cgot(lab, "04.7") == 0 &&
	   lab_note_pages(lab, "worker on node 1, memory bound to node 0: ", &a, &b) &&
	   a == b && b > 0,
	   "04.7 running on node 1, memory bound to node 0: every page on node 0");
	for (i = 0; i < 2; i++) {
		const char *id = first_touch[i], *st = cstatus(lab, id), *note = cnote(lab, id);
		const char *m = strstr(note, "NUMA balancing on, ");
		long long moved = m ? atoll(m + strlen("NUMA balancing on, ")) : -1;

		ok(!strcmp(st, "pass") || (!strcmp(st, "inconclusive") && moved > 0),
		   "%s with balancing on: confirmed, "
		   "or inconclusive only where pages moved (%s: %s)",
		   id, st, note);
		ok(!balancing || m, "%s says whether balancing moved pages meanwhile", id);
	}
}

/* ---- the sabotage build: every placement really wrong ------------------ */
static void check_sabotage(const struct json *lab, int rc)
{
	long a = -1, n = -1, b;

	ok(rc == 1 && json_get(lab, "sabotage") && json_get(lab, "sabotage")->num == 1,
	   "the sabotage build of lab-04 ran and failed (exit %d)", rc);
	int found = lab_note_pages(lab, "first written from CPU 0 (node 0): ", &a, &n);

	ok(!strcmp(cstatus(lab, "04.4"), "fail") && found && a == 0 && n > 0 &&
	   cgot(lab, "04.4") == n,
	   "sabotage 04.4: written from node 0, all %ld pages off node 1 (got %g)", n,
	   cgot(lab, "04.4"));
	ok(!strcmp(cstatus(lab, "04.6"), "fail") && cgot(lab, "04.6") == 0 &&
	   lab_note_pages(lab, "first written from CPU 1 (node 1), "
			  "then read from CPU 1 (node 1): ", &a, &b) &&
	   a == 0 && b > 0,
	   "sabotage 04.6: written after the move, no page left on node 0 (got %g)",
	   cgot(lab, "04.6"));
	ok(!strcmp(cstatus(lab, "04.5"), "fail") && cgot(lab, "04.5") == n &&
	   lab_note_pages(lab, "worker on node 1, memory bound to node 0: ", &a, &b) && a == 0,
	   "sabotage 04.5: memory bound to node 0, all pages off the GPU's node 1 (got %g)",
	   cgot(lab, "04.5"));
	ok(!strcmp(cstatus(lab, "04.7"), "fail") && cgot(lab, "04.7") == n &&
	   lab_note_pages(lab, "worker on node 0, memory bound to node 0: ", &a, &b) && a == 0,
	   "sabotage 04.7: memory bound to the node it runs on, all pages off node 1 (got %g)",
	   cgot(lab, "04.7"));
	ok(evaluated(cstatus(lab, "04.2")) && evaluated(cstatus(lab, "04.3")) &&
	   text_has(cnote(lab, "04.2"), "sabotage: node 1's buffers placed on node 0"),
	   "sabotage 04.2/04.3 evaluated with the far buffers on node 0 (%s, %s)",
	   cstatus(lab, "04.2"), cstatus(lab, "04.3"));
}

/* ---- lab-01 as uid 1000 ------------------------------------------------ */
/* ---- lab-04's exercises as handed out (every region its stub): 04.first-touch
 * and 04.bind not done; the lab (the reference) done */
static void check_exercise_stub(const struct json *stub, int rc, const struct json *ref)
{
	static const char *const ex[][3] = { { "04.first-touch", "04.4", "04.6" },
					     { "04.bind", "04.5", "04.7" } };
	size_t i;

	ok(rc == 1 && stub, "lab-04 with its exercises' stubs ran and failed (exit %d)", rc);
	if (!stub)
		return;
	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		const char *a = ex[i][1], *b = ex[i][2];

		ok(!strcmp(cstatus(stub, a), "fail") && !strcmp(cstatus(stub, b), "fail"),
		   "exercise %s's stub: %s %s (got %g), %s %s (got %g): not done", ex[i][0], a,
		   cstatus(stub, a), cgot(stub, a), b, cstatus(stub, b), cgot(stub, b));
		ok(ref && !strcmp(cstatus(ref, a), "pass") && !strcmp(cstatus(ref, b), "pass"),
		   "exercise %s's reference (the lab): %s %s, %s %s: done", ex[i][0], a,
		   ref ? cstatus(ref, a) : "absent", b, ref ? cstatus(ref, b) : "absent");
	}
}

static int no_claim_error(const struct json *lab)
{
	const struct json *c;

	for (c = lab ? json_get(lab, "claims") : NULL, c = c ? c->child : NULL; c; c = c->next)
		if (!strcmp(json_get_str(c, "status", ""), "error"))
			return 0;
	return lab != NULL && json_get(lab, "error") && json_get(lab, "error")->type == JSON_NULL;
}

static void check_lab01(const struct json *small, int rc_small, const struct json *zero,
			int rc_zero)
{
	const struct json *c = claim(small, "01.4");

	ok(rc_small == 0 && no_claim_error(small) && lab_has_note(small, "euid 1000") &&
	   lab_has_note(small, "RLIMIT_MEMLOCK 64 KiB"),
	   "lab-01 as uid 1000 under a 64 KiB RLIMIT_MEMLOCK: no error (exit %d)", rc_small);
	ok(!strcmp(cstatus(small, "01.4"), "pass") &&
	   !strcmp(json_get_str(c, "got_name", ""), "ENOMEM"),
	   "01.4 over the 64 KiB limit: ENOMEM (%s)", cnote(small, "01.4"));
	c = claim(zero, "01.4");
	ok((rc_zero == 0 || rc_zero == 77) && no_claim_error(zero) &&
	   lab_has_note(zero, "euid 1000") &&
	   lab_has_note(zero, "RLIMIT_MEMLOCK 0 B"),
	   "lab-01 as uid 1000 under a hard RLIMIT_MEMLOCK of 0: no error (exit %d)", rc_zero);
	ok(!strcmp(cstatus(zero, "01.4"), "skip") &&
	   !strcmp(json_get_str(c, "reason", ""), "no-capability") &&
	   text_has(json_get_str(c, "detail", ""), "EPERM"),
	   "01.4 under a hard limit of 0: skipped as no-capability, the EPERM reported (%s)",
	   json_get_str(c, "detail", ""));
}

static void check_lab05(const struct json *res)
{
	const struct json *l = lab_in_results(res, "05");

	if (!l) {
		printf("# lab-05 was not run in the guest (it does not link statically here)\n");
		return;
	}
	ok(strcmp(json_get_str(l, "status", "error"), "error") && evaluated(cstatus(l, "05.1")),
	   "lab-05's CPU part ran in the guest: 05.1 %s", cstatus(l, "05.1"));
	show(l, "05.1", "a page fault under TCG emulation: reported, not required to pass");
}

int main(int argc, char **argv)
{
	char *steps, *facts, *sysinfo, *runout;
	struct json *res, *run04, *gpu0, *sab, *stub, *small, *zero;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	printf("TAP version 13\n");
	steps = slurp("steps");
	facts = slurp("facts");
	sysinfo = slurp("sysinfo.out");
	runout = slurp("run.out");
	ok(steps && facts && sysinfo && runout,
	   "the guest sent its steps, facts, sysinfo and the runner's report");
	res = load("run-results.json");
	run04 = load("run-lab-04.json");
	gpu0 = load("gpu0.json");
	sab = load("sab.json");
	stub = load("stub.json");
	small = load("lab01-small.json");
	zero = load("lab01-zero.json");

	check_machine(res, sysinfo, runout, facts);
	check_runner_lab04(res, run04, step_rc(steps, "run"));
	check_gpu0(gpu0, step_rc(steps, "gpu0"), facts);
	check_sabotage(sab, step_rc(steps, "sab"));
	check_exercise_stub(stub, step_rc(steps, "stub"), run04);
	check_lab01(small, step_rc(steps, "lab01-small"), zero, step_rc(steps, "lab01-zero"));
	check_lab05(res);

	printf("1..%d\n", ntest);
	if (nfail)
		printf("# test-numa: %d of %d checks failed\n", nfail, ntest);
	else
		printf("# test-numa: all %d checks passed (04.2/04.3 are not required to pass: "
		       "emulated nodes have no remote cost)\n", ntest);
	json_free(res);
	json_free(run04);
	json_free(gpu0);
	json_free(sab);
	json_free(stub);
	json_free(small);
	json_free(zero);
	return nfail ? 1 : 0;
}
