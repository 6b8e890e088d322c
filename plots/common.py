"""Shared helpers of the dmalab figures: read a results file, find a lab's
series, facts and claim statistics, draw spread, stamp the machine, save.

Everything here reads only the JSON that `dmalab check` (or one lab's
--json) wrote; nothing is measured.  A figure that cannot be drawn raises
NotDrawn with a reason a reader can act on; the callers list those reasons
instead of printing a traceback.
"""
import json
import math
import os
import re

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")  # no display on servers and in CI
import matplotlib.pyplot as plt  # noqa: E402

import lang  # noqa: E402

# the CJK families matplotlib falls back to in zh ([] in English, or none installed)
CJK_FONTS = lang.use_cjk_font(matplotlib)
T = lang.T

RESULTS_SCHEMA = "dmalab-results"
LAB_SCHEMA = "dmalab-lab"
KNOWN_MAJOR = 1  # the newest major version of both schemas this code reads

GB = 1e9
GiB = 2 ** 30
KiB = 1024


class NotDrawn(Exception):
    """A figure was not drawn; str() is the reason."""


class BadResults(Exception):
    """The results file cannot be used at all; str() is the one-line reason."""


class NotWritten(Exception):
    """A figure was drawn but its file could not be written (a read-only or
    full disk); str() is "PATH: reason"."""


# ---------------------------------------------------------------------------
# Reading

def schema_major(schema, accepted):
    """The major version of a "name/N" schema string, or raise BadResults."""
    if not isinstance(schema, str) or "/" not in schema:
        raise BadResults("no schema string (want %s/%d)" % (accepted[0], KNOWN_MAJOR))
    name, _, ver = schema.partition("/")
    if name not in accepted:
        raise BadResults("unknown schema %r (want %s/%d)" % (schema, accepted[0], KNOWN_MAJOR))
    try:
        major = int(ver.split(".")[0])
    except ValueError:
        raise BadResults("unknown schema version %r" % schema)
    if major > KNOWN_MAJOR:
        raise BadResults("schema %r is newer than these plots know (%s/%d): "
                         "update plots/" % (schema, name, KNOWN_MAJOR))
    return major


def as_results(doc):
    """Accept a runner results file, or one lab's --json file (wrapped)."""
    if not isinstance(doc, dict):
        raise BadResults("top level is not a JSON object")
    schema = doc.get("schema")
    if isinstance(schema, str) and schema.startswith(LAB_SCHEMA + "/"):
        schema_major(schema, [LAB_SCHEMA])
        return {"schema": RESULTS_SCHEMA + "/1", "machine": {}, "labs": [tidy_lab(doc)],
                "questions": [], "totals": {}, "single_lab": True}
    major = schema_major(schema, [RESULTS_SCHEMA])
    if doc.get("status") in ("running", "incomplete"):
        # part of a run: the runner died, or could not save the rest
        raise BadResults("an unfinished run (status '%s'): its runner stopped or could "
                         "not save it; run the labs again" % doc["status"])
    labs = doc.get("labs")
    if not isinstance(labs, list):  # a run that reached no lab still writes []
        raise BadResults("\"labs\" is %s, not a list of labs" % (
            "missing" if "labs" not in doc else json.dumps(labs)[:40]))
    doc["labs"] = [tidy_lab(lab) for lab in labs if isinstance(lab, dict)]
    if not isinstance(doc.get("machine"), dict):
        doc["machine"] = {}
    m = doc["machine"]
    m["gpus"] = dicts(m.get("gpus"))
    doc["questions"] = dicts(doc.get("questions"))
    doc["schema_major"] = major
    return doc


def dicts(v):
    """The objects of a JSON array (anything else, or a non-array: none)."""
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def tidy_lab(lab):
    """Give a lab record the shapes the figures expect, whatever it holds:
    a reader ignores what it does not understand instead of breaking."""
    lab["claims"] = dicts(lab.get("claims"))
    for c in lab["claims"]:
        c["stats"] = dicts(c.get("stats"))
    for key in ("facts", "series"):
        if not isinstance(lab.get(key), dict):
            lab[key] = {}
    return lab


