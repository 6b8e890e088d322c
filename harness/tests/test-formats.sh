#!/bin/sh
# test-formats.sh - the formats other tools read, checked with those tools:
# junit.xml (and --format junit) parsed by junitparser, xmllint --noout and
# xmllint --schema with Jenkins' junit-10.xsd; the Gradescope results.json of
# `dmalab grade --gradescope` validated with jsonschema against a schema of
# Gradescope's documented format, and the scores of known outcomes.  The
# runner runs on the fake labs (pass, fail, skip, error, inconclusive, known
# errata: harness/tests/fakelabs).
#
#   BUILD=build sh harness/tests/test-formats.sh      (make test-formats)
#
# Needs $BUILD/dmalab and $BUILD/fakelabs (make fakelabs); python3 with
# junitparser and jsonschema (Debian python3-junitparser, python3-jsonschema)
# and xmllint (libxml2-utils): a check whose tool is missing is skipped, and
# says so.  DMALAB_PYTHON=python3 names the Python to try first.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd -P)
fix=$here/fixtures
errata=$fix/errata-fake.md
fakes=$BUILD/fakelabs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-formats.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
npass=0
nfail=0
nskip=0

ok() { npass=$((npass + 1)); echo "ok: $1"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $1"; }
skip() { nskip=$((nskip + 1)); echo "skip: $1"; }
check() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3 (got $1, want $2)"; fi; }
has() { if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3: no '$2' in $1"; fi; }
run_dmalab() { "$BUILD/dmalab" --labs-dir "$fakes" --errata "$errata" "$@"; }

# py_expect PYTHON WHAT ARG...: the Python script on stdin, given ARGs, prints
# each problem it finds and nothing else: one ok or bad line (with them).
py_expect() {
	py=$1
	what=$2
	shift 2
	if "$py" - "$@" >"$tmp/py.out" 2>&1 && [ ! -s "$tmp/py.out" ]; then
		ok "$what"
	else
		bad "$what:"; cat "$tmp/py.out"
	fi
}

# The first Python that imports module $1 (the first python3 on PATH may
# lack Debian's packages, which /usr/bin/python3 has).
python_with() {
	for py in ${DMALAB_PYTHON:-} python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 && "$py" -c "import $1" 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	return 1
}

if [ ! -x "$BUILD/dmalab" ] || [ ! -x "$fakes/lab-91" ]; then
	echo "FAIL: build $BUILD/dmalab and the fake labs first (make fakelabs)"
	exit 1
fi
py_junit=$(python_with junitparser) || py_junit=
py_schema=$(python_with jsonschema) || py_schema=
py_any=$(python_with json) || py_any=

echo "== junit.xml beside results.json, and --format junit"
run_dmalab check --results "$tmp/all" --format junit >"$tmp/all.xml" 2>"$tmp/all.err"
check $? 1 "check on every fake lab, --format junit: exit 1 (a lab failed)"
if cmp -s "$tmp/all.xml" "$tmp/all/junit.xml"; then
	ok "--format junit prints exactly the junit.xml written"
else
	bad "--format junit output differs from $tmp/all/junit.xml"
fi
check "$(head -c 5 "$tmp/all.xml")" "<?xml" "stdout is the XML document alone"
check "$(tail -n 1 "$tmp/all.err")" "summary: 2 passed, 8 failed, 1 skipped, 1 inconclusive" \
	"junit format: progress and the summary line on stderr"
check "$(grep -c '^# running lab-' "$tmp/all.err")" 12 "junit format: each lab's progress on stderr"
check "$(ls "$tmp/all" | grep -c 'junit.xml.')" 0 "junit.xml written atomically (no temporary left)"
run_dmalab check 91 --results "$tmp/tap" --format tap >"$tmp/tap.out" 2>&1
check "$(grep -c '^<' "$tmp/tap.out"):$(head -c 5 "$tmp/tap/junit.xml")" "0:<?xml" \
	"tap format: junit.xml written too, no XML on stdout"

if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$tmp/all/junit.xml" 2>"$tmp/lint.err"; then
		ok "xmllint --noout: junit.xml is well-formed"
	else
		bad "xmllint --noout: junit.xml is not well-formed:"; head -n 5 "$tmp/lint.err"
	fi
else
	skip "xmllint not found (Debian libxml2-utils): well-formedness and the schema not checked"
fi

# junit-10.xsd has no <properties> inside <testcase> (pytest's record_property
# puts them there, as junit.c does for a known erratum): the schema check is
# made on a copy without them; junitparser checks them below.
if command -v xmllint >/dev/null 2>&1 && [ -n "$py_any" ]; then
	"$py_any" - "$tmp/all/junit.xml" "$tmp/no-case-props.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
tree = ET.parse(sys.argv[1])
for case in tree.getroot().iter("testcase"):
    for props in case.findall("properties"):
        case.remove(props)
tree.write(sys.argv[2], encoding="UTF-8", xml_declaration=True)
EOF
	if xmllint --noout --schema "$fix/junit-10.xsd" "$tmp/no-case-props.xml" \
		>"$tmp/xsd.out" 2>&1; then
		ok "xmllint --schema junit-10.xsd (Jenkins): junit.xml validates"
	else
		bad "junit.xml does not validate against junit-10.xsd:"; head -n 10 "$tmp/xsd.out"
	fi
fi

echo "== junitparser reads every claim's kind"
if [ -n "$py_junit" ]; then
	says="junitparser: 12 suites, 34 cases (3 failures, 12 errors, 7 skipped)"
	py_expect "$py_junit" \
		"$says, each claim's kind, errata, properties" \
		"$tmp/all/junit.xml" "$tmp/all/results.json" <<'EOF'
import json, sys
from junitparser import JUnitXml, Properties, Failure, Skipped, Error

xml = JUnitXml.fromfile(sys.argv[1])
results = json.load(open(sys.argv[2]))
want = {
    "88.1": "skipped", "88.2": "skipped",
    "89.1": "failure", "89.2": "failure", "89.3": "passed", "89.4": "skipped",
    "90.1": "passed", "90.2": "passed", "lab-90 runs": "error",
    "91.1": "passed", "91.2": "passed", "91.3": "passed",
    "92.1": "passed", "92.2": "failure",
    "93.1": "skipped", "93.2": "skipped",
    "94.1": "passed", "94.2": "skipped", "94.3": "skipped",
    "95.1": "passed", "95.2": "error", "lab-95 runs": "error",
    "96.1": "passed", "96.2": "error", "lab-96 runs": "error",
    "97.1": "error", "97.2": "error", "lab-97 runs": "error",
    "98.1": "passed", "98.2": "passed", "lab-98 runs": "error",
    "99.1": "error", "99.2": "error", "lab-99 runs": "error",
}
errata = {"89.3", "90.2", "91.3"}
kinds = {Failure: "failure", Skipped: "skipped", Error: "error"}
problems = []

def key(name):
    return name if name.endswith(" runs") else name.split(" ")[0]

def kind(case):
    res = case.result
    res = res[0] if isinstance(res, list) and res else res  # 2.x: one; later: a list
    return kinds[type(res)] if res else "passed"

seen, durations = {}, {l["id"]: l["duration_s"] for l in results["labs"]}
for suite in xml:
    lab = suite.name.split(" ")[0][4:]
    props = {p.name: p.value for p in suite.properties()}
    for name in ("hostname", "dmalab.version", "quick", "gpus", "lab.status"):
        if name not in props:
            problems.append("suite %s: no property %s" % (suite.name, name))
    if props.get("quick") != "off" or props.get("gpus") != "0":
        problems.append("suite %s: quick %s, gpus %s" % (suite.name, props.get("quick"),
                                                          props.get("gpus")))
    if abs(float(suite.time) - durations[lab]) > 0.0006:
        problems.append("suite %s: time %s, results.json %s" % (suite.name, suite.time,
                                                                  durations[lab]))
    if not suite.timestamp or not suite.hostname:
        problems.append("suite %s: no timestamp or hostname" % suite.name)
    for case in suite:
        k = key(case.name)
        seen[k] = kind(case)
        if case.classname != "dmalab.lab-" + lab:
            problems.append("%s: classname %s" % (k, case.classname))
        props = case.child(Properties)
        marked = props is not None and [(p.name, p.value) for p in props] == [("erratum", k)]
        if marked != (k in errata):
            problems.append("%s: erratum property %s" % (k, marked))
        if k == "91.3" and "three is three" not in (case.system_out or ""):
            problems.append("91.3: the erratum's truth is not its system-out")
    failures = [c for c in suite if kind(c) == "failure"]
    for c in failures:
        if not c.result or not (c.result[0] if isinstance(c.result, list)
                                else c.result).message.startswith("got "):
            problems.append("%s: failure message does not start 'got '" % c.name)
if seen != want:
    problems.append("kinds: %s" % {k: (seen.get(k), want.get(k)) for k in set(seen) | set(want)
                                   if seen.get(k) != want.get(k)})
xml.update_statistics()
counts = (len(list(xml)), xml.tests, xml.failures, xml.errors, xml.skipped)
if counts != (12, 34, 3, 12, 7):
    problems.append("suites, tests, failures, errors, skipped: %s" % (counts,))
if problems:
    print("\n".join(problems))
EOF
	"$py_junit" - "$tmp/all/junit.xml" >"$tmp/attrs.out" 2>&1 <<'EOF'
import sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
print(xml._elem.get("tests"), xml._elem.get("failures"), xml._elem.get("errors"))
EOF
	check "$(cat "$tmp/attrs.out")" "34 3 12" \
		"<testsuites> counts as written agree with junitparser's"
else
	skip "python3 with junitparser not found (Debian python3-junitparser): junit.xml not parsed"
fi
has "$tmp/all/junit.xml" 'the relation&apos;s boundary' "an apostrophe in a message is escaped"
has "$tmp/all/junit.xml" '&gt;= 20 GB/s' "'>' in evidence is escaped"
has "$tmp/all/junit.xml" \
	'<testsuite name="lab-92 fake fail" tests="2" failures="1" errors="0" skipped="0"' \
	"a suite: lab id and title, its counts"

echo "== run NN: junit.xml keeps the labs results.json keeps"
run_dmalab run 92 --results "$tmp/all" --format tap >/dev/null 2>&1
check "$(grep -c '<testsuite ' "$tmp/all/junit.xml")" 12 "after run 92: still every lab's suite"
has "$tmp/all/junit.xml" '<property name="erratum" value="91.3"/>' \
	"a kept lab keeps its known erratum"

echo "== a junit.xml that cannot be written is reported as results.json's"
mkdir -p "$tmp/nowrite/junit.xml" # a directory where the file goes: rename fails
run_dmalab check 91 --results "$tmp/nowrite" --format tap >"$tmp/nowrite.out" 2>&1
check $? 1 "junit.xml not written: exit 1"
check "$(grep -c "cannot write '$tmp/nowrite/junit.xml'" "$tmp/nowrite.out")" 1 \
	"junit.xml not written: its path named once"
check "$(grep -c '^dmalab: results not saved: ' "$tmp/nowrite.out")" 1 \
	"junit.xml not written: the last line says the results were not saved"
[ -s "$tmp/nowrite/results.json" ] && ok "results.json still written" || bad "no results.json"

echo "== usage"
run_dmalab claims --format junit >"$tmp/u1" 2>&1
check "$?:$(wc -l <"$tmp/u1"):$(grep -c "'claims' prints human or json, not 'junit'" "$tmp/u1")" \
	"2:1:1" "claims --format junit: exit 2, one line"
run_dmalab check --format xml >"$tmp/u2" 2>&1
check "$?:$(wc -l <"$tmp/u2"):$(grep -c "bad --format 'xml' (want human, tap, json or junit)" \
	"$tmp/u2")" \
	"2:1:1" "bad --format: exit 2, the choices named in one line"
run_dmalab list --format json >"$tmp/u5" 2>&1
check "$?:$(wc -l <"$tmp/u5"):$(grep -c "'list' prints its table only, not 'json'" "$tmp/u5")" \
	"2:1:1" "list --format json: exit 2, one line"
"$BUILD/dmalab" --help | grep -q 'human, tap, json or junit' && ok "--help names junit" ||
	bad "--help does not name junit"
"$BUILD/dmalab" grade --help | grep -q -- '--gradescope FILE' &&
	ok "grade --help names --gradescope" || bad "grade --help does not name --gradescope"
"$BUILD/dmalab" quiz --gradescope "$tmp/x.json" >"$tmp/u3" 2>&1
check "$?:$(grep -c "'--gradescope' is an option of 'grade'" "$tmp/u3")" "2:1" \
	"quiz --gradescope: exit 2, said why"
"$BUILD/dmalab" grade --gradescope '' >"$tmp/u4" 2>&1
check "$?:$(grep -c "needs a file" "$tmp/u4")" "2:1" "grade --gradescope '': exit 2"
if command -v make >/dev/null 2>&1; then # -o all: the recipe alone, nothing built
	make -C "$here/../.." -n -o all check FORMAT=junit 2>/dev/null |
		grep -q 'dmalab check .*--format junit' &&
		ok "make check FORMAT=junit passes --format junit" || bad "make check FORMAT=junit"
	make -C "$here/../.." -n -o all list FORMAT=json 2>/dev/null |
		grep -q 'dmalab list --format json' &&
		ok "make list FORMAT=json passes --format json (refused there)" ||
		bad "make list FORMAT=json"
	make -C "$here/../.." -n -o all grade GRADESCOPE=/autograder/results/results.json \
		2>/dev/null |
		grep -q -- "grade .*--gradescope '/autograder/results/results.json'" &&
		ok "make grade GRADESCOPE=FILE passes --gradescope FILE" ||
		bad "make grade GRADESCOPE"
fi

echo "== Gradescope results.json of the fake labs' outcomes"
# The fake labs' claims name questions fq.Q1..fq.Q13, which no answers file
# can hold (ids are chN.X): the results are renamed to ch9.Q1..13, and a
# chapter file asks those questions; no labs directory, so the results say
# which claims back which question.
mkdir -p "$tmp/ans" "$tmp/nolabs"
{
	echo "# ch9: the fake labs' questions"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
		printf '\n## ch9.Q%d\nprompt.en: fake question %d\nprompt.zh: fake %d\n' \
			"$i" "$i" "$i"
		printf 'answer.en: none\nanswer.zh: none\n'
	done
} >"$tmp/ans/ch9.md"
sed 's/"fq\.Q/"ch9.Q/g' "$tmp/all/results.json" >"$tmp/ch9.json"
gs=$tmp/autograder/results/results.json # its directory is made
"$BUILD/dmalab" grade --labs-dir "$tmp/nolabs" --answers-dir "$tmp/ans" --errata "$errata" \
	--from "$tmp/ch9.json" --results "$tmp/grade" --gradescope "$gs" >"$tmp/grade.out" 2>&1
check $? 0 "grade --gradescope exits 0"
has "$tmp/grade.out" "Gradescope results written to $gs" "grade says where the file is"
if [ -n "$py_schema" ]; then
	py_expect "$py_schema" \
		"jsonschema: the Gradescope file validates against its documented format" \
		"$fix/gradescope-results.schema.json" "$gs" <<'EOF'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2])), schema)
