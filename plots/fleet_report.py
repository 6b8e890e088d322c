"""The fleet page: one self-contained HTML file from `dmalab compare`'s JSON
(dmalab-compare/1, harness/PROTOCOL.md 8), the merge step of `make fleet`.

usage: fleet_report.py FLEET.json OUT.html

One table of nodes, the bad ones first (missing: allocated but no results
came back, from jobs/fleet-nodes.json beside FLEET.json when `make fleet`
wrote one; flagged, most items that moved the bad way first; then unjudged;
then ok): status, host, machine type and GPUs, and each flagged item with
its likely causes.  Above it the rules the
compare used (P, the spread) and the totals.  No script, no external file:
the page alone is the report.  Python 3 standard library only.
Exit 0 when written, 2 when FLEET.json cannot be used.
"""
import html
import json
import os
import sys

CSS = """
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a}
main{max-width:1200px;margin:0 auto;padding:16px 24px 40px}
h1{font-size:22px;margin:6px 0 10px}
table{border-collapse:collapse;width:100%;font-size:13px;margin-top:10px}
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f3f5f7}
tr.flagged td{background:#fff8f8}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;\
font-weight:600;color:#fff}
.flagged{background:#cf222e}.ok{background:#1a7f37}.unjudged{background:#8c959f}
.missing{background:#6e2b8b}tr.missing td{background:#fbf6ff}
.item{margin:2px 0}.item.bad{font-weight:600}
.cause{color:#57606a;margin-left:14px;font-size:12px}
.muted{color:#57606a;font-size:12px}
"""

ORDER = {"missing": -1, "flagged": 0, "unjudged": 1, "ok": 2}


class BadFleet(Exception):
    pass


def esc(v):
    return html.escape("" if v is None else str(v))


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BadFleet("%s: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("schema") != "dmalab-compare/1" or \
            not isinstance(doc.get("nodes"), list):
        raise BadFleet("%s: not a dmalab-compare/1 document (dmalab compare --json-out)" % path)
    return doc


def missing_nodes(fleet_json):
    """The nodes `make fleet` allocated that sent no results (fleet-nodes.json's
    "missing"), as rows; [] without that file (a plain compare)."""
    path = os.path.join(os.path.dirname(os.path.abspath(fleet_json)), "jobs", "fleet-nodes.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return []
    rows = []
    for m in doc.get("missing") or [] if isinstance(doc, dict) else []:
        if not isinstance(m, dict):
            continue
        host = m.get("node") or "%s node%s of job %s" % (
            m.get("count", "?"), "" if m.get("count") == 1 else "s", m.get("job"))
        rows.append({"status": "missing", "host": host, "flagged": 0,
                     "items": [{"bad": True, "text": "no results: %s" % (m.get("why") or "?")}]})
    return rows


def ordered(nodes):
    """Bad nodes first: flagged (most bad items first), unjudged, ok; stable."""
    return sorted((n for n in nodes if isinstance(n, dict)),
                  key=lambda n: (ORDER.get(n.get("status"), 1), -(n.get("bad") or 0),
                                 -(n.get("flagged") or 0)))


def gpus_text(node):
    gpus = [g for g in node.get("gpus") or [] if isinstance(g, dict)]
    return ", ".join("GPU %s %s %s" % (g.get("index"), g.get("uuid") or "", g.get("bdf") or "")
                     for g in gpus)


def items_html(node):
    """The bad items with their causes; a flagged node's notes folded below them
    (an ok node's notes say nothing about its health, and are left out)."""
    items = [it for it in node.get("items") or [] if isinstance(it, dict)]
    bad = [it for it in items if it.get("bad")]
    notes = [it for it in items if not it.get("bad")]
    html = bad_items_html(bad)
    if bad and notes:
        html += '<details><summary class="muted">%d note%s</summary>%s</details>' % (
            len(notes), "" if len(notes) == 1 else "s",
            "".join('<div class="item">%s</div>' % esc(it.get("text")) for it in notes))
    return html


def bad_items_html(items):
    """Each item; the causes after the last of a run of items that share them."""
    out = []
    for k, it in enumerate(items):
        out.append('<div class="item%s">%s</div>' % (" bad" if it.get("bad") else "",
                                                     esc(it.get("text"))))
        causes = it.get("causes") or []
        if k + 1 < len(items) and (items[k + 1].get("causes") or []) == causes:
            continue
        out += ['<div class="cause">likely cause: %s</div>' % esc(c) for c in causes]
    return "".join(out)


def node_row(node):
    status = node.get("status") or "?"
    return ('<tr class="%s"><td><span class="badge %s">%s</span></td><td>%s</td>'
            '<td>%s<div class="muted">%s</div></td><td>%s</td><td>%s</td></tr>' % (
                esc(status), esc(status), esc(status), esc(node.get("host")),
                esc(node.get("key_text")), esc(gpus_text(node)), esc(node.get("flagged")),
                items_html(node) or '<span class="muted">nothing flagged</span>'))


def render(doc, missing=()):
    totals = doc.get("totals") or {}
    rules = doc.get("rules") or {}
    base = doc.get("baseline") or {}
    against = ("the baseline '%s' (%s runs)" % (base.get("name"), base.get("runs"))
               if doc.get("against") == "baseline" else "the fleet")
    title = "dmalab fleet: %s of %s nodes flagged" % (totals.get("flagged", "?"),
                                                      totals.get("nodes", "?"))
    if missing:
        title += ", %d missing" % len(missing)
    rows = "".join(node_row(n) for n in ordered(list(missing) + list(doc["nodes"])))
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>%s</title><style>%s</style></head><body><main>" % (esc(title), CSS),
        '<h1 id="title">%s</h1>' % esc(title),
        '<p id="rules">Against %s. A rate that fell or a time that rose is flagged when it lies '
        "%s the spread (%s) %s more than %s %% from the median; a claim when its verdict is "
        "worse than the majority's. Other moves are notes and never flag a node.</p>" % (
            esc(against), "outside", esc(rules.get("spread")),
            "or" if rules.get("figure_rule") == "either" else "and", esc(rules.get("pct"))),
        '<p id="totals">%s ok, %s flagged, %s unjudged; written %s by dmalab %s.</p>' % (
            esc(totals.get("ok")), esc(totals.get("flagged")), esc(totals.get("unjudged")),
            esc(doc.get("created")), esc((doc.get("dmalab") or {}).get("version"))),
        '<table id="nodes"><tr><th>status</th><th>host</th><th>machine type, GPUs</th>'
        "<th>items</th><th>flagged items and their likely causes</th></tr>%s</table>" % rows,
        "</main></body></html>", ""])


def main(argv):
    if len(argv) != 3:
        print("usage: fleet_report.py FLEET.json OUT.html", file=sys.stderr)
        return 2
    try:
        doc = load(argv[1])
    except BadFleet as e:
        print("fleet_report: %s" % e, file=sys.stderr)
        return 2
    tmp = argv[2] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(render(doc, missing_nodes(argv[1])))
    os.replace(tmp, argv[2])
    print("fleet_report: wrote %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
