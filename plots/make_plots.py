"""Draw every figure a results file can give: `make plots`.

usage: make_plots.py RESULTS.json [OUTDIR]

Prints one line per figure, drawn or not drawn with the reason, and a
totals line.  Exit 0 when the file could be read (even if no figure could be
drawn), 2 when it cannot be used (missing, not JSON, unknown schema).
Set DMALAB_PLOTS_DEBUG=1 to see the traceback of a figure that broke.
"""
import os
import sys
import traceback

import common as C
import lab02_bandwidth
import lab03_calls
import lab03_timeline
import lab04_latency
import lab04_local_remote
import lab05_4gib
import lab05_faults

# (module, one-line caption): the order of the report
FIGURES = [
    (lab02_bandwidth, "lab-02: H2D and D2H bandwidth by transfer size and kind of host memory"),
    (lab03_calls, "lab-03: time in the cudaMemcpyAsync call vs the copy's own time"),
    (lab03_timeline, "lab-03: when the host thread, the copy and the kernel ran, per case"),
    (lab04_latency, "lab-04: pointer-chase latency vs working set, per memory node"),
    (lab04_local_remote, "lab-04: local vs remote node, latency and read bandwidth"),
    (lab05_faults, "lab-05: first-touch cost per 4 KiB page, CPU and GPU"),
    (lab05_4gib, "lab-05: 4 GiB of managed memory to the GPU vs the chapter's 655 ms"),
]


def remove_old(outdir, name):
    """A figure not drawn this time must not leave last run's image behind."""
    for ext in ("png", "svg"):
        try:
            os.remove(os.path.join(outdir, "%s.%s" % (name, ext)))
        except FileNotFoundError:
            pass


def draw_one(mod, res, outdir):
    """(status, detail): ("drawn", [paths]) or ("not drawn", reason)."""
    try:
        return "drawn", mod.draw(res, outdir)
    except C.NotDrawn as e:
        reason = str(e)
    except Exception as e:  # a bug in a figure must not stop the others
        if os.environ.get("DMALAB_PLOTS_DEBUG"):
            traceback.print_exc()
        reason = "broke: %s: %s (DMALAB_PLOTS_DEBUG=1 shows where)" % (type(e).__name__, e)
    C.plt.close("all")
    remove_old(outdir, mod.NAME)
    return "not drawn", reason


def run(res, outdir, out=sys.stdout):
    """Draw every figure; return [(name, caption, status, detail)]."""
    if not res.get("labs"):
        print("plots: the results list no labs: nothing to draw", file=out)
    done = []
    for mod, caption in FIGURES:
        status, detail = draw_one(mod, res, outdir)
        done.append((mod.NAME, caption, status, detail))
        if status == "drawn":
            print("plots: %-20s drawn: %s" % (mod.NAME, ", ".join(detail)), file=out)
        else:
            print("plots: %-20s not drawn: %s" % (mod.NAME, detail), file=out)
    n = sum(1 for d in done if d[2] == "drawn")
    print("plots: %d drawn, %d not drawn, into %s" % (n, len(done) - n, outdir), file=out)
    return done


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: make_plots.py RESULTS.json [OUTDIR]", file=sys.stderr)
        return 2
    outdir = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(argv[1]) or ".", "plots")
    try:
        res = C.load(argv[1])
    except C.BadResults as e:
        print("plots: %s" % e, file=sys.stderr)
        return 2
    run(res, outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
