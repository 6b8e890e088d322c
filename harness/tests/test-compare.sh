#!/bin/sh
# test-compare.sh - dmalab compare and dmalab baseline on a synthetic fleet.
#
# harness/tests/tools/fleet_gen.py writes 300 node results from the
# GPU-shaped fixture harness/tests/fixtures/compare/node-h200.json, each with
# small noise and its own hostname and GPU uuid, and plants two bad nodes:
# gpu-node-017 (host-to-GPU copies 30 % slow, its GPU link Gen4 x16 under a
# Gen5 x16 maximum) and gpu-node-123 (THP never, lab-04's latency 40 % high),
# and two changes that are no fault: gpu-node-200 (lab-04's chase 30 %
# faster) and gpu-node-250 (pageable copies 5 % slow).
# Checked: against the fleet and against a baseline made from three good
# nodes (its spread the runs' 95 % prediction interval, and the same from
# an old baseline file without the runs' values: their range), exactly the
# two bad ones are flagged, with the right causes, in under 5 s; the
# baseline keeps each run's value in run order; the notes (a faster figure,
# a claim's ratio, a verdict that changed) are kept with "bad": false and
# flag nothing (exit 0); --either
# gives more items than the default and flags gpu-node-250; --notes prints a
# flagged node's notes;
# the exit codes; bad input (a missing file, not JSON, not a results file);
# the baseline's refusals (an aborted run, mixed GPU models, CPU-only with
# GPU, --quick with without, one file twice, a copy of a run; a node of
# another type than the baseline); the fleet page
# (--html-out) names the bad nodes first, the missing ones before them, each
# node's file beside its host, and escapes what it shows; make compare.
# Needs the built dmalab (BUILD, default build) and python3.
set -u

BUILD=${BUILD:-build}
DMALAB=$BUILD/dmalab
PY=${DMALAB_PYTHON:-python3}
GEN=harness/tests/tools/fleet_gen.py
FIXTURE=harness/tests/fixtures/compare/node-h200.json
CPU_FIXTURE=plots/tests/fixtures/results-cpu.json
passed=0
failed=0

if [ ! -x "$DMALAB" ]; then
	echo "test-compare: $DMALAB is missing (make $DMALAB)" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-compare.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 130' INT TERM

ok() {
	passed=$((passed + 1))
	echo "ok - $1"
}

