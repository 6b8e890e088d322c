#!/bin/sh
# test-sabotage-check.sh - sabotage-check against fake labs whose records
# are written by hand: every verdict pair it must call proven, unproven
# (cannot be proven here) or DEFECT, each claim judged on its own knob's
# run alone.  Run through selftest.sh (BUILD set).
set -u
BUILD=${BUILD:-build}
check="$BUILD/tests/sabotage-check"
[ -x "$check" ] || { echo "test-sabotage-check: $check is not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-sabcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/normal" "$tmp/sabotage" "$tmp/data"
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

# fake_sab_lab NAME KNOBS CLAIM... : a sabotage build whose --describe lists
# the claims and KNOBS (a JSON array; empty: no "knobs" key).  Run with
# DMALAB_SABOTAGE=ENV it writes what fake_run NAME ENV left (none: no
# record); each run's DMALAB_SABOTAGE is added to $tmp/data/NAME/runs.
fake_sab_lab() {
	name=$1 knobs=$2
	shift 2
	d="$tmp/data/$name"
	mkdir -p "$d"
	: >"$d/runs"
	claims=$(printf '%s,' "$@")
	printf '{"schema": "dmalab-describe/1", "id": "%s", "sabotage": true, "claims": [%s]%s}\n' \
		"${name#lab-}" "${claims%,}" "${knobs:+, \"knobs\": $knobs}" >"$d/describe.json"
	cat >"$tmp/sabotage/$name" <<EOF
#!/bin/sh
[ "\$1" = --describe ] && exec cat "$d/describe.json"
while [ \$# -gt 0 ]; do
	[ "\$1" = --json ] && json=\$2
	shift
done
echo "\${DMALAB_SABOTAGE-unset}" >>"$d/runs"
rec="$d/rec.\$(echo "\${DMALAB_SABOTAGE-}" | tr ' ' _)"
[ -f "\$rec" ] && cp "\$rec" "\$json"
exit 0
EOF
	chmod +x "$tmp/sabotage/$name"
}

# fake_run NAME ENV SABOTAGE(true|false) CLAIM... : the record NAME's
# sabotage build writes when DMALAB_SABOTAGE is ENV.
fake_run() {
	name=$1 env=$2 flag=$3
	shift 3
	claims=$(printf '%s,' "$@")
	printf '{"lab": "%s", "status": "pass", "sabotage": %s, "claims": [%s]}\n' \
		"${name#lab-}" "$flag" "${claims%,}" \
		>"$tmp/data/$name/rec.$(echo "$env" | tr ' ' _)"
}

# claim ID STATUS SABOTAGE_TEXT(or null) ERRATUM_STATUS(or null) [DETAIL]
claim() {
	sab=null err=null
	[ "$3" != null ] && sab="\"$3\""
	[ "$4" != null ] && err="{\"status\": \"$4\", \"expect\": \"ge 3\"}"
	printf '{"id": "%s", "status": "%s", "sabotage": %s, "erratum": %s, ' \
		"$1" "$2" "$sab" "$err"
	printf '"reason": "%s", "detail": "%s"}' \
		"$([ "$2" = skip ] && echo single-numa-node)" "${5:-}"
}

# lab-81: every verdict pair, all its claims behind one knob
set -- \
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
fake_lab normal lab-81 false "$@"
ids81='81.1 81.2 81.3 81.4 81.5 81.6 81.7 81.8 81.10 81.11 81.12 81.13 81.14'
fake_sab_lab lab-81 "[{\"name\": \"K.all\", \"claims\": [\"$(echo "$ids81" |
	sed 's/ /", "/g')\"]}]" "$@"
fake_run lab-81 "$ids81" true \
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
fake_sab_lab lab-82 '[{"name": "K.a", "claims": ["82.1"]}]' "$(claim 82.1 pass s null)"
fake_run lab-82 82.1 false "$(claim 82.1 fail s null)"
fake_lab normal lab-83 false "$(claim 83.1 pass s null)"
printf '#!/bin/sh\nexit 1\n' >"$tmp/sabotage/lab-83"
chmod +x "$tmp/sabotage/lab-83"
fake_lab normal lab-84 false "$(claim 84.1 pass s null)"
# lab-86: one knob per claim; each claim must fail in its own knob's run
set -- "$(claim 86.1 pass s null)" "$(claim 86.2 pass s null)" "$(claim 86.3 pass s null)" \
	"$(claim 86.4 pass s null)" "$(claim 86.5 pass s null)"
fake_lab normal lab-86 false "$@"
fake_sab_lab lab-86 '[{"name": "K.a", "claims": ["86.1"]}, {"name": "K.b", "claims": ["86.2"]},
	{"name": "K.c", "claims": ["86.4", "86.5"]}, {"name": "K.d", "claims": ["86.4", "86.5"]}]' \
	"$@"
