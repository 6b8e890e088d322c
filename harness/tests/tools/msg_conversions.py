"""msg_conversions.py - every MSG("id", "English" ...) of the kit's C code
whose zh text in answers/messages.zh.md takes other printf arguments: such a
text is never shown (lang.c falls back to English at run time), so the
learner silently reads English.  And every claim_note, lab_note or
lab_progress whose format is not a MSG(), and every claim_check_true whose
text is a string literal outside MSG(): it would stay English in zh.
Prints one line per mismatch and "msg conversions: N checked, M differ";
exit 1 when any differ.

usage: python3 harness/tests/tools/msg_conversions.py   (from the repository root)
"""
import glob
import re
import sys

TABLE = "answers/messages.zh.md"
ID_MAX = 23  # harness/base/sections.h: char id[24]
# what decides a conversion's argument, as lang.c's conversion_kind: the
# length modifier and the letter ("%+.1f" and "%.0f" are both "f")
CONV = re.compile(r"%(%|[-+ #0-9.*]*([hljztL]*)([a-zA-Z]))")
# the English: string literals, and inttypes.h's PRI macros between them
CALL = re.compile(r'MSG\("([^"]+)",\s*((?:(?:"(?:[^"\\]|\\.)*"|PRI[diouxX](?:8|16|32|64))\s*)+)\)')
# what a PRI macro expands to on the kit's machines (x86_64, LP64 glibc)
PRI = re.compile(r'PRI([diouxX])(8|16|32|64)')
# claim_note(L, fmt, ...) and claim_note_add: fmt must be a MSG() (a note the
# learner reads in zh); a lab's own printf-like wrapper passes a MSG() on
# lab_note and lab_progress (the narration): a format written out must be a
# MSG() too; "%s" alone passes on a line the lab made of numbers and names
SAY = re.compile(r'\b(?:lab_note|lab_progress)\(\s*[^,()]+(?:\([^()]*\))?[^,()]*,\s*"(?!%s")')
NOTE = re.compile(r'\bclaim_note(?:_add)?\(\s*[^,()]+(?:\([^()]*\))?[^,()]*,(?!\s*MSG\()')
# claim_check_true(L, id, got, what): what is prepended to the claim's note,
# so a text written out must be a MSG() (a runtime string, e.g. an API's
# error line, passes); its call runs to the first ");"
CHECK_TRUE = re.compile(r'\bclaim_check_true\((.*?)\);', re.S)
MSG_CALL = re.compile(r'MSG\("[^"]*",\s*(?:"(?:[^"\\]|\\.)*"\s*)+\)')


def english(literals):
    """The English format of a MSG call's literals, PRI macros expanded."""
    out = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"|PRI([diouxX])(8|16|32|64)', literals):
        if m.group(1) is not None:
            out.append(m.group(1))
        else:
            out.append({"8": "hh", "16": "h", "32": "", "64": "l"}[m.group(3)] + m.group(2))
    return "".join(out)


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
            if len(m.group(1)) > ID_MAX:
                differ += 1
                print("%s: %s: an id over %d characters, cut short where the table is "
                      "read (sections.h's id[24]): never found" % (path, m.group(1), ID_MAX))
            en = english(m.group(2))
            checked += 1
            if m.group(1) in zh and kinds(en) != kinds(zh[m.group(1)]):
                differ += 1
                print("%s: %s: English takes %s, zh %s" % (
                    path, m.group(1), kinds(en), kinds(zh[m.group(1)])))
        for m in NOTE.finditer(src):
            if "struct lab" in m.group(0):
                continue  # its declaration and definition
            line = src.count("\n", 0, m.start()) + 1
            differ += 1
            print("%s:%d: a claim note without MSG(): the learner reads it in English" %
                  (path, line))
        for m in CHECK_TRUE.finditer(src):
            if "struct lab" in m.group(1):
                continue  # its declaration and definition
            args = MSG_CALL.sub("", m.group(1)).split(",", 3)
            if len(args) < 4 or not re.search(r'"[^"]*[A-Za-z]{3,}', args[3]):
                continue  # its id alone a literal
            line = src.count("\n", 0, m.start()) + 1
            differ += 1
            print("%s:%d: a claim_check_true text without MSG(): the learner reads it in "
                  "English" % (path, line))
        for m in SAY.finditer(src):
            lit = re.match(r'"((?:[^"\\]|\\.)*)"', src[m.end() - 1:]).group(1)
            if not re.search(r"[A-Za-z]{3,}", CONV.sub("", lit)):
                continue  # a table row: numbers and names, no words
            line = src.count("\n", 0, m.start()) + 1
            differ += 1
            print("%s:%d: narration without MSG(): the learner reads it in English" %
                  (path, line))
    print("msg conversions: %d checked, %d differ" % (checked, differ))
    return 1 if differ or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
