// Guarded buffers, the two API tables, and the comparison of the
// library's run with plain MPI's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "fuzz.h"

namespace fuzz {

const Api& library_api() {
#define FUZZ_LIBRARY(name) &MPI_##name,
  static const Api api{true, FUZZ_CALLS(FUZZ_LIBRARY)};
#undef FUZZ_LIBRARY
  return api;
}

const Api& plain_api() {
#define FUZZ_PLAIN(name) &PMPI_##name,
  static const Api api{false, FUZZ_CALLS(FUZZ_PLAIN)};
#undef FUZZ_PLAIN
  return api;
}

namespace {

constexpr MPI_Aint kGuard = 64;  // bytes before and after what a call may touch

// The bytes `count` elements of `type` at displacement `d` may touch.
void span(MPI_Datatype type, MPI_Aint count, MPI_Aint d, MPI_Aint* lo, MPI_Aint* hi) {
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  if (count <= 0 || size == 0) return;  // an empty type's true bounds mean nothing
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  const MPI_Aint first = d + tlb, last = d + (count - 1) * ext + tlb;
  *lo = std::min({*lo, first, last});
  *hi = std::max({*hi, first + text, last + text});
}

// Smooth values a lossy coder compresses, integers so that sums are exact
// in any order, and a NaN and an infinity, which must pass exactly.
template <class T>
void fill_values(Region& r, uint64_t seed) {
  const size_t n = static_cast<size_t>(r.hi - r.lo) / sizeof(T);
  const double phase = static_cast<double>(seed % 1000);
  for (size_t i = 0; i < n; ++i) {
    T v = static_cast<T>(std::round(1000 * std::sin(0.01 * static_cast<double>(i) + phase)));
    if (i == n / 3) v = static_cast<T>(NAN);
    if (i == n / 2) v = static_cast<T>(INFINITY);
    std::memcpy(r.mem.data() + r.origin + r.lo + i * sizeof(T), &v, sizeof v);
  }
}

}  // namespace

void* Outcome::region(MPI_Datatype type, MPI_Aint count, const std::vector<MPI_Aint>& displs) {
  std::vector<Block> blocks;
  for (MPI_Aint d : displs) blocks.push_back({type, count, d});
  return region(blocks);
}

void* Outcome::region(const std::vector<Block>& blocks) {
  Region r;
  r.lo = std::numeric_limits<MPI_Aint>::max();
  r.hi = std::numeric_limits<MPI_Aint>::min();
  for (const Block& b : blocks) span(b.type, b.count, b.displ, &r.lo, &r.hi);
  if (r.lo > r.hi) r.lo = r.hi = 0;  // no byte at all
  r.origin = kGuard - r.lo;
  r.mem.resize(static_cast<size_t>(r.hi - r.lo + 2 * kGuard));
  Rng bytes(mix(case_.seed, regions_.size() * 1000 + static_cast<uint64_t>(case_.rank)));
  for (size_t i = 0; i < r.mem.size(); i += 8) {
    const uint64_t v = bytes.next();
    std::memcpy(r.mem.data() + i, &v, std::min<size_t>(8, r.mem.size() - i));
  }
  const MPI_Datatype type = blocks.empty() ? MPI_DATATYPE_NULL : blocks[0].type;
  if (case_.gen->lossy_allowed && (type == MPI_DOUBLE || type == MPI_FLOAT)) {
    r.lossy_type = type;
    if (type == MPI_DOUBLE) fill_values<double>(r, case_.seed + regions_.size());
    if (type == MPI_FLOAT) fill_values<float>(r, case_.seed + regions_.size());
  }
  regions_.push_back(std::move(r));
  return regions_.back().at();
}

void Outcome::status(const MPI_Status& s, MPI_Datatype type) {
  int count = 0, elements = 0;
  PMPI_Get_count(&s, type, &count);
  facts_.push_back(count);
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
  // MPICH 4.0's MPI_Get_elements fails an assertion on some types holding
  // a darray.
  if (case_.gen->desc.find("darray") != std::string::npos) return;
#endif
  PMPI_Get_elements(&s, type, &elements);
  facts_.push_back(elements);
}

bool overlaps(int count, MPI_Datatype type) {
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  const MPI_Count bytes = size * count;
  if (bytes == 0) return false;
  MPI_Aint lo = std::numeric_limits<MPI_Aint>::max(), hi = std::numeric_limits<MPI_Aint>::min();
  span(type, count, 0, &lo, &hi);
  // Each byte of the buffer holds a digit of its own offset; packing it
  // lists, byte for byte, the offsets of the type map, in three passes.
  std::vector<unsigned char> buf(static_cast<size_t>(hi - lo));
  int packed_size = 0;
  PMPI_Pack_size(count, type, MPI_COMM_SELF, &packed_size);
  std::vector<unsigned char> packed(static_cast<size_t>(packed_size));
  std::vector<MPI_Aint> offset(static_cast<size_t>(bytes), 0);
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t o = 0; o < buf.size(); ++o) buf[o] = static_cast<unsigned char>(o >> (8 * pass));
    int position = 0;
    PMPI_Pack(buf.data() - lo, count, type, packed.data(), packed_size, &position, MPI_COMM_SELF);
    if (position != bytes) return true;  // cannot tell: take it as overlapping
    for (size_t i = 0; i < offset.size(); ++i)
      offset[i] |= static_cast<MPI_Aint>(packed[i]) << (8 * pass);
  }
  std::vector<bool> seen(buf.size(), false);
  for (MPI_Aint o : offset) {
    if (seen[static_cast<size_t>(o)]) return true;
    seen[static_cast<size_t>(o)] = true;
  }
  return false;
}

