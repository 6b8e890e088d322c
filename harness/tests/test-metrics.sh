#!/bin/sh
# test-metrics.sh - the Prometheus text files: `dmalab metrics` of an H200
# run (fixture), of a host name that needs escaping, and of a real `dmalab
# check` here (RESULTS/dmalab.prom), and `dmalab preflight --metrics`, each
# accepted by promtool (check metrics: the parser and its lint) and by a
# parser of our own that also checks what promtool does not: every sample's
# family declared by HELP and TYPE before it, one verdict per claim, as
# many claims as results.json has; bad input exits 2 with one line.
# shellcheck disable=SC2015 # ok and bad return 0
set -u
BUILD=${BUILD:-build}
D=$BUILD/dmalab
FIX=harness/tests/fixtures/compare/node-h200.json
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-metrics.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

PROMTOOL=$(command -v promtool || echo "$BUILD/tools/promtool")
[ -x "$PROMTOOL" ] || { echo "test-metrics: no promtool (harness/deps.sh metrics)" >&2; exit 1; }

# parse FILE: exit 0 when every line is a comment of a declared family or a
# sample `name{label="value",...} number` of one; prints the claims' verdict count
parse() {
	awk '
	/^# HELP / { help[$3] = 1; next }
	/^# TYPE / { if (!help[$3] || $4 != "gauge") { print "bad TYPE: " $0; bad = 1 }
		type[$3] = 1; next }
	/^#/ { print "stray comment: " $0; bad = 1; next }
	{
		name = $0; sub(/\{.*/, "", name)
		if (name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ || !type[name]) {
			print "undeclared or bad name: " $0; bad = 1
		}
		line = $0; sub(/^[^{]*\{/, "", line)
		labels = line; sub(/\} [^ ]+$/, "", labels)
		value = line; sub(/.*\} /, "", value)
		if (value !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) { print "bad value: " $0; bad = 1 }
		gsub(/\\./, "", labels) # escaped characters
		if (labels !~ /^([a-z_]+="[^"]*"(,|$))+$/) { print "bad labels: " $0; bad = 1 }
		if (name == "dmalab_claim_verdict" && value == 1) ones++
	}
	END { print ones + 0; exit bad }' "$1"
}

# accepted NAME FILE CLAIMS: promtool and the parser accept FILE, with CLAIMS
# verdict series at 1 (- to skip that count)
accepted() {
	if "$PROMTOOL" check metrics <"$2" >"$tmp/$1.lint" 2>&1; then ok; else
		bad "$1: promtool: $(head -c 400 "$tmp/$1.lint")"
	fi
	n=$(parse "$2") && ok || bad "$1: parser: $n"
	[ "$3" = - ] || { [ "$(echo "$n" | tail -n 1)" = "$3" ] && ok ||
		bad "$1: $n claims with a verdict, want $3"; }
}

claims_in() { # the claims of a results.json
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(len(l.get("claims", [])) for l in d["labs"]))' "$1"
}

# 1. An H200 run (fixture): every claim once, promtool and the parser agree.
"$D" metrics "$FIX" >"$tmp/h200.prom" && ok || bad "metrics of the fixture: exit $?"
accepted h200 "$tmp/h200.prom" "$(claims_in "$FIX")"
grep -q '^dmalab_figure{host="h200-template",gpu_uuid="GPU-5e2a7c41-0d3b-4f7e-9a61-2c8b0e4d1f00"'\
',gpu_model="NVIDIA H200",lab="02",figure="02.1",unit="x"} 7.7473141$' "$tmp/h200.prom" && ok ||
	bad "h200: no 02.1 figure with its GPU's labels"

# 2. A host name with a quote, a backslash: escaped, still accepted.
sed 's/"h200-template"/"rack\\\\1 \\"a\\""/' "$FIX" >"$tmp/odd.json"
"$D" metrics "$tmp/odd.json" --out "$tmp/odd.prom" && ok || bad "odd host: exit $?"
accepted odd "$tmp/odd.prom" -
grep -q 'host="rack\\\\1 \\"a\\""' "$tmp/odd.prom" && ok ||
	bad "odd host: $(head -3 "$tmp/odd.prom")"
