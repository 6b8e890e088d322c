"""lab-05: what a page costs the first time it is touched, in us per 4 KiB
page made resident: CPU first touch, GPU demand faults on managed memory at
three strides, prefetch, and memory already on the GPU.  Boxes hold every
sample; the chapter's figures are the dotted marks."""

import common as C
import lab05_common as U

CHAPTER_CPU = (1.0, 2.0)            # ch2.S4: "about 1-2 us" per 4 KiB CPU fault
CHAPTER_GPU_4K = 10.0 / 16          # ch2.S4: "about 10 us" per 64 KiB GPU fault


def cpu_boxes(lab):
    st = C.claim_stats(lab, "cpu_us_per_page")
    return [(C.T("plot.l05-cpu-box", "CPU first touch\n(4 KiB pages)"), st)] if st else []


def gpu_boxes(lab, missing):
    bytes_ = U.region_bytes(lab)
    cases, absent = U.gpu_cases(lab)
    if not cases:
        missing.append("GPU cases (%s)" % C.why_not(lab, ["05.2"], "no um_* statistics"))
        return []
    missing += [n for n in absent if n != "um_resident_4k"]  # only some builds time it
    if not bytes_:
        missing.append("the managed region's size (um_region_bytes, gpu_us_per_64k)")
        return []
    pages = bytes_ / U.PAGE
    return [(label, C.scaled(st, 1e6 / pages, "us")) for _, label, st in cases]


def draw_marks(ax, labels):
    cpu = [i + 1 for i, lb in enumerate(labels) if lb.startswith("CPU")]
    gpu = [i + 1 for i, lb in enumerate(labels) if not lb.startswith("CPU")]
    if cpu:
        ax.fill_between([min(cpu) - 0.4, max(cpu) + 0.4], *CHAPTER_CPU, color="0.5",
                        alpha=0.15, label=C.T("plot.l05-chapter-cpu",
                                              "chapter: CPU fault 1-2 us per 4 KiB"))
    if gpu:
        ax.plot([min(gpu) - 0.4, max(gpu) + 0.4], [CHAPTER_GPU_4K] * 2, color="0.35",
                linestyle=":", label=C.T("plot.l05-chapter-gpu", "chapter: GPU fault 10 us per "
                                         "64 KiB\n(= 0.625 us per 4 KiB)"))


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    missing = []
    boxes = cpu_boxes(lab) + gpu_boxes(lab, missing)
    if not boxes:
        raise C.no_data(lab, decl,
                        "lab-05 recorded neither cpu_us_per_page nor GPU fault timings")
    labels = [b[0] for b in boxes]
    fig, axes = C.new_figure(1, width=max(6.5, 1.6 * len(boxes) + 2), height=5.4)
    ax = axes[0]
    C.boxes(ax, labels, [b[1]["samples"] for b in boxes], fontsize=8)
    thp = C.fact(lab, "cpu_thp_us_per_4k")
    if thp is not None and boxes[0][0].startswith("CPU"):
        ax.plot([1], [thp], marker="^", color="tab:orange", linestyle="none",
                label=C.T("plot.l05-cpu-thp", "CPU first touch with THP (median)"))
    draw_marks(ax, labels)
    C.plain_log_y(ax)
    ax.set_ylabel(C.T("plot.per-page", "time per 4 KiB page made resident (us, log)"))
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    notes = ["boxes: quartiles of every sample, whiskers min-max; GPU cases are the "
             "kernel's time over the whole managed region / its 4 KiB pages"]
    return C.done(fig, res, decl, outdir, notes, missing)
