// Lossy rules (ADACOMP_LOSSY_RULES, docs/lossy-scopes.md): each selector
// picks the calls it names, the first rule that selects a call decides, and
// the calls no rule selects keep the job's default. Run with the rules of
// the selector under test and every call coded (ADACOMP_MODEL=off); values
// are multiples of 1/64 whose sums are exact in any order, so "exact"
// compares bit for bit, and "lossy" means counted lossy and within the bound.
// "certificate" checks what the library proves for a lossy call's result
// (adacomp_last_bound) against the bound in force and the measured error.
//   test_lossy_rules op|size|type|comm|after|pcontrol|first|site|site_after|site_line|certificate
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

namespace {

int g_rank = 0, g_size = 1;
constexpr double kRel = 1e-4;

// The MPI_Allreduce of a test, from one call site or another.
using Reduce = void (*)(const void* in, void* out, int n, MPI_Datatype type, MPI_Comm comm);

}  // namespace

// Call sites for site= (not in a namespace: their names as a C function's,
// the parameter list aside). Each checks the result after the call, so the
// call is never a tail call: its return address is in the function.
#define SITE(name)                                                                        \
  static __attribute__((noinline)) void name(const void* in, void* out, int n,            \
                                             MPI_Datatype type, MPI_Comm comm) {          \
    CHECK(MPI_Allreduce(in, out, n, type, MPI_SUM, comm) == MPI_SUCCESS, #name " failed"); \
  }
SITE(reduce_anywhere)
SITE(halo_update)
SITE(ghost_update)
SITE(dot_products)
#undef SITE

// The other reductions' sites, for the checking mode's certificates: a
// Reduce to rank 0 and a Reduce_scatter_block of the same field.
static __attribute__((noinline)) void halo_reduce(const double* in, double* out, int n) {
  CHECK(MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
        "halo_reduce failed");
}
static __attribute__((noinline)) void halo_scatter(const double* in, double* out, int n) {
  CHECK(MPI_Reduce_scatter_block(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        "halo_scatter failed");
}

namespace {

std::vector<double> field(size_t n, int salt) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::round(64 * (200 * std::sin(1e-4 * i + salt) + 0.3 * std::sin(0.7 * i))) / 64;
  return v;
}

// The last allreduce_lossy's largest error and the bound in force (kRel of
// the exact result's range).
double g_last_error = 0, g_last_in_force = 0;

// An Allreduce SUM of `n` values of T on `comm`: true when it was coded
// lossy, and every element within kRel of the range (exact otherwise).
template <typename T>
bool allreduce_lossy(const char* what, MPI_Comm comm, MPI_Datatype type, size_t n,
                     Reduce reduce = reduce_anywhere) {
  std::vector<T> mine(n), sum(n);
  std::vector<double> exact(n, 0.0);
  for (int r = 0; r < g_size; ++r) {
    const std::vector<double> f = field(n, r);
    for (size_t i = 0; i < n; ++i) exact[i] += static_cast<T>(f[i]);
    if (r == g_rank)
      for (size_t i = 0; i < n; ++i) mine[i] = static_cast<T>(f[i]);
  }
  double lo = exact[0], hi = exact[0];
  for (double x : exact) lo = std::min(lo, x), hi = std::max(hi, x);
  const unsigned long long before = op_stats("allreduce").lossy_calls;
  reduce(mine.data(), sum.data(), static_cast<int>(n), type, comm);
  const bool lossy = op_stats("allreduce").lossy_calls > before;
  size_t bad = 0;
  g_last_error = 0;
  g_last_in_force = kRel * (hi - lo);
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(static_cast<double>(sum[i]) - static_cast<double>(static_cast<T>(exact[i])));
    bad += lossy ? err > kRel * (hi - lo) : err != 0;
    g_last_error = std::max(g_last_error, err);
  }
  CHECK(bad == 0, "%s: %zu elements off (%s)", what, bad, lossy ? "lossy" : "exact");
  return lossy;
}

constexpr size_t kBig = 1 << 19;  // 4 MB of doubles: past T2 (1 MB)

bool doubles(const char* what, MPI_Comm comm = MPI_COMM_WORLD, size_t n = kBig) {
  return allreduce_lossy<double>(what, comm, MPI_DOUBLE, n);
}

// The same call of 4 MB of doubles on MPI_COMM_WORLD from call site `site`.
bool doubles_from(const char* what, Reduce site) {
  return allreduce_lossy<double>(what, MPI_COMM_WORLD, MPI_DOUBLE, kBig, site);
}

// An Alltoall of 256 KB of doubles a peer: whether it was coded lossy.
bool alltoall_lossy(MPI_Comm comm) {
  const size_t block = 1 << 15;
  std::vector<double> out = field(block * g_size, g_rank), in(out.size());
  const unsigned long long before = op_stats("alltoall").lossy_calls;
  MPI_Alltoall(out.data(), static_cast<int>(block), MPI_DOUBLE, in.data(), static_cast<int>(block),
               MPI_DOUBLE, comm);
  int mine = op_stats("alltoall").lossy_calls > before, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return any;
}

MPI_Comm named(const char* name) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_name(c, name);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  start_test(&argc, &argv, &g_rank, &g_size);
  const std::string selector = argc > 1 ? argv[1] : "";
  if (selector == "op") {  // lossy rel=1e-4 op=alltoall
    CHECK(alltoall_lossy(MPI_COMM_WORLD), "op=alltoall: the Alltoall stayed exact");
    CHECK(!doubles("op, allreduce"), "op=alltoall: an Allreduce went lossy");
  } else if (selector == "size") {  // lossy rel=1e-4 size=2M..
    CHECK(doubles("size 4M"), "size=2M..: a 4 MB Allreduce stayed exact");
    CHECK(!doubles("size 1.5M", MPI_COMM_WORLD, 3 << 16), "size=2M..: a 1.5 MB one went lossy");
  } else if (selector == "type") {  // lossy rel=1e-4 type=float
    CHECK(allreduce_lossy<float>("type float", MPI_COMM_WORLD, MPI_FLOAT, kBig),
          "type=float: floats stayed exact");
    CHECK(!doubles("type double"), "type=float: doubles went lossy");
  } else if (selector == "comm") {  // lossy rel=1e-4 comm=halo*
    MPI_Comm halo = named("halo_x"), dots = named("dots");
    CHECK(doubles("comm halo_x", halo), "comm=halo*: halo_x stayed exact");
    CHECK(!doubles("comm dots", dots), "comm=halo*: dots went lossy");
    CHECK(!doubles("comm world"), "comm=halo*: an unnamed-matching communicator went lossy");
    MPI_Comm_free(&halo);
    MPI_Comm_free(&dots);
  } else if (selector == "after") {  // lossy rel=1e-4 op=allreduce after=3
    for (int call = 0; call < 6; ++call)
      CHECK(doubles("after") == (call >= 3), "after=3: call %d %s", call,
            call >= 3 ? "stayed exact" : "went lossy");
  } else if (selector == "pcontrol") {  // lossy rel=1e-4 pcontrol=2
    CHECK(!doubles("before pcontrol"), "pcontrol=2: lossy before MPI_Pcontrol(2)");
    MPI_Pcontrol(2);
    CHECK(doubles("in pcontrol 2"), "pcontrol=2: exact inside MPI_Pcontrol(2)");
    MPI_Pcontrol(1);
    CHECK(!doubles("after pcontrol"), "pcontrol=2: lossy after MPI_Pcontrol(1)");
  } else if (selector == "first") {  // exact comm=dots; lossy rel=1e-4 (and a job-wide bound)
    MPI_Comm dots = named("dots"), halo = named("halo");
    CHECK(!doubles("first: dots", dots), "the first rule (exact comm=dots) did not win");
    CHECK(doubles("first: halo", halo), "the second rule did not apply");
    // A communicator's hint wins over the rules.
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "adacomp_rel_error_bound", "1e-4");
    CHECK(MPI_Comm_set_info(dots, info) == MPI_SUCCESS, "set_info failed");
    MPI_Info_free(&info);
    CHECK(doubles("first: hinted dots", dots), "a hint did not win over the rules");
    MPI_Comm_free(&dots);
    MPI_Comm_free(&halo);
  } else if (selector == "site") {  // lossy rel=1e-4 site=halo_update
    CHECK(doubles_from("site halo_update", halo_update), "site=halo_update: it stayed exact");
    CHECK(!doubles_from("site dot_products", dot_products), "site=: dot_products went lossy");
    CHECK(doubles_from("site halo_update again", halo_update), "site=: the cached site changed");
    // One collective from different sites on the ranks: they agree on exact.
    CHECK(!doubles_from("site mixed", g_rank == 0 ? halo_update : dot_products),
          "site=: ranks at different sites went lossy");
  } else if (selector == "site_after") {  // lossy rel=1e-4 site=*_update after=2
    // Each site counts its own calls: both are exact twice, then lossy.
    for (int call = 0; call < 4; ++call) {
      CHECK(doubles_from("site_after halo", halo_update) == (call >= 2),
            "site after=2: halo_update call %d", call);
      CHECK(doubles_from("site_after ghost", ghost_update) == (call >= 2),
            "site after=2: ghost_update call %d", call);
      CHECK(!doubles_from("site_after dots", dot_products), "site after=2: dot_products lossy");
    }
  } else if (selector == "site_line") {  // exact site=dot_products; lossy rel=1e-4 site=lossy_rules.cpp:*
    CHECK(doubles_from("site_line halo", halo_update), "site=FILE:*: halo_update stayed exact");
    CHECK(!doubles_from("site_line dots", dot_products), "site=: the first rule (exact) lost");
  } else if (selector == "certificate") {  // lossy rel=1e-4 site=halo_update
    double proven = -1;
    CHECK(adacomp_last_bound(MPI_COMM_WORLD, &proven) == 0 && proven == 0,
          "no coded call yet: bound %g", proven);
    for (int call = 0; call < 3; ++call) {
      CHECK(doubles_from("certificate halo_update", halo_update), "halo_update stayed exact");
      CHECK(adacomp_last_bound(MPI_COMM_WORLD, &proven) == 0, "adacomp_last_bound failed");
      CHECK(proven > 0 && proven <= g_last_in_force,
            "proven bound %.6g not in (0, bound in force %.6g]", proven, g_last_in_force);
      CHECK(g_last_error <= proven, "measured error %.6g above the proven bound %.6g",
            g_last_error, proven);
      if (g_rank == 0 && call == 0)
        std::printf("certificate: error %.3e <= proven %.3e <= in force %.3e\n", g_last_error,
                    proven, g_last_in_force);
      CHECK(!doubles_from("certificate dot_products", dot_products), "dot_products went lossy");
      CHECK(adacomp_last_bound(MPI_COMM_WORLD, &proven) == 0 && proven == 0,
            "after an exact call: bound %g", proven);
    }
    CHECK(allreduce_lossy<float>("certificate float", MPI_COMM_WORLD, MPI_FLOAT, kBig, halo_update),
          "floats from halo_update stayed exact");
    CHECK(adacomp_last_bound(MPI_COMM_WORLD, &proven) == 0 && proven > 0 &&
              proven <= g_last_in_force && g_last_error <= proven,
          "float: error %.6g, proven %.6g, in force %.6g", g_last_error, proven, g_last_in_force);
    // Lossy where the rule names them (site=halo_*): their certificates are
    // the report's to check (tests/lossy_certificate_check.sh).
    const std::vector<double> in = field(kBig, g_rank);
    std::vector<double> out(kBig);
    halo_reduce(in.data(), out.data(), static_cast<int>(kBig));
    halo_scatter(in.data(), out.data(), static_cast<int>(kBig / g_size));
  } else {
    CHECK(false, "usage: test_lossy_rules op|size|type|comm|after|pcontrol|first|site|site_after|"
                 "site_line|certificate");
  }
  return finish_test("lossy_rules");
}
