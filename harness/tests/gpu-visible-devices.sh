#!/bin/sh
# gpu-visible-devices.sh - on a GPU machine, CUDA_VISIBLE_DEVICES that hides
# every GPU must make the CUDA labs skip no-cuda-device naming the value,
# never no-cuda-driver (the driver is there) nor an error.  Run by hand on
# the GPU machine (not part of make test: CI has no GPU):
#
#   sh harness/tests/gpu-visible-devices.sh        (BUILD=build by default)
#
# For each value '', '-1' and '5' (5 only where fewer than 6 GPUs are
# present, so that it names none), lab-02 and lab-06 run --quick: exit 77,
# every claim "# SKIP no-cuda-device: ... CUDA_VISIBLE_DEVICES='VALUE' ...",
# and their JSON record says the same; `dmalab list` forecasts
# no-cuda-device for lab-02, not no-cuda-driver.  Exit 0 when every check
# passed, 1 when one failed, 77 when this machine has no NVIDIA GPU.
set -u
case "${1:-}" in
-h | --help)
	sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
"") ;;
*)
	echo "gpu-visible-devices.sh: unknown argument '$1' (see --help)" >&2
	exit 2
	;;
esac
BUILD=${BUILD:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

gpus=$(ls -d /proc/driver/nvidia/gpus/* 2>/dev/null | wc -l)
if [ "$gpus" -eq 0 ] && command -v nvidia-smi >/dev/null 2>&1; then
	gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ "$gpus" -eq 0 ]; then
	echo "gpu-visible-devices: skip (no NVIDIA GPU here)"
	exit 77
fi
for f in "$BUILD/labs/lab-02" "$BUILD/labs/lab-06" "$BUILD/dmalab"; do
	[ -x "$f" ] || { echo "gpu-visible-devices: $f is not built (make)" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-visible.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; exit 130' INT TERM HUP

# check_lab ID VALUE: lab-ID with CUDA_VISIBLE_DEVICES=VALUE skips as it should.
check_lab() {
	id=$1 value=$2 name="lab-$1 CUDA_VISIBLE_DEVICES='$2'"
	out=$tmp/$id.tap
	CUDA_VISIBLE_DEVICES=$value timeout 120 "$BUILD/labs/lab-$id" --quick \
		--json "$tmp/$id.json" >"$out" 2>"$tmp/$id.err"
	rc=$?
	[ "$rc" -eq 77 ] && ok ||
		bad "$name: exit $rc, want 77 (all skipped): $(head -c 300 "$tmp/$id.err")"
	points=$(grep -c '^ok [0-9]* - \|^not ok ' "$out")
	named=$(grep -c "^ok [0-9]* - .*# SKIP no-cuda-device: .*CUDA_VISIBLE_DEVICES='$value'" \
		"$out")
	if [ "$points" -gt 0 ] && [ "$named" -eq "$points" ]; then ok; else
		seen=$(grep -m1 '# SKIP' "$out" | cut -c1-240)
		bad "$name: $named of $points claims skip no-cuda-device naming the value: $seen"
	fi
	if grep -q 'no-cuda-driver\|no NVIDIA driver' "$out"; then
		bad "$name: says the driver is missing: $(grep -m1 \
			'no-cuda-driver\|no NVIDIA driver' "$out" | cut -c1-240)"
	else ok; fi
	if grep -q "\"reason\": *\"no-cuda-device\"" "$tmp/$id.json" &&
		grep -q "CUDA_VISIBLE_DEVICES='$value'" "$tmp/$id.json"; then ok; else
		bad "$name: the JSON record lacks reason no-cuda-device with the value"
	fi
}

values="'' '-1'"
[ "$gpus" -lt 6 ] && values="$values '5'" ||
	echo "gpu-visible-devices: $gpus GPUs here, so 5 names one: that case left out"
eval "set -- $values"
for value in "$@"; do
	check_lab 02 "$value"
	check_lab 06 "$value"
	CUDA_VISIBLE_DEVICES=$value timeout 120 "$BUILD/dmalab" list --labs-dir "$BUILD/labs" \
		>"$tmp/list.out" 2>&1
	line=$(sed -n '/^lab-02 /,/^$/p' "$tmp/list.out" | grep -m1 'here:')
	forecast="dmalab list, CUDA_VISIBLE_DEVICES='$value': lab-02 forecast '$line'"
	case $line in
	*no-cuda-device*) ok ;;
	*) bad "$forecast, want no-cuda-device" ;;
	esac
	case $line in
	*CUDA_VISIBLE_DEVICES*) ok ;;
	*) bad "$forecast does not name the variable" ;;
	esac
done
echo "gpu-visible-devices: $pass passed, $fail failed ($gpus GPU(s) here)"
[ "$fail" -eq 0 ]
