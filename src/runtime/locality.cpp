#include "runtime/locality.h"

#include <algorithm>
#include <unordered_map>

#include "codec/bytes.h"

namespace adacomp {
namespace {

int g_world_key = 0;            // lowest world rank on this rank's node
std::vector<int> g_world_keys;  // every world rank's node key

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
  const bool known = !g_world_keys.empty() && std::none_of(keys.begin(), keys.end(), [](int w) {
    return w == MPI_UNDEFINED;
  });
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

uint64_t node_identity() {
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  PMPI_Get_processor_name(name, &len);
  return bits::fnv1a_64(name, static_cast<size_t>(std::max(len, 0)));
}

void locality_init(const std::vector<uint64_t>& identities, int rank,
                   const std::vector<int>& node_map) {
  const int size = static_cast<int>(identities.size());
  std::vector<int> keys(size);
  if (node_map.empty()) {
    std::unordered_map<uint64_t, int> first_rank;
    for (int r = 0; r < size; ++r) keys[r] = first_rank.emplace(identities[r], r).first->second;
  } else {
    // Block b holds world ranks [start, start + node_map[b]); ranks past the
    // map's end form one more node each.
    int start = 0;
    for (int block : node_map) {
      for (int r = start; r < std::min(size, start + block); ++r) keys[r] = start;
      start += block;
    }
    for (int r = start; r < size; ++r) keys[r] = r;
  }
  g_world_keys = keys;
  g_world_key = keys[rank];
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
