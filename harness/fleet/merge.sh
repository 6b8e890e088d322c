#!/bin/sh
# merge.sh - the fleet's merge step: the merge job fleet.sh submits after
# every node job (afterany), or `dmalab fleet --merge DIR` run again by hand.
#
#   merge.sh FLEET CLONE BUILD [--baseline FILE] [--build-on-node]
#
# FLEET: the fleet directory (RESULTS/fleet/<id>); CLONE: the kit's clone;
# BUILD: its build directory; --baseline: a results.json for dmalab compare;
# --build-on-node: the shared BUILD may be missing, so dmalab is built here.
#
# 1. the nodes expected: each job's allocation (jobs/nodes-<job>.txt, which
#    job.sh wrote from SLURM_JOB_NODELIST); for a job that wrote none, what
#    scontrol still knows of it; a job that never ran is listed with its
#    request;
# 2. the nodes reported: <node>.json; expected but not reported is missing,
#    with why (the node's <node>.log when its check broke);
# 3. jobs/fleet-nodes.json, then `dmalab compare` of the node files into
#    fleet.json and the page fleet.html (which lists the missing nodes too);
# 4. summary.txt (also printed) and merge.rc: 0 every expected node reported
#    and the steps that exist ran, 1 otherwise.
set -u
fleet=$1 clone=$2 build=$3
shift 3
baseline="" build_on_node=0
while [ $# -gt 0 ]; do
	case $1 in
	--baseline) baseline=$2; shift ;;
	--build-on-node) build_on_node=1 ;;
	esac
	shift
done
jobs=$fleet/jobs
fleet_id=$(basename "$fleet")
work=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-merge.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$clone" || exit 1
failed=0
: >"$work/summary"
note() { echo "$*" >>"$work/summary"; }

# A JSON string of $1: backslash, quote and control characters escaped.
json_str() {
	printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g; s/	/\\t/g' | tr -d '\000-\037' |
		sed 's/^/"/; s/$/"/'
	[ -n "$1" ] || printf '""'
}

# The value of KEY= in `scontrol show job -o` output $2.
job_field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }

# Moves the job outputs (slurm-<job>.out, one directory up) into jobs/.
collect_outputs() {
	for id in $(awk '{ print $1 }' "$jobs/jobs.txt" 2>/dev/null); do
		out=$(dirname "$fleet")/slurm-$id.out
		[ -f "$out" ] && mv "$out" "$jobs/job-$id.out"
	done
}

# Appends "NODE JOB" to expected for each node of each job; jobs with no
# node named go to $work/unnamed as "JOB COUNT STATE".
expected_nodes() {
	: >"$work/expected"
	: >"$work/unnamed"
	: >"$work/no-list"
	while read -r id request; do
		[ -n "$id" ] || continue
		if [ -s "$jobs/nodes-$id.txt" ]; then
			sed "s/\$/ $id/" "$jobs/nodes-$id.txt" >>"$work/expected"
			continue
		fi
		info=$(scontrol show job -o "$id" 2>/dev/null)
		state=$(job_field JobState "$info")
		list=$(job_field NodeList "$info")
		case $list in ""|"(null)") list="" ;; esac
		[ -n "$list" ] || list=$(echo "$request" | sed -n 's/.*-w \([^ ]*\).*/\1/p')
		if [ -n "$list" ] && names=$(scontrol show hostnames "$list" 2>/dev/null); then
			echo "$names" | sed "s/\$/ $id/" >>"$work/expected"
			echo "$id ${state:-unknown}" >>"$work/no-list"
		else
			count=$(echo "$request" | sed -n 's/.*-N \([0-9]*\).*/\1/p')
			echo "$id ${count:-1} ${state:-unknown}" >>"$work/unnamed"
		fi
	done <"$jobs/jobs.txt"
	sort -u -o "$work/expected" "$work/expected"
}

