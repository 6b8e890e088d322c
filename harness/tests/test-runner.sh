#!/bin/sh
# test-runner.sh - the dmalab runner against the fake labs (lab-88..99):
# golden TAP, human and JSON output, exit codes, prove, timeouts, `run`
# updating results.json, Ctrl-C/SIGTERM/SIGHUP, usage errors, and no process
# left behind; known errata only as the lab predicts them, inconclusive labs,
# DMALAB_ERRATA, `dmalab claims` with its golden check, and `dmalab messages`.
#
#   BUILD=build sh harness/tests/test-runner.sh
#   UPDATE_GOLDEN=1 BUILD=build sh harness/tests/test-runner.sh   (rewrite golden/)
#
# Needs $BUILD/dmalab and $BUILD/fakelabs (make fakelabs); python3 for the
# JSON checks (skipped with a note when absent), prove for the TAP check.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd -P) # as realpath(3) gives DMALAB_ERRATA
golden=$here/golden
errata=$here/fixtures/errata-fake.md
fakes=$BUILD/fakelabs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-runner.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
npass=0
nfail=0

ok() { npass=$((npass + 1)); echo "ok: $1"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $1"; }
check() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3 (got $1, want $2)"; fi; }
has_python() { command -v python3 >/dev/null 2>&1; }

# Durations, dates and temporary paths differ between runs.
normalise() {
	sed -e "s|$tmp/[a-z0-9]*|<results>|g" -e "s|$fakes|<fakelabs>|g" -e "s|$here|<tests>|g" \
	    -e 's/duration_s: [0-9.]*/duration_s: X/' \
	    -e 's/, [0-9.]* s, log /, X s, log /'
}

normalise_json() {
	python3 - "$1" "$tmp" <<'EOF'
import json, re, sys
text = open(sys.argv[1]).read()
text = re.sub(re.escape(sys.argv[2]) + r"/[a-z0-9]*", "<results>", text)
d = json.loads(text)
d["started"] = "X"
d["duration_s"] = 0
d["machine"] = {}
for lab in d["labs"]:
    lab["duration_s"] = 0
    lab.pop("counters_moved", None)  # the GPUs' error counters: only where there are GPUs
    for p in lab.get("phases", []):
        p["start_s"] = p["s"] = 0
print(json.dumps(d, indent=1))
EOF
}

# merge_summary OLD NEW ID: the labs of NEW, whether the others of OLD are
# in it unchanged, whether its totals and questions fit its labs, its status,
# command, and whether the known errata count stayed.
merge_summary() {
	python3 - "$@" <<'EOF'
import json, sys
old, new = (json.load(open(f)) for f in sys.argv[1:3])
kept = [l for l in old["labs"] if l["id"] != sys.argv[3]]
labs, t = new["labs"], new["totals"]
claims = [c for l in labs for c in l["claims"]]
fits = t["labs"]["planned"] == len(labs) and t["claims"]["planned"] == len(claims)
for s in ("pass", "fail", "skip", "inconclusive", "error", "not_run"):
    fits &= t["labs"][s] == sum(l["status"] == s for l in labs)
fits &= sorted(c for q in new["questions"] for c in q["claims"]) == \
    sorted(c["id"] for c in claims if c.get("question"))
print(" ".join(l["id"] for l in labs), all(l in labs for l in kept), fits,
      new["status"], new["command"],
      t["claims"]["known_erratum"] == old["totals"]["claims"]["known_erratum"])
EOF
}

# top_status FILE: the run's status in results.json FILE, "none" without one.
top_status() {
	python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1])).get("status"))
except OSError:
    print("none")' "$1"
}

# aborted_summary FILE SIG: what an aborted run's results.json says.
aborted_summary() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["labs"][0]
named = "got SIG%s and sent the lab SIGTERM" % sys.argv[2] in e["error"]["message"]
print(d["status"], [l["status"] for l in d["labs"]], d["totals"]["claims"]["not_run"],
      e["error"]["kind"], named, e["exit"]["signal"])
EOF
}

# compare NAME FILE: FILE against golden/NAME, or rewrite it.
compare() {
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$2" "$golden/$1"
		ok "golden/$1 rewritten"
	elif diff -u "$golden/$1" "$2" >"$tmp/diff"; then
		ok "output matches golden/$1"
	else
		bad "output differs from golden/$1:"
		head -n 40 "$tmp/diff"
	fi
}

leftovers() {
	ps -eo args= | grep -c "^$fakes/lab-"
}

run_dmalab() { "$BUILD/dmalab" --labs-dir "$fakes" --errata "$errata" "$@"; }

