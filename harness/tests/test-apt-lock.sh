#!/bin/sh
# test-apt-lock.sh - harness/deps.sh against a fake apt-get (first on PATH): it
# waits while another apt holds the package lock, gives up after its bound
# with apt's own words, and shows apt's message on any other failure.
# Needs root (deps.sh installs only as root); elsewhere it skips.
set -u
here=$(cd "$(dirname "$0")" && pwd)
deps=$here/../deps.sh
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
if [ "$(id -u)" != 0 ]; then
	echo "test-apt-lock: skipped (deps.sh installs only as root)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# fake_apt LOCKED_CALLS OTHER_ERROR: an apt-get that reports a held lock
# LOCKED_CALLS times, then fails with OTHER_ERROR (if not empty) or succeeds.
fake_apt() {
	cat >"$tmp/apt-get" <<EOS
#!/bin/sh
n=\$(cat "$tmp/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$tmp/count"
if [ \$n -le $1 ]; then
	echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)"
	exit 100
fi
[ -n "$2" ] && { echo "E: $2"; exit 100; }
exit 0
EOS
	chmod +x "$tmp/apt-get"
	rm -f "$tmp/count"
}
deps_run() {
	PATH="$tmp:$PATH" DMALAB_DEPS_MISSING=fakepkg DMALAB_APT_POLL=0.1 sh "$deps" build \
		>"$tmp/out" 2>&1
}

fake_apt 3 ""
deps_run && ok || bad "a lock held for 3 tries: deps.sh should wait and succeed"
grep -q "holds the package lock; waiting for it" "$tmp/out" && ok ||
	bad "waiting: no message ($(cat "$tmp/out"))"
[ "$(grep -c waiting "$tmp/out")" = 1 ] && ok || bad "the wait message is said once"

fake_apt 1000 ""
DMALAB_APT_WAIT=1 deps_run && bad "a lock held forever: should give up" || ok
grep -q "still holds the package lock after 1 s" "$tmp/out" && ok ||
	bad "giving up: no bound named ($(cat "$tmp/out"))"
grep -q "apt-get: E: Could not get lock" "$tmp/out" && ok || bad "giving up: apt's words not shown"

fake_apt 0 "Unable to locate package fakepkg"
deps_run && bad "apt failing: deps.sh should fail" || ok
grep -q "apt-get: E: Unable to locate package fakepkg" "$tmp/out" && ok ||
	bad "apt's own error not shown ($(cat "$tmp/out"))"
grep -q "no package registry" "$tmp/out" && bad "the old guess is still printed" || ok

echo "test-apt-lock: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
