"""sanitize_classify.py LAB LOG EXPECTED RC - sort one compute-sanitizer log
into the reports a claim provokes on purpose (EXPECTED, sanitize-expected.txt)
and the others.  Prints a summary and each kind; exits 1 on an unexpected
report, a lab that broke (RC 99) or a run that did not end (RC >= 124).

A report is a CUDA API error ("Program hit ERR ... call to CALL"), an invalid
device access, or a leak; its host frames are the functions of the
backtrace under it.  An expected entry "LAB api CALL:ERR[@FRAME]" matches an
API error of that call and code (with FRAME among its frames, if given);
"LAB access FRAME" and "LAB leak FRAME" match a report with FRAME among its
frames.
"""
import re
import sys


def load_expected(path):
    expect = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            lab, kind, what, reason = line.rstrip("\n").split(" ", 3)
            expect[(lab, kind, what)] = reason
    return expect


def frames_after(text, i):
    names = []
    for line in text[i + 1:i + 40]:
        if "Program hit" in line or "Leaked" in line or re.search(r"=== (Invalid|Out-of)", line):
            break
        m = re.search(r"Host Frame: ([A-Za-z_]\w*)[( \[]", line)
        if m:
            names.append(m.group(1))
    return names


def match(expect, lab, kind, what, frames):
    for (l, k, w) in expect:
        if l != lab or k != kind:
            continue
        head, _, within = w.partition("@")
        if kind == "api" and head == what and (not within or within in frames):
            return (l, k, w)
        if kind != "api" and w in frames:
            return (l, k, w)
    return None


def reports(text):
    for i, line in enumerate(text):
        m = re.search(r"Program hit (\w+) \(error \d+\).* on CUDA API call to (\w+)", line)
        if m:
            yield "api", "%s:%s" % (m.group(2), m.group(1)), frames_after(text, i)
        elif re.search(r"=== (Invalid __\w+__ \w+|Out-of-range|Misaligned)", line):
            yield "access", None, frames_after(text, i)
        elif re.search(r"=== Leaked [\d,]+ bytes", line):
            yield "leak", None, frames_after(text, i)


def main(lab, log, exp_path, rc):
    expect = load_expected(exp_path)
    text = open(log, errors="replace").read().split("\n")
    named, unexpected = {}, {}
    for kind, what, frames in reports(text):
        key = match(expect, lab, kind, what, frames)
        if key:
            named[key] = named.get(key, 0) + 1
        else:
            shown = what or next((f for f in frames if not f.startswith("cu")), "?")
            unexpected[(kind, shown)] = unexpected.get((kind, shown), 0) + 1
    summary = [l.strip("= ") for l in text if "ERROR SUMMARY:" in l or "LEAK SUMMARY:" in l]
    print("gpu-sanitize: lab-%s: exit %d; %s" % (lab, rc, "; ".join(summary[:2])))
    for key, n in sorted(named.items()):
        print("  expected   %-6s %s x%d: %s" % (key[1], key[2], n, expect[key]))
    for (kind, what), n in sorted(unexpected.items()):
        print("  UNEXPECTED %-6s %s x%d (see %s)" % (kind, what, n, log))
    if rc == 99 or rc >= 124:  # broke or did not end: its reports are not all there
        print("  BROKE      the lab ended with exit %d under the sanitizer (see %s)" % (rc, log))
    return 1 if unexpected or rc == 99 or rc >= 124 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
