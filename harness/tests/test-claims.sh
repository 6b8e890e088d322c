#!/bin/sh
# test-claims.sh - `dmalab claims` (every claim's relation, tolerance, unit,
# rule and sabotage, from the labs' --describe) against its golden file, so
# that a changed relation is a reviewed diff (README.md, "How a verdict is
# made").  Needs no cmocka and no GPU: nothing is measured.
#
#   BUILD=build sh harness/tests/test-claims.sh [GOLDEN [LABS_DIR]]   (make test-claims)
#
# GOLDEN defaults to harness/tests/golden/claims.txt, LABS_DIR to $BUILD/labs.
# After a reviewed change of a spec: make claims-golden.
set -u
BUILD=${BUILD:-build}
golden=${1:-harness/tests/golden/claims.txt}
labs=${2:-$BUILD/labs}
out=$(mktemp "${TMPDIR:-/tmp}/dmalab-claims.XXXXXX") || exit 1
trap 'rm -f "$out" "$out.diff"' EXIT

# The golden is English whatever the learner's language (DMALAB_LANG, lang.h).
if ! DMALAB_LANG=en "$BUILD/dmalab" claims --labs-dir "$labs" --format human >"$out"; then
	echo "FAIL: dmalab claims --labs-dir $labs failed (a lab without a usable --describe?)"
	exit 1
fi
if [ ! -f "$golden" ]; then
	echo "FAIL: no golden file $golden: make claims-golden, review it, commit it"
	exit 1
fi
if diff -u "$golden" "$out" >"$out.diff"; then
	echo "test-claims: ok, $(grep -c '^  relation: ' "$out") claims as in $golden"
	exit 0
fi
echo "FAIL: dmalab claims differs from $golden (- golden, + the labs now):"
cat "$out.diff"
echo "FAIL: a claim's relation, tolerance, unit, rule or sabotage changed. If the change"
echo "      is meant, update the golden file with \`make claims-golden\` and commit the"
echo "      reviewed diff with the change of the spec."
exit 1
