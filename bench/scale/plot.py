#!/usr/bin/python3
"""Tables and plots of the scale study: plot.py RESULTS_CSV OUTDIR

Writes OUTDIR/speedup_ranks.png (speedup over plain SMPI against ranks, per
config, 8 MB Allreduce at 25 Gbit/s), OUTDIR/speedup_link.png (against link
speed), OUTDIR/bytes.png (bytes coded per rank, max over ranks, against the ring's
ideal 2(G-1)/G of its share; bytes sent are that over the codec's ratio) and
OUTDIR/error.png (final error over the bound, lossy configs), and prints a
Markdown table of every point with its speedup over plain."""
import csv
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

CONFIGS = ["flat-lossless", "hier-lossless", "flat-lossy", "hier-lossy"]


def load(path):
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        for k in ("nodes", "per_node", "ranks", "bytes", "ok"):
            r[k] = int(r[k])
        for k in ("gbits", "seconds", "max_err", "bound", "wire_max", "wire_mean", "coded_in_max"):
            r[k] = float(r[k])
    return rows


def ring_ideal(r):
    """Bytes one rank codes in an ideal ring Allreduce: 2(G-1)/G of its
    share, G ring members; flat: G = P, share N; node-aware rails: G nodes,
    share N / ranks per node. Sent bytes are this over the codec's ratio."""
    if r["hierarchy"] == "flat" or r["per_node"] == 1:
        g, share = r["ranks"], r["bytes"]
    else:
        g, share = r["nodes"], r["bytes"] / r["per_node"]
    return 2 * (g - 1) / g * share


def key(r):
    return (r["nodes"], r["per_node"], r["gbits"], r["op"], r["bytes"])


def main():
    rows, out = load(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    # Speedups are over the faster of SMPI's MPICH and Open MPI selectors.
    plain = {}
    for r in rows:
        if r["config"] in ("plain", "plain-ompi"):
            plain[key(r)] = min(plain.get(key(r), r["seconds"]), r["seconds"])
    print("| layout | Gbit/s | op | MB/rank | config | ms | speedup | error/bound | ratio | coded/ideal | ok |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    order = ["plain", "plain-ompi"] + CONFIGS
    for r in sorted(rows, key=lambda r: (r["op"], r["ranks"], r["per_node"], r["gbits"], r["bytes"],
                                         order.index(r["config"]))):
        base = plain.get(key(r))
        sp = f"{base / r['seconds']:.2f}x" if base and not r["config"].startswith("plain") else ""
        eb = f"{r['max_err'] / r['bound']:.2f}" if r["bound"] > 0 else ""
        ratio = f"{r['coded_in_max'] / r['wire_max']:.1f}" if r["wire_max"] > 0 else ""
        ideal = (f"{r['coded_in_max'] / ring_ideal(r):.2f}"
                 if r["op"] == "allreduce" and r["coded_in_max"] > 0 else "")
        print(f"| {r['nodes']}x{r['per_node']} | {r['gbits']:g} | {r['op']} | {r['bytes'] / 2**20:g} | "
              f"{r['config']} | {r['seconds'] * 1e3:.2f} | {sp} | {eb} | {ratio} | {ideal} | "
              f"{'yes' if r['ok'] else 'NO'} |")

    def speedup_plot(xkey, fixed, fname, xlabel, logx):
        plt.figure(figsize=(6, 4))
        for per in sorted({r["per_node"] for r in rows}):
            for c in CONFIGS:
                pts = sorted((r[xkey], plain[key(r)] / r["seconds"]) for r in rows
                             if r["config"] == c and r["per_node"] == per and fixed(r) and key(r) in plain)
                if pts:
                    plt.plot(*zip(*pts), marker="o", label=f"{c}, {per}/node")
        plt.axhline(1, color="gray", lw=0.5)
        if logx:
            plt.xscale("log", base=2)
        plt.xlabel(xlabel)
        plt.ylabel("speedup over plain SMPI (faster selector)")
        plt.legend(fontsize=6)
        plt.tight_layout()
        plt.savefig(os.path.join(out, fname), dpi=120)
        plt.close()

    mb8 = 8 << 20
    speedup_plot("ranks", lambda r: r["op"] == "allreduce" and r["bytes"] == mb8 and r["gbits"] == 25,
                 "speedup_ranks.png", "ranks (Allreduce, 8 MB, 25 Gbit/s)", True)
    speedup_plot("gbits", lambda r: r["op"] == "allreduce" and r["bytes"] == mb8 and r["ranks"] in (16, 64),
                 "speedup_link.png", "Gbit/s per node (Allreduce, 8 MB, 16 and 64 ranks)", True)

    plt.figure(figsize=(6, 4))
    for c in ("flat-lossless", "hier-lossless", "flat-lossy", "hier-lossy"):
        pts = [(r["ranks"], r["coded_in_max"] / ring_ideal(r)) for r in rows
               if r["config"] == c and r["op"] == "allreduce" and r["coded_in_max"] > 0]
        if pts:
            plt.scatter(*zip(*pts), label=c)
    plt.axhline(1.1, color="red", lw=0.8)
    plt.xscale("log", base=2)
    plt.xlabel("ranks (Allreduce, all sizes and links)")
    plt.ylabel("max bytes coded per rank / ring ideal")
    plt.legend(fontsize=6)
    plt.tight_layout()
    plt.savefig(os.path.join(out, "bytes.png"), dpi=120)
    plt.close()

    plt.figure(figsize=(6, 4))
    for c in ("flat-lossy", "hier-lossy"):
        pts = [(r["ranks"], r["max_err"] / r["bound"]) for r in rows if r["config"] == c and r["bound"] > 0]
        if pts:
            plt.scatter(*zip(*pts), label=c)
    plt.axhline(1, color="red", lw=0.8)
    plt.xscale("log", base=2)
    plt.xlabel("ranks (all ops and sizes)")
    plt.ylabel("max final error / bound")
    plt.legend(fontsize=6)
    plt.tight_layout()
    plt.savefig(os.path.join(out, "error.png"), dpi=120)
    plt.close()


if __name__ == "__main__":
    main()