if [ ! -x "$BUILD/dmalab" ] || [ ! -x "$fakes/lab-91" ]; then
	echo "FAIL: build $BUILD/dmalab and the fake labs first (make fakelabs)"
	exit 1
fi
mkdir -p "$golden"

# 1. Every fake lab, TAP: the golden record, exit 1, prove accepts it.
run_dmalab check --results "$tmp/all" --format tap >"$tmp/all.tap" 2>"$tmp/all.err"
check $? 1 "check on every fake lab exits 1"
normalise <"$tmp/all.tap" >"$tmp/all.norm"
compare check-fakelabs.tap "$tmp/all.norm"
check "$(tail -n 1 "$tmp/all.tap")" "summary: 2 passed, 8 failed, 1 skipped, 1 inconclusive" \
	"the last line is the summary, inconclusive labs counted apart"
check "$(leftovers)" 0 "no fake lab process is left (hang and its orphaned helper killed)"
if command -v prove >/dev/null 2>&1; then
	prove -e cat "$tmp/all.tap" >"$tmp/prove.out" 2>&1
	if grep -q "Parse errors" "$tmp/prove.out"; then
		bad "prove reports parse errors"; cat "$tmp/prove.out"
	else
		check "$(grep -c 'Tests=12' "$tmp/prove.out")" 1 "prove parses the TAP: 12 tests"
	fi
else
	echo "note: prove not found, TAP not checked with it"
fi
if has_python; then
	if python3 -m json.tool "$tmp/all/results.json" >/dev/null; then
		ok "results.json parses"
		normalise_json "$tmp/all/results.json" >"$tmp/all.json"
		compare check-fakelabs.json "$tmp/all.json"
	else
		bad "results.json does not parse"
	fi
else
	echo "note: python3 not found, results.json not checked"
fi

# 2. Human format: narrative, claims, errata, no colour off a terminal.
run_dmalab check 91 89 88 92 93 94 95 90 97 98 99 --results "$tmp/human" \
	--format human >"$tmp/human.out" 2>&1
check $? 1 "human format: exit 1"
normalise <"$tmp/human.out" >"$tmp/human.norm"
compare check-fakelabs.human "$tmp/human.norm"
check "$(grep -c "$(printf '\033')" "$tmp/human.out")" 0 "no colour codes into a pipe"

# 3. JSON format: stdout is exactly results.json; the summary goes to stderr.
run_dmalab check 91 93 94 --results "$tmp/json" --format json >"$tmp/json.out" 2>"$tmp/json.err"
check $? 0 "pass, skip and a known erratum: exit 0"
if cmp -s "$tmp/json.out" "$tmp/json/results.json"; then
	ok "--format json prints results.json"
else
	bad "--format json output differs from results.json"
fi
check "$(tail -n 1 "$tmp/json.err")" "summary: 2 passed, 0 failed, 1 skipped" \
	"json format: summary on stderr"
# one lab passed on a terminal is one lab, not "1 labs"
run_dmalab check 91 --results "$tmp/one" --format human >"$tmp/one.out" 2>&1
check "$(tail -n 1 "$tmp/one.out")" "summary: 1 lab passed, 0 failed, 0 skipped" \
	"human format: one lab passed, in the singular"

# 4. run NN: the command line first; only skips: exit 0, said so.
run_dmalab run 93 --results "$tmp/run" --format human >"$tmp/run.out" 2>&1
check $? 0 "run of a skipping lab exits 0"
check "$(sed -n 2p "$tmp/run.out" | normalise)" \
	"\$ <fakelabs>/lab-93 --json <results>/lab-93.json" "run prints the command line"
check "$(grep -c 'nothing was evaluated' "$tmp/run.out")" 1 "all skipped: said so"

# 4b. run NN updates results.json: it replaces its lab, keeps the others as
# written (a known erratum stays known without --errata), recounts the rest.
mkdir -p "$tmp/merge"
cp "$tmp/all/results.json" "$tmp/merge/results.json"
"$BUILD/dmalab" run 94 --labs-dir "$fakes" --results "$tmp/merge" --format tap \
	>"$tmp/merge.out" 2>&1
check $? 0 "run 94 into an existing results.json: exit 0 (its own lab passed)"
if has_python; then
	check "$(merge_summary "$tmp/all/results.json" "$tmp/merge/results.json" 94)" \
		"88 89 90 91 92 93 94 95 96 97 98 99 True True fail dmalab run 94 True" \
		"run merges: every other lab kept as written, totals and questions recounted"
fi
cp "$here/fixtures/grade/results-kit.json" "$tmp/merge/results.json"
run_dmalab run 93 --results "$tmp/merge" --format tap >/dev/null 2>&1
# the built labs' --describe says which claims back which question
"$BUILD/dmalab" grade --from "$tmp/merge/results.json" --labs-dir "$BUILD/labs" \
	--results "$tmp/merge-grade" >"$tmp/merge-grade.out" 2>&1
