"""lab-08: ns per load of a random pointer chase against the working set,
on 4 KiB pages and on 2 MiB (transparent huge) pages: the lines kind's
drawing (a log-2 bytes axis, the samples' spread) with legend entries in
words rather than series names."""
import kinds

LABELS = {"chase_4k": "4 KiB pages", "chase_2m": "2 MiB huge pages (THP)"}


def draw(res, outdir, decl):
    return kinds.draw_lines(res, outdir, decl, labels=LABELS)
