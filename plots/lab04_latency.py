"""lab-04: load latency of a random pointer chase vs working-set size, one
line per memory node (the CPU stays on its node): the L1/L2/L3/DRAM
staircase, with the chapter's local and remote DRAM latencies as marks."""
import re

import common as C

# ch1.Q5 (claims 04.2): about 121 ns local, 186 ns remote
CHAPTER = [(121.0, C.T("plot.l04-chapter-local", "chapter: local DRAM 121 ns")),
           (186.0, C.T("plot.l04-chapter-remote", "chapter: remote DRAM 186 ns"))]


def node_series(lab):
    """[(node, name)] of the latency_nodeN series, by node number."""
    found = []
    for name in C.series_names(lab):
        m = re.match(r"latency_node(\d+)$", name)
        if m:
            found.append((int(m.group(1)), name))
    return sorted(found)


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    nodes = node_series(lab)
    fig, axes = C.new_figure(1, width=8.4, height=5.2)
    ax = axes[0]
    cpu_node = C.fact(lab, "cpu_node")
    xs, empty = [], []
    for node, name in nodes:
        pts = C.series(lab, name)
        if not pts:
            empty.append(name)
            continue
        where = C.T("plot.l04-local", "local") if cpu_node is not None and node == cpu_node \
            else C.T("plot.l04-remote", "remote")
        label = C.T("plot.l04-node", "memory on node %d (%s)") % (
            node, where if cpu_node is not None else "?")
        C.band(ax, pts, label)
        xs += [p[0] for p in pts]
    if not xs:
        raise C.no_data(lab, decl, "lab-04 recorded no latency_nodeN series", fig)
    for i, (y, text) in enumerate(CHAPTER):
        C.ref_hline(ax, y, text, color="0.45", style=":", below=(i == 0))
    C.plain_log_y(ax)
    ax.set_ylim(top=max(ax.get_ylim()[1], CHAPTER[-1][0] * 1.8))  # room for the labels
    C.log2_bytes_axis(ax, xs)
    ax.set_xlabel(C.T("plot.working-set", "working set (bytes, log2)"))
    ax.set_ylabel(C.T("plot.latency-load", "latency per load (ns, log)"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    notes = ["CPU on node %s; one 64-byte line per pointer, random order; "
             "shaded: min-max of the samples" % ("?" if cpu_node is None else "%d" % cpu_node)]
    if len(nodes) < 2:
        notes.append("one memory node here: no remote line")
    if empty:
        notes.append("no finite points: " + ", ".join(empty))
    return C.done(fig, res, decl, outdir, notes)
