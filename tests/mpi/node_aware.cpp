// Node-aware paths: what crosses a node boundary is coded, what stays inside
// a node is not. Run with lossless forced on a layout of several nodes (the
// emulated cluster, or ADACOMP_NODE_MAP on one machine); every result is
// compared with PMPI, and the statistics, summed over ranks, must show
// exactly the coded bytes the layout implies.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"

namespace {

int g_rank, g_size;
std::vector<int> g_node;  // node of each world rank
int g_nodes;

unsigned long long total(unsigned long long mine) {
  unsigned long long sum = 0;
  PMPI_Allreduce(&mine, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

// The layout as the library sees it: ADACOMP_NODE_MAP when set, else MPI's
// shared-memory split.
void learn_layout() {
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int key = g_rank;
  if (const char* map = std::getenv("ADACOMP_NODE_MAP")) {
    int start = 0;
    for (const char* p = map; *p;) {
      const int n = std::atoi(p);
      if (g_rank < start + n) {
        key = start;
        break;
      }
      start += n;
      while (*p && *p != ',') ++p;
      if (*p == ',') ++p;
    }
  } else {
    MPI_Comm node;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
    int local = 0;
    PMPI_Comm_rank(node, &local);
    key = local == 0 ? g_rank : -1;
    PMPI_Bcast(&key, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
  }
  std::vector<int> keys(g_size);
  PMPI_Allgather(&key, 1, MPI_INT, keys.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> seen;
  g_node.resize(g_size);
  for (int r = 0; r < g_size; ++r) {
    int i = 0;
    while (i < static_cast<int>(seen.size()) && seen[i] != keys[r]) ++i;
    if (i == static_cast<int>(seen.size())) seen.push_back(keys[r]);
    g_node[r] = i;
  }
  g_nodes = static_cast<int>(seen.size());
}

double field(int rank, int i) { return 1.0 + 0.001 * i + 0.01 * rank; }

// Whether the library's node-aware calls run on rails here: every node
// holds as many ranks, more than one, and ADACOMP_HIERARCHY is not leaders.
bool rails_layout() {
  std::vector<int> on_node(g_nodes, 0);
  for (int r = 0; r < g_size; ++r) ++on_node[g_node[r]];
  const bool uniform = std::all_of(on_node.begin(), on_node.end(),
                                   [&](int k) { return k == on_node[0]; });
  const char* hierarchy = std::getenv("ADACOMP_HIERARCHY");
  return uniform && on_node[0] > 1 && !(hierarchy && std::string(hierarchy) == "leaders");
}

// Whether this rank is its node's lowest.
bool leader() {
  for (int r = 0; r < g_rank; ++r)
    if (g_node[r] == g_node[g_rank]) return false;
  return true;
}

void allreduce_codes_only_between_nodes() {
  const int n = 1 << 16;
  std::vector<double> in(n), out(n), ref(n);
  for (int i = 0; i < n; ++i) in[i] = field(g_rank, i);
  PMPI_Allreduce(in.data(), ref.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const auto before = op_stats("allreduce");
  MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const auto after = op_stats("allreduce");
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]) / ref[i]);
  CHECK(worst < 1e-12, "allreduce differs from PMPI by %g", worst);
  CHECK(after.compressed_calls == before.compressed_calls + 1, "allreduce not compressed");
  // A compressed ring of M members over V bytes sends 2(M-1)/M V per member
  // (reduce-scatter hops, then forwarded allgather frames): 2(M-1) V in all.
  // Node-aware, every inter-node ring has G members, one per node, and the
  // rings together cover the vector once (leaders: one ring on all of it;
  // rails: one ring per local rank on its share): 2(G-1) V. A flat ring
  // over all P ranks would code 2(P-1) V.
  const unsigned long long coded = total(after.bytes_in - before.bytes_in);
  const unsigned long long expect = 2ull * (g_nodes - 1) * n * sizeof(double);
  CHECK(coded == expect, "allreduce coded %llu bytes over all ranks, expected %llu (%d nodes)",
        coded, expect, g_nodes);
}

// Reduce_scatter with uneven slices (with `empty`, rank 1's empty): a ring
// reduce-scatter of M members over V bytes sends each block through M-1
// hops, (M-1) V in all; node-aware the rings have G members and cover the
// vector once (leaders: one ring; rails: one per local rank on its rail's
// slices): (G-1) V. With rails every rank codes (the other members' slices
// of its rail), with leaders only the leaders; where every slice has
// elements. Equal to PMPI's result to rounding. Slices of about `base`
// elements; pipelined (`segmented`), large calls run in segments, rails
// and leaders (coll/plan.h segmented), each a part of every slice, in place
// and not: a piece at the wrong place shows as wrong elements.
void reduce_scatter_codes_only_between_nodes(bool empty, int base = 4099, bool segmented = false,
                                             bool in_place = false) {
  std::vector<int> counts(g_size);
  for (int r = 0; r < g_size; ++r) counts[r] = empty && r == 1 ? 0 : base + 613 * r;
  int n = 0, mine = counts[g_rank];
  for (int r = 0; r < g_size; ++r) n += counts[r];
  std::vector<double> in(n), out(std::max(mine, 1)), ref(std::max(mine, 1));
  for (int i = 0; i < n; ++i) in[i] = field(g_rank, i);
  PMPI_Reduce_scatter(in.data(), ref.data(), counts.data(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const auto before = op_stats("reduce_scatter");
  if (in_place) {
    MPI_Reduce_scatter(MPI_IN_PLACE, in.data(), counts.data(), MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD);
    std::copy(in.begin(), in.begin() + mine, out.begin());
  } else {
    MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  const auto after = op_stats("reduce_scatter");
  double worst = 0;
  for (int i = 0; i < mine; ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]) / ref[i]);
  CHECK(worst < 1e-12, "reduce_scatter (empty %d in place %d) differs from PMPI by %g", empty,
        in_place, worst);
  CHECK(after.compressed_calls == before.compressed_calls + 1, "reduce_scatter not compressed");
  CHECK(!segmented || after.pipelined_calls == before.pipelined_calls + 1,
        "reduce_scatter not pipelined");
  const unsigned long long coded = after.bytes_in - before.bytes_in;
  const unsigned long long expect = 1ull * (g_nodes - 1) * n * sizeof(double);
  const unsigned long long all = total(coded);
  CHECK(all == expect, "reduce_scatter (empty %d) coded %llu bytes over all ranks, expected %llu",
        empty, all, expect);
  if (empty) return;
  const bool rails = rails_layout();
  CHECK((coded > 0) == (rails || leader()), "reduce_scatter: rank %d (%s) coded %llu bytes",
        g_rank, rails ? "rails" : "leaders", coded);
}

// Reduce from every root, in place at every other one, of an odd count `n`
// of whole numbers (any order of the sum is exact), against the exact sums:
// not PMPI's, as plain MPICH 4.0's Reduce gives wrong sums on the emulated
// 1,2,3 layout (docs/testing.md); non-roots' buffers untouched. Pipelined
// (`segmented`: 2.4 MB, several uneven segments) the node stage runs in
// segments (coll/reduce.cpp, coll/reduce_rails.cpp): a chunk coded before
// its segment was summed, or a segment at the wrong offset, shows as wrong
// elements. A tree of G members, one per node, codes each
// non-root member's V bytes once: (G-1) V in all, leaders or rails (a tree
// per local rank on its slice of the node's sum). Who codes tells them
// apart: with leaders each other node's lowest rank, with rails every
// rank of every other node (coll/reduce_rails.cpp).
void reduce_codes_only_between_nodes(int n = 100003, bool segmented = false) {
  std::vector<double> in(n), ref(n);
  for (int i = 0; i < n; ++i) {
    in[i] = (i % 89) + 2 * g_rank;
    ref[i] = g_size * (i % 89) + g_size * (g_size - 1);
  }
  const bool rails = rails_layout();
  for (int root = 0; root < g_size; ++root) {
    const bool in_place = root % 2 == 1 && g_rank == root;
    std::vector<double> out(n, -1.0);
    if (in_place) out = in;
    const auto before = op_stats("reduce");
    MPI_Reduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, root,
               MPI_COMM_WORLD);
    const auto after = op_stats("reduce");
    size_t wrong = 0;
    for (int i = 0; i < n; ++i) wrong += out[i] != (g_rank == root ? ref[i] : -1.0);
    CHECK(wrong == 0, "reduce to %d (in place %d, %s): %zu elements wrong at rank %d", root,
          in_place, rails ? "rails" : "leaders", wrong, g_rank);
    CHECK(!segmented || after.pipelined_calls == before.pipelined_calls + 1,
          "reduce to %d not pipelined", root);
    const unsigned long long coded = after.bytes_in - before.bytes_in;
    const unsigned long long all = total(coded);
    const unsigned long long expect = 1ull * (g_nodes - 1) * n * sizeof(double);
    CHECK(all == expect, "reduce to %d coded %llu bytes over all ranks, expected %llu", root, all,
          expect);
    const bool other_node = g_node[g_rank] != g_node[root];
    CHECK((coded > 0) == (other_node && (rails || leader())),
          "reduce to %d: rank %d (%s) coded %llu bytes", root, g_rank, rails ? "rails" : "leaders",
          coded);
  }
}

// Pipelined mode, a 2 MiB vector (4m + 2 elements, m odd) in S segments
// (coll/allreduce.cpp: at most 4, each rank's share of one at least
// 256 KiB; with rails of L ranks per node a rank's share is 1/L). With
// rails local rank 0 codes the first L-th of each segment, which in all is
// fewer elements than the first L-th of the whole vector the unsegmented
// rails code; so the rail's coded bytes tell whether the call was cut into
// segments. In place and not, equal to PMPI's result to rounding, alike on
// every rank.
void allreduce_segmented(bool rails) {
  const int m = 65537, n = 4 * m + 2;  // 2 MiB of doubles
  std::vector<double> in(n), out(n), ref(n);
  for (int i = 0; i < n; ++i) in[i] = field(g_rank, i);
  PMPI_Allreduce(in.data(), ref.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int local = 0, on_node = 0;
  for (int r = 0; r < g_size; ++r) {
    on_node += g_node[r] == g_node[g_rank];
    local += r < g_rank && g_node[r] == g_node[g_rank];
  }
  const unsigned long long share = n * sizeof(double) / on_node;
  const unsigned long long parts = std::min(4ull, share / (256 << 10));
  unsigned long long first = 0;  // elements of rail 0, segmented
  for (unsigned long long k = 0; k < parts; ++k)
    first += (n * (k + 1) / parts - n * k / parts) / on_node;
  CHECK(!rails || first != static_cast<unsigned long long>(n / on_node),
        "the test cannot tell segments");
  for (bool in_place : {false, true}) {
    const auto before = op_stats("allreduce");
    if (in_place) {
      out = in;
      MPI_Allreduce(MPI_IN_PLACE, out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
      MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    const auto after = op_stats("allreduce");
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(out[i] - ref[i]) / ref[i]);
    CHECK(worst < 1e-12, "segmented allreduce (in place %d) differs from PMPI by %g", in_place,
          worst);
    CHECK(after.pipelined_calls == before.pipelined_calls + 1, "allreduce not pipelined");
    const unsigned long long mine = after.bytes_in - before.bytes_in;
    const unsigned long long all = total(mine), rail0 = total(local == 0 ? mine : 0);
    const unsigned long long width = sizeof(double), hops = 2ull * (g_nodes - 1);
    CHECK(all == hops * n * width, "segmented allreduce coded %llu bytes, expected %llu", all,
          hops * n * width);
    if (rails)
      CHECK(rail0 == hops * first * width, "rail 0 coded %llu bytes, expected %llu (segmented)",
            rail0, hops * first * width);
    std::vector<double> rank0(out);
    MPI_Bcast(rank0.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(rank0 == out, "segmented allreduce (in place %d): ranks differ", in_place);
  }
}

// Pipelined, a Bcast whose node stage runs in segments (coll/bcast.cpp: up
// to 4 node-local Ibcasts, each started once the node's tree member holds
// its part), from every root, bit for bit the root's data. The root sends
// doubles; the other nodes' tree members (each node's lowest rank) receive
// them as blocks of 6 doubles, so the tree's chunks cannot follow anyone's
// element size; the other ranks through a strided datatype of the same
// signature, whose segments land in a staging area unpacked at the end
// (the gaps stay as they were).
void bcast_segmented() {
  const int n = 300018;  // doubles, 2.4 MB: 4 segments; n / 6 is not a multiple of 3 chunks
  MPI_Datatype six, every_other;
  MPI_Type_contiguous(6, MPI_DOUBLE, &six);
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&six);
  MPI_Type_commit(&every_other);
  bool lowest = true;
  for (int r = 0; r < g_rank; ++r) lowest = lowest && g_node[r] != g_node[g_rank];
  for (int root = 0; root < g_size; ++root) {
    std::vector<double> ref(n);
    for (int i = 0; i < n; ++i) ref[i] = field(root, i);
    const bool strided = g_rank != root && !lowest;
    const auto before = op_stats("bcast");
    std::vector<double> buf(strided ? 2 * n : n, -1.0);
    if (g_rank == root) buf = ref;
    if (g_rank == root)
      MPI_Bcast(buf.data(), n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    else if (strided)
      MPI_Bcast(buf.data(), 1, every_other, root, MPI_COMM_WORLD);
    else
      MPI_Bcast(buf.data(), n / 6, six, root, MPI_COMM_WORLD);
    const auto after = op_stats("bcast");
    size_t wrong = 0;
    for (int i = 0; i < n; ++i)
      wrong += strided ? buf[2 * i] != ref[i] || buf[2 * i + 1] != -1.0 : buf[i] != ref[i];
    CHECK(wrong == 0, "segmented bcast from %d (strided %d): %zu elements wrong", root, strided,
          wrong);
    CHECK(after.pipelined_calls == before.pipelined_calls + 1, "bcast from %d not pipelined",
          root);
  }
  MPI_Type_free(&six);
  MPI_Type_free(&every_other);
}

void alltoall_codes_only_between_nodes() {
  const int block = 1 << 13;  // doubles per peer
  std::vector<double> in(block * g_size), out(block * g_size), ref(block * g_size);
  for (size_t i = 0; i < in.size(); ++i) in[i] = field(g_rank, static_cast<int>(i));
  PMPI_Alltoall(in.data(), block, MPI_DOUBLE, ref.data(), block, MPI_DOUBLE, MPI_COMM_WORLD);
  const auto before = op_stats("alltoall");
  MPI_Alltoall(in.data(), block, MPI_DOUBLE, out.data(), block, MPI_DOUBLE, MPI_COMM_WORLD);
  const auto after = op_stats("alltoall");
  CHECK(out == ref, "alltoall differs from PMPI");
  int remote = 0;
  for (int r = 0; r < g_size; ++r) remote += g_node[r] != g_node[g_rank];
  CHECK(after.bytes_in - before.bytes_in == remote * block * sizeof(double),
        "alltoall rank %d coded %llu bytes, expected %zu (%d peers on other nodes)", g_rank,
        after.bytes_in - before.bytes_in, remote * block * sizeof(double), remote);
}

void sends_code_only_between_nodes() {
  const int n = 1 << 15;
  std::vector<double> out(n), in(n);
  for (int i = 0; i < n; ++i) out[i] = field(g_rank, i);
  // Every rank sends to every other rank once (ring order avoids deadlock).
  for (int step = 1; step < g_size; ++step) {
    const int to = (g_rank + step) % g_size, from = (g_rank - step + g_size) % g_size;
    const auto before = op_stats("send");
    MPI_Sendrecv(out.data(), n, MPI_DOUBLE, to, step, in.data(), n, MPI_DOUBLE, from, step,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const auto after = op_stats("send");
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= in[i] == field(from, i);
    CHECK(ok, "message from %d differs", from);
    const bool remote = g_node[to] != g_node[g_rank];
    CHECK((after.compressed_calls - before.compressed_calls == 1) == remote,
          "send %d -> %d (%s): compressed %llu", g_rank, to, remote ? "other node" : "same node",
          after.compressed_calls - before.compressed_calls);
  }
}

// MPI_ANY_SOURCE where some senders share this rank's node (their messages
// come straight through MPI) and some do not (framed on the private
// communicator): every receive form must take each message exactly once.
// (SMPI has no matched probes: its build defines SMPI_GAPS and leaves out the
// last phase.)
void any_source_from_everyone() {
#ifdef SMPI_GAPS
  const int phases = 4;
#else
  const int phases = 5;
#endif
  auto value = [](int from, int phase, int i) { return from * 1000.0 + phase * 10.0 + i * 1e-3; };
  auto length = [](int from) { return from % 2 ? 20000 : 10; };  // coded and small frames
  if (g_rank != 0) {
    for (int phase = 0; phase < phases; ++phase) {
      std::vector<double> out(length(g_rank));
      for (size_t i = 0; i < out.size(); ++i) out[i] = value(g_rank, phase, static_cast<int>(i));
      MPI_Send(out.data(), static_cast<int>(out.size()), MPI_DOUBLE, 0, 70 + phase, MPI_COMM_WORLD);
    }
    return;
  }
  const int n = g_size - 1, cap = 20000;
  auto check = [&](const std::vector<double>& in, const MPI_Status& st, int phase,
                   std::vector<int>& seen) {
    int got = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    const int from = st.MPI_SOURCE;
    CHECK(from > 0 && from < g_size && got == length(from), "phase %d: source %d count %d", phase,
          from, got);
    if (from <= 0 || from >= g_size) return;
    ++seen[from];
    bool ok = true;
    for (int i = 0; i < got; ++i) ok &= in[i] == value(from, phase, i);
    CHECK(ok, "phase %d: data from %d differs", phase, from);
  };
  std::vector<std::vector<int>> seen(phases, std::vector<int>(g_size, 0));
  std::vector<std::vector<double>> in(n, std::vector<double>(cap));
  MPI_Status st;
  for (int k = 0; k < n; ++k) {  // blocking receives
    MPI_Recv(in[0].data(), cap, MPI_DOUBLE, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &st);
    check(in[0], st, 0, seen[0]);
  }
  std::vector<MPI_Request> r(n);  // nonblocking, completed together
  std::vector<MPI_Status> sts(n);
  for (int k = 0; k < n; ++k)
    MPI_Irecv(in[k].data(), cap, MPI_DOUBLE, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &r[k]);
  MPI_Waitall(n, r.data(), sts.data());
  for (int k = 0; k < n; ++k) check(in[k], sts[k], 1, seen[1]);
  MPI_Request pr;  // one persistent receive, started n times
  MPI_Recv_init(in[0].data(), cap, MPI_DOUBLE, MPI_ANY_SOURCE, 72, MPI_COMM_WORLD, &pr);
  for (int k = 0; k < n; ++k) {
    MPI_Start(&pr);
    MPI_Wait(&pr, &st);
    check(in[0], st, 2, seen[2]);
  }
  MPI_Request_free(&pr);
  for (int k = 0; k < n; ++k) {  // probe, then receive what it saw
    MPI_Probe(MPI_ANY_SOURCE, 73, MPI_COMM_WORLD, &st);
    MPI_Recv(in[0].data(), cap, MPI_DOUBLE, st.MPI_SOURCE, 73, MPI_COMM_WORLD, &st);
    check(in[0], st, 3, seen[3]);
  }
  for (int k = 0; k < n && phases > 4; ++k) {  // matched probes
    int flag = 0;
    MPI_Message msg;
    while (!flag) MPI_Improbe(MPI_ANY_SOURCE, 74, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Mrecv(in[0].data(), cap, MPI_DOUBLE, &msg, &st);
    check(in[0], st, 4, seen[4]);
  }
  for (int phase = 0; phase < phases; ++phase)
    for (int from = 1; from < g_size; ++from)
      CHECK(seen[phase][from] == 1, "phase %d: %d messages from %d", phase, seen[phase][from],
            from);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  learn_layout();
  CHECK(g_nodes > 1, "the layout has one node: run on several");
  allreduce_codes_only_between_nodes();
  for (bool empty : {false, true}) reduce_scatter_codes_only_between_nodes(empty);
  reduce_codes_only_between_nodes();
  // test_node_aware --segmented [rails]: pipelined mode, segments checked
  // (Allreduce, Reduce_scatter, Bcast, Reduce).
  if (argc > 1 && std::string(argv[1]) == "--segmented") {
    allreduce_segmented(argc > 2 && std::string(argv[2]) == "rails");
    for (bool empty : {false, true})
      reduce_scatter_codes_only_between_nodes(empty, 150001, true, empty);
    bcast_segmented();
    reduce_codes_only_between_nodes(300017, true);
  }
  alltoall_codes_only_between_nodes();
  sends_code_only_between_nodes();
  any_source_from_everyone();
  return finish_test("node_aware");
}