# K.a's run breaks 86.2 too, K.b's does not: 86.2 fails only through another
# knob; 86.3, which no knob names, fails in every run
fake_run lab-86 86.1 true "$(claim 86.1 fail s null)" "$(claim 86.2 fail s null)" \
	"$(claim 86.3 fail s null)" "$(claim 86.4 pass s null)" "$(claim 86.5 pass s null)"
fake_run lab-86 86.2 true "$(claim 86.1 fail s null)" "$(claim 86.2 pass s null)" \
	"$(claim 86.3 fail s null)" "$(claim 86.4 pass s null)" "$(claim 86.5 pass s null)"
fake_run lab-86 '86.4 86.5' true "$(claim 86.1 pass s null)" "$(claim 86.2 pass s null)" \
	"$(claim 86.3 fail s null)" "$(claim 86.4 fail s null)" "$(claim 86.5 fail s null)"
fake_run lab-86 '' true "$(claim 86.1 fail s null)" "$(claim 86.2 fail s null)" \
	"$(claim 86.3 fail s null)" "$(claim 86.4 fail s null)" "$(claim 86.5 fail s null)"
# lab-87: its knob's run leaves no record; lab-88: its --describe has no knobs
fake_lab normal lab-87 false "$(claim 87.1 pass s null)"
fake_sab_lab lab-87 '[{"name": "K.a", "claims": ["87.1"]}]' "$(claim 87.1 pass s null)"
fake_lab normal lab-88 false "$(claim 88.1 pass s null)"
fake_sab_lab lab-88 '' "$(claim 88.1 pass s null)"
fake_run lab-88 '' true "$(claim 88.1 fail s null)"

"$check" "$tmp/normal" "$tmp/sabotage" >"$tmp/out" 2>"$tmp/err"
rc=$?
# with defects the checker keeps the records for a look: not here
kept=$(sed -n 's/.*(records in \(\/tmp\/dmalab-sabotage-[A-Za-z0-9]*\))$/\1/p' "$tmp/out")
[ -n "$kept" ] && [ -d "$kept" ] && rm -rf "$kept"

expect() { # expect PATTERN WHAT [FILE]
	checks=$((checks + 1))
	if ! grep -q -- "$1" "${3:-$tmp/out}"; then
		echo "test-sabotage-check: FAIL: $2 (no line matching '$1')"
		failed=$((failed + 1))
	fi
}
expect '^proven   lab-81 81.1 by K.all: normal build passes; the sabotage makes it fail' \
	'pass / fail is proven'
expect '^proven   lab-81 81.2 by K.all: normal build fails as the predicted erratum' \
	'predicted / fail is proven'
pat='^unproven lab-81 81.3 by K.all: cannot be proven here: the normal build fails it'
expect "$pat (erratum: not-predicted): the sabotage proves nothing" \
	'an unexplained normal fail proves nothing'
pat='^unproven lab-81 81.12 by K.all: cannot be proven here: the normal build fails it'
expect "$pat (erratum: none listed)" 'a normal fail without erratum proves nothing'
pat='^unproven lab-81 81.4 by K.all: cannot be proven here: normal build: inconclusive'
expect "$pat (the interval straddles)" 'a normal inconclusive cannot be proven'
pat="^DEFECT   lab-81 81.5 by K.all: with the sabotage the claim is 'pass', not 'fail'"
expect "$pat (sabotage: s)" 'a sabotage pass is a defect'
expect '^DEFECT   lab-81 81.6 by K.all: with the sabotage it fails only as the predicted erratum' \
	'a sabotage fail as the predicted erratum is a defect'
pat='^proven   lab-81 81.13 by K.all: normal build fails as the predicted erratum; the sabotage'
expect "$pat moves it off the erratum: it passes" 'predicted / pass is proven'
expect "^DEFECT   lab-81 81.14 by K.all: with the sabotage the claim is 'pass', not 'fail'" \
	'pass / pass is still a defect'