def load(path):
    """Parse and check a results file; raise BadResults with the reason."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise BadResults("%s: no such file (run `make check` first, or pass "
                         "RESULTS=dir)" % path)
    except (OSError, UnicodeDecodeError) as e:
        raise BadResults("%s: %s" % (path, e))
    except ValueError as e:
        raise BadResults("%s: not valid JSON: %s" % (path, e))
    except RecursionError:
        raise BadResults("%s: nested too deeply to be a results file" % path)
    try:
        return as_results(doc)
    except BadResults as e:
        raise BadResults("%s: %s" % (path, e))


def num(v):
    """A finite float, or None for null, NaN, infinities and non-numbers."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def find_lab(res, lab_id):
    """The lab record with this id, or raise NotDrawn."""
    for lab in res.get("labs", []):
        if lab.get("id") == lab_id:
            return lab
    raise NotDrawn("lab-%s is not in the results" % lab_id)


def skip_explained(reason):
    """In zh, what a skip reason code means in brackets, as the runner prints
    it (skip.<code>, its ':' as '-'); "" in English."""
    explained = T("skip." + reason.replace(":", "-"), "")
    return "（%s）" % explained if explained else ""


def lab_absence(lab):
    """Why a lab recorded nothing useful ("skipped: reason: detail"), or ""."""
    skip = lab.get("skip")
    if isinstance(skip, dict) and skip.get("reason"):
        return T("plot.lab-skipped", "lab-%s skipped: %s: %s") % (
            lab.get("id"), skip.get("reason"), skip.get("detail") or "") + \
            skip_explained(str(skip.get("reason")))
    err = lab.get("error")
    if err:
        msg = err.get("message") if isinstance(err, dict) else err
        return T("plot.lab-broke", "lab-%s broke: %s") % (lab.get("id"), msg)
    return ""


def fact(lab, key):
    """A fact's numeric value (facts are {value, unit} or a plain value)."""
    facts = lab.get("facts")
    if not isinstance(facts, dict):
        return None
    v = facts.get(key)
    if isinstance(v, dict):
        v = v.get("value")
    return num(v)


def fact_str(lab, key):
    facts = lab.get("facts") if isinstance(lab.get("facts"), dict) else {}
    v = facts.get(key)
    return v if isinstance(v, str) else None


def clean_stats(st):
    """A statistics object with finite median and samples, or None."""
    if not isinstance(st, dict) or num(st.get("median")) is None:
        return None
    samples = [num(s) for s in st.get("samples") or []]
    samples = [s for s in samples if s is not None]
    med = num(st["median"])
    lo, hi = num(st.get("min")), num(st.get("max"))
    if samples:
        lo, hi = min(samples), max(samples)
    return {"name": st.get("name"), "unit": st.get("unit") or "",
            "median": med, "min": med if lo is None else lo,
            "max": med if hi is None else hi, "samples": samples or [med],
            "noisy": bool(st.get("noisy"))}


def series(lab, name):
    """[(x, stats)] of a series, sorted by x, non-finite points dropped."""
    all_series = lab.get("series") if isinstance(lab.get("series"), dict) else {}
    s = all_series.get(name)
    if not isinstance(s, dict):
        return []
    pts = []
    for p in s.get("points") or []:
        x = num(p.get("x")) if isinstance(p, dict) else None
        st = clean_stats(p.get("stats")) if x is not None else None
        if st is not None:
            pts.append((x, st))
    return sorted(pts, key=lambda p: p[0])


def series_names(lab):
    s = lab.get("series")
    return sorted(s) if isinstance(s, dict) else []


def claim_stats(lab, name):
    """The statistics called `name` attached to any claim of the lab."""
    for c in lab.get("claims") or []:
        for st in (c.get("stats") or []) if isinstance(c, dict) else []:
            if isinstance(st, dict) and st.get("name") == name:
                got = clean_stats(st)
                if got is not None:
                    return got
    return None


