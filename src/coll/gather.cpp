// Compressed data-movement collectives: Allgather(v), Gather(v), Scatter(v),
// Alltoall(v).
//
// Each is a set of pairwise transfers on the private collective
// communicator. Whether a transfer is compressed depends only on its byte
// count and the configuration, which sender and receiver both know (MPI
// requires their type signatures to match), so both ends always agree; the
// frame carries the codec and sizes in-band. Whether the whole call takes
// this path is decided from values identical on every rank (block size in
// bytes for the regular variants, configuration only for the v variants), so
// the classic and the MPI-4 large-count (_c) forms of a call, which share one
// implementation, may be mixed across ranks.
#include <climits>
#include <memory>
#include <vector>

#include "coll/coll.h"
#include "runtime/datatype.h"
#include "coll/plan.h"
#include "policy/model.h"
#include "policy/tier.h"
#include "runtime/comm_state.h"
#include "runtime/args.h"
#include "runtime/runtime.h"
#include "runtime/scratch.h"
#include "runtime/stats.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

constexpr int kTagExchange = 3;

static_assert(static_cast<int>(Op::kCount) <= RuntimeModel::kMaxOps,
              "the runtime model needs a slot per operation");

bool pays(size_t bytes) {
  return bytes > 0 && in_compressed_range(config(), tier_override(), bytes);
}

// Gate: identical inputs on every rank (see plan_exchange).
const CommState* gate(Op op, MPI_Comm comm, size_t block_bytes, bool any_block_pays,
                      Plan* plan) {
  return plan_exchange(op, comm, block_bytes, any_block_pays, plan) ? plan->state : nullptr;
}

// Gate of a rooted collective: a root out of range passes through too, so
// that PMPI reports the error.
const CommState* rooted_gate(Op op, MPI_Comm comm, int root, size_t block_bytes,
                             bool any_block_pays, Plan* plan) {
  const CommState* st = gate(op, comm, block_bytes, any_block_pays, plan);
  if (st && (root < 0 || root >= st->coll.size)) plan->model = nullptr;  // untimed
  return st && root >= 0 && root < st->coll.size ? st : nullptr;
}

// Buffer arguments MPI rejects (negative count, null or uncommitted type):
// the call then passes to PMPI, which reports them on the caller's
// communicator. `bad_send` accepts MPI_IN_PLACE; a v variant's types are
// checked as one element each.
bool bad(MPI_Count count, MPI_Datatype type) {
  return arg_error(MPI_COMM_NULL, count, type, MPI_PROC_NULL, Peer::none, 0) != MPI_SUCCESS;
}
bool bad_send(const void* sendbuf, MPI_Count count, MPI_Datatype type) {
  return sendbuf != MPI_IN_PLACE && bad(count, type);
}

int rank_in(MPI_Comm comm) {
  int rank = 0;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  return rank;
}

