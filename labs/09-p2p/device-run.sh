#!/bin/sh
# device-run.sh - lab-09 on the GPU machine, for the lead: build, run the lab
# and its sabotage build with --json into $OUT (default ./out), print both.
# Run from the repository root.  A lab's exit code is reported, never fatal:
# 77 (one GPU: single-gpu) and 1 (a claim failed) are results.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
make -j16 build/labs/lab-09 build/sabotage/lab-09 || exit 1
for build in labs sabotage; do
	echo "== build/$build/lab-09 $*"
	"build/$build/lab-09" --json "$OUT/lab-09-$build.json" "$@" >"$OUT/lab-09-$build.tap" 2>&1
	echo "exit $?" >>"$OUT/lab-09-$build.tap"
	cat "$OUT/lab-09-$build.tap"
done
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1 && cat "$OUT/topo.txt"