def scaled(st, k, unit=None):
    """A copy of statistics with every value multiplied by k."""
    out = dict(st)
    for key in ("median", "min", "max"):
        out[key] = st[key] * k
    out["samples"] = [s * k for s in st["samples"]]
    if k < 0:
        out["min"], out["max"] = out["max"], out["min"]
    if unit is not None:
        out["unit"] = unit
    return out


def claim(lab, claim_id):
    for c in lab.get("claims") or []:
        if isinstance(c, dict) and c.get("id") == claim_id:
            return c
    return None


# ---------------------------------------------------------------------------
# What a figure names

def expand(patterns, names):
    """The names a figure's list stands for: a name ending in '*'
    matches every one of `names` starting with the rest, in order."""
    out = []
    for p in patterns:
        hits = sorted(n for n in names if n.startswith(p[:-1])) if p.endswith("*") else [p]
        out += [n for n in hits if n not in out]
    return out


# ---------------------------------------------------------------------------
# Formatting

def fmt_bytes(x):
    """4096 -> "4 KiB", 1073741824 -> "1 GiB" (binary units, as the labs)."""
    for unit, k in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if x >= k:
            v = x / k
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.1f %s" % (v, unit))
    return "%d B" % x


def machine_line(res):
    """GPU, driver, kernel and date of the run, for a figure's footnote."""
    m = res.get("machine") or {}
    gpus = [g for g in m.get("gpus") or [] if isinstance(g, dict)]
    if gpus:
        names = sorted({g.get("name") or "?" for g in gpus})
        gpu = "%d x %s" % (len(gpus), "/".join(names)) if len(gpus) > 1 else names[0]
    else:
        gpu = "no GPU seen"
    driver = m.get("driver_version") or "no driver"
    kernel = m.get("kernel") or "kernel ?"
    host = m.get("hostname") or ""
    date = (res.get("started") or "date ?").replace("T", " ").replace("Z", " UTC")
    parts = ["GPU: %s" % gpu, "driver %s" % driver, "Linux %s" % kernel]
    if m.get("cpus_online"):
        parts.append("%s CPUs" % m["cpus_online"])
    if host:
        parts.append(host)
    parts.append(date)
    if res.get("quick"):
        parts.append("--quick")
    return " | ".join(parts)


# ---------------------------------------------------------------------------
# Drawing

def new_figure(ncols=1, width=None, height=4.6):
    width = width or (6.4 * ncols + 0.6)
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def band(ax, pts, label, color=None, marker="o", linestyle="-"):
    """Median line with a min-max band over every sample of each point."""
    xs = [p[0] for p in pts]
    line, = ax.plot(xs, [p[1]["median"] for p in pts], marker=marker, ms=4,
                    linestyle=linestyle, color=color, label=label)
    ax.fill_between(xs, [p[1]["min"] for p in pts], [p[1]["max"] for p in pts],
                    color=line.get_color(), alpha=0.18, linewidth=0)
    return line