check $? 0 "grade reads a merged results.json"
# (2 of 2: the questions this fixture decided, less ch1.Q3, whose claims 02.8, 02.9 and
# the planned 16.1, added since, leave fewer than half of them decided)
check "$(grep -c '^overall: 2.00 of 2 (100%)' "$tmp/merge-grade.out")" 1 \
	"grade of a merged file: the kept labs' verdicts count"
echo "not json" >"$tmp/merge/results.json"
run_dmalab run 93 --results "$tmp/merge" --format tap >/dev/null 2>"$tmp/merge.err"
check "$?:$(wc -l <"$tmp/merge.err")" "0:1" "an unusable results.json: one line, exit 0"
check "$(grep -c 'writing a fresh one' "$tmp/merge.err")" 1 "an unusable results.json: said so"
if has_python; then
	check "$(python3 -c 'import json, sys
print([l["id"] for l in json.load(open(sys.argv[1]))["labs"]])' "$tmp/merge/results.json")" \
		"['93']" "an unusable results.json: replaced by one with the lab run"
fi

# 5. A signal during a hang (Ctrl-C, kill, a closed terminal): the lab's
# group is stopped, results say aborted, exit 128 + the signal.  In parallel.
for sig in INT TERM HUP; do
	"$BUILD/dmalab" check 96 99 --labs-dir "$fakes" --results "$tmp/$sig" --format tap \
		>"$tmp/$sig.out" 2>&1 &
	eval "pid_$sig=$!"
done
for sig in INT TERM HUP; do
	for i in 1 2 3 4 5 6 7 8 9 10; do # until lab-96 runs (it hangs)
		grep -q "running lab-96" "$tmp/$sig.out" && break
		sleep 0.2
	done
done
sleep 0.2
for sig in INT TERM HUP; do
	eval "kill -$sig \$pid_$sig"
done
for sig in INT TERM HUP; do
	eval "wait \$pid_$sig"
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
	check $rc $want "SIG$sig: exit $want (128 + the signal)"
	check "$(grep -c "^# aborted (SIG$sig): 1 lab not run\$" "$tmp/$sig.out")" 1 \
		"SIG$sig: the labs not run are counted"
	check "$(tail -n 1 "$tmp/$sig.out")" "summary: 0 passed, 1 failed, 0 skipped" \
		"SIG$sig: the summary is the last line"
	if has_python; then
		check "$(aborted_summary "$tmp/$sig/results.json" "$sig")" \
			"aborted ['error', 'not_run'] 3 aborted True SIGKILL" \
			"SIG$sig: results.json says aborted, names both signals, the rest not_run"
	fi
done
check "$(leftovers)" 0 "after the signals: no fake lab process is left"

# until_lab_96_runs OUT: wait (10 s at most) until the run writing OUT starts lab-96, which hangs.
until_lab_96_runs() {
	for i in $(seq 1 50); do
		grep -q "running lab-96" "$1" && return
		sleep 0.2
	done
}

# 5a. A claim contradicted before the stop: the findings do not claim exit 1.
"$BUILD/dmalab" check 92 96 --labs-dir "$fakes" --results "$tmp/fstop" >"$tmp/fstop.out" 2>&1 &
fpid=$!
until_lab_96_runs "$tmp/fstop.out"
kill -INT "$fpid"
wait "$fpid"
check "$?:$(grep -c 'makes the exit status 1' "$tmp/fstop.out")" "130:0" \
	"Ctrl-C after a contradicted claim: exit 130, not said to be 1"
check "$(grep -c 'contradicted on this machine before the stop: 1 claim' "$tmp/fstop.out")" 1 \
	"... the finding is still shown, as found before the stop"

# 5b. Ctrl-C during `dmalab grade` (its check child and it share the
# terminal's process group): exit 130, nothing graded, grade.json untouched.
mkdir -p "$tmp/gint"
echo '{"sentinel": 1}' >"$tmp/gint/grade.json"
setsid "$BUILD/dmalab" grade --labs-dir "$fakes" --errata "$errata" --results "$tmp/gint" \
	>"$tmp/gint.out" 2>&1 &
gpid=$!
until_lab_96_runs "$tmp/gint.out"
kill -INT "-$gpid"
wait "$gpid"
check $? 130 "Ctrl-C during grade: exit 130"
check "$(cat "$tmp/gint/grade.json")" '{"sentinel": 1}' \
	"Ctrl-C during grade: grade.json left as it was"
