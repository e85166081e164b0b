#!/bin/bash
# Issue #26's target: default settings (no adacomp.conf, no bound) against
# the best forced mode, measured side by side in one run. On the emulated
# cluster (tools/cluster.sh), for each layout and link: RUNS runs of
# adacomp-bench with the modes plain, default, lossless and pipelined, every
# result checked; then bench/default_vs_best.py prints, per operation and
# size, the default's time as a fraction of the best of plain, lossless and
# pipelined (the medians over runs of each mode's median), and every cell
# under 0.97.
#   bench/default_vs_best.sh [openmpi|mpich] [OUT_DIR, default bench/results/default-vs-best]
# LAYOUTS (default "2x1:1gbit 2x1:10gbit 2x2:1gbit 2x2:10gbit"), OPS
# (default allreduce,bcast,reduce,sendrecv), MIN and MAX (4K, 16M), RUNS (3)
# and BUDGET (seconds per mode and size, 0.3) change the matrix; LABEL
# (default the MPI) starts the CSVs' names and labels. BEFORE, the build
# directory of an earlier version (e.g. a git worktree's, built with
# tools/build.sh), adds its adacomp-bench to every run, alternating with
# this build's, as LABEL-before: both tables come from the same runs.
set -euo pipefail
flavor=${1:-openmpi}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/bench/results/default-vs-best}
bench=$root/build/$flavor/bench/adacomp-bench
[ -x "$bench" ] || "$root/tools/build.sh" "$flavor" >/dev/null
mkdir -p "$out"
export CLUSTER_PREFIX=adacomp-dvb-$$
trap '"$root/tools/cluster.sh" down' EXIT
unset ADACOMP_REL_ERROR_BOUND ADACOMP_ERROR_BOUND ADACOMP_CONFIG ADACOMP_MODE
# Open MPI's ranks otherwise spin on 4 ranks per 2 cores, and its timings
# come out in steps of the scheduler's slice (docs/cluster.md).
envs=()
[ "$flavor" = openmpi ] && envs+=(--env OMPI_MCA_mpi_yield_when_idle=1)
# Other ADACOMP_* settings in the environment reach the ranks (a candidate
# default, e.g. ADACOMP_THRESHOLD_LOSSLESS=16K, measured as "default").
for v in $(compgen -e | grep '^ADACOMP_' || true); do envs+=(--env "$v=${!v}"); done
for run in ${LAYOUTS:-2x1:1gbit 2x1:10gbit 2x2:1gbit 2x2:10gbit}; do
  layout=${run%%:*} rate=${run#*:}
  "$root/tools/cluster.sh" up "${layout%x*}" "$rate" >/dev/null
  for i in $(seq "${RUNS:-3}"); do
    for side in ${BEFORE:+before} this; do
      label=${LABEL:-$flavor} program=$bench
      [ $side = before ] && label=$label-before program=$BEFORE/bench/adacomp-bench
      name=$label-$layout-$rate-$i
      echo "=== $name"
      "$root/tools/cluster.sh" run "$flavor" "$layout" ${envs[@]+"${envs[@]}"} --timeout 3600 -- \
        "$program" --ops "${OPS:-allreduce,bcast,reduce,sendrecv}" \
        --modes plain,default,lossless,pipelined --min "${MIN:-4K}" --max "${MAX:-16M}" \
        --budget "${BUDGET:-0.3}" --label "$label-$layout-$rate" --csv "$out/$name.csv" >/dev/null
    done
  done
  "$root/tools/cluster.sh" down
done
[ -z "${BEFORE:-}" ] || python3 "$root/bench/default_vs_best.py" "$out/${LABEL:-$flavor}"-before-*.csv
python3 "$root/bench/default_vs_best.py" "$out/${LABEL:-$flavor}"-[0-9]*.csv
