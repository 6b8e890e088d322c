#!/bin/sh
# test-lang.sh - the learner's language (harness/base/lang.h): every message
# the C code marks user-facing (MSG("id", ...)) has a zh entry in
# answers/messages.zh.md, and no C file keeps Chinese words of its own; every
# claim of every lab has its text in zh, every lab its title and a
# README.zh.md, and every figure title and fixed word of plots/ its zh; lab-01
# in zh narrates in Chinese with the same TAP test lines and JSON keys and
# notes as in English, and so do lab-04 (a CPU lab) and lab-02 (a CUDA lab, a
# skip without a GPU); DMALAB_LANG and the locale choose; every exercise
# region of the lab files has its zh text, which make exercise-NN puts into
# the learner's copy; make exercises, try's refusals and hint speak zh with
# English's exit codes; the runner's usage errors (run, check, baseline,
# compare, history, metrics) in zh with exit 2, English unchanged; the
# harness's progress, stopping rule and the runner's got/want in zh; a
# claim_check_true text outside MSG() fails (msg_conversions.py); and no
# README.zh.md is older than its English README by more than the tolerance.
#
#   BUILD=build sh harness/tests/test-lang.sh      (make test-lang)
#
# Tolerance: one day (ZH_LAG_S, seconds) between the last commits of a
# README.md and its README.zh.md: an English edit and its Chinese follow-up
# land in the same round of work; a Chinese README a day behind fails.
set -u
BUILD=${BUILD:-build}
ZH_LAG_S=${ZH_LAG_S:-86400}
table=answers/messages.zh.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-lang.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
npass=0
nfail=0
ok() { npass=$((npass + 1)); echo "ok: $1"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $1"; }
# a lab's TAP test lines and YAML statuses, its JSON keys and words (numbers
# and noise flags differ run to run)
tests_of() { grep -E '^(ok|not ok) |^  status: |^1\.\.' "$1"; }
json_words() { grep -oE '"[A-Za-z_]+":|"[^"0-9]*[A-Za-z][^"0-9]*"' "$1"; }
# A verdict measured twice on this busy machine may differ (01.8's Mlocked
# moved by another tenant, 04.1 pass then inconclusive): the language does
# not choose it, so verdict words are left out of the comparisons.
# An inconclusive claim's directive carries its measured interval: left out too.
same_tests() {
	tests_of "$1" |
		sed -E 's/^not ok /ok /; s/^(  status: ).*/\1/; s/ # SKIP inconclusive: .*//'
}
same_words() { json_words "$1" | grep -vxE '"(pass|fail|inconclusive|skip|error)"'; }

echo "== every MSG id of the kit (its tests aside) has a zh entry"
grep -rhoE 'MSG\("[^"]+"' harness labs --exclude-dir=tests \
	--include='*.c' --include='*.cu' --include='*.h' |
	sed 's/^MSG("//; s/"$//' | sort -u >"$tmp/ids"
[ -s "$tmp/ids" ] || bad "no MSG id found in the C code"
while read -r id; do
	if grep -qxF "## $id" "$table"; then ok "$id"; else bad "$id: no '## $id' in $table"; fi
done <"$tmp/ids"

echo "== the C code's Chinese is the table's: no word list of its own beside MSG()"
# what a learner may type at the quiz ({ "跳过", 's' }) is input, not a message;
# grade's count line puts its two numbers the other way round in zh
typed="^harness/runner/quiz\.c:[0-9]+:.*\{ \"[^\"]+\", '[ynsq]' \}"
grep -rnP '[\x{4e00}-\x{9fff}]' harness labs --exclude-dir=tests \
	--include='*.c' --include='*.cu' --include='*.h' |
	grep -vE -e "$typed" -e '条论断中' -e '^[^:]+:[0-9]+: \*' >"$tmp/cjk"
if [ -s "$tmp/cjk" ]; then
	bad "Chinese words outside $table: $(cut -d: -f1,2 "$tmp/cjk" | tr '\n' ' ')"
else
	ok "no Chinese word list in the C code"
fi

echo "== every zh message takes the English's printf arguments (else English shows)"
if out=$(python3 harness/tests/tools/msg_conversions.py 2>&1); then ok "${out##*
}"
else bad "$out"; fi