try:  # the schema is strict: a misspelt key is refused
    jsonschema.validate({"score": 1, "tests": [{"name": "x", "maxscore": 1}]}, schema)
    print("the schema accepted an undocumented key")
    sys.exit(1)
except jsonschema.ValidationError:
    pass
EOF
else
	why="python3 with jsonschema not found (Debian python3-jsonschema)"
	skip "$why: Gradescope file not validated"
fi
if [ -n "$py_any" ]; then
	says="Gradescope scores of the known outcomes (4.1667 of 13;"
	py_expect "$py_any" \
		"$says 1 of 2 claims decided scores 0.5, not 1), outputs" \
		"$gs" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
# known outcomes: confirmed share of the decided claims x decided / planned
want = {"ch9.Q1": 0.6667, "ch9.Q2": 0.5, "ch9.Q3": 0, "ch9.Q4": 0, "ch9.Q5": 0.5,
        "ch9.Q6": 0.5, "ch9.Q7": 0.5, "ch9.Q8": 0.5, "ch9.Q9": 0, "ch9.Q10": 1,
        "ch9.Q11": 0, "ch9.Q12": 0, "ch9.Q13": 0}
got = {t["name"].split(" ")[0]: t["score"] for t in d["tests"]}
problems = [] if got == want else ["scores %s" % got]
for t in d["tests"]:
    if t["max_score"] != 1 or t["status"] != ("passed" if t["score"] == 1 else "failed"):
        problems.append("%s: max_score %s status %s" % (t["name"], t["max_score"], t["status"]))
