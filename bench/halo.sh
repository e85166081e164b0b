#!/bin/bash
# Halo-exchange benchmark on a tc-shaped loopback at 1 Gbit/s (2 ranks):
# plain MPI vs AdaComp lossless vs lossless with inter-step (XOR) coding,
# interleaved step by step. Writes bench/results/halo-<flavor>.csv and .txt.
#   bench/halo.sh [openmpi|mpich] [message bytes, default 4M] [steps, default 24]
set -euo pipefail
flavor=${1:-openmpi}
bytes=${2:-4M}
steps=${3:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
[ -x "$build/bench/adacomp-bench-halo" ] || "$root/tools/build.sh" "$flavor" >/dev/null
source "$root/tools/netns.sh"
out=$root/bench/results
mkdir -p "$out"
ns=adacomp-halo-$$
trap 'netns_down $ns' EXIT
netns_up "$ns" 1gbit
mpirun_in_ns "$ns" "$flavor" 2 env ADACOMP_MODE=lossless "$build/bench/adacomp-bench-halo" --bytes "$bytes" \
  --steps "$steps" --csv "$out/halo-$flavor.csv" | tee "$out/halo-$flavor.txt"
