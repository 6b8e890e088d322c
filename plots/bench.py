#!/usr/bin/env python3
"""bench.py - the kit's own timing, from a results.json (make bench).

    python3 plots/bench.py [RESULTS_JSON] [--series] [--phases [N]]
                                   [--base OLD_RESULTS_JSON]

Per lab: its wall time (the runner's duration_s), how many measured series it
recorded, the samples they took (in all, and the least, median and most of one
series), the CV they reached (median and largest) and the width of each
median's 95 % interval as a share of the median (the quantity the stopping
rule of lab.h, LAB_STOP_WIDTH, bounds: series left wider than it were timed by
hand, fixed, or hit their cap, "noisy"); then the total.  --series lists every
series under its lab; --base adds an older run's wall time per lab and the
ratio, so that a slower time to the answer shows.  --phases lists each lab's N
(default 5) longest steps, as the lab's progress lines name them, with their
seconds and share of the lab's time: where to look first to make it faster.
A series is one point of a lab's "series" (every sample is kept there) or a
claim's statistics that no point holds; a series of one value (arithmetic, or
a run timed once) is left out.  Exit 0, or 2 on a file that is not a dmalab results.json.
"""
import json
import math
import sys

USAGE = "usage: bench.py [RESULTS_JSON] [--series] [--phases [N]] [--base OLD_RESULTS_JSON]"
STOP_WIDTH = 0.10     # lab.h LAB_STOP_WIDTH
CONFIDENCE = 0.95     # lab.h LAB_CONFIDENCE


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def rank(n, level=CONFIDENCE):
    """estimate.c's median rank: the largest j with [x(j), x(n+1-j)] covering >= level."""
    cdf, j, log_half = 0.0, 0, n * math.log(0.5)
    while j + 1 <= (n + 1) // 2:
        cdf += math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + log_half)
        if not 1 - 2 * min(cdf, 1.0) >= level:
            break
        j += 1
    return j


