#!/bin/bash
# Slow-network benchmarks: adacomp-bench for every collective, size and mode
# on a tc-shaped loopback at 1 Gbit/s and 10 Gbit/s (2 ranks), then the
# plots. Writes bench/results/<rate>.csv and bench/results/*.png.
#   bench/run.sh [openmpi|mpich] [max size, default 64M]
# Lossy modes use ADACOMP_REL_ERROR_BOUND (default 1e-4 here).
set -euo pipefail
flavor=${1:-openmpi}
max=${2:-64M}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
[ -x "$build/bench/adacomp-bench" ] || "$root/tools/build.sh" "$flavor" >/dev/null
source "$root/tools/netns.sh"
out=$root/bench/results
mkdir -p "$out"
export ADACOMP_REL_ERROR_BOUND=${ADACOMP_REL_ERROR_BOUND:-1e-4}
for rate in 1gbit 10gbit; do
  ns=adacomp-bench-$$-$rate
  trap 'netns_down $ns' EXIT
  netns_up "$ns" "$rate"
  # Thresholds for the policy modes come from calibrating this very link.
  (cd "$out" && mpirun_in_ns "$ns" "$flavor" 2 "$build/tools/calibrate/adacomp-calibrate-$flavor" \
      --allow-one-host --max "$max" --out "calibration-$rate.conf")  # one host: a shaped loopback
  ADACOMP_CONFIG=$out/calibration-$rate.conf mpirun_in_ns "$ns" "$flavor" 2 \
    "$build/bench/adacomp-bench" --max "$max" --label "$rate" --csv "$out/$rate.csv" |
    tee "$out/$rate.txt"
  netns_down "$ns"
done
/usr/bin/python3 "$root/bench/plot.py" "$out"/1gbit.csv "$out"/10gbit.csv --conf-dir "$out" --out "$out"
/usr/bin/python3 "$root/bench/summarize.py" "$out"/1gbit.csv "$out"/10gbit.csv >"$out/summary.md"
