#!/bin/bash
# Emulated cluster on one machine: N nodes, each its own network namespace
# and (while a job runs) its own hostname, so ranks on one node share memory
# and ranks on different nodes talk over a shaped link. Every node has one
# veth "NIC" (eth0, 198.18.0.<k+1>/24) plugged into a bridge that lives in its
# own namespace; tc tbf shapes both ends of that veth, so each node's link is
# full duplex at RATE, like a NIC on a switch. The host's interfaces are
# untouched. See docs/cluster.md.
#
#   tools/cluster.sh up N RATE        (idempotent: removes leftovers first;
#                                     RATE "unshaped" leaves the links unshaped)
#   tools/cluster.sh down
#   tools/cluster.sh run FLAVOR LAYOUT [--env K=V]... [--timeout S] -- PROGRAM ARGS...
#   tools/cluster.sh with N RATE FLAVOR LAYOUT [--env K=V]... [--timeout S] -- PROGRAM ARGS...
#                                     (up, run, down, even on failure)
#   tools/cluster.sh tx NODE          bytes NODE has sent on its link so far
#   tools/cluster.sh exec NODE CMD... CMD on NODE (its namespace and hostname)
#   tools/cluster.sh rsh [OPTIONS] HOST CMD...  the remote shell of the MPI
#                                     launchers (through tools/cluster-rsh)
# FLAVOR is openmpi or mpich; LAYOUT is ranks per node, "2x2" (2 nodes x 2
# ranks) or "1,2,3". Node k's namespace and hostname are $CLUSTER_PREFIX-k
# (default prefix adacomp-node); distinct prefixes give independent clusters.
# Sourced, it defines the cluster_* functions and runs nothing.

cluster_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$cluster_root/tools/netns.sh"

cluster_prefix() { echo "${CLUSTER_PREFIX:-adacomp-node}"; }
cluster_ns() { echo "$(cluster_prefix)-$1"; }   # node k, or "sw" for the switch
cluster_ip() { echo "198.18.0.$(($1 + 1))"; }
# Per-node files that are not network settings: /run/adacomp-cluster/NS/.
cluster_state() { echo "/run/adacomp-cluster/$1"; }

