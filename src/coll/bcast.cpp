// Bcast, in every form (blocking, MPI_Ibcast, MPI_Bcast_init): one schedule
// (coll/schedule.h). The root encodes once; the frames travel down a
// binomial tree unchanged and every receiver decodes the same bytes. Sizes
// travel in-band: receivers post the largest possible frame and read the
// actual size from the status. With several chunks a rank forwards chunk c
// before decoding it, so the tree levels overlap.
//
// Node-aware, the tree spans one member per node (the root for its own
// node, the lowest rank elsewhere) and a node-local PMPI_Bcast from that
// member finishes the call. Lossy, the root's node then holds the root's
// exact values and every other rank the same decoded ones. Pipelined, that
// node stage runs in segments (below), overlapping the tree.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "coll/lossy_agreement.h"
#include "coll/compressed_call.h"
#include "coll/coll.h"
#include "coll/node_stage.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "coll/tree.h"

namespace adacomp {
namespace {

// The compressed tree over `members` (this rank member `me`) on packed
// (contiguous) data: the root codes each chunk once, every other member
// forwards the frame unchanged, then decodes it. Chunks start on multiples
// of kChunkUnit bytes, whatever each rank's datatype (MPI lets them differ
// with one signature): 16, a multiple of the floats and doubles the typed
// codecs read, so the root's codec never sees a split value.
constexpr size_t kChunkUnit = 16;

class TreeBcast : TreeWalk {
 public:
  TreeBcast(CompressedCall& call, const std::vector<int>& members, int me, uint8_t* data, int tag)
      : TreeWalk(call, members, me, tag, call.plan.bytes, kChunkUnit),
        data_(data),
        frames_(call.memory(ScratchSlot::frames, cap_ * k_)),
        sizes_(k_),
        recvs_(tree_.parent < 0 ? 0 : k_) {
    for (int c = 0; c < static_cast<int>(recvs_.size()); ++c)
      call.irecv(frames_ + cap_ * c, cap_, members_[tree_.parent], tag_, &recvs_[c]);
    sends_.reserve(tree_.children.size() * k_);
  }

  bool advance(bool wait) {
    const bool is_root = tree_.parent < 0;
    // (next_ counts the chunks this rank holds: encoded, or decoded.)
    for (; next_ < k_; ++next_) {
      const int c = next_;
      uint8_t* frame = frames_ + cap_ * c;
      uint8_t* chunk = data_ + chunk_offset(c);
      const size_t bytes = chunk_bytes(c);
      if (is_root)
        sizes_[c] = call_.encode(chunk, bytes, frame);
      else if (!call_.complete(1, &recvs_[c], &sizes_[c], wait))
        return false;
      // A receive cut short (the root sent more than this rank's count
      // holds; MPI may keep none of it) passes on a header alone, of a
      // chunk larger than this rank's, which no rank below decodes: the
      // whole subtree fails, as MPI's own Bcast passes its error down.
      const bool cut = !is_root && call_.mpi_failed();
      if (cut) {
        sizes_[c] = write_undecodable_frame(bytes + 1, frame);
        root_bytes_ += 1;  // the root's chunk is larger than this rank's
      }
      // Farthest child first: its subtree is the deepest.
      for (auto child = tree_.children.rbegin(); child != tree_.children.rend(); ++child) {
        sends_.emplace_back();
        call_.isend(frame, sizes_[c], bytes, members_[*child], tag_, &sends_.back());
      }
      // Decode while the chunk travels on to the children.
      if (!is_root && !cut && !call_.decode(frame, sizes_[c], chunk, bytes))
        note_root_bytes(frame, c);
      call_.progress();
    }
    return sent(wait);
  }

  // The bytes the root sent, as its frames' headers say (more than this
  // rank's where a receive was cut): another count than this rank's when
  // the ranks' counts differ, an erroneous call.
  size_t root_bytes() const { return root_bytes_; }
  // The chunks in place so far, first to last; which chunk holds `byte`.
  int chunks_done() const { return next_; }
  int chunk_of(size_t byte) const {
    int c = 0;
    while (c + 1 < k_ && chunk_offset(c + 1) <= byte) ++c;
    return c;
  }

