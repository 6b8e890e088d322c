#!/bin/sh
# test-lab-options.sh - the labs' run-shaping options, on any machine (no GPU
# needed): what each measures is read back from the lab's JSON record.
#   - lab-04: the latency staircase by default (x4 steps from 4 KiB plus the
#     32 KiB claim point, up to the claim's working set), with --sweep (every
#     power of two), with --chase-only --size (32 KiB and that size alone);
#   - lab-02 --pinned-only: without a GPU every claim skips (exit 77), a
#     --size under the claims' 64 MiB is one line naming it and exit 2;
#   - lab-05: the CPU first-touch region is 64 MiB by default and with
#     --quick, --cpu-size is taken and a bad one refused (exit 2).
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

timeout 120 "$labs/lab-04" --quick --json "$tmp/l04.json" >"$tmp/l04.tap" 2>&1
expect "lab-04 --quick exit" "$?" 0
expect "lab-04 --quick staircase (KiB)" "$(latency_points l04)" "4 16 32 64 256 1024 4096 16384 65536"
timeout 120 "$labs/lab-04" --quick --sweep --json "$tmp/l04s.json" >"$tmp/l04s.tap" 2>&1
expect "lab-04 --quick --sweep exit" "$?" 0
expect "lab-04 --quick --sweep staircase (KiB)" "$(latency_points l04s)" \
	"4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
timeout 120 "$labs/lab-04" --chase-only --size 64M --json "$tmp/l04c.json" >"$tmp/l04c.tap" 2>&1
expect "lab-04 --chase-only --size 64M exit" "$?" 0
expect "lab-04 --chase-only --size 64M points (KiB)" "$(latency_points l04c)" "32 65536"
grep -q "^ok [0-9]* - 04.1 " "$tmp/l04.tap" && ok || bad "lab-04 --quick: 04.1 not confirmed"

DMALAB_TAP= timeout 60 "$labs/lab-02" --pinned-only --json "$tmp/l02.json" >"$tmp/l02.tap" 2>&1
rc=$?
if nvidia-smi -L >/dev/null 2>&1; then
	echo "test-lab-options: a GPU is here: lab-02 --pinned-only runs for real (exit $rc)"
	[ "$rc" -ne 99 ] && [ "$rc" -ne 2 ] && ok || bad "lab-02 --pinned-only: exit $rc"
else
	expect "lab-02 --pinned-only without a GPU: exit" "$rc" 77
	expect "lab-02 --pinned-only without a GPU: claims that skip" \
		"$(grep -c '^ok [0-9]* - 02\.[1-6] .*# SKIP' "$tmp/l02.tap")" 6
fi
"$labs/lab-02" --pinned-only --size 1M >"$tmp/l02b.out" 2>"$tmp/l02b.err"
expect "lab-02 --pinned-only --size 1M: exit" "$?" 2
expect "lab-02 --pinned-only --size 1M: one line on stderr" "$(wc -l <"$tmp/l02b.err" | tr -d ' ')" 1
grep -q "'1M'" "$tmp/l02b.err" && ok || bad "lab-02 --size 1M: the error does not name '1M': $(cat "$tmp/l02b.err")"

for q in "" --quick; do
	timeout 120 "$labs/lab-05" $q --json "$tmp/l05.json" >"$tmp/l05.tap" 2>&1
	grep -q "^# CPU: write one byte per [0-9]*-byte page of a fresh 64 MiB mapping" "$tmp/l05.tap" &&
		ok || bad "lab-05 $q: the CPU region is not 64 MiB: $(grep -m1 '^# CPU:' "$tmp/l05.tap")"
done
timeout 120 "$labs/lab-05" --cpu-size 32M --json "$tmp/l05c.json" >"$tmp/l05c.tap" 2>&1
grep -q "fresh 32 MiB mapping" "$tmp/l05c.tap" && ok || bad "lab-05 --cpu-size 32M not taken"
"$labs/lab-05" --cpu-size 3M >/dev/null 2>"$tmp/l05b.err"
expect "lab-05 --cpu-size 3M (not a multiple of 2 MiB): exit" "$?" 2

echo "test-lab-options: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
