#!/bin/sh
# test-preflight.sh - `dmalab preflight` on this machine, each case with the
# exit code and the status line it must end with:
#   healthy with the GPU checks not applicable (no NVIDIA GPU), as JSON too,
#   well under the 10 s a health check may take; what a job can lock (root
#   with CAP_IPC_LOCK under a 64 KiB limit: 0; root without it: 1; a user
#   whose soft limit is low and hard limit not: 0); bad options: 2
#   with one line on stderr; a made-up sysfs with an NVIDIA GPU and the real
#   lab-02 finding no driver, or a made-up driver that does not start
#   (fake_libcuda.c): 1, or that hangs: 1 within --timeout, nothing left
#   behind; made-up lab-02 records (a healthy GPU, a slow copy, a GPU CUDA
#   does not list, a CUDA error, a build without nvcc, no lab-02: 0, 1, 1,
#   1, 2, 2); stopped by SIGINT or SIGTERM: 130, 143, said, the lab gone; the
#   Slurm wrapper drains the node (a fake scontrol) only when unhealthy.
# The made-up driver in LD_LIBRARY_PATH comes before a real one, so the
# cases read the same on a GPU machine.  Every run is under `timeout`.
# shellcheck disable=SC2086,SC2015 # $nocuda, $slurm, $fake: words on purpose; ok and bad return 0
set -u
BUILD=${BUILD:-build}
D=$BUILD/dmalab
W=$BUILD/fleet/preflight.sh
FAKE=$BUILD/tests/fake-cuda
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-preflight.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

for f in "$D" "$W" "$BUILD/labs/lab-01" "$BUILD/labs/lab-02" "$FAKE/libcuda.so.1"; do
	[ -f "$f" ] || { echo "test-preflight: $f not built" >&2; exit 1; }
done

# A floor this process meets: its own soft limit (prlimit may not raise it here).
# shellcheck disable=SC3045 # dash, bash and busybox sh all have ulimit -l
lim=$(ulimit -l)
if [ "$lim" = unlimited ]; then floor=64M; else floor=${lim}K; fi

# Sysfs trees: none with no NVIDIA GPU, one with one, two with two (3D controllers).
gpu() { # TREE BDF: an NVIDIA H200 at Gen5 x16
	d=$tmp/$1/bus/pci/devices/$2
	mkdir -p "$d"
	echo 0x10de >"$d/vendor"; echo 0x030200 >"$d/class"; echo 0x2335 >"$d/device"
	echo "32.0 GT/s PCIe" >"$d/max_link_speed"; echo 16 >"$d/max_link_width"
}
mkdir -p "$tmp/none/bus/pci/devices"
gpu one 0000:fe:00.0
gpu two 0000:fe:00.0
gpu two 0000:ff:00.0

# pf NAME [env ...] -- args: runs dmalab; rc, $tmp/NAME.out, .err, the last line, ms
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
		bad "$1: exit $rc (want $2), last line '$last' (want /$3/); stderr: $(head -c 300 \
			"$tmp/$1.err")"
	fi
}
nocuda="LD_LIBRARY_PATH=$FAKE"

# 1. Healthy here: no GPU, the GPU checks not applicable; JSON; the time limit.
pf healthy "$D" preflight --sysfs-root "$tmp/none" --memlock-min "$floor" --json "$tmp/h.json"
expect healthy 0 '^preflight: healthy (no NVIDIA GPU: memlock and mlock only)$'
grep -q '^gpus     n/a ' "$tmp/healthy.out" && grep -q '^h2d      n/a ' "$tmp/healthy.out" &&
	grep -q '^mlock    ok ' "$tmp/healthy.out" && ok ||
	bad "healthy: the check lines: $(cat "$tmp/healthy.out")"
[ "$ms" -lt 10000 ] && ok || bad "healthy: took $ms ms, a health check has 10 s"
if grep -q '"status": "healthy"' "$tmp/h.json" && grep -q '"exit_code": 0' "$tmp/h.json" &&
	grep -q '"rlimit_memlock"' "$tmp/h.json" &&
	{ ! command -v python3 >/dev/null || python3 -m json.tool "$tmp/h.json" >/dev/null; }; then
	ok
else
	bad "healthy: --json: $(head -c 300 "$tmp/h.json")"
