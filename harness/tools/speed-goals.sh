#!/usr/bin/env bash
# speed-goals.sh - one batch on the GPU machine for the goals of "as exact as
# the peers, faster than the peers": make check's wall time (labs 01-06, and
# every lab), lab-02 beside nvbandwidth's copy-engine figures, lab-04's read
# rate beside lmbench's bw_mem and harness/tools/readbw-ref.c, the chase
# alone beside multichase, make bench, the unit tests.  About 6 minutes; a
# step still to start after BUDGET_S (default 420) seconds is skipped.
#
#   PEERS_BIN=.peers/bin OUT=DIR bash harness/tools/speed-goals.sh
#
# PEERS_BIN holds nvbandwidth, bw_mem and multichase (shared/peers/README.md:
# copy that folder into an ignored .peers/ of the checkout and carry it).
# Everything lands in $OUT: times.txt (each step's wall time and exit
# status), the logs and JSON records, bench-*.txt and summary.txt.
set -u
O=${OUT:-speed-out}
P=${PEERS_BIN:-.peers/bin}
BUDGET_S=${BUDGET_S:-420}
T=$O/times.txt
mkdir -p "$O"
: >"$T"
SECONDS=0

# t LIMIT_S CMD...: CMD under timeout, its wall time and exit status to times.txt.
t() {
	local lim=$1 s r
	shift
	if [ "$SECONDS" -ge "$BUDGET_S" ]; then
		echo "skipped (budget ${BUDGET_S} s spent): $*" >>"$T"
		return 125
	fi
	s=$(date +%s.%N)
	timeout -k 5 "$lim" "$@"
	r=$?
	echo "$s $(date +%s.%N) $r $*" |
		awk '{ printf "%7.2f s  rc=%-3s", $2 - $1, $3; $1 = $2 = $3 = ""; print $0 }' >>"$T"
	return $r
}

chmod +x "$P"/* 2>/dev/null
t 240 make -j"$(nproc)" all >"$O/build.log" 2>&1 || tail -30 "$O/build.log"
t 150 make check LABS="01 02 03 04 05 06" RESULTS="$O/check-01-06" >"$O/check-01-06.log" 2>&1
t 200 make check RESULTS="$O/check-all" >"$O/check-all.log" 2>&1
for r in 1 2 3; do
	t 90 build/labs/lab-02 --json "$O/lab02-$r.json" >"$O/lab02-$r.tap" 2>&1
	t 60 "$P/nvbandwidth" -t host_to_device_memcpy_ce device_to_host_memcpy_ce -b 1024 -j \
		>"$O/nvb-$r.json" 2>&1
done
R=${TMPDIR:-/tmp}/readbw-ref.$$
cc -O2 -Iharness/base -Iharness/facts -Iharness/lab -o "$R" harness/tools/readbw-ref.c \
	labs/04-numa/seqread.c
for r in 1 2 3; do
	t 60 build/labs/lab-04 --json "$O/lab04-$r.json" >"$O/lab04-$r.tap" 2>&1
	t 60 env ENOUGH=50000 "$P/bw_mem" -P 1 1024m rd >>"$O/bw_mem-1024m.txt" 2>&1
done
t 90 "$R" 1024 11 >"$O/readbw-ref.txt" 2>&1
for r in 1 2; do
	t 60 build/labs/lab-04 --chase-only --size 256M --json "$O/chase-$r.json" >"$O/chase-$r.tap" 2>&1
	t 60 "$P/multichase" -m 256m -s 64 -T 256m >>"$O/multichase.txt" 2>&1
done
make bench RESULTS="$O/check-01-06" >"$O/bench-01-06.txt" 2>&1
make bench RESULTS="$O/check-all" >"$O/bench-all.txt" 2>&1
t 200 make -j"$(nproc)" unit >"$O/unit.log" 2>&1
t 60 make test-bench test-claims >"$O/tests.log" 2>&1

python3 - "$O" >"$O/summary.txt" 2>&1 <<'PY'
import glob, json, sys
o = sys.argv[1]
GiB = 1 << 30
def load(f):
    try:
        t = open(f).read()
        return json.loads(t[t.index("{"):])
    except (OSError, ValueError):
        return None
for f in sorted(glob.glob(o + "/lab02-*.json")):
    d = load(f) or {}
    points = lambda n: (d.get("series") or {}).get(n, {}).get("points", [])
    at = lambda n: [p["stats"]["median"] for p in points(n) if p.get("x") == GiB]
    print(f, "h2d_pinned", at("h2d_pinned"), "d2h_pinned", at("d2h_pinned"),
          [(c["id"], c["status"]) for c in d.get("claims", [])])
for f in sorted(glob.glob(o + "/nvb-*.json")):
    d = (load(f) or {}).get("nvbandwidth", {})
    print(f, [(c.get("name"), (c.get("bandwidth_matrix") or [[None]])[0][0])
              for c in d.get("testcases", [])])
for f in sorted(glob.glob(o + "/lab04-*.json")) + sorted(glob.glob(o + "/chase-*.json")):
    x = (load(f) or {}).get("facts", {})
    print(f, {k: v.get("value") if isinstance(v, dict) else v for k, v in x.items()
              if "read" in k or "latency" in k or k == "llc_bytes"})
PY
cat "$T" "$O/summary.txt" "$O/bench-01-06.txt" "$O/bench-all.txt" "$O/readbw-ref.txt" \
	"$O/bw_mem-1024m.txt" "$O/multichase.txt" 2>/dev/null
tail -3 "$O/unit.log" "$O/tests.log" "$O/check-01-06.log" "$O/check-all.log" 2>/dev/null
exit 0
