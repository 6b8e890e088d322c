#!/bin/sh
# test-leaks.sh - under valgrind, the statistics' samples storage
# (harness/lab/stats.c) is freed at exit and nothing reads or writes memory
# it should not: every process (the unit tests' forked labs too) ends with no
# definite or indirect leak, no memory error, and no block from samples_alloc
# still held.  The rest of a lab's record (claims, notes) is still reachable
# at exit by design and is not counted.  Runs the statistics' unit tests, a
# fake lab and the example lab from $BUILD (default build), the runner
# (`dmalab check` over the fake labs, `dmalab list` and `dmalab claims` over
# the built labs) and the CPU labs (LEAK_LABS, default "01 04 05", --quick,
# with the helper processes they start); without valgrind it says so and
# passes (`make test-leaks`).
set -u
b=${BUILD:-build}

if ! command -v valgrind >/dev/null 2>&1; then
	echo "test-leaks: skip (no valgrind; apt-get install -y valgrind)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-leaks.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 130' INT TERM HUP
failed=0
runs=0

# check CMD...: one command under valgrind, its log in $tmp/vg.N.  Exit
# codes other than those in $exits (a lab: 0, 77, and 1 for a contradicted
# claim, a finding about this machine) fail; valgrind's own is 97.
exits="0 77"
vg_extra=""
check() {
	runs=$((runs + 1))
	log=$tmp/vg.$runs
	CMOCKA_MESSAGE_OUTPUT=stdout valgrind --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=97 $vg_extra \
		--log-file="$log.%p" "$@" >"$tmp/out" 2>&1
	rc=$?
	name=$*
	if [ "$rc" -eq 97 ] || grep -q "ERROR SUMMARY: [1-9]" "$log".*; then
		echo "FAIL $name: valgrind found errors or leaks:"
		grep -h -A12 "lost in loss record\|Invalid \|uninitialised\|Syscall param" \
			"$log".* | head -60
		failed=1
	elif ! echo " $exits " | grep -q " $rc "; then
		echo "FAIL $name: exit $rc"
		tail -20 "$tmp/out"
		failed=1
	elif grep -q "samples_alloc" "$log".*; then
		echo "FAIL $name: samples' storage still held at exit:"
		grep -h -B2 -A6 "samples_alloc" "$log".* | head -40
		failed=1
	elif ! grep -q "([a-z_0-9]*\.c:[0-9]\|All heap blocks were freed" "$log".*; then
		echo "FAIL $name: no source lines in valgrind's log (built without -g?)"
		failed=1
	else
		echo "ok   $name: $(ls "$log".* | wc -l) process(es) clean"
	fi
}

labs=${LEAK_LABS:-01 04 05}
cpu_labs=""
for l in $labs; do
	cpu_labs="$cpu_labs $b/labs/lab-$l"
done
for f in "$b/tests/test_stats" "$b/tests/test_claim" \
	"$b/fakelabs/lab-88" "$b/example/lab-example" "$b/dmalab" $cpu_labs; do
	[ -x "$f" ] || {
		echo "test-leaks: $f is missing (make unit fakelabs $b/example/lab-example)" >&2
		exit 2
	}
done
check "$b/tests/test_stats"
check "$b/tests/test_claim"
check "$b/fakelabs/lab-88" --json "$tmp/88.json"
check "$b/example/lab-example" --quick --json "$tmp/example.json"

# The runner: its own process (the labs it starts run natively); check exits
# 1 here since some fake labs fail on purpose.
vg_extra=""
exits="0 1"
check "$b/dmalab" check --labs-dir "$b/fakelabs" --errata harness/tests/fixtures/errata-fake.md \
	--results "$tmp/check" --format tap
exits="0"
check "$b/dmalab" list --labs-dir "$b/labs"
check "$b/dmalab" claims --labs-dir "$b/labs"

# The CPU labs, with the helper processes they start (fork+exec of themselves)
vg_extra="--trace-children=yes"
exits="0 1 77"
for l in $cpu_labs; do
	check "$l" --quick --json "$tmp/$(basename "$l").json"
done
[ "$failed" -eq 0 ] && echo "test-leaks: $runs programs, no leak, samples freed at exit"
exit "$failed"
