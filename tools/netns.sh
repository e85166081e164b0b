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
#   mpich_finalize_preload  tools/mpich-finalize-preload.c built (once) into
#                           build/tools/, for MPICH jobs on emulated links

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

netns_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Rebuilt when its source is newer; the rename makes concurrent jobs see
# either no file or a whole one.
mpich_finalize_preload() {
  local src=$netns_root/tools/mpich-finalize-preload.c
  local lib=$netns_root/build/tools/mpich-finalize-preload.so
  if [ ! "$lib" -nt "$src" ]; then
    mkdir -p "$(dirname "$lib")" &&
      cc -O2 -shared -fPIC -o "$lib.$$" "$src" -lucp -ldl && mv "$lib.$$" "$lib" ||
      { echo "netns.sh: cannot build $lib" >&2; return 1; }
  fi
  echo "$lib"
}

mpirun_in_ns() {
  local ns=$1 flavor=$2 np=$3 preload
  shift 3
  if [ "$flavor" = openmpi ]; then
    ip netns exec "$ns" mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" \
      --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo "$@"
  else
    # The preload keeps MPICH 4.0's MPI_Finalize from hanging over UCX's TCP
    # transport (tools/mpich-finalize-preload.c); a command's own LD_PRELOAD
    # (the adacomp launcher's) goes before it.
    preload=$(mpich_finalize_preload) || return 1
    ip netns exec "$ns" env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp \
      mpirun.mpich -genv LD_PRELOAD "$preload" -np "$np" "$@"
  fi
}

# Run rather than sourced, it only answers --help.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  source "$(dirname "$0")/help.sh"
  echo "tools/netns.sh is sourced, not run (tools/netns.sh --help)" >&2
  exit 2
fi
