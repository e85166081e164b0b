// The adaptive policy (the default) from the outside, results exact throughout.
//   test_model single-node   no layout given: one node. Nothing is coded,
//                            collectives or point-to-point, at any size.
//   test_model explore       ADACOMP_NODE_MAP makes two nodes: a slot explores
//                            (raw, compressed, compressed, raw), settles, and
//                            explores again after 32 calls. On incompressible
//                            data over shared memory with a slow codec (zstd
//                            level 19), coding loses: exactly the exploration
//                            calls are compressed.
//   test_model codecs        two nodes and a relative bound: the lossy slot's
//                            arms are raw, quant_zstd and quant_fast.
//                            Allreduce MAX (decode-add-encode ring) and Bcast
//                            of a smooth field explore every arm in turn,
//                            then settle on one, alike on every rank: each
//                            settled call is raw or has the frames of one
//                            explored codec. Results stay within the bound
//                            whichever wins. An Allreduce SUM, reduced on
//                            codes, explores both coded arms too (the codec
//                            picks the payload form: raw, entropy, planes,
//                            raw, entropy, planes). A Bcast whose root passes doubles and
//                            the others pairs of doubles (a datatype of
//                            other kind, so other candidates) still explores
//                            in step.
//   test_model p2p-codecs    two nodes, inter-step coding off: rank 0 sends
//                            rank 1 bytes; the sender tries zstd, then lz4,
//                            then codes each message with whichever pays
//                            best, or not at all. Every message arrives exact.
//   test_model chunked       two nodes, from T3 (256 KiB): each codec an arm
//                            whole and in chunks; a 2 MiB integer Allreduce
//                            explores all five arms, then settles alike on
//                            every rank.
//   (`codecs` runs with T3 above its sizes: the codec arms alone.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

namespace {

unsigned long long compressed(const char* op) { return op_stats(op).compressed_calls; }

void fill(std::vector<uint64_t>& v, bool random_data, int it, int rank) {
  uint64_t x = 0x9E3779B97F4A7C15ull * (it + 1) + rank;
  for (auto& e : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    e = random_data ? x : 42 + (it % 3);
  }
}

void allreduce(bool random_data, int it) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<uint64_t> in(1 << 16), out(in.size()), ref(in.size());
  fill(in, random_data, it, rank);
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  PMPI_Allreduce(in.data(), ref.data(), static_cast<int>(in.size()), MPI_UINT64_T, MPI_SUM,
                 MPI_COMM_WORLD);
  CHECK(out == ref, "allreduce %d differs from PMPI", it);
}