if d["score"] != 4.1667:
    problems.append("total %s" % d["score"])
q1 = next(t for t in d["tests"] if t["name"].startswith("ch9.Q1 "))["output"]
for line in ("ch9.Q1  contradicted; 3 of 3 claims decided",
             "92.2   contradicted  got 3 x, want ~ 2 x +-25% [lab-92]",
             "91.1   confirmed     got 4, want = 4 [lab-91]",
             "score: 0.6667 of 1"):
    if line not in q1:
        problems.append("ch9.Q1 output lacks %r" % line)
q3 = next(t for t in d["tests"] if t["name"].startswith("ch9.Q3 "))["output"]
if "known erratum: three is three" not in q3:
    problems.append("ch9.Q3 output does not say the erratum's truth")
for words in ("host '", "no GPU", "hosted graders have no GPU", "claims decided: 15 of 28"):
    if words not in d["output"]:
        problems.append("top-level output lacks %r" % words)
if d["output_format"] != "text" or d["test_output_format"] != "text":
    problems.append("outputs are not plain text")
if problems:
    print("\n".join(problems))
EOF
else
	skip "python3 not found: Gradescope scores not read"
fi
"$BUILD/dmalab" grade --labs-dir "$tmp/nolabs" --answers-dir "$tmp/ans" --errata "$errata" \
	--from "$tmp/ch9.json" --results "$tmp/grade" --gradescope "$tmp/all/junit.xml/x/y" \
	>"$tmp/gsbad.out" 2>&1
