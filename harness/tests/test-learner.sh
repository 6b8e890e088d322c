#!/bin/sh
# test-learner.sh - what the learner does and the trainer collects (README.md
# "Predictions", "For trainers"): predictions scored (inside the interval,
# off by 10x, partly off, don't know) and kept in results.json, from a file
# and from piped stdin; grade, Gradescope and JUnit carrying one test per
# exercise and per prediction; `dmalab class` for three learners, its page
# rendered in headless Chromium (text in the DOM, a screenshot that is not
# blank); hint NN giving the hints of each unfinished exercise in turn, the next
# exercise once one's hints were all shown.
#
#   BUILD=build sh harness/tests/test-learner.sh   (needs make all fakelabs, chromium)
set -u
BUILD=${BUILD:-build}
dmalab=$BUILD/dmalab
fakes=$BUILD/fakelabs
pass=0 fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-learner.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
# has FILE TEXT WHAT: FILE holds the fixed string TEXT
has() { if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3: no '$2' in $1"; fi; }
fakes_run() { "$dmalab" --labs-dir "$fakes" --errata harness/tests/fixtures/errata-fake.md "$@"; }
# score FILE ID: the score results.json FILE keeps for the prediction of ID
score() {
	awk -v id="\"$2\"" '$1 == "\"name\":" && $2 == id "," { on = 1 }
		on && $1 == "\"score\":" { sub(/,$/, "", $2); print $2; exit }' "$1"
}

if [ ! -x "$dmalab" ] || [ ! -x "$fakes/lab-91" ]; then
	echo "FAIL: build $dmalab and the fake labs first (make all fakelabs)"
	exit 1
fi

echo "== predictions"
# lab-91's 91.2 measures 12.5 GB/s [11, 14]; lab-92's 92.1 1 s, 92.2 3 x [3, 3]
printf '# a comment\n91.2 12\n92.2 30\n' >"$tmp/p1"
fakes_run check 91 92 --predictions "$tmp/p1" --results "$tmp/r1" >"$tmp/r1.out" 2>&1
r=$tmp/r1/results.json
[ "$(score "$r" 91.2)" = 1 ] && ok "inside the interval: 1" || bad "inside: $(score "$r" 91.2)"
[ "$(score "$r" 92.2)" = 0 ] && ok "off by 10x: 0" || bad "10x off: $(score "$r" 92.2)"
[ "$(score "$r" 92.1)" = 0 ] && ok "don't know: 0" || bad "don't know: $(score "$r" 92.1)"
has "$r" '"predicted": null' "don't know is kept as predicted null"
has "$r" '"interval": [' "the measured interval is kept"
has "$tmp/r1.out" "91.2   you said 12, measured 12.5 GB/s [11, 14]: 1.00" "the score is said"
printf '28\n\n6\n' | fakes_run run 91 92 --predict --results "$tmp/r2" >"$tmp/r2.out" 2>&1
[ "$(score "$tmp/r2/results.json" 91.2)" = 0.699 ] && ok "a factor 2 above: 0.699" ||
	bad "factor 2: $(score "$tmp/r2/results.json" 91.2)"
[ "$(score "$tmp/r2/results.json" 92.2)" = 0.699 ] && ok "typed on stdin, scored" ||
	bad "stdin: $(score "$tmp/r2/results.json" 92.2)"
has "$tmp/r2.out" "your number, in GB/s (plausible:" "the question shows the unit and a range"
# three bad entries: the first two ask again, the third says it is recorded as don't know
printf 'abc\n-3\n5 ms\n6\n' | fakes_run run 92 --predict --results "$tmp/r2x" >"$tmp/r2x.out" 2>&1
[ "$(grep -c "is not a number >= 0; again" "$tmp/r2x.out")" -eq 2 ] &&
	ok "two bad entries: asked again" || bad "two bad entries: not asked again twice"
has "$tmp/r2x.out" "'5 ms' is not a number >= 0; recorded as don't know" \
	"the third bad entry says it is recorded as don't know"
# the plausible ratios reach 04.1's 160-206x (a plain VM)
has "$tmp/r2x.out" "your number, in x (plausible: 0.01 to 1000;" "x's range reaches 1000"
# lab-93's 93.2 needs a GPU and lab-93 is built without nvcc: forecast to skip, not asked
printf '12\n' | fakes_run run 93 91 --predict --results "$tmp/r2b" >"$tmp/r2b.out" 2>&1
head -n 1 "$tmp/r2b.out" | grep -qxF \
	"(1 figure not asked: this machine cannot measure it (needs a build with nvcc))" &&
	ok "a figure this machine cannot measure: not asked, said in one line first" ||
	bad "no line on the figure not asked first: $(head -n 1 "$tmp/r2b.out")"
grep -q "93\.2 the fake GPU copies fast" "$tmp/r2b.out" && bad "93.2 asked though it skips here" ||
	ok "93.2 (skips here) is not asked"
grep -qF '"name": "93.2"' "$tmp/r2b/results.json" && bad "93.2 kept as a prediction" ||
	ok "a figure not asked is no prediction in results.json"
[ "$(score "$tmp/r2b/results.json" 91.2)" = 1 ] && ok "the figure after it is asked, scored" ||
	bad "91.2 after 93: $(score "$tmp/r2b/results.json" 91.2)"
printf '93.2 25\n' >"$tmp/p93"
fakes_run check 93 --predictions "$tmp/p93" --results "$tmp/r2c" >"$tmp/r2c.out" 2>&1
has "$tmp/r2c.out" "93.2   not measured here: not scored" \
	"--predictions may name a figure that skips here: kept, not scored"
grep -q "no headline figure" "$tmp/r2c.out" && bad "93.2 from a file: warned as unknown" ||
	ok "93.2 from a file: no warning"
# a fraction's whole is 1: 100 (meant as 100 %) is refused, typed or in a file (lab-01's 01.2)
printf '100\n1\n' | "$dmalab" run 01 --predict --quick --results "$tmp/r01" >"$tmp/r01.out" 2>&1
has "$tmp/r01.out" "'100' is not a number from 0 to 1; again" "a fraction of 100: asked again"
grep -A3 '"name": "01.2"' "$tmp/r01/results.json" | grep -q '"predicted": 1,' &&
	ok "the fraction typed next is kept" || bad "01.2's prediction of 1 not kept"
printf '01.2 100\n' >"$tmp/p01"
"$dmalab" check 01 --predictions "$tmp/p01" --results "$tmp/r01f" >"$tmp/r01f.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && has "$tmp/r01f.out" "bad value '100' for 01.2 (want a number from 0 to 1" \
	"a fraction of 100 in a file: named, exit 2" || bad "a fraction of 100 in a file: exit $rc"
printf '91.2 fast\n' >"$tmp/pbad"
fakes_run check 91 --predictions "$tmp/pbad" --results "$tmp/r3" >"$tmp/r3.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "a bad prediction line: exit 2" || bad "a bad prediction line: exit $rc"
has "$tmp/r3.out" "bad value 'fast' for 91.2" "the bad value is named"
# the file read whole first: a folder, an id twice, a line not `ID VALUE`: exit 2, named
pfile() { # pfile WHAT FILE TEXT: --predictions FILE exits 2 and says TEXT
	fakes_run check 91 --predictions "$2" --results "$tmp/r3d" >"$tmp/r3d.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && has "$tmp/r3d.out" "$3" "$1" || bad "$1: exit $rc"
}
pfile "predictions: a folder" "$tmp" "predictions '$tmp' is a folder"
printf '91.2 12\n# c\n91.2 13\n' >"$tmp/ptwice"
pfile "predictions: an id twice" "$tmp/ptwice" "'$tmp/ptwice' line 3: 91.2 is given twice"
printf '91.2 12\n91.2\n' >"$tmp/pform"
pfile "predictions: a line not ID VALUE" "$tmp/pform" "'$tmp/pform' line 2: '91.2' is not"
printf '91.2 12\n91.1 4\n' >"$tmp/pexact"
fakes_run check 91 --predictions "$tmp/pexact" --results "$tmp/r3b" >"$tmp/r3b.out" 2>&1
has "$tmp/r3b.out" "line 2: 91.1 is no headline figure" "an exact fact is not asked: said"
printf '' | fakes_run run 92 --predict --results "$tmp/r3c" >"$tmp/r3c.out" 2>&1
has "$tmp/r3c.out" "(end of input: don't know, for the rest)" "no input: don't know"
[ "$(score "$tmp/r3c/results.json" 92.2)" = 0 ] && ok "no input: scored 0" ||
	bad "no input: $(score "$tmp/r3c/results.json" 92.2)"

echo "== exercises in results.json, JUnit, grade, Gradescope"
w=$tmp/w
"$dmalab" exercise 01 --work "$w" >/dev/null && "$dmalab" exercise 04 --work "$w" >/dev/null
# lab-01's copy tried: the reference's run as its last try (01.lock 01.unlock 01.limit done)
"$dmalab" check 01 --quick --results "$w/01-mlock/results" >/dev/null 2>&1
fakes_run check 91 92 --predictions "$tmp/p1" --results "$tmp/r4" --work "$w" \
	--learner "Ada L." >/dev/null 2>&1
r=$tmp/r4/results.json
has "$r" '"learner": "Ada L."' "--learner is kept"
has "$r" '"id": "01.lock",' "results.json lists the exercises"
grep -A3 '"id": "01.limit"' "$r" | grep -qF '"state": "done"' && ok "01.limit done (last try)" ||
	bad "01.limit done"
grep -A3 '"id": "04.first-touch"' "$r" | grep -qF '"state": "untried"' &&
	ok "04.first-touch untried" || bad "04.first-touch untried"
has "$tmp/r4/junit.xml" '<testsuite name="exercises"' "junit.xml: a suite of exercises"
has "$tmp/r4/junit.xml" 'name="exercise 04.first-touch">' "junit.xml: a test per exercise"
has "$tmp/r4/junit.xml" 'name="prediction 92.2">' "junit.xml: a test per prediction"
# 01's three done (its last try), 04's two untried, the rest not started: nothing the learner
# got wrong, so no failure; those not tried are skipped
nex=$("$dmalab" exercises --work "$w" | tail -n 1 | cut -d' ' -f1) # every exercise of the kit
has "$tmp/r4/junit.xml" "<testsuite name=\"exercises\" tests=\"$nex\" failures=\"0\" errors=\"0\" \
skipped=\"$((nex - 3))\"" "junit.xml: exercises not started or untried are skipped, not failures"
grep -A1 'name="exercise 04.first-touch">' "$tmp/r4/junit.xml" | grep -qF \
	'<skipped message="not yet (untried) (claims 04.4 04.6; make try-04)"/>' &&
	ok "junit.xml: an untried exercise: skipped, its state the message" ||
	bad "junit.xml: 04.first-touch not skipped as untried"
"$dmalab" grade --from "$r" --results "$tmp/g" --gradescope "$tmp/g/gs.json" >"$tmp/g.out" 2>&1
has "$tmp/g.out" "04.first-touch   lab-04  not yet (untried)" "grade shows the exercises"
has "$tmp/g.out" "exercises done: 3 of $nex" "grade counts them"
has "$tmp/g.out" "exercises (as $r recorded them):" \
	"grade --from: the exercises are the file's, not the grader's copies"
has "$tmp/g/gs.json" '"name": "exercise 01.lock (lab-01)"' "Gradescope: a test per exercise"
has "$tmp/g/gs.json" '"name": "prediction 92.2 the ratio is about 2x"' \
	"Gradescope: a test per prediction"
has "$tmp/g/gs.json" '"predictions"' "Gradescope: predictions tagged"
has "$tmp/g/grade.json" '"state": "untried"' "grade.json keeps the exercises"
has "$tmp/g/grade.json" '"name": "92.2"' "grade.json keeps the predictions"
if command -v xmllint >/dev/null 2>&1; then # lab-92: no known erratum (its property)
	fakes_run check 92 --predictions "$tmp/p1" --results "$tmp/r7" --work "$w" >/dev/null 2>&1
	xmllint --noout --schema harness/tests/fixtures/junit-10.xsd "$tmp/r7/junit.xml" \
		>"$tmp/xsd.out" 2>&1 && ok "junit.xml with them validates (junit-10.xsd)" ||
		bad "junit.xml with them does not validate: $(head -3 "$tmp/xsd.out")"
fi
"$dmalab" grade --from "$tmp/g/../r4/results.json" --results "$tmp/g" >/dev/null 2>&1 ||
	bad "grade without --gradescope"
printf '01.5 50\n' >"$tmp/p5"
"$dmalab" check 01 --quick --predictions "$tmp/p5" --results "$tmp/r5" >/dev/null 2>&1
"$dmalab" grade --from "$tmp/r5/results.json" --results "$tmp/g5" >"$tmp/g5.out" 2>&1
has "$tmp/g5.out" "your prediction: 50 ms/GiB; measured" "grade shows a prediction beside its claim"

# make passes --work once the learner has a copy or a name, never on a machine's plain check
mkcheck() { make -n --no-print-directory check "$@" 2>/dev/null | grep 'dmalab check'; }
mkcheck WORK="$tmp/none" | grep -q -- '--work' && bad "a plain make check passes --work" ||
	ok "a plain make check lists no exercise"
mkcheck WORK="$w" | grep -q -- "--work $w" && ok "a copy in WORK: make check passes --work" ||
	bad "a copy in WORK: no --work"
mkcheck WORK="$tmp/none" LEARNER=Ada | grep -q -- "--learner 'Ada' --work" &&
	ok "LEARNER=: make check passes the name and --work" || bad "LEARNER=: no name or --work"
hint_line=$(make -n --no-print-directory hint-01 WORK="$tmp/none" LEARNER=Ada 2>/dev/null |
	grep 'dmalab hint 01')
case $hint_line in
*--work*) bad "LEARNER=, no copy: make hint-01 passes a --work it refuses" ;;
'') bad "LEARNER=, no copy: make hint-01 runs no 'dmalab hint 01'" ;;
*) ok "LEARNER=, no copy: make hint-01 passes no --work" ;;
esac
# a name or a file reaches dmalab as typed: its ' " $( ) run nothing in make's shell
odd="O'Hara \"Q\" \$(id) '; id; echo '"
make -s --no-print-directory check LABS=01 QUICK=1 RESULTS="$tmp/g7" LEARNER="$odd" \
	>"$tmp/g7.out" 2>&1
