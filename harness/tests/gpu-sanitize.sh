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
	# the helpers' timeouts x10: the tool slows a faulting kernel by orders of magnitude
	DMALAB_TIMEOUT_MUL=10 timeout "${SANITIZE_TIMEOUT:-300}" "$san" --tool memcheck \
		--leak-check full --print-limit 1000 "$BUILD/labs/lab-$id" --quick >"$log" 2>&1
	rc=$?
	python3 "$here/sanitize_classify.py" "$id" "$log" "$expected" "$rc" || bad=$((bad + 1))
done
echo "gpu-sanitize: $bad lab(s) with unexpected reports"
[ "$bad" -eq 0 ]
