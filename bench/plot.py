#!/usr/bin/env python3
"""Plots adacomp-bench CSVs: time per call against message size for each
mode, with the calibrated thresholds marked, and speedup over raw.

usage: plot.py RUN.csv [RUN.csv ...] [--conf-dir DIR] [--out DIR]
"""
import argparse
import csv
import os
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

THRESHOLDS = [("ADACOMP_THRESHOLD_LOSSLESS", "T1 lossless"),
              ("ADACOMP_THRESHOLD_LOSSY", "T2 lossy"),
              ("ADACOMP_THRESHOLD_PIPELINE", "T3 pipelined")]


def read_conf(path):
    values = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#")[0].strip()
            if "=" in line:
                k, v = (x.strip() for x in line.split("=", 1))
                values[k] = v
    return values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--conf-dir", default=None)
    ap.add_argument("--out", default=".")
    args = ap.parse_args()
    for path in args.csv:
        rows = list(csv.DictReader(open(path)))
        if not rows:
            continue
        label = rows[0]["label"]
        conf = read_conf(os.path.join(args.conf_dir, f"calibration-{label}.conf")) if args.conf_dir else {}
        by_op = defaultdict(lambda: defaultdict(list))
        for r in rows:
            by_op[r["op"]][r["mode"]].append((int(r["bytes"]), float(r["median_s"]), float(r["speedup_vs_raw"])))
        ops = sorted(by_op)
        fig, axes = plt.subplots(2, len(ops), figsize=(5.5 * len(ops), 8), squeeze=False)
        for col, op in enumerate(ops):
            t_ax, s_ax = axes[0][col], axes[1][col]
            for mode, pts in sorted(by_op[op].items()):
                pts.sort()
                xs = [p[0] for p in pts]
                t_ax.plot(xs, [p[1] * 1e3 for p in pts], marker="o", ms=3, label=mode)
                s_ax.plot(xs, [p[2] for p in pts], marker="o", ms=3, label=mode)
            for ax in (t_ax, s_ax):
                ax.set_xscale("log", base=2)
                for key, name in THRESHOLDS:
                    v = conf.get(key)
                    if v and int(v) < (1 << 40):
                        ax.axvline(int(v), ls="--", lw=0.8, color="grey")
                        ax.text(int(v), ax.get_ylim()[1] if ax is t_ax else 1.0, name,
                                rotation=90, fontsize=7, va="top", ha="right", color="grey")
                ax.grid(True, which="both", alpha=0.3)
            t_ax.set_yscale("log")
            t_ax.set_title(f"{op}, {label}, 2 ranks")
            t_ax.set_ylabel("median ms per call")
            s_ax.axhline(1.0, color="black", lw=0.8)
            s_ax.set_ylabel("speedup over raw")
            s_ax.set_xlabel("message bytes")
            t_ax.legend(fontsize=7)
        fig.tight_layout()
        out = os.path.join(args.out, f"bench-{label}.png")
        fig.savefig(out, dpi=110)
        print("wrote", out)


if __name__ == "__main__":
    main()
