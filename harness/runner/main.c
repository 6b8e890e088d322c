/*
 * main.c - `dmalab`: options, the one command table (list, claims, run,
 * check, sysinfo, preflight, the learner's and the SRE's commands: --help
 * lists them), signals.
 *
 * `dmalab --role cuda-devices` is no command: exercise_here.c's child, which
 * asks CUDA for its devices so that a runner that still starts labs never
 * runs cuInit itself.
 *
 * Exit codes: 0 no failure (known errata and skips allowed), 1 a claim
 * failed or a lab broke, 2 usage or bad input, 128 + N stopped by signal N
 * (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cleanup.h"
#include "compare.h"
#include "exercise.h"
#include "lang.h"
#include "learn.h"
#include "runner.h"

/* A command of `dmalab`, called one of three ways: run gets the whole argv
 * (argv[1] is the command); sub gets argv from the command on (argv[0] is
 * it), as compare, baseline and the others read their own options after it;
 * learn runs through learn_main.  help is its lines of the usage text (NULL:
 * said on another's line). */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	int (*sub)(int argc, char **argv);
	int (*learn)(struct learn_ctx *lc);
	const char *help;
};

static int cmd_labs(int argc, char **argv);
static int cmd_help(int argc, char **argv);
static int exec_fleet(int argc, char **argv);
static int preflight(int argc, char **argv);

static const struct command commands[] = {
	{ "list", cmd_labs, .help =
	  "  list            every lab, its claims, and whether it will skip here\n" },
	{ "claims", cmd_labs, .help =
	  "  claims          every claim's relation, tolerance, rule and sabotage, from\n"
	  "                  the labs' --describe (--format human or json)\n" },
	{ "run", cmd_labs, .help =
	  "  run NN...       run labs, narrated (prints the command line it runs)\n" },
	{ "check", cmd_labs, .help =
	  "  check [NN...]   run every lab (or those named): report card, results.json,\n"
	  "                  junit.xml (JUnit XML for CI dashboards)\n" },
	{ "sysinfo", cmd_labs, .help =
	  "  sysinfo         the machine facts the skips are decided on, as text\n" },
	{ "preflight", preflight, .help =
	  "  preflight       a node health check for Slurm and Kubernetes: labs 01 and 02\n"
	  "                  run short; exit 0 healthy, 1 not, 2 could not run (--help)\n" },
	{ "grade", .learn = cmd_grade, .help =
	  "  grade, quiz, hint NN, answers   the chapters' questions (dmalab grade --help)\n" },
	{ "quiz", .learn = cmd_quiz },
	{ "hint", .learn = cmd_hint },
	{ "answers", .learn = cmd_answers },
	{ "exercise", cmd_exercise, .help =
	  "  exercise NN [--reset]   write the learner's copy of lab NN (work/NN-name/),\n"
	  "                  each exercise region a stub\n" },
	{ "try", cmd_try, .help =
	  "  try NN          grade the learner's built copy: done / not yet per exercise\n" },
	{ "exercises", cmd_exercises, .help =
	  "  exercises       every exercise with its state (not started, not yet, done)\n" },
	{ "compare", .sub = cmd_compare, .help =
	  "  compare FILE...  nodes' results against a baseline or the fleet: what is low,\n"
	  "                  and the likely cause (dmalab compare --help)\n" },
	{ "baseline", .sub = cmd_baseline, .help =
	  "  baseline FILE... --out F   a baseline from runs of one machine type\n" },
	{ "history", .sub = cmd_history, .help =
	  "  history PATH...  per GPU, each figure over the kept runs; flags a GPU whose\n"
	  "                  latest run left its own earlier runs' band (--help)\n" },
	{ "metrics", .sub = cmd_metrics, .help =
	  "  metrics [FILE] [--out F]   a run's figures and verdicts as Prometheus gauges\n" },
	{ "bench", .sub = cmd_bench, .help =
	  "  bench [FILE] [--series] [--phases [N]] [--base OLD]   the kit's own timing:\n"
	  "                  each lab's wall time, samples, CV and interval width reached\n" },
	{ "class", .sub = cmd_class, .help =
	  "  class DIR [--out F]   a trainer's HTML page of the learners' results.json in\n"
	  "                  DIR: exercises done, prediction scores, questions confirmed\n" },
	{ "messages", .sub = cmd_messages, .help =
	  "  messages [FILE]  the Chinese message table as JSON, as dmalab reads it (plots/\n"
	  "                  takes its Chinese from it)\n" },
	{ "fleet", exec_fleet, .help =
	  "  fleet [SBATCH OPTIONS] [-- NN...]   check on every node of a Slurm allocation,\n"
	  "                  one merged report (dmalab fleet --help)\n" },
	{ "help", cmd_help },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* "list, claims, ... or fleet": the table's commands (help aside), for an error. */
static const char *command_names(char *buf, size_t len)
{
	size_t n = sizeof(commands) / sizeof(commands[0]), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *sep = !used ? "" : i + 2 == n ? " or " : ", ";

		if (strcmp(commands[i].name, "help"))
			used += snprintf(buf + used, len - used, "%s%s", sep, commands[i].name);
	}
	return buf;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dmalab list | claims | run NN... | check [NN...] | sysinfo  [options]\n"
		"       dmalab preflight | grade | quiz | hint NN | answers | exercise NN | "
		"try NN |\n"
		"              exercises | compare | baseline |\n"
		"              history | metrics | bench | class | messages | fleet ...\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].help)
			fputs(commands[i].help, f);
	fprintf(f,
		"options:\n"
		"  --labs-dir DIR      where the lab-NN programs are (default: <dir of "
		"dmalab>/labs)\n"
		"  --results DIR       where results.json and the logs go (default: results;\n"
		"                      made when missing, in a folder that exists)\n"
		"  --format FMT        human, tap, json or junit (default: human for run and on a\n"
		"                      terminal, else tap); json and junit print one document on\n"
		"                      stdout and the progress on stderr\n"
		"  --timeout-mul N     multiply every lab's timeout by N, from 0.1 to 1000\n"
		"                      (env DMALAB_TIMEOUT_MUL)\n"
		"  --quick             small sizes (passes --quick to the labs)\n"
		"  --learner NAME      run, check: the learner's name, kept in results.json\n"
		"                      (a trainer's `dmalab class` names the runs by it)\n"
		"  --work DIR          run, check: results.json also lists every exercise with\n"
		"                      its state in the learner's copies under DIR (make: work)\n"
		"  --predict           run, check: before each lab, ask for your number for each\n"
		"                      headline figure (a claim measured on a scale) this machine\n"
		"                      can measure (one line says how many are not asked, and\n"
		"                      why); scored by the rule below, kept in results.json\n"
		"                      (\"predictions\")\n"
		"  --predictions FILE  the same, read from FILE's `ID VALUE` lines (02.1 6.5;\n"
		"                      ? or no line: don't know); it may name a figure not\n"
		"                      measured here\n"
		"  --errata FILE       known errata (default: $DMALAB_ERRATA, else "
		"answers/errata.md\n"
		"                      if present, else the copy built in); the labs get it as\n"
		"                      DMALAB_ERRATA and decide with it\n"
		"  -h, --help          this text\n"
		"language: DMALAB_LANG en or zh, else a zh locale (LC_ALL, LC_MESSAGES, LANG)\n"
		"prediction score: %s\n"
		"levels: 1 dmalab preflight (about 2 s on an H200), 2 make check QUICK=1 (26 s),\n"
		"        3 make check (about 60 s)\n"
		"exit: 0 no failure, 1 a claim failed or a lab broke, 2 usage,\n"
		"      128+N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)\n",
		PREDICT_RULE);
}

