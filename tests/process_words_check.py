#!/usr/bin/env python3
"""Tracked text speaks of the product, never of how the work on it was
organised: no sessions, subagents or helpers of the work, no numbered turns
or tasks, no private notes directories; in the docs (markdown and man
pages) also no dates and no issue numbers narrating progress. History
belongs in git and CHANGELOG.md, which may date its entries.

Technical uses stay allowed: MPI sessions (MPI_Session, "MPI-4 sessions"),
ssh and login sessions, and code "helpers" (functions); "in turn" and
"take turns" are ordinary English.

usage: process_words_check.py [ROOT]   (default: the repository holding this
       script; exit 1 naming each file:line and the word)"""
import os
import re
import subprocess
import sys

# Everywhere.
WORDS = [
    (re.compile(r"\bsub-?agents?\b", re.I), "subagent"),
    (re.compile(r"\bsessions?\b", re.I), "session"),
    (re.compile(r"\bturns? \d+\b", re.I), "numbered turn"),
    (re.compile(r"\btasks? #?\d+\b", re.I), "numbered task"),
    (re.compile(r"/work/notes\b"), "private notes"),
    (re.compile(r"\b(?:lead|helper) (?:engineer|agent|session)s?\b", re.I), "who did the work"),
]
# Technical uses of "session".
ALLOWED_SESSION = re.compile(
    r"MPI[_ -]?(?:4 )?Sessions?|(?:ssh|login|terminal|shell|tmux|screen|user|X11|D-Bus) sessions?|"
    r"sessions? (?:model|handle|leader)|setsid|Session_\w+", re.I)
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# In the docs only (markdown and man pages but CHANGELOG.md).
DOC_WORDS = [
    (re.compile(r"\b\d{1,2} (?:%s)\b|\b(?:%s) \d{1,2}(?:st|nd|rd|th)?\b" % (MONTHS, MONTHS)), "date"),
    (re.compile(r"\b20\d\d-\d\d-\d\d\b"), "date"),
    (re.compile(r"\bissues? #?\d+", re.I), "issue number"),
    (re.compile(r"\bhelpers?\b", re.I), "helper"),
]
SELF = os.path.basename(__file__)


def tracked(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        return [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def is_doc(path):
    return (path.endswith(".md") and os.path.basename(path) != "CHANGELOG.md") or \
        path.startswith("man/")


def check(root, path):
    full = os.path.join(root, path)
    try:
        with open(full, "rb") as f:
            data = f.read(2 << 20)
    except OSError:
        return []
    if b"\0" in data:
        return []  # binary
    text = data.decode("utf-8", "replace")
    rules = WORDS + (DOC_WORDS if is_doc(path) else [])
    hits = []
    for n, line in enumerate(text.splitlines(), 1):
        for rx, what in rules:
            for m in rx.finditer(line):
                if what == "session" and any(
                        a.start() <= m.start() < a.end() for a in ALLOWED_SESSION.finditer(line)):
                    continue
                hits.append("%s:%d: %s (%r)" % (path, n, what, m.group(0)))
    return hits


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        sys.stdout.write(__doc__)
        return 0 if len(argv) == 2 else 2
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       os.pardir)
    files = [f for f in tracked(root) if os.path.basename(f) != SELF]
    hits = [h for f in files for h in check(root, f)]
    for h in hits:
        print(h)
    print("process_words: %d tracked files, %d words about how the work was organised"
          % (len(files), len(hits)))
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