fi
if ! grep -qs 0x10de /sys/bus/pci/devices/*/vendor; then # the live /sys, no GPU here
	pf live "$D" preflight --memlock-min "$floor"
	expect live 0 '^preflight: healthy'
fi
pf brief "$D" preflight --sysfs-root "$tmp/none" --memlock-min "$floor" --brief
[ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/brief.out")" -eq 1 ] && ok ||
	bad "--brief: exit $rc, $(cat "$tmp/brief.out")"

# 2. What a job can lock: CAP_IPC_LOCK lifts RLIMIT_MEMLOCK; without it the hard limit
# counts, and a soft limit under the floor is one the job may raise (preflight does so for
# lab-01).  Root drops the capability with setpriv (util-linux); a user is nobody.
nocap=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nocap="setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock"
	pf cap prlimit --memlock=65536:65536 "$D" preflight --sysfs-root "$tmp/none"
	expect cap 0 '^preflight: healthy'
	grep -q '^memlock  ok .*soft 64 KiB, hard 64 KiB, CAP_IPC_LOCK yes' "$tmp/cap.out" &&
		grep -q '^mlock    ok' "$tmp/cap.out" && ok || bad "cap: $(cat "$tmp/cap.out")"
	pf nocap prlimit --memlock=65536:65536 $nocap "$D" preflight --sysfs-root "$tmp/none"
	expect nocap 1 '^preflight: unhealthy: RLIMIT_MEMLOCK soft 64 KiB, hard 64 KiB, '\
'CAP_IPC_LOCK no: hard < 64 MiB (--memlock-min)'
	hard=$(ulimit -Hl)
	[ "$hard" = unlimited ] || hard=$((hard * 1024))
	if [ "$hard" = unlimited ] || [ "$hard" -ge 2097152 ]; then
		pf user prlimit --memlock=65536:"$hard" setpriv --reuid=nobody --regid=nogroup \
			--clear-groups env TMPDIR=/tmp "$D" preflight --sysfs-root "$tmp/none" \
			--memlock-min 1M
		expect user 0 '^preflight: healthy'
		memlock_says='soft 64 KiB, hard .*CAP_IPC_LOCK no: soft < 1 MiB, so the job'
		grep -q "^memlock  ok .*$memlock_says" \
			"$tmp/user.out" && grep -q '^mlock    ok' "$tmp/user.out" && ok ||
			bad "user: $(cat "$tmp/user.out")"
	else
		echo "test-preflight: hard RLIMIT_MEMLOCK under 2 MiB: the user case skipped"
	fi
else
	echo "test-preflight: not root or no setpriv: the capability cases skipped"
fi
if [ "$lim" != unlimited ]; then
	pf floor $nocap "$D" preflight --sysfs-root "$tmp/none" --memlock-min unlimited
	expect floor 1 "^preflight: unhealthy: RLIMIT_MEMLOCK .* hard < unlimited"
fi
pf floor2 $nocap "$D" preflight --sysfs-root "$tmp/none" --memlock-min 1T
if [ "$lim" = unlimited ]; then
	expect floor2 0 '^preflight: healthy'
else
	expect floor2 1 "^preflight: unhealthy: RLIMIT_MEMLOCK .* hard < 1 TiB"
fi

# 3. Bad options: exit 2, one line on stderr naming the value, nothing on stdout.
for a in "--size 1M" "--min-fraction 2" "--bogus" "--expect-gpus x" "--timeout 0" "--timeout 2.9" \
	"--memlock-min lots" "--json /nonexistent-dir/x.json" "--json $tmp" "--metrics $tmp" "-xq" \
	"stray"; do
	# shellcheck disable=SC2086 # each case is an option and its value
	pf usage "$D" preflight --brief $a
	v=${a#* }
	[ "$v" = -xq ] && v="'-x'"
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/usage.out" ] && [ "$(wc -l <"$tmp/usage.err")" -eq 1 ] &&
		grep -q -- "$v" "$tmp/usage.err"; then ok; else
		bad "'$a': exit $rc, stdout '$(cat "$tmp/usage.out")', stderr '$(cat \
			"$tmp/usage.err")'"
	fi
done
# an empty --json or --metrics is refused before the labs run, as a directory is (both
# were taken, and exit 2 came after a run whose status line said healthy)
for o in --json --metrics; do
	pf empty "$D" preflight --brief "$o" ''
	[ "$rc" -eq 2 ] && [ ! -s "$tmp/empty.out" ] && grep -q -- "^dmalab: $o '': want a file" \
		"$tmp/empty.err" && ok ||
		bad "$o '': exit $rc, stdout '$(cat "$tmp/empty.out")'," \
			"stderr '$(cat "$tmp/empty.err")'"
done
pf help "$D" preflight --help
[ "$rc" -eq 0 ] && grep -q '^exit: 0 healthy' "$tmp/help.out" &&
	grep -q '128+N stopped by signal N' "$tmp/help.out" &&
	grep -q -- '--memlock-min' "$tmp/help.out" && ok || bad "--help: exit $rc"
# --timeout: under 3 s lab-01 and one GPU's lab-02 cannot both end, and a lab the
# timeout stops is the node's failure: refused as a usage error (exit 2, no lab run,
# no node drained); --help gives the range refused, and 3 itself is taken
grep -q -- '--timeout S .* 3 to 600 ' "$tmp/help.out" && ok ||
	bad "--help: --timeout's range is not 3 to 600: $(grep -- --timeout "$tmp/help.out")"
pf short "$D" preflight --brief --timeout 1
[ "$rc" -eq 2 ] && [ ! -s "$tmp/short.out" ] &&
	grep -q "bad --timeout '1' (want a number from 3 to 600)" "$tmp/short.err" && ok ||
	bad "--timeout 1: exit $rc (want 2, refused): $(cat "$tmp/short.out" "$tmp/short.err")"
pf least "$D" preflight --sysfs-root "$tmp/none" --memlock-min "$floor" --timeout 3
expect least 0 '^preflight: healthy'

# 4. An NVIDIA GPU in sysfs and the real lab-02: no driver, or one that does not start.
if ! { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; } && [ -z "${LD_LIBRARY_PATH:-}" ]; then
	pf nodriver "$D" preflight --sysfs-root "$tmp/one" --memlock-min "$floor"
	expect nodriver 1 '^preflight: unhealthy: 1 NVIDIA GPU in sysfs (0000:fe:00.0) but lab-02 '\
'opened none: no-cuda-driver: no NVIDIA driver'
	grep -q '^h2d      not run no GPU measured (see gpus)' "$tmp/nodriver.out" && ok ||
		bad "nodriver: $(cat "$tmp/nodriver.out")"
fi
pf badinit $nocuda "$D" preflight --sysfs-root "$tmp/one" --memlock-min "$floor"
expect badinit 1 'but lab-02 opened none: .*CUDA did not start'
pf expect $nocuda "$D" preflight --sysfs-root "$tmp/one" --memlock-min "$floor" --expect-gpus 2
expect expect 1 'expected 2 NVIDIA GPUs (--expect-gpus), found 1'

# 5. A driver that hangs lab-02: stopped at --timeout, unhealthy, nothing left behind.
pf hang $nocuda FAKE_CUDA_HANG_IF=--pinned-only "$D" preflight --sysfs-root "$tmp/one" \
	--memlock-min "$floor" --timeout 5
expect hang 1 'GPU 0 (0000:fe:00.0) lab-02: stopped after'
[ "$ms" -lt 12000 ] && ok || bad "hang: took $ms ms with --timeout 5"
left=$(pgrep -f -- '--pinned-only --size 268435456 --device 0')
if [ -z "$left" ]; then ok; else
	bad "hang: a lab was left: pid $left"
	for pid in $left; do kill -9 "$pid"; done # the lab this test started
fi

# 6. Made-up lab-02 records beside the real lab-01: FAKE02 is one "BDF H2D D2H [BOTH]"
#    per device (BOTH, both directions at once, is H2D + D2H when left out), or "error"
#    or "nvcc"; a device past the list exits 2, as lab-02 does.
mkdir -p "$tmp/labs"
ln -s "$(cd "$BUILD/labs" && pwd)/lab-01" "$tmp/labs/lab-01"
cat >"$tmp/labs/lab-02" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in --json) json=$2; shift ;; --device) dev=$2; shift ;; --all-gpus) all=1 ;; esac
	shift
done
fact() { printf '"%s": {"value": %s}' "$1" "$2"; }
if [ -n "$all" ]; then # FAKE02ALL: "H2D D2H LINKS" of every GPU at once
	set -- $FAKE02ALL
	printf '{"status": "skip", "facts": {%s, %s, %s, %s}}\n' "$(fact all_gpus 2)" \
		"$(fact h2d_all_gbs "$1")" "$(fact d2h_all_gbs "$2")" \
		"$(fact all_links_theoretical_gbs "$3")" >"$json"
	exit 0
fi
case $FAKE02 in
error) echo '{"status": "error", "error": "cudaMemcpyAsync: cudaErrorUnknown"}' >"$json"
	exit 99 ;;
nvcc) echo '{"skip": {"reason": "not-built:no-nvcc", "detail": "built without nvcc"}}' >"$json"
	exit 77 ;;
esac
line=$(printf '%s\n' "$FAKE02" | tr ';' '\n' | sed -n "$((dev + 1))p")
[ -n "$line" ] || { echo "lab-02: --device $dev: only 1 CUDA device(s)" >&2; exit 2; }
set -- $line
both=${4:-$(awk "BEGIN { print $2 + $3 }")}
fmt='{"status": "pass", "skip": null, "facts": '
fmt="$fmt"'{"gpu_pci_bus_id": "%s", %s, %s, %s, %s, %s, %s}}\n'
printf "$fmt" \
	"$1" "$(fact pcie_gen_max 5)" "$(fact pcie_width_max 16)" \
	"$(fact pcie_theoretical_gbs 63.0)" "$(fact h2d_pinned_gbs "$2")" \
	"$(fact d2h_pinned_gbs "$3")" "$(fact duplex_sum_gbs "$both")" \
	>"$json"
EOF
chmod 755 "$tmp/labs/lab-02"
fake="$D preflight --labs-dir $tmp/labs --memlock-min $floor --sysfs-root"
pf gpuok FAKE02="0000:fe:00.0 55.5 53.1" $fake "$tmp/one" --expect-gpus 1
expect gpuok 0 '^preflight: healthy$'
grep -q '^h2d      ok      GPU 0 (0000:fe:00.0) pinned H2D 55.5 GB/s >= 0.70 x 63.0 GB/s' \
	"$tmp/gpuok.out" && grep -q '^d2h      ok ' "$tmp/gpuok.out" && ok ||
	bad "gpuok: $(cat "$tmp/gpuok.out")"
grep -q '^duplex   ok      GPU 0 (0000:fe:00.0) pinned H2D + D2H at once 108.6 GB/s >= 0.70 x '\
'126.0 GB/s' "$tmp/gpuok.out" && ok || bad "gpuok duplex: $(cat "$tmp/gpuok.out")"
grep -q '^h2d_all  n/a     one NVIDIA GPU: host-to-all' "$tmp/gpuok.out" && ok ||
	bad "gpuok h2d_all: $(cat "$tmp/gpuok.out")"
two="0000:fe:00.0 55.5 53.1;0000:ff:00.0 55.0 53.0"
pf allok FAKE02="$two" FAKE02ALL="104.1 99.8 126.0" $fake "$tmp/two" --expect-gpus 2
expect allok 0 '^preflight: healthy$'
grep -q '^d2h_all  ok      all-to-host, every GPU.s pinned D2H at once 99.8 GB/s >= 0.70 x '\
'126.0 GB/s (2 links added)' "$tmp/allok.out" && ok || bad "allok: $(cat "$tmp/allok.out")"
pf allshared FAKE02="$two" FAKE02ALL="55.2 99.8 126.0" $fake "$tmp/two"
expect allshared 1 '^preflight: unhealthy: host-to-all, every GPU.s pinned H2D at once 55.2 '\
'GB/s < 0.70 x 126.0 GB/s'
pf halfduplex FAKE02="0000:fe:00.0 55.5 53.1 56.0" $fake "$tmp/one"
expect halfduplex 1 '^preflight: unhealthy: GPU 0 (0000:fe:00.0) pinned H2D + D2H at once 56.0 '\
'GB/s < 0.70 x 126.0 GB/s'
pf slow FAKE02="0000:fe:00.0 24.1 53.1" $fake "$tmp/one"
expect slow 1 '^preflight: unhealthy: GPU 0 (0000:fe:00.0) pinned H2D 24.1 GB/s < 0.70 x 63.0 GB/s'
pf missing FAKE02="0000:fe:00.0 55.5 53.1" $fake "$tmp/two"
expect missing 1 'GPU 0000:ff:00.0 (.*) is in sysfs but CUDA does not list it (1 of the 2 missing)'
pf broke FAKE02=error $fake "$tmp/one"
expect broke 1 '^preflight: unhealthy: GPU 0 (0000:fe:00.0) lab-02: cudaMemcpyAsync: cudaError'
pf stub FAKE02=nvcc $fake "$tmp/one"
expect stub 2 '^preflight: could not run: 1 NVIDIA GPU in sysfs (0000:fe:00.0) but lab-02 opened '\
'none: not-built:no-nvcc'
rm "$tmp/labs/lab-02"
pf nolab $fake "$tmp/one"
expect nolab 2 "^preflight: could not run: lab-02 '.*/lab-02' cannot be run"