namespace {

// Within the relative bound of the values' range; NaN and infinities
// exact, and the guard bytes untouched.
template <class T>
bool within(const Region& lib, const Region& plain, double rel_bound) {
  const size_t begin = static_cast<size_t>(lib.origin + lib.lo);
  const size_t n = static_cast<size_t>(lib.hi - lib.lo) / sizeof(T), end = begin + n * sizeof(T);
  if (!std::equal(lib.mem.begin(), lib.mem.begin() + begin, plain.mem.begin()) ||
      !std::equal(lib.mem.begin() + end, lib.mem.end(), plain.mem.begin() + end))
    return false;
  auto at = [&](const Region& r, size_t i) {
    T v;
    std::memcpy(&v, r.mem.data() + begin + i * sizeof(T), sizeof v);
    return static_cast<double>(v);
  };
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(at(plain, i))) lo = std::min(lo, at(plain, i)), hi = std::max(hi, at(plain, i));
  const double tolerance = rel_bound * (hi - lo) * 4;  // summed over a few ranks' ranges
  for (size_t i = 0; i < n; ++i) {
    const double a = at(lib, i), b = at(plain, i);
    if (std::isnan(a) != std::isnan(b) || (std::isinf(b) && a != b)) return false;
    if (std::isfinite(b) && !(std::fabs(a - b) <= tolerance)) return false;
  }
  return true;
}

}  // namespace

void Outcome::error(int rc) {
  int error_class = rc;
  if (rc != MPI_SUCCESS) PMPI_Error_class(rc, &error_class);
  facts_.push_back(error_class);
}

Comparison compare(Outcome& lib, Outcome& plain, double rel_bound, const std::string& where) {
  Comparison result;
  int& differences = result.differences;
  if (lib.facts() != plain.facts()) {
    ++differences;
    std::string shown;
    for (size_t i = 0; i < lib.facts().size() && i < plain.facts().size(); ++i)
      shown += " " + std::to_string(lib.facts()[i]) + "/" + std::to_string(plain.facts()[i]);
    std::fprintf(stderr, "DIFF %s: status facts (library/plain):%s\n", where.c_str(),
                 shown.c_str());
  }
  for (size_t k = 0; k < lib.regions().size(); ++k) {
    Region& a = lib.regions()[k];
    const Region& b = plain.regions()[k];
    if (a.mem == b.mem) continue;
    const size_t begin = static_cast<size_t>(a.origin + a.lo), end = begin + (a.hi - a.lo);
    if (a.guards_only && std::equal(a.mem.begin(), a.mem.begin() + begin, b.mem.begin()) &&
        std::equal(a.mem.begin() + end, a.mem.end(), b.mem.begin() + end))
      continue;
    if (rel_bound > 0 && ((a.lossy_type == MPI_DOUBLE && within<double>(a, b, rel_bound)) ||
                          (a.lossy_type == MPI_FLOAT && within<float>(a, b, rel_bound)))) {
      ++result.within_bound;
      continue;
    }
    ++differences;
    size_t first = 0, wrong = 0;
    for (size_t i = a.mem.size(); i-- > 0;)
      if (a.mem[i] != b.mem[i]) first = i, ++wrong;
    const MPI_Aint offset = static_cast<MPI_Aint>(first) - a.origin;
    const bool outside = offset < a.lo || offset >= a.hi;
    std::fprintf(stderr, "DIFF %s: buffer %zu: %zu bytes differ, the first at offset %ld%s\n",
                 where.c_str(), k, wrong, static_cast<long>(offset),
                 outside ? " (a guard byte: written outside the type map)" : "");
  }
  return result;
}

}  // namespace fuzz
