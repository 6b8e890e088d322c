#!/bin/sh
# test-house.sh - the structure the kit keeps (README.md "Layout", labs/README.md):
#   - the runner (dmalab) links no lab runtime: none of the lab's life
#     (lab_main, claims, measuring, skips, its TAP writer, helper roles,
#     placement) is in its symbol table;
#   - no lab links the runner's code;
#   - the layers call downward only: a file of harness/base, facts, lab,
#     cuda or runner includes headers of its own layer or of those below it
#     (base < facts < lab < cuda; the runner: base and facts), and a lab
#     includes no runner header; inside a layer, no objects call each other
#     in a circle (their symbols, nm);
#   - a header of the layers that labs use is used by two labs or more, or
#     by the harness itself: code one lab alone uses lives in that lab's
#     folder; and so is each function of harness/base, facts, lab and cuda (the
#     lab API of lab.h aside: every lab is offered it);
#   - a lab's sabotage is its knobs: no lab tests LAB_SABOTAGE in its code;
#   - one printer of error lines: none opened with "lab-NN: " by hand;
#   - each lab README's links to the lab's lines point at what they name
#     (harness/tools/method-lines.sh --check), and the calls each chapter is
#     about (lab-02's cudaMemcpyAsync, lab-08's cudaHostRegister, ...) have one;
#   - each lab README's tables say what the kit says: a claim its claims table
#     marks as a known erratum has a "## NN.k" in answers/errata.md and each
#     such section is marked in its relation cell; the claims
#     its sabotage tables and knob lists give a knob are the ids of the lab's
#     LAB_KNOB entries, with their fields, and a `K.field` the README names is one;
#   - no code line is wider than 100 columns, a tab reaching the next multiple
#     of 8 and a wide (CJK) character taking 2 (wc -L's display width).
# Run by `make test-house` after the build.
set -u
BUILD=${BUILD:-build}
pass=0 fail=0
tmp_list=$(mktemp "${TMPDIR:-/tmp}/dmalab-house.XXXXXX") || exit 1
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "test-house: FAIL: $*"; }

[ -x "$BUILD/dmalab" ] && [ -x "$BUILD/labs/lab-01" ] ||
	{ echo "test-house: build first (make all)"; exit 1; }

# the lab runtime's entry points, one per object of it
lab_runtime='lab_main claim_check claim_skip lab_error lab_skip lab_measure report_tap_header
helper_run need_bytes buf_map stats_kept'
for sym in $lab_runtime; do
	if nm "$BUILD/dmalab" | grep -q " T $sym\$"; then
		bad "dmalab links the lab runtime: $sym"
	else
		ok
	fi
done

# the base layer's spawner and cleanup chain call nothing of the lab runtime
for obj in proc cleanup; do
	calls=$(nm -u "$BUILD/obj/base/$obj.o" | grep -E " U (lab|claim|helper|role)_" | tr -s ' ')
	if [ -n "$calls" ]; then
		bad "harness/base/$obj.c calls the lab runtime:" $calls
	else
		ok
	fi
done

# the runner's code (its output, compare and grading) in no lab
for lab in "$BUILD"/labs/lab-*; do
	if nm "$lab" | grep -qE " T (out_run_end|cmp_explain|results_save|cmd_grade)\$"; then
		bad "$(basename "$lab") links the runner's code"
	else
		ok
	fi
done

# The layer a header is in: its directory under harness/ ("" if none).
layer_of() {
	for d in base facts lab cuda runner; do
		[ -f "harness/$d/$1" ] && { echo "$d"; return; }
	done
}

# Each layer's includes, against the layers it may include.
check_includes() { # $1: files' layer or "labs", $2: allowed layers, $3...: files
	from=$1 allowed=$2
	shift 2
	inc='s/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p'
	for f in "$@"; do
		for h in $(sed -n "$inc" "$f"); do
			to=$(layer_of "$h")
			[ -n "$to" ] || continue # the lab's own header, or a system one
			case " $allowed " in
			*" $to "*) ok ;;
			*) bad "$f ($from) includes $h of harness/$to:" \
				"the layers call downward only" ;;
			esac
		done
	done
}
check_includes base "base" harness/base/*.[ch]
check_includes facts "base facts" harness/facts/*.[ch]
check_includes lab "base facts lab" harness/lab/*.[ch]
check_includes cuda "base facts lab cuda" harness/cuda/*.h
check_includes runner "base facts runner" harness/runner/*.[ch]
check_includes labs "base facts lab cuda" labs/*/*.c labs/*/*.cu labs/*/*.h

