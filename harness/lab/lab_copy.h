/*
 * lab_copy.h - the plain-C half of timed copies (lab_copy_cuda.h has the
 * CUDA half): batches, the claim pair, the PCIe link.  Built by gcc as well
 * (lab-08's chase_pair.c, test_lab_copy.c).
 *
 * Why batches: cudaEventElapsedTime steps in about 0.5 us and a 4 KiB copy
 * takes a few us, so a small sample is a batch of back-to-back copies grown
 * until it lasts LAB_COPY_FLOOR_S.  A queued sample waits behind a spin
 * that outlasts the issuing of its copies (as nvbandwidth does), so that
 * it times the copies, not the host launching them.
 * Why a pair: a host's copy rate drifts over a run (pageable copies by tens
 * of per cent); two buffers copied in alternation meet the same drift, and
 * the per-pair ratio cancels it.
 */
#ifndef DMALAB_LAB_COPY_H
#define DMALAB_LAB_COPY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_topo.h"
#include "lab.h"
#include "sysinfo.h"

/* A sample lasts at least 200 event steps (100 us), twice what lab.h trusts. */
#define LAB_COPY_FLOOR_S (200 * LAB_CUDA_EVENT_RES_S)
/* The most copies one batched sample holds. */
#define LAB_COPY_MAX_REPS 4096

/* ---- Batches (plain C) ---- */

/*
 * A sample of `reps` copies took t seconds: 0 when the batch is done, else
 * the copies for the next try.  Grown on timed batches: back-to-back copies
 * overlap their launch, so a batch is shorter than its copies one by one.
 */
static inline int lab_copy_next_reps(int reps, double t, double floor_s, int max_reps)
{
	double want;

	if (t >= floor_s || reps >= max_reps)
		return 0;
	want = reps * (1.25 * floor_s / t) + 1;
	return want >= max_reps ? max_reps : (int)want;
}

/* The spin in front of a queued sample: at least, at most (ns). */
#define LAB_COPY_FRONT_MIN_NS 20000.0
#define LAB_COPY_FRONT_MAX_NS 50e6

/* The spin (ns) in front of `reps` copies: twice their issuing, so that the host
 * has issued every copy before the GPU starts the first. */
static inline uint64_t lab_copy_front_ns(double issue_s_per_copy, int reps)
{
	double ns = 2e9 * issue_s_per_copy * reps + LAB_COPY_FRONT_MIN_NS;

	return ns < LAB_COPY_FRONT_MAX_NS ? (uint64_t)ns : (uint64_t)LAB_COPY_FRONT_MAX_NS;
}

/*
 * A copy sample and its batch: sample() spins front_ns, records the start
 * event, issues n copies (issue_s: host seconds), records the stop event
 * and returns the GPU seconds between them.
 */
struct lab_copy_batch {
	lab_run_fn sample;  /* one timed sample of n copies */
	void *ctx;          /* sample's argument */
	int n;              /* copies a sample (>= 1): the harness sets it */
	uint64_t front_ns;  /* spin before the start event, 0 none: the harness sets it */
	double issue_s;     /* host seconds issuing the last sample's copies: sample sets it */
};

/* Sets b->n so a sample lasts LAB_COPY_FLOOR_S (and, queue, b->front_ns).
 * Returns the runs made (at least 2). */
static inline int lab_copy_batch_size(struct lab_copy_batch *b, int queue)
{
	double t, per_copy;
	int next, runs = 1;

	b->n = 1;
	b->front_ns = 0;
	b->sample(b->ctx);
	per_copy = b->issue_s; /* seconds issuing one copy, from the run just made */
	for (;;) {
		b->front_ns = queue ? lab_copy_front_ns(per_copy, b->n) : 0;
		t = b->sample(b->ctx);
		runs++;
		per_copy = b->issue_s / b->n;
		next = lab_copy_next_reps(b->n, t, LAB_COPY_FLOOR_S, LAB_COPY_MAX_REPS);
		if (next <= 0)
			break;
		b->n = next;
	}
	if (queue) /* the last run had this n: its issuing sizes the samples' spin */
		b->front_ns = lab_copy_front_ns(per_copy, b->n);
	return runs;
}

/* ---- The claim pair (plain C) ---- */

/* Two buffers timed in alternation; the caller names the three series. */
struct lab_copy_pair {
	const char *name_a, *name_b; /* the buffers' series (static strings) */
	const char *name_ratio;      /* the per-pair ratio's series (static string) */
	struct lab_stats a, b;       /* GB/s, one sample per pair */
	struct lab_stats ratio;      /* "x": a's rate / b's rate within each pair */
};

/*
 * Times fn(a) and fn(b) in pairs after two warm-up pairs, from min_n to max_n
 * pairs by the stopping rule on both and their ratio.  The order within a
 * pair alternates, so that neither always runs right after the other.
 */
static inline int lab_copy_pair_run_until(lab_run_fn fn, void *a, void *b, int min_n,
					  int max_n, double *sa, double *sb)
{
	double ratio[LAB_MAX_SAMPLES];

	max_n = max_n < LAB_MAX_SAMPLES ? max_n : LAB_MAX_SAMPLES;
	for (int i = 0; i < 2; i++) {
		fn(b);
		fn(a);
	}
	for (int i = 0; i < max_n; i++) {
		if (i % 2 == 0) {
			sb[i] = fn(b);
			sa[i] = fn(a);
		} else {
			sa[i] = fn(a);
			sb[i] = fn(b);
		}
		ratio[i] = sb[i] / sa[i];
		if (i + 1 >= min_n && lab_stop_narrow(sa, i + 1) && lab_stop_narrow(sb, i + 1) &&
		    lab_stop_narrow(ratio, i + 1))
			return i + 1;
	}
	return max_n;
}

