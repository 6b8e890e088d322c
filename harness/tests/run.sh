#!/bin/sh
# run.sh - `make test`: every suite, each with the packages it needs.
#
# First the packages of every suite to be run are installed in one go
# (harness/deps.sh: as root with apt-get; otherwise it prints the one
# install line).  Then each suite whose packages are here runs as its own
# make target, and each suite whose packages are not is left out, named with
# the packages that would run it.  A suite left out is never a pass: the exit
# status is 0 only when every suite ran and passed.  The last line is
# "test: P passed, F failed, L skipped" (skipped: left out).
#
# Environment: MAKE, BUILD; SUITES="unit selftest" runs only those (make test
# SUITES=...); DMALAB_SUITES replaces the table below (tests of this script).
set -u
MAKE=${MAKE:-make}
deps=${DMALAB_DEPS:-harness/deps.sh}

# suite (a make target) and the deps.sh parts it needs
default_suites='
unit unit
mutants unit
selftest selftest
test-plots plots-test
test-answers build
test-claims build
test-example build
test-numa numa
test-leaks unit leaks
test-make build
test-restore build
test-deps build
test-degraded build degraded
test-interrupt build python
fuzz-smoke build fuzz
test-bench python
test-fleet build fleet
test-preflight build python
test-formats unit formats
test-compare unit python
test-lab-options build python
test-house build
'
table=${DMALAB_SUITES:-$default_suites}

# The table's lines, less the suites SUITES does not name.
chosen=$(printf '%s\n' "$table" | while read -r name parts; do
	[ -n "$name" ] || continue
	case " ${SUITES:-$name} " in
	*" $name "*) echo "$name $parts" ;;
	esac
done)
if [ -z "$chosen" ]; then
	echo "make test: SUITES='${SUITES:-}' names no suite; the suites are:" \
		$(printf '%s\n' "$table" | awk 'NF { print $1 }') >&2
	exit 2
fi
all_parts=$(printf '%s\n' "$chosen" | cut -d' ' -f2- | tr ' ' '\n' | sort -u | paste -sd' ')
# shellcheck disable=SC2086 # one word per part
sh "$deps" $all_parts || echo "make test: running the suites whose packages are here"

passed=0 failed=0 left=0 report=""
note() { report="$report
$1"; }
for line in $(printf '%s\n' "$chosen" | tr ' ' ','); do
	name=${line%%,*}
	parts=$(printf '%s' "${line#*,}" | tr ',' ' ')
	# shellcheck disable=SC2086
	absent=$(sh "$deps" --missing $parts)
	if [ -n "$absent" ]; then
		left=$((left + 1))
		note "  left out  $name: needs $absent"
		continue
	fi
	echo "== make $name"
	start=$(date +%s)
	if $MAKE --no-print-directory "$name"; then
		passed=$((passed + 1))
		note "  passed    $name ($(($(date +%s) - start)) s)"
	else
		failed=$((failed + 1))
		note "  FAILED    $name ($(($(date +%s) - start)) s)"
	fi
done
echo "make test: the suites$report"
if [ "$left" -gt 0 ]; then
	echo "make test: $left suite(s) left out for want of packages: not a pass" \
		"(as root, make test installs them; or: sudo sh $deps $all_parts)"
fi
echo "test: $passed passed, $failed failed, $left skipped"
[ "$failed" -eq 0 ] && [ "$left" -eq 0 ]
