#!/bin/sh
# method-lines.sh [--check] [README...] - the links of a lab README's
# "Method" to the lines of its files where the operation is.
#
# A link names what it points at: [`cudaMemcpyAsync`, lab.cu:212](lab.cu#L212).
# --check: each such link's line must hold the name, and a bare line link
# ([lab.cu:212](lab.cu#L212)) is refused; exit 1 with one line per stale link.
# Without --check: each stale number is moved to the line holding the name
# nearest the old one, in place.  Default: every labs/*/README.md.
set -u
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
[ $# -gt 0 ] || set -- labs/*/README.md
status=0
for readme in "$@"; do
	dir=$(dirname "$readme")
	out=$(awk -v dir="$dir" -v check="$check" '
	function nearest(file, name, old,    line, n, best, d, bestd) {
		best = 0; n = 0
		while ((getline line < (dir "/" file)) > 0) {
			n++
			if (index(line, name)) {
				d = n > old ? n - old : old - n
				if (!best || d < bestd) { best = n; bestd = d }
			}
		}
		close(dir "/" file)
		return best
	}
	{
		rest = $0; done = ""
		while (match(rest,
			     /\[`[^`]+`, [A-Za-z0-9_.-]+:[0-9]+\]\([A-Za-z0-9_.-]+#L[0-9]+\)/)) {
			link = substr(rest, RSTART, RLENGTH)
			done = done substr(rest, 1, RSTART - 1)
			rest = substr(rest, RSTART + RLENGTH)
			split(link, part, "`")
			name = part[2]
			spec = substr(part[3], 3)
			file = substr(spec, 1, index(spec, ":") - 1)
			old = substr(spec, index(spec, ":") + 1) + 0
			at = nearest(file, name, old)
			if (at != old) {
				if (check || !at)
					printf "%s:%d: `%s` is not at %s:%d (%s)\n", FILENAME, FNR,
					       name, file, old,
					       at ? "line " at : "nowhere" > "/dev/stderr"
				if (check || !at)
					bad = 1
				else
					link = "[`" name "`, " file ":" at "](" file "#L" at ")"
			}
			done = done link
		}
		line = done rest
		if (check && match(line, /\]\([A-Za-z0-9_.-]+\.(c|cu|h)#L[0-9]+\)/) &&
		    !match(line, /\[`[^`]+`, [A-Za-z0-9_.-]+:[0-9]+\]\(/)) {
			printf "%s:%d: a line link without the name it points at\n", FILENAME,
			       FNR > "/dev/stderr"
			bad = 1
		}
		print line
	}
	END { exit bad }' "$readme") || status=1
	[ "$check" -eq 1 ] || printf '%s\n' "$out" >"$readme"
done
exit "$status"