grep -q 'uid=' "$tmp/g7.out" && bad "LEARNER ran a command in make's shell" ||
	ok "LEARNER with ' \" \$( ): no command run"
odd_json=$(printf '%s' "$odd" | sed 's/"/\\"/g')
grep -qF -- "\"learner\": \"$odd_json\"" "$tmp/g7/results.json" &&
	ok "LEARNER with ' \" \$( ): the name kept intact" ||
	bad "LEARNER with ' \" \$( ): name not in $tmp/g7/results.json"; cat "$tmp/g7.out"
make -s --no-print-directory grade RESULTS="$tmp/g8" FROM="$tmp/no'file \$(x)" >"$tmp/g8.out" 2>&1
has "$tmp/g8.out" "$tmp/no'file \$(x)" "FROM with ' and \$( ): the file named as typed"
make -s --no-print-directory check RESULTS="$tmp/r;id>$tmp/pwn" >"$tmp/g9.out" 2>&1
[ -e "$tmp/pwn" ] && bad "RESULTS ran a command" ||
	has "$tmp/g9.out" "a folder name without blanks or shell characters" \
		"RESULTS with ; is refused"

echo "== the class page"
c=$tmp/class
mkdir -p "$c/bo" && cp "$r" "$c/ada.json"
printf '91.2 100\n' >"$tmp/pb"
fakes_run check 91 92 --predictions "$tmp/pb" --results "$c/bo" --learner "Bo" >/dev/null 2>&1
"$dmalab" check 01 --quick --results "$tmp/r6" --learner "Cy <3" --work "$tmp/w-none" \
	>/dev/null 2>&1
