#!/bin/sh
# deps.sh [--missing] PART... - the Debian packages the named parts of the kit need.
#
# Parts: build (every lab), unit (cmocka tests), selftest (prove), numa (the
# two-node QEMU guest), fleet (a one-node Slurm), fuzz (libFuzzer), leaks
# (valgrind), formats (JUnit and Gradescope readers), degraded (capsh),
# metrics (promtool),
# python (the harness's own scripts), plots (matplotlib; in zh a CJK font,
# fonts-noto-cjk), plots-test (matplotlib, a headless browser and the CJK
# font: the zh report is checked for missing glyphs).
#
# deps.sh PART...            as root with apt-get, install what is missing;
#                            otherwise print the one apt-get line and exit 1
# deps.sh --missing PART...  print the missing packages (one line, maybe
#                            empty) and install nothing; exit 0
#
# It checks files and commands, not package names, so a machine that has the
# headers from elsewhere (the GPU image has no package registry) passes
# untouched.  DMALAB_DEPS_MISSING="pkg ...": treat these packages as missing
# wherever a part checks for them (tests of this script and of make test).
set -u
only_list=0
if [ "${1:-}" = --missing ]; then
	only_list=1
	shift
fi
[ $# -gt 0 ] || set -- build
missing=""

# want PKG TEST...: PKG is needed unless TEST succeeds (and it is not forced missing).
want() {
	pkg=$1
	shift
	case " ${DMALAB_DEPS_MISSING:-} " in
	*" $pkg "*) ;;
	*) "$@" >/dev/null 2>&1 && return 0 ;;
	esac
	case " $missing " in
	*" $pkg "*) ;;
	*) missing="$missing $pkg" ;;
	esac
}
have_header() {
	for dir in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu; do
		[ -f "$dir/$1" ] && return 0
	done
	return 1
}
have_lib_a() {
	for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
		[ -f "$dir/$1" ] && return 0
	done
	return 1
}
have_cmds() {
	for cmd in "$@"; do
		command -v "$cmd" || return 1
	done
}
static_busybox() {
	LC_ALL=C ldd "${DMALAB_NUMA_BUSYBOX:-/bin/busybox}" 2>&1 | grep -q 'not a dynamic'
}
fuzzer_runtime() {
	dir=$(clang --print-runtime-dir) && ls "$dir"/libclang_rt.fuzzer-*.a
}
# Debian's Python packages are for /usr/bin/python3; the first python3 on
# PATH may be another one.
python_imports() {
	for py in ${DMALAB_PYTHON:-} python3 /usr/bin/python3; do
		command -v "$py" && "$py" -c "import $1" && return 0
	done
	return 1
}
# A font with Chinese glyphs, for the zh figures and the zh report.
have_cjk_font() {
	if command -v fc-list >/dev/null 2>&1; then
		[ -n "$(fc-list :lang=zh family)" ]
	else
		ls /usr/share/fonts/opentype/noto/NotoSansCJK-*.ttc
	fi
}
# The learner's language as harness/base/lang.c reads it: zh or en.
lang_is_zh() {
	v=${DMALAB_LANG:-}
	[ -n "$v" ] || v=${LC_ALL:-}
	[ -n "$v" ] || v=${LC_MESSAGES:-}
	[ -n "$v" ] || v=${LANG:-}
	case $v in zh*|ZH*) return 0 ;; esac
	return 1
}
here=$(dirname "$0")
# promtool is in Debian's prometheus package, whose install starts the server:
# the tests need the one static binary, so it is unpacked into build/tools.
tools=${BUILD:-build}/tools
unpack=""
have_promtool() {
	case " ${DMALAB_DEPS_MISSING:-} " in *" prometheus "*) return 1 ;; esac
	command -v promtool >/dev/null 2>&1 || [ -x "$tools/promtool" ]
}