# a header the labs include must serve two labs, or code outside labs/ other
# than its own .c and the tests
for h in harness/base/*.h harness/facts/*.h harness/lab/*.h harness/cuda/*.h; do
	name=$(basename "$h")
	labs=$(grep -l "#include \"$name\"" labs/[0-9]*/* 2>/dev/null |
		sed 's|^labs/\([^/]*\)/.*|\1|' | sort -u | wc -l)
	[ "$labs" -eq 1 ] || { ok; continue; }
	base=${name%.h}
	others=$(grep -rl "#include \"$name\"" harness --include=*.c --include=*.h --include=*.cu |
		grep -v -e "^harness/tests/" -e "^harness/[a-z]*/$base\.c\$" -e "^$h\$" | wc -l)
	if [ "$others" -eq 0 ]; then
		bad "$h serves one lab ($(grep -l "#include \"$name\"" labs/[0-9]*/* |
			head -n 1)): it belongs in that lab's folder"
	else
		ok
	fi
done

# The same per function.  A file a lab or the harness is, with what names no
# call: comment lines, a code line's trailing comment ("f(); /* see g */",
# "// g"; a "//" only after a blank, so that "http://" in a string stays),
# and column-0 lines with a "(" (declarations and definitions; a call is
# indented).  The tests are left out: a unit test links a lab's helper.
code_of() { # $@: files -> their text, as above
	cat "$@" 2>/dev/null | grep -vE '^[[:space:]]*(/?\*|//)' |
		sed -E 's#/\*([^*]|\*+[^*/])*\*+/##g; s#/\*.*$##; s#(^|[[:space:]])//.*$#\1#' |
		grep -vE '^[A-Za-z_].*\('
}
fn_dir=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-house-fn.XXXXXX") || exit 1
# code_of itself: what a trailing comment names is gone, the code around it stays
printf '%s\n' ' a(); /* b() */' ' c(); // d' ' puts("http://e"); f(); /* g' ' h = i /* j */ * k;' \
	>"$fn_dir/code.c"
if [ "$(code_of "$fn_dir/code.c" | grep -ow '[a-k]' | tr -d '\n')" = acefhik ]; then
	ok
else
	bad "code_of: a trailing comment's name counted as code, or code was cut"
fi
rm -f "$fn_dir/code.c"
for d in labs/[0-9]*/ labs/example/; do
	code_of $(find "$d" -name '*.c' -o -name '*.cu' -o -name '*.h') \
		>"$fn_dir/lab-$(basename "$d")"
done
code_of $(find harness -path harness/tests -prune -o \( -name '*.c' -o -name '*.h' \) -print) \
	>"$fn_dir/harness"
# the functions: the objects' global text symbols, and the static (inline) definitions
# of the headers, which no object holds
fns=$( { nm --defined-only -g "$BUILD"/obj/base/*.o "$BUILD"/obj/facts/*.o \
		"$BUILD"/obj/lab/*.o | awk '$2 == "T" {print $3}'
	sed -n 's/^static .*[ *]\([a-z_][a-z0-9_]*\)(.*[^;]$/\1/p' harness/base/*.h \
		harness/facts/*.h harness/lab/*.h harness/cuda/*.h
	} | sort -u)
lab_api=$(grep -oE '[a-z_][a-z0-9_]*\(' harness/lab/lab.h | tr -d '(' | sort -u)
# Kept in the harness though one lab calls each (for the reasons below), so that
# a new one fails: the --role helpers' protocol (helper.c: both ends of one
# mechanism, lab-01 and lab-06 each use a part); halves of a pair that
# several labs use the other half of (stream_new/free, register/unregister);
# buf_refill_sample, in the lab API table of labs/README.md; the lab's half of the
# journaled settings (sysctl_change.c: lab-08 changes, the runner's restore puts
# back); and two of want.h's interval operations (lab-03's max, lab-05's x / d),
# which test_estimate.c tests with the others.
not_yet_moved='helper_ask helper_expect_stats helper_linger helper_report_skip helper_role_main
helper_run_sized msg_hex msg_put_hex proc_check_opts proc_plumbing_test role_error
role_send_stats role_skip lab_cuda_stream_free lab_cuda_unregister buf_refill_sample
sysctl_change_open sysctl_change_set sysctl_change_restore sysctl_journal_path
lab_est_max lab_est_over'
for fn in $fns; do
	case " $(echo $lab_api $not_yet_moved) " in *" $fn "*) continue ;; esac
	users=$(grep -lw -- "$fn" "$fn_dir"/lab-* | wc -l)
	if [ "$users" -eq 1 ] && ! grep -qw -- "$fn" "$fn_dir/harness"; then
		bad "$fn serves $(basename "$(grep -lw -- "$fn" "$fn_dir"/lab-*)") alone:" \
			"it belongs in that lab's folder"
	else
		ok
	fi
done
rm -rf "$fn_dir"

# the sabotage build is told apart in one place (lab_main applies the knobs)
if grep -rlE "LAB_SABOTAGED|#if(n?def)? +LAB_SABOTAGE|defined\(LAB_SABOTAGE\)" labs \
	--include=*.c --include=*.cu --include=*.h >"$tmp_list" 2>/dev/null; then
	bad "labs read LAB_SABOTAGE instead of their knobs: $(tr '\n' ' ' <"$tmp_list")"
else
	ok
fi
rm -f "$tmp_list"

# a lab's knobs are written once, by lab_main (lab.h says why they are not const)
if grep -nE '(^|[^.a-zA-Z_])K\.[a-z_0-9]+ *([-+*/|&]?=[^=]|\+\+|--)' labs/*/*.c labs/*/*.cu \
	labs/*/*.h >"$tmp_list" 2>/dev/null; then
	bad "a lab writes its knobs: $(head -n 3 "$tmp_list" | tr '\n' ' ')"
