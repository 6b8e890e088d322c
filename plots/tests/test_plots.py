"""Tests of plots/: the figures and the report from every results file in
plots/tests/fixtures (made by the kit), from a synthetic document for the
GPU figures, and from broken input (NaN and null values, no labs, unknown
schema, wrong types) that must give a clear message and never a traceback.
The report is opened in headless Chromium: the screenshot must not be blank
and the page must hold its sections and decoded images.

Which figures exist is make_plots.FIGURES' word, for the labs present in
the results; a lab it does not list (synth.new_lab) gets its series drawn.

Output is TAP; the last line is "plots tests: N passed, N failed".
Run through `make test-plots` (which installs python3-matplotlib and
chromium when it can).
"""
import copy
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLOTS = os.path.dirname(HERE)
sys.path.insert(0, PLOTS)
sys.path.insert(0, HERE)
# English, whatever the tester's locale; the zh test asks for Chinese itself
os.environ["DMALAB_LANG"] = "en"

import matplotlib.image  # noqa: E402

import common as C  # noqa: E402
import make_plots  # noqa: E402
import synth  # noqa: E402

FIXTURES = sorted(glob.glob(os.path.join(HERE, "fixtures", "results-*.json")))
SECTIONS = ["machine", "report-card", "questions", "errata", "plots"]
TMP = tempfile.mkdtemp(prefix="dmalab-plots-test-")
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def write_json(name, doc, **kw):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        json.dump(doc, f, **kw)
    return path


def run_script(script, *args, lang="en", env=None):
    """(rc, stdout + stderr) of a plots/ script run as make runs it (env: more
    of the environment)."""
    p = subprocess.run([sys.executable, os.path.join(PLOTS, script)] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=300,
                       env=dict(os.environ, DMALAB_LANG=lang, **(env or {})))
    return p.returncode, p.stdout


def no_traceback(out):
    check("Traceback" not in out, "a traceback was printed:\n" + out[-2000:])


def image_is_drawn(png, min_colours=8):
    """The PNG decodes and is not one flat colour (nor nearly white)."""
    check(os.path.getsize(png) > 2000, "%s is tiny" % png)
    img = matplotlib.image.imread(png)
    rgb = (img[:, :, :3] * 255).astype("uint8").reshape(-1, 3)
    colours = len({tuple(px) for px in rgb[::7]})
    not_white = float((rgb.min(axis=1) < 240).mean())
    check(colours >= min_colours, "%s has %d colours" % (png, colours))
    check(not_white > 0.01, "%s is %.1f %% non-white" % (png, not_white * 100))
    return colours, not_white


def check_figures(done, outdir):
    for name, _, status, detail in done:
        if status != "drawn":
            check(isinstance(detail, str) and detail, "%s: not drawn without a reason" % name)
            check("broke" not in detail, "%s broke: %s" % (name, detail))
            check(not os.path.exists(os.path.join(outdir, name + ".png")),
                  "%s: stale image left behind" % name)
            continue
        image_is_drawn(os.path.join(outdir, name + ".png"))
        with open(os.path.join(outdir, name + ".svg")) as f:
            check("<svg" in f.read(4000), "%s.svg is not SVG" % name)


def quiet_run(res, outdir):
    with open(os.devnull, "w") as null:
        return make_plots.run(res, outdir, out=null)


# ---------------------------------------------------------------------------

@test
def fixtures_present():
    check(FIXTURES, "no plots/tests/fixtures/results-*.json")


@test
def figures_are_those_of_the_labs_present():
    res = C.as_results(synth.results())
    names = [f["name"] for f in make_plots.figures(res)]
    want = [f["name"] for lab in sorted(lab["id"] for lab in res["labs"])
            for f in make_plots.FIGURES[lab]]
    check(names == want, "make_plots draws %s, not the figures of the labs present %s" % (
        names, want))
    res["labs"] = [lab for lab in res["labs"] if lab["id"] == "04"]
    names = [f["name"] for f in make_plots.figures(res)]
    check(names == ["lab04_latency", "lab04_local_remote"], "lab-04 alone: %s" % names)


