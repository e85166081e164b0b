// Allgather(v), Gather(v), Scatter(v), Alltoall(v), Reduce_scatter(_block)
// through AdaComp against the same call through plain PMPI: results must be
// bit-identical, for several datatypes and counts (0, 1, odd, large),
// MPI_IN_PLACE, every root, a derived datatype, a split communicator and
// MPI_COMM_SELF; Reduce_scatter(_block) for every basic datatype, with
// uneven and zero counts. With thresholds forced to 0 the statistics must
// show the compressed path ran, and Reduce_scatter_block must send half the
// wire bytes of the Allreduce of the same vector.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "check.h"

namespace {

bool quick = false;
bool raw = false;  // ADACOMP_MODE=raw: nothing may be compressed
// ADACOMP_MODE=pipelined (with pipeline threshold 0): every compressed
// reduction must be cut into chunks.
bool pipelined = false;

void fill(std::vector<uint8_t>& v, int seed) {
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<uint8_t>(seed * 17 + i / 32 + (i % 5 == 0));
}

struct T {
  MPI_Datatype type;
  const char* name;
};

// Small integers: every sum and product of them is exact in every type, so
// a Reduce_scatter result cannot depend on the order of operations and must
// equal PMPI's bit for bit. 8-bit sums stay below 128 on 4 ranks (Open MPI
// saturates instead of wrapping).
template <typename T>
T exact_value(int rank, size_t i, MPI_Op op) {
  if (op == MPI_PROD) return T((i + rank) % 3 == 0 ? 2 : 1);
  return T(static_cast<int>((i * 7 + rank * 13) % 31));
}

// Bit for bit; long double by value (its padding bytes are arbitrary).
template <typename T>
bool same(const T* a, const T* b, size_t n) {
  if constexpr (std::is_same_v<T, long double>)
    return std::equal(a, a + n, b);
  else
    return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

// Reduce_scatter with counts rc (Reduce_scatter_block when `block`, rc then
// all equal), normal and in place, against PMPI; the compressed path must
// have run whenever there is anything to reduce.
template <typename T>
void reduce_scatter_case(MPI_Comm comm, const char* cname, MPI_Datatype type, const char* tname,
                         MPI_Op op, const char* oname, const std::vector<int>& rc, bool block) {
  int r;
  MPI_Comm_rank(comm, &r);
  const char* what = block ? "reduce_scatter_block" : "reduce_scatter";
  auto reduce = [&](bool pmpi, const void* send, void* recv) {
    if (block)
      return pmpi ? PMPI_Reduce_scatter_block(send, recv, rc[0], type, op, comm)
                  : MPI_Reduce_scatter_block(send, recv, rc[0], type, op, comm);
    return pmpi ? PMPI_Reduce_scatter(send, recv, rc.data(), type, op, comm)
                : MPI_Reduce_scatter(send, recv, rc.data(), type, op, comm);
  };
  size_t total = 0;
  for (int n : rc) total += n;
  std::vector<T> in(total);
  for (size_t i = 0; i < total; ++i) in[i] = exact_value<T>(r, i, op);
  // One element past the block: must stay untouched.
  std::vector<T> a(rc[r] + 1, T(99)), b(rc[r] + 1, T(99));
  adacomp_op_stats before = op_stats(what);
  int err = reduce(false, in.data(), a.data());
  adacomp_op_stats after = op_stats(what);
  reduce(true, in.data(), b.data());
  CHECK(err == MPI_SUCCESS, "%s %s rc=%d", cname, what, err);
  const bool expect = !raw && total > 0;
  CHECK((after.compressed_calls - before.compressed_calls == 1) == expect,
        "%s %s %s %s block %d: compressed %llu, expected %d", cname, what, tname, oname, rc[r],
        after.compressed_calls - before.compressed_calls, expect);
  CHECK((after.pipelined_calls - before.pipelined_calls == 1) == (expect && pipelined),
        "%s %s %s: pipelined %llu, expected %d", cname, what, tname,
        after.pipelined_calls - before.pipelined_calls, expect && pipelined);
  CHECK(same(a.data(), b.data(), a.size()), "%s %s %s %s block %d of %zu differs from PMPI", cname,
        what, tname, oname, rc[r], total);
  std::vector<T> ia(in), ib(in);
  reduce(false, MPI_IN_PLACE, ia.data());
  reduce(true, MPI_IN_PLACE, ib.data());
  CHECK(same(ia.data(), ib.data(), rc[r]), "%s %s in place %s %s block %d differs from PMPI", cname,
        what, tname, oname, rc[r]);
}

template <typename T>
void reduce_scatter_type(MPI_Comm comm, const char* cname, const std::vector<int>& counts,
                         MPI_Datatype type, const char* tname) {
  int p;
  MPI_Comm_size(comm, &p);
  struct {
    MPI_Op op;
    const char* name;
  } ops[] = {{MPI_SUM, "sum"}, {MPI_PROD, "prod"}, {MPI_MAX, "max"}, {MPI_BXOR, "bxor"}};
  for (const auto& o : ops) {
    if (o.op == MPI_MAX && !std::is_arithmetic_v<T>) continue;  // complex
    if (o.op == MPI_BXOR && !std::is_integral_v<T>) continue;
    if (quick && o.op == MPI_PROD) continue;
    for (int c : counts) {
      reduce_scatter_case<T>(comm, cname, type, tname, o.op, o.name, std::vector<int>(p, c), true);
      // Uneven, and rank 1 (and 4, ...) with nothing to receive.
      std::vector<int> rc(p);
      for (int j = 0; j < p; ++j) rc[j] = j % 3 == 1 ? 0 : c + j;
      reduce_scatter_case<T>(comm, cname, type, tname, o.op, o.name, rc, false);
    }
  }
}

void reduce_scatters(MPI_Comm comm, const char* cname, const std::vector<int>& counts) {
#define TYPE(T, M) reduce_scatter_type<T>(comm, cname, counts, M, #M);
  FOR_EACH_ARITHMETIC_TYPE(TYPE)
  TYPE(std::complex<float>, MPI_C_FLOAT_COMPLEX)
  TYPE(std::complex<double>, MPI_C_DOUBLE_COMPLEX)
#undef TYPE

  // Inexact doubles: AdaComp's order of operations is its own, so only close
  // to PMPI's result, but the same bits on every rerun.
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  const int c = counts.back();
  std::vector<double> in(static_cast<size_t>(c) * p), a(c), again(c), ref(c);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(i * 0.01) + r;
  MPI_Reduce_scatter_block(in.data(), a.data(), c, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Reduce_scatter_block(in.data(), again.data(), c, MPI_DOUBLE, MPI_SUM, comm);
  PMPI_Reduce_scatter_block(in.data(), ref.data(), c, MPI_DOUBLE, MPI_SUM, comm);
  bool close = true;
  for (int i = 0; i < c; ++i)
    close = close && std::fabs(a[i] - ref[i]) <= 1e-12 * (1 + std::fabs(ref[i]));
  CHECK(close, "%s reduce_scatter_block double count %d", cname, c);
  CHECK(same(a.data(), again.data(), c), "%s reduce_scatter_block double differs on rerun", cname);
}

void run(MPI_Comm comm, const char* cname) {
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  MPI_Datatype vec;  // 2 of every 3 ints
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Datatype vec3;
  MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &vec3);
  MPI_Type_commit(&vec3);
  MPI_Type_free(&vec);
  std::vector<T> types = {{MPI_DOUBLE, "double"},
                          {MPI_FLOAT, "float"},
                          {MPI_INT, "int"},
                          {MPI_BYTE, "byte"},
                          {vec3, "vector"}};
  if (!quick) {
    types.push_back({MPI_UNSIGNED_LONG_LONG, "ullong"});
    types.push_back({MPI_SHORT, "short"});
    types.push_back({MPI_C_DOUBLE_COMPLEX, "dcomplex"});
  }
  std::vector<int> counts =
      quick ? std::vector<int>{0, 3, 5001} : std::vector<int>{0, 1, 7, 777, 20001};
  for (const T& t : types) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t.type, &lb, &ext);
    for (int c : counts) {
      const size_t blk = static_cast<size_t>(c) * ext;
      std::vector<uint8_t> send(blk * p + 8), a(blk * p + 8), b(blk * p + 8);
      auto reset = [&] {
        fill(send, r + c);
        std::fill(a.begin(), a.end(), 0xA5);
        std::fill(b.begin(), b.end(), 0xA5);
      };
      auto cmp = [&](const char* what, int root) {
        CHECK(a == b, "%s %s %s count %d root %d differs from PMPI", cname, what, t.name, c, root);
      };
      // Allgather, normal and in place.
      reset();
      MPI_Allgather(send.data(), c, t.type, a.data(), c, t.type, comm);
      PMPI_Allgather(send.data(), c, t.type, b.data(), c, t.type, comm);
      cmp("allgather", -1);
      reset();
      std::memcpy(a.data() + r * blk, send.data(), blk);
      std::memcpy(b.data() + r * blk, send.data(), blk);
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a.data(), c, t.type, comm);
      PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.data(), c, t.type, comm);
      cmp("allgather in place", -1);
      // Alltoall, normal and in place.
      reset();
      MPI_Alltoall(send.data(), c, t.type, a.data(), c, t.type, comm);
      PMPI_Alltoall(send.data(), c, t.type, b.data(), c, t.type, comm);
      cmp("alltoall", -1);
      reset();
      std::memcpy(a.data(), send.data(), blk * p);
      std::memcpy(b.data(), send.data(), blk * p);
      MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a.data(), c, t.type, comm);
      PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.data(), c, t.type, comm);
      cmp("alltoall in place", -1);
      // Variable counts: rank j contributes c + j (odd sizes), packed displs.
      std::vector<int> vc(p), vd(p);
      int total = 0;
      for (int j = 0; j < p; ++j) vc[j] = c ? c / p + j : 0, vd[j] = total, total += vc[j];
      std::vector<uint8_t> va(total * ext + 8, 0xA5), vb(total * ext + 8, 0xA5);
      MPI_Allgatherv(send.data(), vc[r], t.type, va.data(), vc.data(), vd.data(), t.type, comm);
      PMPI_Allgatherv(send.data(), vc[r], t.type, vb.data(), vc.data(), vd.data(), t.type, comm);
      CHECK(va == vb, "%s allgatherv %s count %d", cname, t.name, c);
      // Alltoallv: to rank j send vc[j] elements at vd[j].
      std::vector<int> rc(p), rd(p);
      int rtotal = 0;
      for (int j = 0; j < p; ++j) rc[j] = vc[r], rd[j] = rtotal, rtotal += rc[j];
      std::vector<uint8_t> ta(rtotal * ext + 8, 0xA5), tb(rtotal * ext + 8, 0xA5);
      std::vector<uint8_t> big(total * ext + 8);
      fill(big, r);
      MPI_Alltoallv(big.data(), vc.data(), vd.data(), t.type, ta.data(), rc.data(), rd.data(),
                    t.type, comm);
      PMPI_Alltoallv(big.data(), vc.data(), vd.data(), t.type, tb.data(), rc.data(), rd.data(),
                     t.type, comm);
      CHECK(ta == tb, "%s alltoallv %s count %d", cname, t.name, c);
      for (int root = 0; root < p; ++root) {
        if (quick && root != p - 1) continue;
        reset();
        MPI_Gather(send.data(), c, t.type, a.data(), c, t.type, root, comm);
        PMPI_Gather(send.data(), c, t.type, b.data(), c, t.type, root, comm);
        cmp("gather", root);
        reset();
        if (r == root) {
          std::memcpy(a.data() + r * blk, send.data(), blk);
          std::memcpy(b.data() + r * blk, send.data(), blk);
        }
        MPI_Gather(r == root ? MPI_IN_PLACE : send.data(), c, t.type, a.data(), c, t.type, root,
                   comm);
        PMPI_Gather(r == root ? MPI_IN_PLACE : send.data(), c, t.type, b.data(), c, t.type, root,
                    comm);
        cmp("gather in place", root);
        reset();
        MPI_Scatter(send.data(), c, t.type, a.data(), c, t.type, root, comm);
        PMPI_Scatter(send.data(), c, t.type, b.data(), c, t.type, root, comm);
        cmp("scatter", root);
        reset();
        MPI_Scatter(send.data(), c, t.type, r == root ? MPI_IN_PLACE : a.data(), c, t.type, root,
                    comm);
        PMPI_Scatter(send.data(), c, t.type, r == root ? MPI_IN_PLACE : b.data(), c, t.type, root,
                     comm);
        cmp("scatter in place", root);
        std::fill(va.begin(), va.end(), 0xA5);
        std::fill(vb.begin(), vb.end(), 0xA5);
        MPI_Gatherv(send.data(), vc[r], t.type, va.data(), vc.data(), vd.data(), t.type, root,
                    comm);
        PMPI_Gatherv(send.data(), vc[r], t.type, vb.data(), vc.data(), vd.data(), t.type, root,
                     comm);
        CHECK(va == vb, "%s gatherv %s count %d root %d", cname, t.name, c, root);
        reset();
        MPI_Scatterv(big.data(), vc.data(), vd.data(), t.type, a.data(), vc[r], t.type, root, comm);
        PMPI_Scatterv(big.data(), vc.data(), vd.data(), t.type, b.data(), vc[r], t.type, root,
                      comm);
        cmp("scatterv", root);
      }
    }
  }
  MPI_Type_free(&vec3);

  reduce_scatters(comm, cname, counts);
}

