// Binomial trees over an ordered list of members, member 0 the root, shared
// by Bcast and Reduce. The shape depends only on the member count, and so
// does a reduction's order of operations. Members are ranks of the private
// communicator: every rank (flat) or one representative per node.
#pragma once

#include <vector>

#include "coll/compressed_call.h"
#include "coll/plan.h"
#include "runtime/comm_state.h"
#include "wire/frame.h"

namespace adacomp {

struct Tree {
  int parent = -1;            // member index; -1 at the root
  std::vector<int> children;  // member indices, nearest first
};

inline Tree binomial_tree(int member, int members) {
  Tree t;
  int mask = 1;
  for (; mask < members && !(member & mask); mask <<= 1)
    if (member + mask < members) t.children.push_back(member + mask);
  if (member != 0) t.parent = member - mask;
  return t;
}

// Tree members of a rooted collective: every rank from the root on (flat),
// or one per node from the root's node on, the root standing for its node
// and each other node's lowest rank for that one (node-aware).
inline std::vector<int> tree_members(const Locality& loc, int size, int root, bool per_node) {
  std::vector<int> m;
  if (!per_node) {
    for (int i = 0; i < size; ++i) m.push_back((root + i) % size);
    return m;
  }
  const int root_node = loc.node_of[root];
  for (int i = 0; i < loc.nodes; ++i) {
    const int n = (root_node + i) % loc.nodes;
    m.push_back(n == root_node ? root : loc.leader_of(n));
  }
  return m;
}

// Position of `rank` among the members, or -1.
inline int member_index(const std::vector<int>& members, int rank) {
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == rank) return static_cast<int>(i);
  return -1;
}

// A rooted collective's tree: the members (every rank, or one per node when
// the plan is node-aware, the node groups then made), this rank's place among
// them (-1: not a member), and the node-local rank of this node's member,
// the root of the node stage.
struct RootedTree {
  std::vector<int> members;
  int me = -1;
  int local_root = 0;
  bool per_node = false;
};

// The tree of a planned call rooted at `root`; false when the root is out of
// range (the call is then declined, and PMPI reports it).
inline bool rooted_tree(const CollPlan& plan, int root, RootedTree* t) {
  CommState& st = *plan.state;
  if (root < 0 || root >= st.coll.size) return false;
  t->per_node = plan.layout != Layout::flat;
  if (t->per_node) ensure_node_groups(&st);
  t->members = tree_members(st.loc, st.coll.size, root, t->per_node);
  t->me = member_index(t->members, st.coll.rank);
  t->local_root = st.loc.node == st.loc.node_of[root] ? st.loc.local_rank_of(root) : 0;
  return true;
}

// What the compressed trees of Reduce and Bcast share: the call, the tree
// over `members` from this rank's place `me`, the messages of one call under
// `tag`, the `bytes` cut into plan.chunks chunks of at most `cap_` frame
// bytes, and the frames sent (complete at the end). Chunks start on
// multiples of `unit` bytes (the last takes the rest): a Reduce's element,
// which no chunk may split; a Bcast's fixed unit, since its ranks' datatypes
// may differ and every rank must cut alike.
class TreeWalk {
 protected:
  TreeWalk(CompressedCall& call, const std::vector<int>& members, int me, int tag, size_t bytes,
           size_t unit)
      : call_(call),
        members_(members),
        tree_(binomial_tree(me, static_cast<int>(members.size()))),
        tag_(tag),
        k_(call.plan.chunks),
        bytes_(bytes),
        unit_(unit),
        units_(bytes / unit),
        cap_(frame_capacity(max_block_count(units_, k_) * unit + bytes % unit)) {}
  size_t chunk_offset(int c) const {
    return c == k_ ? bytes_ : block_begin(units_, k_, c) * unit_;
  }
  size_t chunk_bytes(int c) const { return chunk_offset(c + 1) - chunk_offset(c); }
  bool sent(bool wait) {
    return call_.complete(static_cast<int>(sends_.size()), sends_.data(), nullptr, wait);
  }

  CompressedCall& call_;
  const std::vector<int>& members_;
  const Tree tree_;
  const int tag_, k_;
  const size_t bytes_, unit_, units_, cap_;
  std::vector<MPI_Request> sends_;
};

}  // namespace adacomp
