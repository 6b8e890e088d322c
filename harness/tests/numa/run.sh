#!/bin/sh
# run.sh - `make test-numa`: the two-node claims on an emulated machine.
#
# Boots a small Linux guest under QEMU (TCG, software emulation) with two
# NUMA nodes, one CPU and $DMALAB_NUMA_NODE_MEM (512M) each, SLIT distances
# 10/21; runs the statically linked labs 01, 04 (normal and sabotage), 05
# (and lab-04's exercise stub) and the runner inside it
# (harness/tests/numa/init), and judges what they printed with check.c.
# The guest has no network device.  QEMU is stopped by its PID on every path
# out of this script, and the guest is given at most $DMALAB_NUMA_TIMEOUT
# seconds (default 480; it needs about 75 here).
#
# What it needs (Debian names): qemu-system-x86, busybox-static, cpio,
# libnuma-dev and libc6-dev (static libraries), installed by harness/deps.sh
# numa as root, and a Linux kernel image
# with NUMA, ACPI SRAT/SLIT, the 8250 serial port and devtmpfs built in,
# as Debian's is: $DMALAB_NUMA_KERNEL, else the newest /boot/vmlinuz-*,
# else one unpacked before into $BUILD/numa/kernel/.  As root with apt-get
# the missing packages are installed and, without any kernel, the one
# linux-image-amd64 depends on is fetched with `apt-get download` and only
# unpacked there (not installed).  Otherwise it says what to run and fails.
#
# Emulated nodes share the host's DRAM: 04.2 and 04.3 (remote latency and
# bandwidth) are reported, not required to pass.
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CC=${CC:-cc}
HERE=harness/tests/numa
W=$BUILD/numa
LIMIT=${DMALAB_NUMA_TIMEOUT:-480}
NODE_MEM=${DMALAB_NUMA_NODE_MEM:-512M}
BUSYBOX=${DMALAB_NUMA_BUSYBOX:-/bin/busybox}
GPU_FIXTURE=harness/tests/fixtures/two-node/sys/bus/pci/devices/0000:3b:00.0
qpid=

say() { echo "test-numa: $*"; }
fail() {
	echo "test-numa: FAIL: $*" >&2
	exit 1
}

# ---- the guest is stopped by its PID on every way out -------------------
alive() { # running and not yet a zombie
	[ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]
}
stop_guest() {
	[ -n "$qpid" ] || return 0
	if alive "$qpid"; then
		kill "$qpid" 2>/dev/null
		i=0
		while alive "$qpid" && [ $i -lt 10 ]; do
			sleep 0.5
			i=$((i + 1))
		done
		alive "$qpid" && kill -9 "$qpid" 2>/dev/null
	fi
	wait "$qpid" 2>/dev/null
	qpid=
}
trap stop_guest EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# ---- packages (harness/deps.sh's part numa) ----------------------------
DMALAB_NUMA_BUSYBOX=$BUSYBOX sh harness/deps.sh numa || fail "packages missing (above)"

# ---- kernel -------------------------------------------------------------
mkdir -p "$W/kernel"
if [ -n "${DMALAB_NUMA_KERNEL:-}" ] && ! [ -r "$DMALAB_NUMA_KERNEL" ]; then
	fail "DMALAB_NUMA_KERNEL=$DMALAB_NUMA_KERNEL: not a readable file"