// Reduce_scatter_block is the ring reduce-scatter alone: half the frame bytes
// of an Allreduce of the same vector, whose allgather sends as much again.
// Random data keeps every frame at its raw size in both.
void wire_ratio() {
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (raw || p == 1) return;
  const int block = 100000;
  std::vector<uint32_t> in(static_cast<size_t>(block) * p), out(in.size());
  uint64_t x = 0x9E3779B97F4A7C15ull * (r + 1);
  for (uint32_t& v : in) {  // splitmix64: no linear relation between ranks' streams
    uint64_t z = x += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    v = static_cast<uint32_t>(z ^ (z >> 31));
  }
  unsigned long long wire[2];
  const unsigned long long rs0 = op_stats("reduce_scatter_block").bytes_wire;
  MPI_Reduce_scatter_block(in.data(), out.data(), block, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
  wire[0] = op_stats("reduce_scatter_block").bytes_wire - rs0;
  const unsigned long long ar0 = op_stats("allreduce").bytes_wire;
  MPI_Allreduce(in.data(), out.data(), block * p, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
  wire[1] = op_stats("allreduce").bytes_wire - ar0;
  unsigned long long sum[2];
  PMPI_Allreduce(wire, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const double ratio = static_cast<double>(sum[0]) / static_cast<double>(sum[1]);
  CHECK(ratio > 0.45 && ratio < 0.55,
        "reduce_scatter_block sent %llu wire bytes, allreduce %llu: ratio %.3f, expected 0.5",
        sum[0], sum[1], ratio);
  if (r == 0) std::printf("wire bytes reduce_scatter_block / allreduce: %.4f\n", ratio);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--raw") == 0) raw = true;
  }
  const char* mode = std::getenv("ADACOMP_MODE");
  pipelined = mode && std::strcmp(mode, "pipelined") == 0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(MPI_COMM_WORLD, "world");
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
  run(split, "split");
  MPI_Comm_free(&split);
  if (!quick) run(MPI_COMM_SELF, "self");
  for (const char* op : {"allgather", "allgatherv", "gather", "gatherv", "scatter", "scatterv",
                         "alltoall", "alltoallv", "reduce_scatter", "reduce_scatter_block"}) {
    adacomp_op_stats s = op_stats(op);
    // Summed over ranks: with one root only the others send.
    unsigned long long v[3] = {s.compressed_calls, s.bytes_in, s.bytes_wire}, t[3];
    PMPI_Allreduce(v, t, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    s.compressed_calls = t[0], s.bytes_in = t[1], s.bytes_wire = t[2];
    if (raw)
      CHECK(s.compressed_calls == 0, "raw mode: %s compressed", op);
    else
      CHECK(s.compressed_calls > 0 && (size == 1 || s.bytes_wire < s.bytes_in),
            "%s: %llu compressed calls, %llu wire bytes for %llu in", op,
            (unsigned long long)s.compressed_calls, (unsigned long long)s.bytes_wire,
            (unsigned long long)s.bytes_in);
  }
  wire_ratio();
  return finish_test("gather");
}