def width(samples):
    """(hi - lo) / |median| of the 95 % median interval; inf when too few or not finite."""
    v = [x for x in samples if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if len(v) != len(samples) or not v or not all(math.isfinite(x) for x in v):
        return math.inf
    j = rank(len(v))
    mid = median(v)
    if j == 0 or mid == 0:
        return math.inf
    v.sort()
    return (v[len(v) - j] - v[j - 1]) / abs(mid)


def fmt_x(x, unit):
    if unit == "bytes" and isinstance(x, (int, float)) and x >= 1:
        for k, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if x >= k and x % k == 0:
                return "%d %s" % (x // k, name)
        return "%d B" % x
    return "%s=%g" % (unit or "x", x) if isinstance(x, (int, float)) else str(x)


def lab_series(lab):
    """Every series of the lab once: (label, stats) from its points, then from its claims;
    not those of one value (lab-11's chapter arithmetic, a run timed once): nothing to stop."""
    out, seen = [], set()
    for name, s in sorted((lab.get("series") or {}).items()):
        for p in (s or {}).get("points") or []:
            st = p.get("stats") or {}
            if int(st.get("n") or 0) < 2:
                continue
            key = (st.get("name"), st.get("n"), st.get("median"))
            seen.add(key)
            out.append(("%s @ %s" % (name, fmt_x(p.get("x"), s.get("x_unit"))), st))
    for c in lab.get("claims") or []:
        for st in c.get("stats") or []:
            key = (st.get("name"), st.get("n"), st.get("median"))
            if key not in seen and int(st.get("n") or 0) >= 2:
                seen.add(key)
                out.append(("%s (claim %s)" % (st.get("name"), c.get("id")), st))
    return out


def longest_phases(lab, n):
    """The lab's n longest phases (what, seconds), longest first; [] when it kept none."""
    phases = [(p.get("what") or "?", num(p.get("s"))) for p in lab.get("phases") or []
              if isinstance(p, dict)]
    return sorted([p for p in phases if p[1] is not None], key=lambda p: -p[1])[:n]


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print("bench: %s: %s%s" % (path, e, " (make check writes it)" if isinstance(e, OSError)
                                    else ""), file=sys.stderr)
        sys.exit(2)
    except RecursionError:
        print("bench: %s: nested too deeply to be a dmalab results.json" % path, file=sys.stderr)
        sys.exit(2)
    if not isinstance(d, dict) or not isinstance(d.get("labs"), list):
        print("bench: %s: not a dmalab results.json (no \"labs\" list)" % path, file=sys.stderr)
        sys.exit(2)
    return d


def g(v, spec="%.2f"):
    return spec % v if num(v) is not None and math.isfinite(v) else "-"


def main(argv):
    args, show_series, base_path, n_phases = [], False, None, 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--series":
            show_series = True
        elif a == "--phases":
            n_phases = 5
            nxt = argv[i + 1] if i + 1 < len(argv) else "-"
            if nxt.isdigit() and int(nxt) > 0:
                n_phases = int(nxt)
                i += 1
            elif not nxt.startswith("-") and not nxt.endswith(".json"):
                print("bench: --phases '%s': want a whole number of steps, 1 or more" % nxt,
                      file=sys.stderr)
                return 2
        elif a == "--base" and i + 1 < len(argv):
            base_path = argv[i + 1]
            i += 1
        elif a.startswith("-"):
            print(USAGE, file=sys.stderr)
            return 2
        else:
            args.append(a)
        i += 1
    path = args[0] if args else "results/results.json"
    d = load(path)
    base = {}
    if base_path:
        base = {l.get("id"): num(l.get("duration_s")) for l in load(base_path)["labs"]}
    print("bench: %s (%s, started %s%s)" % (path, d.get("command") or "?", d.get("started") or "?",
                                          ", --quick" if d.get("quick") else ""))
    head = "%-4s %-12s %8s %7s %8s %12s %6s %6s %7s %7s" % (
        "lab", "status", "wall s", "series", "samples", "min/med/max", "cv med", "cv max",
        "wide", "noisy")
    if base_path:
        head += " %8s %6s" % ("base s", "x")
    print(head)
    tot_wall = tot_series = tot_samples = tot_wide = tot_noisy = 0
    for lab in d["labs"]:
        series = lab_series(lab)
        ns = [int(st.get("n") or 0) for _, st in series]
        cvs = [st.get("cv") for _, st in series if num(st.get("cv")) is not None]
        widths = [width(st.get("samples") or []) for _, st in series]
        wide = sum(1 for w in widths if not w <= STOP_WIDTH)
        noisy = sum(1 for _, st in series if st.get("noisy") is True)
        wall = num(lab.get("duration_s"))
        tot_wall += wall or 0
        tot_series += len(series)
        tot_samples += sum(ns)
        tot_wide += wide
        tot_noisy += noisy
        spread = "%d/%g/%d" % (min(ns), median(ns), max(ns)) if ns else "-"
        line = "%-4s %-12s %8s %7d %8d %12s %6s %6s %7d %7d" % (
            lab.get("id"), lab.get("status"), g(wall), len(series), sum(ns), spread,
            g(median(cvs) if cvs else None, "%.4f"), g(max(cvs) if cvs else None, "%.3f"),
            wide, noisy)
        if base_path:
            old = base.get(lab.get("id"))
            line += " %8s %6s" % (g(old), g(wall / old if wall and old else None))
        print(line)
        for what, secs in longest_phases(lab, n_phases):
            print("       %6.2f s %4s  %s" % (
                secs, "%d%%" % round(100 * secs / wall) if wall else "-", what))
        if show_series:
            for (label, st), w in zip(series, widths):
                print("       %-44s n %4s  cv %8s  width %s%s" % (
                    label, st.get("n"), g(st.get("cv"), "%.4f"),
                    "%.1f %%" % (100 * w) if math.isfinite(w) else "inf",
                    "  noisy" if st.get("noisy") is True else ""))
    line = "%-4s %-12s %8s %7d %8d %12s %6s %6s %7d %7d" % (
        "all", "", g(tot_wall), tot_series, tot_samples, "", "", "", tot_wide, tot_noisy)
    if base_path:
        old = sum(v for v in base.values() if v)
        line += " %8s %6s" % (g(old), g(tot_wall / old if old else None))
    print(line)
    print("runner's wall time: %s s (the labs' sum above, plus its own start and end); "
          "wide: the median's 95 %% interval spans more than %d %% of it" % (
              g(num(d.get("duration_s")), "%.1f"), round(100 * STOP_WIDTH)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
