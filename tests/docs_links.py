#!/usr/bin/env python3
"""Every relative link and image of the markdown files under DIR resolves:
the file exists, and a #anchor names a heading of it (GitHub's rule:
lower case, punctuation dropped, spaces to hyphens). Run on the installed
docs (tests/install_check.sh) and on the source tree, where build
directories and bench/results/ (untracked output) are skipped.

usage: docs_links.py DIR   (exit 1 naming each broken link)"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def slug(heading):
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(path):
    out, seen = set(), {}
    fence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def links(path):
    fence = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                yield n, target


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__.split("\n\n")[-1] + "\n")
        return 2
    broken, checked = [], 0
    for root, dirs, files in os.walk(argv[1]):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build"))
                         and os.path.join(root, d) != os.path.join(argv[1], "bench", "results"))
        for f in sorted(files):
            if not f.endswith(".md"):
                continue
            path = os.path.join(root, f)
            for n, target in links(path):
                if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                    continue
                checked += 1
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                if not os.path.exists(dest):
                    broken.append("%s:%d: %s: no such file" % (path, n, target))
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    broken.append("%s:%d: %s: no heading #%s there" % (path, n, target, anchor))
    for b in broken:
        print(b)
    print("docs_links: %d relative links in %s, %d broken" % (checked, argv[1], len(broken)))
    return 1 if broken or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
