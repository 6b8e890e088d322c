"""lab-03: how long cudaMemcpyAsync keeps the calling thread, against how
long the copy itself runs, by transfer size.  A pageable call that returns
only when its copy is done draws on top of its copy; a pinned call that
returns at once draws orders of magnitude below it."""

import common as C

WAYS = [("pageable", "pageable, idle stream", "tab:red"),
        ("pinned", "pinned, queued behind a kernel", "tab:blue"),
        ("pinned_idle", "pinned, idle stream", "tab:cyan"),
        ("pageable_queued", "pageable, queued behind a kernel", "tab:orange")]


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    fig, axes = C.new_figure(1, width=8.4, height=5.4)
    ax = axes[0]
    missing, xs = [], []
    for way, label, color in WAYS:
        call = C.series(lab, "call_" + way)
        copy = C.series(lab, "copy_" + way)
        for kind, pts, style in (("call", call, "-"), ("copy", copy, "--")):
            if not pts:
                missing.append("%s_%s" % (kind, way))
                continue
            us = [(x, C.scaled(st, 1e6, "us")) for x, st in pts]
            C.band(ax, us, "%s: %s" % (kind, label), color=color, linestyle=style)
            xs += [p[0] for p in pts]
    if not xs:
        raise C.no_data(lab, decl, "lab-03 recorded no call_*/copy_* series", fig)
    C.plain_log_y(ax)
    C.log2_bytes_axis(ax, xs)
    ax.set_xlabel(C.T("plot.size-log2", "transfer size (bytes, log2)"))
    ax.set_ylabel(C.T("plot.time-us-log", "time (us, log)"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    notes = ["solid: host wall time inside the cudaMemcpyAsync call; dashed: the "
             "copy's own time (CUDA events); shaded: min-max of the samples",
             "chapter (ch1.Q2): a pageable async copy blocks the caller, a pinned one "
             "returns at once"]
    return C.done(fig, res, decl, outdir, notes, missing)
