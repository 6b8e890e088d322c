/*
 * fuzz_resload.c - a results.json read back (results.c: results_load, as
 * grade --from and quiz do; results_keep_load and
 * results_file_labs, as `dmalab run NN` keeps the earlier file's labs),
 * then results_claim on every claim and results_merge of the file with
 * itself.
 *
 * Input: the file.  Checked: every lab and claim loaded has an id, each
 * claim is found again by its id, and the labs `run` would keep are the
 * file's, in id order.
 */
#include "fuzz_util.h"
#include "learn.h"
#include "runner.h"

static void check(const struct learn_results *r)
{
	for (int i = 0; i < r->nlabs; i++) {
		const struct lab_entry *lab = &r->labs[i];

		if (strnlen(lab->id, sizeof(lab->id)) == sizeof(lab->id) || !lab->status)
			abort();
		for (int k = 0; k < lab->nclaims; k++)
			if (!lab->claims[k].id || !results_claim(r, lab->claims[k].id, NULL))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct runner_opts opt;
	static struct run_state rs;
	struct learn_results r, more;
	struct file_lab *v = NULL;
	char err[600];
	const char *path;
	int n;

	fuzz_scratch();
	path = fuzz_file("results.json", data, size);
	if (results_load(path, &r, err, sizeof(err)) == 0) {
		check(&r);
		if (results_load(path, &more, err, sizeof(err)) != 0)
			abort();
		results_merge(&r, &more);
		check(&r);
		results_unload(&r);
	}

	memset(&rs, 0, sizeof(rs));
	memset(&opt, 0, sizeof(opt));
	opt.results_dir = fuzz_dir;
	rs.opt = &opt;
	results_keep_load(&rs);
	n = results_file_labs(&rs, &v);
	if (n < 0 || (rs.kept && n != rs.kept->nlabs))
		abort();
	for (int i = 1; i < n; i++)
		if (strcmp(v[i - 1].lab->id, v[i].lab->id) > 0)
			abort();
	free(v);
	results_keep_free(&rs);
	return 0;
}
