"""msg_conversions.py - every MSG("id", "English" ...) of the kit's C code
whose zh text in answers/messages.zh.md takes other printf arguments: such a
text is never shown (lang.c falls back to English at run time), so the
learner silently reads English.  Prints one line per mismatch and
"msg conversions: N checked, M differ"; exit 1 when any differ.

usage: python3 harness/tests/tools/msg_conversions.py   (from the repository root)
"""
import glob
import re
import sys

TABLE = "answers/messages.zh.md"
# what decides a conversion's argument, as lang.c's conversion_kind: the
# length modifier and the letter ("%+.1f" and "%.0f" are both "f")
CONV = re.compile(r"%(%|[-+ #0-9.*]*([hljztL]*)([a-zA-Z]))")
CALL = re.compile(r'MSG\("([^"]+)",\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)')


def kinds(fmt):
    return [m.group(2) + m.group(3) for m in CONV.finditer(fmt) if m.group(1) != "%"]


def table():
    out, cur = {}, None
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                cur = line[3:].strip()
            elif cur and line.startswith("zh:"):
                out[cur] = line[3:].strip()
    return out


def main():
    zh = table()
    sources = [p for p in glob.glob("harness/**/*.[ch]", recursive=True) +
               glob.glob("labs/*/*.c") + glob.glob("labs/*/*.cu") + glob.glob("labs/*/*.h")
               if "/tests/" not in p]
    checked = differ = 0
    for path in sorted(sources):
        with open(path, encoding="utf-8") as f:
            src = f.read()
        for m in CALL.finditer(src):
            en = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
            checked += 1
            if m.group(1) in zh and kinds(en) != kinds(zh[m.group(1)]):
                differ += 1
                print("%s: %s: English takes %s, zh %s" % (
                    path, m.group(1), kinds(en), kinds(zh[m.group(1)])))
    print("msg conversions: %d checked, %d differ" % (checked, differ))
    return 1 if differ or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
