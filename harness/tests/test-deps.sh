#!/bin/sh
# test-deps.sh - harness/deps.sh and make test's driver (harness/tests/run.sh).
#   - deps.sh against a fake apt-get (first on PATH): it waits while another
#     apt holds the package lock, gives up after its bound with apt's own
#     words, and shows apt's message on any other failure;
#   - each part names its own packages, and an unknown part is refused;
#   - as a user who is not root: deps.sh prints the one install line, and
#     the driver runs the suites whose packages are here, names the ones
#     left out with their packages, and exits non-zero.
# Needs root (deps.sh installs only as root; runuser for the other user).
set -u
here=$(cd "$(dirname "$0")" && pwd)
deps=$here/../deps.sh
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
if [ "$(id -u)" != 0 ]; then
	echo "test-deps: skipped (deps.sh installs only as root)"
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
	printf 'E: Could not get lock /var/lib/dpkg/lock-frontend. %s\n' \
		"It is held by process 4242 (apt-get)"
	exit 100
fi
[ -n "$2" ] && { echo "E: $2"; exit 100; }
exit 0
EOS
	chmod +x "$tmp/apt-get"
	rm -f "$tmp/count"
}
deps_run() {
	PATH="$tmp:$PATH" DMALAB_DEPS_MISSING=libnuma-dev DMALAB_APT_POLL=0.1 sh "$deps" build \
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

# ---- parts ----------------------------------------------------------------
missing_of() { DMALAB_DEPS_MISSING="$1" sh "$deps" --missing $2; }
[ "$(missing_of "valgrind slurmd" "leaks")" = valgrind ] && ok ||
	bad "part leaks: want valgrind alone, got '$(missing_of "valgrind slurmd" leaks)'"
[ "$(missing_of "valgrind slurmd" "build")" = "" ] && ok ||
	bad "part build names packages of other parts: '$(missing_of "valgrind slurmd" build)'"
[ "$(missing_of "libnuma-dev" "unit build")" = libnuma-dev ] && ok ||
	bad "a package two parts need is named once: '$(missing_of libnuma-dev "unit build")'"
sh "$deps" --missing bogus >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "unknown part 'bogus'" "$tmp/out" && ok ||
	bad "unknown part: want exit 2 naming it ($(cat "$tmp/out"))"

# ---- make checks the build's packages once, not at every build --------------
if command -v make >/dev/null 2>&1 && [ -f "$here/../../Makefile" ]; then
	mk() { make -n -C "$here/../.." BUILD="$tmp/b" all 2>/dev/null | grep -c "deps.sh build"; }
	[ "$(mk)" -ge 1 ] && ok || bad "a first build does not check its packages"
	mkdir -p "$tmp/b" && touch "$tmp/b/deps-build"
	[ "$(mk)" -eq 0 ] && ok || bad "a build after the check runs deps.sh again"
fi

# ---- not root: the install line, and make test's driver ---------------------
if ! command -v runuser >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
	echo "test-deps: the not-root cases skipped (need runuser and the user nobody)"
	echo "test-deps: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
chmod 755 "$tmp"
cp "$deps" "$here/run.sh" "$tmp/"
as_nobody() { runuser -u nobody -- env PATH="$PATH" "$@"; }
as_nobody env DMALAB_DEPS_MISSING=valgrind sh "$tmp/deps.sh" leaks >"$tmp/out" 2>&1
[ $? = 1 ] && grep -q "run: sudo apt-get install -y valgrind" "$tmp/out" && ok ||
	bad "not root: want exit 1 and the install line ($(cat "$tmp/out"))"

# a make that passes every suite but the one named 'broken'
cat >"$tmp/fake-make" <<'EOS'
#!/bin/sh
for a; do last=$a; done
echo "fake make $last"
[ "$last" != broken ]
EOS
chmod 755 "$tmp/fake-make"
drive() {
	as_nobody env MAKE="$tmp/fake-make" DMALAB_DEPS="$tmp/deps.sh" \
		DMALAB_DEPS_MISSING=valgrind DMALAB_SUITES="$1" SUITES="${2:-}" \
		sh "$tmp/run.sh" >"$tmp/drive" 2>&1
}
drive "plain build
needs-valgrind build leaks"
rc=$?
[ "$rc" != 0 ] && ok || bad "a suite left out: make test must not exit 0"
grep -q "^== make plain" "$tmp/drive" && ok || bad "the suite with its packages did not run"
grep -q "== make needs-valgrind" "$tmp/drive" && bad "a suite without its packages ran" || ok
grep -q "left out  needs-valgrind: needs valgrind" "$tmp/drive" && ok ||
	bad "the suite left out is not named with its package ($(cat "$tmp/drive"))"
grep -q "sudo apt-get install -y valgrind" "$tmp/drive" && ok || bad "no install line"
[ "$(tail -n 1 "$tmp/drive")" = "test: 1 passed, 0 failed, 1 skipped" ] && ok ||
	bad "the closing line: '$(tail -n 1 "$tmp/drive")'"

drive "plain build
broken build"
[ $? != 0 ] && [ "$(tail -n 1 "$tmp/drive")" = "test: 1 passed, 1 failed, 0 skipped" ] && ok ||
	bad "a failing suite: '$(tail -n 1 "$tmp/drive")'"
drive "plain build
broken build" "plain"
[ $? = 0 ] && [ "$(tail -n 1 "$tmp/drive")" = "test: 1 passed, 0 failed, 0 skipped" ] && ok ||
	bad "SUITES=plain runs that one: '$(tail -n 1 "$tmp/drive")'"
drive "plain build" "nosuch"
[ $? = 2 ] && grep -q "SUITES names 'nosuch', which is no suite" "$tmp/drive" && ok ||
	bad "SUITES naming no suite: want exit 2 ($(cat "$tmp/drive"))"
drive "plain build" "plain nosuch"
[ $? = 2 ] && grep -q "SUITES names 'nosuch', which is no suite" "$tmp/drive" && ok ||
	bad "SUITES with one name wrong: want exit 2 ($(cat "$tmp/drive"))"
drive "plain build
as-root build root"
[ $? != 0 ] && grep -q "left out  as-root: needs root" "$tmp/drive" &&
	[ "$(tail -n 1 "$tmp/drive")" = "test: 1 passed, 0 failed, 1 skipped" ] && ok ||
	bad "a suite that needs root, as nobody: left out, not passed ($(cat "$tmp/drive"))"

echo "test-deps: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