# Whether NAME is node k or the switch of this cluster (and not of a
# cluster whose prefix merely starts with this one).
cluster_owns() {
  local rest=${1#"$(cluster_prefix)"-}
  [ "$rest" != "$1" ] && [[ $rest =~ ^([0-9]+|sw)$ ]]
}

cluster_namespaces() { ip netns list | awk '{print $1}'; }

cluster_down() {
  local ns pids path
  for ns in $(cluster_namespaces); do
    cluster_owns "$ns" || continue
    # Whatever a job left running on the node (ranks, daemons) dies with it.
    pids=$(ip netns pids "$ns")
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    netns_down "$ns"
  done
  # Name resolution (ip netns exec bind-mounts /etc/netns/NS/* over /etc),
  # boot ids.
  for path in /etc/netns/* "$(cluster_state "")"*; do
    if cluster_owns "$(basename "$path")"; then
      rm -rf "$path"
    fi
  done
  rmdir /etc/netns "$(cluster_state "")" 2>/dev/null || true
}

cluster_up() {
  local n=$1 rate=$2 k j try answer ns sw
  if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 250 ]; then
    echo "cluster.sh: node count '$n' must be 1-250" >&2; return 2
  fi
  cluster_down
  sw=$(cluster_ns sw)
  # The subshell stops at the first failure; then nothing is left behind.
  if ! (
    set -e
    ip netns add "$sw"
    ip -n "$sw" link set lo up
    ip -n "$sw" link add br0 type bridge forward_delay 0 stp_state 0
    ip -n "$sw" link set br0 up
    for ((k = 0; k < n; k++)); do
      ns=$(cluster_ns $k)
      ip netns add "$ns"
      ip -n "$ns" link set lo up
      ip -n "$ns" link add eth0 type veth peer name "p$k" netns "$sw"
      ip -n "$ns" addr add "$(cluster_ip $k)/24" dev eth0
      ip -n "$ns" link set eth0 up
      ip -n "$sw" link set "p$k" master br0 up
      if [ "$rate" != unshaped ]; then
        netns_shape "$ns" eth0 "$rate"      # node -> switch
        netns_shape "$sw" "p$k" "$rate"     # switch -> node
      fi
      mkdir -p "/etc/netns/$ns" "$(cluster_state "$ns")"
      cat /proc/sys/kernel/random/uuid >"$(cluster_state "$ns")/boot_id"
      { echo "127.0.0.1 localhost"
        for ((j = 0; j < n; j++)); do echo "$(cluster_ip $j) $(cluster_ns $j)"; done
      } >"/etc/netns/$ns/hosts"
    done
    # Every node answers node 0 (a refused connection is an answer) once the
    # new links are up, which takes a moment.
    for ((k = 1; k < n; k++)); do
      for ((try = 0; ; try++)); do
        answer=$(ip netns exec "$(cluster_ns 0)" timeout 2 \
                   bash -c "exec 3<>/dev/tcp/$(cluster_ip $k)/9" 2>&1 || true)
        [[ $answer == *refused* ]] && break
        [ $try -lt 50 ] || { echo "cluster.sh: node $k unreachable" >&2; exit 1; }
        sleep 0.1
      done
    done
  ); then
    echo "cluster.sh: could not build the cluster" >&2
    cluster_down
    return 1
  fi
}

cluster_tx() { netns_tx_bytes "$(cluster_ns "$1")" eth0; }

# CMD on node k (or a node namespace name), under its own hostname and boot
# id. UCX tells machines apart by boot id (ucs_get_system_id): with one per
# node its shared-memory transports join only ranks of the same node.
cluster_exec() {
  local ns=$1
  [[ $ns =~ ^[0-9]+$ ]] && ns=$(cluster_ns "$ns")
  shift
  ip netns exec "$ns" unshare --uts sh -c \
    'hostname "$0" && mount --bind "$1" /proc/sys/kernel/random/boot_id && shift && exec "$@"' \
    "$ns" "$(cluster_state "$ns")/boot_id" "$@"
}

# The launchers' remote shell: [options] HOST CMD..., CMD a shell command
# line (as ssh takes it), HOST a node name or address.
cluster_rsh() {
  while [[ ${1:-} == -* ]]; do shift; done
  local host=$1 k
  shift
  if [[ $host =~ ^198\.18\.0\.([0-9]+)$ ]]; then
    k=$((BASH_REMATCH[1] - 1))
  elif [[ $host == "$(cluster_prefix)"-* ]]; then
    k=${host#"$(cluster_prefix)"-}
  fi
  if ! [[ ${k:-} =~ ^[0-9]+$ ]] || ! cluster_namespaces | grep -qxF "$(cluster_ns "$k")"; then
    echo "cluster.sh rsh: '$host' is not a node of cluster $(cluster_prefix)" >&2
    return 255
  fi
  cluster_exec "$k" sh -c "$*"
}

# LAYOUT -> ranks per node, one per line.
cluster_layout() {
  if [[ $1 =~ ^([0-9]+)x([0-9]+)$ ]]; then
    local k
    for ((k = 0; k < BASH_REMATCH[1]; k++)); do echo "${BASH_REMATCH[2]}"; done
  elif [[ $1 =~ ^[0-9]+(,[0-9]+)*$ ]]; then
    tr , '\n' <<<"$1"
  else
    echo "cluster.sh: layout '$1' is neither NxR nor R0,R1,..." >&2
    return 2
  fi
}

cluster_run() {
  local flavor=$1 layout=$2 timeout="" counts=() envs=() hosts="" np=0 k launch=()
  shift 2 || { echo "usage: cluster.sh run FLAVOR LAYOUT [--env K=V]... [--timeout S] -- PROGRAM ARGS..." >&2; return 2; }
  mapfile -t counts < <(cluster_layout "$layout") && [ ${#counts[@]} -gt 0 ] || return 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
      --env) [[ ${2:-} == *=* ]] || { echo "cluster.sh: --env needs K=V" >&2; return 2; }
             envs+=("$2"); shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      *) echo "cluster.sh run: unknown option '$1'" >&2; return 2 ;;
    esac
  done
  [ "${1:-}" = -- ] && [ $# -gt 1 ] || { echo "cluster.sh run: '-- PROGRAM' missing" >&2; return 2; }
  shift
  for ((k = 0; k < ${#counts[@]}; k++)); do
    if ! cluster_namespaces | grep -qxF "$(cluster_ns $k)"; then
      echo "cluster.sh: layout $layout needs node $k, cluster $(cluster_prefix) is not up with that many" >&2
      return 2
    fi
    [ "${counts[k]}" -gt 0 ] || { echo "cluster.sh: layout $layout has an empty node" >&2; return 2; }
    hosts+="${hosts:+,}$(cluster_ns $k):${counts[k]}"
    np=$((np + counts[k]))
  done
  local agent=$cluster_root/tools/cluster-rsh net=198.18.0.0/24
  case $flavor in
    openmpi)
      # Ranks fill each node's slots in order; vader (shared memory) within a
      # node, TCP on the nodes' links between nodes.
      launch=(mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none
              --host "$hosts" -np "$np" --map-by slot
              --mca plm_rsh_agent "$agent" --mca btl self,vader,tcp
              --mca btl_tcp_if_include "$net" --mca oob_tcp_if_include "$net")
      for k in "${envs[@]}"; do launch+=(-x "$k"); done ;;
    mpich)
      # Within a node MPICH's own POSIX shared memory (hydra tells it which
      # ranks share one); UCX only between nodes, over TCP on eth0 (its
      # shared-memory transports would reach a rank on another node, but the
      # boot id of each node keeps them within it). The preload keeps
      # MPI_Finalize from hanging (tools/mpich-finalize-preload.c).
      local preload
      preload=$(mpich_finalize_preload) || return 1
      launch=(mpiexec.mpich -launcher rsh -launcher-exec "$agent" -iface eth0
              -hosts "$hosts" -np "$np"
              -genv UCX_TLS sm,tcp,self -genv UCX_NET_DEVICES eth0)
      for k in "${envs[@]}"; do
        [[ $k == LD_PRELOAD=* ]] && preload+=":${k#*=}" && continue
        launch+=(-genv "${k%%=*}" "${k#*=}")
      done
      launch+=(-genv LD_PRELOAD "$preload") ;;
    *) echo "cluster.sh: unknown MPI '$flavor' (openmpi|mpich)" >&2; return 2 ;;
  esac
  [ -z "$timeout" ] || launch=(timeout --kill-after=5 "$timeout" "${launch[@]}")
  # The launcher's remote shell (tools/cluster-rsh) learns the cluster from it.
  (export CLUSTER_PREFIX; CLUSTER_PREFIX=$(cluster_prefix); cluster_exec 0 "${launch[@]}" "$@")
}

cluster_main() {
  local cmd=${1:-}
  shift || true
  case $cmd in
    up) [ $# -eq 2 ] || { echo "usage: cluster.sh up N RATE" >&2; return 2; }
        cluster_up "$@" ;;
    down) cluster_down ;;
    run) cluster_run "$@" ;;
    with)
      [ $# -ge 4 ] || { echo "usage: cluster.sh with N RATE FLAVOR LAYOUT ... -- PROGRAM ARGS..." >&2; return 2; }
      local n=$1 rate=$2
      shift 2
      trap cluster_down EXIT
      trap 'exit 143' TERM INT HUP
      cluster_up "$n" "$rate" || return 1
      # In the background so that a signal runs the traps at once.
      cluster_run "$@" &
      wait $! ;;
    tx) cluster_tx "$@" ;;
    exec) cluster_exec "$@" ;;
    rsh) cluster_rsh "$@" ;;
    *) sed -n '/^#   tools/,/^# Sourced/p' "${BASH_SOURCE[0]}" >&2; return 2 ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  source "$cluster_root/tools/help.sh"
  cluster_main "$@"
  exit $?
fi