check "$(grep -c "nothing graded" "$tmp/gint.out")" 1 \
	"Ctrl-C during grade: it says nothing was graded"
check "$(leftovers)" 0 "after Ctrl-C during grade: no fake lab process is left"

# 5c. The results directory, checked once before any lab runs: a path that
# names a file, a read-only mount, a full disk, a directory another run holds.
echo x >"$tmp/afile"
# the results folder is made, but not the folders above it: a typo there is refused
run_dmalab check 91 --results "$tmp/no-such/r" >"$tmp/rp.out" 2>&1
check "$?:$(cat "$tmp/rp.out")" "2:dmalab: results directory '$tmp/no-such/r': its parent folder \
'$tmp/no-such' does not exist (a typo? create it first)" "--results under a missing folder: 2"
[ ! -e "$tmp/no-such" ] && ok "... and nothing made" || bad "--results under a missing folder: made"
run_dmalab check 91 --results "$tmp/made" >/dev/null 2>&1
check "$?:$(ls -A "$tmp/made" | tr '\n' ' ')" \
	"0:.dmalab-lock dmalab.prom junit.xml lab-91.json lab-91.log results.json " \
	"--results of a new folder in one that exists: made, with what README lists"
run_dmalab check 91 --results "$tmp/afile" >"$tmp/rf.out" 2>&1
check $? 2 "--results naming a file: exit 2"
check "$(cat "$tmp/rf.out")" "dmalab: results directory '$tmp/afile': not a directory" \
	"--results naming a file: one line, before any lab"
mkdir -p "$tmp/ro" "$tmp/full"
if mount -t tmpfs -o size=64k,ro tmpfs "$tmp/ro" 2>/dev/null; then
	run_dmalab check 91 --results "$tmp/ro" >"$tmp/ro.out" 2>&1
	check $? 2 "read-only results directory: exit 2"
	check "$(cat "$tmp/ro.out")" \
		"dmalab: results directory '$tmp/ro' cannot be written: Read-only file system" \
		"read-only results directory: one line, no lab bugs"
	umount "$tmp/ro"
else
	echo "skip: read-only results directory (cannot mount a tmpfs here)"
fi
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	run_dmalab check --results "$tmp/full" >"$tmp/full.out" 2>&1
	check $? 1 "full disk: results.json not written is an error (exit 1)"
	check "$(grep -c '^dmalab: results not saved: ' "$tmp/full.out")" 1 \
		"full disk: the last line says the results were not saved"
	check "$(grep -c 'report card (NOT saved' "$tmp/full.out")" 1 \
		"full disk: the report card does not claim a file"
	if has_python; then # the file the earlier saves left must not pass for a run
		check "$(top_status "$tmp/full/results.json")" incomplete \
			"full disk: results.json says incomplete, not running"
	fi
	umount "$tmp/full"
else
	echo "skip: full results directory (cannot mount a tmpfs here)"
fi
"$BUILD/dmalab" --labs-dir "$fakes" --errata "$errata" check 96 --results "$tmp/busy" \
	>"$tmp/busy1.out" 2>&1 &
bpid=$! # dmalab itself (run_dmalab would put a subshell between)
for i in $(seq 1 50); do
	grep -q "running lab-96" "$tmp/busy1.out" && break
	sleep 0.1
done
run_dmalab check 91 --results "$tmp/busy" >"$tmp/busy2.out" 2>&1
check $? 2 "a second run on a busy results directory: exit 2"
check "$(grep -c "is in use by another dmalab run (pid $bpid)" "$tmp/busy2.out")" 1 \
	"a second run names the run holding the directory"
wait "$bpid"
run_dmalab check 91 --results "$tmp/busy" >/dev/null 2>&1
check $? 0 "once the first run ended, the directory is free again"

