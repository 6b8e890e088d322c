/*
 * explain.c - the likely cause of a low figure (or a verdict that moved),
 * from the machine facts the node's results.json already holds (compare.h).
 *
 * Two things make a fact worth naming beside an item:
 *   - it differs from the reference's value (the baseline's runs, or most of
 *     the fleet), even when it is not bad in itself: a changed driver or
 *     kernel is named, since it is what changed;
 *   - it is bad in itself (a link below its maximum, a GPU on another NUMA
 *     node than the run's CPUs, a translating IOMMU, held-back clocks, other
 *     processes on the GPU, THP never, a small memlock limit) and the
 *     reference does not record it.
 *   - a GPU error counter (PCIe replays, ECC, remapped rows, AER) rose
 *     during the item's own lab: the runner read it around each lab.
 * A bad fact the reference shares is not named: it cannot explain why this
 * node differs from the reference.  Which facts can explain which lab's
 * figures is the table below.
 */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "gpu_counters.h"
#include "lang.h"
#include "sizes.h"

#define COPY_PATH (CMP_EXPLAIN_PCIE | CMP_EXPLAIN_NUMA | CMP_EXPLAIN_IOMMU | CMP_EXPLAIN_PROCS | \
		   CMP_EXPLAIN_CLOCKS)

/* Which facts can explain which figures.  labs: lab ids, "*" every lab.
 * figures: NULL every figure of those labs; "a b" the keys containing a or
 * b; "!a b" the keys containing neither. */
static const struct explain_row {
	const char *labs;
	const char *figures;
	unsigned kinds;
} explain_table[] = {
	/* copies between host and GPU: the link, where the buffer sits, the
	 * IOMMU on the DMA path, who else uses the GPU, its clocks */
	{ "02 03 08 10", NULL, COPY_PATH },
	{ "11", "!gemm tflop 11.3", COPY_PATH },
	/* lab-11's matrix multiply (11.3 is the prefill at the GEMM rate) */
	{ "11", "gemm tflop 11.3", CMP_EXPLAIN_CLOCKS | CMP_EXPLAIN_PROCS },
	/* pointer-chase latency and read bandwidth: placement, TLB reach */
	{ "04", NULL, CMP_EXPLAIN_NUMA | CMP_EXPLAIN_THP | CMP_EXPLAIN_VIRT },
	{ "08", NULL, CMP_EXPLAIN_THP | CMP_EXPLAIN_HUGEPAGES | CMP_EXPLAIN_VIRT },
	{ "01", NULL, CMP_EXPLAIN_MEMLOCK },
	/* CPU first touch under THP, in a guest whose memory the host backs;
	 * GPU faults and IPC share the GPU */
	{ "05", NULL, CMP_EXPLAIN_THP | CMP_EXPLAIN_PROCS | CMP_EXPLAIN_VIRT },
	{ "06 07", NULL, CMP_EXPLAIN_PROCS },
	{ "*", NULL, CMP_EXPLAIN_SYSTEM },
};

static int key_matches(const char *filter, const char *key)
{
	char word[32];
	int neg, any = 0;

	if (!filter)
		return 1;
	neg = *filter == '!';
	for (const char *p = filter + neg; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");

		snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1),
			 p);
		any |= strstr(key, word) != NULL;
		p += n;
	}
	return neg ? !any : any;
}

unsigned cmp_explain_kinds(const char *lab, const char *key)
{
	unsigned kinds = 0;

	for (size_t i = 0; i < sizeof(explain_table) / sizeof(explain_table[0]); i++) {
		const struct explain_row *row = &explain_table[i];

		if ((!strcmp(row->labs, "*") || cmp_word_in(row->labs, lab)) &&
		    key_matches(row->figures, key))
			kinds |= row->kinds;
	}
	return kinds;
}

/* ------------------------------------------------------------------------ */
/* Sentences */

struct says {
	const struct cmp_node *n;
	const struct cmp_ref *ref;
	struct cmp_item *it;
};

__attribute__((format(printf, 2, 3)))
static void say(struct says *s, const char *fmt, ...)
{
	char line[CMP_CAUSE_LEN], shown[2 * CMP_CAUSE_LEN];
	va_list ap;
	int k = s->it->ncauses;

	va_start(ap, fmt);
	msg_vformat(line, sizeof(line), shown, sizeof(shown), fmt, ap); /* fmt: MSG()'s */
	va_end(ap);
	for (int i = 0; i < k; i++)
		if (!strcmp(s->it->cause[i], line))
			return;
	if (k == CMP_MAX_CAUSES)
		return;
	snprintf(s->it->cause[k], CMP_CAUSE_LEN, "%s", line);
	snprintf(s->it->shown[k], sizeof(s->it->shown[k]), "%s", shown);
	s->it->ncauses++;
}