@test
def a_new_lab_needs_no_plots_code():
    doc = synth.results()
    doc["labs"] = [synth.new_lab()]
    path = write_json("new.json", doc)
    outdir = os.path.join(TMP, "new")
    rc, out = run_script("make_plots.py", path, outdir)
    no_traceback(out)
    check(rc == 0, "exit %d: %s" % (rc, out))
    check("%-20s drawn" % "lab90_series" in out, "lab90_series not drawn:\n%s" % out)
    image_is_drawn(os.path.join(outdir, "lab90_series.png"))


@test
def one_figure_alone():
    fx = write_json("alone.json", synth.results())
    rc, out = run_script("make_plots.py", fx, os.path.join(TMP, "alone"), "lab09_pairs")
    no_traceback(out)
    check(rc == 0 and out.count(" drawn: ") == 1 and "lab09_pairs" in out, out)
    rc, out = run_script("make_plots.py", fx, os.path.join(TMP, "alone"), "lab99_nothing")
    check(rc == 2 and "no figure lab99_nothing" in out, "exit %d: %s" % (rc, out))


@test
def every_fixture_draws():
    for path in FIXTURES:
        outdir = os.path.join(TMP, "fx-" + os.path.basename(path))
        done = quiet_run(C.load(path), outdir)
        check_figures(done, outdir)
        drawn = [d[0] for d in done if d[2] == "drawn"]
        check(drawn, "%s: no figure drawn" % path)
        print("# %s: drawn %s" % (os.path.basename(path), ", ".join(drawn)))


@test
def synthetic_gpu_results_draw_every_figure():
    outdir = os.path.join(TMP, "synth")
    done = quiet_run(C.as_results(synth.results()), outdir)
    check_figures(done, outdir)
    missing = ["%s: %s" % (d[0], d[3]) for d in done if d[2] != "drawn"]
    check(not missing, "not drawn: %s" % "; ".join(missing))


@test
def nan_and_null_values_are_left_out():
    doc = synth.results()
    for lab in doc["labs"]:
        for s in lab["series"].values():
            for i, p in enumerate(s["points"]):
                p["stats"]["median"] = None if i % 2 else float("nan")
                p["stats"]["samples"] = [float("nan"), None]
        for c in lab["claims"]:
            for st in c["stats"]:
                st["median"] = None
        for k in lab["facts"]:
            lab["facts"][k] = {"value": None, "unit": ""}
    path = write_json("nan.json", doc)  # Python writes NaN, as a lenient writer would
    rc, out = run_script("make_plots.py", path, os.path.join(TMP, "nan"))
    no_traceback(out)
    check(rc == 0, "exit %d: %s" % (rc, out))
    want = len(make_plots.figures(C.as_results(synth.results())))
    check(out.count("not drawn:") == want, "expected all %d not drawn:\n%s" % (want, out))


@test
def partly_null_series_still_draws():
    doc = synth.results()
    pts = doc["labs"][0]["series"]["h2d_pinned"]["points"]
    pts[0]["stats"]["median"] = None
    pts[1]["x"] = None
    outdir = os.path.join(TMP, "partnull")
    done = quiet_run(C.as_results(json.loads(json.dumps(doc))), outdir)
    check(done[0][2] == "drawn", "lab02 not drawn: %s" % done[0][3])


@test
def empty_lab_list_says_so():
    path = write_json("empty.json", {"schema": "dmalab-results/1", "machine": {}, "labs": []})
    rc, out = run_script("make_plots.py", path, os.path.join(TMP, "empty"))
    no_traceback(out)
    check(rc == 0 and "no labs" in out, "exit %d: %s" % (rc, out))


@test
def unknown_schema_is_refused_clearly():
    cases = [({"schema": "dmalab-results/9", "labs": []}, "newer"),
             ({"schema": "something-else/1", "labs": []}, "unknown schema"),
             ({"labs": []}, "no schema"), ([1, 2], "not a JSON object")]
    for i, (doc, want) in enumerate(cases):
        path = write_json("schema%d.json" % i, doc)
        for script in ("make_plots.py", "report.py"):
            rc, out = run_script(script, path, os.path.join(TMP, "schema"))
            no_traceback(out)
            check(rc == 2 and want in out, "%s %r: exit %d: %s" % (script, doc, rc, out))