cp "$tmp/r6/results.json" "$c/cy.json"
cp "$tmp/g/grade.json" "$c/grade.json" # not a run: skipped, said
"$dmalab" class "$c" >"$tmp/class.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "class: exit 0" || bad "class: exit $rc ($(cat "$tmp/class.out"))"
has "$tmp/class.out" "class: 3 learners" "class counts three learners"
# Ada gave 91.2 and 92.2 (92.1 don't know), Bo 91.2 (92.1, 92.2 don't know), Cy none
dk="(and 3 \"don't know\")"
has "$tmp/class.out" " exercises, 3 predictions by 2 learners over 2 figures $dk:" \
	"class counts the predictions made, by whom, over which figures"
has "$tmp/class.out" "skipping '$c/grade.json': not a run's results.json" "a grade.json is skipped"
printf '{"schema": "dmalab-results/1", "labs": [' >"$tmp/broken.json"
mkdir -p "$tmp/class2" && cp "$tmp/broken.json" "$tmp/class2/x.json"
cp "$c/ada.json" "$tmp/class2/ada.json" && cp "$c/ada.json" "$tmp/class2/ada-again.json"
"$dmalab" class "$tmp/class2" >"$tmp/class2.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/class2/class.html" ] &&
	ok "a corrupt run among others: the page is written, exit 0" ||
	bad "a corrupt run among others: exit $rc, page $(ls "$tmp/class2")"
