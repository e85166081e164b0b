// Lossy scopes (docs/lossy-scopes.md): a communicator's info hints decide
// where lossy coding applies. Values are multiples of 1/64 small enough that
// every sum is exact in any order, so "bit-exact" compares with the exact
// result; "lossy" means the statistics counted lossy calls and every element
// is within the bound (NaN and Inf exactly as sent).
//   test_lossy_scopes hints     default settings: a hinted communicator
//                               (dup_with_info, set_info, idup_with_info,
//                               inherited by dup) codes its Allreduce lossy,
//                               within the bound; an unhinted one stays exact
//   test_lossy_scopes off       job-wide bound: lossy on a plain duplicate,
//                               exact under adacomp_lossy=off
//   test_lossy_scopes movement  point-to-point, Alltoall(v), Allgather(v),
//                               Gather, Scatter:
//                               lossy within the bound on a hinted
//                               communicator, exact on an unhinted one even
//                               under a job-wide bound
//   test_lossy_scopes invalid   an invalid value is MPI_ERR_INFO_VALUE; ranks
//                               that disagree take one path (exact)
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "check.h"

namespace {

int g_rank = 0, g_size = 1;
constexpr double kRel = 1e-4;

// A smooth field of multiples of 1/64, different on each rank; with
// `specials`, NaN and Inf at a few places.
std::vector<double> field(size_t n, int salt, bool specials) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::round(64 * (200 * std::sin(1e-4 * i + salt) + 0.3 * std::sin(0.7 * i))) / 64;
  if (specials)
    for (size_t i = 11; i + 1 < n; i += 7919) {
      v[i] = std::numeric_limits<double>::quiet_NaN();
      v[i + 1] = (i / 7919) % 2 ? std::numeric_limits<double>::infinity()
                                : -std::numeric_limits<double>::infinity();
    }
  return v;
}

double value_range(const std::vector<double>& v) {
  double lo = INFINITY, hi = -INFINITY;
  for (double x : v)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  return hi - lo;
}

// Every element within `bound` of `exact` (0: bit-identical); non-finite
// ones exactly. Returns whether any finite element differs at all.
bool compare(const char* what, const double* got, const double* exact, size_t n, double bound) {
  size_t bad = 0, differ = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(exact[i])) {
      const bool same = std::isnan(exact[i]) ? std::isnan(got[i]) : got[i] == exact[i];
      bad += !same;
      continue;
    }
    const double err = std::fabs(got[i] - exact[i]);
    differ += err != 0;
    worst = std::max(worst, err);
    bad += bound == 0 ? std::memcmp(&got[i], &exact[i], sizeof(double)) != 0 : err > bound;
  }
  CHECK(bad == 0, "%s: %zu elements off (bound %g, worst %g)", what, bad, bound, worst);
  return differ > 0;
}

MPI_Comm hinted(MPI_Comm from, const char* key, const char* value) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, key, value);
  MPI_Comm comm;
  MPI_Comm_dup_with_info(from, info, &comm);
  MPI_Info_free(&info);
  return comm;
}

// Allreduce SUM of 4 MB of doubles, `calls` times (the adaptive model
// explores raw and each codec first), within `bound_abs` or else
// `bound_rel` of the range (both 0: bit-exact); returns the lossy calls
// counted.
unsigned long long allreduce_case(const char* what, MPI_Comm comm, double bound_rel, int calls,
                                  double bound_abs = 0) {
  const size_t n = 1 << 19;
  std::vector<double> mine = field(n, g_rank, false), sum(n), exact(n, 0.0);
  for (int r = 0; r < g_size; ++r) {
    const std::vector<double> other = field(n, r, false);
    for (size_t i = 0; i < n; ++i) exact[i] += other[i];
  }
  const double bound = bound_abs > 0 ? bound_abs : bound_rel * value_range(exact);
  const unsigned long long before = op_stats("allreduce").lossy_calls;
  for (int c = 0; c < calls; ++c) {
    MPI_Allreduce(mine.data(), sum.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, comm);
    compare(what, sum.data(), exact.data(), n, bound);
  }
  return op_stats("allreduce").lossy_calls - before;
}

void hints_case() {
  MPI_Comm by_dup = hinted(MPI_COMM_WORLD, "adacomp_rel_error_bound", "1e-4");
  const unsigned long long lossy = allreduce_case("dup_with_info rel", by_dup, kRel, 12);
  CHECK(lossy > 0, "a communicator hinted rel 1e-4 coded nothing lossy");
  MPI_Comm inherited;
  MPI_Comm_dup(by_dup, &inherited);  // MPI_Comm_dup keeps the hints
  CHECK(allreduce_case("dup of hinted", inherited, kRel, 12) > 0, "MPI_Comm_dup lost the hint");

  MPI_Comm by_set;
  MPI_Comm_dup(MPI_COMM_WORLD, &by_set);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "adacomp_error_bound", "0.01");
  CHECK(MPI_Comm_set_info(by_set, info) == MPI_SUCCESS, "set_info failed");
  MPI_Info_free(&info);
  CHECK(allreduce_case("set_info abs", by_set, 0, 12, 0.01) > 0,
        "set_info's bound coded nothing lossy");

