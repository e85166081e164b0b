#!/bin/bash
# The main job: install, build, then run an unmodified MPI program (Allreduce
# of 8 MB of doubles from a heat-diffusion field) on an emulated 1 Gbit/s link,
# without and with AdaComp, and print time and bytes on the wire; then a
# point-to-point halo exchange with and without inter-step coding.
#   tools/demo.sh [openmpi|mpich]   (root: needs network namespaces)
set -euo pipefail
flavor=${1:-openmpi}
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
"$root/tools/build.sh" "$flavor" >/dev/null
build=$root/build/$flavor
source "$root/tools/netns.sh"
ns=adacomp-demo-$$
trap 'netns_down $ns' EXIT
netns_up "$ns" 1gbit

run() {  # label, allowed relative error, then the command prefix (empty or the launcher)
  local label=$1 tolerance=$2 before after
  shift 2
  before=$(netns_tx_bytes "$ns")
  local out
  out=$(mpirun_in_ns "$ns" "$flavor" 2 "$@" "$build/demo/adacomp-demo" 8 10 "$tolerance")
  after=$(netns_tx_bytes "$ns")
  printf '%-28s %s\n%-28s wire bytes for the whole run: %.1f MB\n' "$label" "$out" "" \
    "$(echo "($after - $before) / 1000000" | bc -l)"
}
echo "AdaComp demo: 2 ranks, $flavor, loopback shaped to 1 Gbit/s (tc tbf)"
run "raw MPI (no AdaComp):" 1e-12
run "AdaComp lossless:" 1e-12 env ADACOMP_MODE=lossless ADACOMP_VERBOSE=1 "$build/adacomp"
run "AdaComp pipelined lossless:" 1e-12 env ADACOMP_MODE=pipelined ADACOMP_THRESHOLD_PIPELINE=1M \
  ADACOMP_VERBOSE=1 "$build/adacomp"
# Lossy only because a bound is set: 1e-4 of the value range on every element.
run "AdaComp pipelined lossy:" 1e-3 env ADACOMP_MODE=pipelined ADACOMP_THRESHOLD_PIPELINE=1M \
  ADACOMP_REL_ERROR_BOUND=1e-4 ADACOMP_VERBOSE=1 "$build/adacomp"
# Point-to-point: a halo exchange (MPI_Sendrecv every step) of three kinds of
# data, plain MPI vs AdaComp lossless vs lossless with inter-step (XOR) coding,
# interleaved step by step in one run.
echo
mpirun_in_ns "$ns" "$flavor" 2 env ADACOMP_MODE=lossless "$build/bench/adacomp-bench-halo" --bytes 4M --steps 12
