"""`make report`: one self-contained HTML page (results/report.html) to
attach to a ticket, and a Markdown twin (results/report.md) to paste into an
issue: the machine, the report card (per lab, per claim, per question), the
known errata, and the figures.

usage: report.py RESULTS.json [OUTDIR [ERRATA.md]]

The report runs `dmalab grade --from RESULTS.json` (--errata ERRATA.md when
that file is there) and takes from its grade.json the console's texts, the
questions and the known errata; without it, it says why they are missing.

The HTML inlines its CSS and every PNG as a data: URI, so the file alone is
the whole report; it needs no script (a small one only counts the decoded
images, for the tests).  The Markdown links the PNGs in OUTDIR/plots/.
Exit 0 when written; 1 when a figure or the report could not be written
(nothing is written without its figures); 2 when the results file cannot be
used.
"""
import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import common as C
import make_plots
from lang import PLOTS_DIR, T, claim_text, dmalab_path, labs_dir, lang

VERDICT_CLASS = {"pass": "ok", "confirmed": "ok", "fail": "bad", "contradicted": "bad",
                 "error": "bad", "not_run": "bad", "aborted": "bad", "skip": "skip",
                 "unverified": "skip", "inconclusive": "warn", "partial": "warn"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC",sans-serif;margin:0;\
color:#1d232a;background:#fff}
main{max-width:1100px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0}\
h2{border-bottom:2px solid #d0d7de;padding-bottom:4px;margin-top:32px}
h3{margin:20px 0 6px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f7}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;\
font-size:12px;color:#fff;white-space:nowrap}
.ok{background:#1a7f37}.bad{background:#cf222e}.skip{background:#8c959f}.warn{background:#bf8700}
.erratum{background:#8250df}
.totals span{margin-right:14px}
figure{margin:18px 0;border:1px solid #d0d7de;padding:8px;border-radius:6px}
figure img{max-width:100%;height:auto;display:block;margin:0 auto}
figcaption{font-size:13px;color:#57606a;margin-top:4px}
.muted{color:#57606a;font-size:12px}
code{font-size:12px}
"""

SCRIPT = """window.addEventListener('load',function(){var i=document.images,n=0;
for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0)n++;}
document.body.setAttribute('data-images-loaded',n+'/'+i.length);});"""


def esc(v):
    return html.escape("" if v is None else str(v))


def badge(status, text=None):
    cls = VERDICT_CLASS.get(status, "skip")
    return '<span class="badge %s">%s</span>' % (cls, esc(text or status_word(status)))


def esc_code(v):
    """esc, and a `quoted` span of the text as <code> (the messages quote
    commands so in Markdown's way; an HTML page shows no backticks)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(v))


def status_word(status, kind="status"):
    """A status as the learner reads it: a lab's or a run's (kind "status"), a
    claim's verdict ("verdict") or a question's ("question"); the record's
    word itself in English."""
    return T("%s.%s" % (kind, str(status).replace("_", "-")), str(status))


def fmt_val(v, unit=None):
    x = C.num(v)
    if x is None:
        return "" if v is None else str(v)
    if unit == "bytes" and abs(x) >= 1024:
        return C.fmt_bytes(x)
    s = ("%.4g" % x) if abs(x) < 1e6 else ("%.0f" % x)
    return s + ((" " + unit) if unit else "")


# ---------------------------------------------------------------------------
# The parts, as (HTML, Markdown)

def machine_rows(res):
    m = res.get("machine") or {}
    numa = m.get("numa") if isinstance(m.get("numa"), dict) else {}
    mem = C.num(m.get("mem_total"))
    none = T("report.none-seen", "none seen")
    rows = [(T("report.host", "host"), "%s (%s, %s)" % (
                m.get("hostname", "?"), m.get("arch", "?"),
                m.get("virt") or T("report.bare-metal", "bare metal?"))),
            (T("report.kernel", "kernel"), m.get("kernel")),
            (T("report.cpus", "CPUs online"), m.get("cpus_online")),
            (T("report.memory", "memory"), "%.1f GiB" % (mem / C.GiB) if mem else None),
            (T("report.numa", "NUMA nodes"), T("report.numa-nodes", "%s (%s with memory)") % (
                numa.get("nodes"), numa.get("mem_nodes")) if numa else None),
            (T("report.thp", "THP"), m.get("thp")),
            (T("report.driver", "NVIDIA driver"), m.get("driver_version") or none),
            (T("report.cuda", "CUDA driver / runtime"), "%s / %s" % (
                m.get("cuda_driver_version"), m.get("cuda_runtime_version"))
             if "cuda_runtime_version" in m else None)]
    for g in m.get("gpus") or []:
        if isinstance(g, dict):
            rows.append(("GPU %s" % g.get("index", "?"), gpu_text(g)))
    if not m.get("gpus"):
        rows.append(("GPUs", none))
    return [(k, v) for k, v in rows if v not in (None, "")]


def gpu_text(g):
    mem = C.num(g.get("mem_total"))
    rate = C.num(g.get("pcie_max_rate_gbs"))
    return "%s at %s, cc %s.%s, %s, PCIe Gen%s x%s (%s), NUMA node %s" % (
        g.get("name"), g.get("bdf"), g.get("cc_major"), g.get("cc_minor"),
        "%.0f GiB" % (mem / C.GiB) if mem else "? GiB", g.get("pcie_gen_max"),
        g.get("pcie_width_max"), "%.1f GB/s" % rate if rate else "rate ?",
        g.get("numa_node"))


def known_erratum(c):
    """True when the lab said the claim's contradiction is its known erratum:
    erratum {"status": "predicted", ...} (or `true`, in older results)."""
    e = c.get("erratum")
    return e is True or (isinstance(e, dict) and e.get("status") == "predicted")


def erratum_note(c):
    """What a contradicted claim's erratum predicted, and whether this run met it."""
    e = c.get("erratum")
    if not isinstance(e, dict) or c.get("status") != "fail":
        return ""
    met = {"predicted": T("report.erratum-met", "met by this run"),
           "not-predicted": T("report.erratum-not-met", "not met by this run"),
           "not-applicable": T("report.erratum-not-here", "not applicable here (when: %s)") %
           e.get("when")}
    return T("report.erratum-predicts", "erratum predicts %s: %s") % (
        e.get("expect"), met.get(e.get("status"), e.get("status")))


# ---------------------------------------------------------------------------
# The grade: what `dmalab grade` says of these results, the one source of the
# console's texts (got with its interval, the relation in words, units), of
# the question -> claims map (every question a claim backs, only the chapters')
# and of the known errata (answers/errata.md as the C reader, errata.c, has it)

def grade_of(results_path, errata_path):
    """(grade.json as a dict, "") or (None, why there is none)."""
    tmp = tempfile.mkdtemp(prefix="dmalab-report-")
    cmd = [dmalab_path(), "grade", "--from", results_path, "--results", tmp,
           "--labs-dir", labs_dir(), "--answers-dir",
           os.path.join(PLOTS_DIR, "..", "answers"), "--lang", "en"]
    if errata_path and os.path.exists(errata_path):
        cmd += ["--errata", errata_path]
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
        if p.returncode:
            return None, "dmalab grade exit %d: %s" % (p.returncode, (p.stderr.strip().splitlines()
                                                                     or ["?"])[-1])
        with open(os.path.join(tmp, "grade.json"), encoding="utf-8") as f:
            return json.load(f), ""
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return None, "dmalab grade could not run (%s): build the kit with make" % e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def grade_texts(grade):
    """{claim id: the console's "got ..., want ..." text} from grade.json."""
    out = {}
    for ch in (grade or {}).get("chapters") or []:
        for q in ch.get("questions") or []:
            for v in q.get("claims") or []:
                if v.get("evidence", "").startswith("got "):
                    out[v["id"]] = v["evidence"]
    return out


def split_got_want(text):
    """("got" part, "want" part) of the console's "got X [lo, hi], want OP Y"."""
    for sep in (", the chapter says ", ", want "):
        if sep in text:
            got, _, want = text[4:].partition(sep)
            return got, ("the chapter says " if "chapter" in sep else "") + want
    return text[4:], ""


def claim_cells(c, texts=None):
    """(verdict, got, want, why) of one claim, as plain text: the console's
    words when the grade gave them (texts), else from the record itself."""
    status = c.get("status") or "?"
    if known_erratum(c):
        status = "known erratum"
    if (texts or {}).get(c.get("id")):
        got, want = split_got_want(texts[c["id"]])
        return status, got, want, claim_why(c)
    # undecided (inconclusive) or not graded: the record's value, its interval,
    # and the lab's own words for the relation (want_text)
    unit = c.get("unit") or ""
    got = c.get("got_name") or fmt_val(c.get("got"), unit)
    lo, hi = C.num(c.get("got_lo")), C.num(c.get("got_hi"))
    if got and lo is not None and hi is not None and not c.get("got_name"):
        got += " [%s, %s]" % (fmt_val(lo), fmt_val(hi))
    want = c.get("want_name") and "= %s" % c["want_name"] or c.get("want_text") or ""
    if want and unit and not c.get("want_name") and unit not in ("bytes", "errno"):
        want += " " + unit
    return status, got, want, claim_why(c)


def claim_why(c):
    return "; ".join(x for x in ("%s: %s" % (c["reason"], c.get("detail") or "")
                                 if c.get("reason") else "", erratum_note(c),
                                 c.get("note") or "") if x)


def lab_heading(lab):
    why = C.lab_absence(lab)
    dur = C.num(lab.get("duration_s"))
    title = T("title.%s" % lab.get("id"), lab.get("title") or "")
    return "lab-%s: %s" % (lab.get("id"), title), \
        "%s%s" % (("%.1f s" % dur) if dur is not None else "", (" - " + why) if why else "")


def html_card(res, texts=None):
    parts = []
    for lab in res["labs"]:
        title, sub = lab_heading(lab)
        parts.append('<h3 id="lab-%s">%s %s</h3><p class="muted">%s</p>' % (
            esc(lab.get("id")), esc(title), badge(lab.get("status") or "?"), esc(sub)))
        rows = ["<tr>%s</tr>" % "".join("<th>%s</th>" % esc(T("report.col-" + k, en)) for k, en in (
            ("claim", "claim"), ("question", "question"), ("statement", "statement"),
            ("verdict", "verdict"), ("got", "got"), ("want", "want"), ("why", "why / note")))]
        for c in lab.get("claims") or []:
            status, got, want, why = claim_cells(c, texts)
            cls = "erratum" if known_erratum(c) else VERDICT_CLASS.get(c.get("status"), "skip")
            rows.append("<tr><td>%s</td><td>%s</td><td>%s</td><td><span class=\"badge %s\">"
                        "%s</span></td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
                            esc(c.get("id")), esc(c.get("question")),
                            esc(claim_text(c.get("id"), c.get("text"))), cls,
                            esc(verdict_word(c, status)), esc(got), esc(want), esc(why)))
        parts.append('<table class="claims">%s</table>' % "".join(rows))
    return "\n".join(parts) or "<p>%s</p>" % esc(T("report.no-lab", "No lab in this results file."))


def verdict_word(c, status):
    """The verdict cell's word: claim_cells' status, in the learner's language."""
    return T("verdict.known", status) if known_erratum(c) else status_word(status, "verdict")


def question_rows(res, grade, why):
    """[(question, status, decided, claims)] and a note: the grade's map when
    there is one, else the results' own list (each claim's first question)."""
    if grade:
        rows = [(q.get("id"), q.get("status"), T("report.decided-of", "%s of %s") % (
                    q.get("claims_decided"), q.get("claims_planned")),
                 ", ".join("%s %s" % (v.get("id"), status_word(v.get("status"), "verdict"))
                           for v in q.get("claims") or []))
                for ch in grade.get("chapters") or [] for q in ch.get("questions") or []]
        return rows, T("report.graded", "As `make grade` grades them: every question of the "
                       "chapters, with all the claims that back it. A question is scored when "
                       "at least half of its claims are decided (pass or fail); below that it "
                       "is unverified.")
    rows = [(q.get("id"), q.get("status"), "", ", ".join(q.get("claims") or []))
            for q in res.get("questions") or [] if isinstance(q, dict)]
    return rows, T("report.not-graded", "Not graded (%s): each claim's first question only, "
                   "from the results.") % why


def html_questions(res, grade=None, why=""):
    qrows, note = question_rows(res, grade, why)
    rows = ["<tr>%s</tr>" % "".join("<th>%s</th>" % esc(T("report.col-" + k, en)) for k, en in (
        ("question", "question"), ("status", "status"), ("decided", "claims decided"),
        ("claims", "claims")))]
    for qid, status, decided, claims in qrows:
        rows.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
            esc(qid), badge(status or "?", status_word(status or "?", "question")),
            esc(decided), esc(claims)))
    return '<p class="muted">%s</p><table>%s</table>' % (esc_code(note), "".join(rows)) \
        if len(rows) > 1 else "<p>%s</p>" % esc(T("report.no-question", "No question graded."))


def claims_by_id(res):
    return {c.get("id"): c for lab in res["labs"] for c in lab.get("claims") or []
            if isinstance(c, dict)}


def errata_here(c):
    """This run's word on an erratum's claim: its verdict, and whether the run
    reported it as the known erratum."""
    if c is None:
        return T("report.errata-absent", "not in this run")
    note = T("report.errata-reported", " (reported as the known erratum)") \
        if known_erratum(c) else (" (%s)" % erratum_note(c) if erratum_note(c) else "")
    return T("report.errata-this-run", "this run: %s") % status_word(c.get("status"),
                                                                    "verdict") + note


def errata_of(grade):
    """The known errata the grade read, [] when none is listed; None without
    a grade (the report then says why they are not listed)."""
    return (grade.get("errata") or []) if grade else None


def errata_unread(why):
    return T("report.errata-unread", "Not listed: `dmalab grade` reads them, and it gave "
             "no grade (%s).") % why


def html_errata(res, errata, why=""):
    if errata is None:
        return "<p>%s</p>" % esc_code(errata_unread(why))
    if not errata:
        return "<p>%s</p>" % esc_code(T("report.errata-none",
                                        "No known erratum is listed in answers/errata.md."))
    seen = claims_by_id(res)
    items = []
    for e in errata:
        items.append("<li><b>%s</b> - <span class=\"muted\">%s</span><br>%s %s<br>"
                     "%s %s<br>%s %s</li>" % (
                         esc(e["id"]), esc(errata_here(seen.get(e["id"]))),
                         esc(T("report.says", "says:")), esc(e.get("says")),
                         esc(T("report.truth", "truth:")), esc(e.get("truth")),
                         esc(T("report.source", "source:")),
                         ", ".join(esc(s) for s in e.get("source") or [])))
    return "<ul>%s</ul>" % "".join(items)


def data_uri(path):
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")


def html_plots(figs):
    out, absent = [], []
    for name, caption, status, detail in figs:
        if status == "drawn":
            png = [p for p in detail if p.endswith(".png")][0]
            out.append('<figure id="fig-%s"><img alt="%s" src="%s"><figcaption>%s</figcaption>'
                       '</figure>' % (esc(name), esc(caption), data_uri(png), esc(caption)))
        else:
            absent.append("<li><b>%s</b>: %s</li>" % (esc(name), esc(detail)))
    if absent:
        out.append('<h3>%s</h3><ul id="plots-not-drawn">%s</ul>' % (
            esc(T("report.not-drawn", "Not drawn")), "".join(absent)))
    return "\n".join(out)


def html_totals(res):
    t = (res.get("totals") or {}).get("claims") or {}
    spans = "".join("<span>%s: <b>%s</b></span>" % (esc(total_word(k)), esc(v))
                    for k, v in t.items())
    return '<p class="totals">%s</p>' % spans if spans else ""


def total_word(key):
    """A totals key as the learner reads it: planned, or a verdict's word."""
    return T("report.planned", "planned") if key == "planned" else status_word(key, "verdict")


def render_html(res, figs, grade=None, why=""):
    title = T("report.title", "dmalab report - %s") % (
        (res.get("machine") or {}).get("hostname") or "?")
    mrows = "".join("<tr><th>%s</th><td>%s</td></tr>" % (esc(k), esc(v))
                    for k, v in machine_rows(res))
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="%s"><head><meta charset="utf-8">' % (
            "zh-CN" if lang() == "zh" else "en"),
        "<title>%s</title><style>%s</style><script>%s</script></head><body><main>" % (
            esc(title), CSS, SCRIPT),
        '<h1 id="title">%s</h1>' % esc(title),
        '<p id="run">%s %s | %s | %s %s | %s s</p>' % (
            esc(T("report.run-status", "run status")), badge(res.get("status") or "?"),
            esc(res.get("command")), esc(T("report.started", "started")),
            esc(res.get("started")), esc(fmt_val(res.get("duration_s")))),
        html_totals(res),
        '<section id="machine"><h2>%s</h2><table>%s</table></section>' % (
            esc(T("report.machine", "Machine")), mrows),
        '<section id="report-card"><h2>%s</h2>%s</section>' % (
            esc(T("report.card", "Report card")), html_card(res, grade_texts(grade))),
        '<section id="questions"><h2>%s</h2>%s</section>' % (
            esc(T("report.questions", "Questions")), html_questions(res, grade, why)),
        '<section id="errata"><h2>%s</h2>%s</section>' % (
            esc(T("report.errata", "Known errata")), html_errata(res, errata_of(grade), why)),
        '<section id="plots"><h2>%s</h2>%s</section>' % (
            esc(T("report.figures", "Figures")), html_plots(figs)),
        '<p class="muted">%s</p>' % esc(C.machine_line(res)),
        "</main></body></html>", ""])


