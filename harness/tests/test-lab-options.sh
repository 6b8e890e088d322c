#!/bin/sh
# test-lab-options.sh - the labs' run-shaping options, read back from each
# lab's JSON record (the series' points) or its TAP stream (claim lines,
# notes):
#   - lab-04: the latency staircase by default (x4 steps from 4 KiB plus the
#     32 KiB claim point, up to 256 MiB; --quick to 64 MiB), with --sweep
#     (every power of two, to 512 MiB), with --chase-only --size (32 KiB and
#     that size alone; with --sweep the staircase up to that size), and
#     04.1 decided on it;
#   - lab-02 --pinned-only: with a GPU, 02.3 and 02.4 decided on the pinned
#     series alone and the other four skipped not-requested; without one
#     only that it is taken and that a --size under 64 MiB is refused (its
#     effect needs a GPU: this machine cannot show it);
#   - lab-05: the CPU first-touch region 64 MiB by default and with --quick
#     (16,384 pages counted in 05.1's note), --cpu-size taken, a bad one
#     refused;
#   - --size refused by a lab that has none (lab-11);
#   - a typed option out of its range (lab-03 --steps, lab-10 --chunk,
#     lab-05 --size) refused in one line naming the value, exit 2, and its
#     default, --quick value and range in --help;
#   - the narration of lab-04, lab-08 and lab-10 (on this disk and on a
#     tmpfs): no unknown value printed as 0x or -1, no legend for what is
#     not shown, lab-10's rounds counted alike in plan, progress and table.
# lab-10's extra rounds and lab-11's swap space need a GPU: the H200 runs
# in their READMEs are their test.
#
#   BUILD=build sh harness/tests/test-lab-options.sh
set -u
BUILD=${BUILD:-build}
labs=$BUILD/labs
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-options.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

if ! command -v python3 >/dev/null 2>&1; then
	echo "test-lab-options: python3 not found: skipped"
	exit 0
fi

