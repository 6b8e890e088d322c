#!/usr/bin/env bash
# fleet.sh - `dmalab fleet` (`make fleet`): `dmalab check` on every node of a
# Slurm allocation, one task per node, then one merged report.
#
#   dmalab fleet [OPTIONS] [SBATCH OPTIONS...] [-- LAB IDS...]
#
# What happens (README.md, "Fleets on Slurm"; harness/PROTOCOL.md, section 9):
#   1. the nodes asked for are split into jobs of at most --nodes-per-job
#      nodes (job.sh: one `srun` step, one task per node, each task is
#      task.sh running `dmalab check` into a node-local directory and
#      copying results.json to RESULTS/fleet/<fleet>/<node>.json);
#   2. one merge job (merge.sh) waits on all of them with afterany, so it
#      runs whatever became of them (done, failed, timed out, cancelled),
#      lists the nodes that did not report, and runs `dmalab compare` into
#      fleet.json and the page fleet.html;
#   3. this script polls the merge job and prints its summary.  Ctrl-C stops
#      only the waiting: the jobs go on and the merge still runs.
# Why a dependent merge job rather than `sbatch --wait` here: a fleet can sit
# in the queue for hours, and the merge must not depend on a login shell
# lasting that long; afterany also runs it when a job failed or was
# cancelled, which is exactly when the missing nodes matter.
#   https://slurm.schedmd.com/sbatch.html (--dependency=afterany, --parsable,
#   --exclusive, -w/--nodelist, -N/--nodes)
#
# The clone (and --results) must be on a filesystem every node sees: the
# nodes run its build/dmalab (or build it, --build-on-node) and write their
# files into its results directory.  Exit: 0 every node reported (and the
# merge ran), 1 a node missing or the merge failed, 2 usage, 130 Ctrl-C
# while waiting (the fleet goes on).
set -u
set -o pipefail

lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
	echo "dmalab fleet: $*" >&2
	exit 2
}
say() { echo "dmalab fleet: $*"; }

