"""The learner's language for the figures and the report: the C side's
choice (harness/base/lang.h) read the same way, and the same message table,
answers/messages.zh.md, as the runner reads it: `dmalab messages` prints it
as JSON, read by harness/base/sections.c, the kit's one reader of its
"## id" / "key: value" files.  English is the default; a message without a
zh entry stays English, and so does every text when the runner is not built
or cannot read the table (the figures and the report are still drawn).

    import lang
    lang.T("plot.size-log2", "transfer size (bytes, log2)")
"""
import json
import os
import subprocess
import sys

PLOTS_DIR = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(PLOTS_DIR, "..", "answers", "messages.zh.md")
# The families matplotlib tries for a character DejaVu Sans lacks, in order:
# Debian's fonts-noto-cjk (harness/deps.sh plots) first.
CJK_FAMILIES = ["Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC",
                "WenQuanYi Zen Hei", "Droid Sans Fallback"]
_table = None


def labs_dir():
    """The built labs, which `dmalab grade` asks for the questions' claims:
    $DMALAB_LABS_DIR, else build/labs beside plots/."""
    return os.environ.get("DMALAB_LABS_DIR") or os.path.join(PLOTS_DIR, "..", "build", "labs")


def dmalab_path():
    """The runner: $DMALAB, else dmalab beside the built labs."""
    return os.environ.get("DMALAB") or os.path.join(os.path.dirname(labs_dir()), "dmalab")


def chosen():
    """'zh' or 'en': DMALAB_LANG, else the first set of LC_ALL, LC_MESSAGES,
    LANG (a value starting with zh chooses Chinese), as the C code does."""
    for name in ("DMALAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        v = os.environ.get(name, "")
        if v:
            return "zh" if v.lower().startswith("zh") else "en"
    return "en"


def lang():
    """The language the figures and the report are in: the one chosen, but
    English when the runner gives no table (every text would be English)."""
    return "zh" if chosen() == "zh" and table() else "en"


def runner_table():
    """({id: zh}, "") from `dmalab messages TABLE` (the copy built into the
    runner when the file is not there), or ({}, why not)."""
    cmd = [dmalab_path(), "messages"] + ([TABLE] if os.path.exists(TABLE) else [])
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return {}, "%s could not run (%s): build the kit with make" % (cmd[0], e)
    if p.returncode:
        said = p.stderr.decode("utf-8", "replace").strip().splitlines()
        return {}, said[-1] if said else "dmalab messages exit %d" % p.returncode
    try:
        return json.loads(p.stdout.decode("utf-8"))["zh"], ""
    except (ValueError, KeyError, TypeError) as e:
        return {}, "dmalab messages printed no table (%s: %s)" % (type(e).__name__, e)


def table():
    """{id: zh}, read once; {} (said once on stderr) when the runner gives
    none: the texts then stay English."""
    global _table
    if _table is None:
        # No runner (plots/ on a machine where the kit is not built): the
        # figures and the report are drawn all the same, in English.
        _table, why = runner_table()
        if why:
            sys.stderr.write("plots: the Chinese texts stay English: %s\n" % why)
    return _table


def T(msg_id, en):
    """The text of message msg_id in the chosen language; en when English is
    chosen or the table has no entry."""
    if lang() != "zh":
        return en
    return table().get(msg_id, en)


def claim_text(claim_id, en):
    """A claim's text as the learner reads it (claim.NN.M in zh)."""
    return T("claim.%s" % claim_id, en)


def use_cjk_font(matplotlib):
    """In zh, let matplotlib fall back to a CJK family for the characters its
    default font lacks (matplotlib >= 3.6 takes a list); return the families
    it found, [] when none is installed (the figures would show boxes)."""
    if lang() != "zh":
        return []
    from matplotlib import font_manager
    fm = font_manager.fontManager
    found = [f for f in CJK_FAMILIES if f in {x.name for x in fm.ttflist}]
    if not found:  # matplotlib's cache predates the font's install: add its files
        for path in font_manager.findSystemFonts():
            if "cjk" in path.lower() or "wqy" in path.lower():
                fm.addfont(path)
        found = [f for f in CJK_FAMILIES if f in {x.name for x in fm.ttflist}]
    if found:
        matplotlib.rcParams["font.family"] = ["DejaVu Sans"] + found
    return found
