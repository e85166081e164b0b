#include "coll/exchange.h"

#include <climits>

#include "decision/model.h"
#include "runtime/args.h"
#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

static_assert(static_cast<int>(OpKind::kCount) <= RuntimeModel::kMaxOps,
              "the runtime model needs a slot per operation");

// Raw transfers of any count: MPI-4's large-count calls exist only where
// counts can exceed an int (the _c entry points).
int raw_irecv(void* buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
              MPI_Request* r) {
#if MPI_VERSION >= 4
  if (count > INT_MAX) return PMPI_Irecv_c(buf, count, type, peer, tag, comm, r);
#endif
  return PMPI_Irecv(buf, static_cast<int>(count), type, peer, tag, comm, r);
}
int raw_isend(const void* buf, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
              MPI_Request* r) {
#if MPI_VERSION >= 4
  if (count > INT_MAX) return PMPI_Isend_c(buf, count, type, peer, tag, comm, r);
#endif
  return PMPI_Isend(buf, static_cast<int>(count), type, peer, tag, comm, r);
}

void count_call(OpKind op) { stats_for(op).calls.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

bool bad_args(const void* buf, MPI_Count count, MPI_Datatype type) {
  return buf != MPI_IN_PLACE &&
         arg_error(MPI_COMM_NULL, count, type, MPI_PROC_NULL, Peer::none, 0) != MPI_SUCCESS;
}

int rank_in(MPI_Comm comm) {
  int rank = 0;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  return rank;
}

void copy_local(const void* src, MPI_Count scount, MPI_Datatype stype, void* dst, MPI_Count rcount,
                MPI_Datatype rtype) {
#if MPI_VERSION >= 4
  if (scount > INT_MAX || rcount > INT_MAX) {
    PMPI_Sendrecv_c(src, scount, stype, 0, 0, dst, rcount, rtype, 0, 0, MPI_COMM_SELF,
                    MPI_STATUS_IGNORE);
    return;
  }
#endif
  PMPI_Sendrecv(src, static_cast<int>(scount), stype, 0, 0, dst, static_cast<int>(rcount), rtype, 0,
                0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

bool nonblocking_off(OpKind op, Launch how) {
  if (how.blocking() || config().nonblocking) return false;
  count_call(op);
  return true;
}

const CommState* exchange_gate(OpKind op, MPI_Comm comm, size_t block_bytes, bool varied,
                               Launch how, CollPlan* plan) {
  count_call(op);
  return plan_exchange(op, comm, block_bytes, varied, !how.blocking(), plan) ? plan->state
                                                                             : nullptr;
}

const CommState* rooted_gate(OpKind op, MPI_Comm comm, int root, size_t block_bytes, bool varied,
                             Launch how, CollPlan* plan) {
  const CommState* st = exchange_gate(op, comm, block_bytes, varied, how, plan);
  if (st && (root < 0 || root >= st->coll.size)) {
    plan->model = -1;  // declined untimed
    return nullptr;
  }
  return st;
}

int launch(const CollPlan& plan, MPI_Comm comm, Launch how, ExchangeBuilder build) {
  return launch(*plan.state, comm, how, kTagExchange, [build](int tag) { return build(tag); });
}

Exchange::Exchange(MPI_Comm app, const CollPlan& plan, OpKind op, CallForm form, int tag)
    : plan_(plan), call_(app, plan_, op, form), tag_(tag) {}

bool Exchange::coded(const Xfer& x, size_t bytes) const {
  return x.peer != call_.group.rank && codes_hop(plan_, x.peer) && codes_transfer(bytes);
}

void Exchange::post() {
  const Group& group = call_.group;
  rframes_.resize(recvs_.size());
  sframes_.resize(sends_.size());
  reqs_.reserve(recvs_.size() + sends_.size());
  for (size_t i = 0; i < recvs_.size(); ++i) {
    const Xfer& x = recvs_[i];
    MPI_Request r = MPI_REQUEST_NULL;
    if (coded(x, data_size(x.count, x.type))) {
      rframes_[i].resize(frame_capacity(data_size(x.count, x.type)));
      call_.irecv(rframes_[i].data(), rframes_[i].size(), x.peer, tag_, &r);
    } else {
      call_.check_mpi(raw_irecv(x.buf, x.count, x.type, x.peer, tag_, group.comm, &r));
    }
    reqs_.push_back(r);
  }
  bool sent_lossy = false;  // counted once a call (the plan's tier is its bytes')
  for (size_t i = 0; i < sends_.size(); ++i) {
    const Xfer& x = sends_[i];
    const size_t bytes = data_size(x.count, x.type);
    MPI_Request r = MPI_REQUEST_NULL;
    if (coded(x, bytes)) {
      const TypeInfo ti = type_info(x.type);
      int rc = MPI_SUCCESS;
      const uint8_t* data = stage(x.buf, x.count, x.type, ti, bytes, true, group.comm, &rc);
      call_.check_mpi(rc);
      sframes_[i].resize(frame_capacity(bytes));
      const Coder coder = transfer_coder(plan_.bound, ti.kind, plan_.arm, data, bytes);
      sent_lossy |= coder.codec->lossy;
      const size_t n = call_.encode(coder, data, bytes, sframes_[i].data());
      call_.isend(sframes_[i].data(), n, bytes, x.peer, tag_, &r);
    } else {
      call_.check_mpi(raw_isend(x.buf, x.count, x.type, x.peer, tag_, group.comm, &r));
    }
    reqs_.push_back(r);
  }
  if (sent_lossy) call_.stats().lossy_calls.fetch_add(1, std::memory_order_relaxed);
  received_.resize(reqs_.size());
  posted_ = true;
}

void Exchange::decode() {
  for (size_t i = 0; i < recvs_.size() && !call_.mpi_failed(); ++i) {
    if (rframes_[i].empty()) continue;
    const Xfer& x = recvs_[i];
    const size_t bytes = data_size(x.count, x.type);
    const TypeInfo ti = type_info(x.type);
    uint8_t* dst = stage(x.buf, x.count, x.type, ti, bytes, false, call_.group.comm);
    if (call_.decode(rframes_[i].data(), received_[i], dst, bytes))
      unstage(dst, bytes, x.buf, x.type, ti, call_.group.comm);
  }
}

bool Exchange::advance(bool wait) {
  if (!posted_) post();
  if (!call_.complete(static_cast<int>(reqs_.size()), reqs_.data(), received_.data(), wait))
    return false;
  decode();  // after an MPI error: nothing (reported by finish)
  return true;
}

}  // namespace adacomp
