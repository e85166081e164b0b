#!/bin/bash
# The solver's table (docs/lossy-scopes.md, "The solver"): bench/cg.c on an
# emulated cluster of 2 nodes x 1 rank at RATE (default 1gbit), plain MPI,
# a job-wide bound, and the exchange hinted; iterations, final residual,
# the loop's time and the bytes node 0 sent.
#   bench/cg.sh [FLAVOR=openmpi] [RATE=1gbit] [K=65536]
# The cluster is CLUSTER_PREFIX's (default adacomp-cg), taken down on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flavor=${1:-openmpi} rate=${2:-1gbit} k=${3:-65536}
build=$root/build/$flavor
export CLUSTER_PREFIX=${CLUSTER_PREFIX:-adacomp-cg}
source "$root/tools/cluster.sh"
trap cluster_down EXIT
cluster_up 2 "$rate" >/dev/null
# T2 at 64K: the dot products' Allreduces are K doubles.
common=(--env ADACOMP_THRESHOLD_LOSSY=64K --timeout 600)
printf '%-22s %10s %14s %9s %14s\n' run iterations residual time_s node0_bytes
row() {  # NAME ENV... -- PROGRAM ARGS...
  local name=$1
  shift
  local before out
  before=$(cluster_tx 0)
  out=$(cluster_run "$flavor" 1,1 "$@")
  printf '%-22s %10s %14s %9s %14s\n' "$name" "$(awk '/^iterations/ {print $2}' <<<"$out")" \
    "$(awk '/^residual/ {print $2}' <<<"$out")" "$(awk '/^time/ {print $2}' <<<"$out")" \
    $(($(cluster_tx 0) - before))
}
cg=("$build/bench/adacomp-cg" 64 "$k" 300 1e-8)
row plain "${common[@]}" -- "${cg[@]}"
row job-wide-1e-4 "${common[@]}" --env ADACOMP_REL_ERROR_BOUND=1e-4 -- "$build/adacomp" "${cg[@]}"
row hinted-exchange-1e-6 "${common[@]}" -- "$build/adacomp" "${cg[@]}" 1e-6
row lossless-library "${common[@]}" -- "$build/adacomp" "${cg[@]}"
