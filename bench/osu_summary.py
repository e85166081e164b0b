#!/usr/bin/env python3
"""Medians over runs and default/plain ratios from bench/osu.sh's raw runs.

usage: osu_summary.py RAW.tsv [RAW.tsv ...] --tsv SUMMARY.tsv --md SUMMARY.md [--wide]

ratio: the library's performance over plain MPI's, above 1 when the library
is faster: plain time / default time for latency, default / plain for
bandwidth and message rates. ratio_min and ratio_max span the ratios of the
single runs, paired by run number; plain_spread is the largest of plain
MPI's runs over its smallest, plain MPI against itself. A cell misses the
target when its ratio is below 0.97, unless it is a latency under 1 KB
within 0.3 us of plain MPI's.
"""
import argparse
import csv
import re
import statistics
from collections import defaultdict

TESTS = ["latency", "bw", "bibw", "mbw_mr", "wildcard"]
TARGET_RATIO = 0.97
TARGET_SMALL_BYTES = 1024
TARGET_SMALL_US = 0.3


def size_label(b):
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def link_order(link):
    """Fastest first; unshaped before any rate. A simulated fabric's name
    carries its latency after the rate (bench/scale/p2p_sweep.sh: 200gbit-1us)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kmg]?)bit(?:-[\w.]+)?", link)
    if not m:
        return (0, 0.0)
    scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]
    return (1, -float(m.group(1)) * scale)


def ratio(test, plain, default):
    return plain / default if test == "latency" else default / plain


def misses_target(test, size, plain, default):
    if ratio(test, plain, default) >= TARGET_RATIO:
        return False
    return not (test == "latency" and size < TARGET_SMALL_BYTES and default - plain <= TARGET_SMALL_US)


def load(paths):
    runs = defaultdict(lambda: {"plain": {}, "default": {}})
    units = {}
    for path in paths:
        for r in csv.DictReader(open(path), delimiter="\t"):
            key = (r["mpi"], r["link"], r["layout"], r["test"], int(r["bytes"]))
            runs[key][r["side"]][int(r["rep"])] = float(r["value"])
            units[r["test"]] = r["unit"]
    return runs, units


def summarize(runs):
    rows = []
    for (mpi, link, layout, test, size), sides in runs.items():
        if not sides["plain"] or not sides["default"]:
            continue
        plain = statistics.median(sides["plain"].values())
        default = statistics.median(sides["default"].values())
        paired = [ratio(test, sides["plain"][k], sides["default"][k])
                  for k in sides["plain"] if k in sides["default"]]
        rows.append(dict(mpi=mpi, link=link, layout=layout, test=test, bytes=size, plain=plain,
                         default=default, ratio=ratio(test, plain, default),
                         ratio_min=min(paired), ratio_max=max(paired),
                         plain_spread=max(sides["plain"].values()) / min(sides["plain"].values()),
                         delta_us=default - plain if test == "latency" else "",
                         runs=len(paired), misses=misses_target(test, size, plain, default)))
    rows.sort(key=lambda r: (r["mpi"], link_order(r["link"]), r["layout"],
                             TESTS.index(r["test"]), r["bytes"]))
    return rows


def write_tsv(rows, units, path):
    fields = ["mpi", "link", "layout", "test", "bytes", "unit", "plain", "default", "ratio",
              "ratio_min", "ratio_max", "plain_spread", "delta_us", "runs", "misses_target"]
    with open(path, "w") as f:
        f.write("\t".join(fields) + "\n")
        for r in rows:
            values = [r["mpi"], r["link"], r["layout"], r["test"], r["bytes"], units[r["test"]],
                      f"{r['plain']:.6g}", f"{r['default']:.6g}", f"{r['ratio']:.4f}",
                      f"{r['ratio_min']:.4f}", f"{r['ratio_max']:.4f}", f"{r['plain_spread']:.4f}",
                      f"{r['delta_us']:.3f}" if r["delta_us"] != "" else "", r["runs"],
                      int(r["misses"])]
            f.write("\t".join(str(v) for v in values) + "\n")


def write_md(rows, path, wide=False):
    """One table per MPI, link and layout; wide: per MPI and link, the
    layouts side by side."""
    tables = defaultdict(dict)
    for r in rows:
        column = (r["test"], r["layout"]) if wide else (r["test"],)
        title = (r["mpi"], r["link"]) if wide else (r["mpi"], r["link"], r["layout"])
        tables[title][(column, r["bytes"])] = r
    lines = ["# OSU-style point-to-point: default settings / plain MPI", "",
             "Ratio of the library's performance (default settings) to plain MPI's, medians "
             "over runs; above 1 is faster. Latency cells add the difference in us. "
             f"**Bold**: below {TARGET_RATIO} (latency under 1 KB: and more than "
             f"{TARGET_SMALL_US} us slower): the target missed.", ""]
    for title, cells in tables.items():
        columns = sorted({k[0] for k in cells}, key=lambda c: (TESTS.index(c[0]),) + c[1:])
        sizes = sorted({k[1] for k in cells})
        runs = min(r["runs"] for r in cells.values())
        missed = sum(r["misses"] for r in cells.values())
        lines += [f"## {', '.join(title)} ({runs} runs each; {missed} of {len(cells)} "
                  "cells below target)", "",
                  "| size | " + " | ".join(" ".join(c) for c in columns) + " |",
                  "|---:|" + "---:|" * len(columns)]
        for size in sizes:
            row = []
            for c in columns:
                r = cells.get((c, size))
                if r is None:
                    row.append("")
                    continue
                text = f"{r['ratio']:.2f}"
                if c[0] == "latency":
                    text += f" ({r['delta_us']:+.2f} us)"
                row.append(f"**{text}**" if r["misses"] else text)
            lines.append(f"| {size_label(size)} | " + " | ".join(row) + " |")
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", nargs="+")
    parser.add_argument("--tsv", required=True)
    parser.add_argument("--md", required=True)
    parser.add_argument("--wide", action="store_true", help="layouts side by side")
    a = parser.parse_args()
    runs, units = load(a.raw)
    rows = summarize(runs)
    write_tsv(rows, units, a.tsv)
    write_md(rows, a.md, a.wide)


if __name__ == "__main__":
    main()
