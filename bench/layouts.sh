#!/bin/bash
# Node layouts: plain MPI against AdaComp's default settings (no adacomp.conf)
# and its forced modes, side by side in one run per layout, every result
# checked (adacomp-bench). Layouts: 1x2 and 1x4 on shared memory only, and
# 2x2 and 4x1 on the emulated cluster (tools/cluster.sh) at 1 and 10 Gbit/s.
# Writes bench/results/layout-<layout>-<rate>[-lossy].{csv,txt}.
#   bench/layouts.sh [openmpi|mpich] [max size on the cluster, default 16M]
# BENCH_LAYOUTS (default "1x2:shm 1x4:shm 2x2:1gbit 2x2:10gbit 4x1:1gbit
# 4x1:10gbit") picks the runs; BENCH_OPS the operations.
set -euo pipefail
flavor=${1:-openmpi}
max=${2:-16M}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
[ -x "$build/bench/adacomp-bench" ] || "$root/tools/build.sh" "$flavor" >/dev/null
bench=$build/bench/adacomp-bench
out=$root/bench/results
mkdir -p "$out"
ops=${BENCH_OPS:-allreduce,bcast,reduce,allgather,alltoall,reduce_scatter,sendrecv}
export CLUSTER_PREFIX=adacomp-bench-$$
trap '"$root/tools/cluster.sh" down' EXIT
unset ADACOMP_REL_ERROR_BOUND ADACOMP_ERROR_BOUND ADACOMP_CONFIG
for run in ${BENCH_LAYOUTS:-1x2:shm 1x4:shm 2x2:1gbit 2x2:10gbit 4x1:1gbit 4x1:10gbit}; do
  layout=${run%%:*} rate=${run#*:}
  name=layout-$layout-$rate
  echo "=== $layout, $rate ($flavor)"
  if [ "$rate" = shm ]; then
    # One node: every size up to 64M, plain against default only (nothing is
    # coded by default; forcing a codec onto shared memory only shows its cost).
    np=${layout#1x}
    launch=(mpirun.$flavor -np "$np")
    [ "$flavor" = openmpi ] && launch+=(--allow-run-as-root --oversubscribe --bind-to none)
    "${launch[@]}" "$bench" --ops "$ops" --modes plain,default --max 64M \
      --budget 0.3 --label "$layout-shm" --csv "$out/$name.csv" | tee "$out/$name.txt"
    continue
  fi
  nodes=${layout%x*}
  "$root/tools/cluster.sh" up "$nodes" "$rate" >/dev/null
  run_bench() {  # env..., then -- bench args
    local envs=()
    while [ "$1" != -- ]; do envs+=(--env "$1"); shift; done
    shift
    "$root/tools/cluster.sh" run "$flavor" "$layout" "${envs[@]}" --timeout 3600 -- "$bench" "$@"
  }
  # Default settings (no bound: lossless only where measured to pay) and
  # forced lossless, then lossy with a bound of 1e-4 of the value range.
  run_bench ADACOMP_VERBOSE=0 -- --ops "$ops" --modes plain,default,lossless --max "$max" \
    --budget 0.5 --label "$layout-$rate" --csv "$out/$name.csv" | tee "$out/$name.txt"
  run_bench ADACOMP_REL_ERROR_BOUND=1e-4 -- --ops allreduce,bcast,reduce,reduce_scatter \
    --modes plain,lossy,pipelined --min 64K --max "$max" --budget 0.5 \
    --label "$layout-$rate-lossy" --csv "$out/$name-lossy.csv" | tee "$out/$name-lossy.txt"
  "$root/tools/cluster.sh" down
done
