"""Draw every figure a results file can give: `make plots`.

usage: make_plots.py RESULTS.json [OUTDIR]

Which figures there are is each lab's word: its spec declares them (lab.h,
struct lab_figure) and --describe prints them; this script asks the built
labs ($DMALAB_LABS_DIR, else build/labs) and keeps no list of its own.  A
figure of kind "lines" or "boxes" is drawn by kinds.py; any other kind names
a module of plots/ with a draw(res, outdir, decl) of its own.

Prints one line per figure, drawn or not drawn with the reason, and a
totals line; a figure whose file cannot be written (a read-only or full
directory) is an error, one line on stderr with the path and the reason.
Exit 0 when every figure drawn was written (even if none could be drawn), 1
when one could not be written, 2 when the results file cannot be used
(missing, not JSON, unknown schema).
Set DMALAB_PLOTS_DEBUG=1 to see the traceback of a figure that broke.
"""
import importlib
import os
import sys
import traceback

import common as C
import kinds


def drawer(kind):
    """The draw function of a kind, or None: kinds.py's, or a plots/ module's."""
    if kind in kinds.DRAWERS:
        return kinds.DRAWERS[kind]
    if not C.NAME_RE.match(kind) or not os.path.exists(os.path.join(C.PLOTS_DIR, kind + ".py")):
        return None
    return getattr(importlib.import_module(kind), "draw", None)


def figures(res):
    """The figures the labs declare for this results file (common.py)."""
    return C.declared_figures(res)[0]


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
        draw = drawer(decl["kind"])
        if not draw:
            raise C.NotDrawn("lab-%s declares kind %r, which plots/ does not draw (lines, "
                             "boxes, or a module plots/%s.py)" % (decl["lab"], decl["kind"],
                                                                decl["kind"]))
        return "drawn", draw(res, outdir, decl)
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


def run(res, outdir, out=sys.stdout):
    """Draw every figure; return [(name, caption, status, detail)]."""
    if not res.get("labs"):
        print("plots: the results list no labs: nothing to draw", file=out)
    decls, notes = C.declared_figures(res)
    for note in notes:
        print("plots: %s" % note, file=out)
    done = []
    for decl in decls:
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
    if len(argv) not in (2, 3):
        print("usage: make_plots.py RESULTS.json [OUTDIR]", file=sys.stderr)
        return 2
    outdir = argv[2] if len(argv) == 3 else os.path.join(os.path.dirname(argv[1]) or ".", "plots")
    try:
        res = C.load(argv[1])
    except C.BadResults as e:
        print("plots: %s" % e, file=sys.stderr)
        return 2
    return 1 if unwritten(run(res, outdir)) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
