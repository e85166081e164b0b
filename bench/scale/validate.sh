#!/bin/bash
# Simulated against emulated: bench/scale/validate.sh FLAVOR LAYOUT GBITS [OP] [SIZE]
# e.g. validate.sh openmpi 2x1 1 allreduce 64M
#
# Runs adacomp-scale for plain MPI, lossless and lossy (hierarchical, bound
# 1e-4) on the emulated cluster (tools/cluster.sh, build/FLAVOR) with nodes
# of LAYOUT and links of GBITS Gbit/s, then the same under SMPI
# (bench/scale/simulate.sh, build/smpi), and prints both times and their
# ratio. The target is within 10%. Needs root (the cluster uses network
# namespaces). The emulated nodes share this machine's cores: with more
# ranks than cores, codec time is stretched there and not in the simulation
# (SMPI charges each rank's CPU time), so compare 2x1 first. SIZE defaults
# to 64M: the emulated links' token bucket (tbf burst 256kb) passes a frame's
# first 256 KB at veth speed after an idle spell, which the fluid simulated
# link does not; at 8 MB the lossy frames are ~320 KB and mostly burst
# (docs/scale.md, "Validation").
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
flavor=${1:?usage: validate.sh FLAVOR LAYOUT GBITS [OP] [SIZE]} layout=${2:?} gbits=${3:?}
op=${4:-allreduce} size=${5:-64M}
nodes=${layout%x*} per=${layout#*x}
[ -x "$root/tools/cluster.sh" ] || { echo "validate.sh: needs tools/cluster.sh (the emulated cluster)" >&2; exit 1; }
# A cluster of its own (tools/cluster.sh with brings it down); Open MPI's
# ranks yield when idle, else several ranks per node spin on shared cores
# and its times come in steps of the scheduler's slice (docs/cluster.md).
export CLUSTER_PREFIX=adacomp-validate-$$
yield=()
[ "$flavor" = openmpi ] && yield=(--env OMPI_MCA_mpi_yield_when_idle=1)
echo "config | emulated s | simulated s | simulated/emulated"
for c in plain:lossless:0 lossless:lossless:0 lossy:lossy:1e-4; do
  IFS=: read -r name tier bound <<<"$c"
  env=(ADACOMP_HIERARCHY=auto)
  [ "$bound" != 0 ] && env+=(ADACOMP_REL_ERROR_BOUND=$bound)
  [ "$name" = plain ] && tier=plain
  args=(--op "$op" --bytes "$size" --tier "$tier" --iters 5)
  cenv=(); for e in "${env[@]}"; do cenv+=(--env "$e"); done
  emu=$(nice -n 19 "$root/tools/cluster.sh" with "$nodes" "${gbits}gbit" "$flavor" "$layout" \
          "${cenv[@]}" ${yield[@]+"${yield[@]}"} --timeout 600 -- "$root/build/$flavor/bench/scale/adacomp-scale" "${args[@]}" |
        grep "^$op," | cut -d, -f7)
  sim=$(env "${env[@]}" nice -n 19 "$root/bench/scale/simulate.sh" "$nodes" "$per" "$gbits" \
          "$root/build/smpi/bench/scale/adacomp-scale" "${args[@]}" 2>/dev/null |
        grep "^$op," | cut -d, -f7)
  ratio=$(awk -v s="${sim:-0}" -v e="${emu:-0}" 'BEGIN { if (e > 0) printf "%.2f", s / e; else print "-" }')
  echo "$name | ${emu:-failed} | ${sim:-failed} | $ratio"
done
