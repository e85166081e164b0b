#!/bin/bash
# The scale study: AdaComp under SimGrid SMPI (docs/scale.md).
#
#   bench/scale/run.sh [RESULTS_CSV]     (default bench/scale/results/scale.csv)
#
# Runs every point of the matrix below that RESULTS_CSV does not hold yet
# (resumable: kill it and run it again), one simulation at a time, each
# under `nice -n 19` and a timeout, printing progress. The matrix comes from
# the environment (space-separated lists):
#   SCALE_LAYOUTS  nodes x ranks per node   (default "16x1 4x4")
#   SCALE_GBITS    link Gbit/s              (default "25")
#   SCALE_OPS      collectives              (default "allreduce bcast reduce_scatter alltoall")
#   SCALE_SIZES    bytes per rank           (default "1M 8M")
#   SCALE_CONFIGS  plain | plain-ompi | flat-lossless | hier-lossless | flat-lossy |
#                  hier-lossy (default: these six) | hier-pipelined |
#                  hier-pipelined-lossy (node-aware, pipelined: the Allreduce
#                  in segments). plain is PMPI under SMPI's MPICH selector (as
#                  every AdaComp run), plain-ompi under its Open MPI selector
#                  (ring Allreduce: often faster).
#   SCALE_ITERS    timed calls per point    (default 3)
#   SCALE_TIMEOUT  seconds per simulation   (default 900)
# Points whose buffers would not fit SCALE_MEM_GB (default 20) of this
# machine's memory are skipped and said so. Lossy points use
# ADACOMP_REL_ERROR_BOUND=1e-4. The build is tools/build.sh smpi (build/smpi).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/bench/scale/results/scale.csv}
bench=${SCALE_BENCH:-$root/build/smpi/bench/scale/adacomp-scale}
[ -x "$bench" ] || { echo "no $bench: run tools/build.sh smpi first" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
header="nodes,per_node,gbits,config,op,bytes,ranks,nodes_seen,tier,hierarchy,seconds,max_err,bound,ok,wire_max,wire_mean,coded_in_max"
[ -s "$out" ] || echo "$header" >"$out"

layouts=${SCALE_LAYOUTS:-"16x1 4x4"}
gbits_list=${SCALE_GBITS:-25}
ops=${SCALE_OPS:-"allreduce bcast reduce_scatter alltoall"}
sizes=${SCALE_SIZES:-"1M 8M"}
configs=${SCALE_CONFIGS:-"plain plain-ompi flat-lossless hier-lossless flat-lossy hier-lossy"}
iters=${SCALE_ITERS:-3}
limit=${SCALE_TIMEOUT:-900}
mem_gb=${SCALE_MEM_GB:-20}

bytes_of() {
  local s=$1
  case $s in
    *K) echo $(( ${s%K} << 10 )) ;; *M) echo $(( ${s%M} << 20 )) ;; *G) echo $(( ${s%G} << 30 )) ;;
    *) echo "$s" ;;
  esac
}

total=0
for l in $layouts; do for g in $gbits_list; do for op in $ops; do for s in $sizes; do
  for c in $configs; do total=$((total + 1)); done; done; done; done; done
i=0
for l in $layouts; do
  nodes=${l%x*} per=${l#*x} ranks=$(( ${l%x*} * ${l#*x} ))
  for g in $gbits_list; do for op in $ops; do for s in $sizes; do for c in $configs; do
    i=$((i + 1))
    key="$nodes,$per,$g,$c,$op,"
    if grep -q "^$key$(bytes_of "$s")," "$out"; then continue; fi
    # Input, output, PMPI reference and the library's scratch: about six
    # buffers of the message per rank.
    need=$(( ranks * $(bytes_of "$s") * 6 / (1 << 30) ))
    if [ "$need" -ge "$mem_gb" ]; then
      echo "[$i/$total] $l ${g}G $op $s $c: skipped (needs ~${need} GB)"; continue
    fi
    case $c in
      plain) tier=plain hier=auto env=() ;;
      plain-ompi) tier=plain hier=auto env=(SMPI_COLL_SELECTOR=ompi) ;;
      flat-lossless) tier=lossless hier=flat env=() ;;
      hier-lossless) tier=lossless hier=auto env=() ;;
      flat-lossy) tier=lossy hier=flat env=(ADACOMP_REL_ERROR_BOUND=1e-4) ;;
      hier-lossy) tier=lossy hier=auto env=(ADACOMP_REL_ERROR_BOUND=1e-4) ;;
      hier-pipelined) tier=pipelined hier=auto env=() ;;
      hier-pipelined-lossy) tier=pipelined hier=auto env=(ADACOMP_REL_ERROR_BOUND=1e-4) ;;
      *) echo "unknown config $c" >&2; exit 2 ;;
    esac
    start=$(date +%s)
    line=$(env ${env[@]+"${env[@]}"} ADACOMP_HIERARCHY=$hier timeout "$limit" nice -n 19 \
             "$root/bench/scale/simulate.sh" "$nodes" "$per" "$g" \
             "$bench" --op "$op" --bytes "$s" --tier "$tier" --iters "$iters" 2>/dev/null |
           grep "^$op,")
    took=$(( $(date +%s) - start ))
    if [ -z "$line" ]; then
      echo "[$i/$total] $l ${g}G $op $s $c: FAILED or timed out after ${took}s"; continue
    fi
    # Recorded even when the result is wrong (ok = 0), so it shows.
    echo "$nodes,$per,$g,$c,$line" >>"$out"
    verdict=$(echo "$line" | awk -F, '{print $10 == 1 ? "ok" : "WRONG RESULT"}')
    echo "[$i/$total] $l ${g}G $op $s $c: $(echo "$line" | cut -d, -f7) s simulated, ${took}s real, $verdict"
  done; done; done; done
done