has "$tmp/class2.out" "skipping '$tmp/class2/x.json': " "the corrupt run is named, skipped"
has "$tmp/class2.out" "class: 1 file skipped" "the skipped files are counted"
has "$tmp/class2.out" "the learner 'Ada L.' has two runs here" "one learner twice: warned"
# three runs of one name: one line that counts them, not "two runs" twice
cp "$c/ada.json" "$tmp/class2/ada-third.json"
"$dmalab" class "$tmp/class2" >"$tmp/class2b.out" 2>&1
[ "$(grep -c "the learner 'Ada L.' has" "$tmp/class2b.out")" -eq 1 ] &&
	has "$tmp/class2b.out" \
		"the learner 'Ada L.' has 3 runs here ('$tmp/class2/ada-again.json', " \
		"one learner three times: one line, counted" ||
	bad "one learner three times: $(grep "the learner" "$tmp/class2b.out")"
rm "$tmp/class2/ada-third.json"
rm "$tmp/class2/x.json" "$tmp/class2/ada-again.json"
"$dmalab" class "$tmp/class2" >"$tmp/class2.out" 2>&1
has "$tmp/class2.out" "class: 1 learner, " "one learner: no plural"
# a run kept as DIR/NAME/results.json without --learner: named by its folder; its
# prediction of 93.2, which skips on every machine (lab-93), is measured by no one's run
fakes_run check 91 93 --predictions "$tmp/p93" --results "$tmp/class2/di" >/dev/null 2>&1
"$dmalab" class "$tmp/class2" >"$tmp/class2.out" 2>&1
grep -qF '<th>93.2</th>' "$tmp/class2/class.html" &&
	bad "class.html: a column for 93.2, which no learner's run measured" ||
	has "$tmp/class2/class.html" \
		"<p>1 figure no learner&apos;s run measured is left out: 93.2</p>" \
		"class.html: a figure no run measured: no column, said under the table"