void single_node() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int it = 0; it < 12; ++it) allreduce(false, it);
  std::vector<uint64_t> buf(1 << 17);
  fill(buf, false, 0, 0);
  for (int it = 0; it < 4; ++it) {
    MPI_Bcast(buf.data(), static_cast<int>(buf.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (size > 1) {
      const int peer = rank ^ 1;
      if (peer < size)
        MPI_Sendrecv_replace(buf.data(), static_cast<int>(buf.size()), MPI_UINT64_T, peer, 5, peer,
                             5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  std::vector<uint64_t> ref(buf.size());
  fill(ref, false, 0, 0);
  CHECK(buf == ref, "bcast/sendrecv data changed");
  for (const char* op : {"allreduce", "bcast", "send"})
    CHECK(compressed(op) == 0, "%s: %llu calls compressed on one node", op, compressed(op));
}

void explore() {
  int it = 0;
  for (int i = 0; i < 20; ++i) allreduce(true, it++);
  CHECK(compressed("allreduce") == 2,
        "incompressible: %llu compressed calls, expected the 2 "
        "explored",
        compressed("allreduce"));
  // Settled after call 4; explores again at calls 36..39 (2 compressed).
  for (int i = 0; i < 30; ++i) allreduce(true, it++);
  CHECK(compressed("allreduce") == 4, "after 50 calls: %llu compressed, expected 4",
        compressed("allreduce"));
  // The next exploration is 64 calls after that one.
  for (int i = 0; i < 40; ++i) allreduce(true, it++);
  CHECK(compressed("allreduce") == 4, "after 90 calls: %llu compressed, expected 4",
        compressed("allreduce"));
}

constexpr double kRel = 1e-4;  // ADACOMP_REL_ERROR_BOUND of the test

std::vector<double> smooth(int rank, size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = 1e-5 * static_cast<double>(i);
    // Detail at a few times the bound: the codecs' ratios differ.
    v[i] = 300.0 + 40.0 * std::sin(3 * x + rank) * std::cos(x) + 0.05 * std::sin(0.01 * i);
  }
  return v;
}

double range_of(const std::vector<double>& v) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}

// One call's frames on this rank: whether it was compressed and cut into
// chunks, wire bytes sent.
struct Frames {
  bool compressed, pipelined;
  unsigned long long wire;
};

Frames delta(const adacomp_op_stats& a, const adacomp_op_stats& b) {
  return {b.compressed_calls > a.compressed_calls, b.pipelined_calls > a.pipelined_calls,
          b.bytes_wire - a.bytes_wire};
}

// A call's arm, from its frames: the first arm of the exploration's first
// round (calls[0..arms), one per arm in order) whose frames it repeats (the
// same data each call: one codec's frames repeat, two codecs' differ), -1
// for none.
int arm_of(const std::vector<Frames>& calls, int arms, const Frames& f) {
  for (int a = 0; a < arms; ++a) {
    const Frames& e = calls[static_cast<size_t>(a)];
    if (e.compressed == f.compressed && e.pipelined == f.pipelined && e.wire == f.wire) return a;
  }
  return -1;
}

// How many calls the exploration took (PathChoice): each arm once in order,
// then each arm not dropped (over kDropFactor times the fastest first
// call) once more, backwards, ending with raw, which is never dropped.
int explored(const std::vector<Frames>& calls, int arms) {
  size_t n = static_cast<size_t>(arms);
  while (n < calls.size() && calls[n].compressed) ++n;
  return static_cast<int>(n) + 1;
}

// Whether the second round's coded calls (calls[arms, n - 1)) repeat the
// first round's arms, backwards (the frames of a sender only).
bool second_round_backwards(const std::vector<Frames>& calls, int arms, int n) {
  int last = arms;
  for (int i = arms; i < n - 1; ++i) {
    const int arm = arm_of(calls, arms, calls[static_cast<size_t>(i)]);
    if (arm <= 0 || arm >= last) return false;
    last = arm;
  }
  return true;
}

// Checks a slot's calls: they explore raw, quant_zstd, quant_fast, then the
// codecs not dropped, backwards, and raw; the rest are one settled arm, the
// same on every rank. `sends`: whether this rank sends frames in this
// operation.
void check_arms(const char* op, const std::vector<Frames>& calls, bool sends) {
  const int arms = 3, n = explored(calls, arms);
  int ends[2] = {n, -n}, all_ends[2];
  PMPI_Allreduce(ends, all_ends, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(all_ends[0] == -all_ends[1], "%s: ranks explored for different lengths", op);
  for (int i = 0; i < arms; ++i)
    CHECK(calls[i].compressed == (i != 0), "%s exploration call %d: compressed %d", op, i,
          calls[i].compressed);
  const unsigned long long high = calls[1].wire, fast = calls[2].wire;
  if (sends) {
    CHECK(high > 0 && high != fast, "%s: the codecs' frames do not differ (%llu %llu)", op, high,
          fast);
    CHECK(second_round_backwards(calls, arms, n),
          "%s: the second round does not repeat the codecs backwards", op);
    CHECK(high < fast, "%s: quant_zstd (%llu bytes) not smaller than quant_fast (%llu)", op, high,
          fast);
  }
  // The settled arm: 0 raw, 1 quant_zstd, 2 quant_fast (by its frames).
  int settled = -1;
  for (size_t i = static_cast<size_t>(n); i < calls.size(); ++i) {
    const Frames& f = calls[i];
    const int arm = !f.compressed ? 0 : !sends ? 3 : f.wire == high ? 1 : f.wire == fast ? 2 : -2;
    CHECK(arm != -2, "%s call %zu: %llu wire bytes, neither codec's", op, i, f.wire);
    if (settled == -1) settled = arm;
    CHECK(arm == settled, "%s call %zu: arm %d after settling on %d", op, i, arm, settled);
  }
  // Every rank on the same path; senders name the codec.
  int path[2] = {settled != 0, -(settled != 0)}, all[2];
  PMPI_Allreduce(path, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(all[0] == -all[1], "%s: ranks settled on different paths", op);
  int codec = sends ? settled : 0, codecs[2];
  int mine[2] = {codec, codec ? -codec : -3};
  PMPI_Allreduce(mine, codecs, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(codecs[0] == 0 || codecs[0] == -codecs[1], "%s: senders settled on different codecs", op);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("%s settled on %s\n", op,
                all[0] == 0      ? "raw"
                : codecs[0] == 1 ? "quant_zstd"
                                 : "quant_fast");
}

void codecs() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = size_t{1} << 17;  // 1 MiB of doubles: the lossy tier
  const int calls = 16;

  // Allreduce MAX: every rank codes its ring hops.
  const std::vector<double> in = smooth(rank, n);
  std::vector<double> exact(n, -INFINITY);
  double lo = INFINITY, hi = -INFINITY;  // of every rank's input: the relative bound's range
  for (int r = 0; r < size; ++r) {
    const std::vector<double> other = smooth(r, n);
    for (size_t i = 0; i < n; ++i) exact[i] = std::max(exact[i], other[i]);
    lo = std::min(lo, *std::min_element(other.begin(), other.end()));
    hi = std::max(hi, *std::max_element(other.begin(), other.end()));
  }
  const double range = hi - lo;
  std::vector<Frames> seen;
  for (int c = 0; c < calls; ++c) {
    std::vector<double> out(n);
    const adacomp_op_stats before = op_stats("allreduce");
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    seen.push_back(delta(before, op_stats("allreduce")));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += !(std::fabs(out[i] - exact[i]) <= kRel * range);
    CHECK(bad == 0, "allreduce call %d: %zu elements beyond the bound", c, bad);
    std::vector<double> first(out);
    PMPI_Bcast(first.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(first == out, "allreduce call %d: ranks hold different results", c);
  }
  check_arms("allreduce", seen, size > 1);

  // Allreduce SUM reduces on quantisation codes, whose payload form the
  // arm's codec picks: its slot (2 MiB: another size class) explores raw
  // and the codes ring with either form.
  const size_t n2 = 2 * n;
  const std::vector<double> in2 = smooth(rank, n2);
  std::vector<long double> sum(n2, 0.0L);
  lo = INFINITY, hi = -INFINITY;
  for (int r = 0; r < size; ++r) {
    const std::vector<double> other = smooth(r, n2);
    for (size_t i = 0; i < n2; ++i) sum[i] += other[i];
    lo = std::min(lo, *std::min_element(other.begin(), other.end()));
    hi = std::max(hi, *std::max_element(other.begin(), other.end()));
  }
  for (int c = 0; c < 8; ++c) {
    std::vector<double> out(n2);
    const adacomp_op_stats before = op_stats("allreduce");
    MPI_Allreduce(in2.data(), out.data(), static_cast<int>(n2), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    const Frames f = delta(before, op_stats("allreduce"));
    if (c < 3)  // the first round (the second depends on what is dropped)
      CHECK(f.compressed == (c != 0), "sum exploration call %d: compressed %d", c, f.compressed);
    size_t bad = 0;
    for (size_t i = 0; i < n2; ++i)
      bad += !(std::fabs(static_cast<long double>(out[i]) - sum[i]) <= kRel * (hi - lo));
    CHECK(bad == 0, "sum call %d: %zu elements beyond the bound", c, bad);
  }

  // Bcast: the root codes once.
  const std::vector<double> sent = smooth(7, n);
  const double bound = kRel * range_of(sent);
  seen.clear();
  for (int c = 0; c < calls; ++c) {
    std::vector<double> b = rank == 0 ? sent : std::vector<double>(n, 0.0);
    const adacomp_op_stats before = op_stats("bcast");
    MPI_Bcast(b.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    seen.push_back(delta(before, op_stats("bcast")));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += !(std::fabs(b[i] - sent[i]) <= bound);
    CHECK(bad == 0, "bcast call %d: %zu elements beyond the bound", c, bad);
  }
  check_arms("bcast", seen, rank == 0);

  // Bcast of 256 KiB (the lossless tier): the root's doubles have one
  // candidate (bitplane), the others' pairs of doubles (bytes) two (zstd,
  // lz4). Both explore three arms, so every call takes the same path on
  // every rank (else a raw Bcast would meet a compressed one: a hang).
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  const size_t m = n / 4;
  const std::vector<double> small(sent.begin(), sent.begin() + m);
  for (int c = 0; c < calls; ++c) {
    std::vector<double> b = rank == 0 ? small : std::vector<double>(m, 0.0);
    if (rank == 0)
      MPI_Bcast(b.data(), static_cast<int>(m), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
      MPI_Bcast(b.data(), static_cast<int>(m / 2), pair, 0, MPI_COMM_WORLD);
    CHECK(std::memcmp(b.data(), small.data(), m * sizeof(double)) == 0,
          "mixed-type bcast call %d: not bit-identical", c);
  }
  MPI_Type_free(&pair);
}

void p2p_codecs() {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<uint8_t> msg(size_t{1} << 20);
  for (size_t i = 0; i < msg.size(); ++i)
    msg[i] = static_cast<uint8_t>("adacomp "[i % 8] + i / 4096 % 7);
  std::vector<Frames> sent;
  for (int m = 0; m < 12; ++m) {
    if (rank == 0) {
      const adacomp_op_stats before = op_stats("send");
      MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_UINT8_T, 1, m, MPI_COMM_WORLD);
      sent.push_back(delta(before, op_stats("send")));
    } else if (rank == 1) {
      std::vector<uint8_t> got(msg.size());
      MPI_Recv(got.data(), static_cast<int>(got.size()), MPI_UINT8_T, 0, m, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      CHECK(got == msg, "message %d differs", m);
    }
  }
  if (rank != 0) return;
  // Trials: zstd, then lz4 (frames of different sizes, zstd's smaller).
  CHECK(sent[0].compressed && sent[1].compressed, "the trials were not coded (%d %d)",
        sent[0].compressed, sent[1].compressed);
  CHECK(sent[0].wire < sent[1].wire, "zstd's frame (%llu bytes) not below lz4's (%llu)",
        sent[0].wire, sent[1].wire);
  for (size_t m = 2; m < sent.size(); ++m)
    CHECK(!sent[m].compressed || sent[m].wire == sent[0].wire || sent[m].wire == sent[1].wire,
          "message %zu: %llu wire bytes, neither candidate's", m, sent[m].wire);
}

// From T3 each codec is an arm twice, whole and in chunks (decision/tier.h
// Candidates): a 2 MiB lossless Allreduce SUM of integers (candidates zstd
// and lz4) explores raw, zstd, lz4, zstd in chunks, lz4 in chunks, then the
// arms not dropped backwards and raw, then settles on one arm, the same on every rank.
// Results exact.
void chunked() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = size_t{1} << 18;  // 2 MiB of uint64
  std::vector<uint64_t> in(n), expect(n, 0), out(n);
  for (int r = 0; r < size; ++r)
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = (i / 64) % 1000 + static_cast<uint64_t>(r) * 7;  // compressible
      if (r == rank) in[i] = v;
      expect[i] += v;
    }
  const int arms = 5;
  std::vector<Frames> seen;
  for (int c = 0; c < 20; ++c) {
    const adacomp_op_stats before = op_stats("allreduce");
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    seen.push_back(delta(before, op_stats("allreduce")));
    CHECK(out == expect, "call %d: wrong sum", c);
  }
  const int explored_calls = explored(seen, arms);
  for (int c = 0; c < arms; ++c) {
    const Frames& f = seen[static_cast<size_t>(c)];
    CHECK(f.compressed == (c != 0), "exploration call %d: compressed %d", c, f.compressed);
    CHECK(f.pipelined == (c >= 3), "exploration call %d: pipelined %d", c, f.pipelined);
  }
  CHECK(second_round_backwards(seen, arms, explored_calls),
        "the second round does not repeat the arms backwards");
  int settled[2] = {seen[static_cast<size_t>(explored_calls)].compressed,
                    seen[static_cast<size_t>(explored_calls)].pipelined};
  for (size_t c = static_cast<size_t>(explored_calls); c < seen.size(); ++c)
    CHECK(seen[c].compressed == settled[0] && seen[c].pipelined == settled[1],
          "call %zu: compressed %d pipelined %d after settling on %d %d", c, seen[c].compressed,
          seen[c].pipelined, settled[0], settled[1]);
  int all[2], lowest[2];
  PMPI_Allreduce(settled, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  PMPI_Allreduce(settled, lowest, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(all[0] == lowest[0] && all[1] == lowest[1], "ranks settled on different arms");
  if (rank == 0)
    std::printf("allreduce settled on %s\n",
                !settled[0] ? "raw" : settled[1] ? "a codec in chunks" : "a codec whole");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "single-node")
    single_node();
  else if (what == "explore")
    explore();
  else if (what == "codecs")
    codecs();
  else if (what == "p2p-codecs")
    p2p_codecs();
  else if (what == "chunked")
    chunked();
  else
    CHECK(false, "usage: test_model single-node|explore|codecs|p2p-codecs|chunked");
  return finish_test(("model " + what).c_str());
}