# The status of node file $1 when it holds an unfinished run ("running": its
# check was killed before it ended; "incomplete"), which dmalab compare
# refuses; nothing for a finished one.  dmalab's writer indents two spaces a
# level, so a line two spaces in is the document's own status, not a lab's.
unfinished_status() {
	sed -n 's/^  "status": "\(running\|incomplete\)".*/\1/p' "$1" | head -n 1
}

# Why node $1 of job $2 has no results file (or only an unfinished one).
why_missing() {
	status=$(sed -n "s/^$1 //p" "$work/unfinished")
	if [ -n "$status" ]; then
		printf "an unfinished run (status '%s'), left out of the comparison" "$status"
		# the log's first line after ": ", with or without task.sh's "# NODE (job J): "
		[ -f "$fleet/$1.log" ] && head -n 1 "$fleet/$1.log" | sed 's/^# [^:]*: //; s/^/: /'
	elif [ -f "$fleet/$1.log" ]; then
		head -n 1 "$fleet/$1.log" | sed 's/^# [^:]*: //'
	elif grep -q "^$2 " "$work/no-list"; then
		echo "job $2 did not start its script ($(grep "^$2 " "$work/no-list" |
			cut -d' ' -f2))"
	else
		echo "no result came back (node failure, time limit or cancel: see jobs/job-$2.out)"
	fi
}

# Writes jobs/fleet-nodes.json (not beside the node files: `dmalab compare
# DIR/*.json` reads every .json there) from expected, reported and unnamed.
write_nodes_json() {
	{
		printf '{"schema": "dmalab-fleet-nodes/1", "fleet": %s,\n "jobs": [' \
			"$(json_str "$fleet_id")"
		sep=""
		while read -r id request; do
			[ -n "$id" ] || continue
			printf '%s{"id": %s, "request": %s, "nodes": %s}' "$sep" \
				"$(json_str "$id")" "$(json_str "$request")" \
				"$(grep -c " $id\$" "$work/expected")"
			sep=", "
		done <"$jobs/jobs.txt"
		printf '],\n "expected": [%s],\n' "$(list_json "$work/expected")"
		printf ' "reported": [%s],\n "missing": [' "$(list_json "$work/reported")"
		sep=""
		while read -r n id; do
			printf '%s{"node": %s, "job": %s, "why": %s}' "$sep" "$(json_str "$n")" \
				"$(json_str "$id")" "$(json_str "$(why_missing "$n" "$id")")"
			sep=", "
		done <"$work/missing"
		while read -r id count state; do
			printf '%s{"node": null, "job": %s, "count": %s, "why": %s}' "$sep" \
				"$(json_str "$id")" "$count" "$(json_str "job never ran ($state)")"
			sep=", "
		done <"$work/unnamed"
		printf ']}\n'
	} >"$jobs/fleet-nodes.json.tmp" && mv "$jobs/fleet-nodes.json.tmp" "$jobs/fleet-nodes.json"
}

# The first words of each line of $1, as JSON strings joined by commas.
list_json() {
	sep=""
	for n in $(cut -d' ' -f1 "$1"); do
		printf '%s%s' "$sep" "$(json_str "$n")"
		sep=", "
	done
}