has "$tmp/class2/class.html" "<th>91.2</th>" "class.html: a figure measured keeps its column"
grep -q "<tr><td>di</td>" "$tmp/class2/class.html" &&
	! grep -q "<td>results.json</td>" "$tmp/class2/class.html" &&
	ok "DIR/di/results.json: the learner 'di', by its folder" ||
	bad "DIR/di/results.json: not named 'di' on the page"
"$dmalab" class "$tmp/no-such" >"$tmp/class3.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "a missing folder: exit 2" || bad "a missing folder: exit $rc"
has "$tmp/class3.out" "class: no such folder '$tmp/no-such'" "a missing folder: said in a line"
# a folder with no run in it is bad input, as a missing one is: 2, one line
mkdir -p "$tmp/class-empty"
"$dmalab" class "$tmp/class-empty" >"$tmp/class5.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/class5.out")" -eq 1 ] &&
	ok "an empty folder: exit 2, one line" || bad "an empty folder: exit $rc (want 2)"
has "$tmp/class5.out" "no learner's results.json in '$tmp/class-empty'" \
	"an empty folder: said in a line"
"$dmalab" class --help | grep -q "^exit: 0 written.*2 no page" &&
	ok "class --help: its exit codes" || bad "class --help lists no exit codes"
# bad arguments: the kit's usage-error line alone (exit 2), not the whole --help
for a in "--bogus" "--out" "two-folders"; do
	# shellcheck disable=SC2086 # the folder, then the case's word
	"$dmalab" class "$c" $a >"$tmp/class6.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/class6.out")" -eq 1 ] &&
		grep -q -- "'${a}'.*(see dmalab class --help)" "$tmp/class6.out" &&
		ok "class $a: exit 2, one line naming it" ||
		bad "class $a: exit $rc (want 2, one line): $(cat "$tmp/class6.out")"
done
"$dmalab" class >"$tmp/class6.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/class6.out")" -eq 1 ] &&
	ok "class without a folder: exit 2, one line" ||
	bad "class without a folder: exit $rc (want 2, one line): $(cat "$tmp/class6.out")"
