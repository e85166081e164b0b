#!/usr/bin/env python3
"""Summarises bench/imb.sh's runs:
  imb_summary.py MPI VERSION_LINE RAW_DIR [SIZES]

Reads RAW_DIR/<side>-<run>.txt (IMB-MPI1's output; side plain or default),
takes each benchmark's t_avg (PingPong: t) per message size, and prints a
Markdown table of each side's median over its runs, default/plain of the
medians and of the fastest runs: on a shared machine a rank that loses its
core adds milliseconds to a sample, which the median of 3 or more runs,
and the fastest run, leave out. SIZES (comma list of bytes) keeps those
rows only."""
import statistics
import pathlib
import re
import sys


def parse(path):
    """{(benchmark, bytes): microseconds} of one IMB output."""
    times, bench, col = {}, None, None
    for line in path.read_text(errors="replace").splitlines():
        m = re.match(r"# Benchmarking (\S+)", line)
        if m:
            bench, col = m.group(1), None
            continue
        if bench and line.lstrip().startswith("#bytes"):
            heads = line.split()
            col = next((i for i, h in enumerate(heads) if h in ("t_avg[usec]", "t[usec]")), None)
            continue
        fields = line.split()
        # A size IMB stopped ("time-out.; Time limit ...") has no times.
        if (bench and col is not None and len(fields) > col and fields[0].isdigit()
                and re.fullmatch(r"[0-9.]+", fields[col])):
            times[(bench, int(fields[0]))] = float(fields[col])
    return times


def main():
    if len(sys.argv) < 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    mpi, version, raw = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    sizes = {int(s) for s in sys.argv[4].split(",")} if len(sys.argv) > 4 else None
    runs = {"plain": [], "default": []}
    for f in sorted(raw.glob("*-[0-9]*.txt")):
        runs[f.name.split("-")[0]].append(parse(f))
    keys = sorted({k for r in runs["plain"] for k in r}, key=lambda k: (k[0], k[1]))
    print(f"### {mpi}: {version}\n")
    print(f"{len(runs['plain'])} runs a side, alternating; t_avg in microseconds, median of"
          " the runs.\n")
    print("| benchmark | bytes | plain | default | default/plain | fastest runs' ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for key in keys:
        if sizes and key[1] not in sizes:
            continue
        p = [r[key] for r in runs["plain"] if key in r]
        d = [r[key] for r in runs["default"] if key in r]
        if not p or not d:
            continue
        mp, md = statistics.median(p), statistics.median(d)
        ratio = f"{md / mp:.3f}" if mp > 0 else "-"
        fastest = f"{min(d) / min(p):.3f}" if min(p) > 0 else "-"
        print(f"| {key[0]} | {key[1]} | {mp:.2f} | {md:.2f} | {ratio} | {fastest} |")


if __name__ == "__main__":
    main()
