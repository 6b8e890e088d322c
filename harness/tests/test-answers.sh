#!/bin/sh
# test-answers.sh - answers/ against the built labs (which claims back which
# question comes from the labs' --describe), the answers in their own words
# (no run of 12 Chinese characters shared with the chapters' texts in
# ../shared/seeds, when that directory is there), `dmalab grade` on a
# results file the kit made and on hand-made rule-test inputs, a scripted
# `dmalab quiz` session (resume, Ctrl-D, bad input), and `dmalab hint` (NN, NN.name).
#
#   BUILD=build sh harness/tests/test-answers.sh      (make test-answers)
#   SEEDS=DIR: the chapters' texts (default ../shared/seeds)
#
# Needs $BUILD/dmalab and the built labs; no cmocka, no python, no GPU.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
fix=$here/fixtures/grade
dmalab=$BUILD/dmalab
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-answers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/nolabs" # a labs dir without labs: only the results say which claims back what
seeds=${SEEDS:-../shared/seeds}
npass=0
nfail=0

ok() { npass=$((npass + 1)); echo "ok: $1"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $1"; }
check() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3 (got $1, want $2)"; fi; }
# has FILE TEXT WHAT: FILE holds the line fragment TEXT
has() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3: no '$2' in:"; head -n 30 "$1"; fi
}

echo "== answers/ against the built labs"
"$dmalab" answers --labs-dir "$BUILD/labs" >"$tmp/answers.out" 2>&1
check $? 0 "every claim named by a question exists, every claim backs a question"
cat "$tmp/answers.out"

echo "== the question -> claims map comes from the labs' specs"
sed -n 's/^claims:/&/p' answers/ch*.md >"$tmp/claims-lines"
check "$(wc -l <"$tmp/claims-lines")" 0 "answers/ch*.md list no claims by hand"
mkdir "$tmp/alab"
cp answers/*.md "$tmp/alab/"
# lab 99, a number no lab takes: 12, the next lab's, would be built once a course adds it
printf '\n## 99\ntitle: a lab not built\nclaim: 99.1 [ch2.S3 ch2.Q99] a claim\n' \
	>>"$tmp/alab/planned-claims.md"
"$dmalab" answers --labs-dir "$BUILD/labs" --answers-dir "$tmp/alab" >"$tmp/a2.out" 2>&1
check $? 1 "a planned claim naming a question no file has: exit 1"
has "$tmp/a2.out" \
	"error: claim 99.1 of planned-claims.md names question ch2.Q99, which no answers file has" \
	"the unknown question is named"
cp answers/*.md "$tmp/alab/"
printf '\n## ch2.S99\nprompt.en: p\nprompt.zh: p\nanswer.en: a\nanswer.zh: a\n' >>"$tmp/alab/ch2.md"
"$dmalab" answers --labs-dir "$BUILD/labs" --answers-dir "$tmp/alab" >"$tmp/a3.out" 2>&1
check $? 1 "a question no claim backs: exit 1"
has "$tmp/a3.out" "no claim backs ch2.S99" "the question without a claim is named"
cp answers/*.md "$tmp/alab/"
sed -i 's/^prompt.en: What is DMA/claims: 01.1\nprompt.en: What is DMA/' "$tmp/alab/ch1.md"
"$dmalab" answers --labs-dir "$BUILD/labs" --answers-dir "$tmp/alab" >"$tmp/a4.out" 2>&1
check $? 2 "a 'claims:' line in a chapter file: exit 2"
has "$tmp/a4.out" "'claims:' is not written here any more" "and it says where claims are named now"

# answers/README.md names the planned labs: those of planned-claims.md, none built
said=$(sed -n 's/.*not built yet (now only lab \([0-9, ]*\)[,;)].*/\1/p' answers/README.md |
	tr -d ' ')
