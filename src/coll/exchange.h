// The exchange engine of the data-movement collectives: Allgather(v),
// Gather(v), Scatter(v) and Alltoall(v) are each a set of pairwise transfers
// on the private collective communicator, posted together and completed at
// once.
//
// Whether a transfer is coded depends only on its byte count and the
// configuration, which sender and receiver both know (MPI requires their
// type signatures to match), so both ends always agree; the frame carries the
// codec and sizes in-band. Whether the whole call takes this path is decided
// from values identical on every rank (block size in bytes for the regular
// calls, configuration only for the v calls), so the classic and the MPI-4
// large-count (_c) forms of a call, which share one implementation, may be
// mixed across ranks.
//
// Every form, blocking, nonblocking (MPI_Iallgather, ...) and persistent
// (MPI_Allgather_init, ...), runs the same transfers as one Schedule
// (coll/schedule.h), the latter under the call's own tag: same frames, same
// coding decisions, same results.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

#include "coll/compressed_call.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "report/stats.h"
#include "decision/call_result.h"
#include "runtime/comm_state.h"
#include "transfer/transfer.h"

namespace adacomp {

// The blocks of one side of a call, for both count widths: Count and Displ
// are int for the classic calls and MPI_Count and MPI_Aint for the _c
// calls. Block j holds count(j) elements at element displacement displ(j):
// the v calls give arrays (significant only where MPI says so), the regular
// ones one `block` per rank in rank order.
template <class Count, class Displ>
struct Blocks {
  const Count* counts;
  const Displ* displs;
  Count block;
  bool varied;  // a v call: known on every rank, whatever the arrays hold
  Count count(int j) const { return varied ? counts[j] : block; }
  MPI_Aint displ(int j) const { return varied ? displs[j] : static_cast<MPI_Aint>(j) * block; }
  // A v call's type is checked as one element.
  Count checked() const { return varied ? 1 : block; }
};
template <class Count>
Blocks<Count, MPI_Aint> same_blocks(Count block) {
  return {nullptr, nullptr, block, false};
}
template <class Count, class Displ>
Blocks<Count, Displ> given_blocks(const Count* counts, const Displ* displs) {
  return {counts, displs, 0, true};
}

// Buffer arguments MPI rejects (runtime/args.h), checked once a call passes
// the gate (a query): the call is then declined and PMPI reports them. `buf`
// MPI_IN_PLACE has nothing to check.
bool bad_args(const void* buf, MPI_Count count, MPI_Datatype type);

int rank_in(MPI_Comm comm);
// A rank's own block, copied from its send to its receive buffer.
void copy_local(const void* src, MPI_Count scount, MPI_Datatype stype, void* dst, MPI_Count rcount,
                MPI_Datatype rtype);

// A nonblocking or persistent call with ADACOMP_NONBLOCKING off (the
// default): counted and declined before any query, so its pass-through costs
// what the other nonblocking calls' does.
bool nonblocking_off(OpKind op, Launch how);

// The gate (plan_exchange), after counting the call: the state when the call
// is taken, else null. A regular call passes its block size (identical on
// every rank); `root`, for a rooted call, must be in range (else PMPI reports
// it).
const CommState* exchange_gate(OpKind op, MPI_Comm comm, size_t block_bytes, bool varied,
                               Launch how, CollPlan* plan);
const CommState* rooted_gate(OpKind op, MPI_Comm comm, int root, size_t block_bytes, bool varied,
                             Launch how, CollPlan* plan);
// The gate of a call without root on its receive blocks.
template <class Count, class Displ>
const CommState* blocks_gate(OpKind op, MPI_Comm comm, const Blocks<Count, Displ>& recv,
                             MPI_Datatype recvtype, Launch how, CollPlan* plan) {
  const size_t block_bytes = recv.varied ? 0 : data_size(recv.block, recvtype);
  return exchange_gate(op, comm, block_bytes, recv.varied, how, plan);
}

// The transfers of one call (`op` called as `form`) under `tag`: a Schedule
// whose first advance() posts them all, and whose last decodes.
class Exchange : public Schedule {
 public:
  Exchange(MPI_Comm app, const CollPlan& plan, OpKind op, CallForm form, int tag);
  void send(int peer, const void* buf, MPI_Count count, MPI_Datatype type) {
    sends_.push_back({peer, const_cast<void*>(buf), count, type});
  }
  void recv(int peer, void* buf, MPI_Count count, MPI_Datatype type) {
    recvs_.push_back({peer, buf, count, type});
  }
  // Storage the transfers read from (an in-place input's copy) kept until done.
  void keep(std::vector<char> bytes) { kept_ = std::move(bytes); }
  bool advance(bool wait) override;
  int finish() override { return call_.finish(); }