#if MPI_VERSION >= 4
  MPI_Comm by_idup;
  MPI_Request req;
  MPI_Info_create(&info);
  MPI_Info_set(info, "adacomp_rel_error_bound", "1e-4");
  MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &by_idup, &req);
  MPI_Info_free(&info);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(allreduce_case("idup_with_info rel", by_idup, kRel, 12) > 0,
        "MPI_Comm_idup_with_info's hint coded nothing lossy");
  MPI_Comm_free(&by_idup);
#endif

  MPI_Comm plain;
  MPI_Comm_dup(MPI_COMM_WORLD, &plain);
  CHECK(allreduce_case("unhinted", plain, 0, 12) == 0, "an unhinted communicator went lossy");
  for (MPI_Comm* c : {&by_dup, &inherited, &by_set, &plain}) MPI_Comm_free(c);
}

// Under a job-wide bound: a plain duplicate is lossy, adacomp_lossy=off exact.
void off_case() {
  MPI_Comm plain;
  MPI_Comm_dup(MPI_COMM_WORLD, &plain);
  CHECK(allreduce_case("job-wide bound", plain, kRel, 12) > 0, "the job's bound coded nothing lossy");
  MPI_Comm off = hinted(MPI_COMM_WORLD, "adacomp_lossy", "off");
  CHECK(allreduce_case("adacomp_lossy=off", off, 0, 12) == 0, "adacomp_lossy=off went lossy");
  MPI_Comm_free(&plain);
  MPI_Comm_free(&off);
}