planned=$(sed -n 's/^## \([0-9][0-9]\)$/\1/p' answers/planned-claims.md | paste -sd, -)
check "$said" "$planned" "answers/README.md names the labs planned-claims.md plans"
for n in $(echo "$said" | tr ',' ' '); do
	ls -d labs/"$n"-* >/dev/null 2>&1 && bad "answers/README.md calls lab $n planned; it exists"
done

echo "== the answers in their own words (no run of 12 Chinese characters from a chapter)"
if [ -d "$seeds" ]; then
	"$dmalab" answers --labs-dir "$BUILD/labs" --seeds "$seeds" >"$tmp/s.out" 2>&1
	check $? 0 "no answer shares 12 Chinese characters in a row with $seeds"
	grep -E '^(error|answers:)' "$tmp/s.out"
else
	echo "skip: no chapter texts in $seeds (SEEDS=DIR): the copied-run check is skipped"
fi
mkdir "$tmp/seed"
printf '# 第一章\n锁页内存不能被换出，所以设备可以放心地读写它。\n' >"$tmp/seed/fake.txt"
cp answers/*.md "$tmp/alab/"
sed -i '0,/^prompt.zh: .*/s//prompt.zh: 为什么说锁页内存（pinned）不能被换出所以设备可以读？/' \
	"$tmp/alab/ch1.md"
"$dmalab" answers --labs-dir "$BUILD/labs" --answers-dir "$tmp/alab" --seeds "$tmp/seed" \
	>"$tmp/s2.out" 2>&1
check $? 1 "a copied run of 15 characters (across code and punctuation) is flagged"
copied="锁页内存不能被换出所以设备可以"
has "$tmp/s2.out" "ch1.Q1 prompt.zh shares 15 Chinese characters in a row with fake.txt: $copied" \
	"the copied run is named, with its length and the chapter"
sed -i "s/^prompt.zh: 为什么说.*/prompt.zh: 它锁页内存不能被换出所以，它/" "$tmp/alab/ch1.md"
"$dmalab" answers --labs-dir "$BUILD/labs" --answers-dir "$tmp/alab" --seeds "$tmp/seed" \
	>"$tmp/s3.out" 2>&1
check $? 0 "a shared run of 11 characters is not a copy"

echo "== grade a results file the kit made (make check QUICK=1, no GPU)"
g() { "$dmalab" grade --labs-dir "$BUILD/labs" "$@"; }
g --from "$fix/results-kit.json" --results "$tmp/kit" >"$tmp/kit.out" 2>&1
check $? 0 "grade --from exits 0"
has "$tmp/kit.out" "  ch1.Q1  confirmed" "all claims passed: confirmed"
has "$tmp/kit.out" "  ch2.S7  partial" "passes and skips: partial"
has "$tmp/kit.out" "  ch1.Q2  unverified" "all skipped: unverified"
has "$tmp/kit.out" "09.1   unverified    not in these results (run make lab-09)" \
	"a built lab the results lack: not in these results"
