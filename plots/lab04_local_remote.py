"""lab-04: local vs remote memory, side by side: load latency at the large
working set and one thread's read bandwidth, each a box of every sample,
with the chapter's figures as marks.  Needs two memory nodes."""

import common as C

PANELS = [("latency_large", "load latency at the large working set", "ns",
           {"local": 121.0, "remote": 186.0}),
          ("read", "one-thread read bandwidth", "GB/s",
           {"local": 17.7, "remote": 14.3})]


def pair(lab, base):
    return C.claim_stats(lab, base + "_local"), C.claim_stats(lab, base + "_remote")


def draw_panel(ax, local, remote, title, unit, chapter):
    C.boxes(ax, ["local node", "remote node"], [local["samples"], remote["samples"]])
    for i, where in enumerate(("local", "remote")):
        ax.plot([i + 0.7, i + 1.3], [chapter[where]] * 2, color="0.4", linestyle=":")
        ax.annotate("chapter %g" % chapter[where], xy=(i + 0.7, chapter[where]),
                    xytext=(0, 2), textcoords="offset points",
                    fontsize=7, color="0.4", va="bottom", ha="left")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel("%s (%s)" % (C.T("plot.latency", "latency") if unit == "ns" else
                               C.T("plot.bandwidth-word", "bandwidth"), unit))
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    have = [(p, pair(lab, p[0])) for p in PANELS]
    have = [(p, st) for p, st in have if st[0] and st[1]]
    if not have:
        raise C.NotDrawn("no remote node measured: " + C.why_not(
            lab, decl["claims"], "no *_local/*_remote statistics recorded"))
    fig, axes = C.new_figure(len(have), width=5.2 * len(have))
    for ax, ((key, title, unit, chapter), (local, remote)) in zip(axes, have):
        draw_panel(ax, local, remote, C.T("plot." + key, title), unit, chapter)
    notes = ["boxes: quartiles of every sample, whiskers min-max; dotted: the chapter's figure"]
    return C.done(fig, res, decl, outdir, notes)