/* Exactly n pairs in lab_copy_pair_run_until's order (n <= LAB_MAX_SAMPLES). */
static inline void lab_copy_pair_run(lab_run_fn fn, void *a, void *b, int n,
				     double *sa, double *sb)
{
	lab_copy_pair_run_until(fn, a, b, n, n, sa, sb);
}

/* The pair's series in GB/s and their ratio, too_short when either side is. */
static inline void lab_copy_pair_stats(struct lab_copy_pair *p, const double *sa,
				       const double *sb, int n, uint64_t bytes)
{
	double ratio[LAB_MAX_SAMPLES];
	struct lab_stats secs;

	lab_stats_from(&secs, p->name_a, "s", sa, n, LAB_CUDA_EVENT_RES_S);
	lab_stats_to_rate(&secs, bytes, &p->a);
	lab_stats_from(&secs, p->name_b, "s", sb, n, LAB_CUDA_EVENT_RES_S);
	lab_stats_to_rate(&secs, bytes, &p->b);
	for (int i = 0; i < n; i++)
		ratio[i] = sb[i] / sa[i];
	lab_stats_from(&p->ratio, p->name_ratio, "x", ratio, n, LAB_CUDA_EVENT_RES_S);
	p->ratio.too_short = p->a.too_short || p->b.too_short;
}

/* The claim pair by the stopping rule, with the caller's sample function, into
 * p's series (named by the caller).  Returns the pairs. */
static inline int lab_copy_pair_sampled(struct lab_copy_pair *p, lab_run_fn sample, void *a,
					void *b, uint64_t bytes, int min_n, int max_n)
{
	double sa[LAB_MAX_SAMPLES], sb[LAB_MAX_SAMPLES];
	int n = lab_copy_pair_run_until(sample, a, b, min_n, max_n, sa, sb);

	lab_copy_pair_stats(p, sa, sb, n, bytes);
	p->a.remeasured = p->b.remeasured = p->ratio.remeasured = n > min_n;
	p->a.noisy = p->b.noisy = p->ratio.noisy = !lab_stop_narrow(sa, n) ||
		!lab_stop_narrow(sb, n) || !lab_stop_narrow(p->ratio.samples, n);
	return n;
}

/* ---- The PCIe link of a CUDA device (plain C) ---- */

struct lab_copy_link {
	int known;               /* theo_gbs is usable */
	int gen_cur, width_cur;  /* now (an idle link may be trained down); -1 unknown */
	int gen_max, width_max;  /* what device and slot support; -1 unknown */
	double theo_gbs;         /* GB/s one direction after line encoding, from the max */
	char bdf[GPU_BDF_LEN];   /* the device's PCI bus id, sysfs's form */
	char seen[200];          /* what was found, for a skip's detail */
};

/* The link of bus id bdf in the scan t, judged by its maximum (an idle link may
 * be trained down); not in t or unread: unknown. */
static inline void lab_copy_link_find(const struct gpu_topo *t, const char *bdf,
				      struct lab_copy_link *k)
{
	const struct gpu_topo_dev *g = gpu_topo_find(t, bdf);

	memset(k, 0, sizeof(*k));
	snprintf(k->bdf, sizeof(k->bdf), "%s", bdf);
	k->gen_cur = k->width_cur = k->gen_max = k->width_max = -1;
	snprintf(k->seen, sizeof(k->seen), "no GPU with PCI bus id %s among the %d "
		 "that CUDA, NVML and sysfs list", k->bdf, t->n);
	if (!g)
		return;
	k->gen_cur = g->pcie_gen_cur;
	k->width_cur = g->pcie_width_cur;
	k->gen_max = g->pcie_gen_max;
	k->width_max = g->pcie_width_max;
	k->theo_gbs = pcie_rate_gbs(k->gen_max, k->width_max);
	k->known = k->theo_gbs > 0;
	snprintf(k->seen, sizeof(k->seen),
		 "%s (%s): max gen %d width %d (%s), now gen %d width %d (%s) (<= 0: unknown)",
		 k->bdf, g->name, k->gen_max, k->width_max, gpu_src_name(g->src.gen_max),
		 k->gen_cur, k->width_cur, gpu_src_name(g->src.gen_cur));
}

/* Records the link as facts and a note. */
static inline void lab_copy_link_report(struct lab *L, const struct lab_copy_link *k)
{
	lab_fact_str(L, "gpu_pci_bus_id", k->bdf);
	lab_fact_num(L, "pcie_gen_max", k->gen_max, "");
	lab_fact_num(L, "pcie_width_max", k->width_max, "lanes");
	lab_fact_num(L, "pcie_gen_cur", k->gen_cur, "");
	lab_fact_num(L, "pcie_width_cur", k->width_cur, "lanes");
	if (!k->known) {
		lab_note(L, MSG("lab.pcie-unknown", "PCIe link unknown: %s"), k->seen);
		return;
	}
	lab_fact_num(L, "pcie_theoretical_gbs", k->theo_gbs, "GB/s");
	lab_note(L, MSG("lab.pcie-link", "PCIe link: Gen%d x%d, %.1f GB/s per direction in "
		"theory (now Gen%d x%d)"), k->gen_max, k->width_max, k->theo_gbs,
		 k->gen_cur, k->width_cur);
}

#endif
