// Which ranks of a communicator share a node. Learned once per communicator
// the library manages, when its state is created (collective), and kept in
// that state: collectives use it to run node-local stages through PMPI and
// code only what crosses nodes; point-to-point never codes a message to a
// peer on its own node.
//
// A node is what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) finds on
// MPI_COMM_WORLD at MPI_Init, or, when ADACOMP_NODE_MAP is set, consecutive
// blocks of world ranks of the given sizes (to exercise node-aware paths on
// one machine; every rank must set the same map).
#pragma once

#include <mpi.h>

#include <vector>

namespace adacomp {

struct Locality {
  int nodes = 1;             // distinct nodes among the communicator's ranks
  int node = 0;              // this rank's node, 0..nodes-1 in order of lowest rank
  std::vector<int> node_of;  // node of every rank
  int local_rank = 0;        // rank among this node's ranks (rank order)
  int local_size = 1;
  int max_local = 1;         // most ranks on one node
  bool uniform = true;       // every node holds the same number of ranks

  bool same_node(int rank) const { return node_of[rank] == node; }
  // Lowest rank of `n`: the node's leader.
  int leader_of(int n) const;
  // Rank of `rank` among its node's ranks (rank order).
  int local_rank_of(int rank) const;
};

// At MPI_Init, collective over MPI_COMM_WORLD: this rank's node key (the
// lowest world rank on its node), and every world rank's. `node_map` is ADACOMP_NODE_MAP ("" when
// unset, otherwise validated block sizes).
void locality_init(const std::vector<int>& node_map);

// The layout of `comm` (an intracommunicator). Local where all its ranks are
// in MPI_COMM_WORLD; otherwise one allgather of node keys, collective over
// `comm` (every rank decides alike which, from the same group).
Locality learn_locality(MPI_Comm comm);

}  // namespace adacomp