"$dmalab" class "$tmp/broken.json" >"$tmp/class3.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && has "$tmp/class3.out" "is a file, not a folder" "a file as the folder: exit 2"
"$dmalab" class "$c" --out "$tmp/no-dir/x.html" >"$tmp/class4.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "--out into a missing folder: exit 2" ||
	bad "--out into a missing folder: exit $rc (want 2)"
has "$tmp/class4.out" "cannot write '$tmp/no-dir/x.html': No such file or directory" \
	"--out into a missing folder: the file as given, and why"
grep -q '\.tmp' "$tmp/class4.out" && bad "--out into a missing folder names a .tmp file" ||
	ok "--out into a missing folder: no temporary file named"
# --out naming a learner's run: refused, the run kept (the page took its place, without it)
cp "$c/cy.json" "$tmp/cy-kept.json"
"$dmalab" class "$c" --out "$c/cy.json" >"$tmp/class7.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/class7.out")" -eq 1 ] &&
	cmp -s "$c/cy.json" "$tmp/cy-kept.json" &&
	has "$tmp/class7.out" "--out '$c/cy.json' is a run's results.json" \
		"--out naming a learner's run: one line naming it, exit 2, the run kept" ||
	bad "--out naming a learner's run: exit $rc, $(head -c 300 "$tmp/class7.out")"
cp "$tmp/cy-kept.json" "$c/cy.json"
page=$c/class.html
has "$page" "Cy &lt;3" "a learner's name is escaped"
# --learner takes 80 characters, not bytes: 80 Chinese ones (240 bytes) are a name, kept
# whole on the page; the 81st is refused
zh80=$(printf '张%.0s' $(seq 80))
fakes_run check 91 --learner "$zh80" --results "$tmp/class-zh80" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "--learner: 80 Chinese characters are a name" ||
	bad "--learner: 80 Chinese characters refused (exit $rc)"
"$dmalab" class "$tmp/class-zh80" >/dev/null 2>&1
has "$tmp/class-zh80/class.html" "<tr><td>$zh80</td>" "class.html: an 80-character name whole"
fakes_run check 91 --learner "${zh80}张" --results "$tmp/class-zh81" >"$tmp/zh81.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/zh81.out")" -eq 1 ] &&
	ok "--learner: 81 characters refused, one line, exit 2" ||
	bad "--learner: 81 characters: exit $rc, $(cat "$tmp/zh81.out")"
has "$page" ">not yet (untried)</td>" "class.html: a state in the learner's words"
# Ada (p1): 91.2 inside (1), 92.1 don't know (0), 92.2 10x off (0): the mean 0.33 either way
grep '<tr><td>Ada L\.</td><td title="predicted' "$page" >"$tmp/ada-pred"
has "$tmp/ada-pred" '<td class="dont_know" title="? = the learner answered &quot;don&apos;t know' \
	"class.html: don't know is a ?, with its meaning as a title"
