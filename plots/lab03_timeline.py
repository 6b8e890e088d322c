"""lab-03: a timeline per case (pageable copy, pinned copy, copy beside a
kernel, the buffer-reuse race, the two-buffer fix): when the host thread was
held, when the copy ran, when the kernel ran.

lab-03 records durations (medians with every sample), not timestamps, so
each bar is a measured duration placed where the lab issued it: work starts
when it is issued, or right after what it was queued behind.  The bar's
whisker is the min-max of its samples.  Cases whose durations are missing
are listed in the footnote with the reason.
"""

import common as C

LANES = ["host thread", "copy (DMA)", "kernel"]
COLORS = {"host thread": "tab:red", "copy (DMA)": "tab:blue", "kernel": "tab:green"}


def bar(lane, start, st, label):
    """A bar of a measured duration (statistics in seconds)."""
    return {"lane": lane, "start": start, "len": st["median"],
            "lo": st["min"], "hi": st["max"], "label": label}


def fixed(lane, start, length, label):
    return {"lane": lane, "start": start, "len": length, "lo": length,
            "hi": length, "label": label}


def largest_common(lab, names):
    """Statistics of several series at the largest size they all have."""
    pts = [dict(C.series(lab, n)) for n in names]
    common = set(pts[0]).intersection(*pts[1:]) if all(pts) else set()
    if not common:
        return None, None
    x = max(common)
    return x, [p[x] for p in pts]


def call_case(lab, way, title):
    x, st = largest_common(lab, ["call_" + way, "copy_" + way])
    if st is None:
        return None, "no call_%s/copy_%s series" % (way, way)
    call, copy = st
    return {"title": "%s, %s H2D" % (title, C.fmt_bytes(x)),
            "bars": [bar("host thread", 0, call, "in cudaMemcpyAsync"),
                     bar("copy (DMA)", 0, copy, "copy")]}, None


def overlap_case(lab, order):
    kernel = C.claim_stats(lab, "overlap_kernel")
    copy = C.claim_stats(lab, "overlap_copy_pinned")
    both = C.claim_stats(lab, "overlap_both_pinned_%s_first" % order)
    if not (kernel and copy and both):
        return None, "overlap_kernel/overlap_copy_pinned/overlap_both_pinned_%s_first " \
            "not recorded" % order
    first, second = (copy, kernel) if order == "copy" else (kernel, copy)
    lanes = ("copy (DMA)", "kernel") if order == "copy" else ("kernel", "copy (DMA)")
    # the second item ends when both are done: wall time of the pair
    start2 = max(0.0, both["median"] - second["median"])
    return {"title": "pinned copy and a kernel on two streams, %s issued first" % order,
            "bars": [bar(lanes[0], 0, first, "issued first"),
                     bar(lanes[1], start2, second, "ends with the pair")]}, None


def race_case(lab):
    rewrite = C.fact(lab, "race_rewrite_s")
    torn = C.fact(lab, "race_torn_words")
    if rewrite is None:
        return None, "race_rewrite_s not recorded"
    bars = [fixed("host thread", 0, rewrite, "rewrites the buffer (%s torn words)" %
                  ("?" if torn is None else "%d" % torn))]
    spin, copy = C.fact(lab, "race_spin_s"), C.claim_stats(lab, "loop_copy_pinned")
    note = None
    if spin is not None:
        bars.append(fixed("kernel", 0, spin, "spin kernel queued in front of the copy"))
        if copy:
            bars.append(bar("copy (DMA)", spin, copy, "copy: reads the rewritten data"))
    else:
        note = "the race: the spin kernel's length is not recorded (no race_spin_s fact)"
    return {"title": "the race: pinned buffer rewritten while its copy waits", "bars": bars,
            "note": note}, None


def loop_case(lab, kind):
    step = C.fact(lab, "loop_step_%s_s" % kind)
    nocopy = C.fact(lab, "loop_step_%s_nocopy_s" % kind)
    copy = C.claim_stats(lab, "loop_copy_%s" % kind)
    if step is None or nocopy is None or copy is None:
        return None, "loop_step_%s_s/loop_step_%s_nocopy_s/loop_copy_%s not recorded" % (
            kind, kind, kind)
    bars = []
    for n in range(3):
        t0 = n * step
        bars.append(bar("copy (DMA)", t0, copy, "copy" if n == 0 else ""))
        host0 = t0 + (copy["median"] if kind == "pageable" else 0)
        if kind == "pageable":
            bars.append(bar("host thread", t0, copy, "held by the copy" if n == 0 else ""))
        bars.append(fixed("kernel", host0, nocopy, "rewrite + compute" if n == 0 else ""))
    hidden = C.fact(lab, "loop_hidden_%s" % kind)
    what = "two pinned buffers, wait on the event" if kind == "pinned" else "pageable buffers"
    return {"title": "the fix (%s): steps every %.0f us, %s of the copy hidden" % (
        what, step * 1e6, "?" if hidden is None else "%.0f %%" % (hidden * 100)),
        "bars": bars}, None


def cases(lab):
    makers = [lambda: call_case(lab, "pageable", "pageable"),
              lambda: call_case(lab, "pinned_idle", "pinned"),
              lambda: overlap_case(lab, "copy"), lambda: overlap_case(lab, "kernel"),
              lambda: race_case(lab),
              lambda: loop_case(lab, "pinned"), lambda: loop_case(lab, "pageable")]
    got, missing = [], []
    for make in makers:
        case, why = make()
        (got.append(case) if case else missing.append(why))
    return got, missing


def draw_case(ax, case):
    end = max([b["start"] + b["hi"] for b in case["bars"]] + [1e-9])
    k, unit = (1e3, "ms") if end >= 1e-3 else (1e6, "us")
    for b in case["bars"]:
        y = LANES.index(b["lane"])
        color = COLORS[b["lane"]]
        ax.broken_barh([(b["start"] * k, max(b["len"] * k, end * k * 0.002))],
                       (y - 0.35, 0.7), color=color, alpha=0.75)
        if b["hi"] > b["lo"]:
            ax.plot([(b["start"] + b["lo"]) * k, (b["start"] + b["hi"]) * k], [y, y],
                    color="black", linewidth=1)
        if b["label"]:  # inside the bar, from its start
            ax.text(b["start"] * k + end * k * 0.005, y, b["label"], fontsize=7,
                    va="center", ha="left")
    ax.set_yticks(range(len(LANES)))
    ax.set_yticklabels(LANES, fontsize=8)
    ax.set_ylim(-0.6, len(LANES) - 0.1)
    ax.invert_yaxis()
    ax.set_xlim(0, end * k * 1.05)
    ax.set_xlabel(C.T("plot.since-issue", "time since the first issue (%s)") % unit, fontsize=8)
    ax.set_title(case["title"], fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    got, missing = cases(lab)
    if not got:
        raise C.no_data(lab, decl, "lab-03 recorded none of: " + "; ".join(missing))
    fig, axes = C.plt.subplots(len(got), 1, figsize=(9, 1.9 * len(got) + 1.6), squeeze=False)
    for ax, case in zip(axes[:, 0], got):
        draw_case(ax, case)
    notes = ["reconstructed from measured durations (lab-03 records no timestamps): "
             "bars start when issued or after what they queue behind; whisker: min-max"]
    notes += [c["note"] for c in got if c.get("note")]
    if missing:
        notes.append("not drawn: " + "; ".join(missing))
    return C.done(fig, res, decl, outdir, notes)
