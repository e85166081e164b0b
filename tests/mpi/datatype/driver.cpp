// test_datatype_fuzz: the differential datatype test (fuzz.h).
//   test_datatype_fuzz [--seed S] [--types N] [--first K] [--family TEXT] [--trace]
//                      [--plain-twice]
// runs the types K .. K+N-1 of seed S through every call family (or those
// whose name contains TEXT), each through the library and through plain
// MPI, and prints every difference with the line that replays it. With
// ADACOMP_REL_ERROR_BOUND set, predefined float and double buffers may
// differ within the bound; everything else must match byte for byte.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz.h"

namespace fuzz {
namespace {

struct Options {
  uint64_t seed = 50;
  int types = 200, first = 0;
  const char* family = nullptr;
  bool trace = false;  // names each call before it runs (to find a crash)
  bool plain_twice = false;  // plain MPI against itself: checks the test
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trace")) {
      o.trace = true;
      --i;
    } else if (!std::strcmp(argv[i], "--plain-twice")) {
      o.plain_twice = true;
      --i;
    } else if (i + 1 == argc) {
      std::fprintf(stderr, "test_datatype_fuzz: %s needs a value\n", argv[i]);
      std::exit(2);
    } else if (!std::strcmp(argv[i], "--seed")) o.seed = std::strtoull(argv[i + 1], nullptr, 0);
    else if (!std::strcmp(argv[i], "--types")) o.types = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--first")) o.first = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--family")) o.family = argv[i + 1];
    else {
      std::fprintf(stderr, "test_datatype_fuzz: unknown option %s\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

// The reduction a type of one basic type takes: sums of unsigned and
// floating (integer-valued, see region.cpp) elements, bitwise or of
// signed ones, none for floating derived types (their random bytes hold
// NaNs, whose sums depend on the order).
MPI_Op op_for(const GenType& g) {
  const MPI_Datatype b = g.basic;
  if (b == MPI_UNSIGNED || b == MPI_UINT8_T || b == MPI_UNSIGNED_SHORT) return MPI_SUM;
  if (b == MPI_INT || b == MPI_SHORT || b == MPI_INT64_T || b == MPI_BYTE) return MPI_BXOR;
  if (g.predefined) return MPI_SUM;
  return MPI_OP_NULL;
}

// Whether this MPI takes `op` on `type`: MPICH reduces any type of one
// predefined type, Open MPI 4.1 only some. MPI_Reduce_local asks it.
bool reducible(MPI_Datatype type, MPI_Op op) {
  MPI_Aint tlb, text;
  PMPI_Type_get_true_extent(type, &tlb, &text);
  std::vector<unsigned char> in(static_cast<size_t>(text) + 1), inout(in.size());
  MPI_Errhandler fatal;
  PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &fatal);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = PMPI_Reduce_local(in.data() - tlb, inout.data() - tlb, 1, type, op);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, fatal);
  PMPI_Errhandler_free(&fatal);
  return rc == MPI_SUCCESS;
}

// Bytes of the large derived-type messages. MPICH 4.0's own point-to-point
// fails some above 8 KB (Bsend, Sendrecv_replace truncate, Issend dies, on
// a struct of a uint8 and two unaligned ints): no oracle there.
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
constexpr MPI_Count kLargeDerived = 8 << 10;
#else
constexpr MPI_Count kLargeDerived = 32 << 10;
#endif

// The case of type `index`: its count (a few elements, or a message of
// tens to hundreds of kilobytes for every predefined and every eighth
// derived type), and which side names the type and which its dense twin.
Case case_for(const GenType& g, const Options& o, int index, MPI_Comm comm,
              MPI_Comm errors_return) {
  Case c;
  c.gen = &g;
  c.comm = comm;
  c.errors_return = errors_return;
  PMPI_Comm_rank(comm, &c.rank);
  PMPI_Comm_size(comm, &c.size);
  Rng rng(mix(o.seed, static_cast<uint64_t>(index) + 0x5eed));
  MPI_Count size = 0;
  PMPI_Type_size_x(g.type, &size);
  c.count = rng.range(1, 3);
  if (g.predefined) c.count = rng.range(2048, 32768);
  else if (rng.chance(12) && size > 0) c.count = static_cast<int>(std::max<MPI_Count>(1, kLargeDerived / size));
  const bool receivable = !overlaps((c.count + 2) * c.size, g.type);
  const int variant = g.predefined ? 0 : rng.below(3);
  c.stype = variant == 2 ? g.flat : g.type;
  c.rtype = variant == 1 || !receivable ? g.flat : g.type;
  c.op = op_for(g);
  if (c.op != MPI_OP_NULL) c.reduce_type = receivable ? g.type : g.flat;
  if (c.op != MPI_OP_NULL && !reducible(c.reduce_type, c.op)) c.reduce_type = g.flat;
  if (c.op != MPI_OP_NULL && !reducible(c.reduce_type, c.op)) c.reduce_type = MPI_DATATYPE_NULL;
  return c;
}

