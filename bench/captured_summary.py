#!/usr/bin/env python3
"""Summary of bench/captured_codecs.sh: per application and call, the
codecs' ratio (the captured bytes over the coded bytes, all files of the
call together) and median compression speed; then the advisor's cost.
usage: captured_summary.py OUT_DIR APP..."""
import json
import statistics
import sys
from collections import defaultdict


def codec_rows(path):
    """(call, type, op) -> codec -> list of (bytes, ratio, MBps)."""
    rows = defaultdict(lambda: defaultdict(list))
    for line in open(path):
        r = json.loads(line)
        key = (r["call"], r["type"], r["op"])
        rows[key][r["codec"]].append((r["bytes"], r["ratio"], r["compress_MBps"]))
    return rows


def main(out, apps):
    codecs = ["zstd", "lz4", "blosc", "fpc", "bitplane", "quant_fast", "quant_zstd", "zfp"]
    print("| Application | Call | Type | Files | " + " | ".join(codecs) + " |")
    print("|---|---|---|---:|" + "---:|" * len(codecs))
    for app in apps:
        for (call, typ, op), by_codec in sorted(codec_rows("%s/codecs-%s.jsonl" % (out, app)).items()):
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
            label = call + (" (%s)" % op if op not in ("none", None) else "")
            print("| %s | %s | %s | %d | %s |" % (app, label, typ, files, " | ".join(cells)))
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
