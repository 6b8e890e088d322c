"""lab-08: ns per load of a random pointer chase against the working set,
on 4 KiB pages and on 2 MiB (transparent huge) pages: the lines kind's
drawing (a log-2 bytes axis, the samples' spread) with legend entries in
words rather than series names."""
import sys

import common as C
import kinds

NAME = "lab08_chase"
LABELS = {"chase_4k": "4 KiB pages", "chase_2m": "2 MiB huge pages (THP)"}


def draw(res, outdir, decl=None):
    decl = decl or {"lab": "08", "name": NAME, "series": list(LABELS), "facts": [],
                    "claims": ["08.1"], "title": "lab-08: pointer chase on 4 KiB and 2 MiB pages"}
    return kinds.draw_lines(res, outdir, decl, labels=LABELS)


if __name__ == "__main__":
    sys.exit(C.main_one(NAME, draw))
