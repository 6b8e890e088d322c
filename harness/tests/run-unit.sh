#!/bin/sh
# run-unit.sh BINARY... - run cmocka unit-test binaries and total their tests.
#
# Prints one line per binary (its output too when it fails) and ends with
#   unit: N passed, F failed
# counting tests from cmocka's summary lines.  A binary that crashes, hangs
# (UNIT_TIMEOUT seconds, default 120) or prints no summary counts as one
# failed test, so a broken binary can never look like a pass.
# Exit status: 0 when nothing failed, 1 otherwise, 2 when given no binary.
set -u

if [ $# -eq 0 ]; then
	echo "usage: $0 UNIT_TEST_BINARY..." >&2
	exit 2
fi

timeout_s=${UNIT_TIMEOUT:-120}
total_pass=0
total_fail=0
log=$(mktemp "${TMPDIR:-/tmp}/dmalab-unit.XXXXXX") || exit 2
trap 'rm -f "$log"' EXIT INT TERM

# Number in the first cmocka summary line that starts with $1 ("PASSED").
summary_count() {
	sed -n "s/^\[  $1  \] \([0-9][0-9]*\) test(s).*/\1/p" "$log" | head -n 1
}

for bin in "$@"; do
	name=$(basename "$bin")
	if [ ! -x "$bin" ]; then
		echo "FAIL $name: not found or not executable"
		total_fail=$((total_fail + 1))
		continue
	fi
	if command -v timeout >/dev/null 2>&1; then
		CMOCKA_MESSAGE_OUTPUT=stdout timeout "$timeout_s" "$bin" >"$log" 2>&1
	else
		CMOCKA_MESSAGE_OUTPUT=stdout "$bin" >"$log" 2>&1
	fi
	rc=$?
	pass=$(summary_count PASSED)
	fail=$(summary_count FAILED)
	pass=${pass:-0}
	fail=${fail:-0}
	why=""
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		# Died without a failure count: crash, timeout (124) or no summary.
		fail=1
		why=" (exit status $rc, no cmocka failure count)"
	elif [ "$rc" -eq 0 ] && [ "$pass" -eq 0 ]; then
		fail=1
		why=" (no test ran)"
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	if [ "$fail" -eq 0 ]; then
		echo "ok   $name: $pass passed"
	else
		echo "FAIL $name: $pass passed, $fail failed$why"
		sed 's/^/    /' "$log"
	fi
done

echo "unit: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