usage() {
	cat <<'EOF'
usage: dmalab fleet [OPTIONS] [SBATCH OPTIONS...] [-- LAB IDS...]
       make fleet FLEET_OPTS="SBATCH OPTIONS" [LABS="01 04"] [QUICK=1] [BASELINE=FILE]
Runs `dmalab check` on every node of a Slurm allocation (one task per node),
then merges the nodes' results into one report.  Run it inside the clone,
which must be on a filesystem every node sees, built once (make) unless
--build-on-node.

sbatch options pass through to every job, e.g.
  -p/--partition P  -N/--nodes N  -w/--nodelist LIST  -x/--exclude LIST
  -C/--constraint F  -t/--time T  -A/--account A  -q/--qos Q  --gres=gpu:8
(-N and -w are split into jobs of at most --nodes-per-job nodes; the fleet
sets --ntasks-per-node=1, --exclusive, the job name and its output files,
so -a/--array, --wrap, -W/--wait, --parsable, -o, -e, -n and
--ntasks-per-node are refused.)

options of the fleet:
  --quick              small sizes (dmalab check --quick)
  --timeout-mul N      dmalab check --timeout-mul N on every node
  --baseline FILE      a baseline (dmalab baseline, e.g. baselines/h200-pcie-gen5-x16.json)
                       or one results.json, that the merge compares every node against
  --build-on-node      each node builds the kit first, into a node-local
                       directory (no shared build needed)
  --nodes-per-job N    the most nodes in one job (default 64, env
                       FLEET_NODES_PER_JOB): a job starts only once all its
                       nodes are free, so a smaller one starts sooner; one
                       srun step of 64 tasks launches quickly; a node failure
                       ends its whole job (unless -k/--no-kill), so it loses
                       at most that many nodes' results
  --results DIR        where fleet/<fleet id>/ goes (default: results in the
                       clone; must be shared too)
  --shared             do not ask for whole nodes (no --exclusive): other
                       jobs then disturb the measurements
  --dry-run            print the sbatch commands, submit nothing (and make no
                       folder)
  --merge DIR          only merge the fleet directory DIR again, here (a fleet
                       this command submitted: DIR/jobs/ lists its jobs)
  -h, --help           this text
lab ids (after --) as for dmalab check: 01 04, or none for every lab; an id
the build (or, with --build-on-node, the clone's labs/) lacks is refused,
exit 2, before anything is submitted.

Results: RESULTS/fleet/<id of the first job>/<node>.json (each node's
results.json), <node>.log (the log's end, when its check broke),
fleet.json and the page fleet.html (dmalab compare),
summary.txt, jobs/fleet-nodes.json (nodes expected, reported, missing).

Without Slurm: collect each node's results.json into one folder as
<node>.json, then make fleet-report FLEET=DIR (dmalab compare DIR/*.json
--json-out DIR/fleet.json --html-out DIR/fleet.html): the same page, with
no missing nodes, as no allocation says which were expected.
exit: 0 every node reported, 1 a node missing or the merge failed, 2 usage,
      130 Ctrl-C while waiting (the jobs and the merge go on)
EOF
}

# sbatch options that take a value (sbatch --help, Slurm 22.05), as long
# names and short letters: their value is the next word unless attached.
SBATCH_VALUED=" account acctg-freq array bb bbf begin chdir cluster-constraint clusters
 comment constraint container core-spec cores-per-socket cpu-freq cpus-per-gpu
 cpus-per-task deadline delay-boot dependency distribution error export-file
 extra-node-info gid gpu-bind gpu-freq gpus gpus-per-node gpus-per-socket
 gpus-per-task gres gres-flags hint input job-name licenses mail-type mail-user
 mcs-label mem mem-bind mem-per-cpu mem-per-gpu mincpus nodefile nodelist nodes
 ntasks ntasks-per-core ntasks-per-gpu ntasks-per-node ntasks-per-socket output
 partition power priority profile qos reservation signal sockets-per-node
 switches thread-spec threads-per-core time time-min tmp uid wckey exclude "
SBATCH_VALUED_SHORT="aAbBcCdDeFGiJLMmnNopqStwx"
# options the merge job also gets: where and as whom jobs may run
MERGE_KEEPS=" partition account qos reservation clusters wckey p A q M "

# Globals filled by parse_args.
node_opts=() merge_opts=() lab_ids=() quick=0 timeout_mul=-
nodes_req="" nodelist_req="" results="" baseline="" build_on_node=0 made_dirs=()
per_job=${FLEET_NODES_PER_JOB:-64} exclusive=1 dry_run=0 merge_dir=""

is_count() { [[ $1 =~ ^[1-9][0-9]{0,5}$ ]]; }

check_timeout_mul() {
	awk -v v="$1" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/ && v >= 0.1 && v <= 1000) }' ||
		die "bad --timeout-mul '$1' (want a number from 0.1 to 1000)"
}

# The option's long name ("partition") or letter ("p"), and whether it was
# given with its value attached (--partition=x, -px).
opt_name() {
	case $1 in
	--*=*) o=${1%%=*}; echo "${o#--}" ;;
	--*) echo "${1#--}" ;;
	-?*) echo "${1:1:1}" ;;
	esac
}
has_attached_value() { [[ $1 == --*=* || ( $1 != --* && ${#1} -gt 2 ) ]]; }
# (the list's lines end in a newline, not a blank: both part its words)
takes_value() {
	if [[ $1 == --* ]]; then [[ ${SBATCH_VALUED//$'\n'/ } == *" $(opt_name "$1") "* ]]
	else [[ $SBATCH_VALUED_SHORT == *"$(opt_name "$1")"* ]]; fi
}
attached_value() { if [[ $1 == --* ]]; then echo "${1#*=}"; else echo "${1:2}"; fi; }

# One sbatch option (and its value, when it takes one) in "$@"; sets
# `consumed` to the number of words it used.
take_sbatch_option() {
	local opt=$1 name value
	name=$(opt_name "$opt")
	consumed=1
	if takes_value "$opt"; then
		if has_attached_value "$opt"; then
			value=$(attached_value "$opt")
		else
			[ $# -ge 2 ] || die "option '$opt' needs a value"
			value=$2
			consumed=2
		fi
	fi
	case $name in
	array|a|wrap|wait|W|parsable|output|o|error|e|ntasks|n|ntasks-per-node)
		die "option '$opt' is set by the fleet itself (see dmalab fleet --help)" ;;
	nodes|N)
		# at most 999999, as --nodes-per-job: a longer count would split into
		# jobs for hours (or wrap around in bash's arithmetic)
		[[ $value =~ ^[1-9][0-9]{0,5}(-[1-9][0-9]{0,5})?$ ]] ||
			die "bad $opt '$value' (want N or MIN-MAX nodes, each from 1 to 999999)"
		nodes_req=$value; return ;;
	nodelist|w)
		[ -n "$value" ] || die "option '$opt' needs a node list, got ''"
		nodelist_req=$value; return ;;
	esac
	if [ "$consumed" = 2 ]; then node_opts+=("$opt" "$value"); else node_opts+=("$opt"); fi
	if [[ $MERGE_KEEPS == *" $name "* ]]; then
		if [ "$consumed" = 2 ]; then
			merge_opts+=("$opt" "$value")
		else
			merge_opts+=("$opt")
		fi
	fi
}

# The value of one of the fleet's own options: --name=value or --name value.
own_value() { # OPTION-WORD NEXT-WORD-COUNT NEXT-WORD
	if [[ $1 == *=* ]]; then value=${1#*=}; consumed=1
	else [ "$2" -ge 2 ] || die "option '$1' needs a value"; value=$3; consumed=2; fi
}

parse_args() {
	while [ $# -gt 0 ]; do
		consumed=1
		case $1 in
		--) shift; lab_ids=("$@"); break ;;
		-h|--help) usage; exit 0 ;;
		--quick) quick=1 ;;
		--build-on-node) build_on_node=1 ;;
		--shared) exclusive=0 ;;
		--dry-run) dry_run=1 ;;
		--timeout-mul|--timeout-mul=*)
			own_value "$1" $# "${2-}"; check_timeout_mul "$value"
			timeout_mul=$value ;;
		--baseline|--baseline=*)
			own_value "$1" $# "${2-}"
			[ -f "$value" ] && [ -r "$value" ] ||
				die "--baseline '$value': no such readable file"
			baseline=$(cd "$(dirname "$value")" && pwd)/$(basename "$value") ;;
		--nodes-per-job|--nodes-per-job=*)
			own_value "$1" $# "${2-}"
			is_count "$value" ||
				die "bad --nodes-per-job '$value' (want a number of nodes" \
					"from 1 to 999999)"
			per_job=$value ;;
		--results|--results=*)
			own_value "$1" $# "${2-}"
			[ -n "$value" ] || die "option '--results' needs a directory, got ''"
			results=$value ;;
		--merge|--merge=*)
			own_value "$1" $# "${2-}"
			[ -d "$value" ] || die "--merge '$value': no such fleet directory"
			[ -s "$value/jobs/jobs.txt" ] ||
				die "--merge '$value': no jobs listed in '$value/jobs/jobs.txt'," \
					"so not a fleet dmalab fleet submitted; node files" \
					"collected by hand: make fleet-report FLEET=$value (or" \
					"dmalab compare $value/*.json --html-out FILE)"
			merge_dir=$value ;;
		-?*) take_sbatch_option "$@" ;;
		*) die "unexpected '$1' (sbatch options come first, lab ids after --)" ;;
		esac
		shift "$consumed"
	done
	is_count "$per_job" ||
		die "bad FLEET_NODES_PER_JOB '$per_job' (want a number of nodes from 1 to 999999)"
	local id
	for id in ${lab_ids[@]+"${lab_ids[@]}"}; do
		[[ $id =~ ^(lab-)?[0-9]{1,8}$ ]] || die "bad lab id '$id' (want a number like 02)"
	done
}

# The clone: the nearest directory at or above here with the kit's Makefile
# and harness/fleet/.
find_clone() {
	local d=$PWD
	while :; do
		[ -f "$d/Makefile" ] && [ -d "$d/harness/fleet" ] && { echo "$d"; return 0; }
		[ "$d" = / ] && return 1
		d=$(dirname "$d")
	done
}

# The build the nodes run: the one this dmalab is in (DMALAB_BIN, set by
# `dmalab fleet`), else the clone's build/.
find_build() {
	local clone=$1 bin=${DMALAB_BIN:-}
	if [ -n "$bin" ]; then dirname "$bin"; else echo "$clone/build"; fi
}

# Words of "$1" in chunks of $2, joined by commas, one chunk per line.
chunks() {
	echo "$1" | tr ' ' '\n' | grep -v '^$' | awk -v n="$2" '
		{ line = line == "" ? $0 : line "," $0 }
		NR % n == 0 { print line; line = "" }
		END { if (line != "") print line }'
}

# Sets `hosts` to the hosts of a -w value, one word each: a Slurm host list,
# or a file of host names (a value with a '/' in it, as sbatch reads it).
expand_nodelist() {
	local list=$1
	if [[ $list == */* ]]; then
		[ -r "$list" ] || die "-w '$list': no such readable file"
		list=$(tr -s ' \t\n' ',' <"$list" | sed 's/^,//; s/,$//')
	fi
	if [[ $list != *[* ]]; then
		# a plain list of names needs no scontrol (nor a Slurm that answers it)
		hosts=${list//,/ }
		return
	fi
	[ "$dry_run" = 0 ] || command -v scontrol >/dev/null 2>&1 ||
		die "-w '$1': a host range needs Slurm's scontrol to expand," \
			"and it is not on PATH"
	hosts=$(scontrol show hostnames "$list" 2>/dev/null) ||
		die "-w '$1': scontrol cannot expand this host list"
	hosts=$(echo "$hosts" | tr '\n' ' ' | sed 's/ *$//')
}

# A host list, compressed as Slurm writes it (a[1-3]) where scontrol can.
compress_hosts() { scontrol show hostlist "$1" 2>/dev/null || echo "$1"; }

# Sets `plan` to the jobs, one element each: the -N/-w words of that job
# ("-N 64", "-w a[1-64] -N 64"), or "default" (no -N, no -w: sbatch's own).
plan_jobs() {
	local count k c
	plan=()
	if [ -n "$nodelist_req" ]; then
		expand_nodelist "$nodelist_req"
		count=$(echo "$hosts" | wc -w)
		[ "$count" -gt 0 ] || die "-w '$nodelist_req' names no host"
		if [ "$count" -le "$per_job" ]; then
			plan=("-w $(compress_hosts "${hosts// /,}")${nodes_req:+ -N $nodes_req}")
			return
		fi
		[ -z "$nodes_req" ] || [ "$nodes_req" = "$count" ] ||
			die "-N $nodes_req with -w of $count nodes cannot be split into jobs of" \
				"$per_job nodes; give -w alone"
		while read -r c; do
			plan+=("-w $(compress_hosts "$c") -N $(echo "$c" | tr ',' '\n' | wc -l)")
		done < <(chunks "$hosts" "$per_job")
	elif [ -n "$nodes_req" ]; then
		if [[ $nodes_req == *-* ]]; then
			[ "${nodes_req#*-}" -le "$per_job" ] ||
				die "-N $nodes_req: a range over $per_job nodes cannot be split" \
					"into jobs; give a number"
			plan=("-N $nodes_req")
			return
		fi
		for ((k = nodes_req; k > 0; k -= per_job)); do
			plan+=("-N $((k < per_job ? k : per_job))")
		done
	else
		plan=(default)
	fi
}

# Lab ids the nodes would not find: refused before anything is queued, as
# dmalab check refuses them (exit 2, the labs there named), since every
# node's check would fail.  The labs are the build's lab-NN programs, or with
# --build-on-node the clone's labs/NN-name folders (each node builds them).
check_lab_ids() {
	local dir have="" id n f
	if [ "$build_on_node" = 1 ]; then
		dir=$clone/labs
		for f in "$dir"/[0-9]*-*; do
			[ -d "$f" ] && f=${f##*/} && have="$have ${f%%-*}"
		done
	else
		dir=$1/labs
		for f in "$dir"/lab-[0-9]*; do
			[ -f "$f" ] && [ -x "$f" ] && have="$have ${f##*/lab-}"
		done
	fi
	for id in ${lab_ids[@]+"${lab_ids[@]}"}; do
		n=${id#lab-}
		n=$(printf '%02d' "$((10#$n))")
		[[ "$have " == *" $n "* ]] && continue
		if [ "$build_on_node" = 1 ]; then
			die "no lab '$n' in '$dir' (the labs the nodes would build:${have:- none})"
		fi
		die "no lab '$n' in '$dir' (build it with make; built:${have:- none})"
	done
}

# Sets `made_dirs` to the folders `mkdir -p "$1"` makes, innermost first, so
# that a submission that fails can take them away again (undo_submit).
folders_to_make() {
	local d=$1
	made_dirs=()
	while [ ! -e "$d" ] && [ ! -L "$d" ]; do
		made_dirs+=("$d")
		d=$(dirname "$d")
	done
}

main() {
	parse_args "$@"
	local clone build
	clone=$(find_clone) ||
		die "not inside a dmalab clone ('$PWD' and above have no Makefile with" \
			"harness/fleet/): cd into the clone on the shared filesystem"
	if [ -n "$merge_dir" ]; then
		exec sh "$lib/merge.sh" "$merge_dir" "$clone" "$(find_build "$clone")" \
			${baseline:+--baseline "$baseline"} \
			$([ "$build_on_node" = 1 ] && echo --build-on-node)
	fi
	# --dry-run submits nothing, so it runs where Slurm is not installed
	[ "$dry_run" = 1 ] || command -v sbatch >/dev/null 2>&1 ||
		die "no sbatch on PATH: run this on a Slurm login node" \
			"(Debian: apt-get install slurm-client)"
	build=$(find_build "$clone")
	if [ "$build_on_node" = 0 ] &&
	   ! { [ -x "$build/dmalab" ] && [ -d "$build/labs" ]; }; then
		die "the kit is not built in '$build' (run make there first, or use" \
			"--build-on-node)"
	fi
	[ -z "$baseline" ] || [ -s "$baseline" ] ||
		die "--baseline '$baseline': no such file, or empty"
	check_lab_ids "$build"
	results=${results:-$clone/results}
	if [ "$dry_run" = 1 ]; then # it makes nothing: the folders as they would be
		results=$(realpath -m -- "$results")
	else
		folders_to_make "$results/fleet"
		mkdir -p "$results/fleet" || die "cannot create '$results/fleet'"
		results=$(cd "$results" && pwd)
	fi
	submit_fleet "$clone" "$build"
}

. "$lib/submit.sh"
main "$@"
