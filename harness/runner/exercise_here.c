/*
 * exercise_here.c - which claims this machine cannot decide, said before a
 * run: by `dmalab exercises` for the exercises the learner would write, and
 * by `dmalab check --predict` for the figures it would ask for (exercise.h).
 *
 * An exercise is graded by its claims, and `dmalab try` says "not graded here"
 * when one of them skips in the copy's run.  Here each claim's skip is
 * forecast as `dmalab list` forecasts it (list.c: the built lab's --describe
 * against this machine's facts), so the list says it before any run.
 *
 * CUDA's device list comes from a child (`dmalab --role cuda-devices`): the
 * driver's cuInit runs there, never in this process, which may still start
 * labs (a process that ran cuInit must not fork).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exercise.h"
#include "gpu_topo.h"
#include "lang.h"
#include "proc.h"
#include "runner.h"

#define CUDA_ASK_TIMEOUT_S 30.0 /* a driver slower than this is taken for a hung one */
#define CUDA_ANSWER_MAX ((8 + GPU_TOPO_MAX_GPUS) * (GPU_BDF_LEN + GPU_NAME_LEN + 16))

struct ex_here {
	struct runner_opts opt;
	struct run_state rs;
	struct gpu_topo topo;
};

int ex_here_cuda_role(void)
{
	struct gpu_cuda_list c;

	proc_child_init(); /* a hung driver's child dies with the runner, never an orphan */
	gpu_cuda_list_read(&c);
	printf("loaded %d\nok %d\nleft_out %d\nwhy %s\n", c.loaded, c.ok, c.left_out, c.why);
	for (int i = 0; i < c.n; i++) /* a bus id CUDA did not give: "-" */
		printf("device %s %s\n", c.bus_id[i][0] ? c.bus_id[i] : "-", c.name[i]);
	return 0;
}

/* One line of the child's answer into c. */
static void cuda_line(struct gpu_cuda_list *c, const char *line)
{
	char bus[GPU_BDF_LEN];
	int at = 0;

	if (sscanf(line, "loaded %d", &c->loaded) == 1 || sscanf(line, "ok %d", &c->ok) == 1 ||
	    sscanf(line, "left_out %d", &c->left_out) == 1)
		return;
	if (!strncmp(line, "why ", 4)) {
		snprintf(c->why, sizeof(c->why), "%s", line + 4);
	} else if (sscanf(line, "device %31s %n", bus, &at) == 1 && at &&
		   c->n < GPU_TOPO_MAX_GPUS) {
		snprintf(c->bus_id[c->n], sizeof(c->bus_id[0]), "%s", strcmp(bus, "-") ? bus : "");
		snprintf(c->name[c->n++], sizeof(c->name[0]), "%s", line + at);
	}
}

/* CUDA's device list as the child read it; a child that did not answer (a
 * hung driver, a crash) leaves c as a driver that lists nothing, with why. */