@test
def unfinished_runs_are_refused():
    """A results.json whose runner died or could not save it is part of a run."""
    for status in ("running", "incomplete"):
        doc = synth.results()
        doc["status"] = status
        path = write_json("unfinished-%s.json" % status, doc)
        for script in ("make_plots.py", "report.py"):
            rc, out = run_script(script, path, os.path.join(TMP, "unfinished"))
            no_traceback(out)
            check(rc == 2 and "unfinished run (status '%s')" % status in out,
                  "%s, status %s: exit %d: %s" % (script, status, rc, out))


@test
def unreadable_files_are_refused_clearly():
    bad = os.path.join(TMP, "bad.json")
    with open(bad, "w") as f:
        f.write("{not json")
    for path, want in ((bad, "not valid JSON"), (os.path.join(TMP, "none.json"), "no such file")):
        rc, out = run_script("make_plots.py", path)
        no_traceback(out)
        check(rc == 2 and want in out, "exit %d: %s" % (rc, out))


@test
def bad_results_files_are_refused_in_one_line():
    deep = os.path.join(TMP, "deep.json")
    with open(deep, "w") as f:
        f.write("[" * 200000 + "]" * 200000)
    cases = [(deep, "nested too deeply"),
             (write_json("labsnull.json", {"schema": "dmalab-results/1", "labs": None}),
              '"labs" is null, not a list of labs'),
             (write_json("nolabs.json", {"schema": "dmalab-results/1"}),
              '"labs" is missing, not a list of labs')]
    for path, want in cases:
        for script in ("make_plots.py", "report.py"):
            rc, out = run_script(script, path, os.path.join(TMP, "refused"))
            no_traceback(out)
            check(rc == 2 and want in out and len(out.strip().splitlines()) == 1,
                  "%s %s: exit %d: %s" % (script, os.path.basename(path), rc, out[-600:]))


def unwritable_dir(name):
    """A directory whose plots/ is a plain file: nothing can be written in it."""
    d = os.path.join(TMP, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "plots"), "w") as f:
        f.write("not a directory\n")
    return d


