/*
 * chase_pair.c - lab-08's two pointer chases timed in alternation, for 08.1's
 * ratio of a walk on small pages to one on huge pages, and the ABBA blocks
 * its claims are decided on (see thp.h).
 */
#include "lab_copy.h" /* lab_copy_pair_run: the pair's order */
#include "thp.h"

void chase_pair_time(void *buf_a, void *buf_b, double target_s, int n, struct chase_pair *p)
{
	struct chase a = { (void **)buf_a, 0 }, b = { (void **)buf_b, 0 };
	double ta[LAB_MAX_SAMPLES], tb[LAB_MAX_SAMPLES], r[LAB_MAX_SAMPLES];
	int i;

	if (n > LAB_MAX_SAMPLES)
		n = LAB_MAX_SAMPLES;
	chase_calibrate(&a, target_s);
	/* Just built, a's nodes were still in the cache, where the pairs will not
	 * find them: sized again in two pairs' alternation (after one, an H200
	 * host's samples still came out 3 times target_s in one run of three) */
	for (i = 0; i < 2; i++) {
		b.loads = a.loads;
		chase_run(&b);
		chase_scale(&a, chase_run(&a), target_s);
	}
	b.loads = p->loads = a.loads;
	lab_copy_pair_run(chase_run, &a, &b, n, ta, tb);
	for (i = 0; i < n; i++)
		r[i] = tb[i] / ta[i];
	lab_stats_from(&p->a, p->name_a, "s", ta, n, 0);
	lab_stats_from(&p->b, p->name_b, "s", tb, n, 0);
	lab_stats_from(&p->ratio, p->name_ratio, "x", r, n, 0);
	p->ratio.too_short = p->a.too_short || p->b.too_short;
	lab_stats_scale(&p->a, 1e9 / (double)p->loads, "ns");
	lab_stats_scale(&p->b, 1e9 / (double)p->loads, "ns");
}

int abba_blocks(const double *sa, const double *sb, int n, double *ba, double *bb)
{
	int k;

	for (k = 0; 2 * k + 2 < n; k++) {
		ba[k] = sa[2 * k + 1] + sa[2 * k + 2];
		bb[k] = sb[2 * k + 1] + sb[2 * k + 2];
	}
	return k;
}