else
	ok
fi
rm -f "$tmp_list"

# one printer of error lines (base/usage.c): no code opens a stderr line with its
# program's name by hand.  lang.c aside: usage.c reads its words through it, so it
# cannot call back into usage.c (a circle in base).
if grep -rnE 'fprintf\(stderr, *"(lab-%s|lab-[0-9]+|dmalab)[:[:space:]]' harness labs \
	--include=*.c --include=*.cu --include=*.h 2>/dev/null |
	grep -v -e '^harness/tests/' -e '^harness/base/usage\.c:' -e '^harness/base/lang\.c:' \
	>"$tmp_list"; then
	bad "lines printed beside usage.h's error(), warning(), lab_usage_error():" \
		"$(cut -d: -f1,2 "$tmp_list" | tr '\n' ' ')"
else
	ok
fi
rm -f "$tmp_list"

# a README's links to a lab's lines name what is there
if sh harness/tools/method-lines.sh --check; then
	ok
else
	bad "a lab README links a line that no longer holds what the link names" \
		"(sh harness/tools/method-lines.sh moves the numbers)"
fi

# the calls each chapter is about have such a link in their lab's README (the
# link's name is in its line: the check above), so a student finds them
for want in '02 cudaMemcpyAsync' '02 cudaEventRecord' '03 <<<' '05 <<<' \
	'05 cudaMemPrefetchAsync' '06 cudaIpcGetMemHandle' '06 cudaIpcOpenMemHandle' \
	'07 cudaMalloc(' '07 cudaMallocFromPoolAsync' '07 ReleaseThreshold' '08 madvise' \
	'08 cudaHostRegister' '10 pread' '10 O_DIRECT' '10 cudaMemcpyAsync' '11 gemm_ex' \
	'11 cudaMemcpyAsync'; do
	lab=${want%% *} name=${want#* }
	if grep -o '\[`[^`]*`, [A-Za-z_.]*:[0-9]*\]' labs/"$lab"-*/README.md |
		grep -qF -- "$name"; then
		ok
	else
		bad "labs/$lab-*/README.md links no line of '$name'"
	fi
done

# the link tool itself: a comment never holds a name, and a stale link whose name
# several code lines hold is refused, not moved to the nearest (another function's)
fx=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-house-links.XXXXXX") || exit 1
printf '%s\n' '/* copy() below */' 'void a(void) { copy(); }' '*p = copy();' \
	'void b(void) { copy(); }' >"$fx/lab.c"
printf '%s\n' '[`copy()`, lab.c:1](lab.c#L1)' >"$fx/comment.md"
printf '%s\n' '[`*p = copy()`, lab.c:3](lab.c#L3)' >"$fx/deref.md"
printf '%s\n' '[`copy()`, lab.c:1](lab.c#L1)' >"$fx/ambiguous.md"
if ! sh harness/tools/method-lines.sh --check "$fx/comment.md" 2>/dev/null &&
   sh harness/tools/method-lines.sh --check "$fx/deref.md" &&
   ! sh harness/tools/method-lines.sh "$fx/ambiguous.md" 2>/dev/null &&
   grep -q 'lab.c#L1)' "$fx/ambiguous.md"; then
	ok
else
	bad "method-lines.sh: a comment line held a name, a '*p' line did not, or an" \
		"ambiguous link was moved"
fi
rm -rf "$fx"

# Inside a layer too, the files call downward: peel off, again and again, the
# objects that call no object left or that no object left calls; what never
# peels is in a circle (or between two).
layer_circle() { # $1: a folder of objects -> the objects in circles ("" none)
	for o in "$1"/*.o; do
		nm -g --defined-only "$o" | awk -v f="${o##*/}" 'NF == 3 { print "D", f, $3 }'
		nm -u "$o" | awk -v f="${o##*/}" '{ print "U", f, $NF }'
	done | awk '
		{ files[$2] = 1 }
		$1 == "D" { owner[$3] = $2 }
		$1 == "U" { used[$2, $3] = 1 }
		END {
			for (k in used) {
				split(k, p, SUBSEP)
				if ((p[2] in owner) && owner[p[2]] != p[1])
					calls[p[1], owner[p[2]]] = 1
			}
			do {
				peeled = 0
				for (f in files) {
					out = into = 0
					for (e in calls) {
						split(e, q, SUBSEP)
						if (!(q[1] in files) || !(q[2] in files))
							continue
						out += q[1] == f
						into += q[2] == f
					}
					if (!out || !into) { delete files[f]; peeled = 1 }
				}
			} while (peeled)
			for (f in files) printf "%s ", f
		}'
}
# the check itself finds a circle: two objects that call each other
fx=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-house-circle.XXXXXX") || exit 1
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' > "$fx/a.c"
printf 'int a(int);\nint b(int x) { return a(x); }\nint c(void) { return a(1); }\n' \
	> "$fx/b.c"
