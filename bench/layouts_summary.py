#!/usr/bin/env python3
"""Markdown tables from bench/layouts.sh's CSVs (bench/results/layout-*.csv).

For each layout: one table per operation, median ms of plain MPI and the
speedup of every other mode over it, each cell checked; for the one-node
layouts also the worst ratio of default to plain against the limit
(1.03x plain + 1 us).
    bench/layouts_summary.py bench/results/layout-*.csv > bench/results/layouts.md
"""
import csv
import sys
from collections import OrderedDict


def label(b):
    b = int(b)
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return "%d%s" % (b >> shift, unit)
    return str(b)


def main(paths):
    for path in paths:
        rows = list(csv.DictReader(open(path)))
        if not rows:
            continue
        name = rows[0]["label"]
        ops = OrderedDict()
        for r in rows:
            ops.setdefault(r["op"], OrderedDict()).setdefault(int(r["bytes"]), {})[r["mode"]] = r
        modes = list(OrderedDict((r["mode"], 1) for r in rows))
        print("### %s\n" % name)
        worst = None
        over = []
        for op, sizes in ops.items():
            print("**%s**: plain MPI ms per call; other modes: speedup over plain\n" % op)
            print("| bytes | " + " | ".join(modes) + " |")
            print("|---" * (len(modes) + 1) + "|")
            for b, cells in sizes.items():
                plain = float(cells["plain"]["median_s"]) if "plain" in cells else None
                out = []
                for m in modes:
                    c = cells.get(m)
                    if not c:
                        out.append("")
                        continue
                    t = float(c["median_s"])
                    ok = "" if c["ok"] == "1" else " WRONG"
                    if m == "plain":
                        out.append("%.3f%s" % (t * 1e3, ok))
                    else:
                        out.append("%.2fx%s" % (plain / t, ok))
                    if m == "default" and plain and name.endswith("shm"):
                        ratio = t / plain
                        if worst is None or ratio > worst[0]:
                            worst = (ratio, op, b)
                        if t > plain * 1.03 + 1e-6:
                            over.append("%s %s: %.3f vs %.3f ms" % (op, label(b), t * 1e3, plain * 1e3))
                print("| %s | %s |" % (label(b), " | ".join(out)))
            print()
        if worst:
            print("Default against plain on one node: worst %.3fx (%s %s); cells over "
                  "1.03x + 1 us: %d%s\n" % (worst[0], worst[1], label(worst[2]), len(over),
                                            (" (" + "; ".join(over) + ")") if over else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