# Compares expected with reported (a node whose file holds an unfinished
# run has not reported); notes the counts and each missing node.
account_nodes() {
	: >"$work/unfinished"
	for f in "$fleet"/*.json; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .json)
		case $n in fleet) continue ;; esac # compare's own output
		status=$(unfinished_status "$f")
		if [ -n "$status" ]; then
			echo "$n $status" >>"$work/unfinished"
		else
			echo "$n"
		fi
	done | sort >"$work/reported"
	cut -d' ' -f1 "$work/expected" | sort -u |
		comm -23 - "$work/reported" >"$work/missing-names"
	awk 'NR == FNR { m[$1] = 1; next } ($1 in m)' "$work/missing-names" "$work/expected" \
		>"$work/missing"
	unnamed=$(awk '{ s += $2 } END { print s + 0 }' "$work/unnamed")
	njobs=$(grep -c . "$jobs/jobs.txt")
	note "fleet $fleet_id: $njobs job(s)," \
		"$(($(grep -c . "$work/expected") + unnamed)) node(s) expected," \
		"$(grep -c . "$work/reported") reported," \
		"$(($(grep -c . "$work/missing") + unnamed)) missing"
	while read -r n id; do
		note "  missing: $n (job $id): $(why_missing "$n" "$id")"
	done <"$work/missing"
	while read -r id count state; do
		note "  missing: $count node(s) of job $id: job never ran ($state)"
	done <"$work/unnamed"
	extra=$(cut -d' ' -f1 "$work/expected" | sort -u | comm -13 - "$work/reported" |
		tr '\n' ' ')
	[ -z "$extra" ] || note "  reported but not in any allocation of this fleet: $extra"
	# an unfinished run's file is not reported (above); outside every allocation it is
	# not missing either, so it is named here
	stray=$(while read -r n status; do
		grep -q "^$n " "$work/expected" || printf "%s (status '%s') " "$n" "$status"
	done <"$work/unfinished")
	[ -z "$stray" ] || note "  an unfinished run, not in any allocation of this fleet" \
		"(left out of the comparison): ${stray% }"
	[ ! -s "$work/missing" ] && [ "$unnamed" = 0 ] || failed=1
}

# The dmalab that runs the merge's compare: the shared build's, or (with
# --build-on-node and none there) one built here.
merge_dmalab() {
	if [ -x "$build/dmalab" ]; then
		echo "$build/dmalab"
	elif [ "$build_on_node" = 1 ] &&
		make -C "$clone" BUILD="$work/build" "$work/build/dmalab" \
			>"$work/build.log" 2>&1; then
		echo "$work/build/dmalab"
	else
		return 1
	fi
}

# dmalab compare of the node files into fleet.json and fleet.html (the page
# reads jobs/fleet-nodes.json, written before, for the missing nodes).
compare_nodes() {
	rm -f "$fleet/fleet.json" "$fleet/fleet.html"
	if ! [ -s "$work/reported" ]; then
		note "compare: no node reported, nothing to compare"
		failed=1
		return
	fi
	if ! dmalab=$(merge_dmalab); then
		note "compare: no dmalab in '$build' to compare with$([ "$build_on_node" = 1 ] &&
			echo ", and building one here failed")"
		failed=1
		return
	fi
	# one word per node file, whatever the fleet's path holds (a blank, a '|')
	set --
	while read -r n; do
		set -- "$@" "$fleet/$n.json"
	done <"$work/reported"
	"$dmalab" compare "$@" \
		--json-out "$fleet/fleet.json" --html-out "$fleet/fleet.html" --allow-unjudged \
		${baseline:+--baseline "$baseline"} \
		>"$fleet/compare.txt" 2>&1
	rc=$?
	# exit 1 is taken as differences found (a finding, as dmalab check's 1)
	if [ "$rc" -le 1 ] && [ -s "$fleet/fleet.json" ] && [ -s "$fleet/fleet.html" ]; then
		note "compare: $fleet/fleet.json (dmalab compare exit $rc; its report:" \
			"$fleet/compare.txt)"
		note "report: $fleet/fleet.html"
	else
		note "compare: dmalab compare failed (exit $rc): $(tail -n 1 "$fleet/compare.txt")"
		failed=1
	fi
}

[ -s "$jobs/jobs.txt" ] || { echo "merge: no jobs listed in '$jobs/jobs.txt'" >&2; exit 1; }
collect_outputs
expected_nodes
account_nodes
write_nodes_json
note "nodes: $jobs/fleet-nodes.json"
compare_nodes
cp "$work/summary" "$fleet/summary.txt"
cat "$fleet/summary.txt"
echo "$failed" >"$fleet/merge.rc"
exit "$failed"
