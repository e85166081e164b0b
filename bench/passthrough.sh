#!/bin/bash
# Passed-through call cost, with and without AdaComp (the adacomp launcher,
# default settings), runs alternating (the first of the two alternates) so
# that machine noise hits both alike; prints each run, the medians and the
# difference per call. Cases (adacomp-passthrough, 2 ranks):
#   allreduce/one-node   8-byte MPI_Allreduce per call
#   allgather/one-node   MPI_Allgather of 8 bytes per rank per call (the
#                        data-movement gate and the aliasing check)
#   pingpong/one-node    8-byte MPI_Send/MPI_Recv ping-pong, per message
#   pingpong/two-nodes   the same across two emulated nodes (tools/cluster.sh
#                        2x1, link unshaped): the path between nodes
#   pingpong/framed      one node, the two ranks declared two nodes with the
#                        route between them forced framed (ADACOMP_NODE_MAP,
#                        ADACOMP_P2P_ROUTE): what a slow link's route costs
#                        a message that is not coded
#   allreduce/settled    1 KB MPI_Allreduce on one node, the two ranks
#                        declared two nodes and T1 at 1K (ADACOMP_NODE_MAP,
#                        ADACOMP_THRESHOLD_LOSSLESS), random data: what a
#                        call costs once the runtime model settled on plain
#                        MPI (it explores again every 32-4096 calls)
#   bench/passthrough.sh [openmpi|mpich] [runs, default 5]
# CASES (default all but framed and settled) picks some; CALLS sets the calls (round trips)
# per run (default 200000). Run it on an idle machine.
set -euo pipefail
flavor=${1:-openmpi}
runs=${2:-5}
cases=${CASES:-allreduce/one-node allgather/one-node pingpong/one-node pingpong/two-nodes}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
if [ ! -x "$build/bench/adacomp-passthrough" ] || [ ! -x "$build/adacomp" ]; then
  "$root/tools/build.sh" "$flavor" "$build" --target adacomp >/dev/null
  cmake --build "$build" --target adacomp-passthrough >/dev/null
fi
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
work=$(mktemp -d)
cd "$work"  # no ./adacomp.conf: default settings
export CLUSTER_PREFIX=osu-pt-$$
trap 'cd /; "$root/tools/cluster.sh" down; rm -rf "$work"' EXIT
local_launch=(mpirun.$flavor -np 2)
[ "$flavor" = openmpi ] && local_launch+=(--allow-run-as-root)
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for case in $cases; do
  op=${case%/*} where=${case#*/}
  case $where in
    one-node) launch=("${local_launch[@]}") ;;
    framed) launch=(env ADACOMP_NODE_MAP=1,1 ADACOMP_P2P_ROUTE=framed "${local_launch[@]}") ;;
    settled) launch=(env ADACOMP_NODE_MAP=1,1 ADACOMP_THRESHOLD_LOSSLESS=1K "${local_launch[@]}") ;;
    two-nodes) "$root/tools/cluster.sh" up 2 unshaped
               launch=("$root/tools/cluster.sh" run "$flavor" 2x1 --timeout 600 --) ;;
    *) echo "passthrough.sh: unknown case '$case'" >&2; exit 2 ;;
  esac
  plain=() with=()
  for i in $(seq "$runs"); do
    sides="plain with"
    [ $((i % 2)) = 0 ] && sides="with plain"
    for side in $sides; do
      program=("$build/bench/adacomp-passthrough" "$op" ${CALLS:-200000})
      [ "$where" = settled ] && program+=(1024)
      [ "$side" = with ] && program=("$build/adacomp" "${program[@]}")
      ns=$("${launch[@]}" "${program[@]}" | grep -Eo 'median [0-9.]+' | cut -d' ' -f2)
      if [ "$side" = plain ]; then plain+=("$ns"); else with+=("$ns"); fi
    done
  done
  [ "$where" = two-nodes ] && "$root/tools/cluster.sh" down
  p=$(median "${plain[@]}") w=$(median "${with[@]}")
  echo "$case ($flavor), ns per call; without AdaComp: ${plain[*]}; with: ${with[*]}"
  awk -v c="$case ($flavor)" -v p="$p" -v w="$w" \
    'BEGIN { printf "%s: median %s ns without, %s ns with, difference %+.1f ns per call\n", c, p, w, w - p }'
done