static void cuda_ask(struct gpu_cuda_list *c)
{
	char self[PATH_MAX], *argv[] = { self, (char *)"--role", (char *)"cuda-devices", NULL };
	char *buf = malloc(CUDA_ANSWER_MAX), *line, *save = NULL;
	struct spawn_result sr;

	memset(c, 0, sizeof(*c));
	if (runner_self_path(self) || !buf ||
	    spawn_capture(argv, CUDA_ASK_TIMEOUT_S * proc_timeout_mul(), buf, CUDA_ANSWER_MAX,
			  &sr) || sr.exit_code != 0) {
		snprintf(c->why, sizeof(c->why), "the CUDA driver did not answer (asked in a "
			 "child process, within %.0f s)", CUDA_ASK_TIMEOUT_S * proc_timeout_mul());
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		cuda_line(c, line);
	free(buf);
}

struct ex_here *ex_here_open(const char *labs_dir)
{
	struct ex_here *h = calloc(1, sizeof(*h));
	struct gpu_cuda_list *cuda = malloc(sizeof(*cuda));

	if (!h || !cuda) {
		free(h);
		free(cuda);
		return NULL;
	}
	snprintf(h->opt.labs_dir, sizeof(h->opt.labs_dir), "%s", labs_dir);
	h->opt.timeout_mul = 1;
	h->rs.opt = &h->opt;
	sysinfo_collect(&h->rs.si);
	if (access(labs_dir, R_OK | X_OK) == 0) /* none built: nothing is forecast */
		discover_labs(&h->rs);
	cuda_ask(cuda);
	gpu_topo_build("/sys", cuda, &h->topo);
	free(cuda);
	return h;
}

void ex_here_close(struct ex_here *h)
{
	if (!h)
		return;
	lab_entries_free(&h->rs);
	free(h);
}

/* What a skip for reason why says this machine lacks, in the learner's words. */
static const char *lacks(const char *why, const struct lab_entry *lab, char *buf, size_t len)
{
	if (!strcmp(why, SKIP_NOT_BUILT_NO_NVCC))
		return MSG("ex.lacks-nvcc", "a build with nvcc");
	if (!strcmp(why, SKIP_UNKNOWN_TOPOLOGY))
		return MSG("ex.lacks-gpu-node", "the GPU's NUMA node");
	if (!strcmp(why, SKIP_NOT_ROOT))
		return MSG("ex.lacks-root", "root");
	if (!strcmp(why, SKIP_SINGLE_NUMA_NODE))
		snprintf(buf, len, MSG("ex.lacks-numa", "%d NUMA nodes"), lab->needs_numa);
	else if (!strcmp(why, SKIP_SINGLE_GPU) || !strcmp(why, SKIP_TOO_FEW_GPUS))
		snprintf(buf, len, MSG("ex.lacks-gpus", "%d GPUs"), lab->needs_gpus);
	else
		return MSG("ex.lacks-gpu", "a GPU"); /* no driver, no device */
	return buf;
}

/* 1 when the list (items between sep) holds item. */
static int has_item(const char *list, const char *item, const char *sep)
{
	size_t n = strlen(item), k = strlen(sep);

	for (const char *p = list; *p; p += k) {
		if (!strncmp(p, item, n) && (!p[n] || !strncmp(p + n, sep, k)))
			return 1;
		if (!(p = strstr(p, sep)))
			return 0;
	}
	return 0;
}

/* item added to the list out (len bytes, items between sep) unless it is there. */
static void add_item(char *out, size_t len, const char *item, const char *sep)
{
	size_t used = strlen(out);

	if (!has_item(out, item, sep))
		snprintf(out + used, len - used, "%s%s", used ? sep : "", item);
}

/* Each skip the claims (ids of lab lab_id) will give here added to the list
 * in out: as the learner's words, or (codes) as lab.h's reason codes. */
static int forecast_into(const struct ex_here *h, const char *lab_id, const char *claims,
			 char *out, size_t len, int codes)
{
	const char *why[CLAIM_FORECAST_MAX];
	const struct lab_entry *lab = NULL;
	char ids[128], word[64], *save = NULL, *id;
	int i, n, any = 0;

	for (i = 0; h && i < h->rs.nlabs && !lab; i++)
		if (!strcmp(h->rs.labs[i].id, lab_id) && h->rs.labs[i].desc)
			lab = &h->rs.labs[i];
	if (!lab)
		return -1;
	snprintf(ids, sizeof(ids), "%s", claims);
	for (id = strtok_r(ids, " ", &save); id; id = strtok_r(NULL, " ", &save)) {
		n = claim_forecast(&h->rs.si, &h->topo, lab, id, why);
		for (i = 0; i < n; i++)
			add_item(out, len, codes ? why[i] : lacks(why[i], lab, word, sizeof(word)),
				 codes ? " " : MSG("list.sep", ", "));
		any |= n > 0;
	}
	return any;
}

int ex_here_lacks_add(const struct ex_here *h, const char *lab_id, const char *claims,
		      char *out, size_t len)
{
	return forecast_into(h, lab_id, claims, out, len, 0);
}

int ex_here_lacks(const struct ex_here *h, const char *lab_id, const char *claims,
		  char *out, size_t len)
{
	out[0] = '\0';
	return forecast_into(h, lab_id, claims, out, len, 0);
}

int ex_here_skips(const struct ex_here *h, const char *lab_id, const char *claims,
		  char *out, size_t len)
{
	out[0] = '\0';
	return forecast_into(h, lab_id, claims, out, len, 1);
}