# 5d. A results.json of a run that never finished (status running: the
# runner died or the last save failed; incomplete) is no run to grade or
# compare: one line saying so, refused.
if has_python; then
	for st in running incomplete; do
		python3 - "$tmp/json/results.json" "$tmp/$st.json" "$st" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["status"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
		"$BUILD/dmalab" grade --from "$tmp/$st.json" --labs-dir "$fakes" \
			--results "$tmp/$st-grade" >"$tmp/$st-grade.out" 2>&1
		check "$?:$(grep -c "unfinished run (status '$st')" "$tmp/$st-grade.out")" "2:1" \
			"grade --from a results.json whose status is $st: refused, said so, exit 2"
		"$BUILD/dmalab" compare "$tmp/$st.json" >"$tmp/$st-cmp.out" 2>&1
		check "$?:$(grep -c "unfinished run (status '$st')" "$tmp/$st-cmp.out")" "2:1" \
			"compare of a results.json whose status is $st: refused, said so"
	done
fi

# 6. A lab whose --describe is garbage is an error, and is not run.
mkdir -p "$tmp/badlabs"
printf '#!/bin/sh\necho "not json"\n' >"$tmp/badlabs/lab-42"
chmod +x "$tmp/badlabs/lab-42"
"$BUILD/dmalab" check --labs-dir "$tmp/badlabs" --results "$tmp/bad" --format tap \
	>"$tmp/bad.out" 2>&1
check $? 1 "bad --describe: exit 1"
check "$(grep -c 'error: .bad-output' "$tmp/bad.out")" 1 "bad --describe: a bad-output error"
check "$(grep -c "message: '--describe: line 1 column 1" "$tmp/bad.out")" 1 \
	"bad --describe: the parse error is shown"

# 6b. No labs in the labs directory: a usage error naming it, exit 2, and
# the results.json of an earlier run is left alone.
mkdir -p "$tmp/emptylabs"
cp "$tmp/json/results.json" "$tmp/keep.json"
"$BUILD/dmalab" check --labs-dir "$tmp/emptylabs" --results "$tmp/json" >"$tmp/empty.out" 2>&1
check "$?:$(wc -l <"$tmp/empty.out")" "2:1" "no labs: exit 2, one line"
check "$(grep -c "no labs found in '$tmp/emptylabs'" "$tmp/empty.out")" 1 \
	"no labs: the directory searched is named"
if cmp -s "$tmp/keep.json" "$tmp/json/results.json"; then
	ok "no labs: results.json untouched"
else
	bad "no labs: results.json was rewritten"
fi

# 6c. Lab ids: repeats run once, leading zeros name the same lab.
run_dmalab run 93 lab-93 093 --results "$tmp/dup" --format tap >"$tmp/dup.out" 2>&1
check "$?:$(grep -c '^ok 1 - lab-93 ' "$tmp/dup.out"):$(grep -c '^1\.\.1$' "$tmp/dup.out")" \
	"0:1:1" "run 93 lab-93 093: lab-93 runs once"

# 6d. Help, and a results file that cannot be read.
"$BUILD/dmalab" -h >"$tmp/help.out" 2>&1
check "$?:$(head -c 7 "$tmp/help.out")" "0:usage: " "-h prints the usage, exit 0"
"$BUILD/dmalab" grade --from "$tmp" --labs-dir "$tmp/emptylabs" >"$tmp/from.out" 2>&1
check "$?:$(grep -c ': Is a directory$' "$tmp/from.out")" "2:1" \
	"grade --from DIR: 'Is a directory', exit 2 (bad input, as bench and compare)"
"$BUILD/dmalab" grade --from "$tmp/none.json" --labs-dir "$tmp/emptylabs" >"$tmp/from.out" 2>&1
check "$?:$(grep -c ': No such file or directory$' "$tmp/from.out")" "2:1" \
	"grade --from a missing file: 'No such file or directory'"

# 6e. dmalab messages: a message table as JSON (plots/ takes its Chinese there)
"$BUILD/dmalab" messages >"$tmp/messages.json" 2>&1
check "$?:$(grep -c '^    "claim\.01\.1": "' "$tmp/messages.json")" "0:1" \
	"messages: the table built in, as JSON"
printf '# a comment\n## a.b-1\nzh: 一\n  二\n\n## c\nzh: "三"\n' >"$tmp/zh.md"
cat >"$tmp/zh.want" <<EOF
{
  "schema": "dmalab-messages/1",
  "table": "$tmp/zh.md",
  "zh": {
    "a.b-1": "一\u000a二",
    "c": "\"三\""
  }
}
EOF
"$BUILD/dmalab" messages "$tmp/zh.md" >"$tmp/zh.json" 2>&1
check "$?:$(cmp "$tmp/zh.want" "$tmp/zh.json" 2>&1)" "0:" \
	"messages FILE: its entries in order, lines joined, quotes escaped"
printf '## a.b\nzh: x\nen: y\n' >"$tmp/bad-zh.md"
"$BUILD/dmalab" messages "$tmp/bad-zh.md" >"$tmp/bad-zh.out" 2>"$tmp/bad-zh.err"
check "$?:$(wc -c <"$tmp/bad-zh.out"):$(cat "$tmp/bad-zh.err")" \
	"2:0:dmalab: $tmp/bad-zh.md:3: unknown key 'en' (want zh)" \
	"messages: a malformed table is FILE:LINE: what, exit 2, nothing on stdout"

# 7. Usage errors: one line naming the value, exit 2.
usage_case() {
	want=$1
	shift
	"$@" >"$tmp/usage.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/usage.out")" -eq 1 ] &&
	   grep -q -- "$want" "$tmp/usage.out"; then
		ok "usage error names '$want'"
	else
		bad "usage: $* -> rc $rc: $(cat "$tmp/usage.out")"
	fi
}
printf '## 91.3\nsays: x\ntruht: y\n' >"$tmp/bad-errata.md"
usage_case "'xml'" run_dmalab check --format xml
usage_case "'0'" run_dmalab check --timeout-mul 0
usage_case "'2x'" run_dmalab check --timeout-mul 2x
usage_case "'1e-300'" run_dmalab check --timeout-mul 1e-300
usage_case "'-1'" env DMALAB_TIMEOUT_MUL=-1 "$BUILD/dmalab" list
# the range --help gives is the one refused outside (0.1 to 1000), try's too
usage_case "'0.09' (want a number from 0.1 to 1000)" run_dmalab check --timeout-mul 0.09
usage_case "'0.05' (want a number from 0.1 to 1000)" "$BUILD/dmalab" try 91 --timeout-mul 0.05
"$BUILD/dmalab" --help | grep -q -- "--timeout-mul N .*from 0.1 to 1000$" &&
	ok "dmalab --help: --timeout-mul from 0.1 to 1000" ||
	bad "dmalab --help: --timeout-mul's range is not 0.1 to 1000"
