#!/bin/bash
# Two builds of AdaComp side by side on one tc-shaped link (2 ranks), runs
# alternating so that link and machine noise hit both alike: the regression
# check of a refactoring. Each run is adacomp-bench (every result checked
# against plain MPI); prints the median over runs of each cell.
#   bench/before_after.sh BEFORE_BUILD AFTER_BUILD [rate, default 1gbit] [runs, default 3]
# e.g. git worktree add /tmp/before <rev> && tools/build.sh openmpi /tmp/before/build
#      bench/before_after.sh /tmp/before/build build/openmpi
# OPS, MODES, SIZES, TYPE, FIELD and DATA (adacomp-bench's --ops, --modes,
# sizes, --type f64|f32, --field heat2d|heat3d, --data) replace the defaults
# below; ADACOMP_* settings in the environment reach both builds alike (e.g.
# ADACOMP_REL_ERROR_BOUND=1e-4 for the lossy modes). Both builds must know
# --type and --field when TYPE or FIELD is set.
set -euo pipefail
before=${1:?usage: before_after.sh BEFORE_BUILD AFTER_BUILD [rate] [runs]}
after=${2:?usage: before_after.sh BEFORE_BUILD AFTER_BUILD [rate] [runs]}
rate=${3:-1gbit}
runs=${4:-3}
flavor=${FLAVOR:-openmpi}
ops=${OPS:-allreduce,bcast,sendrecv}
modes=${MODES:-plain,default,lossless}
sizes=${SIZES:-64K 8M}
data=()
[ -n "${TYPE:-}" ] && data+=(--type "$TYPE")
[ -n "${FIELD:-}" ] && data+=(--field "$FIELD")
[ -n "${DATA:-}" ] && data+=(--data "$DATA")
# NODE_MAP=1,1 declares the two ranks two nodes (ADACOMP_NODE_MAP), so that
# point-to-point and the node-aware paths code across the link.
layout=()
[ -n "${NODE_MAP:-}" ] && layout=(env ADACOMP_NODE_MAP="$NODE_MAP")
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tools/netns.sh"
out=$(mktemp -d)
ns=adacomp-ba-$$
trap 'netns_down $ns; rm -rf "$out"' EXIT
netns_up "$ns" "$rate"
for i in $(seq "$runs"); do
  for side in before after; do
    build=$before; [ $side = after ] && build=$after
    for bytes in $sizes; do
      mpirun_in_ns "$ns" "$flavor" 2 "${layout[@]}" "$build/bench/adacomp-bench" --ops "$ops" \
        --modes "$modes" "${data[@]}" --min $bytes --max $bytes --label $side \
        --csv "$out/$side-$bytes-$i.csv" >"$out/$side-$bytes-$i.txt" ||
        { cat "$out/$side-$bytes-$i.txt"; exit 1; }
    done
  done
done
python3 - "$out" <<'PY'
import csv, glob, statistics, sys
cells = {}
for path in glob.glob(sys.argv[1] + "/*.csv"):
    for r in csv.DictReader(open(path)):
        assert r["ok"] == "1", f"wrong result in {path}: {r}"
        cells.setdefault((r["op"], int(r["bytes"]), r["mode"], r["label"]), []).append(float(r["median_s"]))
# x plain: plain MPI's median over the cell's, from the same side's runs.
print(f"{'op':10} {'bytes':>8} {'mode':18} {'before ms':>10} {'after ms':>10} {'after/before':>12}"
      f" {'before x plain':>14} {'after x plain':>13}")
for op, size, mode in sorted({k[:3] for k in cells}):
    b = statistics.median(cells[(op, size, mode, "before")])
    a = statistics.median(cells[(op, size, mode, "after")])
    plain = {s: statistics.median(cells[(op, size, "plain", s)]) for s in ("before", "after")
             if (op, size, "plain", s) in cells}
    xb = f"{plain['before'] / b:14.2f}" if plain else f"{'':14}"
    xa = f"{plain['after'] / a:13.2f}" if plain else ""
    print(f"{op:10} {size:>8} {mode:18} {b*1e3:10.3f} {a*1e3:10.3f} {a/b:12.3f} {xb} {xa}")
print("all results checked against plain MPI: correct")
PY
