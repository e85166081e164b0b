#!/bin/bash
# Emulated slow network, sourced by the demo, the benchmarks and
# tools/cluster.sh (which builds several nodes from the same pieces).
#   netns_up NAME RATE   creates namespace NAME whose loopback is shaped to
#                        RATE (e.g. 1gbit) with tc tbf; half-duplex, since
#                        both directions share the one shaper.
#   netns_down NAME
#   netns_tx_bytes NAME [DEV]  bytes sent on DEV (default lo) so far
#   netns_shape NAME DEV RATE  the one tc tbf shaper every emulated link uses
#   mpirun_in_ns NAME FLAVOR NP ARGS...  runs an MPI job on that link only

netns_shape() {
  ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$3" burst 256kb latency 50ms
}

netns_up() {
  netns_down "$1"
  ip netns add "$1"
  ip netns exec "$1" ip link set lo up
  netns_shape "$1" lo "$2"
}

netns_down() { ip netns del "$1" 2>/dev/null || true; }

netns_tx_bytes() { ip netns exec "$1" cat "/sys/class/net/${2:-lo}/statistics/tx_bytes"; }

mpirun_in_ns() {
  local ns=$1 flavor=$2 np=$3
  shift 3
  if [ "$flavor" = openmpi ]; then
    ip netns exec "$ns" mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" \
      --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo "$@"
  else
    ip netns exec "$ns" env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp mpirun.mpich -np "$np" "$@"
  fi
}

# Run rather than sourced, it only answers --help.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  source "$(dirname "$0")/help.sh"
  echo "tools/netns.sh is sourced, not run (tools/netns.sh --help)" >&2
  exit 2
fi
