#!/bin/sh
# test-interrupt.sh - Ctrl-C and kill at random moments, ROUNDS times per lab
# (default 20, alternating SIGINT and SIGTERM to the run's whole process
# group, as a terminal sends them), each run through the runner.  After each
# stop: no process of the run is left, the machine's Mlocked is not above its
# baseline, nr_hugepages is as it was, no journal or temporary file is left,
# lab-10's test file is gone, and results.json parses and says the run was
# aborted (or finished, when the signal came after the end).  Then lab-10
# SIGKILLed under the runner: the runner removes its test file.  LABS
# (default: the CPU labs) and ROUNDS may be set; each run is bounded by
# `timeout`.
set -u
BUILD=${BUILD:-build}
LABS=${LABS:-01 04 05 08 10}
ROUNDS=${ROUNDS:-20}
here=$(cd "$(dirname "$0")" && pwd)
errata=$here/../../answers/errata.md
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-interrupt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v python3 >/dev/null || { echo "test-interrupt: skipped (no python3)"; exit 0; }
# a new session with SIGINT at its default: a background job of a script
# ignores SIGINT, and a terminal's Ctrl-C reaches a foreground group that
# does not
fg_session() {
	exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

mlocked_kb() { awk '/^Mlocked:/ { print $2 }' /proc/meminfo; }
hugepages() { cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo -; }
tmp_files() { ls "${TMPDIR:-/tmp}" 2>/dev/null | grep '^dmalab-lab-' | sort; }
# the delay of round i of lab id: 0.05 s to 3.5 s, spread over the lab's run
delay_of() {
	awk -v i="$1" -v id="$2" 'BEGIN { srand(i * 97 + id); printf "%.2f", 0.05 + 3.45 * rand() }'
}

for id in $LABS; do
	lab=$BUILD/labs/lab-$id
	[ -x "$lab" ] || { bad "lab-$id not built ($lab)"; continue; }
	base_mlk=$(mlocked_kb) base_huge=$(hugepages) base_tmp=$(tmp_files)
	stopped=0
	for i in $(seq 1 "$ROUNDS"); do
		res=$tmp/r-$id-$i
		sig=INT
		[ $((i % 2)) = 0 ] && sig=TERM
		fg_session timeout 120 "$BUILD/dmalab" run "$id" --labs-dir "$BUILD/labs" \
			--errata "$errata" --quick --results "$res" >"$res.out" 2>&1 &
		pid=$!
		sleep "$(delay_of "$i" "$id")"
		kill -"$sig" "-$pid" 2>/dev/null
		wait "$pid"
		rc=$?
		[ "$rc" -gt 128 ] && stopped=$((stopped + 1))
		sleep 0.2 # the group's last members reaped
		left=$(pgrep -g "$pid" 2>/dev/null | wc -l)
		[ "$left" = 0 ] && ok || bad "lab-$id round $i (SIG$sig): $left process(es) left"
		case $rc in 0|1|130|143) ok ;; *) bad "lab-$id round $i (SIG$sig): exit $rc" ;; esac
		status=$(python3 -c \
			'import json, sys; print(json.load(open(sys.argv[1]))["status"])' \
			"$res/results.json" 2>/dev/null || echo unreadable)
		[ "$rc" -gt 128 ] && ! [ -d "$res" ] && status=none # stopped before it began
		case $rc:$status in
		130:aborted|143:aborted|130:none|143:none|0:pass|1:fail|0:inconclusive) ok ;;
		*) bad "lab-$id round $i (SIG$sig): exit $rc with results.json '$status'" ;;
		esac
		ls "$res" | grep -q '\.restore$' &&
			bad "lab-$id round $i: a journal left in $res" || ok
		ls "$res" 2>/dev/null | grep -q '\.dat$' &&
			bad "lab-$id round $i: a test file left in $res" || ok
		[ "$(hugepages)" = "$base_huge" ] && ok ||
			bad "lab-$id round $i: nr_hugepages $(hugepages), was $base_huge"
	done
	now=$(mlocked_kb)
	# a lock left behind can only raise it (a lab's locks are 64 MiB; allow 8 MiB of other
	# tenants' moves); a drop is another tenant letting go (this VM's agent moves tens of MiB)
	[ $((now - base_mlk)) -lt 8192 ] && ok ||
		bad "lab-$id: Mlocked ${now} kB after the rounds, ${base_mlk} kB before"
	[ "$(tmp_files)" = "$base_tmp" ] && ok ||
		bad "lab-$id: files left in ${TMPDIR:-/tmp}: $(tmp_files)"
	echo "test-interrupt: lab-$id: $ROUNDS rounds, $stopped stopped by a signal"
done
# lab-10 SIGKILLed under the runner while its test file is there: no
# handler of the lab runs, so the runner removes what the lab announced
# (DMALAB_TEMP_LIST) once it has reaped it, and says so.
case " $LABS " in *" 10 "*)
	res=$tmp/kill-10
	mkdir -p "$res"
	timeout 120 "$BUILD/dmalab" run 10 --labs-dir "$BUILD/labs" --errata "$errata" --quick \
		--results "$res" >"$res.out" 2>&1 &
	pid=$!
	dat=
	for i in $(seq 1 200); do # until the test file is there
		dat=$(ls "$res" 2>/dev/null | grep '^lab10-[0-9]*\.dat$' | head -1)
		[ -n "$dat" ] && break
		sleep 0.05
	done
	if [ -n "$dat" ]; then
		labpid=${dat#lab10-}
		kill -KILL "${labpid%.dat}" 2>/dev/null
		wait "$pid"
		ls "$res" | grep -q '\.dat$' && bad "lab-10 SIGKILL: $dat left in $res" || ok
		grep -q "lab-10 left $res/$dat: removed" "$res.out" && ok ||
			bad "lab-10 SIGKILL: the runner does not say it removed $dat:" \
				"$(tail -5 "$res.out")"
		ls "$res" | grep -q '\.tempfiles$' &&
			bad "lab-10 SIGKILL: its list left in $res" || ok
	else
		wait "$pid"
		bad "lab-10 SIGKILL: no test file appeared in $res: $(tail -5 "$res.out")"
	fi
	;;
esac
echo "test-interrupt: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