fi
find_kernel() {
	for k in ${DMALAB_NUMA_KERNEL:-} $(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V -r) \
		$(ls -1 "$W"/kernel/vmlinuz-* 2>/dev/null | sort -V -r); do
		[ -r "$k" ] && [ -s "$k" ] && echo "$k" && return 0
	done
	return 1
}
fetch_kernel() { # only the image, from Debian's package: nothing is installed
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-/ { print $2; exit }')
	[ -n "$pkg" ] || return 1
	say "no kernel image here: fetching $pkg with apt-get download (unpacked into $W/kernel)"
	(cd "$W/kernel" && apt-get download "$pkg" >/dev/null 2>&1) || return 1
	deb=$(ls -1 "$W"/kernel/"$pkg"_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || return 1
	ver=${pkg#linux-image-}
	dpkg-deb --fsys-tarfile "$deb" | tar -x -O --wildcards "./boot/vmlinuz-$ver" \
		>"$W/kernel/vmlinuz-$ver.tmp" &&
		mv "$W/kernel/vmlinuz-$ver.tmp" "$W/kernel/vmlinuz-$ver"
	rc=$?
	rm -f "$deb" "$W/kernel/vmlinuz-$ver.tmp"
	return $rc
}
KERNEL=$(find_kernel) ||
	{ command -v apt-get >/dev/null 2>&1 && fetch_kernel && KERNEL=$(find_kernel); } ||
	fail "no Linux kernel image for the guest: apt-get install linux-image-amd64" \
		"(or set DMALAB_NUMA_KERNEL=/path/to/vmlinuz)"
say "kernel $KERNEL"

# ---- the static labs, the runner and the checker -------------------------
S=$W/static
say "building the static labs into $S"
$MAKE -s --no-print-directory BUILD="$S" CC="$CC -static" NVCC= \
	"$S/dmalab" "$S/labs/lab-01" "$S/labs/lab-04" "$S/sabotage/lab-04" >"$W/build.log" 2>&1 ||
	fail "the static build failed (see $W/build.log)"
rm -f "$S/labs/lab-05"
$MAKE -s --no-print-directory BUILD="$S" CC="$CC -static" NVCC= "$S/labs/lab-05" \
	>>"$W/build.log" 2>&1 ||
	say "lab-05 does not link statically here: not run in the guest (see $W/build.log)"
# lab-04's exercises (04.first-touch, 04.bind) as handed out, their stubs: a learner's
# copy, built as make try-04 does
EX=$W/ex
rm -rf "$EX"
"$S/dmalab" exercise 04 --work "$EX" >>"$W/build.log" 2>&1 &&
	$MAKE -s --no-print-directory BUILD="$S" CC="$CC -static" NVCC= WORK="$EX" \
		"$S/work/$(echo "$EX" | tr / _)/lab-04" >>"$W/build.log" 2>&1 ||
	fail "cannot build lab-04's exercise stub (see $W/build.log)"
$CC -static -O2 -Wall -Wextra -Iharness/base -Iharness/facts -Iharness/lab -D_GNU_SOURCE \
	-o "$W/numa-check" "$HERE/check.c" "$S/libdmalab.a" -lnuma -lm >>"$W/build.log" 2>&1 ||
	fail "cannot build $HERE/check.c (see $W/build.log)"

# ---- initramfs ----------------------------------------------------------
R=$W/initramfs
rm -rf "$R" && mkdir -p "$R/bin" "$R/labs" "$R/sabotage" "$R/fixture/gpu" "$R/proc" "$R/sys" \
	"$R/dev" "$R/tmp"
put() { strip -o "$2" "$1" 2>/dev/null || cp "$1" "$2"; }
cp "$BUSYBOX" "$R/bin/busybox"
cp "$HERE/init" "$R/init" && chmod 755 "$R/init"
put "$S/dmalab" "$R/dmalab"
for l in 01 04 05; do
	[ -x "$S/labs/lab-$l" ] && put "$S/labs/lab-$l" "$R/labs/lab-$l"
done
put "$S/sabotage/lab-04" "$R/sabotage/lab-04"
mkdir -p "$R/exercise" && put "$S/work/$(echo "$EX" | tr / _)/lab-04" "$R/exercise/lab-04"
cp "$GPU_FIXTURE"/* "$R/fixture/gpu/"
(cd "$R" && find . | cpio -o -H newc --quiet) | gzip -1 >"$W/initrd.gz" ||
	fail "cannot pack the initramfs"

# ---- boot ---------------------------------------------------------------
rm -rf "$W/out" && mkdir -p "$W/out"
rm -f "$W/console.log" "$W/data.txt" "$W/qemu.err"
say "booting the guest: 2 nodes x (1 CPU, $NODE_MEM), distance 21, TCG; at most $LIMIT s"
t0=$(date +%s)
qemu-system-x86_64 -nodefaults -no-user-config -accel tcg -cpu qemu64 -machine pc \
	-m "$(($(echo "$NODE_MEM" | sed 's/[Mm]$//') * 2))M" -smp 2 \
	-object memory-backend-ram,id=m0,size="$NODE_MEM" \
	-object memory-backend-ram,id=m1,size="$NODE_MEM" \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-numa dist,src=0,dst=1,val=21 \
	-kernel "$KERNEL" -initrd "$W/initrd.gz" -append "console=ttyS0 panic=-1 quiet" \
	-display none -monitor none -nic none -no-reboot \
	-serial "file:$W/console.log" -serial "file:$W/data.txt" \
	</dev/null >"$W/qemu.err" 2>&1 &
qpid=$!
timed_out=0
while alive "$qpid"; do
	if [ $(($(date +%s) - t0)) -ge "$LIMIT" ]; then
		timed_out=1
		break
	fi
	sleep 1
done
stop_guest
elapsed=$(($(date +%s) - t0))
say "guest ran ${elapsed} s"

if ! [ -s "$W/console.log" ] && ! [ -s "$W/data.txt" ]; then
	sed 's/^/  qemu: /' "$W/qemu.err" >&2
	fail "QEMU could not start the guest" \
		"(nothing on its serial ports; see above and $W/qemu.err)"
fi
tr -d '\r' <"$W/data.txt" | awk -v dir="$W/out" '
	/^@@@ begin / { f = dir "/" $3; printf "" > f; next }
	/^@@@ end /   { close(f); f = ""; next }
	/^@@@ done/   { print "done" > (dir "/done"); next }
	f != ""       { print > f }'
if ! [ -f "$W/out/done" ]; then
	tail -n 30 "$W/console.log" | sed 's/^/  guest: /' >&2
	[ "$timed_out" = 1 ] &&
		fail "the guest did not finish within $LIMIT s (stopped; console: $W/console.log)"
	fail "the guest stopped before it finished (console: $W/console.log, QEMU: $W/qemu.err)"
fi
sed 's/^/  /' "$W/out/steps"
say "the runner's report card in the guest (04.2/04.3 need real remote memory):"
sed -n '/report card/,$p' "$W/out/run.out" | sed 's/^/  guest: /'
"$W/numa-check" "$W/out"
