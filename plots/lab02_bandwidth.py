"""lab-02: copy bandwidth vs transfer size, H2D and D2H, one line per kind
of host memory, with the PCIe link's theoretical rate and one CPU thread's
memcpy rate as dashed ceilings and the chapter's two figures as marks."""

import common as C

# a marker each: pinned, registered and write-combined often draw on top of each other
KINDS = [("pageable", "pageable (malloc)", "o"), ("pinned", "pinned (cudaHostAlloc)", "s"),
         ("registered", "registered (cudaHostRegister)", "^"), ("wc", "write-combined", "x")]
DIRS = [("h2d", "host to device (H2D)"), ("d2h", "device to host (D2H)")]
# ch2.S2 (claim 02.2): "pinned about 12 GB/s, pageable about 6 GB/s", H2D
CHAPTER_H2D = [(12.0, "chapter: pinned 12 GB/s", "plot.ch-pinned"),
               (6.0, "chapter: pageable 6 GB/s", "plot.ch-pageable")]


def link_rate(res, lab):
    """Theoretical one-direction rate of the lab's GPU link (GB/s) and why."""
    v = C.fact(lab, "pcie_theoretical_gbs")
    if v:
        return v, "PCIe Gen%s x%s" % (fmt_int(C.fact(lab, "pcie_gen_max")),
                                      fmt_int(C.fact(lab, "pcie_width_max")))
    bdf = C.fact_str(lab, "gpu_pci_bus_id")
    gpus = [g for g in (res.get("machine") or {}).get("gpus") or [] if isinstance(g, dict)]
    match = [g for g in gpus if bdf and g.get("bdf") == bdf] or gpus[:1]
    for g in match:
        v = C.num(g.get("pcie_max_rate_gbs"))
        if v:
            return v, "PCIe Gen%s x%s" % (g.get("pcie_gen_max"), g.get("pcie_width_max"))
    return None, None


def fmt_int(v):
    return "?" if v is None else "%d" % v


def memcpy_rate(lab):
    pts = C.series(lab, "host_memcpy")
    if pts:
        return pts[-1][1]["median"]
    return C.fact(lab, "host_memcpy_gbs")


def draw_direction(ax, lab, d, title, missing):
    xs = []
    for kind, label, marker in KINDS:
        pts = C.series(lab, "%s_%s" % (d, kind))
        if not pts:
            missing.append("%s_%s" % (d, kind))
            continue
        C.band(ax, pts, C.T("plot.kind-" + kind, label), marker=marker)
        xs += [p[0] for p in pts]
    C.log2_bytes_axis(ax, xs)
    ax.set_title(C.T("plot.dir-" + d, title), fontsize=10)
    ax.set_xlabel(C.T("plot.size-log2", "transfer size (bytes, log2)"))
    ax.set_ylabel(C.T("plot.bandwidth", "bandwidth (GB/s, 1 GB = 1e9 B)"))
    ax.grid(True, alpha=0.3)
    return bool(xs)


def draw_ceilings(ax, res, lab, d):
    rate, what = link_rate(res, lab)
    if rate:
        C.ref_hline(ax, rate, C.T("plot.theoretical", "%s theoretical: %.1f GB/s") % (what, rate),
                    color="tab:red")
    mc = memcpy_rate(lab)
    if mc:
        C.ref_hline(ax, mc, C.T("plot.memcpy", "one-thread memcpy: %.1f GB/s") % mc,
                    color="tab:purple")
    if d == "h2d":
        for y, text, msg_id in CHAPTER_H2D:  # left: the ceilings' labels are on the right
            C.ref_hline(ax, y, C.T(msg_id, text), color="0.45", style=":", left=True)
    return rate, mc


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    fig, axes = C.new_figure(2)
    missing, drawn = [], 0
    rate = mc = None
    for ax, (d, title) in zip(axes, DIRS):
        if draw_direction(ax, lab, d, title, missing):
            drawn += 1
            rate, mc = draw_ceilings(ax, res, lab, d)
    if not drawn:
        raise C.no_data(lab, decl, "lab-02 recorded no h2d_*/d2h_* series", fig)
    axes[0].legend(fontsize=8, loc="upper left")
    notes = ["shaded: min-max of every sample at each size; line: median"]
    if not rate:
        notes.append("link rate unknown: no pcie_theoretical_gbs fact, no GPU link in machine")
    if not mc:
        notes.append("one-thread memcpy rate not recorded (host_memcpy)")
    return C.done(fig, res, decl, outdir, notes, missing)