void fmt_bytes(double b, char *buf, size_t len)
{
	char size[32];

	lab_fmt_size((uint64_t)fabs(b), size, sizeof(size)); /* the kit's one formatter */
	snprintf(buf, len, "%s%s", b < 0 ? "-" : "", size);
}

/* "64 KiB", "8 MiB", "unlimited" from a byte count as text. */
static void bytes_text(const char *v, char *buf, size_t len)
{
	if (!strcmp(v, "unlimited"))
		snprintf(buf, len, "unlimited");
	else
		fmt_bytes(strtod(v, NULL), buf, len);
}

/*
 * Whether fact `name` is worth naming (see the top of the file), and the
 * reference's note: " (the baseline: identity)" when the reference has the
 * fact and it differs, "" otherwise.  bad: the node's value is bad in itself.
 */
static int worth(struct says *s, const char *name, int bad, char *note, size_t len, int as_bytes)
{
	const char *mine = cmp_node_fact(s->n, name), *ref = cmp_ref_fact(s->ref, name);
	char shown[64];

	note[0] = '\0';
	if (!mine)
		return 0;
	if (!ref)
		return bad;
	if (!strcmp(mine, ref))
		return 0;
	if (as_bytes)
		bytes_text(ref, shown, sizeof(shown));
	snprintf(note, len, " (%s: %s)", s->ref->word, as_bytes ? shown : ref);
	return 1;
}

static void explain_pcie(struct says *s, int g)
{
	const struct cmp_gpu *G = &s->n->gpu[g];
	int below = (G->gen_cur > 0 && G->gen_cur < G->gen_max) ||
		    (G->width_cur > 0 && G->width_cur < G->width_max);
	char name[CMP_FACT_LEN], note[200];

	snprintf(name, sizeof(name), "gpu%d.pcie_cur", g);
	if (!worth(s, name, below, note, sizeof(note), 0))
		return;
	if (below) /* note: " (the fleet: Gen5 x16)" or "" */
		say(s, MSG("cause.pcie-below", "GPU %d's PCIe link was Gen%d x%d at the time "
			   "sysinfo read it, below its Gen%d x%d%s (an idle GPU may train its "
			   "link down)"), G->index, G->gen_cur, G->width_cur, G->gen_max,
		    G->width_max, note);
	else
		say(s, MSG("cause.pcie", "GPU %d's PCIe link was Gen%d x%d at the time sysinfo "
			   "read it%s"), G->index, G->gen_cur, G->width_cur, note);
}

static int on_cpu_nodes(const struct cmp_node *n, int node)
{
	for (int i = 0; i < n->ncpu_nodes; i++)
		if (n->cpu_nodes[i] == node)
			return 1;
	return 0;
}

static void explain_numa_machine(struct says *s)
{
	char note[200];

	if (worth(s, "numa_nodes", 0, note, sizeof(note), 0))
		say(s, MSG("cause.numa-nodes", "the machine has %s NUMA node%s%s"),
		    cmp_node_fact(s->n, "numa_nodes"),
		    strcmp(cmp_node_fact(s->n, "numa_nodes"), "1") ? "s" : "", note);
	if (worth(s, "cpu_nodes", 0, note, sizeof(note), 0))
		say(s, MSG("cause.cpu-nodes", "the run's CPUs were on NUMA node %s%s"),
		    cmp_node_fact(s->n, "cpu_nodes"), note);
}

static void explain_numa_gpu(struct says *s, int g)
{
	const struct cmp_gpu *G = &s->n->gpu[g];
	int away = G->numa_node >= 0 && s->n->ncpu_nodes && !on_cpu_nodes(s->n, G->numa_node);
	const char *cpus = cmp_node_fact(s->n, "cpu_nodes"), *ref;
	char name[CMP_FACT_LEN], note[200], cpu_note[200];

	snprintf(name, sizeof(name), "gpu%d.numa_node", g);
	ref = cmp_ref_fact(s->ref, name);
	/* a bare number would read as the CPUs' node: say whose it is */
	if (worth(s, name, away, note, sizeof(note), 0) && ref)
		snprintf(note, sizeof(note), " (%s: GPU %d on node %s)", s->ref->word, G->index,
			 ref);
	/* away from the CPUs: named unless the reference had the same layout */
	if (away && (note[0] || worth(s, name, 1, note, sizeof(note), 0) ||
		     worth(s, "cpu_nodes", 1, cpu_note, sizeof(cpu_note), 0)))
		say(s, MSG("cause.gpu-node-away", "GPU %d is on NUMA node %d, the run's CPUs on "
			   "node %s%s"), G->index, G->numa_node, cpus, note);
	else if (!away && note[0])
		say(s, MSG("cause.gpu-node", "GPU %d is on NUMA node %d%s"), G->index,
		    G->numa_node, note);
}