echo "== every claim of every lab has its text in zh, every lab a README.zh.md"
for dir in labs/[0-9][0-9]-*; do
	[ -f "$dir/README.zh.md" ] && ok "$dir/README.zh.md" || bad "$dir: no README.zh.md"
	grep -hoE '^	\{ "[0-9]{2}\.[0-9]+"' "$dir"/lab.c "$dir"/lab.cu 2>/dev/null |
		grep -oE '[0-9]{2}\.[0-9]+' >"$tmp/claims"
	[ -s "$tmp/claims" ] || bad "$dir: no claim found in its lab file"
	while read -r c; do
		if grep -qxF "## claim.$c" "$table"; then ok "claim.$c"
		else bad "claim.$c: no '## claim.$c' in $table"; fi
	done <"$tmp/claims"
done

echo "== every planned claim (answers/planned-claims.md) has its text in zh"
grep -oE '^claim: [0-9]{2}\.[0-9]+' answers/planned-claims.md | cut -d' ' -f2 >"$tmp/planned"
[ -s "$tmp/planned" ] || bad "no planned claim found in answers/planned-claims.md"
while read -r c; do
	grep -qxF "## planned.$c" "$table" && ok "planned.$c" ||
		bad "planned.$c: no '## planned.$c' in $table"
done <"$tmp/planned"

echo "== every lab's title, every figure's title and the plots' fixed words have zh"
for dir in labs/[0-9][0-9]-*; do
	n=$(basename "$dir" | cut -c1-2)
	grep -qxF "## title.$n" "$table" && ok "title.$n" || bad "title.$n: no '## title.$n'"
done
# the ids plots/ names literally (T("id", ...)), and fig.NAME of make_plots' figures
# (an id that ends in . or - is a prefix the code completes: left out)
{ grep -ohE '\bT\("[a-z0-9._-]*[a-z0-9]"' plots/*.py | sed 's/^T("//; s/"$//'
  grep -ohE 'figure\("lab[0-9a-z_]+"' plots/make_plots.py | sed 's/^figure("/fig./; s/"$//'
} | sort -u >"$tmp/plot-ids"
[ -s "$tmp/plot-ids" ] || bad "no message id found in plots/"
while read -r id; do
	grep -qxF "## $id" "$table" && ok "$id" ||
		bad "$id: plots/ names it, $table has no '## $id'"
done <"$tmp/plot-ids"

echo "== every skip reason code (harness/base/record.h) has its zh explanation"
grep -oE '^#define SKIP_[A-Z_]+ +"[^"]+"' harness/base/record.h |
	sed -E 's/.*"([^"]+)"/\1/; s/:/-/g' >"$tmp/skips"
[ -s "$tmp/skips" ] || bad "no SKIP_ code found in harness/base/record.h"
while read -r code; do
	grep -qxF "## skip.$code" "$table" && ok "skip.$code" || bad "skip.$code: no zh explanation"
done <"$tmp/skips"

# The zh texts a learner reads: the message table, the READMEs, the zh lines
# of the answers and hints (the lines with a Chinese character).
zh_lines() {
	grep -HnP '[\x{4e00}-\x{9fff}]' answers/messages.zh.md answers/ch1.md answers/ch2.md \
		answers/hints.md README.zh.md labs/*/README.zh.md
}
echo "== one set of verdict words (answers/terms.md: 成立 被推翻 跳过 无定论) in every zh text"
# 通过 as a verdict: right before a closing bracket or a stop; 通过 X ("by way
# of") stays
zh_lines | grep -P '不符|证实|通过(?=[）)，。；、：（或]|$)|个失败|论断失败|不算失败' \
	>"$tmp/verdicts"