[ "$(ls "$tmp" | grep -c '^odd\.prom.')" = 0 ] && ok ||
	bad "odd host: a temporary file was left behind: $(ls "$tmp")"

# 3. A real run here writes RESULTS/dmalab.prom beside results.json.
if "$D" check --results "$tmp/run" 01 >"$tmp/run.out" 2>&1 || [ -f "$tmp/run/results.json" ]; then
	[ -f "$tmp/run/dmalab.prom" ] && ok || bad "check: no dmalab.prom in $(ls "$tmp/run")"
	accepted run "$tmp/run/dmalab.prom" "$(claims_in "$tmp/run/results.json")"
else
	bad "check 01: $(tail -3 "$tmp/run.out")"
fi

# 4. Preflight's gauges.
"$D" preflight --sysfs-root "$tmp/none" --memlock-min 4K --brief --metrics "$tmp/pf.prom" \
	>/dev/null 2>&1
accepted preflight "$tmp/pf.prom" -
grep -q '^dmalab_preflight_status{host="[^"]*"} 0$' "$tmp/pf.prom" &&
	grep -q '^dmalab_preflight_check{host="[^"]*",check="memlock",gpu="",status="pass"} 1$' \
		"$tmp/pf.prom" && ok || bad "preflight: $(head -c 600 "$tmp/pf.prom")"

# 5. Bad input: exit 2, one line on stderr naming it, no file written; a lab
# listed twice would give each of its series twice (the collector drops the file)
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["labs"].append(d["labs"][0])
json.dump(d, open(sys.argv[2], "w"))' "$FIX" "$tmp/twice.json"
for a in "$tmp/absent.json" "$FIX $FIX" "$FIX --out $tmp/no/dir/x.prom" "--bogus" "$FIX --out" \
	"$tmp/twice.json"; do
	# shellcheck disable=SC2086 # each case is its words
	"$D" metrics $a >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && [ ! -e "$tmp/no" ] && ok ||
		bad "metrics $a: exit $rc, stderr '$(cat "$tmp/bad.err")'"
done
# --out naming the results file read: refused, the run left as it was
cp "$FIX" "$tmp/run.json"
"$D" metrics "$tmp/run.json" --out "$tmp/run.json" >/dev/null 2>"$tmp/bad.err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && cmp -s "$FIX" "$tmp/run.json" && ok ||
	bad "metrics RUN --out RUN: $(cat "$tmp/bad.err"); $(head -c 60 "$tmp/run.json")"
# a file that cannot be written: named as given (never its temporary file), with why
"$D" metrics "$FIX" --out "$tmp/no/dir/x.prom" >/dev/null 2>"$tmp/bad.err"
grep -qx "dmalab: --out '$tmp/no/dir/x.prom': cannot write: No such file or directory" \
	"$tmp/bad.err" && ok || bad "metrics --out into a missing folder: $(cat "$tmp/bad.err")"
# a file beside it of the user's, named as a fixed temporary file would be: left alone
echo mine >"$tmp/odd.prom.tmp"
"$D" metrics "$FIX" --out "$tmp/odd.prom" >/dev/null && [ "$(cat "$tmp/odd.prom.tmp")" = mine ] &&
	ok || bad "metrics --out FILE: FILE.tmp of the user's overwritten"
"$D" preflight --metrics "$tmp/no/dir/x.prom" >/dev/null 2>"$tmp/bad.err"
[ $? = 2 ] && grep -q -- "--metrics '$tmp/no/dir/x.prom'" "$tmp/bad.err" && ok ||
	bad "preflight --metrics into a missing directory: $(cat "$tmp/bad.err")"

echo "test-metrics: $pass passed, $fail failed"
[ "$fail" = 0 ]