static const char *const format_names[] = {
	[FMT_HUMAN] = "human", [FMT_TAP] = "tap", [FMT_JSON] = "json", [FMT_JUNIT] = "junit",
};

static enum out_format parse_format(const char *s)
{
	for (enum out_format f = FMT_HUMAN; f <= FMT_JUNIT; f++)
		if (!strcmp(s, format_names[f]))
			return f;
	die_usage(MSG("main.err-format", "bad --format '%s' (want human, tap, json or junit)"), s);
}

/* lab_id_normalise's id of arg, else exit 2.  Static storage. */
static char *normalise_id(const char *arg)
{
	static char ids[64][12];
	static int used;

	if (lab_id_normalise(arg, ids[used < 64 ? used : 63], sizeof(ids[0])) < 0)
		die_usage(MSG("main.err-lab-id", "bad lab id '%s' (want a number like 02)"), arg);
	if (used == 64)
		die_usage(MSG("main.err-many-ids", "too many lab ids, from '%s' on"), arg);
	return ids[used++];
}

/* Normalises the ids in place and drops repeats: `run 01 1` runs lab-01 once. */
static int unique_ids(char **ids, int n)
{
	int i, k, kept = 0;

	for (i = 0; i < n; i++) {
		char *id = normalise_id(ids[i]);

		for (k = 0; k < kept && strcmp(ids[k], id); k++)
			;
		if (k == kept)
			ids[kept++] = id;
	}
	return kept;
}

/* A learner's name as the trainer's page shows it: printable, one line, at most
 * 80 characters (UTF-8's, not bytes: a Chinese character takes three). */