[ -s "$tmp/verdicts" ] && { bad "verdict words other than terms.md's:"; head "$tmp/verdicts"; } ||
	ok "only 成立 / 被推翻 / 跳过 / 无定论"

echo "== the words of answers/terms.md, not their variants"
# wrong word|its terms.md form; a bare English "kernel" (not bracketed after
# 核函数) and "peer access" in a Chinese line are variants too
for pair in '可分页|可换页' '托管内存|统一内存' '中转缓冲区|中转区' '复制|拷贝' '声明|论断' \
	'peer access|点对点访问' '(?<!（)\bkernel\b(?!）)|核函数' \
	'KV 缓存|KV cache' 'KV Cache|KV cache'; do
	wrong=${pair%|*}; right=${pair##*|}
	if zh_lines | grep -P "$wrong" >"$tmp/variant"; then
		bad "'$wrong' where terms.md says $right:"; head -n 3 "$tmp/variant"
	else ok "no '$wrong' (terms.md: $right)"; fi
done

echo "== lab-01 in zh: Chinese comments, English test lines and JSON"
lab=$BUILD/labs/lab-01
env -u LC_ALL -u LC_MESSAGES -u DMALAB_LANG LANG=C "$lab" --quick --json "$tmp/en.json" \
	>"$tmp/en.tap" 2>&1
env -u LC_ALL -u LC_MESSAGES LANG=C DMALAB_LANG=zh "$lab" --quick --json "$tmp/zh.json" \
	>"$tmp/zh.tap" 2>&1
if [ "$(same_tests "$tmp/en.tap")" = "$(same_tests "$tmp/zh.tap")" ]; then
	ok "TAP test lines and YAML the same"
else bad "TAP test lines differ:"; diff "$tmp/en.tap" "$tmp/zh.tap" | head; fi
if [ "$(same_words "$tmp/en.json")" = "$(same_words "$tmp/zh.json")" ]; then
	ok "JSON keys and words the same"
else bad "JSON differs:"; diff "$tmp/en.json" "$tmp/zh.json" | head; fi
if grep -q '^# 本进程：' "$tmp/zh.tap" && grep -q '^# 01.1 ' "$tmp/zh.tap"; then
	ok "zh narration and claim texts"
else bad "no Chinese narration:"; head -n 12 "$tmp/zh.tap"; fi
if grep -q '^# this process:' "$tmp/zh.tap"; then bad "an English note in zh (its conversions?)"
else ok "no note fell back to English"; fi
# a claim's note (claim_note): a zh comment before its test line, whose YAML
# note stays English; none in English, where the YAML says it already
if grep -q '^# 01\.1 注：VmLck' "$tmp/zh.tap" && grep -q '^  note: "VmLck' "$tmp/zh.tap" &&
	! grep -qE '^# 01\.[0-9]+ note: ' "$tmp/en.tap"; then
	ok "claim notes in zh as comments, English in the YAML"
else bad "01.1's note in zh:"; grep -n 'note' "$tmp/zh.tap" | head -n 4; fi

# A CPU lab (04: 1 node here, its local claims measured) and a CUDA lab that
# skips without a GPU (02): the same test lines and JSON, a Chinese claim text
# and (04) a Chinese narration line.
for n in 04 02; do
	echo "== lab-$n in zh: the same TAP test lines and JSON as in English"
	lab_n=$BUILD/labs/lab-$n
	env -u LC_ALL -u LC_MESSAGES -u DMALAB_LANG LANG=C "$lab_n" --quick \
		--json "$tmp/en$n.json" >"$tmp/en$n.tap" 2>&1
	env -u LC_ALL -u LC_MESSAGES LANG=C DMALAB_LANG=zh "$lab_n" --quick \
		--json "$tmp/zh$n.json" >"$tmp/zh$n.tap" 2>&1
	if [ "$(same_tests "$tmp/en$n.tap")" = "$(same_tests "$tmp/zh$n.tap")" ]; then
		ok "lab-$n: TAP test lines the same"
	else bad "lab-$n: TAP test lines differ:"; diff "$tmp/en$n.tap" "$tmp/zh$n.tap" | head; fi
	if [ "$(same_words "$tmp/en$n.json")" = "$(same_words "$tmp/zh$n.json")" ]; then
		ok "lab-$n: JSON keys and words the same"
	else bad "lab-$n: JSON differs:"; diff "$tmp/en$n.json" "$tmp/zh$n.json" | head; fi
	grep -q "^# $n\.1 .*[锁随]" "$tmp/zh$n.tap" && ok "lab-$n: a claim text in zh" ||
		bad "lab-$n: no Chinese claim text"
done
grep -q '^# 本地延迟：' "$tmp/zh04.tap" && ok "lab-04: narration in zh" ||
	bad "lab-04: its latency line not in Chinese"

echo "== the setting: DMALAB_LANG, else the locale"
"$lab" --quick 2>/dev/null | grep -q '^# 本进程' && bad "English is the default" || ok "default"
env -u DMALAB_LANG -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 "$lab" --quick 2>/dev/null |
	grep -q '^# 本进程' && ok "LANG=zh_CN.UTF-8" || bad "LANG=zh_CN.UTF-8 not Chinese"
env -u LC_ALL LC_MESSAGES=zh_TW LANG=C "$lab" --quick 2>/dev/null |
	grep -q '^# 本进程' && ok "LC_MESSAGES=zh_TW" || bad "LC_MESSAGES=zh not Chinese"
env DMALAB_LANG=en LANG=zh_CN.UTF-8 "$lab" --quick 2>/dev/null |
	grep -q '^# 本进程' && bad "DMALAB_LANG=en loses to LANG" || ok "DMALAB_LANG=en wins"

echo "== the runner: human words in zh, TAP's summary line and the claims golden English"
d=$BUILD/dmalab
DMALAB_LANG=zh "$d" run --quick --format human --results "$tmp/rh" 01 >"$tmp/human" 2>&1
grep -q '^成绩单（' "$tmp/human" && grep -q '^汇总：[0-9]* 个实验成立' "$tmp/human" &&
	grep -q ' 01.1  对全新区域' "$tmp/human" && ok "human report card and summary" ||
	{ bad "human format not in zh:"; tail -n 14 "$tmp/human"; }
[ "$(grep -c '^  01.1 ' "$tmp/human")" = 0 ] && ok "a claim's text once, with its verdict" ||
	bad "the lab's claim-text comment shown twice"
grep -q '^# 运行 lab-01（超时 [0-9]* 秒）：mlock 与 VmLck' "$tmp/human" && ok "the lab's header" ||
	bad "the lab's header line not in zh: $(grep -m1 'lab-01' "$tmp/human")"
# the note under a claim: the lab's zh comment in the place of the English
grep -qE '^ +注：VmLck 变化 ' "$tmp/human" &&
	! grep -qE '注：VmLck [+-][0-9]+ KiB for' "$tmp/human" &&
	! grep -q '^  *01\.1 注：' "$tmp/human" && ok "a claim's note in zh, once" ||
	{ bad "01.1's note not in zh under its claim:"; grep -n '注' "$tmp/human" | head -n 3; }
# a skipped claim's reason: its code, then what the code means in zh
if grep -q '  no-cuda-driver: ' "$tmp/human"; then
	grep -q 'no-cuda-driver: .*（这台机器没有 NVIDIA 驱动' "$tmp/human" &&
		ok "a skip reason explained" || bad "no-cuda-driver without its zh explanation"
fi
DMALAB_LANG=zh "$d" grade --from "$tmp/rh/results.json" >"$tmp/grade" 2>&1
grep -qE '^  ch1\.Q1  (成立|被推翻|部分成立|未验证)' "$tmp/grade" &&
	grep -qE '^      01\.1   (成立|被推翻|无定论) ' "$tmp/grade" &&
	ok "grade's verdict words" ||
	{ bad "grade's verdict words not terms.md's:"; head -n 4 "$tmp/grade"; }
grep -E ' (confirmed|contradicted|skipped|inconclusive|unverified)[ ;]' "$tmp/grade" |
	head -n 3 >"$tmp/grade-en"
[ -s "$tmp/grade-en" ] && { bad "English verdict words in zh grade:"; cat "$tmp/grade-en"; } ||
	ok "no English verdict word in zh grade"
DMALAB_LANG=zh "$d" run --quick --format tap --results "$tmp/rt" 01 >"$tmp/tap" 2>&1
grep -q '^summary: [0-9]* passed, [0-9]* failed, [0-9]* skipped' "$tmp/tap" &&
	ok "TAP summary line English" || bad "TAP summary line changed"
# TAP's '#' comments are for people: in zh they are Chinese, its test lines English
grep -q '^# 运行 lab-01（' "$tmp/tap" && grep -q '^# 成绩单（' "$tmp/tap" &&
	grep -qE '^(not )?ok 1 - lab-01 mlock and VmLck' "$tmp/tap" &&
	! grep -qE '^# (running lab-|report card)' "$tmp/tap" &&
	ok "TAP comments in zh, test lines English" ||
	{ bad "TAP comments not in zh:"; grep '^#' "$tmp/tap" | head -n 3; }
# a lab's own usage errors and --help in zh; the exit code stays 2
out=$(DMALAB_LANG=zh "$lab" --bogus 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$out" = "lab-01: 未知选项 '--bogus'（见 --help）" ] &&
	ok "a lab's usage error in zh" || bad "lab-01 --bogus in zh: rc $rc, '$out'"
DMALAB_LANG=zh "$lab" --help | grep -q '^用法：lab-01 \[选项\]' && ok "a lab's --help in zh" ||
	bad "lab-01 --help not in zh"
# dmalab grade --help in zh: a continuation under the text after its label, as in English
DMALAB_LANG=zh "$d" grade --help >"$tmp/gh" 2>&1
grep -q '^      dmalab quiz ' "$tmp/gh" && grep -q '^        2 ' "$tmp/gh" &&
	ok "grade --help in zh: continuations under 用法：'s and 退出码：'s text" ||
	bad "grade --help in zh: continuations off their label's text"
# every lab's topic and each option's help text in zh (opt.LAB.NAME, topic.LAB): a help
# line that begins with an English word after the option's name has no zh entry
for l in "$BUILD"/labs/lab-*; do
	DMALAB_LANG=zh "$l" --help >"$tmp/help" 2>&1
	eng=$({ sed -n '3p' "$tmp/help"; grep -E '^ {18}[^ ]|^  --[a-z-]+( [A-Z]+)?  +[^ ]' \
		"$tmp/help"; } | grep -vP '[\x{4e00}-\x{9fff}]')
	[ -z "$eng" ] && ok "$(basename "$l") --help in zh" ||
		bad "$(basename "$l") --help has English in zh: $(echo "$eng" | head -n 1)"
done
# make list's rows: the zh labels take the English's 9 columns
DMALAB_LANG=zh "$d" list | grep -qE '^  需要：   [^ ]' && ok "list's needs row in zh, aligned" ||
	bad "list's needs row not in zh or misaligned"
DMALAB_LANG=zh "$d" claims | head -n 1 | grep -q '^dmalab claims：' && ok "claims header" ||
	bad "claims header not in zh"
DMALAB_LANG=zh "$d" list | grep -q '^共 [0-9]* 个实验' && ok "list count" ||
	bad "list count not in zh"
# test-claims and claims-golden pin DMALAB_LANG=en: a learner's locale changes no golden
[ "$(DMALAB_LANG=en LANG=zh_CN.UTF-8 "$d" claims --format human | head -n 2)" = \
  "$(head -n 2 harness/tests/golden/claims.txt)" ] && ok "DMALAB_LANG=en gives the golden's head" ||
	bad "DMALAB_LANG=en claims differs from the golden's head"
grep -q 'DMALAB_LANG=en "$BUILD/dmalab" claims' harness/tests/test-claims.sh &&
	ok "test-claims pins English" || bad "test-claims does not pin DMALAB_LANG=en"

echo "== the runner's usage errors in zh, English unchanged, exit 2 in both"
# each command's own option error and one error of its own (usage.c's
# die_bad_option, the command's MSG()s): the zh line has no English words
# but the command and option names the learner typed (zh_tail: what follows the zh
# words; en_words: English the zh line must not have)
zh_tail='（见 dmalab' en_words='\b(needs|unknown|want|bad|takes|prints|reads)\b'
usage_case() { # want-en-words args...
	want=$1; shift
	DMALAB_LANG=en "$d" "$@" >"$tmp/ue" 2>&1; erc=$?
	DMALAB_LANG=zh "$d" "$@" >"$tmp/uz" 2>&1; zrc=$?
	if [ "$erc" = 2 ] && [ "$zrc" = 2 ] && grep -qF "$want" "$tmp/ue" &&
		grep -qP "^dmalab: .*[\x{4e00}-\x{9fff}].*$zh_tail" "$tmp/uz" &&
		! grep -qE "$en_words" "$tmp/uz"; then
		ok "dmalab $*: zh, exit 2"
	else bad "dmalab $*: rc $erc/$zrc: $(cat "$tmp/ue") / $(cat "$tmp/uz")"; fi
}
for c in baseline compare history metrics run check; do
	usage_case "unknown option '--bogus'" "$c" --bogus
done
for c_opt in baseline:--out compare:--format history:--json metrics:--out run:--format \
	check:--results; do
	usage_case "option '${c_opt#*:}' needs a value" "${c_opt%%:*}" x.json "${c_opt#*:}"
done
usage_case "'baseline' needs --out FILE" baseline x.json
usage_case "(want human or json)" compare x.json --format xml
usage_case "want a whole number from 3" history x --min-runs 1
usage_case "metrics reads one results file" metrics x.json y.json
usage_case "(want a number like 02)" run x9
usage_case "'run' needs at least one lab id" run
usage_case "(want a number from 0.1 to 1000)" check --timeout-mul 0

echo "== a trainer's bad input to class and grade --from: zh, English unchanged, exit 2"
mkdir -p "$tmp/no-runs" && : >"$tmp/a-file"
zh_tail='' en_words='no such|not a folder|no learner|cannot grade|make a'
usage_case "class: no such folder '$tmp/none'" class "$tmp/none"
usage_case "is a file, not a folder" class "$tmp/a-file"
usage_case "no learner's results.json in '$tmp/no-runs'" class "$tmp/no-runs"
usage_case "cannot grade: $tmp/none" grade --from "$tmp/none"

echo "== a DMALAB_LANG the kit has no words for is bad input; a foreign locale is not"
for prog in "$d list" "$BUILD/labs/lab-01 --quick"; do
	DMALAB_LANG=fr $prog >"$tmp/lf" 2>&1; rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/lf")" = 1 ] && grep -q "DMALAB_LANG 'fr'" "$tmp/lf"
	then ok "DMALAB_LANG=fr ${prog%% *}: one line, exit 2"
	else bad "DMALAB_LANG=fr $prog: rc $rc: $(cat "$tmp/lf")"; fi
done
LANG=fr_FR.UTF-8 DMALAB_LANG= "$d" list >"$tmp/lf" 2>&1 && grep -q '^lab-01 ' "$tmp/lf" &&
	ok "LANG=fr_FR: English, no error" || bad "LANG=fr_FR: $(head -n 2 "$tmp/lf")"

echo "== every exercise region of the lab files has its zh text (exercise.ID), no '*/' in it"
# the regions the lab files have now, not a fixed list: a new region without
# its zh text fails here
grep -ohE '/\* EXERCISE [0-9]{2}\.[a-z0-9-]+ grades' labs/[0-9][0-9]-*/lab.c* |
	awk '{print $3}' | sort -u >"$tmp/regions"
[ -s "$tmp/regions" ] || bad "no exercise region found in labs/*/lab.c*"
while read -r id; do
	zh=$(sed -n "/^## exercise\.$id\$/{n;p;q}" "$table")
	case $zh in
	"zh: "*'*/'*) bad "exercise.$id: its zh text has '*/', which ends the copy's comment" ;;
	"zh: "*) ok "exercise.$id" ;;
	*) bad "exercise.$id: no '## exercise.$id' with a 'zh:' line in $table" ;;
	esac
