"""The figures drawn without code of their own: make_plots.FIGURES names
their series and facts, and these draw them.

  lines  every series named (a name ending in '*' matches a prefix) as its
         median against x with the min-max band of its samples; x on a
         log-2 axis of bytes when the series' x_unit is "bytes"
  boxes  every statistics object named (attached to any claim of the lab)
         as a box of every sample, side by side

Both draw each fact named as a dashed horizontal line labelled with its
name and value.
"""
import common as C


def fact_lines(ax, lab, decl, missing):
    for name in decl["facts"]:
        v = C.fact(lab, name)
        if v is None:
            missing.append(name)
            continue
        C.ref_hline(ax, v, "%s: %g" % (name, v))


def y_unit(units):
    got = sorted({u for u in units if u})
    return " or ".join(got) if got else "value"


def draw_lines(res, outdir, decl):
    """The legend shows decl's "labels" ({series name: words}) where it has
    them, else the series' names."""
    labels = decl.get("labels") or {}
    lab = C.find_lab(res, decl["lab"])
    names = C.expand(decl["series"], C.series_names(lab))
    fig, axes = C.new_figure(1, width=8.4, height=5.2)
    ax = axes[0]
    missing, xs, units, bytes_x = [], [], [], True
    for name in names:
        pts = C.series(lab, name)
        if not pts:
            missing.append(name)
            continue
        C.band(ax, pts, labels.get(name, name))
        xs += [p[0] for p in pts]
        units.append(pts[0][1]["unit"])
        bytes_x &= (lab["series"].get(name) or {}).get("x_unit") == "bytes"
    if not xs:
        raise C.no_data(lab, decl, "lab-%s recorded none of the series %s" % (
            decl["lab"], " ".join(decl["series"])), fig)
    if bytes_x and min(xs) > 0:
        C.log2_bytes_axis(ax, xs)
        ax.set_xlabel(C.T("plot.bytes-log2", "bytes (log2)"))
    fact_lines(ax, lab, decl, missing)
    ax.set_ylabel(y_unit(units))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    notes = ["shaded: min-max of every sample at each point; line: median"]
    return C.done(fig, res, decl, outdir, notes, missing)


def claim_stat_names(lab):
    return [st.get("name") for c in lab.get("claims") or [] if isinstance(c, dict)
            for st in c.get("stats") or [] if isinstance(st, dict) and st.get("name")]


def draw_boxes(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    got, missing = [], []
    for name in C.expand(decl["series"], claim_stat_names(lab)):
        st = C.claim_stats(lab, name)
        (got.append((name, st)) if st else missing.append(name))
    if not got:
        raise C.no_data(lab, decl, "lab-%s recorded none of the statistics %s" % (
            decl["lab"], " ".join(decl["series"])))
    fig, axes = C.new_figure(1, width=max(6.5, 1.6 * len(got) + 2), height=5.2)
    ax = axes[0]
    C.boxes(ax, [name for name, _ in got], [st["samples"] for _, st in got], fontsize=8,
            rotation=20, ha="right")
    fact_lines(ax, lab, decl, missing)
    ax.set_ylabel(y_unit(st["unit"] for _, st in got))
    ax.grid(True, axis="y", alpha=0.3)
    notes = ["boxes: quartiles of every sample, whiskers min-max"]
    return C.done(fig, res, decl, outdir, notes, missing)