need_part() {
	case "$1" in
	build) want libnuma-dev have_header numa.h ;;
	unit) need_part build; want libcmocka-dev have_header cmocka.h ;;
	selftest) need_part build; want perl have_cmds prove ;;
	python) want python3 have_cmds python3 ;;
	numa)
		want qemu-system-x86 have_cmds qemu-system-x86_64
		want busybox-static static_busybox
		want cpio have_cmds cpio
		want libnuma-dev have_lib_a libnuma.a
		want libc6-dev have_lib_a libc.a
		;;
	fleet)
		need_part python
		want munge have_cmds munged mungekey munge
		want slurmctld have_cmds slurmctld
		want slurmd have_cmds slurmd
		want slurm-client have_cmds sbatch srun squeue scontrol scancel sinfo
		;;
	fuzz) want clang have_cmds clang; want libclang-rt-dev fuzzer_runtime ;;
	leaks) want valgrind have_cmds valgrind ;;
	formats)
		need_part python
		want python3-junitparser python_imports junitparser
		want python3-jsonschema python_imports jsonschema
		want libxml2-utils have_cmds xmllint
		;;
	degraded) want libcap2-bin have_cmds capsh ;;
	metrics) have_promtool || unpack=prometheus ;;
	plots)
		want python3-matplotlib sh "$here/../plots/find-python.sh"
		if lang_is_zh; then want fonts-noto-cjk have_cjk_font; fi
		;;
	plots-test)
		need_part plots
		need_part browser
		want fonts-noto-cjk have_cjk_font
		;;
	browser) want chromium have_cmds chromium ;;
	*)
		echo "deps.sh: unknown part '$1' (build unit selftest python numa fleet fuzz" \
			"leaks formats degraded metrics plots plots-test browser)" >&2
		exit 2
		;;
	esac
}
for part in "$@"; do
	need_part "$part"
done
if [ "$only_list" = 1 ]; then
	list="$missing${unpack:+ $unpack (unpacked)}"
	echo "${list# }"
	exit 0
fi
[ -z "$missing" ] && [ -z "$unpack" ] && exit 0

# apt-get "$@", waiting while another apt or dpkg holds its lock: a message,
# then a retry every DMALAB_APT_POLL s (5) up to DMALAB_APT_WAIT s (300).
# Any other failure, or the wait running out, shows apt's own last lines.
apt_run() {
	limit=${DMALAB_APT_WAIT:-300} poll=${DMALAB_APT_POLL:-5} start=$(date +%s) told=0
	while :; do
		out=$(DEBIAN_FRONTEND=noninteractive apt-get "$@" 2>&1) && return 0
		case $out in
		*"Could not get lock"*|*"Unable to acquire the dpkg frontend lock"*| \
		*"Unable to lock"*) ;;
		*) printf '%s\n' "$out" | tail -n 5 | sed 's/^/  apt-get: /' >&2; return 1 ;;
		esac
		if [ $(($(date +%s) - start)) -ge "$limit" ]; then
			echo "dmalab: another apt still holds the package lock after ${limit} s" >&2
			printf '%s\n' "$out" | tail -n 3 | sed 's/^/  apt-get: /' >&2
			return 1
		fi
		[ "$told" = 0 ] && echo "dmalab: another apt or dpkg holds the package lock;" \
			"waiting for it (up to ${limit} s, DMALAB_APT_WAIT)" >&2
		told=1
		sleep "$poll"
	done
}

# promtool out of the prometheus package, without installing it (or its server).
unpack_promtool() {
	dir=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-deb.XXXXXX") || return 1
	(cd "$dir" && apt_run download prometheus) && dpkg -x "$dir"/prometheus_*.deb "$dir/x" &&
		mkdir -p "$tools" && cp "$dir/x/usr/bin/promtool" "$tools/promtool"
	rc=$?
	rm -rf "$dir"
	return $rc
}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "dmalab: installing$missing${unpack:+ promtool (unpacked into $tools)} (for: $*)"
	if apt_run update -qq && { [ -z "$missing" ] ||
		apt_run install -y -qq --no-install-recommends $missing; } &&
		{ [ -z "$unpack" ] || unpack_promtool; }; then
		exit 0
	fi
	echo "dmalab: apt-get could not install$missing${unpack:+ $unpack} (its message above)" >&2
fi
[ -n "$missing" ] &&
	echo "dmalab: missing packages for $*; run: sudo apt-get install -y$missing" >&2
[ -n "$unpack" ] && echo "dmalab: promtool missing for $*; put it on PATH or in $tools" >&2
exit 1
