/*
 * main.c - dmalab-preflight: a node health check for Slurm and
 * Kubernetes (health.h lists the checks; --help the options and exit
 * codes; README.md, "Preflight: a node health check", the slurm.conf
 * lines and the node-problem-detector plugin).
 *
 *   dmalab-preflight [--memlock-min SIZE] [--expect-gpus N] [--size SIZE]
 *                    [--min-fraction F] [--gpu-timeout S] [--json FILE] [--brief]
 *
 * stdout: one line per check (unless --brief), then the status line,
 * which Slurm's wrapper and node-problem-detector take as the reason.
 * Exit: 0 healthy, 1 unhealthy, 2 could not run.
 *
 * `dmalab-preflight --role gpu --bdf BDF --size BYTES` is the GPU helper
 * this program starts for each GPU (gpu_helper.cu), not for people.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"

/* The checks, printed; returns the exit code. */
static int run_checks(const struct pf_opts *o)
{
	struct pf_report *r = (struct pf_report *)calloc(1, sizeof(*r));
	struct pf_gpus *g = (struct pf_gpus *)calloc(1, sizeof(*g));
	double t0 = lab_now();
	char status[PF_LINE_LEN + 64];
	int code;

	if (!r || !g) {
		printf("preflight: could not run: out of memory\n");
		return 2;
	}
	pf_check_memlock(o, r);
	pf_gpus_scan(o, g);
	pf_check_gpus(o, g, r);
	if (!o->brief)
		pf_print_checks(r, stdout);
	printf("%s\n", pf_status_line(r, status, sizeof(status)));
	fflush(stdout);
	code = pf_report_exit_code(r);
	if (o->json_path && pf_write_json(o->json_path, o, r, g, lab_now() - t0) < 0) {
		fprintf(stderr, PF_PROGRAM ": --json '%s': not written: %m\n", o->json_path);
		code = code ? code : 2;
	}
	free(r);
	free(g);
	return code;
}

int main(int argc, char **argv)
{
	struct pf_opts o;
	int rc;

	if (argc > 1 && (!strcmp(argv[1], "--role") || !strncmp(argv[1], "--role=", 7)))
		return pf_helper_main(argc, argv);
	rc = pf_parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc;
	o.gpu_built = pf_helper_built();
	return run_checks(&o);
}