static void explain_iommu(struct says *s, int g)
{
	const char *machine = cmp_node_fact(s->n, "iommu"), *mine;
	char name[CMP_FACT_LEN], note[200];

	if (g < 0) {
		if (worth(s, "iommu", machine && !strcmp(machine, "translated"), note, sizeof(note),
			  0))
			say(s, MSG("cause.iommu", "IOMMU %s%s"), machine, note);
		return;
	}
	snprintf(name, sizeof(name), "gpu%d.iommu", g);
	mine = cmp_node_fact(s->n, name);
	if (mine && (!machine || strcmp(mine, machine)) &&
	    worth(s, name, !strcmp(mine, "translated"), note, sizeof(note), 0))
		say(s, MSG("cause.iommu-gpu", "GPU %d's IOMMU group is %s%s"),
		    s->n->gpu[g].index, mine, note);
}

static void explain_gpu_use(struct says *s, int g, unsigned kinds)
{
	char name[CMP_FACT_LEN], note[200];
	const char *held, *procs_text;
	int procs, idx = s->n->gpu[g].index;

	snprintf(name, sizeof(name), "gpu%d.clocks_held", g);
	held = cmp_node_fact(s->n, name);
	if ((kinds & CMP_EXPLAIN_CLOCKS) && held &&
	    worth(s, name, strcmp(held, "none") != 0, note, sizeof(note), 0)) {
		if (strcmp(held, "none"))
			say(s, MSG("cause.clocks-held", "GPU %d's clocks were held back: %s%s"),
			    idx, held, note);
		else
			say(s, MSG("cause.clocks-free", "GPU %d's clocks were not held back%s"),
			    idx, note);
	}
	snprintf(name, sizeof(name), "gpu%d.compute_procs", g);
	procs_text = cmp_node_fact(s->n, name);
	procs = procs_text ? atoi(procs_text) : -1;
	if (!(kinds & CMP_EXPLAIN_PROCS) || !worth(s, name, procs > 0, note, sizeof(note), 0))
		return;
	if (procs > 0)
		say(s, MSG("cause.procs", "%d other process%s using GPU %d when the run "
			   "started%s"), procs, procs == 1 ? " was" : "es were", idx, note);
	else
		say(s, MSG("cause.no-procs", "no other process was using GPU %d when the run "
			   "started%s"), idx, note);
}

static void explain_host(struct says *s, unsigned kinds)
{
	const char *thp = cmp_node_fact(s->n, "thp"), *lock = cmp_node_fact(s->n, "memlock");
	const char *cap = cmp_node_fact(s->n, "cap_ipc_lock");
	char note[200], shown[64];
	int small;

	if ((kinds & CMP_EXPLAIN_THP) && worth(s, "thp", thp && !strcmp(thp, "never"), note,
					     sizeof(note), 0))
		say(s, MSG("cause.thp", "THP %s%s"), thp, note);
	/* lab-01 locks 64 MiB; below that, without CAP_IPC_LOCK, it cannot */
	small = lock && strcmp(lock, "unlimited") && strtod(lock, NULL) < 64.0 * 1024 * 1024 &&
		!(cap && !strcmp(cap, "yes"));
	if ((kinds & CMP_EXPLAIN_MEMLOCK) && worth(s, "memlock", small, note, sizeof(note), 1)) {
		bytes_text(lock, shown, sizeof(shown));
		say(s, MSG("cause.memlock", "memlock limit %s%s"), shown, note);
	}
	if ((kinds & CMP_EXPLAIN_MEMLOCK) && worth(s, "cap_ipc_lock", 0, note, sizeof(note), 0))
		say(s, MSG("cause.cap-ipc-lock", "CAP_IPC_LOCK %s%s"), cap, note);
	if ((kinds & CMP_EXPLAIN_HUGEPAGES) && worth(s, "hugepages", 0, note, sizeof(note), 0))
		say(s, MSG("cause.hugepages", "%s huge pages reserved%s"),
		    cmp_node_fact(s->n, "hugepages"), note);
	if ((kinds & CMP_EXPLAIN_SYSTEM) && worth(s, "kernel", 0, note, sizeof(note), 0))
		say(s, MSG("cause.kernel", "kernel %s%s"), cmp_node_fact(s->n, "kernel"), note);
	if ((kinds & CMP_EXPLAIN_SYSTEM) && worth(s, "driver", 0, note, sizeof(note), 0))
		say(s, MSG("cause.driver", "NVIDIA driver %s%s"), cmp_node_fact(s->n, "driver"),
		    note);
}