 private:
  // A chunk that failed: the root's size of it, from its frame's header
  // (unsigned arithmetic: the sum comes out right).
  void note_root_bytes(const uint8_t* frame, int c) {
    FrameHeader h;
    if (sizes_[c] >= kFrameHeaderBytes && read_frame_header(frame, SIZE_MAX, &h))
      root_bytes_ += h.raw_bytes - chunk_bytes(c);
  }

  uint8_t* const data_;
  uint8_t* const frames_;
  std::vector<size_t> sizes_;
  std::vector<MPI_Request> recvs_;
  size_t root_bytes_ = bytes_;
  int next_ = 0;
};

// Pipelined node-aware calls spread in segments (the plan's
// segments, decision/plan.cpp; the member handles the whole message, so its share is all
// of it): segment s's node-local Ibcast starts as soon as the node's member
// holds the chunks it spans (the root at once), so the node stage overlaps
// the tree. Every rank of the node cuts alike, by byte ranges of the
// message, and each segment travels as MPI_BYTE, so datatypes of one
// signature match; a rank whose datatype is not contiguous receives into
// its packed staging area and unpacks at the end.
class BcastSchedule : public Schedule {
 public:
  BcastSchedule(MPI_Comm app, const CollPlan& plan, CallForm form, int tag, void* buffer, int count,
                MPI_Datatype type, int root)
      : plan_(plan),
        call_(app, plan_, OpKind::bcast, form),
        buffer_(buffer),
        count_(count),
        type_(type) {
    CommState& st = *plan_.state;
    rooted_tree(plan_, root, &tree_);  // the caller checked the root
    is_root_ = st.coll.rank == root;
    if (tree_.me >= 0 && tree_.members.size() > 1) {
      stage();
      // One compression between the root's data and any receiver.
      if (is_root_ && plan_.tier.tier == Tier::lossy)
        call_.set_hop_bound(hop_bound(plan_, data_, plan_.bytes / plan_.type.size, 1, 0));
      tree_bcast_.emplace(call_, tree_.members, tree_.me, data_, tag);
    }
    if (!tree_.per_node) return;
    const int parts = plan_.segments;
    if (parts == 1) {
      spread_.emplace(st);
      return;
    }
    if (!data_) stage();
    pieces_ = cut_node_stage(st, plan_.bytes, parts);
    for (const NodeSegment& piece : pieces_)
      last_chunk_.push_back(tree_bcast_ && piece.size > 0
                                ? tree_bcast_->chunk_of(piece.begin + piece.size - 1)
                                : -1);
  }

  bool advance(bool wait) override {
    if (!pieces_.empty()) {
      // As the node-aware Allreduce's segments: nonblocking steps, polled.
      return run_passes(wait, [&] { return advance_pieces(); });
    }
    if (tree_bcast_ && !unpacked_) {
      if (!tree_bcast_->advance(wait)) return false;
      tree_done();
    }
    if (!spread_) return true;
    const Group& node = plan_.state->node;
    const int local_root = tree_.local_root;
    // A root whose count differs from this node's: the node's ranks are
    // sent the root's size, so that MPI fails them as it would without the
    // library.
    if (root_sized_) {
      const int n = static_cast<int>(std::min<size_t>(tree_bcast_->root_bytes(), INT_MAX));
      return spread_->run(
          wait, false, [&] { return PMPI_Bcast(root_sized_, n, MPI_BYTE, local_root, node.comm); },
          [&](MPI_Request* r) {
            return PMPI_Ibcast(root_sized_, n, MPI_BYTE, local_root, node.comm, r);
          });
    }
    return spread_->run(
        wait, false, [&] { return PMPI_Bcast(buffer_, count_, type_, local_root, node.comm); },
        [&](MPI_Request* r) {
          return PMPI_Ibcast(buffer_, count_, type_, local_root, node.comm, r);
        });
  }

  int finish() override {
    if (spread_) call_.check_mpi(spread_->rc());
    for (const NodeSegment& piece : pieces_) call_.check_mpi(piece.stage->rc());
    return call_.finish();
  }

 private:
  // The data in packed form: the buffer itself when contiguous, else a
  // staging area (the root's data packed into it).
  void stage() {
    uint8_t* room = plan_.type.contiguous ? nullptr : call_.memory(ScratchSlot::work, plan_.bytes);
    data_ = stage_in(room, buffer_, count_, type_, plan_.type, plan_.bytes, is_root_,
                     plan_.state->coll.comm);
  }