# a planned lab (every real one is built): its question is "not built yet"
cp answers/*.md "$tmp/alab/"
printf '\n## 12\ntitle: a lab not built\nclaim: 12.1 [ch2.S3] a claim\n' \
	>>"$tmp/alab/planned-claims.md"
g --from "$fix/results-kit.json" --results "$tmp/kit12" --labs-dir "$tmp/nolabs" \
	--answers-dir "$tmp/alab" >"$tmp/kit12.out" 2>&1
has "$tmp/kit12.out" "  ch2.S3  unverified (lab not built yet)" "planned lab: not built yet"
has "$tmp/kit.out" "      01.1   confirmed     got 64 MiB, want ~ 64 MiB +-1% [lab-01]" \
	"evidence: got vs want, unit, lab"
has "$tmp/kit.out" "overall: 2.00 of 2 (100%) over the questions measured here; 15 unverified" \
	"unverified questions are left out of the maximum"
has "$tmp/kit.out" "  ch1.Q5  unverified; 1 of 3 claims decided (fewer than half: not scored)" \
	"1 of 3 claims decided: unverified, not a full point"
has "$tmp/kit.out" "rule: a question is scored when at least half of its claims are decided" \
	"grade states its rule"
# 05.1 (a CPU first-touch fault) backs the latency ladder (ch2.S7), not the
# sharing of a KV cache between processes (ch2.S4)
sed -n '/^  ch2\.S4 /,/^  ch2\.S5 /p' "$tmp/kit.out" | grep -q '^      05\.1 ' &&
	bad "ch2.S4 (two processes sharing GPU memory) is backed by 05.1, a CPU page fault" ||
	ok "ch2.S4 is not backed by the CPU page-fault claim"
sed -n '/^  ch2\.S7 /,/^  ch2\.S8 /p' "$tmp/kit.out" | grep -q '^      05\.1 ' &&
	ok "05.1 backs ch2.S7 (the latency ladder)" || bad "05.1 does not back ch2.S7"
g --from "$fix/results-kit.json" --results "$tmp/kgs" --gradescope "$tmp/kgs/gs.json" \
	>/dev/null 2>&1
grep -A2 '"name": "ch1.Q5 ' "$tmp/kgs/gs.json" | grep -q '"score": 0,' &&
	ok "Gradescope: the question grade leaves unverified scores 0" ||
	bad "Gradescope scores ch1.Q5 (1 of 3 decided) above 0"
has "$tmp/kgs/gs.json" '1 of its 3 claims decided here, fewer than half (unverified)' \
	"Gradescope: the test's output says why it scores 0"
has "$tmp/kgs/gs.json" 'unverified, and here it scores 0 of its 1 point: the maximum stays' \
	"Gradescope: its rule says an unverified question stays in its maximum"
[ -s "$tmp/kit/grade.json" ] && ok "grade.json written" || bad "no grade.json"
has "$tmp/kit/grade.json" '"schema": "dmalab-grade/1"' "grade.json schema"
# every erratum the grade read, as the file says it (plots/report.py lists them)
check "$(grep -c '"says": ' "$tmp/kit/grade.json")" "$(grep -c '^## ' answers/errata.md)" \
	"grade.json lists every erratum of answers/errata.md"
has "$tmp/kit/grade.json" "\"$(grep -m1 '^source: ' answers/errata.md | cut -c9-70)" \
	"grade.json: an erratum's sources"
g --from "$fix/rules-mixed.json" --results "$tmp/rules" >/dev/null 2>&1
has "$tmp/rules/grade.json" '"status": "not-predicted"' "grade.json: the erratum's status"
has "$tmp/rules/grade.json" '"expect": "ge 3"' "grade.json: the erratum's prediction"
ls "$tmp/kit" | grep -q tmp && bad "a temporary file was left" ||
	ok "written atomically (no temp left)"

echo "== grading rules (hand-made rule-test input, not a measurement)"
g --from "$fix/rules-mixed.json" --results "$tmp/rules" >"$tmp/rules.out" 2>&1
check $? 0 "grade of the rule-test input exits 0"
has "$tmp/rules.out" "  ch1.Q1  contradicted" "one failed claim: contradicted"
has "$tmp/rules.out" "  ch1.Q5  unverified; 1 of 3 claims decided (fewer than half: not scored)" \
	"pass + inconclusive + not run: 1 of 3 decided, unverified"
has "$tmp/rules.out" "lab-04 broke before deciding it: killed by SIGSEGV" "a crash is evidence"
has "$tmp/rules.out" "  ch2.S2  contradicted (known erratum)" "known errata are named"
has "$tmp/rules.out" \
	"known erratum: on a Gen4 or Gen5 link pinned copies run several times faster" \
	"the erratum says what is true"
has "$tmp/rules.out" \
	"      02.2   contradicted  got 6.7 x [6.5, 6.9], the chapter says ~ 2 x +-25% [lab-02]" \
	"a known erratum: the chapter's relation and the interval"
has "$tmp/rules.out" "known erratum 02.2: it predicts >= 3 x, and this run meets it" \
	"a known erratum: what it predicts (the lab's word)"
unmet="this run does not meet it, so the contradiction is unexplained"
has "$tmp/rules.out" "erratum 01.2 predicts >= 32 MiB: $unmet" \
	"a not-predicted erratum: what it predicted, and not met"
has "$tmp/rules.out" "score ch1: 0.50 of 1 (50%)" "a question scores its share of decided claims"
has "$tmp/rules.out" "score ch2: 0.33 of 1 (33%)" "a known erratum still scores 0"
has "$tmp/rules.out" "overall: 0.83 of 2 (42%)" "overall score"
has "$tmp/rules.out" "      04.3   not run       lab-04 broke" "a claim never reached reads not run"
g --from "$fix/rules-mixed.json" --results "$tmp/rules" --chapter ch2 >"$tmp/ch2.out" 2>&1
check "$(grep -c '^ch[0-9]:' "$tmp/ch2.out")" 1 "--chapter grades one chapter"

echo "== grade: bad input"
g --from "$tmp/none.json" --results "$tmp/x" >"$tmp/e1" 2>&1
check $? 2 "missing results file: exit 2 (bad input)"
has "$tmp/e1" "make a results file with \`make check\`" "missing results: says how to make one"
"$dmalab" grade --help >"$tmp/gh" 2>&1
has "$tmp/gh" "2 usage, an unusable --from FILE" "grade --help: exit 2 for a --from file, as it is"
g --from "$fix/rules-truncated.json" --results "$tmp/x" >"$tmp/e2" 2>&1
check $? 2 "corrupt results file: exit 2 (bad input)"
has "$tmp/e2" "cannot grade:" "corrupt results: a clear message"
g --from "$fix/results-kit.json" --chapter ch9 >"$tmp/e3" 2>&1
check $? 2 "unknown chapter: exit 2"
"$dmalab" quiz --lang fr >"$tmp/e4" 2>&1
check $? 2 "bad --lang: exit 2"
has "$tmp/e4" "bad --lang 'fr'" "bad --lang named"
cp -r answers "$tmp/answers"
sed -i 's/^prompt.en: What is DMA/promt.en: What is DMA/' "$tmp/answers/ch1.md"
g --from "$fix/results-kit.json" --answers-dir "$tmp/answers" >"$tmp/e5" 2>&1
check $? 2 "malformed answers file: exit 2"
has "$tmp/e5" "answers/ch1.md:4: unknown key 'promt.en'" "malformed answers: file:line: what"

echo "== grade without the labs built: the results name the claims' questions"
"$dmalab" grade --labs-dir "$tmp/nolabs" --from "$fix/results-kit.json" --results "$tmp/nl" \
	>"$tmp/nl.out" 2>&1
check $? 0 "grade --from with no lab built exits 0"
has "$tmp/nl.out" "  ch1.Q1  confirmed" "a claim backs the question its results name"
has "$tmp/nl.out" "  ch2.S8  unverified (no claim of these labs backs it)" \
	"a question backed only through the labs' specs says so"

echo "== scripted quiz"
q() { "$dmalab" quiz --labs-dir "$tmp/nolabs" --results "$tmp/q" --chapter ch1 "$@"; }
mkdir "$tmp/q"
cp "$fix/results-kit.json" "$tmp/q/results.json"
printf 'A device moves the bytes itself.\nPages must stay put.\n\ny\nno idea\n\nn\n' >"$tmp/s1"
q --answers "$tmp/s1" >"$tmp/q1.out" 2>&1
check $? 0 "quiz exits 0 at the end of the script"
has "$tmp/q1.out" "--- reference answer ---" "reference answer shown"
has "$tmp/q1.out" "  01.1   confirmed     got 64 MiB" "this machine's measurement shown"
has "$tmp/q1.out" "score ch1: 1 of 2 marked right (50%), 0 skipped, 6 still to answer" "score"
has "$tmp/q/quiz.json" '"answer": "A device moves the bytes itself.\u000aPages must stay put."' \
	"the typed answer is kept"
# invalid UTF-8, a 100 KB line, then Ctrl-D in the middle of an answer
{ printf 'bad \377 byte\n\ns\n'; head -c 100000 /dev/zero | tr '\0' x; printf '\n\ns\n'
  printf 'half an answer'; } >"$tmp/s2"
q --answers "$tmp/s2" >"$tmp/q2.out" 2>&1
check $? 0 "quiz resumes and stops cleanly at Ctrl-D"
has "$tmp/q2.out" "Resuming: 6 of 8 questions still to answer." "resumes where it stopped"
has "$tmp/q2.out" "[3/8] ch1.Q3" "the next question is the first unmarked one"
has "$tmp/q2.out" "(invalid UTF-8 bytes replaced by '?': 1)" "invalid UTF-8 handled"
has "$tmp/q2.out" "(answer too long: bytes not kept:" "very long line handled"
has "$tmp/q/quiz.json" '"answer": "bad ? byte"' "the answer with a bad byte is kept, repaired"
has "$tmp/q/quiz.json" '"answer": "half an answer"' "an answer cut by Ctrl-D is kept"
printf '\ny\n' | q >"$tmp/q3.out" 2>&1
has "$tmp/q3.out" "Your earlier answer:" "an unmarked answer is shown again"
printf 'garbage' >"$tmp/q/quiz.json"
printf '' | q >"$tmp/q4.out" 2>&1
has "$tmp/q4.out" "is not a quiz progress file" "corrupt progress: a clear message"
[ -f "$tmp/q/quiz.json.corrupt" ] && ok "corrupt progress kept aside" || bad "corrupt progress lost"
mkdir "$tmp/q5"
printf 'n\n\ns\n' | "$dmalab" quiz --results "$tmp/q5" --chapter ch2 --lang zh >"$tmp/q5.out" 2>&1
has "$tmp/q5.out" "没有这台机器可用的测量结果" "missing results: a clear message (zh)"
has "$tmp/q5.out" "现在运行实验吗" "missing results: offers to run the labs"
has "$tmp/q5.out" "（没有结果：请运行 make check）" "quiz goes on without results"
env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 "$dmalab" quiz --results "$tmp/q5" --chapter ch2 \
	</dev/null >"$tmp/q6.out" 2>&1
has "$tmp/q6.out" "继续上次的测验" "a Chinese locale switches language"

mkdir "$tmp/q7"
cp "$fix/rules-mixed.json" "$tmp/q7/results.json"
printf 'x\n\ns\nx\n\ns\n' | "$dmalab" quiz --labs-dir "$tmp/nolabs" --results "$tmp/q7" \
	--chapter ch2 >"$tmp/q7.out" 2>&1
has "$tmp/q7.out" \
	"  02.2   contradicted  got 6.7 x [6.5, 6.9], the chapter says ~ 2 x +-25% [lab-02]" \
	"quiz: a contradicted claim shows the chapter's relation"
has "$tmp/q7.out" "         known erratum 02.2: it predicts >= 3 x, and this run meets it" \
	"quiz: and what its erratum predicts"
# a typed number is scored on the figure its unit names, or the question's only one
quiz_num() { # DIR CHAPTER ANSWERS...: one answer per question, each marked skip
	d=$1 c=$2
	shift 2
	mkdir "$tmp/$d" && cp "$fix/rules-mixed.json" "$tmp/$d/results.json"
	printf '%s\n\ns\n' "$@" | "$dmalab" quiz --labs-dir "$tmp/nolabs" --results "$tmp/$d" \
		--chapter "$c" >"$tmp/$d.out" 2>&1
}
quiz_num q8 ch1 5
has "$tmp/q8.out" "(your number is not scored: this question has several figures" \
	"quiz: a bare number, two figures (01.1, 01.2): not scored, said why"
quiz_num q9 ch1 "64 MiB"
has "$tmp/q9.out" "         your number 64: 1.00 (" "quiz: a number with its unit is scored"
# ch2.S2: 02.2 (x) its one figure; 01.7 an exact count of runs, no figure
quiz_num q10 ch2 x "6.7 GB/s"
check "$?:$(grep -c 'your number 6.7' "$tmp/q10.out")" "0:0" \
	"quiz: a number in no figure's unit is not scored"
has "$tmp/q10.out" "(your number is not scored: no figure above is in 'GB/s';" \
	"quiz: and it says why"
quiz_num q11 ch2 x 7
has "$tmp/q11.out" "         your number 7: 0.99 (" "quiz: a bare number, the one figure: scored"
quiz_num q12 ch2 x "7 X, as the staging copy halves it"
has "$tmp/q12.out" "         your number 7: 0.99 (" \
	"quiz: the unit is the word after the number, in any case, prose after it"
quiz_num q13 ch2 x "-7 x"
check "$?:$(grep -c 'your number -7:' "$tmp/q13.out")" "0:0" "quiz: a number below 0 is not scored"
has "$tmp/q13.out" "(your number is not scored: '-7' is not a number >= 0)" \
	"quiz: and it says the bad value"
# ch2.S4's claims in labs 05 and 07, built here, neither in the results: both named
mkdir "$tmp/q14" && cp "$fix/results-kit.json" "$tmp/q14/results.json"
for i in 1 2 3 4; do printf 'x\n\nn\nn\n'; done | "$dmalab" quiz --labs-dir "$BUILD/labs" \
	--results "$tmp/q14" --chapter ch2 >"$tmp/q14.out" 2>&1
has "$tmp/q14.out" "No results yet for lab-05 lab-07" "quiz: the labs it offers to run are named"

echo "== hints"
h() { "$dmalab" hint "$@" --results "$tmp/h"; }
h 03 >"$tmp/h1" 2>&1 && h 3 >"$tmp/h2" 2>&1
has "$tmp/h1" "lab-03 hint 1 of 3:" "first hint"
has "$tmp/h2" "lab-03 hint 2 of 3:" "second hint, counter kept"
h 03 --reset >"$tmp/h3" 2>&1
has "$tmp/h3" "lab-03 hint 1 of 3:" "--reset starts over"
h 99 >"$tmp/h4" 2>&1
check $? 2 "a lab without hints: exit 2"
h 3.fix-race >"$tmp/h5" 2>&1
has "$tmp/h5" "exercise 03.fix-race hint 1 of 3:" "hint NN.name: that exercise's hints"
h 3.fix-race >/dev/null 2>&1; h 3.fix-race >/dev/null 2>&1; h 3.fix-race >"$tmp/h5b" 2>&1
has "$tmp/h5b" "make hint-03.fix-race RESET=1, starts over" \
	"every hint of an exercise shown: its own reset is named, not its lab's"
h 03.nosuch >"$tmp/h6" 2>&1
check $? 2 "hint of an exercise lab-03 does not have: exit 2"
has "$tmp/h6" "no exercise '03.nosuch' in lab-03; its exercises: 03.fix-race" \
	"... naming the lab's exercises"
h 03. >"$tmp/h7" 2>&1
check $? 2 "hint '03.': no exercise name, exit 2"

"$dmalab" hint 03 --results "$tmp/no-such/h" >"$tmp/h8" 2>&1
check "$?:$(test -e "$tmp/no-such" && echo made)" "1:" \
	"hint --results under a missing folder: exit 1, nothing made"
has "$tmp/h8" "results directory '$tmp/no-such/h': its parent folder '$tmp/no-such' does not" \
	"... and it says which folder is missing, as check does"
"$dmalab" hint 03 --work "$tmp/no-work" --results "$tmp/h" >"$tmp/h9" 2>&1
check "$?:$(wc -l <"$tmp/h9")" "2:1" "hint --work with a missing folder: one line, exit 2"
has "$tmp/h9" "no folder '$tmp/no-work' (--work)" "... naming the folder"

echo "test-answers: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
