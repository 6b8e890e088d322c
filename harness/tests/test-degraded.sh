#!/bin/sh
# test-degraded.sh - the labs on a machine that is less than they want, each
# case with its expected outcome: a skip with its reason or one clear line,
# never a lab error (exit 99) or a crash.  Cases: a normal user under a
# 64 KiB RLIMIT_MEMLOCK (the claims that need root skip or stay
# inconclusive, all others run), a hard memlock limit of 0, an unwritable
# TMPDIR, and no GPU.  The user cases need root (runuser, prlimit) and skip
# without it.  Bounded: every lab runs --quick under `timeout`.
set -u
BUILD=${BUILD:-build}
labs=$BUILD/labs
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-degraded.XXXXXX") || exit 1
chmod 1777 "$tmp" # the labs run as nobody write their records here
trap 'rm -rf "$tmp"' EXIT INT TERM

# run_as NAME CMD...: runs a lab --quick --json, keeps its exit code in $rc.
run_lab() {
	name=$1
	shift
	timeout 120 "$@" --quick --json "$tmp/$name.json" >"$tmp/$name.tap" 2>"$tmp/$name.err"
	rc=$?
}
no_error() { # NAME: exit is not 99 (setup error), 2 (usage) nor a signal, no Bail out
	if [ "$rc" -ne 99 ] && [ "$rc" -ne 2 ] && [ "$rc" -lt 124 ] && ! grep -q "^Bail out" "$tmp/$1.tap"; then
		ok
	else
		bad "$1: exit $rc: $(head -c 300 "$tmp/$1.err") $(grep -m1 '^Bail out' "$tmp/$1.tap")"
	fi
}
skips() { # NAME ID REASON: claim ID skipped with REASON
	if grep -q "^ok [0-9]* - $2 .*# SKIP $3" "$tmp/$1.tap"; then ok; else
		bad "$1: $2 should skip with $3: $(grep -m1 " - $2 " "$tmp/$1.tap" | cut -c1-200)"
	fi
}

if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && command -v prlimit >/dev/null &&
	id nobody >/dev/null 2>&1; then
	for id in 01 04 08; do
		run_lab nobody-$id prlimit --memlock=65536:65536 runuser -u nobody -- "$labs/lab-$id"
		no_error nobody-$id
	done
	skips nobody-01 01.7 not-root
	skips nobody-08 08.4 not-root
	if grep -q "^ok [0-9]* - 01.8 .*# SKIP \(inconclusive\|no-capability\)" "$tmp/nobody-01.tap"; then
		ok
	else
		bad "nobody-01: 01.8 should be inconclusive without root (the per-CPU drift)"
	fi
	run_lab hard0-01 prlimit --memlock=0:0 "$labs/lab-01"
	no_error hard0-01
	grep -q "01.4 .*# SKIP no-capability: hard RLIMIT_MEMLOCK 0 B" "$tmp/hard0-01.tap" ||
		grep -q "^ok [0-9]* - 01.4 " "$tmp/hard0-01.tap" && ok ||
		bad "hard limit 0: 01.4 should skip (no-capability) or decide, not error"
else
	echo "test-degraded: the user cases skipped (need root, runuser, prlimit, nobody)"
fi

run_lab tmpdir-08 env TMPDIR=/nonexistent/dmalab "$labs/lab-08"
no_error tmpdir-08
[ "$(id -u)" = 0 ] && skips tmpdir-08 08.4 "unsupported: cannot journal the change"
run_lab tmpdir-01 env TMPDIR=/nonexistent/dmalab "$labs/lab-01"
no_error tmpdir-01

if ! [ -e /dev/nvidiactl ]; then # no GPU here: every CUDA claim skips, no lab breaks
	for id in 02 03 06 07; do
		run_lab nogpu-$id "$labs/lab-$id"
		[ "$rc" -eq 77 ] && ok || bad "no GPU: lab-$id exit $rc, want 77 (all skipped)"
	done
fi
echo "test-degraded: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
