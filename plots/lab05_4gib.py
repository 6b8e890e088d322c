"""lab-05: 4 GiB of managed memory moved to the GPU, scaled from the measured
region: by demand faults at each stride and by cudaMemPrefetchAsync, against
the chapter's 655 ms (65,536 faults of 64 KiB at 10 us each)."""

import common as C
import lab05_common as U

CHAPTER_MS = 655.0
WANTED = ("um_demand_4k", "um_demand_64k", "um_demand_2m", "um_prefetch_then_4k")


def boxes(lab, missing):
    bytes_ = U.region_bytes(lab)
    cases, absent = U.gpu_cases(lab)
    missing += [n for n in absent if n in WANTED]
    cases = [c for c in cases if c[0] in WANTED]
    if cases and bytes_:
        k = 1e3 * 4 * C.GiB / bytes_
        return [(label, C.scaled(st, k, "ms")) for _, label, st in cases], bytes_
    ms = C.fact(lab, "um_4gib_extrapolated_ms")
    if ms is not None:  # the lab's own figure, without its samples
        missing.append("the region's size (spread not drawn)")
        one = {"median": ms, "min": ms, "max": ms, "samples": [ms]}
        return [("GPU demand faults,\nstride 64 KiB", one)], None
    return [], None


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    missing = []
    got, bytes_ = boxes(lab, missing)
    if not got:
        raise C.no_data(lab, decl, "lab-05 recorded no GPU fault timings (%s)" % (
            ", ".join(missing)))
    fig, axes = C.new_figure(1, width=max(6.5, 1.8 * len(got) + 2.5), height=5.2)
    ax = axes[0]
    C.boxes(ax, [b[0] for b in got], [b[1]["samples"] for b in got], fontsize=8)
    for i, (_, st) in enumerate(got):
        ax.annotate("%.0f ms" % st["median"], xy=(i + 1.28, st["median"]), fontsize=8,
                    va="center")
    C.ref_hline(ax, CHAPTER_MS, C.T("plot.l05-chapter-4gb", "chapter: 4 GB in about 655 ms"),
                color="tab:red")
    first = C.fact(lab, "um_first_touch_4k_s")
    if first is not None and bytes_ and got[0][0].endswith("stride 4 KiB"):
        ax.plot([1], [first * 1e3 * 4 * C.GiB / bytes_], marker="^", color="tab:orange",
                linestyle="none", label=C.T("plot.l05-first-touch", "very first GPU touch "
                                            "after the CPU's memset (once)"))
        ax.legend(fontsize=8, loc="upper right", bbox_to_anchor=(1, 0.9))
    ax.set_ylabel(C.T("plot.time-4gib", "time for 4 GiB (ms)"))
    top = max([b[1]["max"] for b in got] + [CHAPTER_MS])
    ax.set_ylim(0, top * 1.25)  # room for the chapter's label and the legend
    ax.grid(True, axis="y", alpha=0.3)
    notes = ["scaled from a %s region (x %.1f); boxes: every sample, whiskers min-max" % (
        C.fmt_bytes(bytes_), 4 * C.GiB / bytes_) if bytes_ else
        "the lab's extrapolated figure only"]
    return C.done(fig, res, decl, outdir, notes, missing)
