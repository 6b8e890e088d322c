#!/bin/sh
# test-history.sh - `dmalab history` on synthetic runs (fleet_gen.py's noise
# on an H200 run): two GPUs of eight nightly runs each; GPU A healthy, GPU B
# whose pinned H2D rate loses 2 % a night over its last three runs (-6 %,
# still far above preflight's floor of 0.70 of the link).  B is flagged
# naming its h2d figures, A is not; A alone exits 0; a folder of
# NAME/results.json reads as one of NAME.json; a folder's files that are no
# run, broken or unfinished are each said; a host without a GPU counts as
# a host, not a GPU; a copy of a run counts once; the JSON carries the series;
# too few runs are not judged; bad input exits 2 with one line.
# Needs the built dmalab (BUILD, default build) and python3.
# shellcheck disable=SC2015 # ok and bad return 0
set -u
BUILD=${BUILD:-build}
D=$BUILD/dmalab
PY=${DMALAB_PYTHON:-python3}
FIX=harness/tests/fixtures/compare/node-h200.json
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-history.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

"$PY" harness/tests/tools/fleet_gen.py "$FIX" "$tmp/gen" 16 --seed 7 >/dev/null || exit 1
mkdir -p "$tmp/a" "$tmp/b"
"$PY" - "$tmp" <<'EOF' || exit 1
import glob, json, os, sys
tmp = sys.argv[1]
for i, path in enumerate(sorted(glob.glob(os.path.join(tmp, "gen", "*.json")))):
    d = json.load(open(path))
    gpu, night = ("a", i) if i < 8 else ("b", i - 8)
    d["machine"]["hostname"] = "node-" + gpu
    d["machine"]["gpus"][0]["uuid"] = "GPU-%s0000000-0000-0000-0000-000000000000" % gpu
    d["started"] = "2026-11-%02dT02:00:00Z" % (night + 1)
    loss = 0.02 * max(0, night - 4) if gpu == "b" else 0.0
    for lab in d["labs"]:
        for key, f in (lab.get("facts") or {}).items():
            if key.startswith("h2d_pinned") and isinstance(f, dict) and "value" in f:
                f["value"] *= 1 - loss
    json.dump(d, open(os.path.join(tmp, gpu, "night-%d.json" % night), "w"))
EOF

# 1. Both GPUs: B flagged by its H2D rate, A not; exit 1.
"$D" history "$tmp/a" "$tmp/b" --json "$tmp/h.json" >"$tmp/both.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q '^history: 2 GPUs, 1 flagged$' "$tmp/both.out" && ok ||
	bad "both: exit $rc: $(cat "$tmp/both.out")"
grep -q '^GPU-b0000000-.*: NVIDIA H200 on node-b, 8 runs from 2026-11-01T02:00:00Z to '\
'2026-11-08T02:00:00Z: FLAGGED' "$tmp/both.out" && ok || bad "B not flagged: $(cat "$tmp/both.out")"
grep -q '^GPU-a0000000-.*: ok$' "$tmp/both.out" && ok || bad "A flagged: $(cat "$tmp/both.out")"
grep -q '^  02/h2d_pinned_gbs  *low ' "$tmp/both.out" && ok || bad "no low 02/h2d_pinned_gbs"
[ "$(grep -c '^  .* low ' "$tmp/both.out")" = "$(grep -c '^  [0-9/]*h2d_pinned.* low ' \
	"$tmp/both.out")" ] && ok || bad "figures other than h2d_pinned flagged low"

# 2. The JSON: B's series of 8 values, its band, its verdict.
"$PY" - "$tmp/h.json" <<'EOF' && ok || bad "history JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "dmalab-history/1"
b = next(g for g in d["gpus"] if g["id"].startswith("GPU-b"))
assert b["status"] == "flagged" and len(b["runs"]) == 8
f = next(f for f in b["figures"] if f["key"] == "02/h2d_pinned_gbs")
assert len(f["values"]) == 8 and f["verdict"] == "low" and f["values"][-1] < f["band_lo"]
a = next(g for g in d["gpus"] if g["id"].startswith("GPU-a"))
assert a["status"] == "ok"
EOF

# 3. A alone: exit 0 (a file in its folder that is no run is passed over); --all
# prints every figure's series.
echo '{"schema": "dmalab-compare/1"}' >"$tmp/a/fleet.json"
"$D" history "$tmp/a" --all >"$tmp/a.out" 2>&1 && ok || bad "A alone: exit $?"
[ "$(grep -c '^  ' "$tmp/a.out")" -gt 20 ] && ok ||
	bad "--all printed $(grep -c '^  ' "$tmp/a.out")"

