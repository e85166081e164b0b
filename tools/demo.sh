#!/bin/bash
# The main job: install, build, then run an unmodified MPI program (Allreduce
# of 8 MB of doubles from a heat-diffusion field) on an emulated 1 Gbit/s link,
# without and with AdaComp, and print time and bytes on the wire; then a
# point-to-point halo exchange with and without inter-step coding; then the
# same Allreduce on an emulated cluster of 2 nodes x 2 ranks (shared memory
# inside a node, 1 Gbit/s between), plain MPI against AdaComp's default
# settings (no adacomp.conf) and a lossy bound.
#   tools/demo.sh [--short] [openmpi|mpich]   (root: needs network namespaces)
# --short runs 1 MB and fewer steps (the ctest). DEMO_BUILD=DIR uses an
# existing build instead of installing and building. Every figure is
# checked: a run that fails or moves no bytes stops the demo (exit 1).
# DEMO_PREFIX (default adacomp-demo) starts the names of the network
# namespaces it makes, so that concurrent demos keep apart.
set -euo pipefail
source "$(dirname "$0")/help.sh"
mb=8 iters=10 halo_bytes=4M halo_steps=12
if [ "${1-}" = --short ]; then
  mb=1 iters=3 halo_bytes=256K halo_steps=4
  shift
fi
flavor=${1:-openmpi}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${DEMO_BUILD-}" ]; then
  build=$DEMO_BUILD
else
  "$root/tools/install-deps.sh"
  "$root/tools/build.sh" "$flavor" >/dev/null
  build=$root/build/$flavor
fi
source "$root/tools/netns.sh"
ns=${DEMO_PREFIX:-adacomp-demo}-$$
trap 'netns_down $ns' EXIT
netns_up "$ns" 1gbit

fail() { echo "adacomp demo: $*" >&2; exit 1; }
run() {  # label, allowed relative error, then the command prefix (empty or the launcher)
  local label=$1 tolerance=$2 before after out
  shift 2
  before=$(netns_tx_bytes "$ns")
  out=$(mpirun_in_ns "$ns" "$flavor" 2 "$@" "$build/demo/adacomp-demo" "$mb" "$iters" "$tolerance" 2>&1) ||
    { echo "$out" >&2; fail "$label run failed"; }
  after=$(netns_tx_bytes "$ns")
  grep -q "^allreduce .* median .* max rel. error" <<<"$out" ||
    { echo "$out" >&2; fail "$label: no result line"; }
  [ "$after" -gt "$before" ] || fail "$label: no bytes crossed the link ($before -> $after)"
  printf '%-28s %s\n%-28s wire bytes for the whole run: %s MB\n' "$label" "$out" "" \
    "$(awk -v b="$before" -v a="$after" 'BEGIN { printf "%.1f", (a - b) / 1e6 }')"
}
echo "AdaComp demo: 2 ranks, $flavor, loopback shaped to 1 Gbit/s (tc tbf)"
run "raw MPI (no AdaComp):" 1e-12
run "AdaComp lossless:" 1e-12 env ADACOMP_MODE=lossless ADACOMP_VERBOSE=1 "$build/adacomp"
# Both ranks share one host here, so the default policy would leave them
# alone (docs/node-aware.md): the model off forces the tiers.
run "AdaComp pipelined lossless:" 1e-12 env ADACOMP_MODE=pipelined ADACOMP_MODEL=off \
  ADACOMP_THRESHOLD_PIPELINE=1M ADACOMP_VERBOSE=1 "$build/adacomp"
# Lossy only because a bound is set: 1e-4 of the value range on every element.
run "AdaComp pipelined lossy:" 1e-3 env ADACOMP_MODE=pipelined ADACOMP_MODEL=off \
  ADACOMP_THRESHOLD_PIPELINE=1M ADACOMP_REL_ERROR_BOUND=1e-4 ADACOMP_VERBOSE=1 "$build/adacomp"
# Point-to-point: a halo exchange (MPI_Sendrecv every step) of three kinds of
# data, plain MPI vs AdaComp lossless vs lossless with inter-step (XOR) coding,
# interleaved step by step in one run.
echo
mpirun_in_ns "$ns" "$flavor" 2 env ADACOMP_MODE=lossless "$build/bench/adacomp-bench-halo" \
  --bytes "$halo_bytes" --steps "$halo_steps" || fail "halo exchange failed"

# Two nodes x two ranks (tools/cluster.sh): what a cluster user sees with the
# library preloaded and nothing configured. The adaptive model measures plain
# MPI against the node-aware compressed path in the first calls of each size
# and keeps the faster (more iterations here, so that its choice shows).
netns_down "$ns"
export CLUSTER_PREFIX=${DEMO_PREFIX:-adacomp-demo}-$$
trap '"$root/tools/cluster.sh" down' EXIT
"$root/tools/cluster.sh" up 2 1gbit >/dev/null
cluster_run() {  # label, allowed relative error, then --env K=V options
  local label=$1 tolerance=$2 before after out
  shift 2
  before=$(( $("$root/tools/cluster.sh" tx 0) + $("$root/tools/cluster.sh" tx 1) ))
  out=$("$root/tools/cluster.sh" run "$flavor" 2x2 "$@" --timeout 600 -- \
        "$build/demo/adacomp-demo" "$mb" $((iters * 2)) "$tolerance" 2>&1) ||
    { echo "$out" >&2; fail "$label run failed"; }
  after=$(( $("$root/tools/cluster.sh" tx 0) + $("$root/tools/cluster.sh" tx 1) ))
  grep -q "^allreduce .* median .* max rel. error" <<<"$out" ||
    { echo "$out" >&2; fail "$label: no result line"; }
  [ "$after" -gt "$before" ] || fail "$label: no bytes crossed the links"
  printf '%-28s %s\n%-28s bytes between the nodes: %s MB\n' "$label" "$(grep '^allreduce' <<<"$out")" \
    "" "$(awk -v b="$before" -v a="$after" 'BEGIN { printf "%.1f", (a - b) / 1e6 }')"
}
lib=$(ls "$build"/libadacomp-"$flavor".so 2>/dev/null || ls "$build"/libadacomp*.so | head -1)
echo
echo "Emulated cluster: 2 nodes x 2 ranks, $flavor, 1 Gbit/s per node, shared memory inside a node"
cluster_run "plain MPI:" 1e-12
cluster_run "AdaComp, default settings:" 1e-12 --env LD_PRELOAD="$lib"
cluster_run "AdaComp, bound 1e-4 of range:" 1e-3 --env LD_PRELOAD="$lib" \
  --env ADACOMP_REL_ERROR_BOUND=1e-4
