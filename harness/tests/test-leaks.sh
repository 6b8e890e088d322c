#!/bin/sh
# test-leaks.sh - under valgrind, the statistics' samples storage
# (harness/lib/stats.c) is freed at exit and nothing reads or writes memory it should not: every process (the unit
# tests' forked labs too) ends with no definite or indirect leak, no memory
# error, and no block from samples_alloc still held.  The rest of a lab's
# record (claims, notes) is still reachable at exit by design and is not
# counted.  Runs the statistics' unit tests, a fake lab and the example lab
# from $BUILD (default build); without valgrind it says so and passes
# (`make test-leaks`).
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

# check CMD...: one command under valgrind, its log in $tmp/vg.N.
check() {
	runs=$((runs + 1))
	log=$tmp/vg.$runs
	CMOCKA_MESSAGE_OUTPUT=stdout valgrind --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=97 \
		--log-file="$log.%p" "$@" >"$tmp/out" 2>&1
	rc=$?
	name=$*
	if [ "$rc" -eq 97 ]; then
		echo "FAIL $name: valgrind found errors or leaks:"
		grep -h -A12 "lost in loss record\|Invalid \|uninitialised" "$log".* | head -60
		failed=1
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
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

for f in "$b/tests/test_stats" "$b/tests/test_claim" \
	"$b/fakelabs/lab-88" "$b/example/lab-example"; do
	[ -x "$f" ] || {
		echo "test-leaks: $f is missing (make unit fakelabs $b/example/lab-example)" >&2
		exit 2
	}
done
check "$b/tests/test_stats"
check "$b/tests/test_claim"
check "$b/fakelabs/lab-88" --json "$tmp/88.json"
check "$b/example/lab-example" --quick --json "$tmp/example.json"
[ "$failed" -eq 0 ] && echo "test-leaks: $runs programs, no leak, samples freed at exit"
exit "$failed"
