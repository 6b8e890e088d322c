#!/bin/sh
# find-python.sh - print the first Python 3 that can import matplotlib.
# Order: $DMALAB_PYTHON, python3 on PATH, Debian's /usr/bin/python3, then
# other usual places.  Exit 1 (printing the candidates tried, on stderr)
# when none can.
tried=""
for py in "${DMALAB_PYTHON:-}" python3 /usr/bin/python3 /usr/local/bin/python3 python; do
	[ -n "$py" ] || continue
	command -v "$py" >/dev/null 2>&1 || continue
	if "$py" -c 'import sys, matplotlib; sys.exit(sys.version_info[0] != 3)' \
		>/dev/null 2>&1; then
		command -v "$py"
		exit 0
	fi
	tried="$tried $(command -v "$py")"
done
echo "no Python 3 with matplotlib among:${tried:- (no python found)}" >&2
exit 1
