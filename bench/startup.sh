#!/bin/bash
# Start-up cost of the library: an empty MPI program (bench/startup.c,
# MPI_Init and MPI_Finalize) run plain and with the library preloaded
# (LD_PRELOAD=build/<mpi>/libadacomp-<mpi>.so), alternating, RUNS times for
# each MPI and rank count. Prints one table row per MPI and rank count, the
# medians over the runs of: the job's wall time (launcher included), and the
# slowest rank's MPI_Init and MPI_Finalize; plain, with the library, and the
# library's extra (+ms). Run it on an idle machine.
#   bench/startup.sh [--runs N] [--ranks "2 4 8"] [--mpi "openmpi mpich"]
#                    [--cluster "2x1 2x2" [--rate 1gbit]] [--exchange on]
#                    [--before PREFIX]
# --exchange on: every rank then exchanges one int with every other
# (adacomp-startup --exchange), and a fourth column gives the slowest rank's
# MPI_Init plus that first exchange: where the connections between nodes
# that the library's start-up makes would be made in any job that talks.
# BUILD_PREFIX [build/]: MPI m's build is BUILD_PREFIXm, from the repository.
# --before PREFIX: a second library, PREFIXm/libadacomp-m.so (an earlier
# build), joins the rotation (plain, before, library; reversed every other
# run), and each cell reads "plain / before / library (+before, +library)".
# --cluster runs on the emulated cluster instead (tools/cluster.sh; root;
# LAYOUTs as there, nodes named $CLUSTER_PREFIX-<k>, startup-bench-<k> by
# default), where the library also probes the link between nodes at MPI_Init.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tools/help.sh"
runs=7 ranks="2 4 8" mpis="openmpi mpich" layouts="" rate=1gbit exchange=off before=""
build_prefix=${BUILD_PREFIX:-build/}
[[ $build_prefix = /* ]] || build_prefix=$root/$build_prefix
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2 ;;
    --ranks) ranks=$2 ;;
    --mpi) mpis=$2 ;;
    --cluster) layouts=$2 ;;
    --rate) rate=$2 ;;
    --exchange) exchange=$2 ;;
    --before) before=$2 ;;
    *) echo "bench/startup.sh: unknown option '$1' (bench/startup.sh --help)" >&2; exit 2 ;;
  esac
  shift 2
done

if [ -n "$layouts" ]; then
  export CLUSTER_PREFIX=${CLUSTER_PREFIX:-startup-bench}
  nodes=0
  for layout in $layouts; do
    n=$(source "$root/tools/cluster.sh" && cluster_layout "$layout" | wc -l)
    [ "$n" -gt "$nodes" ] && nodes=$n
  done
  trap '"$root/tools/cluster.sh" down' EXIT
  "$root/tools/cluster.sh" up "$nodes" "$rate"
  sizes=$layouts where="cluster $rate"
else
  sizes=$ranks where="one node"
fi

# One job: "wall_ms init_ms finalize_ms init_exchange_ms", the last three
# of its slowest rank.
job() {  # FLAVOR SIZE plain|library|before
  local flavor=$1 size=$2 build=$build_prefix$1 launch=() start end out
  local lib=$build/libadacomp-$flavor.so program=$build/bench/adacomp-startup
  [ "$3" = before ] && lib=$before$1/libadacomp-$flavor.so
  if [ -n "$layouts" ]; then
    launch=("$root/tools/cluster.sh" run "$flavor" "$size" --timeout 120)
    [ "$3" = plain ] || launch+=(--env "LD_PRELOAD=$lib")
    launch+=(--)
  elif [ "$flavor" = openmpi ]; then
    launch=(mpirun.openmpi --allow-run-as-root --oversubscribe -np "$size")
    [ "$3" = plain ] || launch+=(-x "LD_PRELOAD=$lib")
  else
    launch=(mpirun.mpich -np "$size")
    [ "$3" = plain ] || launch+=(-genv LD_PRELOAD "$lib")
  fi
  start=$(date +%s%N)
  local args=()
  [ "$exchange" = on ] && args=(--exchange)
  out=$("${launch[@]}" "$program" "${args[@]}") || { echo "bench/startup.sh: job failed: ${launch[*]} $program" >&2; exit 1; }
  end=$(date +%s%N)
  awk -v wall=$(((end - start) / 1000)) '
    /^startup rank/ { if ($5 > init) init = $5; if ($7 > fin) fin = $7; if ($5 + $9 > both) both = $5 + $9; n++ }
    END { if (!n) exit 1; printf "%.1f %.3f %.3f %.3f\n", wall / 1000, init, fin, both }' <<<"$out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

columns="1 2 3" header=("job plain" "library" "+ms" "Init" "library" "+ms" "Finalize" "library" "+ms")
[ "$exchange" = on ] && columns="1 2 3 4" header+=("Init+exch" "library" "+ms")
format="%-8s %-14s %-6s %5s$(printf ' | %%9s %%9s %%7s%.0s' $columns)\n"
if [ -n "$before" ]; then
  header=("job: plain / before / library (+before, +library)" "Init" "Finalize")
  [ "$exchange" = on ] && header+=("Init+exch")
  format="%-8s %-14s %-6s %5s$(printf ' | %%s%.0s' $columns)\n"
fi
printf "$format" mpi where ranks runs "${header[@]}"
for flavor in $mpis; do
  build=$build_prefix$flavor
  if [ ! -x "$build/bench/adacomp-startup" ] || [ ! -e "$build/libadacomp-$flavor.so" ]; then
    "$root/tools/build.sh" "$flavor" "$build" --target adacomp >/dev/null
    cmake --build "$build" --target adacomp-startup >/dev/null
  fi
  [ -z "$before" ] || [ -e "$before$flavor/libadacomp-$flavor.so" ] ||
    { echo "bench/startup.sh: no $before$flavor/libadacomp-$flavor.so (--before)" >&2; exit 2; }
  for size in $sizes; do
    plain=() library=() earlier=()
    for ((i = 0; i < runs; i++)); do
      order="plain before library"
      [ $((i % 2)) = 1 ] && order="library before plain"
      for variant in $order; do
        case $variant in
          plain) plain+=("$(job "$flavor" "$size" plain)") ;;
          library) library+=("$(job "$flavor" "$size" library)") ;;
          before) [ -z "$before" ] || earlier+=("$(job "$flavor" "$size" before)") ;;
        esac
      done
    done
    row=()
    for column in $columns; do
      p=$(printf '%s\n' "${plain[@]}" | cut -d' ' -f$column | median)
      l=$(printf '%s\n' "${library[@]}" | cut -d' ' -f$column | median)
      if [ -n "$before" ]; then
        b=$(printf '%s\n' "${earlier[@]}" | cut -d' ' -f$column | median)
        row+=("$(awk -v p="$p" -v b="$b" -v l="$l" 'BEGIN { printf "%.1f / %.1f / %.1f (%+.1f, %+.1f)", p, b, l, b - p, l - p }')")
      else
        row+=("$(printf %.1f "$p")" "$(printf %.1f "$l")" "$(awk -v p="$p" -v l="$l" 'BEGIN { printf "%+.1f", l - p }')")
      fi
    done
    printf "$format" "$flavor" "$where" "$size" "$runs" "${row[@]}"
  done
done