# latency_points NAME: the working sets (KiB) of lab-04's latency series, space-separated.
latency_points() {
	python3 - "$tmp/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["series"]["latency_node0"]["points"]
print(" ".join(str(int(p["x"]) // 1024) for p in pts))
EOF
}
expect() { # WHAT GOT WANT
	[ "$2" = "$3" ] && ok || bad "$1: got '$2', want '$3'"
}

# lab_04 NAME ARGS...: lab-04 with ARGS into $tmp/NAME.{json,tap}, its exit checked.
lab_04() {
	name=$1
	shift
	timeout 120 "$labs/lab-04" "$@" --json "$tmp/$name.json" >"$tmp/$name.tap" 2>&1
	expect "lab-04 $* exit" "$?" 0
	grep "^ok [0-9]* - 04.1 " "$tmp/$name.tap" | grep -qv "# SKIP" && ok ||
		bad "lab-04 $*: 04.1 not decided: $(grep -m1 ' - 04.1 ' "$tmp/$name.tap" |
			cut -c1-160)"
}
x4="4 16 32 64 256 1024 4096 16384 65536"
x2="4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
lab_04 l04q --quick
expect "lab-04 --quick staircase (KiB)" "$(latency_points l04q)" "$x4"
lab_04 l04qs --quick --sweep
expect "lab-04 --quick --sweep staircase (KiB)" "$(latency_points l04qs)" "$x2"
lab_04 l04c --chase-only
expect "lab-04 --chase-only staircase (KiB)" "$(latency_points l04c)" "$x4 262144"
lab_04 l04cs --chase-only --sweep
expect "lab-04 --chase-only --sweep staircase (KiB)" "$(latency_points l04cs)" \
	"$x2 131072 262144 524288"
lab_04 l04c1 --chase-only --size 64M
expect "lab-04 --chase-only --size 64M points (KiB)" "$(latency_points l04c1)" "32 65536"
lab_04 l04c2 --chase-only --size 100M --sweep
expect "lab-04 --chase-only --size 100M --sweep staircase (KiB)" "$(latency_points l04c2)" \
	"$x2 102400"

DMALAB_TAP= timeout 60 "$labs/lab-02" --pinned-only --json "$tmp/l02.json" >"$tmp/l02.tap" 2>&1
rc=$?
if grep -q "^ok [0-9]* - 02\.1 .*# SKIP no-cuda-d" "$tmp/l02.tap"; then
	echo "test-lab-options: no GPU here: lab-02 --pinned-only is only parsed (exit $rc)"
	expect "lab-02 --pinned-only without a GPU: exit" "$rc" 77
else
	for id in 02.1 02.2 02.5 02.6 02.7 02.8 02.9 02.10; do
		grep -q "^ok [0-9]* - $id .*# SKIP not-requested: --pinned-only" \
			"$tmp/l02.tap" && ok ||
			bad "lab-02 --pinned-only: $id should skip not-requested"
	done
	for id in 02.3 02.4; do
		grep "^\(not \)\{0,1\}ok [0-9]* - $id " "$tmp/l02.tap" | grep -qv "# SKIP" && ok ||
			bad "lab-02 --pinned-only: $id should be decided"
	done
	expect "lab-02 --pinned-only: the series" "$(python3 -c "
import json, sys
print(' '.join(sorted(k for k in json.load(open(sys.argv[1]))['series']
                      if k[:3] in ('h2d', 'd2h'))))
" "$tmp/l02.json")" "d2h_pinned h2d_pinned"
fi
"$labs/lab-02" --pinned-only --size 1M >"$tmp/l02b.out" 2>"$tmp/l02b.err"
expect "lab-02 --pinned-only --size 1M: exit" "$?" 2
expect "lab-02 --pinned-only --size 1M: one line on stderr" \
	"$(wc -l <"$tmp/l02b.err" | tr -d ' ')" 1
grep -q "'1M'" "$tmp/l02b.err" && ok ||
	bad "lab-02 --size 1M: the error does not name '1M': $(cat "$tmp/l02b.err")"

for q in "" --quick; do
	t0=$(date +%s.%N)
	timeout 120 "$labs/lab-05" $q --json "$tmp/l05.json" >"$tmp/l05.tap" 2>&1
	# labs/05-faults/README.md says how long the lab takes on a machine like this one
	if awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { exit !(b - a >= 1) }' &&
		grep -q "CPU part takes under a second" labs/05-faults/README.md; then
		bad "lab-05 $q took 1 s or more; its README says the CPU part takes under a second"
	else
		ok
	fi
	grep -q "^# CPU: write one byte per [0-9]*-byte page of a fresh 64 MiB mapping" \
		"$tmp/l05.tap" && ok ||
		bad "lab-05 $q: the CPU region is not 64 MiB: $(grep -m1 '^# CPU:' "$tmp/l05.tap")"
	[ "$(getconf PAGESIZE)" != 4096 ] ||
		grep -q 'minor faults for 16384 pages' "$tmp/l05.tap" &&
		ok || bad "lab-05 $q: 05.1 did not count 16384 pages"
done
timeout 120 "$labs/lab-05" --cpu-size 32M --json "$tmp/l05c.json" >"$tmp/l05c.tap" 2>&1
grep -q "fresh 32 MiB mapping" "$tmp/l05c.tap" && ok || bad "lab-05 --cpu-size 32M not taken"
"$labs/lab-05" --cpu-size 3M >/dev/null 2>"$tmp/l05b.err"
expect "lab-05 --cpu-size 3M (not a multiple of 2 MiB): exit" "$?" 2

"$labs/lab-11" --size 1M >/dev/null 2>"$tmp/l11.err"
expect "lab-11 --size 1M (a lab without --size): exit" "$?" 2
grep -q "^lab-11: --size '1M': this lab takes no --size" "$tmp/l11.err" && ok ||
	bad "lab-11 --size 1M: $(cat "$tmp/l11.err")"

# range_error LAB ARGS... -- LINE: the lab refuses ARGS with exit 2 and LINE alone on stderr.
range_error() {
	lab=$1
	shift
	args=""
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	# shellcheck disable=SC2086
	"$labs/lab-$lab" $args >/dev/null 2>"$tmp/range.err"
	expect "lab-$lab$args: exit" "$?" 2
	expect "lab-$lab$args: stderr" "$(cat "$tmp/range.err")" "$2"
}
range_error 03 --steps 5 -- "lab-03: --steps '5': must be from 10 to 1000000 (see --help)"
range_error 03 --steps 2000000 -- \
	"lab-03: --steps '2000000': must be from 10 to 1000000 (see --help)"
range_error 10 --chunk 1M -- \
	"lab-10: --chunk '1M': too small: need at least 2 MiB (a huge page) (see --help)"
range_error 05 --size 1M -- \
	"lab-05: --size '1M': too small: need at least 4 MiB of managed memory (see --help)"
"$labs/lab-03" --help | grep -q -- "(default 1000, --quick 200) (10 to 1000000)$" && ok ||
	bad "lab-03 --help: --steps without its default, --quick value and range"
# the exit line names a stop by a signal too (test-interrupt sees 130 for SIGINT)
"$labs/lab-03" --help | tail -n 1 | grep -q -- ", 128+N stopped by signal N (130: Ctrl-C)$" &&
	ok || bad "lab-03 --help: its exit line does not name 128+N"

# README.md names the labs that take --size: exactly those whose --help has it
said=$(sed -n 's/.*`--size 64M` (labs \([0-9, ]*\) only.*/\1/p' README.md | tr -d ' ')
have=$(for l in "$labs"/lab-[0-9]*; do
	"$l" --help | grep -q -- '^  --size N' && printf '%s,' "${l##*lab-}"
done | sed 's/,$//')
[ -n "$said" ] && [ "$said" = "$have" ] && ok ||
	bad "README.md says labs '$said' take --size; their --help says '$have'"

# The narration (TAP comments) of the CPU labs: an unknown value says
# "unknown", never 0x or -1 with a legend; a legend only for what is shown;
# lab-10's rounds counted the same in its plan, its progress and its table.
narration() { # narration NAME FILE: the checks every lab's comments must pass
	unknown_words='\(0: unknown\)|-1: unknown|-1: it could not tell|[^0-9.]0x the '
	if grep -nE "^# .*($unknown_words|(^|[ (])-1 (KiB|pieces)|  -1(\.0+)? )" \
		"$2" >"$tmp/narr.bad"; then
		bad "$1: an unknown value shown as a number or legend: $(head -n 3 "$tmp/narr.bad")"
	else
		ok
	fi
}
timeout 120 "$labs/lab-04" --quick >"$tmp/n04.tap" 2>&1
narration "lab-04 --quick" "$tmp/n04.tap"
grep -qE '^# single-thread read, local: .*(the last-level cache|last-level cache.s size unknown)' \
	"$tmp/n04.tap" && ok || bad "lab-04: no line about the read buffer and the last-level cache"
timeout 120 "$labs/lab-08" --quick >"$tmp/n08.tap" 2>&1
narration "lab-08 --quick" "$tmp/n08.tap"
shm=""
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/shm" &&
	mount -t tmpfs -o size=256m tmpfs "$tmp/shm" 2>/dev/null
then
	shm=$tmp/shm
elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/dmalab-options.XXXXXX)
fi
for dir in "$tmp" $shm; do
	timeout 120 "$labs/lab-10" --quick --dir "$dir" >"$tmp/n10.tap" 2>&1
	narration "lab-10 --quick --dir $dir" "$tmp/n10.tap"
	planned=$(sed -n 's/^# plan: .* a warm-up round and \([0-9]*\) measured rounds.*/\1/p' \
		"$tmp/n10.tap")
	table=$(sed -n 's/^# \([0-9]*\) rounds: GB\/s.*/\1/p' "$tmp/n10.tap")
	grep -q '^# progress: round 0 of' "$tmp/n10.tap" && bad "lab-10 $dir: a round 0" || ok
	[ -n "$planned" ] && [ "$planned" = "$table" ] && ok ||
		bad "lab-10 $dir: plan says '$planned' measured rounds, the table '$table'"
	# progress lines are throttled: any "round k of n" shown counts from 1 to the plan's n
	sed -n 's/^# progress: round \([0-9]*\) of \([0-9]*\):.*/\1 \2/p' "$tmp/n10.tap" |
		awk -v n="$planned" '$1 < 1 || $2 < n { bad = 1 } END { exit bad }' && ok ||
		bad "lab-10 $dir: a round outside 1..$planned"
done
[ -z "$shm" ] && echo "# no tmpfs to run lab-10 on (not root, no /dev/shm)"
case $shm in "$tmp"/*) umount "$shm" ;; /dev/shm/*) rm -rf "$shm" ;; esac

echo "test-lab-options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
