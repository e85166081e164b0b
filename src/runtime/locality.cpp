#include "runtime/locality.h"

#include <algorithm>

namespace adacomp {
namespace {

int g_world_key = 0;              // lowest world rank on this rank's node
std::vector<int> g_world_keys;    // every world rank's node key

// World ranks of `comm`'s ranks (MPI_UNDEFINED for a process outside
// MPI_COMM_WORLD, e.g. a spawned one): a local lookup, no communication.
std::vector<int> world_ranks_of(MPI_Comm comm, int size) {
  MPI_Group g, world;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(size), out(size, MPI_UNDEFINED);
  for (int r = 0; r < size; ++r) ranks[r] = r;
  PMPI_Group_translate_ranks(g, size, ranks.data(), world, out.data());
  PMPI_Group_free(&g);
  PMPI_Group_free(&world);
  return out;
}

// The node keys of `comm`'s ranks: looked up in the world table where every
// rank is a world process (so making a communicator's state costs no
// message), gathered otherwise.
std::vector<int> node_keys_of(MPI_Comm comm, int size) {
  std::vector<int> keys = world_ranks_of(comm, size);
  const bool known = !g_world_keys.empty() &&
      std::none_of(keys.begin(), keys.end(), [](int w) { return w == MPI_UNDEFINED; });
  if (known) {
    for (int& k : keys) k = g_world_keys[k];
  } else {
    PMPI_Allgather(&g_world_key, 1, MPI_INT, keys.data(), 1, MPI_INT, comm);
  }
  return keys;
}

}  // namespace

int Locality::leader_of(int n) const {
  for (size_t r = 0; r < node_of.size(); ++r)
    if (node_of[r] == n) return static_cast<int>(r);
  return -1;
}

int Locality::local_rank_of(int rank) const {
  int n = 0;
  for (int r = 0; r < rank; ++r) n += node_of[r] == node_of[rank];
  return n;
}

void locality_init(const std::vector<int>& node_map) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Always collective, so that ranks disagreeing on the map (stopped right
  // after by the configuration check) cannot hang here.
  MPI_Comm node;
  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  g_world_key = world_ranks_of(node, 1)[0];
  PMPI_Comm_free(&node);
  if (!node_map.empty()) {
    // Block b holds world ranks [start, start + node_map[b]); ranks past the
    // map's end form one more node each.
    int start = 0;
    g_world_key = rank;
    for (int size : node_map) {
      if (rank < start + size) {
        g_world_key = start;
        break;
      }
      start += size;
    }
  }
  int size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  g_world_keys.assign(size, 0);
  PMPI_Allgather(&g_world_key, 1, MPI_INT, g_world_keys.data(), 1, MPI_INT, MPI_COMM_WORLD);
}

Locality learn_locality(MPI_Comm comm) {
  Locality loc;
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  const std::vector<int> keys = node_keys_of(comm, size);
  // Nodes are numbered in order of their lowest rank in this communicator.
  std::vector<int> order;  // node keys by first appearance
  loc.node_of.resize(size);
  for (int r = 0; r < size; ++r) {
    auto it = std::find(order.begin(), order.end(), keys[r]);
    loc.node_of[r] = static_cast<int>(it - order.begin());
    if (it == order.end()) order.push_back(keys[r]);
  }
  loc.nodes = static_cast<int>(order.size());
  loc.node = loc.node_of[rank];
  std::vector<int> per_node(loc.nodes, 0);
  for (int r = 0; r < size; ++r) {
    if (r == rank) loc.local_rank = per_node[loc.node_of[r]];
    ++per_node[loc.node_of[r]];
  }
  loc.local_size = per_node[loc.node];
  loc.max_local = *std::max_element(per_node.begin(), per_node.end());
  loc.uniform = *std::min_element(per_node.begin(), per_node.end()) == loc.max_local;
  return loc;
}

}  // namespace adacomp