run_dmalab list --timeout-mul 0.1 >/dev/null 2>&1
check $? 0 "--timeout-mul 0.1, the least, is taken"
usage_case "'--bogus'" run_dmalab check --bogus
usage_case "'frobnicate'" run_dmalab frobnicate
usage_case "sysinfo, preflight, grade, quiz, hint, answers, exercise, try, exercises," \
	run_dmalab frobnicate
usage_case "compare, baseline, history, metrics, bench, class, messages or fleet" \
	run_dmalab frobnicate
usage_case "'run'" run_dmalab run
usage_case "'42'" run_dmalab run 42
usage_case "built: 88 89 90 91" run_dmalab run 42
usage_case "'claims' prints human or json" run_dmalab claims --format tap
# sysinfo writes its text only: a format it does not write is refused, as list's
for fmt in json junit tap; do
	usage_case "'sysinfo' prints its text only, not '$fmt'" run_dmalab sysinfo --format $fmt
done
run_dmalab sysinfo --format human >/dev/null 2>&1
check $? 0 "sysinfo --format human is taken"
usage_case "'--results' needs a directory" run_dmalab check --results ''
usage_case "'--labs-dir' needs a directory" "$BUILD/dmalab" list --labs-dir ''
# an empty folder or file elsewhere too: exercise --work '' wrote its copy under /,
# hint --answers-dir '' said ": no chapter file", --errata '' ": No such file"
usage_case "'--work' needs a directory" "$BUILD/dmalab" exercise 99 --work ''
usage_case "'--work' needs a directory" "$BUILD/dmalab" exercises --work ''
usage_case "'--labs-dir' needs a directory" "$BUILD/dmalab" try 91 --labs-dir ''
usage_case "'--answers-dir' needs a directory" "$BUILD/dmalab" hint 01 --answers-dir ''
usage_case "'--errata' needs a file" run_dmalab check --errata ''
usage_case "'--from' needs a file" "$BUILD/dmalab" grade --from ''
usage_case "'$tmp/no-such-dir'" "$BUILD/dmalab" list --labs-dir "$tmp/no-such-dir"
usage_case "'x1'" run_dmalab run x1
usage_case "no-such-errata.md" "$BUILD/dmalab" --errata "$tmp/no-such-errata.md" list
usage_case "bad-errata.md:3:" "$BUILD/dmalab" --errata "$tmp/bad-errata.md" list
# an erratum that could not be wrong (91.2 wants >= 10 GB/s; lt 10 is every failure of it) is
# refused by the lab's --describe: the runner says the lab's line, not only its exit code
printf '## 91.2\nsays: x\nexpect: lt 10\ntruth: y\nsource: z\n' >"$tmp/complement-errata.md"
for c in "check 91" "list" "claims"; do
	# shellcheck disable=SC2086 # the command and its lab
	usage_case "erratum 91.2: 'expect: lt 10' holds for every failure" "$BUILD/dmalab" \
		--labs-dir "$fakes" --errata "$tmp/complement-errata.md" $c
done
usage_case "'b': messages reads one table" "$BUILD/dmalab" messages a b
usage_case "FILE is ''" "$BUILD/dmalab" messages ''
# run in another folder than the kit's: the folder it looks for, and where to run it (it
# said "no lab under 'labs'", "no lab '01' under 'labs'", "answers: no chapter file")
kit_bin=$(cd "$BUILD" && pwd)/dmalab
for a in exercises "exercise 01" "try 01" "hint 01" quiz; do
	# shellcheck disable=SC2086 # the command and its lab, split on purpose
	usage_case "no folder '[a-z]*' here: run dmalab in the kit's folder" \
		sh -c 'cd "$1" && shift && exec "$@"' sh "$tmp" "$kit_bin" $a