/*
 * Lab-05's CPU fault against its THP first touch, per 4 KiB: when one 2 MiB
 * fault costs far less per 4 KiB than 512 small ones, the time goes to each
 * fault's fixed cost (in a guest, the host's exit and its own fault), not to
 * zeroing the memory.
 */
static void explain_fault_path(struct says *s)
{
	const struct cmp_figure *fault = cmp_node_figure(s->n, "05.1");
	const struct cmp_figure *thp = cmp_node_figure(s->n, "05/cpu_thp_us_per_4k");

	if (!fault || !thp || !(thp->value > 0) || strcmp(s->it->lab, "05"))
		return;
	say(s, MSG("cause.thp-touch", "a THP first touch cost %.3g us per 4 KiB here, %.0fx "
		   "less than a 4 KiB fault: the time is each fault's fixed cost, not "
		   "zeroing the page"), thp->value, fault->value / thp->value);
}

/* A guest's page fault may also fault in the host, which backs guest memory
 * on first use, and its TLB miss walks two levels of page tables. */
static void explain_virt(struct says *s)
{
	const char *virt = cmp_node_fact(s->n, "virt");
	char note[200];

	if (!worth(s, "virt", virt && strcmp(virt, "none"), note, sizeof(note), 0))
		return;
	say(s, MSG("cause.virt", "a virtual machine (%s)%s: the host backs guest memory, so "
		   "a page fault or TLB miss in the guest may cost the host's as well"),
	    virt, note);
	explain_fault_path(s);
}

/* An error counter that rose during the item's own lab: the strongest cause
 * there is, as it was read around that lab (counters.c), whatever the reference. */
static void explain_counters(struct says *s, int g)
{
	char name[CMP_FACT_LEN];
	const char *rose;

	for (int i = 0; i < GPU_NCOUNTERS; i++) {
		snprintf(name, sizeof(name), "lab%s.gpu%d.%s", s->it->lab, g, gpu_counter_names[i]);
		rose = cmp_node_fact(s->n, name);
		if (!rose)
			continue;
		if (i == GPU_C_CLOCKS_HELD)
			say(s, MSG("cause.clocks-lab", "GPU %d's clocks were held back (power cap, "
				   "thermal, hardware slowdown or power brake) when lab-%s ended, "
				   "not before it"), s->n->gpu[g].index, s->it->lab);
		else if (i == GPU_C_XID)
			say(s, MSG("cause.xid", "GPU %d raised %s XID critical-error event(s) "
				   "during lab-%s"), s->n->gpu[g].index, rose, s->it->lab);
		else
			say(s, MSG("cause.counter", "GPU %d's %s counter rose by %s during lab-%s"),
			    s->n->gpu[g].index, gpu_counter_names[i], rose, s->it->lab);
	}
}

void cmp_explain(const struct cmp_node *n, const struct cmp_ref *ref, struct cmp_item *it)
{
	struct says s = { n, ref, it };
	unsigned kinds = cmp_explain_kinds(it->lab, it->key);
	int g, ngpus = n->key.ngpus < CMP_MAX_GPUS ? n->key.ngpus : CMP_MAX_GPUS;

	it->ncauses = 0;
	for (g = 0; g < ngpus; g++)
		explain_counters(&s, g);
	for (g = 0; (kinds & CMP_EXPLAIN_PCIE) && g < ngpus; g++)
		explain_pcie(&s, g);
	if (kinds & CMP_EXPLAIN_NUMA)
		explain_numa_machine(&s);
	for (g = 0; (kinds & CMP_EXPLAIN_NUMA) && g < ngpus; g++)
		explain_numa_gpu(&s, g);
	if (kinds & CMP_EXPLAIN_IOMMU)
		explain_iommu(&s, -1);
	for (g = 0; (kinds & CMP_EXPLAIN_IOMMU) && g < ngpus; g++)
		explain_iommu(&s, g);
	for (g = 0; g < ngpus; g++)
		explain_gpu_use(&s, g, kinds);
	explain_host(&s, kinds);
	if (kinds & CMP_EXPLAIN_VIRT)
		explain_virt(&s);
	it->explained = it->ncauses > 0;
	if (!it->ncauses)
		say(&s, "%s", CMP_NO_CAUSE);
}
