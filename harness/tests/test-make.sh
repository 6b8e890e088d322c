#!/bin/sh
# test-make.sh - the Makefile's own usage errors: one line naming the bad
# value, a non-zero exit, nothing built (each case fails before a rule runs);
# the yes/no variables read alike (QUICK, RESET, SHUFFLE); make lab-NN builds
# only the runner and its lab, and lab-N is lab-0N; and a CUDA build not redone for another
# spelling of the same nvcc.
set -u
pass=0 fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-make.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# expect RC PATTERN make-args...: make's exit status is RC and its stderr
# matches PATTERN (grep -E).
expect() {
	want_rc=$1 pattern=$2
	shift 2
	err=$(make --no-print-directory "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$want_rc" ] && printf '%s\n' "$err" | grep -Eq "$pattern"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: make $*: exit $rc (want $want_rc), stderr: $err"
	fi
}

expect 2 "QUICK='maybe': use QUICK=1" QUICK=maybe list
# PHASES's value is --phases's own, even when it looks like an option (it said "unknown
# option '-1'")
expect 2 "dmalab: --phases '-1': want a whole number" PHASES=-1 bench
expect 2 "QUICK='2': use QUICK=1" QUICK=2 check
expect 2 "make lab-99: no lab '99'; the labs are: 01 " lab-99
expect 2 "make lab-: which lab\? the labs are: 01 " lab-
expect 2 "make lab-99：没有实验 '99'" DMALAB_LANG=ZH lab-99 # any case, as lang.c reads it
expect 2 "make hint-: which lab\? the labs are: 01 " hint-
# no lab at all, as a learner types it: the same line, not make's "No rule to make target"
expect 2 "make hint: which lab\? the labs are: 01 .*\(make hint-NN\)" hint
expect 2 "make exercise: which lab\? the labs are: 01 .*\(make exercise-NN\)" exercise
expect 2 "make try：哪个实验？" DMALAB_LANG=zh try
expect 2 "RESET='maybe': use RESET=1" RESET=maybe quiz
expect 2 "SHUFFLE='2': use SHUFFLE=1" SHUFFLE=2 quiz
expect 2 "RESULTS='': " RESULTS= check
expect 2 "BASELINE='/no/such.json': no such file" BASELINE=/no/such.json check
expect 2 "RESULTS='a b': " "RESULTS=a b" check
# LABS holds lab ids only: a word that looks like an option or holds shell code is a bad
# lab id (it once took --results from LABS, and ran what followed a ';')
expect 2 "bad lab id '--results'" "LABS=--results $tmp/lr" check
expect 2 "bad lab id 'x;touch'" "LABS=x;touch $tmp/pwned" check
if [ ! -e "$tmp/lr" ] && [ ! -e "$tmp/pwned" ]; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: a LABS word was an option or a command:"; ls "$tmp"; fi

# passes WHAT WANT make-args...: the dmalab command `make -n` prints for the
# last target matches WHAT (a grep pattern) WANT times (0 or 1).
passes() {
	what=$1 want=$2
	shift 2
	got=$(make --no-print-directory -n "$@" 2>/dev/null | grep -c -e "$what" || true)
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: make $*: '$what' in $got command(s), want $want"
	fi
}
for v in 0 no false; do
	passes "quiz .*--reset" 0 quiz RESET=$v
	passes "quiz .*--shuffle" 0 quiz SHUFFLE=$v
done
for v in 1 yes true; do
	passes "quiz .*--reset" 1 quiz RESET=$v
	passes "quiz .*--shuffle" 1 quiz SHUFFLE=$v
done
# make lab-NN in a fresh build folder builds the runner and that lab alone, and runs it;
# hint-NN and try-NN build no lab of the kit's (try builds the learner's copy alone)
fresh=$tmp/fresh
make --no-print-directory BUILD="$fresh" RESULTS="$tmp/r" QUICK=1 lab-04 >"$tmp/lab.out" 2>&1
if [ -x "$fresh/dmalab" ] && [ "$(ls "$fresh/labs")" = lab-04 ] && [ ! -e "$fresh/fleet" ] &&
	grep -q '^summary: ' "$tmp/lab.out" && [ -f "$tmp/r/results.json" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: make lab-04 in a fresh build folder: built $(ls "$fresh/labs" | xargs)"
	tail -5 "$tmp/lab.out" | sed 's/^/    /'
fi
for t in hint-04 try-04; do
	passes " -o $tmp/fresh2/labs/lab-" 0 BUILD="$tmp/fresh2" WORK="$tmp/w" "$t"
done
# one digit is the lab's two: make lab-4 runs lab-04, exercise-4 copies 04, try-4 tries 04
passes "dmalab run .* 04$" 1 lab-4
passes "dmalab exercise 04 " 1 WORK="$tmp/w" exercise-4
passes "dmalab try 04 .*--verify-only" 1 WORK="$tmp/w" try-4
# ... without a second make: a failing try-4 (no copy yet) ends in make's one Error line
make --no-print-directory WORK="$tmp/none" try-4 >"$tmp/try4" 2>&1
if [ "$(grep -c '\*\*\*' "$tmp/try4")" = 1 ] && grep -q 'try-04\] Error 2' "$tmp/try4"
then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: make try-4 failing: want one Error line:"; cat "$tmp/try4"
fi

# make grade prints the grade, not its own command line first (as quiz, hint and class)
make --no-print-directory grade FROM=harness/tests/fixtures/grade/results-kit.json \
	RESULTS="$tmp/g" WORK="$tmp/none" >"$tmp/grade.out" 2>&1
if ! grep -q -e '--results' "$tmp/grade.out" && grep -q '^overall: ' "$tmp/grade.out"
then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: make grade echoed its command:"; head -3 "$tmp/grade.out"
fi

make --no-print-directory help >"$tmp/help" 2>&1
if grep -q "RESULTS=DIR" "$tmp/help"; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: make help does not name RESULTS=DIR"; fi

# The same nvcc by another path (a symbolic link to it) is the same toolkit:
# an object built with one spelling is not compiled again with the other.
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -n "$nvcc" ]; then
	mkdir "$tmp/bin" && ln -s "$(readlink -f "$nvcc")" "$tmp/bin/nvcc"
	obj=$tmp/b/obj/base/sizes.o
	make --no-print-directory BUILD="$tmp/b" NVCC="$nvcc" "$obj" >"$tmp/first.out" 2>&1
	make --no-print-directory BUILD="$tmp/b" NVCC="$tmp/bin/nvcc" "$obj" >"$tmp/again.out" 2>&1
	if [ -f "$obj" ] && ! grep -q " -c -o $obj" "$tmp/again.out"; then pass=$((pass + 1))
	else fail=$((fail + 1)); echo "FAIL: NVCC=$tmp/bin/nvcc (a link to $nvcc) rebuilt $obj:"
		sed 's/^/    /' "$tmp/again.out"; fi
else
	echo "test-make: no nvcc: the spelling check skipped"
fi
echo "test-make: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