# 7. Stopped by a signal while lab-01 runs (a made-up one that sleeps): 128+N as
#    dmalab check exits, the status line and --json say so, the lab is gone.
mkdir -p "$tmp/slow"
printf '#!/bin/sh\necho $$ >"%s/slow/pid"\nexec sleep 30\n' "$tmp" >"$tmp/slow/lab-01"
chmod 755 "$tmp/slow/lab-01"
for stop in INT:130 TERM:143; do
	sig=${stop%:*} want=${stop#*:}
	pf "stop-$sig" timeout --preserve-status -s "$sig" 2 "$D" preflight \
		--labs-dir "$tmp/slow" --sysfs-root "$tmp/none" --json "$tmp/stop.json"
	expect "stop-$sig" "$want" "^preflight: stopped by SIG$sig before its checks"
	grep -q "^mlock    not run lab-01 did not decide 01.1: stopped by SIG$sig with dmalab" \
		"$tmp/stop-$sig.out" && grep -q '"status": "stopped"' "$tmp/stop.json" &&
		grep -q "\"exit_code\": $want" "$tmp/stop.json" && ok ||
		bad "stop-$sig: $(cat "$tmp/stop-$sig.out") $(head -c 300 "$tmp/stop.json")"
	kill -0 "$(cat "$tmp/slow/pid")" 2>/dev/null && bad "stop-$sig: lab-01 left" || ok
done

# 8. The Slurm wrapper: drains through scontrol only when unhealthy, with the reason.
mkdir -p "$tmp/bin" "$tmp/w"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s/scontrol.log"\n' "$tmp" >"$tmp/bin/scontrol"
chmod 755 "$tmp/bin/scontrol"
slurm="SCONTROL=$tmp/bin/scontrol SLURMD_NODENAME=gpu07"
pf wrap-ok $slurm sh "$W" --sysfs-root "$tmp/none" --memlock-min "$floor"
expect wrap-ok 0 '^preflight: healthy'
[ ! -e "$tmp/scontrol.log" ] && ok ||
	bad "wrapper: scontrol ran on a healthy node: $(cat "$tmp/scontrol.log")"
pf wrap-bad $slurm sh "$W" --sysfs-root "$tmp/one" --memlock-min "$floor" --expect-gpus 2
expect wrap-bad 1 '^preflight: unhealthy: expected 2'
grep -q '^update NodeName=gpu07 State=DRAIN Reason=dmalab preflight: expected 2 NVIDIA GPUs' \
	"$tmp/scontrol.log" && ok ||
	bad "wrapper: scontrol was given '$(cat "$tmp/scontrol.log" 2>/dev/null)'"
# options from preflight.args beside the wrapper (Slurm passes none)
cp "$W" "$tmp/w/preflight.sh"
echo "--sysfs-root $tmp/none --memlock-min $floor --expect-gpus 3" >"$tmp/w/preflight.args"
rm -f "$tmp/scontrol.log"
pf wrap-args $slurm DMALAB_BIN="$D" sh "$tmp/w/preflight.sh"
expect wrap-args 1 'expected 3 NVIDIA GPUs'
grep -q 'State=DRAIN' "$tmp/scontrol.log" && ok || bad "wrapper with an .args file: no drain"
# the same file saved with CRLF line ends: its options all the same
printf -- '--sysfs-root %s --memlock-min %s --expect-gpus 3\r\n' "$tmp/none" "$floor" \
	>"$tmp/w/preflight.args"
rm -f "$tmp/scontrol.log"
pf wrap-crlf $slurm DMALAB_BIN="$D" sh "$tmp/w/preflight.sh"
expect wrap-crlf 1 'expected 3 NVIDIA GPUs'

echo "test-preflight: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
