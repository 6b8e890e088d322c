#!/usr/bin/env python3
"""mkseeds.py - (re)write the seed corpora of harness/tests/fuzz/corpus/ from
the kit's own fixtures and files (harness/tests/fixtures, answers/,
plots/tests/fixtures) and a few lines of this machine's /proc.  Small, real
inputs only: a fuzz run grows its own corpus elsewhere (README.md).

    python3 harness/tests/fuzz/mkseeds.py          # from the repository root
"""
import json, os, struct, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIX = os.path.join(ROOT, "harness/tests/fixtures")
OUT = os.path.join(ROOT, "harness/tests/fuzz/corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path, limit=None):
    with open(path, "rb") as f:
        data = f.read()
    return data if limit is None else data[:limit]


def tree(base, prefix="", skip=("README.md",)):
    """A fixture tree as fuzz_util.h's records ("=== PATH" then the file)."""
    out = []
    for dirpath, dirs, files in sorted(os.walk(base)):
        dirs.sort()
        for f in sorted(files):
            if f in skip:
                continue
            p = os.path.join(dirpath, f)
            rel = prefix + os.path.relpath(p, base)
            body = read(p).decode("utf-8", "replace")
            if not body.endswith("\n"):
                body += "\n"
            out.append("=== %s\n%s" % (rel, body))
    return "".join(out)


def proc_lines(path, n):
    try:
        with open(path) as f:
            return "".join(f.readlines()[:n])
    except OSError:
        return ""


def main():
    # options and sizes: one argument per line, the first also alone
    for i, s in enumerate(["64M", "1T", "4KiB", "7", "1024", "-1", "0.5", "1000", "1e3",
                           "18446744073709551615", "64M\n--size\n2G\n--iters\n9",
                           "--quick\n--json\nout.json\n--device=1\n--seed\n42",
                           "--chunk\n-3\n--flag\n--verbose", "--size=0\n--iters=1025"]):
        put("opts", "arg-%02d" % i, s)

    # /proc and /sys files
    for f in sorted(os.listdir(os.path.join(FIX, "procfs"))):
        p = os.path.join(FIX, "procfs", f)
        if os.path.isfile(p):
            put("procfs", f, read(p, 4096))
    put("procfs", "meminfo", read(os.path.join(FIX, "one-node/proc/meminfo")))
    put("procfs", "status", read(os.path.join(FIX, "one-node/proc/self/status")))
    put("procfs", "vmstat", "nr_free_pages 1000\nnuma_pages_migrated 12\npgfault 99\n")
    put("procfs", "live-status", proc_lines("/proc/self/status", 60))

    # sysfs trees
    for t in ("one-node", "two-node"):
        put("sysinfo", t, tree(os.path.join(FIX, t)))
        put("numa_topo", t, tree(os.path.join(FIX, t, "sys"), "sys/"))
    put("sysinfo", "gpus", tree(os.path.join(FIX, "gpus/sys"), "sys/"))
    put("gpu_topo", "gpus", tree(os.path.join(FIX, "gpus/sys"), "sys/"))
    put("gpu_topo", "gpus-cuda", tree(os.path.join(FIX, "gpus/sys"), "sys/") +
        "=== cuda\n0000:41:00.0 NVIDIA H200\n00000000:07:00.0 NVIDIA H100\n")
    put("gpu_topo", "one-node", tree(os.path.join(FIX, "one-node/sys"), "sys/"))
    put("numa_topo", "cpulists", "0-3,8,10-11\n0\n\n4095\n0-1,1-2\n")

    # smaps: a few mappings of a live process, and a made-up huge one
    put("smaps", "thp", "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
        "Size:               4096 kB\nRss:                4096 kB\n"
        "AnonHugePages:      4096 kB\nPrivate_Hugetlb:        0 kB\n"
        "THPeligible:    1\nVmFlags: rd wr mr mw me ac hg \n"
        "7f0000400000-7f0000600000 rw-p 00000000 00:00 0 \nRss: 8 kB\n"
        "THPeligible:    0\nVmFlags: rd wr mr mw me nh\n")
    put("smaps", "live", proc_lines("/proc/self/smaps", 48))

    # pagemap: address, length, page shift, then entries
    present = 1 << 63
    entries = [present | 100, present | 101, present | 102, 0, present | 0, present | 7,
               1 << 62, present | 8]
    put("pagemap", "runs", struct.pack("<QQB", 0x1000, 8 * 4096, 12) +
        b"".join(struct.pack("<Q", e) for e in [0] + entries))
    put("pagemap", "short", struct.pack("<QQB", 0, 5 * 4096 + 1, 12) +
        struct.pack("<QQ", present | 5, present | 6) + b"\x01\x02\x03")
    put("pagemap", "huge", struct.pack("<QQB", 0x200000, 0x400000, 21) +
        struct.pack("<QQQ", present | 9, present | 10, present | 12))

    # answers: one question of each chapter, hints, planned claims, a directory
    def first_sections(path, n):
        text = read(path).decode()
        parts = text.split("\n## ")
        return "\n## ".join(parts[:n + 1]) + "\n"
    ch1 = first_sections(os.path.join(ROOT, "answers/ch1.md"), 2)
    ch2 = first_sections(os.path.join(ROOT, "answers/ch2.md"), 1)
    hints = first_sections(os.path.join(ROOT, "answers/hints.md"), 2)
    planned = read(os.path.join(ROOT, "answers/planned-claims.md")).decode()
    put("answers", "ch1", ch1)
    put("answers", "ch2", ch2)
    put("answers", "hints", hints)
    put("answers", "planned", planned)
    put("answers", "dir", "=== ch1.md\n" + ch1 + "=== ch2.md\n" + ch2 + "=== hints.md\n" +
        hints + "=== planned-claims.md\n" + planned)

    # errata
    put("errata", "fake", read(os.path.join(FIX, "errata-fake.md")))
    put("errata", "errata-2", first_sections(os.path.join(ROOT, "answers/errata.md"), 2))
    put("errata", "empty", "")
    put("errata", "relations",
        "ge 3\nin_range 1.25 16\nnear 2 0.5\neq ENOMEM\neq true\nlt -1e300\n")

    # results JSON, cut to two labs and three samples a series
    def trimmed(path, labs=2):
        doc = json.loads(read(path))
        doc["labs"] = doc.get("labs", [])[:labs]
        def cut(o):
            if isinstance(o, dict):
                return {k: cut(v) for k, v in o.items()}
            if isinstance(o, list):
                return [cut(v) for v in o[:3]]
            return o
        return json.dumps(cut(doc), indent=1, ensure_ascii=False)
    cpu = trimmed(os.path.join(ROOT, "plots/tests/fixtures/results-cpu.json"))
    kit = trimmed(os.path.join(FIX, "grade/results-kit.json"))
    put("json_parse", "results-cpu", cpu)
    put("json_parse", "rules-mixed", read(os.path.join(FIX, "grade/rules-mixed.json")))
    put("json_parse", "small", '{"a": [1, -2.5e-3, true, null, "\\u00e9\\ud83d\\ude00"], "b": {}}')
    put("resload", "results-cpu", cpu)
    put("resload", "results-kit", kit)

    # a lab's stdout and record
    build = os.environ.get("BUILD", os.path.join(ROOT, "build"))
    for lab in ("lab-88", "lab-90", "lab-95"):
        exe = os.path.join(build, "fakelabs", lab)
        if not os.access(exe, os.X_OK):
            continue
        rec = "/tmp/dmalab-seed-%d.json" % os.getpid()
        out = subprocess.run([exe, "--json", rec], capture_output=True, text=True).stdout
        try:
            body = read(rec).decode()
            os.unlink(rec)
        except OSError:
            body = ""
        put("tapscan", lab, out[:6000] + ("=== record\n" + body[:6000] if body else ""))
    put("tapscan", "minimal", "TAP version 13\n1..2\nok 1 - 02.1 pinned is faster\n"
        "  ---\n  got: 2.5\n  want: 1.3\n  op: ge\n  ...\n"
        "not ok 2 - 02.2 about 2x # TODO known erratum 02.2\nBail out! broke\n")


if __name__ == "__main__":
    sys.exit(main())