# 3a. Files in a folder that are passed over are each said on stderr, as
# dmalab class says them: a broken file, an unfinished run, no run at all.
printf 'not json' >"$tmp/a/broken.json"
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["status"] = "running"
json.dump(d, open(sys.argv[2], "w"))' "$tmp/a/night-0.json" "$tmp/a/killed.json"
"$D" history "$tmp/a" >/dev/null 2>"$tmp/skip.err" && ok || bad "A with broken files: exit $?"
grep -q "skipping '$tmp/a/broken.json': " "$tmp/skip.err" &&
	grep -q "skipping '$tmp/a/killed.json': .*an unfinished run (status 'running')" \
		"$tmp/skip.err" &&
	grep -q "skipping '$tmp/a/fleet.json': not a run's results.json" "$tmp/skip.err" &&
	[ "$(wc -l <"$tmp/skip.err")" -eq 3 ] && ok ||
	bad "skipped files not said one line each: $(cat "$tmp/skip.err")"
rm -f "$tmp/a/broken.json" "$tmp/a/killed.json"

# 3b. A folder of DIR/NAME/results.json (make check RESULTS=DIR/NAME), as dmalab
# class reads one: A's eight runs read there as from A's folder.
for f in "$tmp"/a/night-*.json; do
	n=$(basename "$f" .json)
	mkdir -p "$tmp/c/$n" && cp "$f" "$tmp/c/$n/results.json"
done
"$D" history "$tmp/c" >"$tmp/c.out" 2>&1 && grep -q '^GPU-a0000000-.*, 8 runs from ' "$tmp/c.out" &&
	grep -q '^history: 1 GPU, 0 flagged$' "$tmp/c.out" && ok ||
	bad "DIR/NAME/results.json: $(cat "$tmp/c.out")"

# 3c. A host without a GPU is grouped by its hostname, and the count says so.
"$D" history "$tmp/a" plots/tests/fixtures/results-cpu.json >"$tmp/cpu.out" 2>&1 &&
	grep -q '^history: 1 GPU and 1 host (no GPU UUID), 0 flagged$' "$tmp/cpu.out" && ok ||
	bad "a GPU and a host without one: $(tail -n 1 "$tmp/cpu.out")"
"$D" history plots/tests/fixtures/results-cpu.json >"$tmp/cpu.out" 2>&1 &&
	grep -q '^history: 1 host (no GPU UUID), 0 flagged$' "$tmp/cpu.out" &&
	grep -q ': no GPU on ' "$tmp/cpu.out" && ok ||
	bad "a host without a GPU: $(cat "$tmp/cpu.out")"

# 3d. A copy of B's latest run in a second file (results/results.json given beside the
# folder it was kept in) is that run once: passed over, said on stderr; it was an
# earlier run of its own, the band held the latest, and B's loss was not flagged.
mkdir -p "$tmp/kept"
cp "$tmp/b/night-7.json" "$tmp/kept/results.json"
"$D" history "$tmp/b" "$tmp/kept/results.json" >"$tmp/copy.out" 2>"$tmp/copy.err"
rc=$?
[ "$rc" = 1 ] && grep -q '^GPU-b0000000-.*, 8 runs from .*: FLAGGED' "$tmp/copy.out" &&
	grep -q "skipping '$tmp/kept/results.json': the same run as '$tmp/b/night-7.json'" \
		"$tmp/copy.err" && ok ||
	bad "a copy of B's latest run: exit $rc: $(cat "$tmp/copy.out" "$tmp/copy.err")"

# 4. Three runs of B are too few for the default --min-runs 4.
"$D" history "$tmp/b/night-5.json" "$tmp/b/night-6.json" "$tmp/b/night-7.json" \
	>"$tmp/few.out" 2>&1 && grep -q 'too few runs to judge' "$tmp/few.out" && ok ||
	bad "three runs: $(cat "$tmp/few.out")"

# 5. Bad input: exit 2, one line.
echo '{"not": "results"}' >"$tmp/junk.json"
for a in "$tmp/none.json" "$tmp/junk.json" "--min-runs 2 $tmp/a" "--bogus $tmp/a" ""; do
	# shellcheck disable=SC2086 # each case is its words
	"$D" history $a >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] && ok ||
		bad "history $a: exit $rc, stderr '$(cat "$tmp/bad.err")'"
done

# --json naming a run it reads (named, or in a folder): refused, the run kept
mkdir "$tmp/j" && cp "$tmp/b/night-7.json" "$tmp/j/x.json"
for a in "$tmp/j/x.json" "$tmp/j"; do
	"$D" history "$a" --json "$tmp/j/x.json" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/bad.err")" = 1 ] &&
		cmp -s "$tmp/b/night-7.json" "$tmp/j/x.json" && ok ||
		bad "history $a --json one of its runs: exit $rc, stderr '$(cat "$tmp/bad.err")'"
done

echo "test-history: $pass passed, $fail failed"
[ "$fail" = 0 ]
