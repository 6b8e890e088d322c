"""The learner's language for the figures and the report: the C side's
choice (harness/base/lang.h) read the same way, and the same message table,
answers/messages.zh.md ("## id" then "zh: text"; continuation lines are
indented).  English is the default; a message without a zh entry stays
English.

    import lang
    lang.T("plot.size-log2", "transfer size (bytes, log2)")
"""
import os

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "answers",
                     "messages.zh.md")
# The families matplotlib tries for a character DejaVu Sans lacks, in order:
# Debian's fonts-noto-cjk (harness/deps.sh plots) first.
CJK_FAMILIES = ["Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK TC",
                "WenQuanYi Zen Hei", "Droid Sans Fallback"]
_table = None


def lang():
    """'zh' or 'en': DMALAB_LANG, else the first set of LC_ALL, LC_MESSAGES,
    LANG (a value starting with zh chooses Chinese), as the C code does."""
    for name in ("DMALAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        v = os.environ.get(name, "")
        if v:
            return "zh" if v.lower().startswith("zh") else "en"
    return "en"


def parse(text):
    """{id: zh} of a message table's text."""
    out, cur, key = {}, None, None
    for line in text.splitlines():
        if line.startswith("## "):
            cur, key = line[3:].strip(), None
        elif cur and line.startswith("zh:"):
            key = cur
            out[key] = line[3:].strip()
        elif key and line[:1] in (" ", "\t") and line.strip():
            out[key] += "\n" + line.strip()
        elif not line.strip() or line.startswith("#"):
            key = None if line.startswith("#") else key
    return out


def table():
    global _table
    if _table is None:
        try:
            with open(TABLE, encoding="utf-8") as f:
                _table = parse(f.read())
        except OSError:
            _table = {}
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
