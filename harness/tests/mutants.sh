#!/bin/sh
# mutants.sh [DEFS] - the unit tests must notice broken statistics and relations.
#
# Copies what `make unit` needs into a scratch directory, then for each
# mutant in DEFS (default harness/tests/mutants.def) replaces its exact
# line(s), rebuilds the library and the unit tests there and runs them:
# the tests must FAIL.  One line per mutant (killed / SURVIVED), then
#   mutants: K killed, S survived
# Exit status: 0 when every mutant was killed; 1 when one survived; 2 when
# the tree cannot be tested (a mutant's line no longer matches exactly
# once, a mutant does not build, or the unmutated tests fail).
# The scratch directory is removed on every path.  Run from the repository
# root (make mutants).
set -u
defs=${1:-harness/tests/mutants.def}
jobs=${MUTANT_JOBS:-2}
unit_timeout=${UNIT_TIMEOUT:-60}

if [ ! -f "$defs" ] || [ ! -f harness/tests/run-unit.sh ]; then
	echo "mutants: run from the repository root" \
		"($defs or harness/tests/run-unit.sh missing)" >&2
	exit 2
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-mutants.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'rm -rf "$scratch"; exit 130' INT TERM HUP

die() {
	echo "mutants: $*" >&2
	exit 2
}

# The tree `make unit` builds from (the labs for the helpers unit tests take, deps.sh for
# unit-deps; no runner).
for p in Makefile harness/base harness/facts harness/lab harness/cuda harness/tests/unit \
	harness/tests/fixtures labs harness/tests/run-unit.sh harness/deps.sh answers; do
	[ -e "$p" ] || die "'$p' is missing"
	mkdir -p "$scratch/$(dirname "$p")"
	cp -R "$p" "$scratch/$p" || die "cannot copy '$p'"
done
mkdir -p "$scratch/pristine"

# Core tests first: a mutant is killed at the first binary that fails.
units=""
for t in relation estimate stats claim errata; do
	[ -f "harness/tests/unit/test_$t.c" ] && units="$units build/tests/test_$t"
done
for src in harness/tests/unit/test_*.c; do
	b=build/tests/$(basename "$src" .c)
	case " $units " in *" $b "*) ;; *) units="$units $b" ;; esac
done

build() {
	# shellcheck disable=SC2086
	make -C "$scratch" -s -j"$jobs" BUILD=build build/libdmalab.a $units \
		>"$scratch/build.log" 2>&1
}

# Runs the unit binaries in the scratch tree; prints the first that fails.
first_failure() {
	for b in $units; do
		if ! (cd "$scratch" && CMOCKA_MESSAGE_OUTPUT=stdout \
			timeout "$unit_timeout" "./$b" >/dev/null 2>&1); then
			basename "$b"
			return 0
		fi
	done
	return 1
}

# replace FILE OLD NEW: the one line whose text (leading blanks aside) is
# OLD becomes NEW with that line's indentation; fails unless exactly one.
replace() {
	OLD=$2 NEW=$3 awk '
		{
			line = $0
			match(line, /^[ \t]*/)
			indent = substr(line, 1, RLENGTH)
			if (substr(line, RLENGTH + 1) == ENVIRON["OLD"]) {
				n++
				print indent ENVIRON["NEW"]
			} else
				print line
		}
		END { exit n == 1 ? 0 : (n == 0 ? 3 : 4) }' "$1" >"$1.mutant"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		rm -f "$1.mutant"
		return "$rc"
	fi
	mv "$1.mutant" "$1"
}

# The mutants as "name<TAB>file<TAB>what" lines and their pairs, checked
# against the unmutated tree before anything is built.
list="$scratch/list"
: >"$list"
name=""
lineno=0
pairs=0
old=""
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case "$line" in
	'#'* | '') continue ;;
	'['*']'*)
		[ -n "$name" ] && [ "$pairs" -eq 0 ] && die "$defs: mutant '$name' has no -/+ line"
		[ -z "$old" ] || die "$defs:$lineno: a '-' line without its '+' line"
		name=${line#\[}
		name=${name%%\]*}
		rest=${line#*\] }
		file=${rest%%:*}
		what=${rest#*: }
		[ -f "$scratch/$file" ] || die "$defs:$lineno: mutant '$name': no file '$file'"
		[ -f "$scratch/pristine/$name.pairs" ] &&
			die "$defs:$lineno: mutant '$name' defined twice"
		: >"$scratch/pristine/$name.pairs"
		printf '%s\t%s\t%s\n' "$name" "$file" "$what" >>"$list"
		pairs=0
		;;
	'- '*)
		[ -n "$name" ] || die "$defs:$lineno: a '-' line before the first [mutant]"
		[ -z "$old" ] || die "$defs:$lineno: two '-' lines without a '+' between them"
		old=${line#- }
		;;
	'+ '* | '+')
		[ -n "$old" ] || die "$defs:$lineno: a '+' line without its '-' line"
		new=${line#+}
		new=${new# }
		count=$(OLD=$old awk '{ line = $0; sub(/^[ \t]*/, "", line);
			if (line == ENVIRON["OLD"]) n++ } END { print n + 0 }' "$scratch/$file")
		[ "$count" -eq 1 ] ||
			die "mutant '$name' no longer applies: the line '$old' occurs" \
				"$count times in $file (want exactly once; update $defs)"
		printf '%s\n%s\n' "$old" "$new" >>"$scratch/pristine/$name.pairs"
		pairs=$((pairs + 1))
		old=""
		;;
	*)
		die "$defs:$lineno: not a mutant line: '$line'"
		;;
	esac
done <"$defs"
[ -z "$old" ] || die "$defs: the last '-' line has no '+' line"
[ -n "$name" ] && [ "$pairs" -eq 0 ] && die "$defs: mutant '$name' has no -/+ line"
[ -s "$list" ] || die "$defs: no mutants"

echo "mutants: building the unmutated library and unit tests"
build || { sed 's/^/    /' "$scratch/build.log"; die "the unmutated tree does not build"; }
if bad=$(first_failure); then
	die "the unmutated unit tests fail ($bad): fix them first (make unit)"
fi

killed=0
survived=0
while IFS="$(printf '\t')" read -r name file what; do
	cp "$scratch/$file" "$scratch/pristine/file"
	(
		while IFS= read -r old && IFS= read -r new; do
			replace "$scratch/$file" "$old" "$new" || exit 1
		done
	) <"$scratch/pristine/$name.pairs" || die "mutant '$name' did not apply to $file"
	if ! build </dev/null; then
		sed 's/^/    /' "$scratch/build.log"
		die "mutant '$name' does not build (a mutant must compile to test anything)"
	fi
	if by=$(first_failure </dev/null); then
		printf 'killed    %-26s by %-16s %s\n' "$name" "$by" "$what"
		killed=$((killed + 1))
	else
		printf 'SURVIVED  %-26s %-19s %s (%s)\n' "$name" "" "$what" "$file"
		survived=$((survived + 1))
	fi
	# the original back, newer than the objects built from the mutant
	cp "$scratch/pristine/file" "$scratch/$file"
	touch "$scratch/$file"
done <"$list"

echo "mutants: $killed killed, $survived survived"
[ "$survived" -eq 0 ]