done <"$tmp/regions"
# a stub's // comments: the zh copy leaves them out and says them (stub.ID)
for f in labs/[0-9][0-9]-*/lab.c*; do
	awk '/\/\* EXERCISE [0-9][0-9]\./ { id = $3 } /^[ \t]*\/\* STUB/ { s = 1; next }
		/END STUB \*\// { s = 0 } s && /\/\// { print id }' "$f"
done | sort -u >"$tmp/stubs"
while read -r id; do
	grep -qxF "## stub.$id" "$table" && ok "stub.$id" ||
		bad "stub.$id: its stub's // comments have no zh ('## stub.$id') in $table"
done <"$tmp/stubs"

echo "== make exercise-NN in zh: each region's zh text in the copy, which try accepts"
d=$BUILD/dmalab
w=$tmp/work
for n in $(cut -c1-2 "$tmp/regions" | sort -u); do
	DMALAB_LANG=zh "$d" exercise "$n" --work "$w" >"$tmp/ex$n" 2>&1
	copy=$(ls "$w"/"$n"-*/lab.c* 2>/dev/null)
	for id in $(grep "^$n\." "$tmp/regions"); do
		grep -qF "/* 练习 $id（要写的内容）：" "$copy" && ok "$id: zh text in the copy" ||
			bad "$id: no zh text in the copy '$copy'"
	done
	# no English // comment between a region's markers
	awk '/\/\* EXERCISE /{r = 1} /END EXERCISE/{r = 0} r && /\/\/ [a-z]/' "$copy" \
		>"$tmp/en-stub"
	[ -s "$tmp/en-stub" ] && bad "lab $n: an English stub comment in the zh copy: $(
		head -n 1 "$tmp/en-stub")" || ok "lab $n: no English stub comment in the zh copy"
	grep -q "^exercise-$n：已写出 " "$tmp/ex$n" && ok "lab $n: exercise's words in zh" ||
		bad "lab $n: exercise's words not zh: $(head -n 1 "$tmp/ex$n")"
	"$d" try "$n" --work "$w" --verify-only >"$tmp/v$n" 2>&1 &&
		ok "lab $n: the zh copy is not refused" ||
		bad "lab $n: zh copy refused: $(cat "$tmp/v$n")"