done
usage_case "'--zh'" "$BUILD/dmalab" messages --zh
# a labs folder with no lab in it, in the learner's language (it was English only)
mkdir -p "$tmp/no-labs"
usage_case "'$tmp/no-labs' 下没有实验" env DMALAB_LANG=zh "$BUILD/dmalab" exercises \
	--src "$tmp/no-labs"

# 8. Known errata come from the lab's word: a contradiction is known only
# when the lab measured what its erratum predicts (lab-89, TAP-only lab-90).
if has_python; then
	check "$(python3 - "$tmp/all/results.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
cs = {c["id"]: c for l in d["labs"] for c in l["claims"]}
print(" ".join("%s:%s:%s" % (i, cs[i]["status"],
                             (cs[i]["erratum"] or {}).get("status"))
               for i in ("91.3", "89.1", "89.2", "89.3", "89.4", "90.2")),
      d["totals"]["claims"]["known_erratum"], d["totals"]["labs"]["inconclusive"],
      [q["status"] + str(q.get("known_erratum", "")) for q in d["questions"]
       if q["id"] == "fq.Q13"])
EOF
)" "91.3:fail:predicted 89.1:fail:not-predicted 89.2:fail:not-applicable 89.3:fail:predicted \
89.4:inconclusive:None 90.2:fail:predicted 3 1 ['contradicted']" \
		"results.json: known only when predicted (the lab's erratum object kept), counted"
fi
run_dmalab check 89 --results "$tmp/np" --format human >"$tmp/np.out" 2>&1
check $? 1 "a not-predicted erratum fails the run"
pat='89.1    CONTRADICTED  got 7, the chapter says = 5; erratum 89.1 predicts = 3: this run'
check "$(grep -c "$pat does not meet it" "$tmp/np.out")" 1 \
	"not-predicted: the card says what the chapter says, what the erratum predicted, not met"
check "$(grep -c 'only when pcie_gen_max ge 4: not on this machine' "$tmp/np.out")" 2 \
	"not-applicable: its when: is named (live and on the card)"
pat='^2 contradicted claim(s) have an erratum whose prediction this run'
check "$(grep -c "$pat did not meet" "$tmp/np.out")" 1 \
	"unexplained errata are counted on their own line"
run_dmalab check 91 --results "$tmp/pr" --format tap >"$tmp/pr.out" 2>&1
check $? 0 "a predicted erratum does not fail the run"
check "$(grep -c '^    not ok 3 - 91.3 .* # TODO known erratum 91.3$' "$tmp/pr.out")" 1 \
	"TAP: a predicted erratum is a TODO naming it"
pat='^    # 91.3: got 3, the chapter says = 5; known erratum 91.3: it predicts = 3'
check "$(grep -c "$pat" "$tmp/pr.out")" 1 \
	"TAP: the chapter's relation and the erratum's prediction"

# 9. A lab whose claims are all inconclusive: its own status, exit 0,
# counted apart, in every output.
run_dmalab check 88 --results "$tmp/inc" --format tap >"$tmp/inc.tap" 2>&1
check $? 0 "all inconclusive: exit 0"
pat='^ok 1 - lab-88 fake all inconclusive # SKIP inconclusive: no claim decided either way$'
check "$(grep -c "$pat" "$tmp/inc.tap")" 1 \
	"TAP: an inconclusive lab is a skip that says so"
check "$(grep -c "^  status: 'inconclusive'$" "$tmp/inc.tap")" 1 "TAP: its status is inconclusive"
check "$(tail -n 1 "$tmp/inc.tap")" "summary: 0 passed, 0 failed, 0 skipped, 1 inconclusive" \
	"summary: inconclusive counted apart"
check "$(grep -c 'every claim was skipped or inconclusive on this machine' "$tmp/inc.tap")" 1 \
	"nothing decided: said so"
run_dmalab check 88 --results "$tmp/inc" --format human >"$tmp/inc.out" 2>&1
check "$(grep -c '^lab-88: inconclusive: no claim decided either way' "$tmp/inc.out"):$(grep -c \
	'^  lab-88  inconclusive ' "$tmp/inc.out")" \
	"1:1" "human: the lab line and the card say inconclusive"
if has_python; then
	check "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["labs"][0]["status"], d["totals"]["labs"]["inconclusive"], d["totals"]["labs"]["skip"],
      d["status"])' "$tmp/inc/results.json")" \
		"inconclusive 1 0 pass" \
		"results.json: lab status inconclusive, counted apart, run passes"
