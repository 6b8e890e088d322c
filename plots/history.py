"""history.py HISTORY.json OUTDIR - per GPU of `dmalab history --json`, the
figures that left their band (or, where none did, the GPU's rates), each as a
line over the runs with the band the latest run was held against.  One PNG
and SVG per GPU, history-<n>; prints the paths written."""
import json
import sys

import common as C

RATE_UNITS = ("GB/s", "GiB/s", "TFLOP/s")
MAX_PANELS = 4


def chosen(gpu):
    moved = [f for f in gpu["figures"] if f["verdict"] != "ok"]
    rates = [f for f in gpu["figures"] if f["unit"] in RATE_UNITS]
    return (moved or rates)[:MAX_PANELS]


def draw_panel(ax, gpu, fig_):
    xs = list(range(1, len(fig_["values"]) + 1))
    ys = [v if v is not None else float("nan") for v in fig_["values"]]
    ax.plot(xs, ys, marker="o", ms=4, label=fig_["key"])
    if fig_.get("band_lo") is not None:
        ax.axhspan(fig_["band_lo"], fig_["band_hi"], color="0.6", alpha=0.25,
                   label="earlier runs' band (95 % prediction, >= +-2 %)")
    ax.set_title("%s: %s" % (fig_["key"], fig_["verdict"]), fontsize=9)
    ax.set_xlabel("run (oldest first; the latest is judged)")
    ax.set_ylabel(fig_["unit"])
    ax.set_xticks(xs)
    ax.legend(fontsize=7, loc="best")


def draw_gpu(gpu, outdir, n):
    figs = chosen(gpu)
    if not figs:
        return []
    fig, axes = C.new_figure(len(figs), height=4.2)
    for ax, f in zip(axes, figs):
        draw_panel(ax, gpu, f)
    runs = gpu["runs"]
    fig.suptitle("history of %s on %s: %s" % (gpu["id"], gpu["host"], gpu["status"]),
                 fontsize=11)
    fig.text(0.01, 0.01, "%d runs from %s to %s" % (len(runs), runs[0]["started"],
                                                    runs[-1]["started"]), fontsize=7, color="0.3")
    fig.tight_layout(rect=(0, 0.05, 1, 0.93))
    return C.save(fig, outdir, "history-%d" % n)


def main(argv):
    if len(argv) != 3:
        print("usage: history.py HISTORY.json OUTDIR", file=sys.stderr)
        return 2
    try:
        doc = json.load(open(argv[1]))
    except (OSError, ValueError) as e:
        print("plots: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    if doc.get("schema") != "dmalab-history/1":
        print("plots: %s: not a dmalab-history/1 file" % argv[1], file=sys.stderr)
        return 2
    for n, gpu in enumerate(doc["gpus"]):
        for p in draw_gpu(gpu, argv[2], n):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