printf 'int a(int);\nint d(void) { return a(2); }\n' > "$fx/d.c"
for f in a b d; do ${CC:-cc} -c -o "$fx/$f.o" "$fx/$f.c" || bad "cc $f.c"; done
case "$(layer_circle "$fx")" in
"a.o b.o " | "b.o a.o ") ok ;;
*) bad "layer_circle did not find a.o <-> b.o alone: '$(layer_circle "$fx")'" ;;
esac
rm -rf "$fx"
for layer in base facts lab runner; do
	circle=$(layer_circle "$BUILD/obj/$layer")
	if [ -z "$circle" ]; then
		ok
	else
		bad "harness/$layer: these files call each other in a circle: $circle"
	fi
done

# A lab README's claims and sabotage tables are written by hand; they must say
# what answers/errata.md and the lab's knobs say.  readme_facts reads these (the
# README's other tables, the measured runs among them, are history and left alone):
#   - the claims table: the first table with a "relation..." column, a claim id
#     opening each row ("| 06.3 |" or "| 06.3 zero copy: ... |").  A row that
#     says "no erratum" is marked as having none; one that says "known erratum"
#     or "erratum NN.k" (its own id) as having one.  Its "sabotage" or
#     "sabotage build" column, where it has one, lists the claim as flipped by
#     a knob, or as having none where the cell opens with "none";
#   - a sabotage table: a table with a "knob" column and a "claim" or "claims"
#     one ("| 01.1, 01.2 | `K.lock_region` |...", "| `K.prefetch` | 0: ... |
#     05.5 |"); a knob cell of "none" says the claims have none;
#   - a knob list: a paragraph with two or more "`K.field`: NN.a, NN.b".
# Ranges ("02.1-02.4") count every claim between.  Out, one fact a line: "row
# ID", "erratum ID yes|no", "knob WHERE ID K.field" ("-": a claims table's
# column names no knob), "none WHERE ID"; WHERE is "claims:LINE", "knobs:LINE"
# or "text:LINE", the line of the table's header or the paragraph's first.
readme_facts() { # $1: a lab's README.md, $2: the lab's number (NN)
	awk -v nn="$2" '
	function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
	# the claim ids of this lab in s, ranges spread out, space-separated
	function ids(s,   out, id, to, k) {
		out = ""
		while (match(s, /[0-9][0-9]\.[0-9]+/)) {
			id = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			if (substr(id, 1, 2) != nn)
				continue
			out = out " " id
			if (!match(s, /^ *(-|–) *[0-9][0-9]\.[0-9]+/))
				continue
			to = substr(s, 1, RLENGTH)
			s = substr(s, RLENGTH + 1)
			sub(/^ *(-|–) */, "", to)
			if (substr(to, 1, 2) == nn)
				for (k = substr(id, 4) + 1; k <= substr(to, 4) + 0; k++)
					out = out " " nn "." k
		}
		return out
	}
	function cells(line, c,   n, i, raw) {
		n = split(line, raw, "|")
		for (i = 2; i < n; i++)
			c[i - 1] = trim(raw[i])
		return n - 2
	}
	# A paragraph'"'"'s knob list.  (The ids after the colon are taken with a
	# bracket: mawk 1.3.4 misses "( *, *ID)*" when it matches nothing.)
	function knob_list(para, at,   n, out, entry, colon, list, i) {
		n = 0
		out = ""
		while (match(para, /`K\.[A-Za-z_0-9]+`: *[0-9][0-9]\.[0-9]+[-–, 0-9.]*/)) {
			entry = substr(para, RSTART, RLENGTH)
			para = substr(para, RSTART + RLENGTH)
			colon = index(entry, "`:")
			split(ids(substr(entry, colon + 2)), list, " ")
			for (i = 1; i in list; i++)
				out = out "knob text:" at " " list[i] " " \
					substr(entry, 2, colon - 2) "\n"
			n++
		}
		if (n >= 2)
			printf "%s", out
	}
	# a blank line, a heading or a table ends a paragraph
	!NF || /^[#|]/ { knob_list(para, para_at); para = "" }
	NF && !/^[#|]/ { if (para == "") para_at = NR; para = para " " $0 }
	END { knob_list(para, para_at) }
	!/^\|/ { in_table = 0; next }
	/^\|[-:| ]*$/ { next }
	!in_table {
		in_table = 1 # the header
		kind = ""
		ncol = cells($0, head)
		id_col = knob_col = sab_col = 0
		for (i = 1; i <= ncol; i++) {
			if (head[i] ~ /^relation/ && !claims_seen)
				kind = "claims"
			if (head[i] == "knob")
				knob_col = i
			if (head[i] == "claim" || head[i] == "claims")
				id_col = i
			if (head[i] == "sabotage" || head[i] == "sabotage build")
				sab_col = i
		}
		if (kind == "claims")
			claims_seen = 1
		else if (knob_col && id_col)
			kind = "knobs"
		table = kind ":" NR
		next
	}
	kind == "claims" {
		cells($0, c)
		if (!match(c[1], /^[0-9][0-9]\.[0-9]+/))
			next
		id = substr(c[1], 1, RLENGTH)
		print "row", id
		low = tolower($0)
		if (low ~ /no (known )?erratum/)
			print "erratum", id, "no"
		else if (index(low, "known erratum") || low ~ ("erratum " id "([^0-9]|$)"))
			print "erratum", id, "yes"
		if (sab_col && c[sab_col] ~ /^none/)
			print "none", table, id
		else if (sab_col && c[sab_col] != "")
			print "knob", table, id, "-"
	}
	kind == "knobs" {
		cells($0, c)
		n = split(ids(c[id_col]), list, " ")
		if (match(c[knob_col], /K\.[A-Za-z_0-9]+/))
			field = substr(c[knob_col], RSTART, RLENGTH)
		else if (c[knob_col] ~ /^none/)
			field = ""
		else
			next
		for (i = 1; i <= n; i++)
			if (field != "")
				print "knob", table, list[i], field
			else
				print "none", table, list[i]
	}' "$1"
}
# A claims table says a claim's known erratum in its relation cell ("known erratum: ...",
# or "no erratum" where one was withdrawn).
# One lab's drift, one line each, from the facts of readme_facts, "src ID
# K.field" per claim of each LAB_KNOB, "err ID" per "## ID" of answers/errata.md
# and "name FILE K.field" per knob its README.md or README.zh.md names.
lab_drift() { # $1: lab-NN, $2: its folder; stdin: the facts
	awk -v lab="$1" -v dir="$2" '
	function where(t,   p) {
		split(t, p, ":")
		if (p[1] == "claims")
			return "the claims table, column sabotage (README.md:" p[2] ")"
		if (p[1] == "text")
			return "the knob list of README.md:" p[2]
		return "the sabotage table (README.md:" p[2] ")"
	}
	function say(id, what) { print lab ": " id ": " what }
	$1 == "src" { knob[$2] = knob[$2] " " $3; has[$2] = 1; field[$3] = 1 }
	$1 == "name" { named_in[$3] = named_in[$3] " " $2 }
	$1 == "err" && substr($2, 1, 2) == substr(lab, 5) { err[$2] = 1 }
	$1 == "row" { row[$2] = 1; rows++ }
	$1 == "erratum" { mark[$2] = $3 }
	$1 == "knob" { tab[$2] = 1; listed[$2, $3] = 1; if ($4 != "-") named[$2, $3] = $4 }
	$1 == "none" { tab[$2] = 1; none[$2, $3] = 1 }
	END {
		if (!rows)
			print lab ": README.md has no claims table (a \"relation\" column," \
				" an id opening each row)"
		for (id in mark)
			if (mark[id] == "yes" && !(id in err))
				say(id, "the claims table marks a known erratum, but" \
					" answers/errata.md has no \"## " id "\"")
		for (id in err) {
			has_section = "answers/errata.md has \"## " id "\", but the claims table"
			if (!(id in row))
				say(id, has_section " has no row " id)
			else if (mark[id] != "yes")
				say(id, has_section (mark[id] == "no" ? " says \"no erratum\"" : \
					" does not mark it (\"known erratum\")"))
		}
		for (f in named_in)
			if (!(f in field))
				print lab ":" named_in[f] (named_in[f] ~ / .* / ? " name " : \
					" names ") f ", but no LAB_KNOB in " dir " has that field"
		ntab = 0
		for (t in tab)
			ntab += t !~ /^text:/
		if (!ntab && rows)
			print lab ": README.md has no sabotage table (a claims table column" \
				" \"sabotage\", or a table of \"knob\" and \"claim(s)\")"
		for (t in tab) {
			for (id in has)
				if (!((t, id) in listed))
					say(id, "LAB_KNOB(" substr(knob[id], 2) ") flips it, but " \
						where(t) ((t, id) in none ? " says it has none" : \
						" does not list it"))
			for (k in listed) {
				split(k, p, SUBSEP)
				if (p[1] != t)
					continue
				id = p[2]
				if (!(id in has))
					say(id, where(t) " lists it as flipped by " \
						(k in named ? named[k] : "a knob") ", but no" \
						" LAB_KNOB in " dir " names it")
				else if ((k in named) && !index(knob[id] " ", " " named[k] " "))
					say(id, where(t) " names " named[k] ", but its LAB_KNOB" \
						" is " substr(knob[id], 2))
			}
		}
	}'
}
errata_ids=$(sed -n 's/^## \([0-9][0-9]\.[0-9][0-9]*\)[[:space:]]*$/\1/p' answers/errata.md)
drift=$(mktemp "${TMPDIR:-/tmp}/dmalab-house-drift.XXXXXX") || exit 1
for dir in labs/[0-9][0-9]-*; do
	nn=$(basename "$dir" | cut -c1-2)
	knob_re='s/.*LAB_KNOB(\(K\.[A-Za-z_0-9]*\),.*"\([^"]*\)").*/\1 \2/p'
	{
		find "$dir" -maxdepth 1 \( -name '*.c' -o -name '*.cu' -o -name '*.h' \) \
			-exec sed -n "$knob_re" {} + |
			awk '{ for (i = 2; i <= NF; i++) print "src", $i, $1 }'
		for id in $errata_ids; do echo "err $id"; done
		readme_facts "$dir/README.md" "$nn"
		grep -o '`K\.[A-Za-z_0-9]*' "$dir"/README*.md | tr -d '`' | sort -u |
			sed 's|^labs/[^/]*/\(.*\):\(.*\)|name \1 \2|'
	} | lab_drift "lab-$nn" "$dir" | sort >"$drift"
	if [ -s "$drift" ]; then
		while IFS= read -r line; do bad "$line"; done <"$drift"
	else
		ok
	fi
done
rm -f "$drift"

# code lines at most 100 columns: expand the tabs, then the display width of the widest
wide=""
for f in $(git ls-files 2>/dev/null | grep -E '\.(c|h|cu|py|sh|S)$|(^|/)Makefile$'); do
	[ "$(expand -t 8 "$f" | LC_ALL=C.UTF-8 wc -L)" -le 100 ] || wide="$wide $f"
done
if [ -z "$wide" ]; then
	ok
else
	bad "code lines over 100 columns (tabs at 8) in:$wide"
fi

echo "test-house: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