static const char *learner_arg(const char *name)
{
	size_t chars = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		chars += (*p & 0xc0) != 0x80; /* a continuation byte is no character */
	if (!chars || chars > 80)
		die_usage(MSG("main.err-learner",
			"bad --learner '%s' (want a name of 1 to 80 characters)"), name);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			die_usage(MSG("main.err-learner-ctrl",
				"bad --learner '%s': no control characters"), name);
	return name;
}

static void parse_options(struct runner_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "labs-dir", required_argument, NULL, 'L' },
		{ "results", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "timeout-mul", required_argument, NULL, 't' },
		{ "quick", no_argument, NULL, 'q' },
		{ "errata", required_argument, NULL, 'e' },
		{ "learner", required_argument, NULL, 'N' },
		{ "work", required_argument, NULL, 'w' },
		{ "predict", no_argument, NULL, 'P' },
		{ "predictions", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = next_option(argc, argv, ":h", longs)) != -1) {
		switch (c) {
		case 'L':
			snprintf(o->labs_dir, sizeof(o->labs_dir), "%s",
				 usage_dir("--labs-dir", optarg));
			break;
		case 'r': o->results_dir = usage_dir("--results", optarg); break;
		case 'f': o->format = parse_format(optarg); break;
		case 't': o->timeout_mul = parse_timeout_mul(optarg, "--timeout-mul"); break;
		case 'q': o->quick = 1; break;
		case 'e': o->errata_path = usage_file("--errata", optarg); break;
		case 'N': o->learner = learner_arg(optarg); break;
		case 'w': o->work = usage_dir("--work", optarg); break;
		case 'P': o->predict = 1; break;
		case 'p': o->predictions = optarg; o->predict = 1; break;
		case 'h': usage(stdout); exit(0);
		default: die_bad_option(c, argv); break;
		}
	}
}

static void parse_command(struct runner_opts *o, int argc, char **argv)
{
	const struct command *cmd;

	if (optind >= argc) {
		usage(stderr);
		exit(2);
	}
	o->command = argv[optind++];
	cmd = find_command(o->command);
	if (!cmd || cmd->run != cmd_labs) {
		char names[400];

		die_usage(MSG("main.err-command", "unknown command '%s' (want %s)"), o->command,
			  command_names(names, sizeof(names)));
	}
	o->ids = argv + optind;
	o->nids = unique_ids(o->ids, argc - optind);
	if (!strcmp(o->command, "run") && !o->nids)
		die_usage(MSG("main.err-run-no-id",
			"'run' needs at least one lab id, e.g. dmalab run 02"));
	if ((!strcmp(o->command, "sysinfo")) && o->nids)
		die_usage(MSG("main.err-sysinfo-id", "'sysinfo' takes no lab id, got '%s'"),
			  o->ids[0]);
	if (!strcmp(o->command, "claims") && (o->format == FMT_TAP || o->format == FMT_JUNIT))
		die_usage(MSG("main.err-claims-format", "'claims' prints human or json, not '%s'"),
			  format_names[o->format]);
	if (o->format == FMT_UNSET || o->format == FMT_HUMAN)
		return;
	if (!strcmp(o->command, "list"))
		die_usage(MSG("main.err-list-format", "'list' prints its table only, not '%s' "
			"(`dmalab claims --format json` has every claim as JSON)"),
			  format_names[o->format]);
	/* its text only: the same facts as JSON are results.json's "machine" */
	if (!strcmp(o->command, "sysinfo"))
		die_usage(MSG("main.err-sysinfo-format", "'sysinfo' prints its text only, not "
			"'%s' (a run's results.json holds these facts as JSON, under "
			"\"machine\")"), format_names[o->format]);
}

static void parse_args(struct runner_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->results_dir = "results";
	o->timeout_mul = env_timeout_mul();
	o->format = FMT_UNSET;
	default_labs_dir(argv[0], o->labs_dir, sizeof(o->labs_dir));
	parse_options(o, argc, argv);
	parse_command(o, argc, argv);
	{ /* the labs' helper timeouts scale as the labs' own (proc_timeout_mul) */
		char mul[32];

		snprintf(mul, sizeof(mul), "%g", o->timeout_mul);
		setenv("DMALAB_TIMEOUT_MUL", mul, 1);
	}
	/* one lab is a lesson: narrate it even into a pipe or a log */
	if (o->format == FMT_UNSET)
		o->format = isatty(STDOUT_FILENO) || !strcmp(o->command, "run") ||
			    !strcmp(o->command, "claims") ? FMT_HUMAN : FMT_TAP;
	o->color = o->format == FMT_HUMAN && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
}

/* Ctrl-C, kill and a closed terminal stop the running lab's group, and the
 * run writes its results. */