not_ok() {
	failed=$((failed + 1))
	echo "not ok - $1"
	[ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/#   /' "$2" | head -n 30
	return 0
}

# check NAME WANT_RC GOT_RC [LOG]
check_rc() {
	if [ "$3" -eq "$2" ]; then
		ok "$1 (exit $3)"
	else
		not_ok "$1: exit $3, want $2" "${4:-}"
	fi
}

# has NAME FILE TEXT: FILE contains TEXT (a fixed string)
has() {
	if grep -qF -- "$3" "$2"; then
		ok "$1"
	else
		not_ok "$1: no '$3' in $(basename "$2")" "$2"
	fi
}

# one_line NAME FILE: FILE is one line on stderr (a refusal says one thing)
one_line() {
	if [ "$(wc -l <"$2")" -eq 1 ]; then
		ok "$1: one line"
	else
		not_ok "$1: not one line" "$2"
	fi
}

run() { # run NAME ARGS...: $tmp/NAME.out, .err, .rc
	name=$1
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc_of() { cat "$tmp/$1.rc"; }

# json_check NAME FILE PYTHON: PYTHON (with d = the parsed FILE) must not raise
json_check() {
	if "$PY" - "$2" >"$tmp/json.log" 2>&1 <<EOF
import json, sys
d = json.load(open(sys.argv[1]))
nodes = {n["host"]: n for n in d.get("nodes", [])}
def items(host, key, kind="figure"):
    return [i for i in nodes[host]["items"] if i["key"] == key and i["kind"] == kind]
$3
EOF
	then ok "$1"; else not_ok "$1" "$tmp/json.log"; fi
}

# The planted nodes, exactly, with their causes; the reference word ("fleet").
check_planted() { # check_planted WHAT FILE WORD
	json_check "$1: exactly gpu-node-017 and gpu-node-123 flagged; 200's faster chase notes" \
		"$2" '
flagged = sorted(h for h, n in nodes.items() if n["status"] == "flagged")
assert flagged == ["gpu-node-017", "gpu-node-123"], flagged
assert d["totals"] == {"nodes": 300, "ok": 298, "flagged": 2, "unjudged": 0}, d["totals"]
for n in nodes.values():
    assert n["flagged"] == n["bad"] == sum(i["bad"] for i in n["items"]), n["host"]
    assert n["notes"] == sum(not i["bad"] for i in n["items"]), n["host"]
    assert all(i["causes"] == [] for i in n["items"] if not i["bad"]), n["host"]
n = nodes["gpu-node-200"]
assert n["status"] == "ok" and n["bad"] == 0 and n["notes"] == 2 and n["worst"] is None, n
it = items("gpu-node-200", "04/latency_256MiB_ns")[0]
assert it["direction"] == "low" and not it["bad"] and abs(it["pct"] + 30) < 1.5, it
assert nodes["gpu-node-250"]["status"] == "ok" and nodes["gpu-node-250"]["items"] == []'
	json_check "$1: 017's H2D figure low, its cause the link; its claim ratios notes" "$2" '
it = items("gpu-node-017", "02/h2d_pinned_gbs")[0]
assert it["direction"] == "low" and it["bad"] and abs(it["pct"] + 30) < 1.5, it
want = ("GPU 0'"'"'s PCIe link was Gen4 x16 at the time sysinfo read it, "
        "below its Gen5 x16 (the '"$3"': Gen5 x16")
assert any(c.startswith(want) for c in it["causes"]), it["causes"]
assert not any("THP" in c for i in nodes["gpu-node-017"]["items"] for c in i["causes"])
assert items("gpu-node-017", "02.3", "verdict")[0]["change"] == "worse"
assert items("gpu-node-017", "02.3", "verdict")[0]["bad"]
for key in ("02.1", "02.3"):
    it = items("gpu-node-017", key)[0]
    assert it["unit"] in ("x", "%") and not it["bad"] and abs(it["pct"] + 30) < 1.5, it'
	json_check "$1: 123's latency high, its cause THP never" "$2" '
it = items("gpu-node-123", "04/latency_256MiB_ns")[0]
assert (it["direction"] == "high" and it["bad"] and
        it["causes"] == ["THP never (the '"$3"': madvise)"]), it
assert ({i["key"] for i in nodes["gpu-node-123"]["items"] if i["bad"]} ==
        {"04/latency_256MiB_ns"})
it = items("gpu-node-123", "04.1")[0]
assert it["unit"] == "x" and not it["bad"] and it["causes"] == [], it'
}

# ---------------------------------------------------------------------------
# 300 nodes against the fleet

fleet=$tmp/fleet
"$PY" "$GEN" "$FIXTURE" "$fleet" 300 --bad-h2d 17 --bad-thp 123 --fast 200 --drift 250 || exit 2
start=$(date +%s.%N)
run fleet "$DMALAB" compare "$fleet"/gpu-node-*.json --json-out "$tmp/fleet.json" \
	--html-out "$tmp/fleet.html"
end=$(date +%s.%N)
check_rc "compare of 300 nodes against the fleet: something flagged" 1 "$(rc_of fleet)" \
	"$tmp/fleet.err"
if awk -v a="$start" -v b="$end" 'BEGIN { exit !(b - a < 5) }'; then
	ok "300 nodes compared in $(awk -v a="$start" -v b="$end" \
		'BEGIN { printf "%.2f", b - a }') s (< 5 s)"
else
	not_ok "300 nodes took $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') s, want < 5"
fi
check_planted "fleet" "$tmp/fleet.json" fleet
out=$tmp/fleet.out
has "human: the rule stated" "$out" "outside the spread and more than 10 % from the median"
both_rule="outside the spread and beyond P"
has "human: the summary line" "$out" \
	"summary: 2 of 300 nodes flagged, 298 ok (P = 10 %, $both_rule); 9 notes"
has "human: the cause printed" "$out" "likely cause: THP never (the fleet: madvise)"
has "human: bad items and notes counted" "$out" "flagged         1      1  04/latency_256MiB_ns"
has "human: an ok node's notes counted" "$out" \
	"gpu-node-200  NVIDIA H200 x1 PCIe Gen5 x16  ok              0      2"
if grep -q '^gpu-node-200:\|^  04\.1 \|^  notes' "$out"; then
	not_ok "human: notes printed without --notes" "$out"
else
	ok "human: no notes without --notes, no details of an ok node"
fi
# line 7: the first node of the table, after the rules, a blank and the header
if sed -n '7p' "$out" | grep -q '^gpu-node-017 .* flagged '; then
	ok "human: the bad nodes first"
else
	not_ok "human: line 6 is not gpu-node-017" "$out"
fi
lines=$(wc -l <"$out")
if [ "$lines" -lt 360 ]; then
	ok "human: $lines lines for 300 nodes"
else
	not_ok "human: $lines lines"
fi

# error counters read around lab-02 on the slow node (as counters.c writes them): named
# among its causes; on a healthy node a counter that moved flags nothing
"$PY" - "$fleet" <<'EOF' || exit 2
import json, os, sys
for node, moved in (("017", {"pcie_replay": 12, "aer_correctable": 3, "ecc_corrected": 0,
                             "xid_events": 1, "clocks_held": 1}),
                    ("040", {"pcie_replay": 2})):
    path = os.path.join(sys.argv[1], "gpu-node-%s.json" % node)
    d = json.load(open(path))
    next(l for l in d["labs"] if l["id"] == "02")["counters_moved"] = {"0": moved}
    json.dump(d, open(path, "w"))
EOF
run counters "$DMALAB" compare "$fleet"/gpu-node-*.json
check_rc "counters: the same two nodes flagged" 1 "$(rc_of counters)" "$tmp/counters.err"
has "counters: the replays named as a cause" "$tmp/counters.out" \
	"GPU 0's pcie_replay counter rose by 12 during lab-02"
has "counters: the AER count too" "$tmp/counters.out" \
	"GPU 0's aer_correctable counter rose by 3 during lab-02"
has "counters: an XID event" "$tmp/counters.out" \
	"GPU 0 raised 1 XID critical-error event(s) during lab-02"
has "counters: clocks held back" "$tmp/counters.out" \
	"GPU 0's clocks were held back (power cap, thermal, hardware slowdown or power brake) when"
has "counters: a healthy node with a moved counter stays ok" "$tmp/counters.out" \
	"summary: 2 of 300 nodes flagged"
# an XID event from a fault the lab made on purpose (lab-06's probe) is the lab's own: the
# rise less those faults is named, and nothing when they account for all of it
xid_own() { # xid_own RAISED OWN: node 017's lab-02 raised RAISED XID events, OWN its own
	"$PY" - "$fleet/gpu-node-017.json" "$1" "$2" <<'EOF' || exit 2
import json, sys
d = json.load(open(sys.argv[1]))
lab = next(l for l in d["labs"] if l["id"] == "02")
lab["counters_moved"]["0"]["xid_events"] = int(sys.argv[2])
lab.setdefault("facts", {})["gpu_faults_on_purpose"] = {"value": int(sys.argv[3]),
                                                        "unit": "faults"}
json.dump(d, open(sys.argv[1], "w"))
EOF
	"$DMALAB" compare "$fleet"/gpu-node-*.json >"$tmp/xid-$1-$2.out" 2>&1
}
xid_own 3 1
has "counters: XID events less the lab's own faults" "$tmp/xid-3-1.out" \
	"GPU 0 raised 2 XID critical-error event(s) during lab-02"
xid_own 1 1
if grep -q "XID" "$tmp/xid-1-1.out"; then
	not_ok "counters: an XID event of the lab's own fault named as a cause" "$tmp/xid-1-1.out"
else
	ok "counters: an XID event of the lab's own fault is no cause"
fi
xid_own 1 0

# the same directory again, with its own fleet.json among the inputs
cp "$tmp/fleet.json" "$fleet/fleet.json"
run again "$DMALAB" compare "$fleet"/*.json --json-out "$fleet/fleet.json" --format json
check_rc "compare DIR/*.json --json-out DIR/fleet.json run twice" 1 "$(rc_of again)" \
	"$tmp/again.err"
json_check "--format json on stdout: the same nodes" "$tmp/again.out" '
assert d["schema"] == "dmalab-compare/1" and len(d["nodes"]) == 300'
rm -f "$fleet/fleet.json"

run notes "$DMALAB" compare "$fleet"/gpu-node-*.json --notes
check_rc "--notes: the same exit" 1 "$(rc_of notes)" "$tmp/notes.err"
if sed -n '/^gpu-node-123:/,/^$/p' "$tmp/notes.out" >"$tmp/notes.123" &&
	grep -q '^  04/latency_256MiB_ns .*high, worse$' "$tmp/notes.123" &&
	grep -q '^  notes (not bad' "$tmp/notes.123" &&
	grep -q '^  04\.1 .*high, no bad direction$' "$tmp/notes.123" &&
	[ "$(grep -n '^  04/lat' "$tmp/notes.123" | cut -d: -f1)" -lt \
		"$(grep -n '^  04\.1 ' "$tmp/notes.123" | cut -d: -f1)" ]; then
	ok "--notes: 123's note 04.1 printed after its bad item"
else
	not_ok "--notes: 123's details" "$tmp/notes.out"
fi
if grep -q '^gpu-node-200:' "$tmp/notes.out"; then
	not_ok "--notes printed the ok node 200's details" "$tmp/notes.out"
else
	ok "--notes: an ok node's notes stay out"
fi

run either "$DMALAB" compare "$fleet"/gpu-node-*.json --either --json-out "$tmp/either.json"
check_rc "--either: something flagged" 1 "$(rc_of either)" "$tmp/either.err"
json_check "--either: more items than the default, 250's drift flagged" "$tmp/either.json" '
base = json.load(open(sys.argv[1].replace("either.json", "fleet.json")))
count = lambda doc: sum(len(n["items"]) for n in doc["nodes"])
assert count(d) > count(base), (count(d), count(base))
assert d["rules"]["figure_rule"] == "either" and base["rules"]["figure_rule"] == "both"
n = nodes["gpu-node-250"]
assert n["status"] == "flagged" and n["bad"] == 2, n
it = items("gpu-node-250", "02/h2d_pageable_gbs")[0]
assert it["bad"] and it["outside_spread"] and not it["beyond_pct"], it
assert sorted(h for h, n in nodes.items() if n["status"] == "flagged") == \
    ["gpu-node-017", "gpu-node-123", "gpu-node-250"]'
has "--either: the rule stated" "$tmp/either.out" \
	"outside the spread or more than 10 % from the median"

run pct50 "$DMALAB" compare "$fleet"/gpu-node-*.json --pct 50 --either \
	--json-out "$tmp/pct50.json"
json_check "--pct 50 --either (the spread alone): the planted nodes and the drift" \
	"$tmp/pct50.json" '
assert sorted(h for h, n in nodes.items() if n["status"] == "flagged") == \
    ["gpu-node-017", "gpu-node-123", "gpu-node-250"]'
run pct45 "$DMALAB" compare "$fleet"/gpu-node-*.json --pct 45 --json-out "$tmp/pct45.json"
json_check "--pct 45: 123's 40 % is within P (ok), 017's worse verdicts still flag it" \
	"$tmp/pct45.json" '
assert sorted(h for h, n in nodes.items() if n["status"] == "flagged") == ["gpu-node-017"]
assert nodes["gpu-node-123"]["items"] == []
assert all(i["kind"] == "verdict" or i["pct"] < -45 or i["pct"] > 45
           for i in nodes["gpu-node-017"]["items"])'

# ---------------------------------------------------------------------------
# A baseline of three good nodes

run base "$DMALAB" baseline "$fleet/gpu-node-001.json" "$fleet/gpu-node-002.json" \
	"$fleet/gpu-node-003.json" --out "$tmp/base.json" --name h200-test
check_rc "baseline of 3 good nodes written" 0 "$(rc_of base)" "$tmp/base.err"
json_check "baseline: its match key, runs and machine facts" "$tmp/base.json" '
assert d["schema"] == "dmalab-baseline/1" and d["name"] == "h200-test"
assert d["key"] == {"gpu": "NVIDIA H200", "gpus": 1, "pcie_gen_max": 5, "pcie_width_max": 16}
assert [r["hostname"] for r in d["runs"]] == ["gpu-node-001", "gpu-node-002", "gpu-node-003"]
assert d["machine"]["thp"] == {"madvise": 3} and d["quick"] is False
c = [c for c in d["claims"] if c["id"] == "02.3"][0]
assert c["verdicts"] == {"pass": 3} and c["n"] == 3 and c["got_lo_min"] < c["min"]
f = [f for f in d["figures"] if f["key"] == "02/h2d_pinned_gbs"][0]
assert f["n"] == 3 and f["min"] <= f["median"] <= f["max"] and f["unit"] == "GB/s"
assert "got_lo_min" not in f  # a fact has no interval
runs = [json.load(open("'"$fleet"'/gpu-node-00%d.json" % i)) for i in (1, 2, 3)]
want = [r["labs"][[l["id"] for l in r["labs"]].index("02")]["facts"]["h2d_pinned_gbs"]["value"]
        for r in runs]
assert all(abs(a - b) <= 1e-6 * b for a, b in zip(f["values"], want)) and len(f["values"]) == 3, \
    (f["values"], want)  # each run'"'"'s value, in run order
assert all(len(f["values"]) == f["n"] for f in d["figures"])
assert all(len(c["values"]) == c["n"] for c in d["claims"] if c["n"])'
run vsbase "$DMALAB" compare "$fleet"/gpu-node-*.json --baseline "$tmp/base.json" \
	--json-out "$tmp/vsbase.json"
check_rc "compare of 300 nodes against the baseline: something flagged" 1 "$(rc_of vsbase)" \
	"$tmp/vsbase.err"
check_planted "baseline" "$tmp/vsbase.json" baseline
json_check "baseline: every figure's spread holds its runs' 95 % prediction interval" \
	"$tmp/vsbase.json" '
figs = d["references"][0]["figures"]
assert "95 % prediction interval" in d["rules"]["spread"], d["rules"]
with_pred = [f for f in figs if f["n"] >= 2]
assert len(with_pred) == len(figs) > 50 and all(f["prediction"] is not None for f in with_pred)
for f in with_pred:
    (lo, hi), (plo, phi) = f["spread"], f["prediction"]
    assert lo <= plo + 1e-12 * abs(plo) and phi <= hi + 1e-12 * abs(hi), f
    assert lo <= f["min"] and f["max"] <= hi, f
# three runs of +-0.5 % noise: t(0.975, 2) = 4.303 makes it a few % wide
h2d = [f for f in figs if f["key"] == "02/h2d_pinned_gbs"][0]
assert 1.005 < h2d["prediction"][1] / h2d["median"] < 1.10, h2d'
# a baseline file written before "values" were kept: the runs' range, as before
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
for f in d["figures"] + d["claims"]:
    f.pop("values", None)
json.dump(d, open(sys.argv[2], "w"))' "$tmp/base.json" "$tmp/base-old.json"
run vsold "$DMALAB" compare "$fleet"/gpu-node-*.json --baseline "$tmp/base-old.json" \
	--json-out "$tmp/vsold.json"
check_rc "against a baseline without values (an old file): something flagged" 1 \
	"$(rc_of vsold)" "$tmp/vsold.err"
check_planted "old baseline" "$tmp/vsold.json" baseline
json_check "old baseline: no prediction, its spreads within the new ones, some narrower" \
	"$tmp/vsold.json" '
new = {f["key"]: f
       for f in json.load(open(sys.argv[1].replace("vsold", "vsbase")))["references"][0]["figures"]}
figs = d["references"][0]["figures"]
assert all(f["prediction"] is None for f in figs)
assert all(new[f["key"]]["spread"][0] <= f["spread"][0] and
           f["spread"][1] <= new[f["key"]]["spread"][1] for f in figs)
# the synthetic noise (+-0.5 %) leaves most bands at the +-2 % floor or the
# claims'"'"' intervals; the interval widens the few where it is not
width = lambda f: f["spread"][1] - f["spread"][0]
assert sum(width(new[f["key"]]) > 1.01 * width(f) for f in figs) >= 3'
run goodonly "$DMALAB" compare "$fleet"/gpu-node-00[4-9].json --baseline "$tmp/base.json"
check_rc "six good nodes against the baseline: nothing flagged" 0 "$(rc_of goodonly)" \
	"$tmp/goodonly.out"
has "six good nodes: the summary" "$tmp/goodonly.out" "summary: 0 of 6 nodes flagged, 6 ok"
# notes only: a faster node, and one whose 02.6 went pass -> skip
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
c = [c for l in d["labs"] for c in l["claims"] if c["id"] == "02.6"][0]
c["status"] = "skip"
json.dump(d, open(sys.argv[2], "w"))' "$fleet/gpu-node-005.json" "$tmp/skip.json"
run notesonly "$DMALAB" compare "$fleet/gpu-node-200.json" "$tmp/skip.json" \
	--baseline "$tmp/base.json" --json-out "$tmp/notesonly.json"
check_rc "a faster node and a pass -> skip against the baseline: notes, nothing flagged" 0 \
	"$(rc_of notesonly)" "$tmp/notesonly.out"
json_check "notes only: both ok, the notes kept with bad false and no cause" "$tmp/notesonly.json" '
n = nodes["gpu-node-200"]
assert n["status"] == "ok" and n["flagged"] == 0 and n["notes"] == 2, n
assert {i["key"] for i in n["items"]} == {"04/latency_256MiB_ns", "04.1"}
assert not any(i["bad"] or i["causes"] for i in n["items"])
assert nodes["gpu-node-005"]["status"] == "ok" and nodes["gpu-node-005"]["notes"] == 1
it = items("gpu-node-005", "02.6", "verdict")[0]
assert it["change"] == "changed" and not it["bad"] and it["causes"] == [], it'

# ---------------------------------------------------------------------------
# Refusals and bad input

"$PY" "$GEN" "$FIXTURE" "$tmp/h100" 3 --gpu-name "NVIDIA H100" --prefix h100 || exit 2
run mixed "$DMALAB" baseline "$fleet/gpu-node-001.json" "$tmp/h100/h100-000.json" \
	--out "$tmp/x.json"
check_rc "baseline of an H200 and an H100 refused" 2 "$(rc_of mixed)"
h200_type="NVIDIA H200 x1 PCIe Gen5 x16" h100_type="NVIDIA H100 x1 PCIe Gen5 x16"
has "mixed models: names both" "$tmp/mixed.err" \
	"gpu-node-001.json' is $h200_type, '$tmp/h100/h100-000.json' is NVIDIA H100"
one_line "mixed models" "$tmp/mixed.err"
run cpugpu "$DMALAB" baseline "$CPU_FIXTURE" "$fleet/gpu-node-001.json" --out "$tmp/x.json"
check_rc "baseline of a CPU-only and a GPU run refused" 2 "$(rc_of cpugpu)"
has "CPU-only with GPU: said" "$tmp/cpugpu.err" "does not mix CPU-only runs with GPU runs"
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["quick"] = True
json.dump(d, open(sys.argv[2], "w"))' "$fleet/gpu-node-002.json" "$tmp/quick.json"
run quick "$DMALAB" baseline "$fleet/gpu-node-001.json" "$tmp/quick.json" --out "$tmp/x.json"
check_rc "baseline of --quick and full runs refused" 2 "$(rc_of quick)"
has "quick mixed: said" "$tmp/quick.err" "a baseline does not mix them"
# an aborted run (stopped before its end): its labs not run are no verdicts
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["status"] = "aborted"
json.dump(d, open(sys.argv[2], "w"))' "$fleet/gpu-node-003.json" "$tmp/aborted.json"
run aborted "$DMALAB" baseline "$fleet/gpu-node-001.json" "$tmp/aborted.json" \
	--out "$tmp/x.json"
check_rc "baseline with an aborted run refused" 2 "$(rc_of aborted)"
one_line "an aborted run" "$tmp/aborted.err"
has "an aborted run: names the file" "$tmp/aborted.err" "'$tmp/aborted.json' is an aborted run"
if [ ! -e "$tmp/x.json" ]; then
	ok "no baseline written on a refusal"
else
	not_ok "x.json written"
fi
run otherkey "$DMALAB" compare "$tmp/h100/h100-000.json" --baseline "$tmp/base.json"
check_rc "an H100 node against the H200 baseline refused" 2 "$(rc_of otherkey)"
has "other type: names the node and the baseline" "$tmp/otherkey.err" \
	"h100-000.json' (h100-000) is $h100_type, the baseline 'h200-test' is $h200_type"
run missing "$DMALAB" compare "$tmp/nope.json" "$fleet/gpu-node-001.json"
check_rc "a missing results file" 2 "$(rc_of missing)"
has "missing: the file named" "$tmp/missing.err" "nope.json"
printf 'not json {' >"$tmp/garbage.json"
run garbage "$DMALAB" compare "$tmp/garbage.json"
check_rc "a file that is not JSON" 2 "$(rc_of garbage)"
has "not JSON: where" "$tmp/garbage.err" "garbage.json"
echo '{"schema": "something-else/1", "labs": []}' >"$tmp/other.json"
run notres "$DMALAB" compare "$tmp/other.json" "$fleet/gpu-node-001.json"
check_rc "a JSON file that is not a results file" 2 "$(rc_of notres)"
has "not results: said" "$tmp/notres.err" "other.json: not a dmalab-results/1 document"
run beside "$DMALAB" compare "$tmp/base.json" "$fleet"/gpu-node-00?.json
check_rc "a baseline among the nodes is skipped" 0 "$(rc_of beside)" "$tmp/beside.err"
has "a baseline among the nodes: said" "$tmp/beside.err" \
	"skipping '$tmp/base.json': a compare report or baseline"
run onerun "$DMALAB" compare "$fleet/gpu-node-017.json" "$fleet/gpu-node-005.json" \
	--baseline "$fleet/gpu-node-002.json" --json-out "$tmp/onerun.json"
check_rc "--baseline of one results.json: the bad node flagged" 1 "$(rc_of onerun)" \
	"$tmp/onerun.err"
json_check "--baseline of one run: 017 flagged, 005 ok" "$tmp/onerun.json" '
assert nodes["gpu-node-017"]["status"] == "flagged" and nodes["gpu-node-005"]["status"] == "ok"
assert d["baseline"]["name"] == "gpu-node-002 of 2026-12-01T00:02:00Z", d["baseline"]'
run notbase "$DMALAB" compare "$fleet/gpu-node-001.json" --baseline "$tmp/other.json"
check_rc "--baseline of another JSON document" 2 "$(rc_of notbase)"
has "not a baseline: said" "$tmp/notbase.err" "not a dmalab-baseline/1 document or a results.json"
run alone "$DMALAB" compare "$fleet/gpu-node-001.json"
check_rc "one node, no baseline: nothing to compare against" 2 "$(rc_of alone)"
has "one node: what to do" "$tmp/alone.err" "give --baseline FILE"
run alone2 "$DMALAB" compare "$fleet/gpu-node-001.json" --allow-unjudged \
	--json-out "$tmp/alone.json"
check_rc "one node, --allow-unjudged: reported, nothing flagged" 0 "$(rc_of alone2)"
has "one node, --allow-unjudged: its line says unjudged" "$tmp/alone2.out" "unjudged"
json_check "--allow-unjudged: the report lists the node unjudged" "$tmp/alone.json" '
assert [n["status"] for n in d["nodes"]] == ["unjudged"], d["nodes"]'
cp "$fleet/gpu-node-001.json" "$tmp/own.json"
run ownout "$DMALAB" baseline "$tmp/own.json" --out "$tmp/own.json"
check_rc "baseline --out one of its runs: refused" 2 "$(rc_of ownout)"
cmp -s "$fleet/gpu-node-001.json" "$tmp/own.json" && ok "... and the run is left as it was" ||
	not_ok "baseline --out one of its runs overwrote it" "$tmp/ownout.err"
# each run once: one file given twice (by two names), or a copy of one run
again=$fleet/../$(basename "$fleet")/gpu-node-001.json
run twice "$DMALAB" baseline "$fleet/gpu-node-001.json" "$fleet/gpu-node-002.json" "$again" \
	--out "$tmp/twice.json"
check_rc "baseline of one file given twice: refused" 2 "$(rc_of twice)"
one_line "one file twice" "$tmp/twice.err"
has "one file twice: both names" "$tmp/twice.err" "gpu-node-001.json' and '$again' are one file"
run copy "$DMALAB" baseline "$fleet/gpu-node-001.json" "$tmp/own.json" --out "$tmp/twice.json"
check_rc "baseline of a run and its copy: refused" 2 "$(rc_of copy)"
one_line "a run and its copy" "$tmp/copy.err"
has "a run and its copy: both files, the run" "$tmp/copy.err" \
	"gpu-node-001.json' and '$tmp/own.json' are one run (gpu-node-001, started "
[ ! -e "$tmp/twice.json" ] && ok "... and no baseline written" ||
	not_ok "a run given twice: a baseline written"
run noout "$DMALAB" baseline "$fleet/gpu-node-001.json"
check_rc "baseline without --out" 2 "$(rc_of noout)"
run badpct "$DMALAB" compare "$fleet/gpu-node-001.json" --pct 0
check_rc "--pct 0" 2 "$(rc_of badpct)"
has "--pct 0: the value named" "$tmp/badpct.err" "bad --pct '0'"
run help "$DMALAB" compare --help
check_rc "compare --help" 0 "$(rc_of help)"
has "compare --help: the spread rules" "$tmp/help.out" "median +- 3 x 1.4826 x MAD"
has "compare --help: the baseline's rule" "$tmp/help.out" \
	"its runs' 95 % prediction interval for one new run"
has "compare --help: --either" "$tmp/help.out" \
	"--either          a figure outside the spread OR beyond P"
has "compare --help: --notes" "$tmp/help.out" "--notes           list a flagged node's notes"

# CPU-only runs are a machine type too
for i in 0 1 2; do
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["machine"]["hostname"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))' "$CPU_FIXTURE" "$tmp/cpu-$i.json" "cpu-$i"
done
run cpu "$DMALAB" compare "$tmp"/cpu-?.json
check_rc "three CPU-only nodes against their fleet" 0 "$(rc_of cpu)" "$tmp/cpu.err"
has "CPU-only: the machine type" "$tmp/cpu.out" "cpu-0  cpu-only      ok"

# ---------------------------------------------------------------------------
# The fleet page (compare --html-out) and make compare

# the page of the 300 nodes' compare above, from the same results as fleet.json
if [ -s "$tmp/fleet.html" ]; then
	ok "compare --html-out writes the page"
else
	not_ok "compare --html-out wrote no page" "$tmp/fleet.err"
fi
if "$PY" - "$tmp/fleet.html" >"$tmp/page.log" 2>&1 <<'EOF'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
rows = s.split('<tr class="')[1:]
assert [r.split('"')[0] for r in rows[:2]] == ["flagged", "flagged"], rows[:2]
assert "gpu-node-017" in rows[0] or "gpu-node-017" in rows[1]
assert all(r.startswith("ok") for r in rows[2:]) and len(rows) == 300
assert "likely cause: THP never (the fleet: madvise)" in s
assert "GPU 0&apos;s PCIe link was Gen4 x16" in s and "<script" not in s
assert "<link" not in s and "src=" not in s, "the page needs another file"
# an ok node's notes are left out; a flagged node's notes are folded away
assert all('class="item' not in r for r in rows[2:]), "an ok node shows items"
assert all("<details>" not in r for r in rows[2:])
EOF
then ok "the page: bad nodes first, their causes, no script, no notes of ok nodes"
else not_ok "the page" "$tmp/page.log"; fi
# a fleet directory of make fleet: its jobs/fleet-nodes.json's missing nodes come first
mkdir -p "$tmp/fl/jobs"
printf '{"schema": "dmalab-fleet-nodes/1", "missing": [{"node": "gpu-node-404", "job": "7",
 "why": "dmalab check exit 2, no results.json"}, {"node": null, "job": "8", "count": 36,
 "why": "job never ran (CANCELLED)"}]}\n' >"$tmp/fl/jobs/fleet-nodes.json"
run pagemiss "$DMALAB" compare "$fleet"/gpu-node-*.json --html-out "$tmp/fl/fleet.html"
check_rc "compare --html-out with missing nodes (nodes flagged)" 1 "$(rc_of pagemiss)" \
	"$tmp/pagemiss.err"
if "$PY" - "$tmp/fl/fleet.html" >"$tmp/pagemiss.log" 2>&1 <<'EOF'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
rows = s.split('<tr class="')[1:]
assert [r.split('"')[0] for r in rows[:2]] == ["missing", "missing"], rows[:2]
assert "gpu-node-404" in rows[0] + rows[1] and "36 nodes of job 8" in rows[0] + rows[1]
assert "no results: job never ran (CANCELLED)" in s and ", 2 missing</h1>" in s
assert len(rows) == 302
EOF
then ok "the page lists the missing nodes first, with why"
else not_ok "missing nodes" "$tmp/pagemiss.log"; fi
run pagebad "$DMALAB" compare "$tmp/base.json" --html-out "$tmp/x.html"
check_rc "compare --html-out of a baseline file" 2 "$(rc_of pagebad)"
[ ! -e "$tmp/x.html" ] && ok "... and no page" || not_ok "a page of a baseline file"
cp "$fleet/gpu-node-001.json" "$tmp/own.json"
run pageown "$DMALAB" compare "$tmp/own.json" --html-out "$tmp/own.json" --allow-unjudged
check_rc "--html-out one of the results files: refused" 2 "$(rc_of pageown)"
cmp -s "$fleet/gpu-node-001.json" "$tmp/own.json" && ok "... and the run is left as it was" ||
	not_ok "--html-out overwrote a results file" "$tmp/pageown.err"
# --json-out naming a run among the inputs (not an earlier report, which is
# passed over), or either output naming the baseline: refused, nothing lost
run jsonown "$DMALAB" compare "$fleet"/gpu-node-00[1-3].json "$tmp/own.json" \
	--json-out "$tmp/own.json"
check_rc "--json-out one of the results files: refused" 2 "$(rc_of jsonown)" "$tmp/jsonown.err"
one_line "--json-out one of the results files" "$tmp/jsonown.err"
cmp -s "$fleet/gpu-node-001.json" "$tmp/own.json" && ok "... and the run is left as it was" ||
	not_ok "--json-out overwrote a results file" "$tmp/jsonown.err"
for out in json-out html-out; do
	run "$out-base" "$DMALAB" compare "$fleet/gpu-node-002.json" --baseline "$tmp/own.json" \
		"--$out" "$tmp/own.json"
	check_rc "--$out the baseline: refused" 2 "$(rc_of "$out-base")" "$tmp/$out-base.err"
	has "--$out the baseline: named" "$tmp/$out-base.err" \
		"--$out '$tmp/own.json' is the baseline"
	cmp -s "$fleet/gpu-node-001.json" "$tmp/own.json" && ok "... and the baseline is kept" ||
		not_ok "--$out overwrote the baseline" "$tmp/$out-base.err"
done
# a page that cannot be written: the file as given, and why; a file of the
# user's named FILE.tmp beside the page is left alone
run pagenodir "$DMALAB" compare "$tmp/own.json" --allow-unjudged --html-out "$tmp/no-dir/p.html"
grep -q "cannot write '$tmp/no-dir/p.html': No such file or directory" "$tmp/pagenodir.err" &&
	ok "--html-out into a missing folder: the file as given, and why" ||
	not_ok "--html-out into a missing folder" "$tmp/pagenodir.err"
echo mine >"$tmp/p.html.tmp"
run pagetmp "$DMALAB" compare "$tmp/own.json" --allow-unjudged --html-out "$tmp/p.html"
[ -s "$tmp/p.html" ] && [ "$(cat "$tmp/p.html.tmp")" = mine ] &&
	ok "--html-out FILE: the user's FILE.tmp left alone" ||
	not_ok "--html-out FILE: FILE.tmp overwritten or no page" "$tmp/pagetmp.err"
# a host name is text from a file: escaped on the page
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["machine"]["hostname"] = "<b>&"
json.dump(d, open(sys.argv[2], "w"))' "$fleet/gpu-node-001.json" "$tmp/markup.json"
run pagemarkup "$DMALAB" compare "$tmp/markup.json" --allow-unjudged \
	--html-out "$tmp/markup.html"
check_rc "a host named <b>&: the page written" 0 "$(rc_of pagemarkup)" "$tmp/pagemarkup.err"
if grep -qF '<td>&lt;b&gt;&amp;<div class="muted">markup.json</div></td>' "$tmp/markup.html" &&
	! grep -qF '<b>' "$tmp/markup.html"
then
	ok "the page escapes a host named <b>&"
else
	not_ok "the host <b>& not escaped" "$tmp/markup.html"
fi

# nodes that share a hostname (files collected by hand): each row names its
# file, from the page's folder where it lies there, else as given
mkdir -p "$tmp/same"
cp "$fleet/gpu-node-001.json" "$tmp/same/a.json"
cp "$fleet/gpu-node-001.json" "$tmp/same/b.json"
run pagesame "$DMALAB" compare "$tmp/same/a.json" "$tmp/same/b.json" "$fleet/gpu-node-002.json" \
	--allow-unjudged --html-out "$tmp/same/fleet.html"
row='<td>gpu-node-001<div class="muted">'
[ "$(grep -cF -e "${row}a.json</div></td>" -e "${row}b.json</div></td>" \
	"$tmp/same/fleet.html")" = 2 ] &&
	grep -qF "<td>gpu-node-002<div class=\"muted\">$fleet/gpu-node-002.json</div></td>" \
		"$tmp/same/fleet.html" &&
	ok "the page: each node's file beside its host (a.json, b.json; one outside as given)" ||
	not_ok "the page does not tell apart two nodes of one hostname" "$tmp/pagesame.err"

mk() { make --no-print-directory -s BUILD="$BUILD" -o "$DMALAB" "$@"; }
run mkcmp mk compare FILES="$fleet/gpu-node-017.json $fleet/gpu-node-004.json" \
	BASELINE="$tmp/base.json" RESULTS="$tmp/mk"
if [ "$(rc_of mkcmp)" -ne 0 ]; then
	ok "make compare with a bad node fails"
else
	not_ok "make compare passed"
fi
if [ -s "$tmp/mk/compare.json" ]; then
	ok "make compare wrote RESULTS/compare.json"
else
	not_ok "no $tmp/mk/compare.json"
fi
run mkok mk compare FILES="$fleet/gpu-node-004.json" BASELINE="$tmp/base.json" PCT=20 \
	RESULTS="$tmp/mk"
check_rc "make compare of a good node" 0 "$(rc_of mkok)" "$tmp/mkok.out"
has "make compare: PCT passed on" "$tmp/mkok.out" "more than 20 % from the median"

echo "test-compare: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