done
# English: no zh note in the copy
"$d" exercise 01 --work "$tmp/work-en" >/dev/null 2>&1
grep -qP '[\x{4e00}-\x{9fff}]' "$tmp"/work-en/01-*/lab.c* && bad "a zh note in an English copy" ||
	ok "an English copy has no zh note"

echo "== make exercises, try's refusals and hint in zh: states and words, exit codes as in English"
DMALAB_LANG=zh "$d" exercises --work "$w" >"$tmp/exs" 2>&1
grep -qE '^01\.lock +lab-01  尚未完成（还没试过） +论断 01\.1' "$tmp/exs" &&
	grep -q '^共 [0-9]* 个练习' "$tmp/exs" && ok "exercises: states and count" ||
	{ bad "exercises not in zh:"; head -n 3 "$tmp/exs"; }
[ "$(DMALAB_LANG=zh "$d" exercises --ids --work "$w")" = "$("$d" exercises --ids --work "$w")" ] &&
	ok "exercises --ids the same" || bad "exercises --ids differs in zh"
sed -i 's/^#include/#include  /' "$w"/01-*/lab.c*
DMALAB_LANG=zh "$d" try 01 --work "$w" --verify-only >"$tmp/ref" 2>&1; zrc=$?
"$d" try 01 --work "$w" --verify-only >/dev/null 2>&1; erc=$?
grep -q '被拒绝：.* 在练习区域之外与实验不同' "$tmp/ref" && [ "$zrc" = 2 ] && [ "$erc" = 2 ] &&
	ok "a refusal in zh, exit 2 both" || bad "refusal: rc $zrc/$erc: $(cat "$tmp/ref")"
