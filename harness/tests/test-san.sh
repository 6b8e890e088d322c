#!/bin/sh
# test-san.sh - the C code under AddressSanitizer and UndefinedBehaviorSanitizer
# (`make test-san`, or `make test SAN=1`): builds it with SAN=1 into $BUILD
# (default build/san; CUDA labs as stubs), then runs, one line each:
#   1. the unit tests (make SAN=1 unit);
#   2. every lab --quick on its own (exit 0, 1 for a contradicted claim, or 77);
#   3. the runner: dmalab check --quick over those labs (LABS: some of them),
#      then list, claims, sysinfo and grade --from its results.json;
#   4. the runner against the fake labs (test-runner.sh; they crash and abort
#      on purpose, so ASan leaves SIGSEGV to them: handle_segv=0).
# Every process writes its sanitizer reports to a log of its own
# (log_path); any report (leaks included, detect_leaks=1) fails the step
# it came from, and its first lines are shown.  The last line:
#   test-san: P passed, F failed
set -u
b=${BUILD:-build/san}
make=${MAKE:-make}
labs=${LABS:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-san.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 130' INT TERM HUP
npass=0
nfail=0
step=0

san_env() {
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1"
	ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$tmp/log/$step/asan$1"
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$tmp/log/$step/ubsan"
	export ASAN_OPTIONS UBSAN_OPTIONS
}

# result NAME RC OKCODES: one line for a step; its sanitizer logs fail it too.
result() {
	if ls "$tmp/log/$step"/* >/dev/null 2>&1; then
		nfail=$((nfail + 1))
		echo "FAIL $1: sanitizer report(s):"
		head -n 40 "$tmp/log/$step"/* | sed 's/^/    /'
	elif ! echo " $3 " | grep -q " $2 "; then
		nfail=$((nfail + 1))
		echo "FAIL $1: exit $2"
		tail -n 30 "$tmp/out.$step" | sed 's/^/    /'
	else
		npass=$((npass + 1))
		echo "ok   $1"
	fi
}

begin() {
	step=$((step + 1))
	mkdir -p "$tmp/log/$step"
	san_env "${1:-}"
}

echo "== test-san: building with ASan and UBSan into $b"
if ! $make --no-print-directory SAN=1 BUILD="$b" all fakelabs "$b/example/lab-example" \
	>"$tmp/build.log" 2>&1; then
	echo "FAIL build (make SAN=1 BUILD=$b all fakelabs):"
	tail -n 30 "$tmp/build.log"
	echo "test-san: 0 passed, 1 failed"
	exit 1
fi

begin
$make --no-print-directory SAN=1 BUILD="$b" unit >"$tmp/out.$step" 2>&1
rc=$?
grep '^unit:' "$tmp/out.$step"
[ "$rc" -ne 0 ] && grep '^FAIL' "$tmp/out.$step" | sed 's/^/    /'
result "unit tests" "$rc" 0

for lab in "$b"/labs/lab-* "$b/example/lab-example"; do
	id=${lab##*/lab-}
	if [ -n "$labs" ] && [ "$lab" != "$b/example/lab-example" ] &&
		! echo " $labs " | grep -q " $id "; then
		continue
	fi
	begin
	"$lab" --quick --json "$tmp/$id.json" >"$tmp/out.$step" 2>&1
	result "${lab##*/} --quick" $? "0 1 77"
done

begin
"$b/dmalab" check --quick --results "$tmp/res" $labs >"$tmp/out.$step" 2>&1
rc=$?
result "dmalab check --quick $labs ($(tail -n 1 "$tmp/out.$step"))" "$rc" "0 1"
for cmd in list claims sysinfo; do
	begin
	"$b/dmalab" $cmd >"$tmp/out.$step" 2>&1
	result "dmalab $cmd" $? 0
done
begin
"$b/dmalab" grade --from "$tmp/res/results.json" --results "$tmp/res" >"$tmp/out.$step" 2>&1
result "dmalab grade --from" $? "0 1"

begin ":handle_segv=0"
BUILD="$b" sh harness/tests/test-runner.sh >"$tmp/out.$step" 2>&1
rc=$?
result "the runner against the fake labs ($(tail -n 1 "$tmp/out.$step"))" "$rc" 0

echo "test-san: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
