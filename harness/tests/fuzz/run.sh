#!/bin/sh
# run.sh - the fuzz targets of harness/tests/fuzz (README.md there).
#
#   run.sh smoke          build them (make fuzz), run each FUZZ_SECONDS (default
#                         10) on its seed corpus, then replay every file under
#                         crashers/<target>/ once; one line per target, and
#                         "fuzz-smoke: N targets, C crashers replayed, 0 failed"
#   run.sh long T SECS    one target for SECS seconds, nice'd, its corpus grown
#                         in $BUILD/fuzz/corpus/T (the seeds are never written)
#
# Without clang (FUZZ_CC) that can build a libFuzzer target, one line says
# so and the exit status is 0.  Environment: BUILD (default build), MAKE,
# FUZZ_CC (default clang), FUZZ_SECONDS.
set -u
here=$(dirname "$0")
b=${BUILD:-build}
cc=${FUZZ_CC:-clang}
make=${MAKE:-make}
secs=${FUZZ_SECONDS:-10}
mode=${1:-smoke}

probe=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$probe"' EXIT
trap 'rm -rf "$probe"; exit 130' INT TERM HUP
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz-smoke: skip (no $cc; apt-get install -y clang libclang-rt-dev)"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
	echo "fuzz-smoke: skip ($cc cannot build a libFuzzer target with -fsanitize=fuzzer;" \
		"apt-get install -y clang libclang-rt-dev)"
	exit 0
fi
$make --no-print-directory BUILD="$b" FUZZ_CC="$cc" fuzz >"$probe/build.log" 2>&1 || {
	echo "fuzz-smoke: make fuzz failed:"
	tail -30 "$probe/build.log"
	exit 1
}

# The options every run takes: reports on, the target's own output off.
opts="-close_fd_mask=3 -timeout=25 -rss_limit_mb=2048 -max_len=16384"

if [ "$mode" = long ]; then
	t=${2:?run.sh long TARGET SECONDS}
	s=${3:?run.sh long TARGET SECONDS}
	mkdir -p "$b/fuzz/corpus/$t" "$b/fuzz/artifacts/$t"
	exec nice -n 10 "$b/fuzz/fuzz_$t" $opts -max_total_time="$s" -print_final_stats=1 \
		-artifact_prefix="$b/fuzz/artifacts/$t/" "$b/fuzz/corpus/$t" "$here/corpus/$t"
fi

failed=0
n=0
replayed=0
for bin in "$b"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	t=${bin##*/fuzz_}
	n=$((n + 1))
	log=$probe/$t.log
	mkdir -p "$probe/$t" "$b/fuzz/artifacts/$t"
	# new inputs go to the scratch dir first on the line: the seeds stay as they are
	if nice -n 10 "$bin" $opts -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$b/fuzz/artifacts/$t/" "$probe/$t" "$here/corpus/$t" \
		>"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		line="ok   fuzz_$t: ${runs:-?} runs in ${secs} s"
	else
		echo "FAIL fuzz_$t: a crash (input kept in $b/fuzz/artifacts/$t/: see below)"
		grep -A25 'ERROR: \|runtime error\|deadly signal\|Test unit written' "$log" |
			head -50
		failed=$((failed + 1))
		continue
	fi
	c=0
	for f in "$here/crashers/$t"/*; do
		[ -f "$f" ] || continue
		c=$((c + 1))
		if ! "$bin" $opts "$f" >"$log" 2>&1; then
			echo "FAIL fuzz_$t: crasher $f crashes again:"
			grep -A25 'ERROR: \|runtime error\|deadly signal' "$log" | head -40
			failed=$((failed + 1))
		fi
	done
	replayed=$((replayed + c))
	echo "$line${c:+, $c crasher(s) replayed}" | sed 's/, 0 crasher(s) replayed//'
done
echo "fuzz-smoke: $n targets, $replayed crashers replayed, $failed failed"
[ "$failed" -eq 0 ]