 private:
  // A coded transfer holds at most kMaxFramePayload bytes (the gate checks),
  // so its count fits an int; a raw one may not.
  struct Xfer {
    int peer;
    void* buf;
    MPI_Count count;
    MPI_Datatype type;
  };
  bool coded(const Xfer& x, size_t bytes) const;
  void post();
  void decode();  // once every transfer is complete

  const CollPlan plan_;
  CompressedCall call_;  // errors, statistics, timing; its group is the private communicator
  const int tag_;
  std::vector<Xfer> sends_, recvs_;
  std::vector<char> kept_;
  std::vector<std::vector<uint8_t>> rframes_, sframes_;
  std::vector<MPI_Request> reqs_;  // receives first, then sends
  std::vector<size_t> received_;  // each request's bytes received (CompressedCall::complete)
  bool posted_ = false;
};

// Builds a call's transfers under `tag` (reading its buffers now).
using ExchangeBuilder = std::function<std::unique_ptr<Exchange>(int tag)>;
// Runs a gated call as `how` says (coll/schedule.h launch).
int launch(const CollPlan& plan, MPI_Comm comm, Launch how, ExchangeBuilder build);

// Gather(v) (`to_root`) and Scatter(v): the root holds `blocks`, one per
// rank; every other rank one message, `single`, sent to or received from the
// root. `single_buf` MPI_IN_PLACE at the root: its own block stays in place.
template <class Count, class Displ>
CallResult rooted_exchange(OpKind op, bool to_root, const void* single_buf, Count single_count,
                           MPI_Datatype single_type, const void* blocks_buf,
                           Blocks<Count, Displ> blocks, MPI_Datatype blocks_type, int root,
                           MPI_Comm comm, Launch how = {}) {
  if (nonblocking_off(op, how)) return kDeclined;
  const bool is_root = rank_in(comm) == root;
  // A block's size in bytes is the same at the root and at its rank.
  const size_t block_bytes = blocks.varied ? 0
                             : is_root     ? data_size(blocks.block, blocks_type)
                                           : data_size(single_count, single_type);
  CollPlan plan;
  const CommState* st = rooted_gate(op, comm, root, block_bytes, blocks.varied, how, &plan);
  if (!st) return decline(plan);
  if (is_root ? bad_args(single_buf, single_count, single_type) ||
                    bad_args(nullptr, blocks.checked(), blocks_type)
              : bad_args(nullptr, single_count, single_type))
    return kDeclined;
  const int size = st->coll.size;
  return launch(plan, comm, how, [=](int tag) {
    auto x = std::make_unique<Exchange>(comm, plan, op, how.form(), tag);
    if (!is_root) {
      if (to_root)
        x->send(root, single_buf, single_count, single_type);
      else
        x->recv(root, const_cast<void*>(single_buf), single_count, single_type);
      return x;
    }
    char* own = block_at(blocks_buf, blocks.displ(root), blocks_type);
    if (single_buf != MPI_IN_PLACE && to_root)
      copy_local(single_buf, single_count, single_type, own, blocks.count(root), blocks_type);
    else if (single_buf != MPI_IN_PLACE)
      copy_local(own, blocks.count(root), blocks_type, const_cast<void*>(single_buf), single_count,
                 single_type);
    for (int j = 0; j < size; ++j) {
      if (j == root) continue;
      char* block = block_at(blocks_buf, blocks.displ(j), blocks_type);
      if (to_root)
        x->recv(j, block, blocks.count(j), blocks_type);
      else
        x->send(j, block, blocks.count(j), blocks_type);
    }
    return x;
  });
}

}  // namespace adacomp