  // The end of the tree at a member: a non-root one unpacks, and learns
  // whether the root's message had this rank's size.
  void tree_done() {
    if (!is_root_) unstage(data_, plan_.bytes, buffer_, type_, plan_.type, plan_.state->coll.comm);
    if (tree_bcast_->root_bytes() != plan_.bytes)
      root_sized_ = call_.memory(ScratchSlot::frames, tree_bcast_->root_bytes());
    unpacked_ = true;
  }

  // One pass: the pieces whose data the member holds (in ticket order),
  // then the tree as far as it goes. True once all are done.
  bool advance_pieces() {
    bool done = true;
    for (size_t s = 0; s < pieces_.size(); ++s) {
      NodeSegment& piece = pieces_[s];
      if (piece.stage->done()) continue;
      // The last piece waits for the whole tree: a root of another size
      // shows only then (the whole call's root_sized_ case).
      const bool last = s + 1 == pieces_.size();
      const bool held = !tree_bcast_ || is_root_ ||
                        (last ? unpacked_ : tree_bcast_->chunks_done() > last_chunk_[s]);
      if (!held || !spread_piece(piece, last)) done = false;
    }
    if (tree_bcast_ && !unpacked_) {
      if (tree_bcast_->advance(false))
        tree_done();
      else
        done = false;
    }
    if (!done) return false;
    // Every piece has arrived: a rank that did not take part in the tree
    // unpacks its staging area (once: a finished schedule is not advanced
    // again, coll/schedule.cpp).
    if (!tree_bcast_)
      unstage(data_, plan_.bytes, buffer_, type_, plan_.type, plan_.state->coll.comm);
    return true;
  }

  bool spread_piece(NodeSegment& piece, bool last) {
    const Group& node = plan_.state->node;
    const int local_root = tree_.local_root;
    uint8_t* from = data_ + piece.begin;
    int n = static_cast<int>(piece.size);
    if (last && root_sized_) {  // MPI then fails the node's ranks, as without the library
      const size_t root = tree_bcast_->root_bytes();
      from = root_sized_ + std::min(piece.begin, root);
      n = static_cast<int>(std::min<size_t>(root > piece.begin ? root - piece.begin : 0, INT_MAX));
    }
    return piece.stage->run(
               false, false, [&] { return PMPI_Bcast(from, n, MPI_BYTE, local_root, node.comm); },
               [&](MPI_Request* r) {
                 return PMPI_Ibcast(from, n, MPI_BYTE, local_root, node.comm, r);
               });
  }

  const CollPlan plan_;
  CompressedCall call_;
  void* const buffer_;
  const int count_;
  const MPI_Datatype type_;
  RootedTree tree_;
  bool is_root_ = false, unpacked_ = false;
  uint8_t* data_ = nullptr;
  uint8_t* root_sized_ = nullptr;  // the root's size, where it differs
  std::optional<TreeBcast> tree_bcast_;
  std::optional<NodeStage> spread_;  // node-aware, whole: from each node's member
  std::vector<NodeSegment> pieces_;  // node-aware, in segments (bytes)
  std::vector<int> last_chunk_;      // of each piece, the member's last tree chunk it spans
};

CallResult bcast_impl(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      Launch how) {
  stats_for(OpKind::bcast).calls.fetch_add(1, std::memory_order_relaxed);
  CollPlan plan;
  if (!plan_call(OpKind::bcast, comm, count, type, MPI_OP_NULL, how.form(), &plan))
    return decline(plan);
  RootedTree tree;
  if (!rooted_tree(plan, root, &tree)) return kDeclined;  // PMPI reports a bad root
  return launch(*plan.state, comm, how, kTagTree, [=](int tag) {
    return std::make_unique<BcastSchedule>(comm, plan, how.form(), tag, buffer, count, type, root);
  });
}

}  // namespace

CallResult bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return bcast_impl(buffer, count, type, root, comm, {});
}

CallResult ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return bcast_impl(buffer, count, type, root, comm, {request});
}

#if MPI_VERSION >= 4
CallResult bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info,
                      MPI_Request* request) {
  return bcast_impl(buffer, count, type, root, comm, {request, true});
}
#endif

}  // namespace adacomp
