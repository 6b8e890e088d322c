#!/bin/sh
# test-preflight.sh - dmalab-preflight on this machine, each case with the
# exit code and the status line it must end with:
#   healthy with the GPU checks not applicable (no NVIDIA GPU), as JSON too,
#   well under the 10 s a health check may take; a memlock limit under the
#   floor (prlimit, and --memlock-min above the limit): 1; bad options: 2
#   with one line on stderr; a made-up sysfs with an NVIDIA GPU and no
#   driver (or a driver whose cuInit fails): 1; that GPU listed by a
#   made-up driver (fake_libcuda.c), so that the GPU helper runs and fails:
#   1, and hangs: 1 within --gpu-timeout, the helper gone; --expect-gpus;
#   the stub build (NVCC=): the GPU checks not run, 2; the Slurm wrapper
#   drains the node (a fake scontrol) only when unhealthy.
# The made-up driver in LD_LIBRARY_PATH comes before a real one, so the
# cases read the same on a GPU machine.  Every run is under `timeout`.
# shellcheck disable=SC2086,SC2015 # $nocuda and $onecuda are two words on purpose; ok and bad return 0
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
P=$BUILD/dmalab-preflight
W=$BUILD/dmalab-preflight-wrapper
FAKE=$BUILD/tests/fake-cuda
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-preflight.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

for f in "$P" "$W" "$FAKE/libcuda.so.1"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "test-preflight: $f not built" >&2; exit 1; }
done

# A floor this process meets: its own soft limit (prlimit may not raise it here).
# shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -l
lim=$(ulimit -l)
if [ "$lim" = unlimited ]; then floor=64M; else floor=${lim}K; fi

# Sysfs trees: none with no NVIDIA GPU, one with one (a 3D controller, idle link).
mkdir -p "$tmp/none/bus/pci/devices" "$tmp/one/bus/pci/devices/0000:fe:00.0"
d=$tmp/one/bus/pci/devices/0000:fe:00.0
echo 0x10de >"$d/vendor"; echo 0x030200 >"$d/class"; echo 0x2335 >"$d/device"
echo "32.0 GT/s PCIe" >"$d/max_link_speed"; echo 16 >"$d/max_link_width"
echo "2.5 GT/s PCIe" >"$d/current_link_speed"; echo 16 >"$d/current_link_width"

# pf NAME [env ...] -- args: runs the program; rc, $tmp/NAME.out, .err, the last line, ms
pf() {
	name=$1
	shift
	t0=$(date +%s%N)
	timeout 60 env "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	last=$(tail -n 1 "$tmp/$name.out")
}
expect() { # NAME RC PATTERN: exit code RC, last line matching the grep pattern
	if [ "$rc" -eq "$2" ] && printf '%s\n' "$last" | grep -q -- "$3"; then ok; else
		bad "$1: exit $rc (want $2), last line '$last' (want /$3/); stderr: $(head -c 300 "$tmp/$1.err")"
	fi
}
nocuda="LD_LIBRARY_PATH=$FAKE FAKE_CUDA_BUS_IDS="
onecuda="LD_LIBRARY_PATH=$FAKE FAKE_CUDA_BUS_IDS=0000:fe:00.0"
built=1 # 0 below when the program's JSON says it has no GPU helper (no nvcc)

# 1. Healthy here: no GPU, the GPU checks not applicable; JSON; the time limit.
pf healthy $nocuda "$P" --sysfs-root "$tmp/none" --memlock-min "$floor" --json "$tmp/h.json"
expect healthy 0 '^preflight: healthy (no NVIDIA GPU: memlock and mlock only)$'
grep -q '^gpus     n/a ' "$tmp/healthy.out" && grep -q '^h2d      n/a ' "$tmp/healthy.out" &&
	grep -q '^mlock    ok ' "$tmp/healthy.out" && ok || bad "healthy: the check lines: $(cat "$tmp/healthy.out")"
[ "$ms" -lt 5000 ] && ok || bad "healthy: took $ms ms, a health check has 10 s"
if grep -q '"status": "healthy"' "$tmp/h.json" && grep -q '"exit_code": 0' "$tmp/h.json" &&
	{ ! command -v python3 >/dev/null || python3 -m json.tool "$tmp/h.json" >/dev/null; }; then
	ok
