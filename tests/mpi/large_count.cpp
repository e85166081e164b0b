// MPI-4 large-count collectives (MPI_Allreduce_c ... MPI_Alltoallv_c, the
// forms mpi4py calls on MPICH) through AdaComp against the classic call
// through plain PMPI: bit-identical results, with compression forced, for
// counts 0, 1 and odd, MPI_IN_PLACE and every root; each call must have run
// compressed. Also: displacements beyond INT_MAX (absolute addresses from
// MPI_BOTTOM), and ranks mixing the _c and the classic form of one call,
// which must take the same path.
#include <mpi.h>

#if MPI_VERSION < 4
#error "large_count.cpp needs an MPI-4 library"
#endif

#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

int rank_, size_;

// Doubles holding small integers: sums are exact in any order, and the
// field is smooth enough that compression is not a formality.
std::vector<double> field(size_t n, int seed) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 3 + seed * 7) % 97);
  return v;
}

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

unsigned long long compressed(const char* op) {
  unsigned long long mine = op_stats(op).compressed_calls, all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// Runs body, then checks that `op` ran compressed on some rank iff expected.
template <typename F>
void expect_compressed(const char* op, bool expected, const char* what, F body) {
  const unsigned long long before = compressed(op);
  body();
  const bool ran = compressed(op) > before;
  CHECK(ran == expected, "%s: compressed path %s", what, ran ? "ran" : "did not run");
}

void reductions(size_t n) {
  const auto in = field(n, rank_);
  const MPI_Count c = static_cast<MPI_Count>(n);
  std::vector<double> want(n), got(n, -1);
  PMPI_Allreduce(in.data(), want.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect_compressed("allreduce", n > 0, "Allreduce_c", [&] {
    MPI_Allreduce_c(in.data(), got.data(), c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  });
  CHECK(same(got, want), "Allreduce_c n=%zu", n);
  got = in;
  MPI_Allreduce_c(MPI_IN_PLACE, got.data(), c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(same(got, want), "Allreduce_c in place n=%zu", n);

  for (int root = 0; root < size_; ++root) {
    got.assign(n, -1);
    expect_compressed("reduce", n > 0 && size_ > 1, "Reduce_c", [&] {
      MPI_Reduce_c(in.data(), got.data(), c, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    });
    if (rank_ == root) CHECK(same(got, want), "Reduce_c n=%zu root=%d", n, root);

    std::vector<double> b = rank_ == root ? field(n, 40 + root) : std::vector<double>(n, -1);
    expect_compressed("bcast", n > 0 && size_ > 1, "Bcast_c",
                      [&] { MPI_Bcast_c(b.data(), c, MPI_DOUBLE, root, MPI_COMM_WORLD); });
    CHECK(same(b, field(n, 40 + root)), "Bcast_c n=%zu root=%d", n, root);
  }

  // Reduce_scatter_c with uneven counts (one of them 0) and _block.
  std::vector<MPI_Count> counts(size_);
  std::vector<int> icounts(size_);
  size_t total = 0;
  for (int i = 0; i < size_; ++i) {
    icounts[i] = static_cast<int>(i == 1 ? 0 : n + i);
    counts[i] = icounts[i];
    total += icounts[i];
  }
  const auto rin = field(total, rank_ + 5);
  std::vector<double> rwant(icounts[rank_]), rgot(icounts[rank_], -1);
  PMPI_Reduce_scatter(rin.data(), rwant.data(), icounts.data(), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
  expect_compressed("reduce_scatter", total > 0, "Reduce_scatter_c", [&] {
    MPI_Reduce_scatter_c(rin.data(), rgot.data(), counts.data(), MPI_DOUBLE, MPI_SUM,
                         MPI_COMM_WORLD);
  });
  CHECK(same(rgot, rwant), "Reduce_scatter_c n=%zu", n);

  const auto bin = field(n * size_, rank_ + 9);
  std::vector<double> bwant(n), bgot(n, -1);
  PMPI_Reduce_scatter_block(bin.data(), bwant.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                            MPI_COMM_WORLD);
  expect_compressed("reduce_scatter_block", n > 0, "Reduce_scatter_block_c", [&] {
    MPI_Reduce_scatter_block_c(bin.data(), bgot.data(), c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  });
  CHECK(same(bgot, bwant), "Reduce_scatter_block_c n=%zu", n);
}

// Counts for the v variants: rank i contributes n + i elements, rank 1 none.
int vcount(size_t n, int i) { return static_cast<int>(i == 1 ? 0 : n + i); }

void movement(size_t n) {
  const bool any = n > 0 && size_ > 1;
  const MPI_Count c = static_cast<MPI_Count>(n);
  const auto mine = field(n, rank_ + 1);
  std::vector<double> want(n * size_), got(n * size_, -1);

  PMPI_Allgather(mine.data(), static_cast<int>(n), MPI_DOUBLE, want.data(), static_cast<int>(n),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  expect_compressed("allgather", any, "Allgather_c", [&] {
    MPI_Allgather_c(mine.data(), c, MPI_DOUBLE, got.data(), c, MPI_DOUBLE, MPI_COMM_WORLD);
  });
  CHECK(same(got, want), "Allgather_c n=%zu", n);
  got.assign(n * size_, -1);
  std::copy(mine.begin(), mine.end(), got.begin() + n * rank_);
  MPI_Allgather_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got.data(), c, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK(same(got, want), "Allgather_c in place n=%zu", n);

  // Gather_c / Scatter_c at every root.
  for (int root = 0; root < size_; ++root) {
    got.assign(n * size_, -1);
    expect_compressed("gather", any, "Gather_c", [&] {
      MPI_Gather_c(mine.data(), c, MPI_DOUBLE, got.data(), c, MPI_DOUBLE, root, MPI_COMM_WORLD);
    });
    if (rank_ == root) CHECK(same(got, want), "Gather_c n=%zu root=%d", n, root);

    std::vector<double> part(n, -1);
    expect_compressed("scatter", any, "Scatter_c", [&] {
      MPI_Scatter_c(want.data(), c, MPI_DOUBLE, part.data(), c, MPI_DOUBLE, root, MPI_COMM_WORLD);
    });
    CHECK(same(part, field(n, rank_ + 1)), "Scatter_c n=%zu root=%d", n, root);
  }

  // The v variants, counts uneven with a zero.
  std::vector<MPI_Count> counts(size_);
  std::vector<MPI_Aint> displs(size_);
  std::vector<int> icounts(size_), idispls(size_);
  int total = 0;
  for (int i = 0; i < size_; ++i) {
    icounts[i] = vcount(n, i);
    idispls[i] = total;
    counts[i] = icounts[i];
    displs[i] = total;
    total += icounts[i];
  }
  const auto vmine = field(icounts[rank_], rank_ + 20);
  std::vector<double> vwant(total), vgot(total, -1);
  PMPI_Allgatherv(vmine.data(), icounts[rank_], MPI_DOUBLE, vwant.data(), icounts.data(),
                  idispls.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  expect_compressed("allgatherv", size_ > 1, "Allgatherv_c", [&] {
    MPI_Allgatherv_c(vmine.data(), counts[rank_], MPI_DOUBLE, vgot.data(), counts.data(),
                     displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  });
  CHECK(same(vgot, vwant), "Allgatherv_c n=%zu", n);
  for (int root = 0; root < size_; ++root) {
    vgot.assign(total, -1);
    MPI_Gatherv_c(vmine.data(), counts[rank_], MPI_DOUBLE, vgot.data(), counts.data(),
                  displs.data(), MPI_DOUBLE, root, MPI_COMM_WORLD);
    if (rank_ == root) CHECK(same(vgot, vwant), "Gatherv_c n=%zu root=%d", n, root);
    std::vector<double> part(icounts[rank_], -1);
    MPI_Scatterv_c(vwant.data(), counts.data(), displs.data(), MPI_DOUBLE, part.data(),
                   counts[rank_], MPI_DOUBLE, root, MPI_COMM_WORLD);
    CHECK(same(part, vmine), "Scatterv_c n=%zu root=%d", n, root);
  }

  // Alltoall_c and Alltoallv_c (block i -> rank i), also in place.
  const auto a2a = field(n * size_, rank_ + 30);
  want.assign(n * size_, 0);
  got.assign(n * size_, -1);
  PMPI_Alltoall(a2a.data(), static_cast<int>(n), MPI_DOUBLE, want.data(), static_cast<int>(n),
                MPI_DOUBLE, MPI_COMM_WORLD);
  expect_compressed("alltoall", any, "Alltoall_c", [&] {
    MPI_Alltoall_c(a2a.data(), c, MPI_DOUBLE, got.data(), c, MPI_DOUBLE, MPI_COMM_WORLD);
  });
  CHECK(same(got, want), "Alltoall_c n=%zu", n);
  got = a2a;
  MPI_Alltoall_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got.data(), c, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK(same(got, want), "Alltoall_c in place n=%zu", n);

  // Alltoallv: rank r sends (n + r + j) % (n + 2) elements to rank j, a
  // count symmetric in r and j, so it is also what r receives from j.
  std::vector<MPI_Count> sc(size_), rc(size_);
  std::vector<MPI_Aint> sd(size_), rd(size_);
  std::vector<int> isc(size_), irc(size_), isd(size_), ird(size_);
  int stotal = 0, rtotal = 0;
  for (int j = 0; j < size_; ++j) {
    isc[j] = static_cast<int>(n + rank_ + j) % (static_cast<int>(n) + 2);
    irc[j] = static_cast<int>(n + j + rank_) % (static_cast<int>(n) + 2);
    isd[j] = stotal;
    ird[j] = rtotal;
    stotal += isc[j];
    rtotal += irc[j];
    sc[j] = isc[j], rc[j] = irc[j], sd[j] = isd[j], rd[j] = ird[j];
  }
  const auto vs = field(stotal, rank_ + 50);
  std::vector<double> awant(rtotal), agot(rtotal, -1);
  PMPI_Alltoallv(vs.data(), isc.data(), isd.data(), MPI_DOUBLE, awant.data(), irc.data(),
                 ird.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  expect_compressed("alltoallv", size_ > 1, "Alltoallv_c", [&] {
    MPI_Alltoallv_c(vs.data(), sc.data(), sd.data(), MPI_DOUBLE, agot.data(), rc.data(), rd.data(),
                    MPI_DOUBLE, MPI_COMM_WORLD);
  });
  CHECK(same(agot, awant), "Alltoallv_c n=%zu", n);
}

// Absolute addresses as displacements from MPI_BOTTOM: beyond INT_MAX on a
// 64-bit heap, so the classic int calls could not express them.
void bottom_displacements(size_t n) {
  const auto mine = field(n, rank_ + 60);
  std::vector<std::vector<double>> blocks(size_, std::vector<double>(n, -1));
  std::vector<MPI_Count> counts(size_, static_cast<MPI_Count>(n * sizeof(double)));
  std::vector<MPI_Aint> displs(size_);
  for (int i = 0; i < size_; ++i) MPI_Get_address(blocks[i].data(), &displs[i]);
  CHECK(displs[0] > INT_MAX, "heap address %lld fits an int", static_cast<long long>(displs[0]));
  MPI_Allgatherv_c(mine.data(), static_cast<MPI_Count>(n), MPI_DOUBLE, MPI_BOTTOM, counts.data(),
                   displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  for (int i = 0; i < size_; ++i)
    CHECK(same(blocks[i], field(n, i + 60)), "Allgatherv_c from MPI_BOTTOM: block %d", i);

  // Alltoallv_c sending from absolute addresses (MPICH rejects MPI_BOTTOM as
  // both buffers: it sees them aliased).
  std::vector<std::vector<double>> out(size_);
  std::vector<double> in(n * size_, -1);
  std::vector<MPI_Aint> sd(size_), rd(size_);
  for (int j = 0; j < size_; ++j) {
    out[j] = field(n, rank_ * 10 + j);
    MPI_Get_address(out[j].data(), &sd[j]);
    rd[j] = static_cast<MPI_Aint>(j * n * sizeof(double));
  }
  MPI_Alltoallv_c(MPI_BOTTOM, counts.data(), sd.data(), MPI_BYTE, in.data(), counts.data(),
                  rd.data(), MPI_BYTE, MPI_COMM_WORLD);
  for (int j = 0; j < size_; ++j) {
    const std::vector<double> got(in.begin() + j * n, in.begin() + (j + 1) * n);
    CHECK(same(got, field(n, j * 10 + rank_)), "Alltoallv_c from MPI_BOTTOM: from %d", j);
  }
}

// Even ranks call the _c form, odd ranks the classic one: one collective.
void mixed_forms(size_t n) {
  const auto in = field(n, rank_ + 70);
  std::vector<double> want(n), got(n, -1);
  PMPI_Allreduce(in.data(), want.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const bool large = rank_ % 2 == 0;
  expect_compressed("allreduce", true, "mixed Allreduce", [&] {
    if (large)
      MPI_Allreduce_c(in.data(), got.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else
      MPI_Allreduce(in.data(), got.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
  });
  CHECK(same(got, want), "mixed Allreduce n=%zu", n);

  std::vector<double> all(n * size_, -1), awant(n * size_);
  PMPI_Allgather(in.data(), static_cast<int>(n), MPI_DOUBLE, awant.data(), static_cast<int>(n),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  expect_compressed("allgather", size_ > 1, "mixed Allgather", [&] {
    if (large)
      MPI_Allgather_c(in.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD);
    else
      MPI_Allgather(in.data(), static_cast<int>(n), MPI_DOUBLE, all.data(), static_cast<int>(n),
                    MPI_DOUBLE, MPI_COMM_WORLD);
  });
  CHECK(same(all, awant), "mixed Allgather n=%zu", n);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  for (size_t n : {size_t{0}, size_t{1}, size_t{1023}, size_t{40000}}) {
    reductions(n);
    movement(n);
  }
  bottom_displacements(4099);
  mixed_forms(20001);
  return finish_test("large_count");
}
