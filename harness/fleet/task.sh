#!/bin/sh
# task.sh - one fleet task, on one node (job.sh starts one per node):
# `dmalab check` into a node-local directory, then its results.json into the
# shared fleet directory as <node>.json, and the end of its log as
# <node>.log when the check broke.
#
#   task.sh FLEET CLONE BUILD BUILD_ON_NODE QUICK TIMEOUT_MUL [IDS...]
#
# FLEET: the shared fleet directory; CLONE: the kit's clone (shared); BUILD:
# its build directory (dmalab and labs/); BUILD_ON_NODE 1: build the kit
# first into the node-local directory instead; QUICK 1: --quick;
# TIMEOUT_MUL: --timeout-mul, "-" for none; IDS: the labs (none: all).
#
# The node's name is Slurm's (SLURMD_NODENAME), the name the allocation's
# node list uses, so the merge can match files to nodes.  Exit 0 when the
# node's results.json came back, 1 when it did not.
set -u
fleet=$1 clone=$2 build=$3 build_on_node=$4 quick=$5 timeout_mul=$6
shift 6
node=${SLURMD_NODENAME:-$(hostname -s)}
job=${SLURM_JOB_ID:-none}
echo "fleet-task: node $node: task ${SLURM_PROCID:-?} of ${SLURM_NTASKS:-?}," \
	"job $job step ${SLURM_STEP_ID:-?}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-fleet.XXXXXX") || {
	echo "fleet-task: node $node: cannot make a temporary directory in ${TMPDIR:-/tmp}" >&2
	exit 1
}
trap 'rm -rf "$tmp"' EXIT
# the step's end (time limit, scancel) sends SIGTERM to every process of
# the task: dmalab then writes an aborted results.json, which is still
# copied below
trap 'stopped=SIGTERM' TERM
stopped=""
log=$tmp/check.log

# Writes <node>.log: a first line saying what broke, then the log's end.
broke() { # WHAT LOGFILE
	{
		echo "# $node (job $job): $1"
		tail -n 60 "$2" 2>/dev/null
	} >"$fleet/$node.log.tmp" && mv "$fleet/$node.log.tmp" "$fleet/$node.log"
	echo "fleet-task: node $node: $1 (see $fleet/$node.log)" >&2
}

# The lab targets of a node-local build: the labs named, else every one.
build_targets() {
	[ $# -eq 0 ] && { echo all; return; }
	echo "deps $tmp/build/dmalab"
	for id in "$@"; do
		id=$(expr "${id#lab-}" + 0)
		printf ' %s/build/labs/lab-%02d' "$tmp" "$id"
	done
}

cd "$clone" || { broke "cannot enter the clone '$clone'" /dev/null; exit 1; }
if [ "$build_on_node" = 1 ]; then
	# shellcheck disable=SC2046 # the targets are words
	if ! make -C "$clone" BUILD="$tmp/build" -j"$(nproc)" $(build_targets "$@") \
		>"$tmp/build.log" 2>&1; then
		broke "the build on the node failed" "$tmp/build.log"
		exit 1
	fi
	build=$tmp/build
	echo "fleet-task: node $node: built the kit in $build"
fi
set -- check --labs-dir "$build/labs" --results "$tmp/results" "$@"
[ "$quick" = 1 ] && set -- "$@" --quick
[ "$timeout_mul" != - ] && set -- "$@" --timeout-mul "$timeout_mul"
"$build/dmalab" "$@" >"$log" 2>&1
rc=$?
echo "fleet-task: node $node: dmalab check exit $rc${stopped:+ (stopped by $stopped)}"

reported=0
if [ -s "$tmp/results/results.json" ]; then
	dest=$fleet/$node.json
	if [ -e "$dest" ]; then # this node reported already (in another job)
		mkdir -p "$fleet/jobs/duplicates"
		dest=$fleet/jobs/duplicates/$node.$job.json
	fi
	cp "$tmp/results/results.json" "$dest.tmp" && mv "$dest.tmp" "$dest" && reported=1
fi
# exit 0 and 1 are a check that ran to its end (1: a claim failed, a finding)
case $rc:$reported in
0:1|1:1) ;;
*:1) broke "dmalab check exit $rc${stopped:+ (stopped by $stopped)}" "$log" ;;
*) broke "dmalab check exit $rc, no results.json${stopped:+ (stopped by $stopped)}" "$log" ;;
esac
[ "$reported" = 1 ]
