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
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "dmalab: installing$missing"
	if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $missing) >/dev/null 2>&1; then
		exit 0
	fi
	echo "dmalab: apt-get could not install$missing (no package registry?)" >&2
fi
echo "dmalab: missing packages; run: sudo apt-get install -y$missing" >&2
exit 1