size_t type_bytes(MPI_Count count, MPI_Datatype t) {
  int s = 0;
  PMPI_Type_size(t, &s);
  return static_cast<size_t>(count > 0 ? count : 0) * static_cast<size_t>(s);
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb, ext;
  PMPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

// Raw transfers of any count: MPI-4's large-count calls exist only where
// counts can exceed an int (the _c entry points).
int raw_irecv(void* buf, MPI_Count count, MPI_Datatype type, int peer, MPI_Comm comm,
              MPI_Request* r) {
#if MPI_VERSION >= 4
  if (count > INT_MAX) return PMPI_Irecv_c(buf, count, type, peer, kTagExchange, comm, r);
#endif
  return PMPI_Irecv(buf, static_cast<int>(count), type, peer, kTagExchange, comm, r);
}
int raw_isend(const void* buf, MPI_Count count, MPI_Datatype type, int peer, MPI_Comm comm,
              MPI_Request* r) {
#if MPI_VERSION >= 4
  if (count > INT_MAX) return PMPI_Isend_c(buf, count, type, peer, kTagExchange, comm, r);
#endif
  return PMPI_Isend(buf, static_cast<int>(count), type, peer, kTagExchange, comm, r);
}
// A rank's own block, copied from its send to its receive buffer.
void copy_local(const void* src, MPI_Count scount, MPI_Datatype stype, void* dst,
                MPI_Count rcount, MPI_Datatype rtype) {
#if MPI_VERSION >= 4
  if (scount > INT_MAX || rcount > INT_MAX) {
    PMPI_Sendrecv_c(src, scount, stype, 0, 0, dst, rcount, rtype, 0, 0, MPI_COMM_SELF,
                    MPI_STATUS_IGNORE);
    return;
  }
#endif
  PMPI_Sendrecv(src, static_cast<int>(scount), stype, 0, 0, dst, static_cast<int>(rcount),
                rtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

// A compressed transfer holds at most kMaxFramePayload bytes (pays() checks),
// so its count fits an int; a raw one may not.
struct Xfer {
  int peer;
  void* buf;
  MPI_Count count;
  MPI_Datatype type;
};

class Exchange {
 public:
  Exchange(MPI_Comm app, const Plan& plan, Op op)
      : app_(app), plan_(plan), st_(plan.state->coll), op_(op), stats_(stats_for(op)),
        start_(PMPI_Wtime()) {
    stats_.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  }
  void send(int peer, const void* buf, MPI_Count count, MPI_Datatype type) {
    sends_.push_back({peer, const_cast<void*>(buf), count, type});
  }
  void recv(int peer, void* buf, MPI_Count count, MPI_Datatype type) {
    recvs_.push_back({peer, buf, count, type});
  }
  int run();

 private:
  MPI_Comm app_;
  const Plan& plan_;
  const Group& st_;
  Op op_;
  OpStats& stats_;
  std::vector<Xfer> sends_, recvs_;
  double start_;
};

int Exchange::run() {
  const Config& cfg = config();
  std::vector<MPI_Request> reqs;
  std::vector<std::vector<uint8_t>> rframes(recvs_.size()), sframes(sends_.size());
  int mpi_error = MPI_SUCCESS;
  auto check = [&](int rc) {
    if (rc != MPI_SUCCESS && mpi_error == MPI_SUCCESS) mpi_error = rc;
  };
  reqs.reserve(recvs_.size() + sends_.size());
  for (size_t i = 0; i < recvs_.size(); ++i) {
    const Xfer& x = recvs_[i];
    size_t bytes = type_bytes(x.count, x.type);
    MPI_Request r;
    if (x.peer != st_.rank && codes_hop(plan_, x.peer) && pays(bytes)) {
      rframes[i].resize(frame_capacity(bytes));
      check(PMPI_Irecv(rframes[i].data(), static_cast<int>(rframes[i].size()), MPI_BYTE,
                       x.peer, kTagExchange, st_.comm, &r));
    } else {
      check(raw_irecv(x.buf, x.count, x.type, x.peer, st_.comm, &r));
    }
    reqs.push_back(r);
  }
  for (size_t i = 0; i < sends_.size(); ++i) {
    const Xfer& x = sends_[i];
    size_t bytes = type_bytes(x.count, x.type);
    MPI_Request r;
    if (x.peer != st_.rank && codes_hop(plan_, x.peer) && pays(bytes)) {
      TypeInfo ti = type_info(x.type);
      const uint8_t* data = static_cast<const uint8_t*>(x.buf) + ti.true_lb;
      std::vector<uint8_t> packed;
      if (!ti.contiguous) {
        packed.resize(bytes);
        int pos = 0;
        PMPI_Pack(x.buf, static_cast<int>(x.count), x.type, packed.data(),
                  static_cast<int>(bytes), &pos, st_.comm);
        data = packed.data();
      }
      EncodeParams params;
      params.kind = ti.kind;
      params.zstd_level = cfg.zstd_level;
      const Codec& codec = codec_for(cfg, Tier::lossless, ti.kind);
      sframes[i].resize(frame_capacity(bytes));
      size_t n;
      {
        ScopedTimer t(stats_.ns_compress);
        n = encode_frame(codec, params, data, bytes, sframes[i].data());
      }
      if (cfg.fault_corrupt_frames) sframes[i][8] ^= 0x5A;
      stats_.bytes_in.fetch_add(bytes, std::memory_order_relaxed);
      stats_.bytes_wire.fetch_add(n, std::memory_order_relaxed);
      check(PMPI_Isend(sframes[i].data(), static_cast<int>(n), MPI_BYTE, x.peer, kTagExchange,
                       st_.comm, &r));
    } else {
      check(raw_isend(x.buf, x.count, x.type, x.peer, st_.comm, &r));
    }
    reqs.push_back(r);
  }
  std::vector<MPI_Status> sts(reqs.size());
  check(PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), sts.data()));
  bool corrupt = false;
  for (size_t i = 0; i < recvs_.size() && mpi_error == MPI_SUCCESS; ++i) {
    if (rframes[i].empty()) continue;
    const Xfer& x = recvs_[i];
    size_t bytes = type_bytes(x.count, x.type);
    int got = 0;
    PMPI_Get_count(&sts[i], MPI_BYTE, &got);
    TypeInfo ti = type_info(x.type);
    uint8_t* dst = ti.contiguous ? static_cast<uint8_t*>(x.buf) + ti.true_lb
                                 : scratch(ScratchSlot::work, bytes);
    long r;
    {
      ScopedTimer t(stats_.ns_decompress);
      r = decode_frame(rframes[i].data(), static_cast<size_t>(got < 0 ? 0 : got), dst, bytes);
    }
    if (r != kCodecOk) {
      corrupt = true;
      continue;
    }
    if (!ti.contiguous) {
      int pos = 0;
      PMPI_Unpack(dst, static_cast<int>(bytes), &pos, x.buf, static_cast<int>(x.count), x.type,
                  st_.comm);
    }
  }
  record_time(plan_, PMPI_Wtime() - start_);
  if (mpi_error != MPI_SUCCESS) {
    PMPI_Comm_call_errhandler(app_, mpi_error);
    return mpi_error;
  }
  if (corrupt) return raise_failure(app_, Failure::corrupt_frame, op_display_name(op_));
  return MPI_SUCCESS;
}

void count_call(Op op) { stats_for(op).calls.fetch_add(1, std::memory_order_relaxed); }

char* at(const void* base, MPI_Aint index, MPI_Datatype type) {
  return static_cast<char*>(const_cast<void*>(base)) + index * extent_of(type);
}

// Bytes spanned by blocks (displ, count) of `type` from the buffer start, for
// copying an in-place Alltoall(v) input; -1 if a lower bound is negative.
template <class Count, class Displ>
MPI_Aint span(int n, const Count* counts, const Displ* displs, Count block, MPI_Datatype type) {
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  if (tlb < 0 || lb < 0) return -1;
  MPI_Aint end = 0;
  for (int i = 0; i < n; ++i) {
    MPI_Aint c = counts ? counts[i] : block;
    if (c <= 0) continue;
    MPI_Aint d = displs ? displs[i] : static_cast<MPI_Aint>(i) * block;
    MPI_Aint e = (d + c - 1) * ext + tlb + text;
    if (e > end) end = e;
  }
  return end;
}

// One implementation per collective for both count widths: Count and Displ
// are int for the classic calls and MPI_Count and MPI_Aint for MPI-4's _c
// calls. `pass` forwards the caller's own call to PMPI unchanged.

template <class Count, class Pass>
int allgather_impl(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Pass pass) {
  count_call(Op::allgather);
  if (bad_send(sendbuf, sendcount, sendtype) || bad(recvcount, recvtype)) return pass();
  Plan plan;
  const size_t block_bytes = type_bytes(recvcount, recvtype);
  const CommState* st = gate(Op::allgather, comm, block_bytes, pays(block_bytes), &plan);
  if (!st) return pass_through(plan, pass);
  const MPI_Aint block = recvcount;
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = at(recvbuf, st->coll.rank * block, recvtype);
    sendcount = recvcount;
    sendtype = recvtype;
  } else {
    copy_local(sendbuf, sendcount, sendtype, at(recvbuf, st->coll.rank * block, recvtype), recvcount,
               recvtype);
  }
  Exchange x(comm, plan, Op::allgather);
  for (int j = 0; j < st->coll.size; ++j) {
    if (j == st->coll.rank) continue;
    x.recv(j, at(recvbuf, j * block, recvtype), recvcount, recvtype);
    x.send(j, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

template <class Count, class Displ, class Pass>
int allgatherv_impl(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, Pass pass) {
  count_call(Op::allgatherv);
  if (bad_send(sendbuf, sendcount, sendtype) || bad(1, recvtype)) return pass();
  Plan plan;
  const CommState* st = gate(Op::allgatherv, comm, 0, true, &plan);
  if (!st) return pass_through(plan, pass);
  const int me = st->coll.rank;
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = at(recvbuf, displs[me], recvtype);
    sendcount = recvcounts[me];
    sendtype = recvtype;
  } else {
    copy_local(sendbuf, sendcount, sendtype, at(recvbuf, displs[me], recvtype), recvcounts[me],
               recvtype);
  }
  Exchange x(comm, plan, Op::allgatherv);
  for (int j = 0; j < st->coll.size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, displs[j], recvtype), recvcounts[j], recvtype);
    x.send(j, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

template <class Count, class Pass>
int gather_impl(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Pass pass) {
  count_call(Op::gather);
  // The block size in bytes is the same on the root (recv) and the others (send).
  const bool is_root = rank_in(comm) == root;
  if (is_root ? bad_send(sendbuf, sendcount, sendtype) || bad(recvcount, recvtype)
              : bad(sendcount, sendtype))
    return pass();
  size_t block_bytes = is_root ? type_bytes(recvcount, recvtype)
                               : type_bytes(sendcount, sendtype);
  Plan plan;
  const CommState* st = rooted_gate(Op::gather, comm, root, block_bytes, pays(block_bytes), &plan);
  if (!st) return pass_through(plan, pass);
  const MPI_Aint block = recvcount;
  Exchange x(comm, plan, Op::gather);
  if (is_root) {
    if (sendbuf != MPI_IN_PLACE)
      copy_local(sendbuf, sendcount, sendtype, at(recvbuf, root * block, recvtype), recvcount,
                 recvtype);
    for (int j = 0; j < st->coll.size; ++j)
      if (j != root) x.recv(j, at(recvbuf, j * block, recvtype), recvcount, recvtype);
  } else {
    x.send(root, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

template <class Count, class Displ, class Pass>
int gatherv_impl(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, Pass pass) {
  count_call(Op::gatherv);
  if (rank_in(comm) == root ? bad_send(sendbuf, sendcount, sendtype) || bad(1, recvtype)
                            : bad(sendcount, sendtype))
    return pass();
  Plan plan;
  const CommState* st = rooted_gate(Op::gatherv, comm, root, 0, true, &plan);
  if (!st) return pass_through(plan, pass);
  Exchange x(comm, plan, Op::gatherv);
  if (st->coll.rank == root) {
    if (sendbuf != MPI_IN_PLACE)
      copy_local(sendbuf, sendcount, sendtype, at(recvbuf, displs[root], recvtype),
                 recvcounts[root], recvtype);
    for (int j = 0; j < st->coll.size; ++j)
      if (j != root) x.recv(j, at(recvbuf, displs[j], recvtype), recvcounts[j], recvtype);
  } else {
    x.send(root, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

template <class Count, class Pass>
int scatter_impl(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, Pass pass) {
  count_call(Op::scatter);
  const bool is_root = rank_in(comm) == root;
  if (is_root ? bad(sendcount, sendtype) || bad_send(recvbuf, recvcount, recvtype)
              : bad(recvcount, recvtype))
    return pass();
  size_t block_bytes = is_root ? type_bytes(sendcount, sendtype)
                               : type_bytes(recvcount, recvtype);
  Plan plan;
  const CommState* st = rooted_gate(Op::scatter, comm, root, block_bytes, pays(block_bytes), &plan);
  if (!st) return pass_through(plan, pass);
  const MPI_Aint block = sendcount;
  Exchange x(comm, plan, Op::scatter);
  if (is_root) {
    if (recvbuf != MPI_IN_PLACE)
      copy_local(at(sendbuf, root * block, sendtype), sendcount, sendtype, recvbuf, recvcount,
                 recvtype);
    for (int j = 0; j < st->coll.size; ++j)
      if (j != root) x.send(j, at(sendbuf, j * block, sendtype), sendcount, sendtype);
  } else {
    x.recv(root, recvbuf, recvcount, recvtype);
  }
  return x.run();
}

template <class Count, class Displ, class Pass>
int scatterv_impl(const void* sendbuf, const Count sendcounts[], const Displ displs[],
                  MPI_Datatype sendtype, void* recvbuf, Count recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, Pass pass) {
  count_call(Op::scatterv);
  if (rank_in(comm) == root ? bad(1, sendtype) || bad_send(recvbuf, recvcount, recvtype)
                            : bad(recvcount, recvtype))
    return pass();
  Plan plan;
  const CommState* st = rooted_gate(Op::scatterv, comm, root, 0, true, &plan);
  if (!st) return pass_through(plan, pass);
  Exchange x(comm, plan, Op::scatterv);
  if (st->coll.rank == root) {
    if (recvbuf != MPI_IN_PLACE)
      copy_local(at(sendbuf, displs[root], sendtype), sendcounts[root], sendtype, recvbuf,
                 recvcount, recvtype);
    for (int j = 0; j < st->coll.size; ++j)
      if (j != root) x.send(j, at(sendbuf, displs[j], sendtype), sendcounts[j], sendtype);
  } else {
    x.recv(root, recvbuf, recvcount, recvtype);
  }
  return x.run();
}

template <class Count, class Pass>
int alltoall_impl(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Pass pass) {
  count_call(Op::alltoall);
  if (bad_send(sendbuf, sendcount, sendtype) || bad(recvcount, recvtype)) return pass();
  Plan plan;
  const size_t block_bytes = type_bytes(recvcount, recvtype);
  const CommState* st = gate(Op::alltoall, comm, block_bytes, pays(block_bytes), &plan);
  if (!st) return pass_through(plan, pass);
  std::vector<char> copy;
  if (sendbuf == MPI_IN_PLACE) {
    MPI_Aint n = span<Count, Count>(st->coll.size, nullptr, nullptr, recvcount, recvtype);
    if (n < 0) return pass();  // every rank has the same recvtype, so all take this branch
    copy.assign(static_cast<char*>(recvbuf), static_cast<char*>(recvbuf) + n);
    sendbuf = copy.data();
    sendcount = recvcount;
    sendtype = recvtype;
  }
  const int me = st->coll.rank;
  const MPI_Aint sblock = sendcount, rblock = recvcount;
  copy_local(at(sendbuf, me * sblock, sendtype), sendcount, sendtype,
             at(recvbuf, me * rblock, recvtype), recvcount, recvtype);
  Exchange x(comm, plan, Op::alltoall);
  for (int j = 0; j < st->coll.size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, j * rblock, recvtype), recvcount, recvtype);
    x.send(j, at(sendbuf, j * sblock, sendtype), sendcount, sendtype);
  }
  return x.run();
}

template <class Count, class Displ, class Pass>
int alltoallv_impl(const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[],
                   const Displ rdispls[], MPI_Datatype recvtype, MPI_Comm comm, Pass pass) {
  count_call(Op::alltoallv);
  if (bad_send(sendbuf, 1, sendtype) || bad(1, recvtype)) return pass();
  Plan plan;
  const CommState* st = gate(Op::alltoallv, comm, 0, true, &plan);
  if (!st) return pass_through(plan, pass);
  std::vector<char> copy;
  if (sendbuf == MPI_IN_PLACE) {
    MPI_Aint n = span<Count, Displ>(st->coll.size, recvcounts, rdispls, 0, recvtype);
    // Negative lower bounds: not handled here. All ranks must agree, so
    // this only happens with a recvtype that every rank shares.
    if (n < 0) return pass();
    copy.assign(static_cast<char*>(recvbuf), static_cast<char*>(recvbuf) + n);
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtype = recvtype;
  }
  const int me = st->coll.rank;
  copy_local(at(sendbuf, sdispls[me], sendtype), sendcounts[me], sendtype,
             at(recvbuf, rdispls[me], recvtype), recvcounts[me], recvtype);
  Exchange x(comm, plan, Op::alltoallv);
  for (int j = 0; j < st->coll.size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, rdispls[j], recvtype), recvcounts[j], recvtype);
    x.send(j, at(sendbuf, sdispls[j], sendtype), sendcounts[j], sendtype);
  }
  return x.run();
}

}  // namespace

// The entry points: each names its own PMPI call for the pass-through.

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
               MPI_Comm comm) {
  return allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                         comm, [&] {
                           return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                                  recvcounts, displs, recvtype, comm);
                         });
}

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     [&] {
                       return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, root, comm);
                     });
}

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm) {
  return gatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm, [&] {
                        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                            displs, recvtype, root, comm);
                      });
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      [&] {
                        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, root, comm);
                      });
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm) {
  return scatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, [&] {
                         return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                              recvcount, recvtype, root, comm);
                       });
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, [&] {
                          return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                recvcounts, rdispls, recvtype, comm);
                        });
}

#if MPI_VERSION >= 4
int allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, [&] {
    return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                 MPI_Comm comm) {
  return allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                         comm, [&] {
                           return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf,
                                                    recvcounts, displs, recvtype, comm);
                         });
}

int gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                     [&] {
                       return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, root, comm);
                     });
}

int gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              int root, MPI_Comm comm) {
  return gatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm, [&] {
                        return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                              displs, recvtype, root, comm);
                      });
}

int scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      [&] {
                        return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, root, comm);
                      });
}

int scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
               MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
               int root, MPI_Comm comm) {
  return scatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                       comm, [&] {
                         return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                                recvcount, recvtype, root, comm);
                       });
}

int alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, [&] {
    return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  });
}

int alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm, [&] {
                          return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype,
                                                  recvbuf, recvcounts, rdispls, recvtype, comm);
                        });
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
