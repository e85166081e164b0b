#!/usr/bin/env python3
"""Plots bench/osu.sh's summary: default/plain against message size, one
figure per link (osu-<link>.png), one panel per MPI, a line per test
(colour) and layout (line style), with the 0.97 target marked.

usage: osu_plot.py SUMMARY.tsv [--out DIR]
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from osu_summary import TARGET_RATIO, TESTS, link_order, size_label  # noqa: E402

STYLES = ["-", "--", ":", "-."]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("summary")
    parser.add_argument("--out", default=".")
    a = parser.parse_args()
    lines = defaultdict(list)  # (link, mpi, layout, test) -> [(bytes, ratio)]
    for r in csv.DictReader(open(a.summary), delimiter="\t"):
        lines[(r["link"], r["mpi"], r["layout"], r["test"])].append((int(r["bytes"]), float(r["ratio"])))
    layouts = sorted({k[2] for k in lines})
    for link in sorted({k[0] for k in lines}, key=link_order):
        mpis = sorted({k[1] for k in lines if k[0] == link})
        fig, axes = plt.subplots(1, len(mpis), figsize=(7 * len(mpis), 4.5), sharey=True, squeeze=False)
        for ax, mpi in zip(axes[0], mpis):
            sizes = set()
            for (l, m, layout, test), points in sorted(lines.items()):
                if (l, m) != (link, mpi):
                    continue
                points.sort()
                sizes.update(p[0] for p in points)
                ax.plot([p[0] for p in points], [p[1] for p in points], marker=".",
                        color=f"C{TESTS.index(test)}", linestyle=STYLES[layouts.index(layout) % len(STYLES)],
                        label=f"{test} {layout}")
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.axhline(TARGET_RATIO, color="red", linewidth=0.8, linestyle=":", label=f"target {TARGET_RATIO}")
            ax.set_xscale("log", base=2)
            ticks = [s for s in sorted(sizes) if s & (s - 1) == 0][::2]
            ax.set_xticks(ticks, [size_label(s) for s in ticks], rotation=45)
            ax.set_xlabel("message size (bytes)")
            ax.set_title(f"{mpi}, link {link}")
            ax.grid(True, alpha=0.3)
        axes[0][0].set_ylabel("default / plain (above 1: library faster)")
        axes[0][-1].legend(fontsize=7, ncol=2, handlelength=3)
        fig.tight_layout()
        path = os.path.join(a.out, f"osu-{link}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(path)


if __name__ == "__main__":
    main()
