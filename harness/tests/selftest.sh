#!/bin/sh
# selftest.sh - the harness checks itself (needs no cmocka and no GPU):
#  1. sabotage-check against fake records (every verdict pair it judges);
#  2. every claim can fail: the normal build decides it as it should (pass,
#     or fail as the predicted erratum) and the sabotage build, run once per
#     knob with DMALAB_SABOTAGE set to that knob's claims, fails it in its own
#     knob's run; a claim that skips or is inconclusive here is unproven on
#     this machine;
#  3. the runner against fake labs (golden TAP and JSON, crashes, hangs);
#  4. `prove` must accept every lab's TAP (no parse errors);
#  5. every exercise's stub is graded not done and the reference done, where
#     it can be graded (exercise-check.sh).
# Run through `make selftest`, which sets BUILD.
set -u
BUILD=${BUILD:-build}
failed=0
parts=5

echo "== selftest 1/$parts: sabotage-check against fake records"
BUILD="$BUILD" sh harness/tests/test-sabotage-check.sh || failed=$((failed + 1))

echo "== selftest 2/$parts: normal builds decide each claim as they should," \
	"each knob's sabotage run fails its claims"
"$BUILD/tests/sabotage-check" "$BUILD/labs" "$BUILD/sabotage" || failed=$((failed + 1))

echo "== selftest 3/$parts: the runner against fake labs"
if [ -f harness/tests/test-runner.sh ]; then
	BUILD="$BUILD" sh harness/tests/test-runner.sh || failed=$((failed + 1))
else
	echo "harness/tests/test-runner.sh missing"; failed=$((failed + 1))
fi

echo "== selftest 4/$parts: prove accepts every lab's TAP"
prove_failed=0
for lab in "$BUILD"/labs/lab-*; do
	out=$(DMALAB_TAP=1 prove -e '' "$lab" :: --quick 2>&1)
	if echo "$out" | grep -q "Parse errors"; then
		echo "prove: parse errors in $lab:"; echo "$out" | grep -A3 "Parse errors"
		prove_failed=1
	else
		echo "prove: $(basename "$lab") parsed cleanly"
	fi
done
failed=$((failed + prove_failed))

echo "== selftest 5/$parts: each exercise's stub is not done, the reference is"
BUILD="$BUILD" sh harness/tests/exercise-check.sh || failed=$((failed + 1))

if [ "$failed" -ne 0 ]; then
	echo "selftest: $((parts - failed)) passed, $failed failed"
	exit 1
fi
echo "selftest: $parts passed, 0 failed"