fi

# 10. DMALAB_ERRATA: the runner hands its errata file to every lab, so the
# fixture errata reach the fake labs; without a file both use the built-in.
run_dmalab run 89 --results "$tmp/env" --format human >"$tmp/env.out" 2>&1
check "$(grep -c "^  errata: $errata\$" "$tmp/env.out")" 1 \
	"--errata reaches the lab as DMALAB_ERRATA (absolute)"
dm=$(cd "$BUILD" && pwd -P)/dmalab
fk=$(cd "$fakes" && pwd -P)
mkdir -p "$tmp/elsewhere"
(cd "$tmp/elsewhere" && env -u DMALAB_ERRATA "$dm" run 89 91 --labs-dir "$fk" --results r \
	--format human) >"$tmp/builtin.out" 2>&1
check "$?:$(grep -c '^  errata: (built in)$' "$tmp/builtin.out")" "1:1" \
	"no errata file: the lab decides with the built-in copy (91.3 is not in it: exit 1)"
check "$(grep -c '^      91.3    CONTRADICTED  got 3, want = 5$' "$tmp/builtin.out")" 1 \
	"built-in errata: 91.3 is an unexplained contradiction"
(cd "$tmp/elsewhere" && DMALAB_ERRATA=$errata "$dm" run 91 --labs-dir "$fk" --results r \
	--format tap) >"$tmp/envset.out" 2>&1
check "$?:$(grep -c '# TODO known erratum 91.3' "$tmp/envset.out")" "0:1" \
	"DMALAB_ERRATA in the environment: runner and lab read it"

# 11. dmalab claims: every claim's relation from --describe, human and json,
# and the golden check that notices a changed relation.
run_dmalab claims >"$tmp/claims.txt" 2>&1
check $? 0 "claims exits 0"
compare claims-fakelabs.txt "$tmp/claims.txt"
check "$(grep -c '^92.2 \[fq.Q1\] the ratio is about 2x$' "$tmp/claims.txt"):$(grep -c \
	'^  tolerance: +- 25 %$' "$tmp/claims.txt")" \
	"1:2" "claims: one block per claim, with its tolerance"
run_dmalab claims --format json >"$tmp/claims.json" 2>&1
check $? 0 "claims --format json exits 0"
if has_python; then
	check "$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
c = {x["id"]: x for x in a}
print(len(a), c["92.2"]["relation"], c["92.2"]["want"]["rel_tol"], c["92.2"]["rule"],
      c["91.2"]["sabotage"], c["89.2"]["unit"], c["94.2"]["tolerance"])' "$tmp/claims.json")" \
		"28 near 2 +- 25 % 0.25 R4 N times the fake copy is not slowed down GB/s none" \
		"claims json: an array of every claim with want, relation, rule, sabotage"
	check "$(python3 -c 'import json, sys
c = {x["id"]: x for x in json.load(open(sys.argv[1]))}
print(c["89.1"]["erratum"]["expect"], c["89.2"]["erratum"]["when"], c["92.2"]["erratum"])' \
		"$tmp/claims.json")" "eq 3 pcie_gen_max ge 4 None" \
		"claims json: each claim's erratum (expect, when, truth) or null"
fi
# errata-fake.md has 5 sections, each of a fake claim
row='^  erratum:   predicts ge 5 GB/s when pcie_gen_max ge 4: on fake Gen4'
check "$(grep -c '^  erratum:   predicts ' "$tmp/claims.txt"):$(grep -c \
	'^  erratum:   none$' "$tmp/claims.txt"):$(grep -c "$row" "$tmp/claims.txt")" "5:23:1" \
	"claims: an erratum row per claim, the prediction and where it holds, if one is known"
DMALAB_ERRATA=$errata sh "$here/test-claims.sh" "$tmp/claims.txt" "$fakes" >"$tmp/tc.out" 2>&1
check "$?:$(grep -c '^test-claims: ok, 28 claims' "$tmp/tc.out")" "0:1" \
	"test-claims: the same table passes"
sed '0,/^  relation:  = 5$/s//  relation:  = 6/' "$tmp/claims.txt" >"$tmp/claims-bad.txt"
sh "$here/test-claims.sh" "$tmp/claims-bad.txt" "$fakes" >"$tmp/tc.out" 2>&1
check "$?:$(grep -c '^-  relation:  = 6$' "$tmp/tc.out"):$(grep -c 'make claims-golden' \
	"$tmp/tc.out")" \
	"1:1:1" "test-claims: a changed relation fails with the diff and says how to update"

echo "test-runner: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