def log2_bytes_axis(ax, xs):
    """x axis in powers of two with byte labels."""
    ax.set_xscale("log", base=2)
    if not xs:
        return
    lo, hi = int(math.floor(math.log2(min(xs)))), int(math.ceil(math.log2(max(xs))))
    step = max(1, (hi - lo + 1) // 10)
    ticks = [2 ** e for e in range(lo, hi + 1, step)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([fmt_bytes(t) for t in ticks], rotation=45, ha="right")
    ax.minorticks_off()


def ref_hline(ax, y, text, color="0.35", style="--", below=False, left=False):
    """A dashed horizontal reference with its label at the right end (left
    end when left; under the line when below, so close lines stay readable)."""
    ax.axhline(y, color=color, linestyle=style, linewidth=1.1)
    ax.annotate(text, xy=(0 if left else 1, y), xycoords=("axes fraction", "data"),
                xytext=(4 if left else -4, -3 if below else 3), textcoords="offset points",
                ha="left" if left else "right", va="top" if below else "bottom",
                fontsize=8, color=color)


def plain_log_y(ax):
    """Log y axis labelled 0.5, 2, 300 rather than 5x10^-1."""
    def minor(v, _):  # 2 and 5 of each decade, so a short range has labels too
        return "%g" % v if v > 0 and round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(minor))
    ax.tick_params(axis="y", which="minor", labelsize=7)


def why_not(lab, claim_ids, fallback):
    """The reason a part of a lab has no data: the first of its claims that
    skipped or broke says why; else the lab's own skip or error; else fallback."""
    for cid in claim_ids:
        c = claim(lab, cid) or {}
        if c.get("status") == "skip" and c.get("reason"):
            return T("plot.claim-skipped", "claim %s skipped: %s: %s") % (
                cid, c["reason"], c.get("detail") or "") + skip_explained(c["reason"])
        if c.get("status") in ("error", "not_run") and c.get("reason"):
            return "claim %s %s: %s: %s" % (cid, c["status"], c["reason"], c.get("detail") or "")
        if c.get("status") in ("error", "not_run"):
            return "claim %s %s" % (cid, c["status"])
    return lab_absence(lab) or fallback


def no_data(lab, decl, fallback, fig=None):
    """NotDrawn with why_not's reason for the figure's claims; fig (drawn on
    in vain) is closed first."""
    if fig is not None:
        plt.close(fig)
    return NotDrawn(why_not(lab, decl["claims"], fallback))


def boxes(ax, labels, samples, **tick_args):
    """A box per label of every sample, whiskers at min and max."""
    ax.boxplot(samples, widths=0.5, whis=(0, 100))
    ax.set_xticks(range(1, len(labels) + 1))
    ax.set_xticklabels(labels, **tick_args)


def text_columns(s):
    """Columns a text takes: a CJK or full-width character two, others one."""
    return sum(2 if ord(ch) >= 0x1100 else 1 for ch in s)


def wrap_title(title, width_in, fontsize=12):
    """The title broken into lines that fit width_in inches: at spaces, and
    between any two CJK characters (a Chinese title has few spaces).  A
    column is about 0.55 em of the font; a margin of 0.4 inch is kept."""
    cols = max(20, int((width_in - 0.4) * 72 / (fontsize * 0.55)))
    lines, cur = [], ""
    for tok in re.findall(r"[\u1100-\uffff]|[^\s\u1100-\uffff]+\s*|\s+", title):
        if cur and text_columns(cur + tok.rstrip()) > cols:
            lines.append(cur.rstrip())
            cur = tok.lstrip()
        else:
            cur += tok
    return "\n".join(lines + [cur.rstrip()])


def finish(fig, res, title, notes=()):
    """Title (wrapped to the figure's width), footnote (machine and notes)
    and a tidy layout."""
    width, height = fig.get_size_inches()
    title = wrap_title(title, width)
    fig.suptitle(title, fontsize=12)
    lines = [machine_line(res)] + [n for n in notes if n]
    fig.text(0.01, 0.01, "\n".join(lines), fontsize=7, color="0.3",
             ha="left", va="bottom", wrap=True)
    bottom = (0.12 + 0.14 * len(lines)) / height  # inches of footnote, as a fraction
    top = 1 - (0.45 + 0.22 * title.count("\n")) / height  # 0.22 inch a title line
    fig.tight_layout(rect=(0, bottom, 1, top))


def done(fig, res, decl, outdir, notes, missing=()):
    """finish and save a figure of make_plots.FIGURES: its notes end with what was not recorded."""
    if missing:
        notes = list(notes) + ["not recorded: " + ", ".join(missing)]
    finish(fig, res, decl["title"], notes)
    return save(fig, outdir, decl["name"])


def save(fig, outdir, name):
    """Write name.png and name.svg; return the two paths, or raise NotWritten."""
    paths = []
    try:
        p = outdir
        os.makedirs(outdir, exist_ok=True)
        for ext in ("png", "svg"):
            p = os.path.join(outdir, "%s.%s" % (name, ext))
            fig.savefig(p, dpi=110 if ext == "png" else None)
            paths.append(p)
    except OSError as e:
        raise NotWritten("%s: %s" % (p, e.strerror or e))
    finally:
        plt.close(fig)
    return paths

