#!/bin/sh
# test-sabotage-check.sh - sabotage-check against fake labs whose records
# are written by hand: every verdict pair it must call proven, unproven
# (cannot be proven here) or DEFECT.  Run through selftest.sh (BUILD set).
set -u
BUILD=${BUILD:-build}
check="$BUILD/tests/sabotage-check"
[ -x "$check" ] || { echo "test-sabotage-check: $check is not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-sabcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/normal" "$tmp/sabotage"
failed=0
checks=0

# fake_lab DIR NAME SABOTAGE(true|false) CLAIM... : a lab that writes a
# record with the given claims (JSON objects) to its --json file.
fake_lab() {
	dir=$1 name=$2 flag=$3
	shift 3
	claims=$(printf '%s,' "$@")
	claims=${claims%,}
	cat >"$tmp/$dir/$name" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
	[ "\$1" = --json ] && json=\$2
	shift
done
cat >"\$json" <<'REC'
{"lab": "${name#lab-}", "status": "pass", "sabotage": $flag, "claims": [$claims]}
REC
EOF
	chmod +x "$tmp/$dir/$name"
}

# claim ID STATUS SABOTAGE_TEXT(or null) ERRATUM_STATUS(or null) [DETAIL]
claim() {
	sab=null err=null
	[ "$3" != null ] && sab="\"$3\""
	[ "$4" != null ] && err="{\"status\": \"$4\", \"expect\": \"ge 3\"}"
	printf '{"id": "%s", "status": "%s", "sabotage": %s, "erratum": %s, "reason": "%s", "detail": "%s"}' \
		"$1" "$2" "$sab" "$err" "$([ "$2" = skip ] && echo single-numa-node)" "${5:-}"
}

fake_lab normal lab-81 false \
	"$(claim 81.1 pass s null)" \
	"$(claim 81.2 fail s predicted)" \
	"$(claim 81.3 fail s not-predicted)" \
	"$(claim 81.4 inconclusive s null 'the interval straddles')" \
	"$(claim 81.5 pass s null)" \
	"$(claim 81.6 pass s null)" \
	"$(claim 81.7 pass s null)" \
	"$(claim 81.8 pass s null)" \
	"$(claim 81.9 fail null null)" \
	"$(claim 81.10 error s null 'the lab broke')" \
	"$(claim 81.11 skip s null '1 node')" \
	"$(claim 81.12 fail s null)" \
	"$(claim 81.13 fail s predicted)" \
	"$(claim 81.14 pass s null)"
fake_lab sabotage lab-81 true \
	"$(claim 81.1 fail s null)" \
	"$(claim 81.2 fail s not-predicted)" \
	"$(claim 81.3 fail s not-predicted)" \
	"$(claim 81.4 fail s null)" \
	"$(claim 81.5 pass s null)" \
	"$(claim 81.6 fail s predicted)" \
	"$(claim 81.7 skip s null '1 node')" \
	"$(claim 81.8 inconclusive s null 'straddles')" \
	"$(claim 81.9 pass null null)" \
	"$(claim 81.10 fail s null)" \
	"$(claim 81.11 skip s null '1 node')" \
	"$(claim 81.12 fail s null)" \
	"$(claim 81.13 pass s null)" \
	"$(claim 81.14 pass s predicted)"
fake_lab normal lab-82 false "$(claim 82.1 pass s null)"
fake_lab sabotage lab-82 false "$(claim 82.1 fail s null)"
fake_lab normal lab-83 false "$(claim 83.1 pass s null)"
printf '#!/bin/sh\nexit 1\n' >"$tmp/sabotage/lab-83"
chmod +x "$tmp/sabotage/lab-83"
fake_lab normal lab-84 false "$(claim 84.1 pass s null)"

"$check" "$tmp/normal" "$tmp/sabotage" >"$tmp/out" 2>&1
rc=$?
# with defects the checker keeps the records for a look: not here
kept=$(sed -n 's/.*(records in \(\/tmp\/dmalab-sabotage-[A-Za-z0-9]*\))$/\1/p' "$tmp/out")
[ -n "$kept" ] && [ -d "$kept" ] && rm -rf "$kept"

expect() { # expect PATTERN WHAT
	checks=$((checks + 1))
	if ! grep -q -- "$1" "$tmp/out"; then
		echo "test-sabotage-check: FAIL: $2 (no line matching '$1')"
		failed=$((failed + 1))
	fi
}
expect '^proven   lab-81 81.1: normal build passes; the sabotage makes it fail' 'pass / fail is proven'
expect '^proven   lab-81 81.2: normal build fails as the predicted erratum' 'predicted / fail is proven'
expect '^unproven lab-81 81.3: cannot be proven here: the normal build fails it (erratum: not-predicted): the sabotage proves nothing' 'an unexplained normal fail proves nothing'
expect '^unproven lab-81 81.12: cannot be proven here: the normal build fails it (erratum: none listed)' 'a normal fail without erratum proves nothing'
expect '^unproven lab-81 81.4: cannot be proven here: normal build: inconclusive (the interval straddles)' 'a normal inconclusive cannot be proven'
expect "^DEFECT   lab-81 81.5: with the sabotage the claim is 'pass', not 'fail' (sabotage: s)" 'a sabotage pass is a defect'
expect '^DEFECT   lab-81 81.6: with the sabotage it fails only as the predicted erratum' 'a sabotage fail as the predicted erratum is a defect'
expect '^proven   lab-81 81.13: normal build fails as the predicted erratum; the sabotage moves it off the erratum: it passes' 'predicted / pass is proven'
expect "^DEFECT   lab-81 81.14: with the sabotage the claim is 'pass', not 'fail'" 'pass / pass is still a defect'
expect '^unproven lab-81 81.7: cannot be proven here: sabotage build: skip (single-numa-node: 1 node)' 'a sabotage skip cannot be proven'
expect "^DEFECT   lab-81 81.8: with the sabotage the claim is 'inconclusive'" 'a sabotage inconclusive is a defect'
expect "^DEFECT   lab-81 81.10: normal build: status 'error'" 'a normal error is a defect'
expect '^unproven lab-81 81.11: cannot be proven here: both builds: skip' 'both skipping cannot be proven'
expect '^DEFECT   lab-82: the sabotage build.s record says sabotage: false' 'a sabotage dir holding a normal build is a defect'
expect '^DEFECT   lab-83: the sabotage build left no record' 'a lab without a record is a defect'
expect '^DEFECT   lab-84: no sabotage build in' 'a lab without a sabotage build is a defect'
expect '^sabotage: 3 proven to fail, 5 cannot be proven on this machine, 8 defects (records in ' 'the totals'
checks=$((checks + 2))
if grep -q '81\.9' "$tmp/out"; then
	echo "test-sabotage-check: FAIL: a claim without a sabotage text was judged"
	failed=$((failed + 1))
fi
if [ "$rc" -ne 1 ]; then
	echo "test-sabotage-check: FAIL: exit status $rc with defects, want 1"
	failed=$((failed + 1))
fi

# all good: exit 0 and the records' directory removed
rm -f "$tmp"/normal/* "$tmp"/sabotage/*
fake_lab normal lab-85 false "$(claim 85.1 pass s null)" "$(claim 85.2 skip s null x)"
fake_lab sabotage lab-85 true "$(claim 85.1 fail s null)" "$(claim 85.2 skip s null x)"
"$check" "$tmp/normal" "$tmp/sabotage" >"$tmp/out" 2>&1
rc=$?
expect '^sabotage: 1 proven to fail, 1 cannot be proven on this machine, 0 defects$' 'the totals of a clean run'
checks=$((checks + 1))
[ "$rc" -eq 0 ] || { echo "test-sabotage-check: FAIL: exit status $rc on a clean run"; failed=$((failed + 1)); }

if [ "$failed" -ne 0 ]; then
	echo "test-sabotage-check: $failed failed; its output was:"
	sed 's/^/    /' "$tmp/out"
	exit 1
fi
echo "test-sabotage-check: $checks checks passed"
