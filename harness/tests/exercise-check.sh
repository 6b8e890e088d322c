#!/bin/sh
# exercise-check.sh - every exercise can be failed and passed where it runs:
# the learner's copy as handed out (every region a stub) has no exercise done,
# and the lab file itself (the reference) has each one done, or not graded here
# (a GPU or a second NUMA node missing: said, not counted as proven).  Run by
# make selftest (part 5); BUILD as there.  An undecided (inconclusive) reference
# run is tried once more before it counts as a failure.
set -u
BUILD=${BUILD:-build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-excheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0 proven=0 ungraded=0

# try ID: make try-ID on the copy in $tmp; its output in $tmp/out, its status in $rc
try() {
	make --no-print-directory try-"$1" WORK="$tmp" QUICK=1 >"$tmp/out" 2>&1
	rc=$?
}
# states: "ID STATE" per exercise of the last try's output
states() {
	sed -n 's/^  \([0-9][0-9]\.[^ ]*\)  *\([a-z].*\)$/\1 \2/p' "$tmp/out"
}

for lab in $("$BUILD/dmalab" exercises --ids); do
	make --no-print-directory exercise-"$lab" WORK="$tmp" RESET=1 >/dev/null || {
		echo "exercise-check: make exercise-$lab failed"
		failed=$((failed + 1))
		continue
	}
	try "$lab"
	if [ "$rc" -eq 0 ] || states | grep -q ' done$'; then
		echo "exercise-check: lab-$lab's stubs are graded done:"; cat "$tmp/out"
		failed=$((failed + 1))
	fi
	cp labs/"$lab"-*/lab.c* "$tmp"/"$lab"-*/
	try "$lab"
	states | grep -q ' undecided' && try "$lab"
	states >"$tmp/ref"
	while read -r ex state; do
		case $state in
		done) proven=$((proven + 1))
			echo "exercise-check: $ex stub not yet, reference done" ;;
		"not graded here") ungraded=$((ungraded + 1))
			echo "exercise-check: $ex not graded here: $(grep -m1 ' skip: ' "$tmp/out")"
			;;
		*) failed=$((failed + 1)); echo "exercise-check: $ex reference: $state"
			cat "$tmp/out" ;;
		esac
	done <"$tmp/ref"
done
echo "exercise-check: $proven proven, $ungraded not graded here, $failed failed"
[ "$failed" -eq 0 ]
