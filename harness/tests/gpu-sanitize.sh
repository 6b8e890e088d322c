#!/bin/sh
# gpu-sanitize.sh [LAB...] - compute-sanitizer memcheck (leak check on) over
# the CUDA labs with --quick, on a GPU machine.  Every report is classified
# against harness/tests/sanitize-expected.txt: a CUDA API error, an invalid
# access or a leak that a claim provokes on purpose is named with its claim;
# any other one fails.  Without compute-sanitizer or a GPU it says so and
# exits 0.  Logs under ${SANITIZE_DIR:-results/sanitize}.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
expected=$here/sanitize-expected.txt
out=${SANITIZE_DIR:-results/sanitize}
labs=${*:-01 02 03 05 06 07 08 10 11}
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "gpu-sanitize: skipped (no compute-sanitizer)"; exit 0; }
[ -e /dev/nvidiactl ] || { echo "gpu-sanitize: skipped (no GPU)"; exit 0; }
mkdir -p "$out"
bad=0
for id in $labs; do
	log=$out/lab-$id.log
	timeout 300 "$san" --tool memcheck --leak-check full --print-limit 20 \
		"$BUILD/labs/lab-$id" --quick >"$log" 2>&1
	rc=$?
	python3 - "$id" "$log" "$expected" "$rc" <<'PY' || bad=$((bad + 1))
import re, sys
lab, log, exp_path, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
expect = {}
for line in open(exp_path):
    if line.strip() and not line.startswith("#"):
        l, kind, what, reason = line.rstrip("\n").split(" ", 3)
        expect[(l, kind, what)] = reason
text = open(log, errors="replace").read().split("\n")
found, i = [], 0
def frame_after(i):  # the first host frame in the lab, not the CUDA runtime's
    for l in text[i + 1:i + 12]:
        m = re.search(r"Host Frame: ([A-Za-z_][\w]*)\(", l) or re.search(r"Host Frame: ([A-Za-z_]\w*) \[", l)
        if m and not m.group(1).startswith("cuda") and not m.group(1).startswith("cu"):
            return m.group(1)
    return "?"
for i, l in enumerate(text):
    m = re.search(r"Program hit (\w+) \(error \d+\).* on CUDA API call to (\w+)", l)
    if m:
        found.append(("api", "%s:%s" % (m.group(2), m.group(1))))
    elif re.search(r"=== (Invalid __\w+__ \w+|Out-of-range|Misaligned)", l):
        found.append(("access", frame_after(i)))
    elif re.search(r"=== Leaked [\d,]+ bytes", l):
        found.append(("leak", frame_after(i)))
named, unexpected = {}, {}
for kind, what in found:
    key = (lab, kind, what)
    (named if key in expect else unexpected).setdefault(key, 0)
    (named if key in expect else unexpected)[key] += 1
summary = [l for l in text if "ERROR SUMMARY" in l or "LEAK SUMMARY" in l]
print("gpu-sanitize: lab-%s: exit %d; %s" % (lab, rc, "; ".join(s.strip("= ") for s in summary[-2:])))
for (l, kind, what), n in sorted(named.items()):
    print("  expected  %-6s %s x%d: %s" % (kind, what, n, expect[(l, kind, what)]))
for (l, kind, what), n in sorted(unexpected.items()):
    print("  UNEXPECTED %-6s %s x%d (see %s)" % (kind, what, n, log))
crashed = rc >= 124 or "Target application terminated" in "\n".join(text)
sys.exit(1 if unexpected or crashed else 0)
PY
done
echo "gpu-sanitize: $bad lab(s) with unexpected reports"
[ "$bad" -eq 0 ]
