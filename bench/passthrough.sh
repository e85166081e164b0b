#!/bin/bash
# Passed-through call cost, with and without AdaComp, alternating runs so
# that machine noise hits both alike; prints each run and the medians.
#   bench/passthrough.sh [openmpi|mpich] [runs]
set -euo pipefail
flavor=${1:-openmpi}
runs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
launch=(mpirun.$flavor -np 2)
[ "$flavor" = openmpi ] && launch+=(--allow-run-as-root)
declare -a plain with
for i in $(seq "$runs"); do
  plain+=("$("${launch[@]}" "$build/bench/adacomp-passthrough" | grep -Eo 'median [0-9.]+' | cut -d' ' -f2)")
  with+=("$("${launch[@]}" "$build/adacomp" "$build/bench/adacomp-passthrough" | grep -Eo 'median [0-9.]+' | cut -d' ' -f2)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "without AdaComp (ns/call): ${plain[*]}  median $(median "${plain[@]}")"
echo "with AdaComp    (ns/call): ${with[*]}  median $(median "${with[@]}")"
