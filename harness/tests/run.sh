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

# suite (a make target) and the deps.sh parts it needs; `root`: the suite's
# cases that change the machine (mounts, limits, users, slurmd) need uid 0,
# so it is left out for any other user rather than passed half-run
default_suites='
unit unit
mutants unit
selftest selftest
test-plots plots-test
test-answers build
test-lang build
test-claims build
test-example build
test-exercises build
test-learner build browser
test-numa numa
test-leaks unit leaks
test-make build
test-restore build root
test-deps build root
test-degraded build degraded root
test-interrupt build python
fuzz-smoke build fuzz
test-bench python
test-fleet build fleet root
test-preflight build python
test-formats unit formats
test-compare unit python
test-metrics build python metrics
test-lab-options build python
test-house build
'
table=${DMALAB_SUITES:-$default_suites}

# Each suite SUITES names must be in the table.
for want in ${SUITES:-}; do
	printf '%s\n' "$table" | awk -v w="$want" '$1 == w { found = 1 } END { exit !found }' &&
		continue
	echo "make test: SUITES names '$want', which is no suite; the suites are:" \
		$(printf '%s\n' "$table" | awk 'NF { print $1 }') >&2
	exit 2
done

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
all_parts=$(printf '%s\n' "$chosen" | cut -d' ' -f2- | tr ' ' '\n' | grep -vx root | sort -u |
	paste -sd' ')
# shellcheck disable=SC2086 # one word per part
sh "$deps" $all_parts || echo "make test: running the suites whose packages are here"

passed=0 failed=0 left=0 report=""
note() { report="$report
$1"; }
for line in $(printf '%s\n' "$chosen" | tr ' ' ','); do
	name=${line%%,*}
	parts=$(printf '%s' "${line#*,}" | tr ',' ' ')
	case " $parts " in
	*" root "*)
		if [ "$(id -u)" != 0 ]; then
			left=$((left + 1))
			note "  left out  $name: needs root (its cases change the machine)"
			continue
		fi
		parts=$(printf '%s' "$parts" | sed 's/\<root\>//')
		;;
	esac
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
	echo "make test: $left suite(s) left out for want of packages or of root: not a" \
		"pass (as root, make test installs the packages; or: sudo sh $deps $all_parts)"
fi
echo "test: $passed passed, $failed failed, $left skipped"
[ "$failed" -eq 0 ] && [ "$left" -eq 0 ]
