"""lab-09: the pair matrix, as nvidia-smi topo -m lays it out: one cell per
ordered pair (row: the GPU that sends, column: the one that receives), the
one-way copy rate at the largest size in GB/s, with peer access and without
it, side by side.  A pair the lab did not measure, or whose data arrived
wrong (its rate did not count), is left blank."""
import math

import common as C

PANELS = [("peer_gbs", "with peer access"), ("host_gbs", "without peer access (through the host)")]


def matrix(lab, what, n):
    cells = [[math.nan] * n for _ in range(n)]
    for a in range(n):
        for b in range(n):
            v = C.fact(lab, "pair_%d_%d_%s" % (a, b, what))
            if a != b and v is not None and v > 0:
                cells[a][b] = v
    return cells


def draw_panel(ax, cells, title, top):
    n = len(cells)
    im = ax.imshow(cells, cmap="viridis", vmin=0, vmax=top)
    for a in range(n):
        for b in range(n):
            v = cells[a][b]
            text = "X" if a == b else ("-" if math.isnan(v) else "%.0f" % v)
            ax.text(b, a, text, ha="center", va="center", fontsize=9,
                    color="black" if math.isnan(v) or v >= 0.6 * top else "white")
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xticklabels(["GPU%d" % i for i in range(n)])
    ax.set_yticklabels(["GPU%d" % i for i in range(n)])
    ax.set_xlabel(C.T("plot.receives", "receives"))
    ax.set_ylabel(C.T("plot.sends", "sends"))
    ax.set_title(title, fontsize=10)
    return im


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    n = int(C.fact(lab, "gpu_count") or 0)
    panels = [(matrix(lab, what, n), C.T("plot." + what, title)) for what, title in PANELS] \
        if n >= 2 else []
    values = [v for cells, _ in panels for row in cells for v in row if not math.isnan(v)]
    if not values:
        raise C.NotDrawn("no pair measured: " + C.why_not(
            lab, decl["claims"], "no pair_*_gbs facts recorded"))
    fig, axes = C.new_figure(2, width=5.0 * 2 + 1.2)
    for ax, (cells, title) in zip(axes, panels):
        im = draw_panel(ax, cells, title, max(values))
    fig.colorbar(im, ax=axes[-1], label=C.T("plot.one-way", "one-way copy rate (GB/s)"), shrink=0.8)
    notes = ["largest size of the sweep; '-': not measured, or its data arrived wrong"]
    return C.done(fig, res, decl, outdir, notes)
