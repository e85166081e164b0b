#!/usr/bin/env python3
"""Default against the best forced mode, from bench/default_vs_best.sh's CSVs.

Runs of one label (MPI, layout, link) are pooled: each mode's time in a
cell is the median over runs of its per-run medians. The best forced mode
is the fastest of plain, lossless and pipelined; a cell meets the
target when the default takes no more than best / 0.97. Prints one
Markdown table per label and the cells under target.
    bench/default_vs_best.py bench/results/default-vs-best/*.csv
"""
import csv
import statistics
import sys
from collections import OrderedDict, defaultdict

FORCED = ("plain", "lossless", "pipelined")
TARGET = 0.97


def human(b):
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return "%d%s" % (b >> shift, unit)
    return str(b)


def main(paths):
    times = OrderedDict()  # label -> op -> bytes -> mode -> [median_s per run]
    wrong = []
    for path in paths:
        for r in csv.DictReader(open(path)):
            cell = times.setdefault(r["label"], OrderedDict()).setdefault(r["op"], OrderedDict())
            cell.setdefault(int(r["bytes"]), defaultdict(list))[r["mode"]].append(float(r["median_s"]))
            if r["ok"] != "1":
                wrong.append("%s %s %s %s" % (r["label"], r["op"], r["mode"], human(int(r["bytes"]))))
    under = []
    worst = None
    for label, ops in times.items():
        print("### %s\n" % label)
        print("Default's time as a fraction of the best forced mode's (best / default; "
              "target >= %.2f), and which mode was best. Runs per cell: %d.\n"
              % (TARGET, max(len(m) for o in ops.values() for c in o.values() for m in c.values())))
        sizes = sorted({b for o in ops.values() for b in o})
        print("| bytes | " + " | ".join(ops) + " |")
        print("|---" * (len(ops) + 1) + "|")
        for b in sizes:
            row = []
            for op, cells in ops.items():
                c = cells.get(b)
                if not c or "default" not in c:
                    row.append("")
                    continue
                med = {m: statistics.median(v) for m, v in c.items()}
                best = min(FORCED, key=lambda m: med.get(m, float("inf")))
                ratio = med[best] / med["default"]
                row.append("%.2f (%s)" % (ratio, best))
                if ratio < TARGET:
                    under.append("%s %s %s: %.2f of %s" % (label, op, human(b), ratio, best))
                if worst is None or ratio < worst[0]:
                    worst = (ratio, "%s %s %s" % (label, op, human(b)))
            print("| %s | %s |" % (human(b), " | ".join(row)))
        print()
    if worst:
        print("Worst cell: %.2f (%s). Cells under %.2f: %d%s\n"
              % (worst[0], worst[1], TARGET, len(under), "".join("\n- " + u for u in under)))
    if wrong:
        print("WRONG results: " + "; ".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
