#!/usr/bin/env python3
"""Summary of bench/captured_codecs.sh: per application and call, the
codecs' ratio (the captured bytes over the coded bytes, all files of the
call together) and median compression speed, for captures of at least
MIN_BYTES (smaller ones are counted apart: no codec pays there, and the
library codes nothing below 64 KB by default); then the advisor's cost.
usage: captured_summary.py OUT_DIR APP..."""
import json
import statistics
import sys
from collections import defaultdict


MIN_BYTES = 4096


def codec_rows(path):
    """(call, type, op) -> codec -> list of (bytes, ratio, MBps)."""
    rows = defaultdict(lambda: defaultdict(list))
    small = {}
    for line in open(path):
        if not line.startswith("{"):  # a codec that cannot code a file (a constant one, lossy)
            continue
        r = json.loads(line)
        if r["bytes"] < MIN_BYTES:
            small[(r["call"], r["file"])] = 1
            continue
        # The site's function, without its file and namespaces.
        function = r["site"].split(" (")[0].split("::")[-1] if r.get("site") else ""
        key = (r["call"], function, r["type"], r["op"])
        rows[key][r["codec"]].append((r["bytes"], r["ratio"], r["compress_MBps"]))
    return rows, len(small)


def main(out, apps):
    codecs = ["zstd", "lz4", "blosc", "fpc", "bitplane", "quant_fast", "quant_zstd", "zfp"]
    print("| Application | Call and site | Type | Files | " + " | ".join(codecs) + " |")
    print("|---|---|---|---:|" + "---:|" * len(codecs))
    small = {}
    for app in apps:
        rows, small[app] = codec_rows("%s/codecs-%s.jsonl" % (out, app))
        for (call, function, typ, op), by_codec in sorted(rows.items()):
            files = max(len(v) for v in by_codec.values())
            cells = []
            for c in codecs:
                v = by_codec.get(c)
                if not v:
                    cells.append("-")
                    continue
                # The ratio of the files together: their bytes over their coded bytes.
                size = sum(b for b, _, _ in v)
                ratio = size / sum(b / r for b, r, _ in v) if size else statistics.median(r for _, r, _ in v)
                cells.append("%.2f / %.0f" % (ratio, statistics.median(m for _, _, m in v)))
            label = call + (" %s" % op.upper() if op not in ("none", None) else "") + \
                (" at %s" % function if function else "")
            print("| %s | %s | %s | %d | %s |" % (app, label, typ, files, " | ".join(cells)))
    print()
    print("Ratio / median compression MB/s; lossy codecs at rel 1e-4 of each file's range "
          "('-': not applicable, or a constant file). Captures under %d bytes left out: %s."
          % (MIN_BYTES, ", ".join("%s %d" % (a, small[a]) for a in apps)))
    print()
    print("| Application | Median time, report (s) | Median time, report + advisor (s) | "
          "Advisor's coding (s, all ranks) | Sampled (MB) |")
    print("|---|---:|---:|---:|---:|")
    times = defaultdict(list)
    for line in open("%s/overhead.tsv" % out):
        app, side, _, seconds = line.rstrip("\n").split("\t")
        if seconds:
            times[(app, side)].append(float(seconds))
    for app in apps:
        costs, sampled = [], []
        rep = 1
        while True:
            try:
                sites = json.load(open("%s/%s-advise-%d.json" % (out, app, rep)))["sites"]
            except OSError:
                break
            adv = [s["advice"] for s in sites if "advice" in s]
            costs.append(sum(a["sampling_s"] for a in adv))
            sampled.append(sum(a["sample_bytes"] for a in adv) / 1e6)
            rep += 1
        med = lambda k: "%.3f" % statistics.median(times[k]) if times[k] else "-"
        print("| %s | %s | %s | %s | %s |" % (
            app, med((app, "report")), med((app, "advise")),
            "%.4f" % statistics.median(costs) if costs else "-",
            "%.1f" % statistics.median(sampled) if sampled else "-"))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    main(sys.argv[1], sys.argv[2:])