check "$?:$(grep -c "cannot write '$tmp/all/junit.xml/x/y'" "$tmp/gsbad.out")" "1:1" \
	"a Gradescope file that cannot be written: exit 1, its path named"

echo "== a line end in a lab's skip detail: one TAP line, nothing read as a test line"
# lab-77: lab-92 whose record skips 77.2 with a detail of three lines
if [ -n "$py_any" ]; then
	mkdir "$tmp/odd"
	"$fakes/lab-92" --describe | sed 's/"92/"77/' >"$tmp/odd/describe.json"
	"$fakes/lab-92" --json "$tmp/odd/92.json" >/dev/null
	"$py_any" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for c in d["claims"]:
    c["id"] = c["id"].replace("92", "77")
d["id"] = "77"
d["status"] = "pass"
d["claims"][1].update(status="skip", reason="no-x", detail="x\nBail out! forged\rnot ok 9 - y")
json.dump(d, open(sys.argv[2], "w"))' "$tmp/odd/92.json" "$tmp/odd/77.json"
	cat >"$tmp/odd/lab-77" <<EOF
#!/bin/sh
[ "\$1" = --describe ] && exec cat "$tmp/odd/describe.json"
while [ \$# -gt 1 ] && [ "\$1" != --json ]; do shift; done
cp "$tmp/odd/77.json" "\$2"
printf 'TAP version 13\n1..2\nok 1 - 77.1 one\nok 2 - 77.2 two # SKIP no-x: x\n'
EOF
	chmod +x "$tmp/odd/lab-77"
	"$BUILD/dmalab" --labs-dir "$tmp/odd" check --results "$tmp/odd/r" --format tap \
		>"$tmp/odd.tap" 2>"$tmp/odd.err"
	check "$?:$(grep -c 'no-x: x Bail out! forged not ok 9 - y' "$tmp/odd.tap")" "0:2" \
		"a skip detail of three lines: exit 0, one line in the test point and the card"
	check "$(grep -c -e '^Bail out!' -e '^not ok 9' "$tmp/odd.tap")" 0 \
		"... and no line of it read as TAP's own"
else
	skip "a skip detail of three lines (no python3)"
fi

echo "test-formats: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
