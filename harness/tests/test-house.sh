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
