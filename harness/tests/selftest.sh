#!/bin/sh
# selftest.sh - the harness checks itself (needs no cmocka and no GPU):
#  1. every sabotage build must make its targeted claims fail;
#  2. the runner against fake labs (golden TAP and JSON, crashes, hangs);
#  3. `prove` must accept every lab's TAP (no parse errors).
# Run through `make selftest`, which sets BUILD.
set -u
BUILD=${BUILD:-build}
failed=0

echo "== selftest 1/3: sabotage builds must fail their claims"
"$BUILD/tests/sabotage-check" "$BUILD/sabotage" || failed=$((failed + 1))

echo "== selftest 2/3: the runner against fake labs"
if [ -f harness/tests/test-runner.sh ]; then
	BUILD="$BUILD" sh harness/tests/test-runner.sh || failed=$((failed + 1))
else
	echo "harness/tests/test-runner.sh missing"; failed=$((failed + 1))
fi

echo "== selftest 3/3: prove accepts every lab's TAP"
for lab in "$BUILD"/labs/lab-*; do
	out=$(DMALAB_TAP=1 prove -e '' "$lab" :: --quick 2>&1)
	if echo "$out" | grep -q "Parse errors"; then
		echo "prove: parse errors in $lab:"; echo "$out" | grep -A3 "Parse errors"
		failed=$((failed + 1))
	else
		echo "prove: $(basename "$lab") parsed cleanly"
	fi
done

if [ "$failed" -ne 0 ]; then
	echo "selftest: $failed part(s) failed"
	echo "selftest: 0 passed, $failed failed"
	exit 1
fi
echo "selftest: 3 passed, 0 failed"