pat='^unproven lab-81 81.7 by K.all: cannot be proven here: sabotage build: skip'
expect "$pat (single-numa-node: 1 node)" 'a sabotage skip cannot be proven'
expect "^DEFECT   lab-81 81.8 by K.all: with the sabotage the claim is 'inconclusive'" \
	'a sabotage inconclusive is a defect'
expect "^DEFECT   lab-81 81.10 by K.all: normal build: status 'error'" 'a normal error is a defect'
expect '^unproven lab-81 81.11 by K.all: cannot be proven here: both builds: skip' \
	'both skipping cannot be proven'
expect '^DEFECT   lab-82: the sabotage build (K.a).s record says sabotage: false' \
	'a sabotage dir holding a normal build is a defect'
expect '^DEFECT   lab-83: the sabotage build.s --describe gave no JSON' \
	'a lab without a --describe is a defect'
expect '^DEFECT   lab-84: no sabotage build in' 'a lab without a sabotage build is a defect'
expect '^proven   lab-86 86.1 by K.a: normal build passes; the sabotage makes it fail' \
	'a claim its own knob breaks is proven'
expect "^DEFECT   lab-86 86.2 by K.b: with the sabotage the claim is 'pass', not 'fail'" \
	'a claim only another knob breaks is a defect'
expect '^DEFECT   lab-86 86.3: no knob breaks it (sabotage: s)' \
	'a claim with a sabotage text and no knob is a defect'
expect '^proven   lab-86 86.4 by K.c+K.d: ' 'knobs with the same claims share one run'
expect '^proven   lab-86 86.5 by K.c+K.d: ' 'a knob naming two claims decides both'
expect '^DEFECT   lab-87: the sabotage build (K.a) left no record' \
	'a knob run without a record is a defect'
expect '^DEFECT   lab-88: its --describe lists no knobs' 'a --describe without knobs is a defect'
expect '^sabotage: 6 proven to fail, 5 cannot be proven on this machine, 12 defects (records in ' \
	'the totals'
expect '^sabotage-check: lab-86: the normal build, then 3 sabotage runs' \
	'a progress line per lab' "$tmp/err"
checks=$((checks + 4))
if grep -q '81\.9' "$tmp/out"; then
	echo "test-sabotage-check: FAIL: a claim without a sabotage text was judged"
	failed=$((failed + 1))
fi
if [ "$rc" -ne 1 ]; then
	echo "test-sabotage-check: FAIL: exit status $rc with defects, want 1"
	failed=$((failed + 1))
fi
# one run per distinct knob, each with its own claims: never all knobs at once
runs=$(sort "$tmp/data/lab-86/runs" | tr '\n' '|')
if [ "$runs" != '86.1|86.2|86.4 86.5|' ]; then
	echo "test-sabotage-check: FAIL: lab-86's sabotage runs were '$runs'," \
		"want '86.1|86.2|86.4 86.5|'"
	failed=$((failed + 1))
fi
if [ -s "$tmp/data/lab-88/runs" ]; then
	echo "test-sabotage-check: FAIL: a lab without knobs was run with every knob broken"
	failed=$((failed + 1))
fi

# all good: exit 0 and the records' directory removed
rm -f "$tmp"/normal/* "$tmp"/sabotage/*
set -- "$(claim 85.1 pass s null)" "$(claim 85.2 skip s null x)"
fake_lab normal lab-85 false "$@"
fake_sab_lab lab-85 '[{"name": "K.a", "claims": ["85.1", "85.2"]}]' "$@"
fake_run lab-85 '85.1 85.2' true "$(claim 85.1 fail s null)" "$(claim 85.2 skip s null x)"
"$check" "$tmp/normal" "$tmp/sabotage" >"$tmp/out" 2>&1
rc=$?
expect '^sabotage: 1 proven to fail, 1 cannot be proven on this machine, 0 defects$' \
	'the totals of a clean run'
checks=$((checks + 1))
[ "$rc" -eq 0 ] || {
	echo "test-sabotage-check: FAIL: exit status $rc on a clean run"
	failed=$((failed + 1))
}

if [ "$failed" -ne 0 ]; then
	echo "test-sabotage-check: $failed failed; its output was:"
	sed 's/^/    /' "$tmp/out"
	exit 1
fi
echo "test-sabotage-check: $checks checks passed"