# ---------------------------------------------------------------------------
# Markdown

def md(v):
    return ("" if v is None else str(v)).replace("|", "\\|").replace("\n", " ")


def md_row(cells):
    return "| %s |" % " | ".join(md(x) for x in cells)


def md_table(heads):
    """A table's head: its column words (report.col-KEY, as the HTML's) and rule."""
    return [md_row(T("report.col-" + k, en) for k, en in heads),
            "| %s |" % " | ".join("---" for _ in heads)]


def md_card(res, texts):
    out = []
    for lab in res["labs"]:
        title, sub = lab_heading(lab)
        out += ["### %s - %s" % (md(title), md(status_word(lab.get("status")))), "", md(sub),
                ""]
        out += md_table((("claim", "claim"), ("question", "question"), ("verdict", "verdict"),
                         ("got", "got"), ("want", "want"), ("statement", "statement")))
        for c in lab.get("claims") or []:
            status, got, want, _ = claim_cells(c, texts)
            out.append(md_row((c.get("id"), c.get("question"), verdict_word(c, status), got,
                               want, claim_text(c.get("id"), c.get("text")))))
        out.append("")
    return out


def md_errata(errata, why=""):
    if errata is None:
        return [errata_unread(why)]
    return ["- **%s**: %s" % (md(e["id"]), md(T("report.md-erratum", "says %s; truth: %s") % (
        e.get("says"), e.get("truth")))) for e in errata] or \
        [T("report.md-no-errata", "None listed.")]


