// Compressed data-movement collectives: Allgather(v), Gather(v), Scatter(v),
// Alltoall(v).
//
// Each is a set of pairwise transfers on the private collective
// communicator. Whether a transfer is compressed depends only on its byte
// count and the configuration, which sender and receiver both know (MPI
// requires their type signatures to match), so both ends always agree; the
// frame carries the codec and sizes in-band. Whether the whole call takes
// this path is decided from values identical on every rank (block size for
// the regular variants, configuration only for the v variants).
#include <memory>
#include <vector>

#include "coll/coll.h"
#include "coll/datatype.h"
#include "policy/model.h"
#include "policy/tier.h"
#include "runtime/comm_state.h"
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

// Gate: identical inputs on every rank.
const CommState* gate(MPI_Comm comm, bool any_block_pays) {
  if (!runtime_active() || comm == MPI_COMM_NULL || !any_block_pays) return nullptr;
  if (config().mode == Mode::raw) return nullptr;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return nullptr;
  return comm_state(comm);
}

// Gate of a rooted collective: a root out of range passes through too, so
// that PMPI reports the error.
const CommState* rooted_gate(MPI_Comm comm, int root, bool any_block_pays) {
  const CommState* st = gate(comm, any_block_pays);
  return st && root >= 0 && root < st->size ? st : nullptr;
}

int rank_in(MPI_Comm comm) {
  int rank = 0;
  if (comm != MPI_COMM_NULL) PMPI_Comm_rank(comm, &rank);
  return rank;
}

size_t type_bytes(int count, MPI_Datatype t) {
  int s = 0;
  PMPI_Type_size(t, &s);
  return static_cast<size_t>(count > 0 ? count : 0) * static_cast<size_t>(s);
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb, ext;
  PMPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

struct Xfer {
  int peer;
  void* buf;
  int count;
  MPI_Datatype type;
};

class Exchange {
 public:
  Exchange(MPI_Comm app, const CommState& st, Op op)
      : app_(app), st_(st), op_(op), stats_(stats_for(op)) {
    stats_.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  }
  void send(int peer, const void* buf, int count, MPI_Datatype type) {
    sends_.push_back({peer, const_cast<void*>(buf), count, type});
  }
  void recv(int peer, void* buf, int count, MPI_Datatype type) {
    recvs_.push_back({peer, buf, count, type});
  }
  int run();

 private:
  MPI_Comm app_;
  const CommState& st_;
  Op op_;
  OpStats& stats_;
  std::vector<Xfer> sends_, recvs_;
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
    if (x.peer != st_.rank && pays(bytes)) {
      rframes[i].resize(frame_capacity(bytes));
      check(PMPI_Irecv(rframes[i].data(), static_cast<int>(rframes[i].size()), MPI_BYTE,
                       x.peer, kTagExchange, st_.coll, &r));
    } else {
      check(PMPI_Irecv(x.buf, x.count, x.type, x.peer, kTagExchange, st_.coll, &r));
    }
    reqs.push_back(r);
  }
  for (size_t i = 0; i < sends_.size(); ++i) {
    const Xfer& x = sends_[i];
    size_t bytes = type_bytes(x.count, x.type);
    MPI_Request r;
    if (x.peer != st_.rank && pays(bytes)) {
      TypeInfo ti = type_info(x.type);
      const uint8_t* data = static_cast<const uint8_t*>(x.buf) + ti.true_lb;
      std::vector<uint8_t> packed;
      if (!ti.contiguous) {
        packed.resize(bytes);
        int pos = 0;
        PMPI_Pack(x.buf, x.count, x.type, packed.data(), static_cast<int>(bytes), &pos,
                  st_.coll);
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
                       st_.coll, &r));
    } else {
      check(PMPI_Isend(x.buf, x.count, x.type, x.peer, kTagExchange, st_.coll, &r));
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
      PMPI_Unpack(dst, static_cast<int>(bytes), &pos, x.buf, x.count, x.type, st_.coll);
    }
  }
  if (mpi_error != MPI_SUCCESS) {
    PMPI_Comm_call_errhandler(app_, mpi_error);
    return mpi_error;
  }
  if (corrupt) return raise_failure(app_, Failure::corrupt_frame, op_display_name(op_));
  return MPI_SUCCESS;
}

