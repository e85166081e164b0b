#!/bin/bash
# Overlap benchmark: an MPI_Iallreduce started before independent
# computation of about its plain transfer time, waited for after it, on a
# tc-shaped loopback at 1 and 10 Gbit/s (2 ranks). Side by side: plain MPI,
# AdaComp lossless (its engine advances inside MPI calls), and AdaComp
# lossless with its progress thread (ADACOMP_PROGRESS=thread, the benchmark
# initialising MPI_THREAD_MULTIPLE), each with the computation in one piece
# and in slices with an MPI_Test between them. Writes
# bench/results/overlap-<flavor>.txt. Run it on an idle machine.
#   bench/overlap.sh [openmpi|mpich] [bytes, default 8M] [reps, default 10] [polls, default 8]
#                    [runs, default "plain adacomp adacomp+thread"]
set -euo pipefail
flavor=${1:-openmpi}
bytes=${2:-8M}
reps=${3:-10}
polls=${4:-8}
runs=${5:-plain adacomp adacomp+thread}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/$flavor
[ -x "$build/bench/adacomp-overlap" ] || "$root/tools/build.sh" "$flavor" >/dev/null
source "$root/tools/netns.sh"
out=$root/bench/results
mkdir -p "$out"
report=$out/overlap-$flavor.txt
: >"$report"
bench=("$build/bench/adacomp-overlap" --bytes "$bytes" --reps "$reps")
# Nonblocking collectives are compressed in the forced modes only (the
# adaptive policy's agreement would block): lossless, every size.
library=(env ADACOMP_NONBLOCKING=on ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=0 "$build/adacomp")
for rate in 1gbit 10gbit; do
  ns=adacomp-overlap-$$-$rate
  trap 'netns_down $ns' EXIT
  netns_up "$ns" "$rate"
  for p in 0 "$polls"; do
    for who in $runs; do
      cmd=("${bench[@]}" --polls "$p")
      case $who in
        plain) ;;
        adacomp) cmd=("${library[@]}" "${cmd[@]}") ;;
        adacomp+thread) cmd=(env ADACOMP_PROGRESS=thread "${library[@]}" "${cmd[@]}" --thread) ;;
        *) echo "unknown run '$who' (plain adacomp adacomp+thread)" >&2; exit 2 ;;
      esac
      line=$(mpirun_in_ns "$ns" "$flavor" 2 "${cmd[@]}" | grep '^median')
      printf '%-7s %-14s polls %-3s %s\n' "$rate" "$who" "$p" "$line" | tee -a "$report"
    done
  done
  netns_down "$ns"
done
