#!/bin/bash
# The random-access check (adacomp-random-access): small MPI_Isend, MPI_Irecv
# (MPI_ANY_SOURCE) and a tight MPI_Test polling loop, with and without
# AdaComp (the adacomp launcher, default settings), runs alternating (the
# first of the two alternates) so that machine noise hits both alike; prints
# each run, the medians and plain's time over the library's (the target: at
# least 0.97), and the same of the fastest runs. Layouts:
#   one-node   2 ranks
#   2x2        4 ranks declared two nodes of two (ADACOMP_NODE_MAP=2,2)
#   bench/random_access.sh [openmpi|mpich] [runs, default 5]
# LAYOUTS picks layouts (default both), ROUNDS the rounds per run (default
# 100000), BYTES the message size (default 8). Run it on an idle machine.
set -euo pipefail
flavor=${1:-openmpi}
runs=${2:-5}
layouts=${LAYOUTS:-one-node 2x2}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
if [ ! -x "$build/bench/adacomp-random-access" ] || [ ! -x "$build/adacomp" ]; then
  "$root/tools/build.sh" "$flavor" "$build" --target adacomp >/dev/null
  cmake --build "$build" --target adacomp-random-access >/dev/null
fi
for name in $(compgen -e | grep '^ADACOMP_' || true); do unset "$name"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"  # no ./adacomp.conf: default settings
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The least disturbed run of each side: on a loaded machine the medians
# spread more than the library's cost.
fastest() { printf '%s\n' "$@" | sort -g | head -1; }
for layout in $layouts; do
  case $layout in
    one-node) launch=(mpirun.$flavor -np 2) ;;
    2x2) launch=(env ADACOMP_NODE_MAP=2,2 mpirun.$flavor -np 4) ;;
    *) echo "random_access.sh: unknown layout '$layout' (one-node 2x2)" >&2; exit 2 ;;
  esac
  [ "$flavor" = openmpi ] && launch+=(--allow-run-as-root --oversubscribe)
  plain=() with=()
  for i in $(seq "$runs"); do
    sides="plain with"
    [ $((i % 2)) = 0 ] && sides="with plain"
    for side in $sides; do
      program=("$build/bench/adacomp-random-access" "${ROUNDS:-100000}" "${BYTES:-8}")
      [ "$side" = with ] && program=("$build/adacomp" "${program[@]}")
      s=$("${launch[@]}" "${program[@]}" | grep -Eo '[0-9.]+ s,' | cut -d' ' -f1)
      if [ "$side" = plain ]; then plain+=("$s"); else with+=("$s"); fi
    done
  done
  p=$(median "${plain[@]}") w=$(median "${with[@]}")
  pf=$(fastest "${plain[@]}") wf=$(fastest "${with[@]}")
  echo "$layout ($flavor), seconds; without AdaComp: ${plain[*]}; with: ${with[*]}"
  awk -v c="$layout ($flavor)" -v p="$p" -v w="$w" -v pf="$pf" -v wf="$wf" \
    'BEGIN { printf "%s: median %s s without, %s s with: %.3fx plain; fastest %s and %s: %.3fx\n",
                    c, p, w, p / w, pf, wf, pf / wf }'
done
