#!/bin/sh
# check.sh NORMAL SABOTAGE - the example lab (labs/README.md) does what the
# guide says: --describe lists its claims, the normal build confirms every
# claim and the sabotage build contradicts every one.  Stricter than
# sabotage-check, which lets a claim skip or be inconclusive: this lab needs
# only a CPU, so each claim must be decided everywhere.  Run by
# `make test-example` (part of `make test`).
set -u
normal=$1
sabotage=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-example.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*"
	failed=1
}

# $1 build, $2 the exit code it must end with, $3 the status of every claim
expect() {
	"$1" --quick --json "$tmp/record.json" >"$tmp/tap" 2>&1
	rc=$?
	n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tmp/tap")
	got=$(grep -c "^  status: $3\$" "$tmp/tap")
	if [ "$rc" -ne "$2" ] || [ -z "$n" ] || [ "$got" -ne "$n" ] ||
	   [ ! -s "$tmp/record.json" ]; then
		fail "$1 --quick: exit $rc (want $2), $got of ${n:-?} claims '$3':"
		cat "$tmp/tap"
	else
		echo "test-example: $1: all $n claims $3"
	fi
}

if ! "$normal" --describe >"$tmp/describe" || ! grep -q '00\.1' "$tmp/describe"; then
	fail "$normal --describe"
fi
expect "$normal" 0 pass
expect "$sabotage" 1 fail

# One claim's sabotage: DMALAB_SABOTAGE names it; a claim no knob backs is refused.
DMALAB_SABOTAGE=00.2 "$sabotage" --quick >"$tmp/one" 2>&1
grep -q "^# sabotage: K.shuffle broken (claims 00.1 00.2)" "$tmp/one" ||
	fail "DMALAB_SABOTAGE=00.2: the knob backing 00.2 is not said broken"
DMALAB_SABOTAGE=00.9 "$sabotage" --quick >"$tmp/bad" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "DMALAB_SABOTAGE '00.9': no knob of this lab backs that claim" \
	"$tmp/bad" || fail "DMALAB_SABOTAGE=00.9: exit $rc (want 2), $(head -c 300 "$tmp/bad")"
DMALAB_SABOTAGE=00.2 "$normal" --quick >"$tmp/normal" 2>&1 ||
	fail "the normal build must ignore DMALAB_SABOTAGE"
grep -q "^# sabotage:" "$tmp/normal" && fail "the normal build says it broke a knob"
[ "$failed" -eq 0 ] && echo "test-example: ok"
exit "$failed"
