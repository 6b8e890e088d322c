#!/bin/sh
# test-bench.sh - `dmalab bench` (make bench) on a fixture results.json:
# the table against its golden file (wall time, series once each, samples,
# CV, the 95 % interval's width, noisy, the base run's ratio; a base unlike the
# run, --quick or other labs, warned of, all's ratio over the labs both ran), the H200
# fixture read without an error with its total, and exit 2 on files that are
# no results.json or an unfinished run's.  Python only builds fixtures.  Run from the repository
# root after make (make test-bench).
set -u
py=${DMALAB_PYTHON:-python3}
dmalab=${BUILD:-build}/dmalab
fx=harness/tests/fixtures/bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

check() { # check NAME COND-EXIT
	if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi
}

"$dmalab" bench "$fx/results.json" --series --base "$fx/results-base.json" \
	>"$tmp/out" 2>"$tmp/err"
check "dmalab bench on the fixture exits 0" $?
diff -u harness/tests/golden/bench.txt "$tmp/out" >"$tmp/diff"
check "its table is the golden one (harness/tests/golden/bench.txt)" $?
[ -s "$tmp/diff" ] && sed 's/^/# /' "$tmp/diff"

"$dmalab" bench plots/tests/fixtures/results-h200.json >"$tmp/h200" 2>&1
check "the H200 fixture: exit 0" $?
grep -q '^02   pass            19.61     159     1127       7/7/21' "$tmp/h200"
check "the H200 fixture: lab-02's wall time, series and samples" $?
grep -q '^all                  44.55     245     1733' "$tmp/h200"
check "the H200 fixture: the total" $?

# a point's x: a size as the kit writes sizes elsewhere (1.5 GiB, 1000 B), another unit as unit=x
"$py" - "$fx/results.json" "$tmp/sizes.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["labs"][0]["series"]["t"]
s["points"][0]["x"], s["points"][1]["x"] = 1536 << 20, 1000
d["labs"][0]["series"]["u"] = dict(s, x_unit="threads", points=[dict(s["points"][0], x=4)])
json.dump(d, open(sys.argv[2], "w"))
PY
"$dmalab" bench "$tmp/sizes.json" --series >"$tmp/sizes" 2>&1 &&
	grep -q '^       t @ 1.5 GiB ' "$tmp/sizes" && grep -q '^       t @ 1000 B ' "$tmp/sizes" &&
	grep -q '^       u @ threads=4 ' "$tmp/sizes"
check "a point's x: 1.5 GiB, 1000 B, threads=4" $?

# a file make lab-NN merged into (its runner time below the labs' sum): no runner time claimed
"$py" - "$fx/results.json" "$tmp/merged.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["duration_s"] = 0.03
json.dump(d, open(sys.argv[2], "w"))
PY
"$dmalab" bench "$tmp/merged.json" >"$tmp/merged" 2>&1 &&
	grep -q "more than one run .*the last run took 0.0 s" "$tmp/merged" &&
	! grep -q "^runner's wall time" "$tmp/merged"
check "a merged file: its labs from more than one run, no runner's wall time" $?

# a file without the runner's duration_s: '-', not the labs' sum passed off as the runner's
"$py" - "$fx/results.json" "$tmp/nodur.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["duration_s"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$dmalab" bench "$tmp/nodur.json" 2>&1 | grep -q "^runner's wall time: - s"
check "no duration_s: the runner's wall time is '-'" $?

# --phases: each lab's longest steps, longest first, with their share of the lab
"$py" - "$fx/results.json" "$tmp/phases.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["labs"][0]["duration_s"] = 10.0
d["labs"][0]["phases"] = [{"what": "start", "start_s": 0, "s": 1.0},
                          {"what": "sweep 1 GiB", "start_s": 1.0, "s": 6.0},
                          {"what": "verify", "start_s": 7.0, "s": 3.0}]
json.dump(d, open(sys.argv[2], "w"))
PY
"$dmalab" bench "$tmp/phases.json" --phases 2 >"$tmp/ph" 2>&1
check "--phases 2: exit 0" $?
grep -A2 "^$("$py" -c \
	'import json,sys; print(json.load(open(sys.argv[1]))["labs"][0]["id"])' \
	"$tmp/phases.json") " "$tmp/ph" |
	sed -n '2,3p' | tr -s ' ' >"$tmp/ph2"
printf ' 6.00 s 60%% sweep 1 GiB\n 3.00 s 30%% verify\n' | diff - "$tmp/ph2" >/dev/null
check "--phases 2: the two longest steps, longest first, with their share" $?
"$dmalab" bench "$fx/results.json" --phases >"$tmp/ph0" 2>&1
check "--phases on a run without phases: exit 0" $?