// Each data-movement call on `comm`: within `rel` of the range of what was
// sent (0: bit-exact); returns the operations whose lossy count rose on any
// rank, a bit each (ranks on one node do not code between them).
int movement_case(const char* what, MPI_Comm comm, double rel) {
  const size_t block = 1 << 15;  // 256 KB of doubles per peer
  const int p = g_size;
  int lossy_ops = 0, bit = 1;
  auto lossy_rose = [&](const char* op, unsigned long long before) {
    if (op_stats(op).lossy_calls > before) lossy_ops |= bit;
    bit <<= 1;
  };
  std::vector<std::vector<double>> from(p);
  for (int r = 0; r < p; ++r) from[r] = field(block * p, 7 * r, true);
  auto bound_of = [&](int r) { return rel * value_range(from[r]); };
  std::string name;

  // Point-to-point: a ring of Sendrecv.
  {
    const int to = (g_rank + 1) % p, src = (g_rank + p - 1) % p;
    std::vector<double> got(block * p);
    const unsigned long long before = op_stats("send").lossy_calls;
    MPI_Sendrecv(from[g_rank].data(), static_cast<int>(got.size()), MPI_DOUBLE, to, 5, got.data(),
                 static_cast<int>(got.size()), MPI_DOUBLE, src, 5, comm, MPI_STATUS_IGNORE);
    name = std::string(what) + " sendrecv";
    compare(name.c_str(), got.data(), from[src].data(), got.size(), bound_of(src));
    lossy_rose("send", before);
  }
  // Alltoall: rank r's block j goes to rank j.
  {
    std::vector<double> got(block * p);
    const unsigned long long before = op_stats("alltoall").lossy_calls;
    MPI_Alltoall(from[g_rank].data(), static_cast<int>(block), MPI_DOUBLE, got.data(),
                 static_cast<int>(block), MPI_DOUBLE, comm);
    name = std::string(what) + " alltoall";
    for (int r = 0; r < p; ++r)
      compare(name.c_str(), got.data() + r * block, from[r].data() + g_rank * block, block,
              r == g_rank ? 0 : bound_of(r));
    lossy_rose("alltoall", before);
  }
  // Alltoallv with the same blocks as counts and displacements.
  {
    std::vector<int> counts(p, static_cast<int>(block)), displs(p);
    for (int r = 0; r < p; ++r) displs[r] = r * static_cast<int>(block);
    std::vector<double> got(block * p);
    const unsigned long long before = op_stats("alltoallv").lossy_calls;
    MPI_Alltoallv(from[g_rank].data(), counts.data(), displs.data(), MPI_DOUBLE, got.data(),
                  counts.data(), displs.data(), MPI_DOUBLE, comm);
    name = std::string(what) + " alltoallv";
    for (int r = 0; r < p; ++r)
      compare(name.c_str(), got.data() + r * block, from[r].data() + g_rank * block, block,
              r == g_rank ? 0 : bound_of(r));
    lossy_rose("alltoallv", before);
  }
  // Allgather(v) of each rank's whole vector's first block.
  for (bool varied : {false, true}) {
    std::vector<double> got(block * p);
    std::vector<int> counts(p, static_cast<int>(block)), displs(p);
    for (int r = 0; r < p; ++r) displs[r] = r * static_cast<int>(block);
    const char* op = varied ? "allgatherv" : "allgather";
    const unsigned long long before = op_stats(op).lossy_calls;
    if (varied)
      MPI_Allgatherv(from[g_rank].data(), static_cast<int>(block), MPI_DOUBLE, got.data(),
                     counts.data(), displs.data(), MPI_DOUBLE, comm);
    else
      MPI_Allgather(from[g_rank].data(), static_cast<int>(block), MPI_DOUBLE, got.data(),
                    static_cast<int>(block), MPI_DOUBLE, comm);
    name = std::string(what) + " " + op;
    for (int r = 0; r < p; ++r) {
      std::vector<double> sent(from[r].begin(), from[r].begin() + block);
      compare(name.c_str(), got.data() + r * block, sent.data(), block,
              r == g_rank ? 0 : rel * value_range(sent));
    }
    lossy_rose(op, before);
  }
  // Gather to rank 0 and Scatter from it of each rank's first block.
  {
    std::vector<double> all(block * p), mine(block);
    unsigned long long before = op_stats("gather").lossy_calls;
    MPI_Gather(from[g_rank].data(), static_cast<int>(block), MPI_DOUBLE, all.data(),
               static_cast<int>(block), MPI_DOUBLE, 0, comm);
    name = std::string(what) + " gather";
    if (g_rank == 0)
      for (int r = 0; r < p; ++r) {
        std::vector<double> sent(from[r].begin(), from[r].begin() + block);
        compare(name.c_str(), all.data() + r * block, sent.data(), block,
                r == 0 ? 0 : rel * value_range(sent));
      }
    lossy_rose("gather", before);
    before = op_stats("scatter").lossy_calls;
    MPI_Scatter(from[0].data(), static_cast<int>(block), MPI_DOUBLE, mine.data(),
                static_cast<int>(block), MPI_DOUBLE, 0, comm);
    name = std::string(what) + " scatter";
    std::vector<double> sent(from[0].begin() + g_rank * block, from[0].begin() + (g_rank + 1) * block);
    compare(name.c_str(), mine.data(), sent.data(), block, g_rank == 0 ? 0 : rel * value_range(sent));
    lossy_rose("scatter", before);
  }
  int anywhere = 0;
  MPI_Allreduce(&lossy_ops, &anywhere, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  return anywhere;
}

void movement() {
  MPI_Comm halo = hinted(MPI_COMM_WORLD, "adacomp_rel_error_bound", "1e-4");
  const int lossy = movement_case("hinted", halo, kRel);
  CHECK(lossy == 127, "not every data-movement call went lossy (%#x)", lossy);
  MPI_Comm plain;
  MPI_Comm_dup(MPI_COMM_WORLD, &plain);  // under the job-wide bound the test sets
  const int job_wide = movement_case("unhinted", plain, 0);
  CHECK(job_wide == 0, "a job-wide bound made data movement lossy (%#x)", job_wide);
  MPI_Comm_free(&halo);
  MPI_Comm_free(&plain);
}

void invalid() {
  MPI_Comm comm = error_returning_comm();
  for (const char* bad : {"abc", "-1", "0", "2"}) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "adacomp_rel_error_bound", bad);
    const int rc = MPI_Comm_set_info(comm, info);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_VALUE, "adacomp_rel_error_bound=%s gave class %d", bad, cls);
    MPI_Info_free(&info);
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "adacomp_lossy", "maybe");
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Comm_set_info(comm, info), &cls);
  CHECK(cls == MPI_ERR_INFO_VALUE, "adacomp_lossy=maybe gave class %d", cls);
  MPI_Info_free(&info);
  // The communicator still works, exactly (an invalid value votes off).
  CHECK(allreduce_case("after invalid", comm, 0, 4) == 0, "an invalid hint left lossy coding on");
  // A valid value later replaces the off an invalid one left.
  MPI_Info_create(&info);
  MPI_Info_set(info, "adacomp_rel_error_bound", "1e-4");
  CHECK(MPI_Comm_set_info(comm, info) == MPI_SUCCESS, "set_info failed");
  MPI_Info_free(&info);
  CHECK(allreduce_case("valid after invalid", comm, kRel, 12) > 0, "a valid bound stayed off");
  // Ranks that disagree (rank 0 alone asks for a bound) take one path: exact.
  MPI_Comm split;
  MPI_Comm_dup(MPI_COMM_WORLD, &split);
  MPI_Info_create(&info);
  if (g_rank == 0) MPI_Info_set(info, "adacomp_rel_error_bound", "1e-4");
  CHECK(MPI_Comm_set_info(split, info) == MPI_SUCCESS, "set_info failed");
  MPI_Info_free(&info);
  CHECK(allreduce_case("disagreeing ranks", split, 0, 12) == 0, "disagreeing ranks went lossy");
  MPI_Comm_free(&split);
  MPI_Comm_free(&comm);
}

}  // namespace

int main(int argc, char** argv) {
  start_test(&argc, &argv, &g_rank, &g_size);
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "hints")
    hints_case();
  else if (what == "off")
    off_case();
  else if (what == "movement")
    movement();
  else if (what == "invalid")
    invalid();
  else
    CHECK(false, "usage: test_lossy_scopes hints|off|movement|invalid");
  return finish_test("lossy_scopes");
}