static void install_signals(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };

	cleanup_catch(&runner_stop_signal, stops, 3);
	signal(SIGPIPE, SIG_IGN); /* a closed stdout must not orphan a lab */
	/* orphaned helpers of a lab are re-parented to us, so we can reap them */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/*
 * The errata the runner reads its texts from (truth, why, sources) are the
 * ones every lab decides with: the file is passed on as DMALAB_ERRATA (an
 * absolute path, so a lab finds it from anywhere).  Without a file (no
 * --errata, no DMALAB_ERRATA, no answers/errata.md here) both use the copy
 * built into the library.
 */
static void load_errata(struct run_state *rs)
{
	char err[512], abs[PATH_MAX];
	const char *path;

	if (errata_read(rs->opt->errata_path, "answers/errata.md", &path, &rs->errata,
			err, sizeof(err)))
		die("%s", err);
	if (!path) {
		unsetenv("DMALAB_ERRATA");
		rs->opt->errata_path = "answers/errata.md, built in";
		return;
	}
	rs->opt->errata_path = path;
	if (!realpath(path, abs))
		snprintf(abs, sizeof(abs), "%s", path);
	setenv("DMALAB_ERRATA", abs, 1);
}

static int run_command(struct run_state *rs)
{
	int rc;

	if (!strcmp(rs->opt->command, "sysinfo")) {
		sysinfo_print(&rs->si, stdout);
		return 0;
	}
	rc = discover_labs(rs);
	if (rc)
		return rc == -2 ? 2 : 1;
	if (!rs->nlabs) { /* before results.json is touched */
		error("no labs found in '%s' (no lab-NN program there: build them with make, "
		      "or name their directory with --labs-dir)", rs->opt->labs_dir);
		return 2;
	}
	if (!strcmp(rs->opt->command, "list"))
		return cmd_list(rs);
	if (!strcmp(rs->opt->command, "claims"))
		return cmd_claims(rs);
	if (results_dir_make(rs->opt->results_dir) || results_dir_claim(rs))
		return 2;
	return cmd_run(rs);
}

/*
 * `dmalab fleet ...`: the Slurm front end is a script, harness/fleet/fleet.sh,
 * which the Makefile copies to <directory of dmalab>/fleet/.  It runs with
 * the words after "fleet" and DMALAB_BIN set to this program's path, so the
 * nodes run this build.  Returns (2) only when the script cannot be run.
 */
static int exec_fleet(int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], script[PATH_MAX + 16];

	if (runner_self_path(self)) {
		error_errno("cannot find this program's path in '/proc/self/exe'");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", self);
	snprintf(script, sizeof(script), "%s/fleet/fleet.sh", dirname(dir));
	setenv("DMALAB_BIN", self, 1);
	argv[1] = script;
	execv(script, argv + 1);
	error_errno("cannot run '%s' (make copies it there)", script);
	return 2;
}

/* labs 01 and 02 run short, judged against the node's floors (preflight.c) */
static int preflight(int argc, char **argv)
{
	char labs_dir[PATH_MAX];

	default_labs_dir(argv[0], labs_dir, sizeof(labs_dir));
	install_signals();
	return cmd_preflight(argc - 1, argv + 1, labs_dir);
}

static int cmd_help(int argc, char **argv)
{
	usage(stdout);
	return 0;
}

/* list, claims, run, check, sysinfo: options may come before the command */
static int cmd_labs(int argc, char **argv)
{
	struct runner_opts opt;
	struct run_state rs;
	int rc;

	parse_args(&opt, argc, argv);
	memset(&rs, 0, sizeof(rs));
	rs.opt = &opt;
	learn_iso_now(rs.started, sizeof(rs.started));
	rs.t0 = lab_now();
	install_signals();
	load_errata(&rs);
	sysinfo_collect(&rs.si); /* no CUDA: NVML by dlopen, sysfs */
	rc = run_command(&rs);
	lab_entries_free(&rs);
	errata_free(&rs.errata);
	return rc;
}

int main(int argc, char **argv)
{
	const struct command *cmd = argc > 1 ? find_command(argv[1]) : NULL;
	const char *lang = dmalab_lang_env_unknown();

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (lang && !(argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))))
		die_usage("DMALAB_LANG '%s': the kit speaks en or zh", lang);
	/* exercise_here.c's child: CUDA asked where no lab is started after it */
	if (argc == 3 && !strcmp(argv[1], "--role") && !strcmp(argv[2], "cuda-devices"))
		return ex_here_cuda_role();
	if (!cmd)
		return cmd_labs(argc, argv);
	if (cmd->learn)
		return learn_main(argc, argv, cmd->learn);
	return cmd->sub ? cmd->sub(argc - 1, argv + 1) : cmd->run(argc, argv);
}