@test
def figures_that_cannot_be_written_are_errors():
    fx = [p for p in FIXTURES if p.endswith("results-cpu.json")][0]
    drawable = [d[0] for d in quiet_run(C.load(fx), os.path.join(TMP, "w-ok")) if d[2] == "drawn"]
    d = unwritable_dir("w-plots")
    p = subprocess.run([sys.executable, os.path.join(PLOTS, "make_plots.py"), fx,
                        os.path.join(d, "plots")], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    no_traceback(p.stderr)
    check(p.returncode == 1, "make_plots exit %d: %s" % (p.returncode, p.stderr))
    errs = p.stderr.strip().splitlines()
    check(len(errs) == len(drawable), "want one line per figure (%d), got:\n%s" % (
        len(drawable), p.stderr))
    for name, line in zip(drawable, errs):
        check(re.match(r"plots: cannot write %s\S*: \w" % re.escape(os.path.join(d, "plots")),
                       line), "%s: want the path and the reason, got %r" % (name, line))
    check("%d not written" % len(drawable) in p.stdout, p.stdout)
    d = unwritable_dir("w-report")
    rc, out = run_script("report.py", fx, d)
    no_traceback(out)
    check(rc == 1 and "report: not written: %d figure" % len(drawable) in out,
          "report exit %d: %s" % (rc, out))
    check(not os.path.exists(os.path.join(d, "report.html")), "a report without its figures")


def drawn_figures(res):
    """{name: matplotlib figure} of every figure drawn from res, caught at save."""
    caught, save = {}, C.save

    def spy(fig, outdir, name):
        caught[name] = fig
        return save(fig, outdir, name)
    C.save = spy
    try:
        quiet_run(C.as_results(res), os.path.join(TMP, "objects"))
    finally:
        C.save = save
    return caught


def legend_texts(fig):
    leg = fig.axes[0].get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


@test
def figures_speak_words_and_say_what_they_show():
    figs = drawn_figures(synth.results())
    chase = figs["lab08_chase"]
    check(chase.axes[0].get_xscale() == "log",
          "lab08_chase: x axis %s" % chase.axes[0].get_xscale())
    texts = legend_texts(chase)
    check(texts and not any("_" in t for t in texts) and any("4 KiB pages" in t for t in texts),
          "lab08_chase legend: %s" % texts)
    # lab-10 with its GPU paths, then as on a machine without a GPU
    check("into GPU memory" in figs["lab10_paths"]._suptitle.get_text(),
          "lab10_paths with GPU paths: %s" % figs["lab10_paths"]._suptitle.get_text())
    doc = synth.results()
    lab10 = [lab for lab in doc["labs"] if lab["id"] == "10"][0]
    lab10["claims"][0]["stats"] = [st for st in lab10["claims"][0]["stats"]
                                   if st["name"] in ("raw_odirect_host", "buffered_host")]
    title = drawn_figures(doc)["lab10_paths"]._suptitle.get_text()
    check("GPU memory" not in title.replace("no GPU path", "") and "host memory" in title,
          "lab10_paths on host-only data: %s" % title)
    # every shaded band of lab11_crossover is named in its legend
    ax = figs["lab11_crossover"].axes[0]
    bands = [p for p in ax.patches + ax.collections
             if type(p).__name__ in ("Rectangle", "Polygon") and not p.get_label().startswith("_")]
    spans = [p for p in ax.patches if type(p).__name__ in ("Rectangle", "Polygon")]
    texts = legend_texts(figs["lab11_crossover"])
    check(len(spans) == 2 and len(bands) == 2 and all(b.get_label() in texts for b in bands),
          "lab11_crossover: %d bands, %d named, legend %s" % (len(spans), len(bands), texts))


@test
def wrong_types_do_not_break():
    doc = synth.results()
    doc["labs"][0]["series"] = "oops"
    doc["labs"][1]["claims"] = [None, 3, {"stats": "x"}]
    doc["labs"][1]["facts"] = []
    doc["labs"][2]["series"]["latency_node0"]["points"] = [None, {"x": "a"}, 5]
    doc["labs"][3]["claims"][0]["stats"] = [{"name": "cpu_us_per_page", "median": "fast"}]
    doc["machine"]["gpus"] = [None, "gpu"]
    path = write_json("types.json", doc)
    for script in ("make_plots.py", "report.py"):
        rc, out = run_script(script, path, os.path.join(TMP, "types"))
        no_traceback(out)
        check(rc == 0 and "broke" not in out, "%s exit %d: %s" % (script, rc, out))


@test
def single_lab_json_is_accepted():
    lab = synth.results()["labs"][0]
    lab["schema"] = "dmalab-lab/1"
    path = write_json("lab02.json", lab)
    rc, out = run_script("make_plots.py", path, os.path.join(TMP, "single"))
    check(rc == 0 and "lab02_bandwidth      drawn" in out, out)


def make_report(path, name, lang="en", env=None):
    outdir = os.path.join(TMP, "report-" + name)
    rc, out = run_script("report.py", path, outdir, os.path.join(PLOTS, "..", "answers",
                                                                 "errata.md"), lang=lang, env=env)
    no_traceback(out)
    check(rc == 0, "report.py exit %d: %s" % (rc, out))
    # matplotlib's word for a character no font it found has: a tofu box
    check("missing from current font" not in out, "%s: a figure lacks glyphs (is "
          "fonts-noto-cjk installed? harness/deps.sh plots): %s" % (name, out[-600:]))
    with open(os.path.join(outdir, "report.html"), encoding="utf-8") as f:
        page = f.read()
    with open(os.path.join(outdir, "report.md"), encoding="utf-8") as f:
        mdown = f.read()
    return outdir, page, mdown


def report_inputs():
    return [(p, os.path.basename(p)) for p in FIXTURES] + \
        [(write_json("synth.json", synth.results()), "synthetic")]


@test
def report_is_self_contained():
    for path, name in report_inputs():
        outdir, page, mdown = make_report(path, name)
        for sec in SECTIONS:
            check('id="%s"' % sec, "%s: no section %s" % (name, sec))
        drawn = len(glob.glob(os.path.join(outdir, "plots", "*.png")))
        check(page.count('src="data:image/png;base64,') == drawn,
              "%s: %d inlined images for %d figures" % (name, page.count("data:image"), drawn))
        check(not re.search(r'(src|href)="(https?:|//|file:)', page), "%s: external link" % name)
        check("## Report card" in mdown and "## Machine" in mdown, "%s: markdown sections" % name)


def runner_built(what):
    """True when the runner is built; else says the test is skipped."""
    import lang
    if os.access(lang.dmalab_path(), os.X_OK):
        return True
    print("# skipped: %s is not built (make), %s" % (lang.dmalab_path(), what))
    return False


@test
def report_says_what_the_console_says():
    """The report card's got and want are the console's (grade's evidence),
    and its questions are the grade's: all of a claim's questions, only the
    chapters' questions."""
    import report
    if not runner_built("the report's texts come from it"):
        return
    fx = [p for p in FIXTURES if p.endswith("results-cpu.json")][0]
    _, page, mdown = make_report(fx, "console")
    grade, why = report.grade_of(fx, os.path.join(PLOTS, "..", "answers", "errata.md"))
    check(grade, "no grade: %s" % why)
    rows = {line.split(" | ")[0][2:]: line for line in mdown.splitlines()
            if re.match(r"\| \d\d\.\d+ \|", line)}
    texts = report.grade_texts(grade)
    check(texts, "the grade gave no got/want text")
    for cid, text in texts.items():
        got, want = report.split_got_want(text)
        check(cid in rows and "| %s | %s |" % (got, want) in rows[cid],
              "%s: want the console's %r in the report's row %r" % (cid, text, rows.get(cid)))
    card = mdown.split("## Report card")[1].split("## Questions")[0]
    for raw in ("ratio_ge", "in_range", "errno_eq", " errno", "e+0"):
        check(raw not in card, "the report card still shows %r" % raw)
    check(not re.search(r"\| near [^|+]*\|", card), "a 'near' without its tolerance")
    questions = mdown.split("## Questions")[1].split("## Known errata")[0]
    graded = [q["id"] for ch in grade["chapters"] for q in ch["questions"]]
    for qid in graded:
        check("| %s |" % qid in questions, "question %s missing from the report" % qid)
    check("ch1.table" not in questions, "ch1.table listed as a question")
    check("ch2.S7" in graded and "ch2.S8" in graded, "grade lacks ch2.S7/S8: %s" % graded)


@test
def report_lists_the_errata_the_grade_read():
    """The known errata are grade.json's, as the C reader has them: every
    erratum of answers/errata.md, in its order."""
    import report
    if not runner_built("the errata come from its grade"):
        return
    fx = [p for p in FIXTURES if p.endswith("results-cpu.json")][0]
    errata = os.path.join(PLOTS, "..", "answers", "errata.md")
    _, page, mdown = make_report(fx, "errata")
    grade, why = report.grade_of(fx, errata)
    check(grade, "no grade: %s" % why)
    with open(errata, encoding="utf-8") as f:
        ids = [line[3:].strip() for line in f if line.startswith("## ")]
    check([e["id"] for e in grade.get("errata") or []] == ids,
          "grade.json's errata %s, answers/errata.md's %s" % (grade.get("errata"), ids))
    listed = re.findall(r"^- \*\*([0-9.]+)\*\*: says ", mdown.split("## Known errata")[1], re.M)
    check(listed == ids, "the report lists errata %s, answers/errata.md has %s" % (listed, ids))
    first = grade["errata"][0]
    check(html.escape(first["source"][-1]) in page, "%s's last source not in the page" %
          first["id"])


@test
def report_without_the_runner_is_english():
    """No runner (plots/ where the kit is not built): the report is still
    written, in English even when zh is chosen, and says why the errata and
    the grade are missing."""
    fx = [p for p in FIXTURES if p.endswith("results-cpu.json")][0]
    gone = os.path.join(TMP, "no-such-dmalab")
    outdir, page, mdown = make_report(fx, "no-runner", lang="zh", env={"DMALAB": gone})
    check('<html lang="en">' in page, "not an English page without the runner")
    heads = re.findall(r"<h2>([^<]*)</h2>", page)
    check(heads[:2] == ["Machine", "Report card"], "headings without the runner: %s" % heads)
    check("Not listed: <code>dmalab grade</code> reads them" in page and gone in page,
          "the errata section does not say why it is empty")
    check("Not listed: `dmalab grade` reads them" in mdown, "report.md: no word on the errata")


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    raise Fail("chromium not found: `sh harness/deps.sh plots-test` installs it as root")


def browser(page, *args):
    profile = tempfile.mkdtemp(prefix="dmalab-chromium-", dir=TMP)
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--user-data-dir=" + profile] + list(args) + ["file://" + page]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=180)
    return p.returncode, p.stdout, p.stderr


@test
def report_renders_in_chromium():
    for path, name in report_inputs():
        outdir, page, _ = make_report(path, name)
        html_path = os.path.abspath(os.path.join(outdir, "report.html"))
        shot = os.path.join(outdir, "shot.png")
        rc, _, err = browser(html_path, "--screenshot=" + shot, "--window-size=1200,3000")
        check(rc == 0 and os.path.exists(shot), "%s: screenshot failed: %s" % (name, err[-800:]))
        colours, ink = image_is_drawn(shot, min_colours=20)
        rc, dom, err = browser(html_path, "--virtual-time-budget=5000", "--dump-dom")
        check(rc == 0, "%s: --dump-dom failed: %s" % (name, err[-800:]))
        for sec in SECTIONS:
            check('id="%s"' % sec in dom, "%s: the browser's DOM lacks #%s" % (name, sec))
        drawn = len(glob.glob(os.path.join(outdir, "plots", "*.png")))
        want = 'data-images-loaded="%d/%d"' % (drawn, drawn)
        check(want in dom, "%s: want %s in <body>, got %s" % (
            name, want, re.findall(r"<body[^>]*>", dom)))
        print("# %s: screenshot %d colours, %.0f %% ink; %d images decoded" % (
            name, colours, ink * 100, drawn))


def probe_page(path, css, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><style>%s'
                '</style></head><body><p style="font-size:32px;margin:8px">%s</p></body>'
                '</html>' % (css, text))
    shot = path + ".png"
    rc, _, err = browser(os.path.abspath(path), "--screenshot=" + shot, "--window-size=1200,80")
    check(rc == 0 and os.path.exists(shot), "%s: screenshot failed: %s" % (path, err[-800:]))
    img = matplotlib.image.imread(shot)[:, :, :3]
    return img


@test
def a_long_title_wraps_to_the_figure():
    """A title wider than its figure breaks into lines that fit (a Chinese one
    between characters, an English one at spaces), and loses no character."""
    zh = "lab-10：从文件读进主机内存的 GB/s（这里没有运行 GPU 路径），与设备速率对照"
    en = "lab-10: GB/s from a file into host memory (no GPU path ran here), vs the device"
    for title in (zh, en):
        lines = C.wrap_title(title, 6.5).split("\n")
        check(len(lines) == 2, "%r: %d lines" % (title, len(lines)))
        check(max(C.text_columns(x) for x in lines) <= (6.5 - 0.4) * 72 / (12 * 0.55),
              "a line wider than the figure: %r" % lines)
        check("".join(lines).replace(" ", "") == title.replace(" ", ""), "text lost: %r" % lines)
    check(C.wrap_title("short", 6.5) == "short", "a short title changed")


@test
def report_in_zh_shows_its_chinese():
    """DMALAB_LANG=zh: the report's headings, lab titles and claim texts are
    the message table's Chinese, its figures drawn with no missing glyph
    (make_report), and Chromium draws that Chinese with real glyphs, not
    tofu: the report's own headings, in the report's CSS, screenshot
    differently from as many characters that no font has (U+10FFFD), which
    every browser draws as its missing-glyph box.  Without a CJK font both
    are the same boxes and this fails (FONTCONFIG_FILE of a DejaVu-only
    configuration shows it)."""
    if not runner_built("the Chinese texts come from it (dmalab messages)"):
        return
    fx = [p for p in FIXTURES if p.endswith("results-cpu.json")][0]
    outdir, page, _ = make_report(fx, "zh", lang="zh")
    check('<html lang="zh-CN">' in page, "no lang=zh-CN on the zh page")
    heads = re.findall(r"<h2>([^<]*)</h2>", page)
    check(heads[:2] == ["机器", "成绩单"], "zh headings: %s" % heads)
    check("对全新区域 mlock 后" in page and "mlock 与 VmLck" in page,
          "claim 01.1 or lab-01's title not in zh")
    body = page[page.index("<body>"):]
    check("`" not in body, "a literal backtick in the zh page (want <code>)")
    english = [w for w in ("planned:", "this run", "says:", "truth:", "source:", " skipped:")
               if w in body]
    check(not english, "fixed English words in the zh page: %s" % english)
    check(re.search(r"\.badge\{[^}]*white-space:nowrap", page), "a badge may break per character")
    css = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    text = "".join(heads)
    cjk = probe_page(os.path.join(outdir, "cjk.html"), css, text)
    tofu = probe_page(os.path.join(outdir, "tofu.html"), css, "\U0010FFFD" * len(text))
    ink = float((cjk.min(axis=2) < 0.5).mean())
    differ = float((abs(cjk - tofu).max(axis=2) > 0.1).mean())
    fonts = subprocess.run(["fc-list", ":lang=zh", "family"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True).stdout \
        if shutil.which("fc-list") else "(no fc-list)"
    check(differ > 0.02, "the zh headings look like missing-glyph boxes in Chromium (%.1f %% "
          "of pixels differ): no CJK font? fc-list :lang=zh says %r" % (
              differ * 100, fonts.strip()[:200]))
    check(ink > 0.005, "the zh headings left no ink in Chromium")
    print("# zh: %.1f %% ink, %.1f %% of pixels unlike tofu; fc-list :lang=zh: %s" % (
        ink * 100, differ * 100, (fonts.strip().splitlines() or ["none"])[0]))


@test
def history_draws_the_moved_figure_with_its_band():
    doc = {"schema": "dmalab-history/1", "gpus": [{
        "id": "GPU-b", "host": "node-b", "status": "flagged",
        "runs": [{"path": "n%d.json" % i, "started": "2026-11-0%dT02:00:00Z" % (i + 1)}
                 for i in range(6)],
        "figures": [{"key": "02/h2d_pinned_gbs", "unit": "GB/s", "verdict": "low",
                     "values": [55.2, 55.5, 55.3, None, 54.2, 52.1],
                     "band_lo": 53.4, "band_hi": 56.9},
                    {"key": "02.1", "unit": "x", "verdict": "ok", "values": [7.0] * 6,
                     "band_lo": 6.8, "band_hi": 7.2}]}]}
    outdir = os.path.join(TMP, "history")
    rc, out = run_script("history.py", write_json("history.json", doc), outdir)
    no_traceback(out)
    check(rc == 0, "history.py: exit %d: %s" % (rc, out))
    png = os.path.join(outdir, "history-0.png")
    check(out.split() == [png, os.path.join(outdir, "history-0.svg")], "printed: " + out)
    image_is_drawn(png)
    rc, out = run_script("history.py", write_json("not-history.json", {"schema": "x"}), outdir)
    check(rc == 2 and "not a dmalab-history/1 file" in out, "bad file: %d %s" % (rc, out))


def main():
    print("1..%d" % len(TESTS))
    failed = 0
    for i, fn in enumerate(TESTS, 1):
        try:
            fn()
            print("ok %d - %s" % (i, fn.__name__))
        except (Fail, AssertionError) as e:
            failed += 1
            print("not ok %d - %s" % (i, fn.__name__))
            print("# " + str(e).replace("\n", "\n# "))
        except Exception as e:  # a bug in the test or the code under test
            failed += 1
            print("not ok %d - %s: %s: %s" % (i, fn.__name__, type(e).__name__, e))
    shutil.rmtree(TMP, ignore_errors=True)
    print("plots tests: %d passed, %d failed" % (len(TESTS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
