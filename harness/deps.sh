#!/bin/sh
# deps.sh build|test|plots|plots-test - make sure the Debian packages a step needs are here.
# As root with apt-get: installs what is missing.  Otherwise prints the one
# apt-get line to run and fails.  Checks files, not package names, so a
# machine with the headers from elsewhere (the GPU image) passes untouched.
set -u
what=${1:-build}
missing=""

have_header() {
	for dir in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu; do
		[ -f "$dir/$1" ] && return 0
	done
	return 1
}

case "$what" in
plots|plots-test)
	# plots/ needs only a Python 3 with matplotlib; its tests, a browser too
	sh plots/find-python.sh >/dev/null 2>&1 || missing="$missing python3-matplotlib"
	if [ "$what" = plots-test ]; then
		command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
	fi
	;;
*)
	have_header numa.h || missing="$missing libnuma-dev"
	if [ "$what" = test ]; then
		have_header cmocka.h || missing="$missing libcmocka-dev"
		command -v prove >/dev/null 2>&1 || missing="$missing perl"
	fi
	;;
esac
# DMALAB_DEPS_MISSING (tests): packages to treat as missing, on top of the checks.
missing="$missing${DMALAB_DEPS_MISSING:+ $DMALAB_DEPS_MISSING}"
[ -z "$missing" ] && exit 0

# apt-get "$@", waiting while another apt or dpkg holds its lock: a message,
# then a retry every DMALAB_APT_POLL s (5) up to DMALAB_APT_WAIT s (300).
# Any other failure, or the wait running out, shows apt's own last lines.
apt_run() {
	limit=${DMALAB_APT_WAIT:-300} poll=${DMALAB_APT_POLL:-5} start=$(date +%s) told=0
	while :; do
		out=$(DEBIAN_FRONTEND=noninteractive apt-get "$@" 2>&1) && return 0
		case $out in
		*"Could not get lock"*|*"Unable to acquire the dpkg frontend lock"*|*"Unable to lock"*) ;;
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

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "dmalab: installing$missing"
	if apt_run update -qq && apt_run install -y -qq --no-install-recommends $missing; then
		exit 0
	fi
	echo "dmalab: apt-get could not install$missing (its message above)" >&2
fi
echo "dmalab: missing packages; run: sudo apt-get install -y$missing" >&2
exit 1
