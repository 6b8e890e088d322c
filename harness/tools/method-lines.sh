#!/bin/sh
# method-lines.sh [--check] [README...] - the links of a lab README's
# "Method" to the lines of its files where the operation is.
#
# A link names what it points at: [`cudaMemcpyAsync`, lab.cu:212](lab.cu#L212).
# Only code counts: a line that is a comment (it starts with /*, //, or a
# "* " of a comment's middle) never holds a name.
# --check: each such link's line must hold the name in its code, and a bare
# line link ([lab.cu:212](lab.cu#L212)) is refused; exit 1 with one line per
# stale link.  Without --check: a stale number is moved, in place, only when
# one code line of the file holds the name; where several do, the link is
# named as ambiguous (a longer name, `cudaHostRegister(o->host`, picks one),
# since the nearest of them may be another function's.  Default: every
# labs/*/README.md.
set -u
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
case "${1:-}" in -*)
	echo "method-lines.sh: '$1': not an option (usage: [--check] [README...])" >&2
	exit 2 ;;
esac
[ $# -gt 0 ] || set -- labs/*/README.md
status=0
for readme in "$@"; do
	dir=$(dirname "$readme")
	out=$(awk -v dir="$dir" -v check="$check" '
	function is_code(line) {
		return line !~ /^[ \t]*(\/\*|\/\/|\*$|\*[ \t\/])/
	}
	# The code line holding name: old itself when it does, else the only one
	# (0: none, -1: several); found = how many hold it.
	function locate(file, name, old,    line, n, at, held_at_old) {
		at = 0; n = 0; found = 0; held_at_old = 0
		while ((getline line < (dir "/" file)) > 0) {
			n++
			if (index(line, name) && is_code(line)) {
				found++
				at = n
				if (n == old)
					held_at_old = 1
			}
		}
		close(dir "/" file)
		if (held_at_old)
			return old
		return found > 1 ? -1 : at
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
			at = locate(file, name, old)
			if (at != old) {
				where = at > 0 ? "line " at : "nowhere"
				if (at < 0)
					where = found " lines hold it: name it longer"
				if (check || at <= 0)
					printf "%s:%d: `%s` is not in the code at %s:%d (%s)\n",
					       FILENAME, FNR, name, file, old, where > "/dev/stderr"
				if (check || at <= 0)
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
