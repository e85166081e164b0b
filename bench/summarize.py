#!/usr/bin/env python3
"""Turns adacomp-bench CSVs into the Markdown tables of docs/benchmarks.md,
with the targets checked against the Allreduce rows.

usage: summarize.py RUN.csv [RUN.csv ...] > table.md
"""
import csv
import sys
from collections import defaultdict


def human(b):
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def main():
    for path in sys.argv[1:]:
        rows = list(csv.DictReader(open(path)))
        if not rows:
            continue
        label = rows[0]["label"]
        table = defaultdict(dict)
        modes = []
        for r in rows:
            if r["mode"] not in modes:
                modes.append(r["mode"])
            table[(r["op"], int(r["bytes"]))][r["mode"]] = r
        for op in dict.fromkeys(r["op"] for r in rows):
            print(f"\n### {op}, {label}, 2 ranks: median ms per call (speedup over raw)\n")
            print("| bytes | " + " | ".join(modes) + " |")
            print("|---:|" + "---:|" * len(modes))
            for (o, size), cells in sorted(table.items()):
                if o != op:
                    continue
                out = []
                for m in modes:
                    c = cells.get(m)
                    flag = "" if c is None or c["ok"] == "1" else " WRONG"
                    out.append("" if c is None else f"{float(c['median_s']) * 1e3:.2f} ({float(c['speedup_vs_raw']):.2f}x){flag}")
                print(f"| {human(size)} | " + " | ".join(out) + " |")
        ar = {size: cells for (o, size), cells in table.items() if o == "allreduce"}
        if not ar:
            continue

        def speed(size, mode):
            c = ar.get(size, {}).get(mode)
            return float(c["speedup_vs_raw"]) if c else float("nan")

        def secs(size, mode):
            c = ar.get(size, {}).get(mode)
            return float(c["median_s"]) if c else float("nan")

        worst = min(((speed(s, "adaptive"), s) for s in ar), default=(float("nan"), 0))
        print(f"\n**Targets, Allreduce at {label}:**\n")
        print(f"- adaptive never more than 5% slower than raw: worst {worst[0]:.2f}x at {human(worst[1])}"
              f" ({'met' if worst[0] >= 0.95 else 'not met'})")
        mb8, mb32 = 8 << 20, 32 << 20
        print(f"- 8 MB lossless >= 1.4x raw: {speed(mb8, 'lossless'):.2f}x"
              f" ({'met' if speed(mb8, 'lossless') >= 1.4 else 'not met'})")
        print(f"- 8 MB lossy (rel. bound 1e-4) >= 6x raw: {speed(mb8, 'lossy'):.2f}x"
              f" ({'met' if speed(mb8, 'lossy') >= 6 else 'not met'})")
        ratio = secs(mb32, "lossy") / secs(mb32, "pipelined")
        print(f"- 32 MB pipelined lossy >= 1.2x non-pipelined lossy: {ratio:.2f}x"
              f" ({'met' if ratio >= 1.2 else 'not met'})")


if __name__ == "__main__":
    main()
