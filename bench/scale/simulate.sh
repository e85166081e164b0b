#!/bin/bash
# Runs one simulated job: bench/scale/simulate.sh NODES RANKS_PER_NODE GBITS PROGRAM [ARGS...]
# on the fat tree of make_platform.py (written to $SMPI_PLATFORM_DIR, default
# /tmp/adacomp-smpi-platforms), one rank per core, NODES*RANKS_PER_NODE ranks,
# SMPI_LATENCY_US (default 1) node to node under one leaf switch.
# SMPI_WRAPPER runs each rank under a wrapper (e.g. "gdb -batch -ex run -ex bt --args").
# The simulation settings live here only:
#  - host-speed equals the hosts' 1 Gflop/s: SMPI times each stretch of
#    computation between MPI calls with the thread's CPU clock and charges it
#    one to one (codec time included; other jobs on this machine do not
#    inflate it, a sleep counts zero);
#  - every such stretch is charged, however short (smpi/cpu-threshold 0;
#    $SMPI_CPU_THRESHOLD seconds otherwise): SMPI's default drops stretches
#    under 1 us, which is the whole of a library's own work per
#    point-to-point call (docs/scale.md, "Codec time");
#  - flat bandwidth factor 0.97 and latency factor 1 instead of SMPI's
#    default piecewise factors (calibrated on an old Gigabit cluster);
#  - no cross-traffic (links are full duplex);
#  - MPI_Test and MPI_Iprobe cost 0.1 us of simulated time each, flat. SMPI's
#    default injects 100 us per call, times a counter that every failed
#    test of *any* rank raises and only a successful one resets (a static in
#    libsimgrid, shared by all ranks): the compressed rings test for the
#    next frame after each chunk they send, so at 64 ranks the counter ran
#    into the tens and the sleeps, not the network, set the time
#    (docs/scale.md, Findings, 3);
#  - SMPI's MPICH collective selector ($SMPI_COLL_SELECTOR: mpich, ompi, ...);
#    SMPI's own default selector uses naive algorithms (Allreduce as Reduce
#    then Bcast: 5x slower than a ring at 8 MB on 16 nodes), no fair baseline.
set -euo pipefail
nodes=$1 per_node=$2 gbits=$3
shift 3
dir=${SMPI_PLATFORM_DIR:-/tmp/adacomp-smpi-platforms}
read -r platform hosts < <(python3 "$(dirname "$0")/make_platform.py" "$nodes" "$per_node" "$gbits" "$dir" "${SMPI_LATENCY_US:-1}")
exec smpirun ${SMPI_WRAPPER:+-wrapper "$SMPI_WRAPPER"} -np $((nodes * per_node)) -platform "$platform" -hostfile "$hosts" \
  --cfg=smpi/host-speed:1Gf --cfg=smpi/cpu-threshold:"${SMPI_CPU_THRESHOLD:-0}" --cfg=smpi/bw-factor:0:0.97 --cfg=smpi/lat-factor:0:1 \
  --cfg=network/crosstraffic:0 --cfg=smpi/test:1e-7 --cfg=smpi/iprobe:1e-7 \
  --cfg=smpi/grow-injected-times:no --cfg=smpi/coll-selector:"${SMPI_COLL_SELECTOR:-mpich}" --log=xbt_cfg.thresh:warning --log=smpi_mpi.thresh:error \
  --log=smpi_config.thresh:error "$@"