double rel_bound() {
  const char* mode = std::getenv("ADACOMP_MODE");
  const char* bound = std::getenv("ADACOMP_REL_ERROR_BOUND");
  return mode && !std::strcmp(mode, "lossy") && bound ? std::atof(bound) : 0.0;
}

}  // namespace
}  // namespace fuzz

int main(int argc, char** argv) {
  using namespace fuzz;
  MPI_Init(&argc, &argv);
  const Options o = parse(argc, argv);
  MPI_Comm comm, errors_return;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &errors_return);
  MPI_Comm_set_errhandler(errors_return, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) {
    std::fprintf(stderr, "test_datatype_fuzz needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  static std::vector<char> attached(64 << 20);  // Bsend's buffer
  MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size()));
  std::vector<Family> families;
  add_p2p_families(families);
  add_collective_families(families);
  add_exchange_families(families);
  add_reduction_families(families);
  const double bound = rel_bound();
  if (rank == 0)
    std::printf("datatype fuzz: seed %llu, types %d..%d, %zu call families, %d ranks%s\n",
                static_cast<unsigned long long>(o.seed), o.first, o.first + o.types - 1,
                families.size(), size, bound > 0 ? ", lossy bound checked" : "");
  const auto start = std::chrono::steady_clock::now();
  long long calls = 0, differences = 0, within_bound = 0;
  for (int index = o.first; index < o.first + o.types; ++index) {
    GenType g = generate(o.seed, index);
    const Case base = case_for(g, o, index, comm, errors_return);
    for (size_t k = 0; k < families.size(); ++k) {
      const Family& f = families[k];
      if (o.family && !std::strstr(f.name, o.family)) continue;
      if (f.reduction && base.reduce_type == MPI_DATATYPE_NULL) continue;
      Case c = base;
      c.seed = mix(o.seed, static_cast<uint64_t>(index) * 1000 + k);
      if (o.trace && rank == 0)
        std::fprintf(stderr, "type %d, %s: %.200s\n", index, f.name, g.desc.c_str());
      Outcome lib(c), plain(c);
      f.run(o.plain_twice ? plain_api() : library_api(), c, lib);
      PMPI_Barrier(comm);
      f.run(plain_api(), c, plain);
      PMPI_Barrier(comm);
      char where[512];
      std::snprintf(where, sizeof where,
                    "rank %d, %s, type %d (count %d%s%s): %.300s\n  replay: --seed %llu --first %d "
                    "--types 1 --family '%s'",
                    rank, f.name, index, c.count, c.stype == g.flat ? ", sent dense" : "",
                    c.rtype == g.flat ? ", received dense" : "", g.desc.c_str(),
                    static_cast<unsigned long long>(o.seed), index, f.name);
      const Comparison result = compare(lib, plain, bound, where);
      differences += result.differences;
      within_bound += result.within_bound;
      ++calls;
    }
    release(g);
  }
  long long totals[3] = {calls, differences, within_bound}, sums[3];
  PMPI_Allreduce(totals, sums, 3, MPI_LONG_LONG, MPI_SUM, comm);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rank == 0)
    std::printf("datatype fuzz: seed %llu: %d types, %lld calls per rank through %zu families, "
                "%lld differences, %lld float buffers within the lossy bound, %.1f s\n",
                static_cast<unsigned long long>(o.seed), o.types, calls, families.size(), sums[1],
                sums[2], seconds);
  void* detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  MPI_Comm_free(&comm);
  MPI_Comm_free(&errors_return);
  MPI_Finalize();
  return sums[1] == 0 ? 0 : 1;
}
