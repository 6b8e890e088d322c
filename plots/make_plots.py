"""Draw every figure a results file can give: `make plots`.

usage: make_plots.py RESULTS.json [OUTDIR [NAME...]]

FIGURES below says which figures each lab gets; the labs present in the
results file pick theirs, and a lab not listed there gets its series drawn
as lines (kinds.py), so a new lab has a figure before it has code here.
NAME... draws only the figures so named.

Prints one line per figure, drawn or not drawn with the reason, and a
totals line; a figure whose file cannot be written (a read-only or full
directory) is an error, one line on stderr with the path and the reason.
Exit 0 when every figure drawn was written (even if none could be drawn), 1
when one could not be written, 2 when the results file cannot be used
(missing, not JSON, unknown schema) or a NAME is no figure of it.
Set DMALAB_PLOTS_DEBUG=1 to see the traceback of a figure that broke.
"""
import os
import sys
import traceback

import common as C
import kinds
import lab02_bandwidth
import lab03_calls
import lab03_timeline
import lab04_latency
import lab04_local_remote
import lab05_4gib
import lab05_faults
import lab09_pairs
import lab10_paths
import lab11_crossover


def figure(name, draw, claims, title, series="", facts="", labels=None):
    """One figure: its image files NAME.png and NAME.svg, the function that
    draws it, the claims whose skip or error says why it is missing, its
    title (the report's caption too), and what kinds.py's drawings read:
    the series or claim statistics (a name ending in '*' stands for every
    name that starts with the rest), the facts drawn as dashed lines, and
    the legend's words for a series ({name: words})."""
    return {"name": name, "draw": draw, "claims": claims.split(),
            "title": C.T("fig." + name, title),
            "series": series.split(), "facts": facts.split(), "labels": labels}


FIGURES = {
    "01": [],  # its claims are counters: the report card says it all
    "02": [figure("lab02_bandwidth", lab02_bandwidth.draw, "02.1 02.3",
                  "lab-02: H2D and D2H bandwidth by transfer size and kind of host memory")],
    "03": [figure("lab03_calls", lab03_calls.draw, "03.1 03.2",
                  "lab-03: time in the cudaMemcpyAsync call vs the copy's own time"),
           figure("lab03_timeline", lab03_timeline.draw, "03.1 03.3 03.4 03.5",
                  "lab-03: when the host thread, the copy and the kernel ran, per case")],
    "04": [figure("lab04_latency", lab04_latency.draw, "04.1",
                  "lab-04: pointer-chase latency vs working set, per memory node"),
           figure("lab04_local_remote", lab04_local_remote.draw, "04.2 04.3",
                  "lab-04: local vs remote node, latency and read bandwidth")],
    "05": [figure("lab05_faults", lab05_faults.draw, "05.1 05.2",
                  "lab-05: first-touch cost per 4 KiB page, CPU and GPU"),
           figure("lab05_4gib", lab05_4gib.draw, "05.2",
                  "lab-05: 4 GiB of managed memory to the GPU vs the chapter's 655 ms")],
    "06": [],  # handles and their errors; its timings are single claims
    "07": [figure("lab07_granule", kinds.draw_lines, "07.3",
                  "lab-07: how far cudaMemGetInfo's free figure falls while one cudaMalloc "
                  "of each size is held",
                  series="free_drop_by_request", facts="granule_mib tiny_drop_mib"),
           figure("lab07_pool", kinds.draw_boxes, "07.4",
                  "lab-07: microseconds per 2 MiB block, cudaMalloc + cudaFree vs a warm "
                  "pool (threshold UINT64_MAX)",
                  series="malloc_free_2mib pool_2mib_threshold_max"),
           figure("lab07_threshold", kinds.draw_boxes, "07.5",
                  "lab-07: the next 2 MiB pool allocation after a synchronisation, at the "
                  "default and at the highest release threshold",
                  series="next_2mib_threshold_default next_2mib_threshold_max")],
    "08": [figure("lab08_chase", kinds.draw_lines, "08.1",
                  "lab-08: a random pointer chase, ns per load on 4 KiB and 2 MiB pages "
                  "vs working set", series="chase_4k chase_2m",
                  labels={"chase_4k": "4 KiB pages", "chase_2m": "2 MiB huge pages (THP)"}),
           figure("lab08_register", kinds.draw_boxes, "08.3",
                  "lab-08: cudaHostRegister, ms per GiB on 4 KiB and on 2 MiB pages",
                  series="register_4k_ms_per_gib register_2m_ms_per_gib")],
    "09": [figure("lab09_pairs", lab09_pairs.draw, "09.1 09.2",
                  "lab-09: one-way copy rate of every ordered GPU pair, with and without "
                  "peer access"),
           figure("lab09_rate", kinds.draw_lines, "09.1 09.2",
                  "lab-09: GPU-to-GPU copy rate by size, per pair and path", series="p2p_*")],
    "10": [figure("lab10_paths", lab10_paths.draw, "10.1 10.2 10.3",
                  "lab-10: GB/s from a file by path (into GPU memory where a GPU ran), "
                  "vs the device",
                  series="raw_odirect_host buffered_host posix_pageable odirect_pinned "
                  "odirect_pinned_overlap cufile", facts="device_read_gbs pcie_theoretical_gbs")],
    "11": [figure("lab11_crossover", lab11_crossover.draw, "11.4",
                  "lab-11: swap-back and recompute time by context length, chapter and "
                  "this machine")],
}


