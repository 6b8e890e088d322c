#!/bin/sh
# test-restore.sh - a lab that changed a machine-wide setting gets it put
# back on every path it can end by (harness/base/sysctl_change.h,
# harness/runner/restore.c).  As root, through the runner, a fake lab
# (harness/tests/fakelabs/restore-lab.c) raises /proc/sys/vm/nr_hugepages by
# one page and then
#   1. is SIGKILLed while it is raised: the runner puts it back from the
#      lab's journal, says so, and names the signal;
#   2. dies of SIGSEGV: the same;
#   3. ignores SIGTERM past its timeout: the runner SIGKILLs it, puts it back;
#   4. gets SIGTERM: the lab puts it back itself, the runner finds nothing;
# and a journal left by a runner that died is replayed before the next run;
# lab-08 run alone replays one left in $TMPDIR before it reads the pool size
# it will put back.
# Each case is bounded (timeout 60 s).  Not root, or no writable
# nr_hugepages: skipped with the reason (exit 0).
#
#   BUILD=build sh harness/tests/test-restore.sh
set -u
BUILD=${BUILD:-build}
NR=/proc/sys/vm/nr_hugepages
npass=0
nfail=0

ok() { npass=$((npass + 1)); echo "ok: $1"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $1"; }

if [ "$(id -u)" != 0 ]; then
	echo "test-restore: skipped: not root (changing $NR needs uid 0)"
	exit 0
fi
if ! [ -w "$NR" ] || ! sh -c "cat $NR > $NR" 2>/dev/null; then
	echo "test-restore: skipped: $NR cannot be written here"
	exit 0
fi
for f in "$BUILD/dmalab" "$BUILD/fakelabs/restore-lab" "$BUILD/labs/lab-08"; do
	[ -x "$f" ] || { echo "FAIL: $f missing (make $f)"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-restore.XXXXXX") || exit 1
before=$(cat "$NR")
# Whatever happens here, the machine keeps its pool.
trap 'echo "$before" >"$NR"; rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/labs"
ln -s "$(cd "$BUILD/fakelabs" && pwd -P)/restore-lab" "$tmp/labs/lab-87"

# run_lab CASE END: dmalab run 87 with FAKE_RESTORE_END=END in the background;
# the runner's pid in $runner, its output in $tmp/CASE.out.
run_lab() {
	rm -f "$tmp/pid"
	FAKE_RESTORE_END=$2 FAKE_RESTORE_PIDFILE=$tmp/pid timeout 60 "$BUILD/dmalab" run 87 \
		--labs-dir "$tmp/labs" --results "$tmp/$1" --format tap >"$tmp/$1.out" 2>&1 &
	runner=$!
}

# wait_changed: until the lab has written its pid (it has changed the
# setting by then); its pid in $lab.
wait_changed() {
	i=0
	while [ ! -s "$tmp/pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	lab=$(cat "$tmp/pid" 2>/dev/null)
	[ -n "$lab" ]
}

# back CASE: nr_hugepages is back where it was, and the journal is gone.
back() {
	now=$(cat "$NR")
	if [ "$now" = "$before" ]; then ok "$1: nr_hugepages back at $before"
	else bad "$1: nr_hugepages is $now, was $before"; fi
	if [ ! -e "$tmp/$1/lab-87.restore" ]; then ok "$1: journal removed"
	else bad "$1: journal left: $(cat "$tmp/$1/lab-87.restore")"; fi
}

# says CASE WHAT: the output of CASE (the runner's, or lab-08's alone) says WHAT.
says() {
	if grep -qF -- "$2" "$tmp/$1.out"; then ok "$1: it says \"$2\""
	else bad "$1: no \"$2\" in the output:"; sed 's/^/    /' "$tmp/$1.out"; fi
}

# 1. SIGKILL while the pool is raised.
run_lab sigkill wait
if wait_changed; then
	now=$(cat "$NR")
	[ "$now" = $((before + 1)) ] && ok "sigkill: the lab raised nr_hugepages to $now" ||
		bad "sigkill: nr_hugepages is $now while the lab runs, want $((before + 1))"
	kill -KILL "$lab"
else
	bad "sigkill: the lab never started (see $tmp/sigkill.out)"
fi
wait "$runner"
back sigkill
says sigkill "put back '$before' from its journal"
says sigkill "killed by SIGKILL"

# 2. A crash.
run_lab crash crash
wait "$runner"
back crash
says crash "put back '$before' from its journal"
says crash "killed by SIGSEGV"

# 3. A timeout: SIGTERM ignored, SIGKILL after the grace period.
run_lab timeout ignore-term
wait "$runner"
back timeout
says timeout "put back '$before' from its journal"
says timeout "timeout, 0 of 1 claims decided; stopped with SIGTERM, then SIGKILL"

# 4. SIGTERM: the lab puts the pool back itself.
run_lab sigterm wait
if wait_changed; then kill -TERM "$lab"; else bad "sigterm: the lab never started"; fi
wait "$runner"
back sigterm
says sigterm "killed by SIGTERM"
if grep -q "put back" "$tmp/sigterm.out"; then bad "sigterm: the runner had to put it back"
else ok "sigterm: the lab put it back itself"; fi

# 5. A journal left by a runner that died: replayed before the next run.
mkdir -p "$tmp/stale"
echo $((before + 1)) >"$NR"
printf 'dmalab-restore 1 999999999\nset %s %s\n' "$NR" "$before" >"$tmp/stale/lab-87.restore"
run_lab stale pass
wait "$runner"
back stale
says stale "(left by an earlier run): put back '$before'"

# 6. lab-08 alone (no runner) after a run of it was killed with the pool
# raised: the journal it left in $TMPDIR is replayed first, so the size the
# lab reads, and puts back at its end, is the one from before that run.
mkdir -p "$tmp/alone"
echo $((before + 2)) >"$NR"
printf 'dmalab-restore 1 999999999\nset %s %s\n' "$NR" "$before" \
	>"$tmp/alone/dmalab-lab-08.restore"
TMPDIR=$tmp/alone DMALAB_RESTORE_FILE='' timeout 120 "$BUILD/labs/lab-08" --quick \
	>"$tmp/alone.out" 2>&1
rc=$?
case $rc in
0|1) ok "alone: lab-08 exit $rc" ;;
*) bad "alone: lab-08 exit $rc:"; grep -E 'error|Bail' "$tmp/alone.out" | sed 's/^/    /' ;;
esac
back_alone=$(cat "$NR")
[ "$back_alone" = "$before" ] && ok "alone: nr_hugepages back at $before" ||
	bad "alone: nr_hugepages is $back_alone, was $before"
[ ! -e "$tmp/alone/dmalab-lab-08.restore" ] && ok "alone: journal removed" ||
	bad "alone: journal left: $(cat "$tmp/alone/dmalab-lab-08.restore")"
says alone "a journal left by an earlier run: $NR was '$((before + 2))', put back '$before'"

echo "test-restore: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