else
	bad "healthy: --json: $(head -c 300 "$tmp/h.json")"
fi
grep -q '"gpu_built": false' "$tmp/h.json" && built=0
if ! grep -qs 0x10de /sys/bus/pci/devices/*/vendor; then # the live /sys, no GPU here
	pf live "$P" --memlock-min "$floor"
	expect live 0 '^preflight: healthy'
fi
pf brief $nocuda "$P" --sysfs-root "$tmp/none" --memlock-min "$floor" --brief
[ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/brief.out")" -eq 1 ] && ok || bad "--brief: exit $rc, $(cat "$tmp/brief.out")"

# 2. The memlock floor: a 64 KiB limit, and a floor above the limit.
if command -v prlimit >/dev/null; then
	pf lowlimit $nocuda prlimit --memlock=65536:65536 "$P" --sysfs-root "$tmp/none"
	expect lowlimit 1 '^preflight: unhealthy: RLIMIT_MEMLOCK 64 KiB < 64 MiB (--memlock-min)'
else
	echo "test-preflight: no prlimit: the 64 KiB limit case skipped"
fi
if [ "$lim" != unlimited ]; then
	pf floor $nocuda "$P" --sysfs-root "$tmp/none" --memlock-min unlimited
	expect floor 1 "^preflight: unhealthy: RLIMIT_MEMLOCK .* < unlimited"
fi
pf floor2 $nocuda "$P" --sysfs-root "$tmp/none" --memlock-min 1T
if [ "$lim" = unlimited ]; then
	expect floor2 0 '^preflight: healthy'
else
	expect floor2 1 "^preflight: unhealthy: RLIMIT_MEMLOCK .* < 1 TiB"
fi

# 3. Bad options: exit 2, one line on stderr naming the value, nothing on stdout.
for a in "--size 1M" "--min-fraction 2" "--bogus" "--expect-gpus x" "--gpu-timeout 0" \
	"--memlock-min lots" "--json /nonexistent-dir/x.json" "--sysfs-root /nonexistent-dir" "stray"; do
	# shellcheck disable=SC2086 # each case is an option and its value
	pf usage "$P" $a
	v=${a#* }
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/usage.out" ] && [ "$(wc -l <"$tmp/usage.err")" -eq 1 ] &&
		grep -q -- "$v" "$tmp/usage.err"; then ok; else
		bad "'$a': exit $rc, stdout '$(cat "$tmp/usage.out")', stderr '$(cat "$tmp/usage.err")'"
	fi
done
pf help "$P" --help
[ "$rc" -eq 0 ] && grep -q '^exit status' "$tmp/help.out" && grep -q -- '--memlock-min' "$tmp/help.out" &&
	ok || bad "--help: exit $rc"

# 4. An NVIDIA GPU in sysfs, and no driver (or one that does not start): unhealthy.
if ! { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; } && [ -z "${LD_LIBRARY_PATH:-}" ]; then
	pf nodriver "$P" --sysfs-root "$tmp/one" --memlock-min "$floor"
	expect nodriver 1 '^preflight: unhealthy: 1 NVIDIA GPU in sysfs (0000:fe:00.0) but CUDA lists none: no NVIDIA driver (libcuda.so.1 not found)$'
fi
pf badinit $onecuda FAKE_CUDA_INIT=999 "$P" --sysfs-root "$tmp/one" --memlock-min "$floor"
expect badinit 1 'CUDA lists none: cuInit/cuDeviceGetCount: CUDA_ERROR_UNKNOWN (999)'
pf hidden $nocuda "$P" --sysfs-root "$tmp/one" --memlock-min "$floor"
expect hidden 1 'but CUDA lists none'
grep -q '^link     not run CUDA lists no GPU' "$tmp/hidden.out" && ok || bad "hidden: $(cat "$tmp/hidden.out")"
pf expect $onecuda "$P" --sysfs-root "$tmp/one" --memlock-min "$floor" --expect-gpus 2
expect expect 1 'expected 2 NVIDIA GPUs (--expect-gpus), found 1'

# 5. The GPU listed: the helper runs, finds no usable CUDA runtime driver, fails;
#    then hangs and is stopped at --gpu-timeout, leaving nothing behind.
if [ "$built" = 1 ]; then
	pf helper $onecuda "$P" --sysfs-root "$tmp/one" --memlock-min "$floor" --json "$tmp/g.json"
	expect helper 1 '^preflight: unhealthy: GPU 0 (0000:fe:00.0) not measured: the GPU helper exited with code 99: '
	grep -q '^gpus     ok      1 NVIDIA GPU in sysfs, visible to CUDA$' "$tmp/helper.out" &&
		grep -q '"measured": false' "$tmp/g.json" && ok || bad "helper: $(cat "$tmp/helper.out")"
	pf hang $onecuda FAKE_CUDA_HANG_HELPER=1 "$P" --sysfs-root "$tmp/one" --memlock-min "$floor" --gpu-timeout 2
	expect hang 1 'GPU 0 (0000:fe:00.0) not measured within 2.0 s (what --gpu-timeout left for it): the helper was stopped'
	[ "$ms" -lt 6000 ] && ok || bad "hang: took $ms ms with --gpu-timeout 2"
	left=$(pgrep -f -- '--role gpu --bdf 0000:fe:00.0')
	if [ -z "$left" ]; then ok; else
		bad "hang: a helper was left: pid $left"
		for pid in $left; do kill -9 "$pid"; done # the helper this test started
	fi
else
	pf helper $onecuda "$P" --sysfs-root "$tmp/one" --memlock-min "$floor"
	expect helper 2 '^preflight: could not run: this build has no CUDA'
fi

# 6. The stub build (no nvcc) compiles, and says the GPU checks were not run.
stub=$BUILD/pf-stub
if $MAKE --no-print-directory -s BUILD="$stub" NVCC= "$stub/dmalab-preflight" >"$tmp/stub.log" 2>&1; then
	pf stub $onecuda "$stub/dmalab-preflight" --sysfs-root "$tmp/one" --memlock-min "$floor"
	expect stub 2 '^preflight: could not run: this build has no CUDA (built without nvcc)'
	pf stubnone $nocuda "$stub/dmalab-preflight" --sysfs-root "$tmp/none" --memlock-min "$floor"
	expect stubnone 0 '^preflight: healthy (no NVIDIA GPU'
else
	bad "stub build (make BUILD=$stub NVCC=): $(tail -n 5 "$tmp/stub.log")"
fi

# 7. The Slurm wrapper: drains through scontrol only when unhealthy, with the reason.
mkdir -p "$tmp/bin" "$tmp/w"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s/scontrol.log"\n' "$tmp" >"$tmp/bin/scontrol"
chmod 755 "$tmp/bin/scontrol"
pf wrap-ok $nocuda SCONTROL="$tmp/bin/scontrol" SLURMD_NODENAME=gpu07 "$W" --sysfs-root "$tmp/none" --memlock-min "$floor"
expect wrap-ok 0 '^preflight: healthy'
[ ! -e "$tmp/scontrol.log" ] && ok || bad "wrapper: scontrol ran on a healthy node: $(cat "$tmp/scontrol.log")"
pf wrap-bad $onecuda SCONTROL="$tmp/bin/scontrol" SLURMD_NODENAME=gpu07 "$W" --sysfs-root "$tmp/one" --memlock-min "$floor" --expect-gpus 2
expect wrap-bad 1 '^preflight: unhealthy: expected 2'
grep -q '^update NodeName=gpu07 State=DRAIN Reason=dmalab-preflight: expected 2 NVIDIA GPUs' "$tmp/scontrol.log" &&
	ok || bad "wrapper: scontrol was given '$(cat "$tmp/scontrol.log" 2>/dev/null)'"
# options from dmalab-preflight.args beside the wrapper (Slurm passes none)
cp "$W" "$tmp/w/dmalab-preflight-wrapper"
echo "--sysfs-root $tmp/none --memlock-min $floor --expect-gpus 3" >"$tmp/w/dmalab-preflight.args"
rm -f "$tmp/scontrol.log"
pf wrap-args $nocuda SCONTROL="$tmp/bin/scontrol" SLURMD_NODENAME=gpu07 DMALAB_PREFLIGHT="$P" "$tmp/w/dmalab-preflight-wrapper"
expect wrap-args 1 'expected 3 NVIDIA GPUs'
grep -q 'State=DRAIN' "$tmp/scontrol.log" && ok || bad "wrapper with an .args file: no drain"

echo "test-preflight: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