has "$tmp/ada-pred" '>0.00</td>' "class.html: a guess that scored 0 stays 0.00"
has "$tmp/ada-pred" '<td>0.33</td></tr>' "class.html: don't know counts 0 in the mean"
has "$page" "<p>? = the learner answered" "class.html: the ? explained under the table"
# Cy has no copy: every exercise not started; those make exercises marks as not graded on
# this machine (Cy's run was made here) are "not graded here" on the page, from results.json
"$dmalab" exercises --work "$tmp/w-none" >"$tmp/ex-none.out" 2>&1
marked=$(grep -c 'not graded here)$' "$tmp/ex-none.out")
[ "$(grep -c '"skips_here": "' "$c/cy.json")" -eq "$marked" ] &&
	ok "results.json: skips_here for the $marked exercises make exercises marks" ||
	bad "results.json: skips_here not for the $marked exercises make exercises marks"
grep -m 1 '<tr><td>Cy &lt;3</td><td class=' "$page" >"$tmp/cy-ex"
[ "$(grep -o '<td class="not_graded" title="its claims skip on this learner&apos;s machine: ' \
	"$tmp/cy-ex" | wc -l)" -eq "$marked" ] &&
	ok "class.html: those $marked exercises are not graded here, the skips as the title" ||
	bad "class.html: not $marked exercises not graded here: $(cat "$tmp/cy-ex")"
[ "$(grep -c '<skipped message="not started (claims .*; not graded here: its claims skip here (' \
	"$tmp/r6/junit.xml")" -eq "$marked" ] &&
	ok "junit.xml: those $marked exercises are skipped as not graded here, the skips named" ||
	bad "junit.xml: not $marked exercises skipped as not graded here"
# Gradescope has no skipped: 0 of 1 still, said to be the machine's and counted on top
"$dmalab" grade --from "$tmp/r6/results.json" --results "$tmp/g6" --gradescope "$tmp/g6/gs.json" \
	>/dev/null 2>&1
[ "$(grep -o 'not graded on the machine of this run: its claims skip there (' "$tmp/g6/gs.json" |
	wc -l)" -eq "$marked" ] &&
	ok "Gradescope: those $marked exercises are said to be not graded on the run's machine" ||
	bad "Gradescope: not $marked exercises said to be not graded on the run's machine"
[ "$marked" -lt 2 ] || has "$tmp/g6/gs.json" \
	"; $marked exercises not begun cannot be graded on the machine of this run" \
	"Gradescope: their number in the top output"
[ "$(grep -o '>not graded here</td>' "$tmp/cy-ex" | wc -l)" -eq "$marked" ] &&
	[ "$(grep -o '>not started</td>' "$tmp/cy-ex" | wc -l)" -eq "$(($(tail -n 1 \
	"$tmp/ex-none.out" | cut -d' ' -f1) - marked))" ] &&
	ok "class.html: the rest not started" || bad "class.html: the rest not 'not started'"
grep -q '>not_yet<\|>untried<\|>not_started<' "$page" && bad "class.html: a JSON word shown" ||
	ok "class.html: no JSON word shown"
# DMALAB_LANG=zh: a Chinese course gets a Chinese page (headings, fixed words, states)
DMALAB_LANG=zh "$dmalab" class "$c" --out "$tmp/class-zh.html" >"$tmp/class-zh.out" 2>&1
has "$tmp/class-zh.out" "位学员，" "class in zh: its line in Chinese, no English plural"
grep -q 'learners\|figures' "$tmp/class-zh.out" && bad "class in zh: English in its line"
for t in '<html lang="zh">' '<h2 id="exercises">练习</h2>' '<h2 id="predictions">预测</h2>' \
	'<h2 id="questions">每台机器上成立的自测题</h2>' '<th>学员</th>' '<th>已完成</th>' \
	'<th>平均</th>' '<th>主机</th>' '>尚未开始</td>' '<p>? = 学员回答'; do
	has "$tmp/class-zh.html" "$t" "class.html in zh: $t"
done
en='>(Exercises|Predictions|Questions[^<]*|learner|done|mean|host|machine|confirmed)<'
en="$en|>(not measured|not started|[0-9]+ of [0-9]+)<|lang=\"en\"|dmalab class"
grep -oE "$en" "$page" | grep -q . || bad "the English page has none of: $en"
grep -oE "$en" "$tmp/class-zh.html" >"$tmp/zh-en"
[ -s "$tmp/zh-en" ] && bad "class.html in zh: English left: $(head -3 "$tmp/zh-en")" ||
	ok "class.html in zh: no English heading or fixed word"
shot() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile" "$@" 2>/dev/null
}
if ! command -v chromium >/dev/null 2>&1; then
	bad "chromium not found (sh harness/deps.sh browser installs it)"
else
	shot --virtual-time-budget=3000 --dump-dom "file://$page" >"$tmp/dom"
	has "$tmp/dom" '<h2 id="exercises">Exercises</h2>' "the browser's DOM: the exercises"
	has "$tmp/dom" ">Ada L.</td>" "the browser's DOM: a learner by name"
	has "$tmp/dom" ">Bo</td>" "the browser's DOM: the second learner"
	has "$tmp/dom" ">0.00</td>" "the browser's DOM: a prediction's score"
	has "$tmp/dom" ">done</td>" "the browser's DOM: an exercise done"
	has "$tmp/dom" "ch1.Q1" "the browser's DOM: a question lab-01 confirmed"
	printf '<!DOCTYPE html><html><body></body></html>\n' >"$tmp/blank.html"
	shot --window-size=1200,900 --screenshot="$tmp/blank.png" "file://$tmp/blank.html"
	shot --window-size=1200,900 --screenshot="$tmp/page.png" "file://$page"
	b=$(wc -c <"$tmp/blank.png" 2>/dev/null || echo 0)
	p=$(wc -c <"$tmp/page.png" 2>/dev/null || echo 0)
	# a blank page compresses to almost nothing; text and tables do not
	if [ "$b" -gt 0 ] && [ "$p" -gt $((b * 4)) ]; then
		ok "the screenshot is not blank ($p bytes, a blank page $b)"
	else bad "the screenshot looks blank ($p bytes, a blank page $b)"; fi
fi

echo "== hints of the exercises"
h() { "$dmalab" hint "$1" --work "$w" --results "$tmp/h" >"$tmp/h.out" 2>&1; }
# set_status ID STATUS: that claim's verdict in the last try of lab-01's copy
set_status() {
	f=$w/01-mlock/results/results.json
	awk -v id="\"$1\"," -v st="$2" '$1 == "\"id\":" && $2 == id { on = 1 }
		on && $1 == "\"status\":" { sub(/: "[a-z_]*"/, ": \"" st "\""); on = 0 }
		{ print }' \
		"$f" >"$f.new" && mv "$f.new" "$f"
}
h 01
has "$tmp/h.out" "lab-01 hint 1 of 3:" "every exercise done: the lab's hints"
set_status 01.1 fail
h 01
has "$tmp/h.out" "exercise 01.lock hint 1 of 3:" "01.lock not done: its hint"
fakes_run check 92 --results "$tmp/r8" --work "$w" >/dev/null 2>&1
grep -A1 'name="exercise 01.lock">' "$tmp/r8/junit.xml" | grep -qF '<failure message="not yet' &&
	ok "junit.xml: an exercise tried and not yet done is a failure" ||
	bad "junit.xml: 01.lock not yet is no failure"
set_status 01.1 pass
set_status 01.3 fail
h 01
has "$tmp/h.out" "exercise 01.unlock hint 1 of 2:" "01.unlock not done: its hint"
set_status 01.3 pass
set_status 01.4 fail
h 01
has "$tmp/h.out" "exercise 01.limit hint 1 of 3:" "01.limit not done: its hint"
h 01
has "$tmp/h.out" "exercise 01.limit hint 2 of 3:" "the next hint of the same exercise"
h 04
has "$tmp/h.out" "exercise 04.first-touch hint 1 of 3:" "04.first-touch untried: its hint"
h 04 && h 04 && h 04
has "$tmp/h.out" "exercise 04.bind hint 1 of " \
	"04.first-touch's hints all shown (not graded here): the next exercise's"
"$dmalab" exercise 03 --work "$w" >/dev/null
h 03
has "$tmp/h.out" "exercise 03.fix-race hint 1 of 3:" "03.fix-race untried: its hint"
h 02
has "$tmp/h.out" "lab-02 hint 1 of 3:" "a lab without a copy: the lab's hints"
h 99
ids=$(sed -n 's/.*hints exist for: //p' "$tmp/h.out")
[ -n "$ids" ] && [ "$ids" = "$(printf '%s\n' $ids | sort | tr '\n' ' ' | sed 's/ $//')" ] &&
	ok "hint 99: the labs with hints, sorted" || bad "hint 99: not sorted: $ids"

# the forecast asks CUDA in a child: a hung driver's child dies with a stopped runner
fake=$BUILD/tests/fake-cuda
LD_LIBRARY_PATH=$fake FAKE_CUDA_HANG_IF=cuda-devices "$dmalab" exercises --work "$w" \
	>"$tmp/hang.out" 2>&1 &
runner=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	pgrep -f -- '--role cuda-devices' >/dev/null && break
	sleep 0.2
done
asked=$(pgrep -f -- '--role cuda-devices' | head -n 1)
kill -TERM "$runner"
wait "$runner" 2>/dev/null
sleep 0.5
state=$(ps -o stat= -p "${asked:-0}" 2>/dev/null) # a zombie left to init is gone
if [ -n "$asked" ] && { [ -z "$state" ] || [ "${state#Z}" != "$state" ]; }; then
	ok "a hung driver's --role cuda-devices child dies with the runner"
else bad "the CUDA child ${asked:-(never seen)} outlived its runner"; kill -KILL "$asked"; fi

echo "test-learner: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
