#!/bin/bash
# device-run.sh - what the developers run on a GPU machine in one batch:
# build everything, record the machine, `make check`, the sabotage builds,
# `--quick` timings and the chapter's large sizes.  Output goes to $OUT
# (default /tmp/dmalab-out): log.txt, results-h200.json, results.tgz.
set -u
OUT=${OUT:-/tmp/dmalab-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
JOBS=$(nproc)

section() { printf '\n===== %s\n' "$*"; }

section machine
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
nvidia-smi topo -m
nproc; free -g | head -2; ulimit -l; cat /sys/kernel/mm/transparent_hugepage/enabled
section build
time make -j"$JOBS" all sabotage fakelabs build/tests/sabotage-check 2>&1 | grep -Ev '^(nvcc|cc|gcc|ar|rm) ' | tail -20
section sysinfo
make -s sysinfo
section "make check"
time make check FORMAT=human; echo "make check exit=$?"
cp results/results.json "$OUT/results-h200.json"
section sabotage
time build/tests/sabotage-check build/sabotage
section "quick timings"
for lab in build/labs/lab-*; do
	name=$(basename "$lab")
	/usr/bin/time -f "$name --quick: %e s, exit %x" "$lab" --quick \
		--json "results/quick-$name.json" >"results/quick-$name.tap" 2>"results/quick-$name.err" || true
	tail -1 "results/quick-$name.err"
	grep '^not ok' "results/quick-$name.tap" || true
done
section "grade, quiz, answers"
make -s grade FROM=results/results.json | tail -40
printf 'my answer\n\ny\n' | build/dmalab quiz --chapter ch2 2>&1 | tail -25
make -s test-answers > results/test-answers.log 2>&1; grep -E "^FAIL|passed" results/test-answers.log
section "runner self-test"
BUILD=build sh harness/tests/test-runner.sh | tail -3
section "plots and report"
make -s plots && make -s report && ls -la results/plots results/report.html
cp results/plots/lab02_bandwidth.png results/plots/lab05_4gib.png "$OUT"/ 2>/dev/null
section "left-over processes"
ps -eo pid,ppid,stat,cmd | grep -E 'lab-0[0-9]' | grep -v grep || echo "none"
section extra
eval "${EXTRA:-true}"
tar czf "$OUT/results.tgz" results