DMALAB_LANG=zh "$d" try 03 --work "$w" --not-compiled >"$tmp/nc" 2>&1; zrc=$?
grep -q '无法编译' "$tmp/nc" && [ "$zrc" = 1 ] && ok "does not compile: zh, exit 1" ||
	bad "not compiled: rc $zrc: $(cat "$tmp/nc")"
DMALAB_LANG=zh "$d" exercises --work "$w" | grep -qE '^03\.fix-race +lab-03  无法编译' &&
	ok "exercises: does not compile" || bad "exercises: 03.fix-race not 无法编译"
DMALAB_LANG=zh "$d" hint 03 --work "$w" --results "$tmp/hints" >"$tmp/hint" 2>&1
grep -q '^你的副本中练习 03\.fix-race 的状态：无法编译' "$tmp/hint" && ok "hint: the state in zh" ||
	bad "hint's state line not in zh: $(head -n 1 "$tmp/hint")"

echo "== the harness's narration in zh: progress, the stopping rule, the header's title"
# (lab-01 and lab-04 as run above): none of the harness's own English lines
grep -hE '^# progress: |interval .* of the median after' "$tmp/zh.tap" "$tmp/zh04.tap" \
	>"$tmp/harness-en"
[ -s "$tmp/harness-en" ] && { bad "the harness's English in zh:"; head -n 3 "$tmp/harness-en"; } ||
	ok "no English progress or stopping-rule line"
