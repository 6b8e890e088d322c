#!/bin/sh
# test-make.sh - the Makefile's own usage errors: one line naming the bad
# value, a non-zero exit, nothing built (each case fails before a rule runs).
set -u
pass=0 fail=0

# expect RC PATTERN make-args...: make's exit status is RC and its stderr
# matches PATTERN (grep -E).
expect() {
	want_rc=$1 pattern=$2
	shift 2
	err=$(make --no-print-directory "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$want_rc" ] && printf '%s\n' "$err" | grep -Eq "$pattern"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: make $*: exit $rc (want $want_rc), stderr: $err"
	fi
}

expect 2 "QUICK='maybe': use QUICK=1" QUICK=maybe list
expect 2 "QUICK='2': use QUICK=1" QUICK=2 check
expect 2 "make lab-99: no lab '99'; the labs are: 01 " lab-99
expect 2 "make lab-: which lab\? the labs are: 01 " lab-
expect 2 "make hint-: which lab\? the labs are: 01 " hint-
echo "test-make: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
