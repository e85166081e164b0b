// The differential datatype test (test_datatype_fuzz): generated derived
// datatypes, each sent through every payload-carrying call twice, once
// through MPI_* (the library) and once through PMPI_* (plain MPI, which the
// library does not intercept), into separate guarded buffers that must end
// byte for byte alike.
//   types.cpp    the generator: a seed -> a derived datatype
//   region.cpp   guarded buffers and their comparison
//   p2p.cpp, collectives.cpp, exchange.cpp, reductions.cpp   the call families
//   driver.cpp   the loop, the oracle comparison, the summary
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "api.h"

namespace fuzz {

// splitmix64: the same numbers on every rank, MPI and compiler.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<uint64_t>(n)); }
  int range(int lo, int hi) { return lo + below(hi - lo + 1); }  // inclusive
  bool chance(int percent) { return below(100) < percent; }

 private:
  uint64_t state_;
};

uint64_t mix(uint64_t a, uint64_t b);

// One generated datatype and the dense one of the same type signature
// (what a receiver names to take its message as basic elements).
struct GenType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Datatype flat = MPI_DATATYPE_NULL;
  // Its one basic datatype, or MPI_DATATYPE_NULL where it mixes several.
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  std::string desc;
  bool predefined = false;
  // A predefined float or double: the lossy tier may code it.
  bool lossy_allowed = false;
};

// The type of index `index` under `seed`; the same on every rank.
GenType generate(uint64_t seed, int index);
void release(GenType& t);

// Whether `count` elements of `type` list some byte twice (a receive type
// must not, MPI 3.1 section 3.2.2).
bool overlaps(int count, MPI_Datatype type);

// A buffer for a call, with guard bytes before and after the bytes its
// type map may touch; filled with bytes from a seed.
struct Region {
  std::vector<unsigned char> mem;
  MPI_Aint origin = 0;  // where the buffer address points into mem
  MPI_Aint lo = 0, hi = 0;  // bytes the call may touch: [origin + lo, origin + hi)
  MPI_Datatype lossy_type = MPI_DATATYPE_NULL;  // MPI_FLOAT/MPI_DOUBLE: compared within the bound
  // Only the guard bytes compared: what lands inside is not defined (a
  // truncated message).
  bool guards_only = false;
  void* at() { return mem.data() + origin; }
};

// What one case passes to a call family.
struct Case {
  const GenType* gen = nullptr;
  MPI_Datatype stype = MPI_DATATYPE_NULL;  // the sending side's type
  MPI_Datatype rtype = MPI_DATATYPE_NULL;  // the receiving side's (no overlaps)
  int count = 1;
  // A type of one basic type and the op reductions use with it; NULL where
  // reductions skip this type.
  MPI_Datatype reduce_type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm errors_return = MPI_COMM_NULL;  // the same group, errors returned
  int rank = 0, size = 1;
  uint64_t seed = 0;
};

// The buffers and facts (status counts) of one run of a call family; the
// library's run and plain MPI's must agree.
class Outcome {
 public:
  explicit Outcome(const Case& c) : case_(c) {}
  // A region for `count` elements of `type` at each of `displs` (in bytes
  // from the buffer address); its bytes come from the case's seed and the
  // region's number, the same in both runs.
  void* region(MPI_Datatype type, MPI_Aint count, const std::vector<MPI_Aint>& displs = {0});
  // A region for blocks of several types (MPI_Alltoallw).
  struct Block {
    MPI_Datatype type;
    MPI_Aint count, displ;
  };
  void* region(const std::vector<Block>& blocks);
  // Status facts of a receive of `type`: MPI_Get_count and MPI_Get_elements.
  void status(const MPI_Status& s, MPI_Datatype type);
  void fact(long long v) { facts_.push_back(v); }
  // The error class of return code `rc`.
  void error(int rc);
  std::vector<Region>& regions() { return regions_; }
  const std::vector<long long>& facts() const { return facts_; }

 private:
  const Case& case_;
  std::vector<Region> regions_;
  std::vector<long long> facts_;
};

// A call family: runs its call(s) through `api` on every rank of the case.
struct Family {
  const char* name;
  void (*run)(const Api& api, const Case& c, Outcome& out);
  bool reduction;  // needs c.reduce_type
};

void add_p2p_families(std::vector<Family>& f);
void add_collective_families(std::vector<Family>& f);
void add_exchange_families(std::vector<Family>& f);
void add_reduction_families(std::vector<Family>& f);

// Compares the library's run with plain MPI's; prints each difference.
struct Comparison {
  int differences = 0;   // regions or facts that differ
  int within_bound = 0;  // float regions that differ within the lossy bound
};
Comparison compare(Outcome& lib, Outcome& plain, double rel_bound, const std::string& where);

}  // namespace fuzz