for t in "$tmp/zh.tap" "$tmp/zh04.tap"; do
	grep -m1 '^# lab-' "$t" | grep -qP '[\x{4e00}-\x{9fff}]' &&
		ok "the TAP header's title in zh" ||
		bad "the TAP header's title not zh: $(grep -m1 '^# lab-' "$t")"
done
grep -q '^# 进度：' "$tmp/zh04.tap" && ok "lab-04: progress in zh" ||
	echo "ok: lab-04 printed no progress line (under 2 s between phases)"
grep -q '"what": "latency, memory on node' "$tmp/zh04.json" && ok "JSON's phases in English" ||
	bad "lab-04's JSON phases not English"
grep -E '^  +(got .*, want |note: )' "$tmp/human" | head -n 3 >"$tmp/human-en"
[ -s "$tmp/human-en" ] && { bad "English got/want or note in zh human:"; cat "$tmp/human-en"; } ||
	ok "human format: got/want and notes in zh"

echo "== no README.zh.md older than its README.md by more than $ZH_LAG_S s"
commit_time() { t=$(git log -1 --format=%ct -- "$1" 2>/dev/null); echo "${t:-$(date +%s)}"; }
for zh in README.zh.md labs/*/README.zh.md; do
	[ -e "$zh" ] || continue
	en=$(dirname "$zh")/README.md
	lag=$(( $(commit_time "$en") - $(commit_time "$zh") ))
	if [ "$lag" -le "$ZH_LAG_S" ]; then ok "$zh (English newer by ${lag} s at most)"
	else bad "$zh is $lag s older than $en: bring it up to date"; fi
done

echo "test-lang: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