def series_figure(lab_id):
    """The figure of a lab FIGURES does not know: every series it recorded."""
    return figure("lab%s_series" % lab_id, kinds.draw_lines, "",
                  "lab-%s: every series it recorded" % lab_id, series="*")


def lab_figures(lab):
    if lab["id"] in FIGURES:
        return FIGURES[lab["id"]]
    return [series_figure(lab["id"])] if lab["series"] else []


def figures(res):
    """The figures of the labs in the results, in the order of their ids."""
    labs = sorted((lab for lab in res.get("labs", []) if isinstance(lab.get("id"), str)),
                  key=lambda lab: lab["id"])
    return [dict(f, lab=lab["id"]) for lab in labs for f in lab_figures(lab)]


def remove_old(outdir, name):
    """A figure not drawn this time must not leave last run's image behind;
    "" or "PATH: reason" when an old image stays."""
    for ext in ("png", "svg"):
        path = os.path.join(outdir, "%s.%s" % (name, ext))
        try:
            os.remove(path)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError as e:
            return "%s: %s (last run's image stays)" % (path, e.strerror or e)
    return ""


def draw_one(decl, res, outdir):
    """(status, detail): ("drawn", [paths]), ("not drawn", reason) or
    ("not written", "PATH: reason")."""
    try:
        return "drawn", decl["draw"](res, outdir, decl)
    except C.NotWritten as e:
        return "not written", str(e)
    except C.NotDrawn as e:
        reason = str(e)
    except Exception as e:  # a bug in a figure must not stop the others
        if os.environ.get("DMALAB_PLOTS_DEBUG"):
            traceback.print_exc()
        reason = "broke: %s: %s (DMALAB_PLOTS_DEBUG=1 shows where)" % (type(e).__name__, e)
    C.plt.close("all")
    stale = remove_old(outdir, decl["name"])
    return ("not written", stale) if stale else ("not drawn", reason)


def run(res, outdir, out=sys.stdout, names=()):
    """Draw every figure (those named, when names); return [(name, caption,
    status, detail)]."""
    if not res.get("labs"):
        print("plots: the results list no labs: nothing to draw", file=out)
    done = []
    for decl in [f for f in figures(res) if not names or f["name"] in names]:
        status, detail = draw_one(decl, res, outdir)
        done.append((decl["name"], decl["title"], status, detail))
        if status == "drawn":
            print("plots: %-20s drawn: %s" % (decl["name"], ", ".join(detail)), file=out)
        elif status == "not written":
            print("plots: cannot write %s" % detail, file=sys.stderr)
        else:
            print("plots: %-20s not drawn: %s" % (decl["name"], detail), file=out)
    n = sum(1 for d in done if d[2] == "drawn")
    bad = unwritten(done)
    print("plots: %d drawn, %d not drawn%s, into %s" % (
        n, len(done) - n - bad, ", %d not written" % bad if bad else "", outdir), file=out)
    return done


def unwritten(done):
    """How many figures could not be written (an error, not a missing figure)."""
    return sum(1 for d in done if d[2] == "not written")


def main(argv):
    if len(argv) < 2:
        print("usage: make_plots.py RESULTS.json [OUTDIR [NAME...]]", file=sys.stderr)
        return 2
    outdir = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(argv[1]) or ".", "plots")
    try:
        res = C.load(argv[1])
    except C.BadResults as e:
        print("plots: %s" % e, file=sys.stderr)
        return 2
    unknown = set(argv[3:]) - {f["name"] for f in figures(res)}
    if unknown:
        print("plots: no figure %s in %s" % (", ".join(sorted(unknown)), argv[1]),
              file=sys.stderr)
        return 2
    return 1 if unwritten(run(res, outdir, names=argv[3:])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
