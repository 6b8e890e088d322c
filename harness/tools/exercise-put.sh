#!/bin/sh
# exercise-put.sh ID BODY COPY - put the lines of BODY in place of the body of
# exercise region ID in the learner's copy COPY (make exercise-NN wrote it), as a
# learner would write them: the marker comment and the END EXERCISE line stay.
# For trying a prepared answer, e.g. harness/tests/fixtures/exercises/, with
# make try-NN.  Exit 1 when COPY has no region ID or it is not closed.
set -u
[ $# -eq 3 ] || { echo "usage: exercise-put.sh ID BODY COPY" >&2; exit 2; }
id=$1 body=$2 copy=$3
if ! [ -r "$body" ] || ! [ -w "$copy" ]; then
	echo "exercise-put: cannot read '$body' or write '$copy'" >&2
	exit 2
fi
tmp=$copy.put.$$
awk -v id="$id" -v body="$body" '
	function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
	state == 0 && index(trim($0), "/* EXERCISE " id " ") == 1 { state = 1 }
	state == 1 { print; if (index($0, "*/")) { while ((getline l < body) > 0) print l
		state = 2 }; next }
	state == 2 { if (trim($0) == "/* END EXERCISE */") { print; state = 3 }; next }
	{ print }
	END { exit state == 3 ? 0 : 1 }' "$copy" >"$tmp" && mv "$tmp" "$copy" && exit 0
rm -f "$tmp"
echo "exercise-put: no closed region '$id' in '$copy'" >&2
exit 1
