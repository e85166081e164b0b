#!/bin/bash
# Halo-exchange benchmark, 2 ranks at 1 Gbit/s: plain MPI vs AdaComp
# lossless vs lossless with inter-step (XOR) coding vs lossy on a
# communicator hinted adacomp_rel_error_bound (BOUND, default 1e-4),
# interleaved step by step. Writes bench/results/halo-<flavor>.csv and .txt.
#   bench/halo.sh [openmpi|mpich] [message bytes, default 4M] [steps, default 24]
# On the emulated cluster (tools/cluster.sh, 2 nodes x 1 rank, CLUSTER_PREFIX
# default adacomp-halo, taken down on exit). Every message is coded in its
# variant's tier (forced by the benchmark: adacomp_override_tier; the
# runtime model off, point-to-point framed), so that the variants compare
# codings, not the model's choices.
set -euo pipefail
flavor=${1:-openmpi}
bytes=${2:-4M}
steps=${3:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
[ -x "$build/bench/adacomp-bench-halo" ] || "$root/tools/build.sh" "$flavor" >/dev/null
export CLUSTER_PREFIX=${CLUSTER_PREFIX:-adacomp-halo}
source "$root/tools/cluster.sh"
out=$root/bench/results
mkdir -p "$out"
trap cluster_down EXIT
cluster_up 2 1gbit >/dev/null
cluster_run "$flavor" 1,1 --timeout 900 --env ADACOMP_MODEL=off --env ADACOMP_P2P_ROUTE=framed -- "$build/adacomp" "$build/bench/adacomp-bench-halo" \
  --bytes "$bytes" --steps "$steps" --bound "${BOUND:-1e-4}" --csv "$out/halo-$flavor.csv" |
  tee "$out/halo-$flavor.txt"
