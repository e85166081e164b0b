// Which ranks of a communicator share a node. Learned once per communicator
// the library manages, when its state is created (collective), and kept in
// that state: collectives use it to run node-local stages through PMPI and
// code only what crosses nodes; point-to-point never codes a message to a
// peer on its own node.
//
// A node is the world ranks of one processor name (MPI_Get_processor_name:
// the host name in Open MPI and MPICH, the simulated host in SMPI), which is
// where their launchers place ranks that share memory, the ranks
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) finds; it is learned from
// MPI_Init's one agreement instead of from that split, which costs
// collectives of its own (MPICH: two splits). When ADACOMP_NODE_MAP is set:
// consecutive blocks of world ranks of the given sizes (to exercise
// node-aware paths on one machine; every rank must set the same map).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace adacomp {

struct Locality {
  int nodes = 1;             // distinct nodes among the communicator's ranks
  int node = 0;              // this rank's node, 0..nodes-1 in order of lowest rank
  std::vector<int> node_of;  // node of every rank
  int local_rank = 0;        // rank among this node's ranks (rank order)
  int local_size = 1;
  int max_local = 1;    // most ranks on one node
  bool uniform = true;  // every node holds the same number of ranks

  bool same_node(int rank) const { return node_of[rank] == node; }
  // Lowest rank of `n`: the node's leader.
  int leader_of(int n) const;
  // Rank of `rank` among its node's ranks (rank order).
  int local_rank_of(int rank) const;
};

// This rank's node identity: a hash of its processor name. No communication.
uint64_t node_identity();
// At MPI_Init, from every world rank's node identity (in rank order): every
// world rank's node key, the lowest world rank on its node, kept in a world
// table, and this `rank`'s. `node_map` is ADACOMP_NODE_MAP (empty when
// unset, otherwise validated block sizes), which decides instead. No
// communication.
void locality_init(const std::vector<uint64_t>& identities, int rank,
                   const std::vector<int>& node_map);

// The layout of `comm` (an intracommunicator). Local where all its ranks are
// in MPI_COMM_WORLD; otherwise one allgather of node keys, collective over
// `comm` (every rank decides alike which, from the same group).
Locality learn_locality(MPI_Comm comm);

}  // namespace adacomp