void count_call(Op op) { stats_for(op).calls.fetch_add(1, std::memory_order_relaxed); }

char* at(const void* base, int index, MPI_Datatype type) {
  return static_cast<char*>(const_cast<void*>(base)) +
         static_cast<MPI_Aint>(index) * extent_of(type);
}

// Bytes spanned by blocks (displ, count) of `type` from the buffer start, for
// copying an in-place Alltoall(v) input; -1 if a lower bound is negative.
MPI_Aint span(int n, const int* counts, const int* displs, int block, MPI_Datatype type) {
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  if (tlb < 0 || lb < 0) return -1;
  MPI_Aint end = 0;
  for (int i = 0; i < n; ++i) {
    int c = counts ? counts[i] : block;
    if (c <= 0) continue;
    MPI_Aint d = displs ? displs[i] : static_cast<MPI_Aint>(i) * block;
    MPI_Aint e = (d + c - 1) * ext + tlb + text;
    if (e > end) end = e;
  }
  return end;
}

}  // namespace

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  count_call(Op::allgather);
  const CommState* st = gate(comm, pays(type_bytes(recvcount, recvtype)));
  if (!st)
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = at(recvbuf, st->rank * recvcount, recvtype);
    sendcount = recvcount;
    sendtype = recvtype;
  } else {
    PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, 0, at(recvbuf, st->rank * recvcount, recvtype),
                  recvcount, recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
  Exchange x(comm, *st, Op::allgather);
  for (int j = 0; j < st->size; ++j) {
    if (j == st->rank) continue;
    x.recv(j, at(recvbuf, j * recvcount, recvtype), recvcount, recvtype);
    x.send(j, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
               MPI_Comm comm) {
  count_call(Op::allgatherv);
  const CommState* st = gate(comm, true);
  if (!st)
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                           recvtype, comm);
  const int me = st->rank;
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = at(recvbuf, displs[me], recvtype);
    sendcount = recvcounts[me];
    sendtype = recvtype;
  } else {
    PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, 0, at(recvbuf, displs[me], recvtype),
                  recvcounts[me], recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
  Exchange x(comm, *st, Op::allgatherv);
  for (int j = 0; j < st->size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, displs[j], recvtype), recvcounts[j], recvtype);
    x.send(j, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  count_call(Op::gather);
  // The block size in bytes is the same on the root (recv) and the others (send).
  const bool is_root = rank_in(comm) == root;
  size_t block = is_root ? type_bytes(recvcount, recvtype)
                         : type_bytes(sendcount, sendtype);
  const CommState* st = rooted_gate(comm, root, pays(block));
  if (!st)
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  Exchange x(comm, *st, Op::gather);
  if (is_root) {
    if (sendbuf != MPI_IN_PLACE)
      PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, 0, at(recvbuf, root * recvcount, recvtype),
                    recvcount, recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    for (int j = 0; j < st->size; ++j)
      if (j != root) x.recv(j, at(recvbuf, j * recvcount, recvtype), recvcount, recvtype);
  } else {
    x.send(root, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm) {
  count_call(Op::gatherv);
  const CommState* st = rooted_gate(comm, root, true);
  if (!st)
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                        root, comm);
  Exchange x(comm, *st, Op::gatherv);
  if (st->rank == root) {
    if (sendbuf != MPI_IN_PLACE)
      PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, 0, at(recvbuf, displs[root], recvtype),
                    recvcounts[root], recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    for (int j = 0; j < st->size; ++j)
      if (j != root) x.recv(j, at(recvbuf, displs[j], recvtype), recvcounts[j], recvtype);
  } else {
    x.send(root, sendbuf, sendcount, sendtype);
  }
  return x.run();
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  count_call(Op::scatter);
  const bool is_root = rank_in(comm) == root;
  size_t block = is_root ? type_bytes(sendcount, sendtype)
                         : type_bytes(recvcount, recvtype);
  const CommState* st = rooted_gate(comm, root, pays(block));
  if (!st)
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  Exchange x(comm, *st, Op::scatter);
  if (is_root) {
    if (recvbuf != MPI_IN_PLACE)
      PMPI_Sendrecv(at(sendbuf, root * sendcount, sendtype), sendcount, sendtype, 0, 0, recvbuf,
                    recvcount, recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    for (int j = 0; j < st->size; ++j)
      if (j != root) x.send(j, at(sendbuf, j * sendcount, sendtype), sendcount, sendtype);
  } else {
    x.recv(root, recvbuf, recvcount, recvtype);
  }
  return x.run();
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm) {
  count_call(Op::scatterv);
  const CommState* st = rooted_gate(comm, root, true);
  if (!st)
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                         root, comm);
  Exchange x(comm, *st, Op::scatterv);
  if (st->rank == root) {
    if (recvbuf != MPI_IN_PLACE)
      PMPI_Sendrecv(at(sendbuf, displs[root], sendtype), sendcounts[root], sendtype, 0, 0,
                    recvbuf, recvcount, recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    for (int j = 0; j < st->size; ++j)
      if (j != root) x.send(j, at(sendbuf, displs[j], sendtype), sendcounts[j], sendtype);
  } else {
    x.recv(root, recvbuf, recvcount, recvtype);
  }
  return x.run();
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  count_call(Op::alltoall);
  const CommState* st = gate(comm, pays(type_bytes(recvcount, recvtype)));
  if (!st)
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  std::vector<char> copy;
  if (sendbuf == MPI_IN_PLACE) {
    MPI_Aint n = span(st->size, nullptr, nullptr, recvcount, recvtype);
    if (n < 0)  // every rank has the same recvtype, so all take this branch
      return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    copy.assign(static_cast<char*>(recvbuf), static_cast<char*>(recvbuf) + n);
    sendbuf = copy.data();
    sendcount = recvcount;
    sendtype = recvtype;
  }
  const int me = st->rank;
  PMPI_Sendrecv(at(sendbuf, me * sendcount, sendtype), sendcount, sendtype, 0, 0,
                at(recvbuf, me * recvcount, recvtype), recvcount, recvtype, 0, 0, MPI_COMM_SELF,
                MPI_STATUS_IGNORE);
  Exchange x(comm, *st, Op::alltoall);
  for (int j = 0; j < st->size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, j * recvcount, recvtype), recvcount, recvtype);
    x.send(j, at(sendbuf, j * sendcount, sendtype), sendcount, sendtype);
  }
  return x.run();
}

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  count_call(Op::alltoallv);
  const CommState* st = gate(comm, true);
  if (!st)
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  std::vector<char> copy;
  if (sendbuf == MPI_IN_PLACE) {
    MPI_Aint n = span(st->size, recvcounts, rdispls, 0, recvtype);
    if (n < 0) {
      // Negative lower bounds: not handled here. All ranks must agree, so
      // this only happens with a recvtype that every rank shares.
      return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm);
    }
    copy.assign(static_cast<char*>(recvbuf), static_cast<char*>(recvbuf) + n);
    sendbuf = copy.data();
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtype = recvtype;
  }
  const int me = st->rank;
  PMPI_Sendrecv(at(sendbuf, sdispls[me], sendtype), sendcounts[me], sendtype, 0, 0,
                at(recvbuf, rdispls[me], recvtype), recvcounts[me], recvtype, 0, 0,
                MPI_COMM_SELF, MPI_STATUS_IGNORE);
  Exchange x(comm, *st, Op::alltoallv);
  for (int j = 0; j < st->size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, rdispls[j], recvtype), recvcounts[j], recvtype);
    x.send(j, at(sendbuf, sdispls[j], sendtype), sendcounts[j], sendtype);
  }
  return x.run();
}

}  // namespace adacomp