def md_figures(figs):
    return ["![%s](plots/%s.png)" % (md(caption), name) if status == "drawn"
            else "- %s" % md(T("report.md-not-drawn", "%s not drawn: %s") % (name, detail))
            for name, caption, status, detail in figs]


def render_md(res, figs, grade=None, why=""):
    """results/report.md, the HTML page's twin, in the learner's language; the
    section heads are the English ones in English (tests find them)."""
    host = (res.get("machine") or {}).get("hostname")
    out = ["# " + md(T("report.title", "dmalab report - %s") % host), "",
           T("report.md-run", "Run status **%s**, `%s`, started %s.") % (
               md(status_word(res.get("status"))), md(res.get("command")),
               md(res.get("started"))), "",
           "## " + T("report.machine", "Machine"), ""]
    out += md_table((("fact", "fact"), ("value", "value")))
    out += [md_row((k, v)) for k, v in machine_rows(res)]
    out += ["", "## " + T("report.card", "Report card"), ""] + md_card(res, grade_texts(grade))
    qrows, note = question_rows(res, grade, why)
    out += ["## " + T("report.questions", "Questions"), "", md(note), ""]
    out += md_table((("question", "question"), ("status", "status"),
                     ("decided", "claims decided"), ("claims", "claims")))
    out += [md_row(r) for r in qrows]
    out += ["", "## " + T("report.errata", "Known errata"), ""] + md_errata(errata_of(grade),
                                                                             why)
    out += ["", "## " + T("report.figures", "Figures"), ""] + md_figures(figs)
    out += ["", "_%s_" % md(C.machine_line(res)), ""]
    return "\n".join(out)


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if not 2 <= len(argv) <= 4:
        print("usage: report.py RESULTS.json [OUTDIR [ERRATA.md]]", file=sys.stderr)
        return 2
    outdir = argv[2] if len(argv) > 2 else (os.path.dirname(argv[1]) or ".")
    try:
        res = C.load(argv[1])
    except C.BadResults as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    figs = make_plots.run(res, os.path.join(outdir, "plots"))
    bad = make_plots.unwritten(figs)
    if bad:
        print("report: not written: %d figure%s could not be written (above)" % (
            bad, "" if bad == 1 else "s"), file=sys.stderr)
        return 1
    grade, why = grade_of(argv[1], argv[3] if len(argv) > 3 else "answers/errata.md")
    if not grade:
        print("report: %s: the questions are each claim's first only" % why, file=sys.stderr)
    path = outdir
    try:
        os.makedirs(outdir, exist_ok=True)
        path = os.path.join(outdir, "report.html")
        write(path, render_html(res, figs, grade, why))
        path = os.path.join(outdir, "report.md")
        write(path, render_md(res, figs, grade, why))
    except OSError as e:
        print("report: cannot write %s: %s" % (path, e.strerror or e), file=sys.stderr)
        return 1
    except Exception as e:  # a record shaped in a way nobody foresaw
        if os.environ.get("DMALAB_PLOTS_DEBUG"):
            raise
        print("report: broke: %s: %s (DMALAB_PLOTS_DEBUG=1 shows where)" % (
            type(e).__name__, e), file=sys.stderr)
        return 1
    print("report: wrote %s and %s" % (os.path.join(outdir, "report.html"),
                                       os.path.join(outdir, "report.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