# --base of an unlike run (--quick, lab 02 missing, lab 05 only there): one warning
# line naming both differences, lab 02 without a ratio, all's ratio over lab 01 alone
"$py" - "$fx/results-base.json" "$tmp/unlike.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["quick"] = True
other = dict(d["labs"][1], id="05", duration_s=7.0)
d["labs"] = [d["labs"][0], other]
json.dump(d, open(sys.argv[2], "w"))
PY
"$dmalab" bench "$fx/results.json" --base "$tmp/unlike.json" >"$tmp/unlike" 2>"$tmp/unlike.err"
check "--base of an unlike run: exit 0" $?
unlike="x column compares unlike runs (.*results.json' ran without --quick, --base"
unlike="$unlike '.*unlike.json' with; labs only '.*results.json' ran: 02; labs only"
unlike="$unlike --base '.*unlike.json' ran: 05); the all row's x is over the labs both ran"
[ "$(wc -l <"$tmp/unlike.err")" -eq 1 ] && grep -q "$unlike" "$tmp/unlike.err"
check "--base of an unlike run: one warning line naming --quick and the labs" $?
grep -q '^02   skip .*        -      -$' "$tmp/unlike" &&
	grep -q '^all  .*     3.00   0.50  (base s, x: the labs both ran, 01)$' "$tmp/unlike"
check "--base of an unlike run: no ratio for lab 02, all over the lab both ran (01)" $?
"$dmalab" bench "$fx/results.json" --base "$fx/results-base.json" >/dev/null 2>"$tmp/like.err"
[ ! -s "$tmp/like.err" ]
check "--base of a like run: no warning" $?

printf 'not json' >"$tmp/bad.json"
"$dmalab" bench "$tmp/bad.json" >/dev/null 2>"$tmp/err1"
check "a file that is not JSON: exit 2" "$([ $? -eq 2 ]; echo $?)"
grep -q 'not a dmalab results.json' "$tmp/err1"
check "a file that is not JSON: said so" $?
printf '{"schema": "x"}' >"$tmp/nolabs.json"
"$dmalab" bench "$tmp/nolabs.json" >/dev/null 2>"$tmp/err2"
check "JSON without labs: exit 2" "$([ $? -eq 2 ]; echo $?)"
grep -q 'not a dmalab results.json' "$tmp/err2"
check "... saying why" $?
"$dmalab" bench --bogus >/dev/null 2>&1
check "an unknown option: exit 2" "$([ $? -eq 2 ]; echo $?)"

# bad input: one line naming the bad value, exit 2, nothing more
# (make's own "*** [bench] Error 2" line aside)
refused() { # refused NAME PATTERN CMD...: exit 2, one line on stderr matching PATTERN
	name=$1 pattern=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/rerr"
	rc=$?
	[ "$rc" -eq 2 ] &&
		[ "$(grep -vc '^make\(\[[0-9]*\]\)\{0,1\}: \*\*\* \[' "$tmp/rerr")" -eq 1 ] &&
		grep -q -- "$pattern" "$tmp/rerr"
	check "$name: exit 2, one line" $?
	[ "$rc" -eq 2 ] || sed 's/^/# /' "$tmp/rerr" | tail -n 3
}

# an unknown letter in a cluster is named, not the argument before the cluster
refused "an unknown letter inside -xq" "unknown option '-x' (see dmalab bench --help)" \
	"$dmalab" bench --series -xq "$fx/results.json"
refused "an unknown letter alone" "unknown option '-q' (see dmalab bench --help)" \
	"$dmalab" bench --series -q "$fx/results.json"
refused "a flag given a value" "unknown option '--series=3'" \
	"$dmalab" bench --series=3 "$fx/results.json"
refused "a flag given a value, a cluster after it" "unknown option '--series=3'" \
	"$dmalab" bench --series=3 -s "$fx/results.json"
refused "an unknown letter after a file" "unknown option '-q' (see dmalab bench --help)" \
	"$dmalab" bench "$fx/results.json" -qs
refused "--base without its file" "option '--base' needs a value" "$dmalab" bench --base

# an unfinished run (its runner killed, or its last save failed): refused as
# metrics, compare, baseline, history and grade --from refuse it, as a --base too
for st in running incomplete; do
	"$py" - "$fx/results.json" "$tmp/$st.json" "$st" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["status"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
	refused "a results.json whose status is $st" "$st.json: an unfinished run (status '$st')" \
		"$dmalab" bench "$tmp/$st.json"
	refused "a --base whose status is $st" "$st.json: an unfinished run" \
		"$dmalab" bench "$fx/results.json" --base "$tmp/$st.json"
done

"$dmalab" bench --help | grep -A1 '^exit: .*2 a file' | grep -q 'unfinished run'
check "--help: exit 2 for an unfinished run, as it is refused above" $?

"$py" -c 'print("[" * 200000 + "]" * 200000)' >"$tmp/deep.json"
refused "a results file nested 200000 deep" "deep.json: .*nesting deeper than" \
	"$dmalab" bench "$tmp/deep.json"
refused "--phases abc" "--phases 'abc': want a whole number" \
	"$dmalab" bench "$fx/results.json" --phases abc
refused "make bench PHASES=abc" "--phases 'abc'" \
	make --no-print-directory -s bench RESULTS="$fx" PHASES=abc
refused "make bench SERIES=abc" "SERIES='abc': use SERIES=1" \
	make --no-print-directory -s bench RESULTS="$fx" SERIES=abc
make --no-print-directory -s bench RESULTS="$fx" SERIES=1 | grep -q '^       '
check "make bench SERIES=1 lists the series" $?

[ "$fail" -eq 0 ] && echo "test-bench: ok" || echo "test-bench: FAILED"
exit "$fail"
