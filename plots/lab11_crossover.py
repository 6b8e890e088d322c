"""lab-11: the time to bring a request's KV cache back (swap-back) and to
recompute its prefill, against context length, on log-log axes: this
machine's measured lines (swap-back in 16-token blocks; a decode step of one
block with the recomputed tokens in it, and the time they add to it)
next to the chapter's arithmetic (50 GB/s, 600 TFLOPS).  The crossover
this machine gives is a vertical line with its interval; the chapter's
"a few hundred tokens" is a shaded band."""
import math

import common as C

CHAPTER_BAND = (100, 1000)  # claim 11.4's want
LINES = [  # series, label, colour, line style, marker
    ("swap_paged_s", C.T("plot.l11-swap", "swap-back in blocks, measured"), "tab:blue", "-",
     "o"),
    ("recompute_batched_s", C.T("plot.l11-recompute", "recompute: what its tokens add to the "
                                "step, measured"), "tab:orange", "-", "s"),
    ("step_with_recompute_s", C.T("plot.l11-step", "a 64-token decode step with them in it, "
                                  "measured"), "tab:orange", "--", "^"),
    ("chapter_swap_s", C.T("plot.l11-chapter-swap", "chapter: swap-back at 50 GB/s"),
     "tab:blue", ":", ""),
    ("chapter_recompute_s", C.T("plot.l11-chapter-recompute", "chapter: recompute at 600 "
                                "TFLOPS"), "tab:orange", ":", ""),
]


def positive(pts):
    """Points whose whole spread is above 0 (a log axis cannot show the rest)."""
    return [p for p in pts if p[1]["min"] > 0]


def draw_lines(ax, lab, missing):
    drawn = 0
    for name, label, colour, style, marker in LINES:
        pts = positive(C.series(lab, name))
        if not pts:
            missing.append(name)
            continue
        C.band(ax, pts, label, color=colour, marker=marker or None, linestyle=style)
        drawn += 1
    return drawn


def mark_full_context(ax, lab):
    n = C.fact(lab, "context_tokens")
    for key, label, marker in (
            ("swap_full_paged_s", C.T("plot.l11-full-blocks", "full context in blocks"), "D"),
            ("swap_full_onecopy_s", C.T("plot.l11-full-one", "full context as one copy"),
             "*")):
        v = C.fact(lab, key)
        if n and v and v > 0:
            ax.plot([n], [v], marker=marker, color="tab:blue", linestyle="none", ms=8,
                    label=C.T("plot.l11-full", "%s (%d tokens): %.3g s") % (label, n, v))


def mark_crossover(ax, lab, notes):
    x, lo, hi = (C.fact(lab, k) for k in ("crossover_tokens", "crossover_lo_tokens",
                                          "crossover_hi_tokens"))
    ax.axvspan(*CHAPTER_BAND, color="0.5", alpha=0.12,
               label=C.T("plot.l11-chapter-band", "grey band: the chapter's crossover, a few "
                         "hundred tokens (%d-%d, claim 11.4's want)") % CHAPTER_BAND)
    if x is None or x <= 0:
        notes.append(C.T("plot.l11-no-crossover", "this machine's crossover: %s") % (
            C.T("plot.l11-none", "none measured") if x is None else
            C.T("plot.l11-first-block", "at or below the first block")))
        return
    if lo and hi and lo > 0:
        ax.axvspan(lo, hi, color="tab:red", alpha=0.15,
                   label=C.T("plot.l11-red-band", "red band: the 95 % interval of this "
                             "machine's crossover"))
    ax.axvline(x, color="tab:red", linewidth=1.4,
               label=C.T("plot.l11-crossover", "this machine's crossover: %.0f tokens "
                         "[%s, %s]") % (
                   x, "%.0f" % lo if lo is not None else "?",
                   "%.0f" % hi if hi is not None and math.isfinite(hi) else "?"))


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    missing, notes = [], []
    fig, axes = C.new_figure(1, width=8.8, height=5.6)
    ax = axes[0]
    if not draw_lines(ax, lab, missing):
        raise C.no_data(lab, decl,
                        "lab-11 recorded none of the swap-back or recompute series", fig)
    mark_full_context(ax, lab)
    mark_crossover(ax, lab, notes)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(C.T("plot.context", "context length (tokens, log2)"))
    ax.set_ylabel(C.T("plot.time-s-log", "time (s, log)"))
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left")
    notes.append("shaded around a line: min-max of every sample; points not above 0 "
                 "(recompute that adds nothing to a step) are left out of the log axis")
    return C.done(fig, res, decl, outdir, notes, missing)
