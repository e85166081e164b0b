// The generator: from a seed and an index, a derived datatype built from
// MPI's constructors, nested up to three deep, with what makes a layer get
// datatypes wrong: negative, zero and overlapping strides, unordered and
// decreasing displacements, holes, mixed basic types, negative lower bounds
// and enlarged extents. Every rank builds the same type from the same seed.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

#include "fuzz.h"

namespace fuzz {

uint64_t mix(uint64_t a, uint64_t b) { return Rng(a * 0x100000001b3ULL ^ b).next(); }

namespace {

struct Basic {
  MPI_Datatype type;
  const char* name;
};

const Basic kBasics[] = {{MPI_BYTE, "byte"},     {MPI_SHORT, "short"},   {MPI_INT, "int"},
                         {MPI_UNSIGNED, "unsigned"}, {MPI_FLOAT, "float"}, {MPI_DOUBLE, "double"},
                         {MPI_INT64_T, "int64"}, {MPI_UINT8_T, "uint8"}, {MPI_UNSIGNED_SHORT, "ushort"}};

// A type being built: its handle, its type signature as runs of one basic
// type (what a receiver of it must name), and how it was made.
struct Node {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::vector<std::pair<MPI_Datatype, long long>> signature;
  std::string desc;
};

constexpr size_t kMaxRuns = 64;               // a mixed signature's runs
constexpr MPI_Aint kMaxTrueExtent = 1 << 18;  // bytes one element spans
constexpr MPI_Count kMaxSize = 1 << 14;       // bytes of data per element

MPI_Count size_of(MPI_Datatype t) {
  MPI_Count s = 0;
  PMPI_Type_size_x(t, &s);
  return s;
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

void free_node(Node& n) {
  int combiner = MPI_COMBINER_NAMED, ni, na, nt;
  PMPI_Type_get_envelope(n.type, &ni, &na, &nt, &combiner);
  if (combiner != MPI_COMBINER_NAMED) PMPI_Type_free(&n.type);
}

// `inner`'s signature repeated `times`; false where it grows too long.
bool repeat(const Node& inner, long long times, Node* out) {
  for (long long k = 0; k < times; ++k)
    for (const auto& run : inner.signature) {
      if (!out->signature.empty() && out->signature.back().first == run.first) {
        if (inner.signature.size() == 1) {  // one run: all repeats at once
          out->signature.back().second += run.second * (times - k);
          return true;
        }
        out->signature.back().second += run.second;
      } else {
        if (out->signature.size() == kMaxRuns) return false;
        out->signature.push_back(run);
      }
    }
  return true;
}

std::string join(const std::vector<long long>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return "[" + s + "]";
}

class Generator {
 public:
  // Dense: no gaps, strides of exactly one block either way, no holes: the
  // types whose size, extent and true extent agree while their bytes may
  // still be listed out of address order.
  explicit Generator(uint64_t seed) : rng_(seed) { dense_ = rng_.chance(40); }

  // A type `depth` constructors deep at most; false where it came out too
  // large (the caller draws again).
  bool node(int depth, Node* out) {
    if (depth == 0 || rng_.chance(15)) {
      const Basic& b = kBasics[rng_.below(sizeof kBasics / sizeof kBasics[0])];
      *out = Node{b.type, {{b.type, 1}}, b.name};
      return true;
    }
    const int kind = rng_.below(12);
    if (kind == 7) return structure(depth, out);
    Node inner;
    if (!node(depth - 1, &inner)) return false;
    const bool ok = build(kind, inner, out);
    free_node(inner);
    return ok && checked(out);
  }

 private:
  // One of the constructors of one inner type.
  bool build(int kind, const Node& inner, Node* out) {
    const MPI_Datatype in = inner.type;
    const MPI_Aint ext = extent_of(in);
    std::string what;
    switch (kind) {
      case 0: {
        const int n = rng_.range(0, 4);
        PMPI_Type_contiguous(n, in, &out->type);
        what = "contiguous(" + std::to_string(n);
        break;
      }
      case 1:
      case 2: {  // vector, hvector: strides positive, negative, zero or overlapping
        const int count = rng_.range(1, 4), block = rng_.range(0, 3);
        const int pick = dense_ ? rng_.below(2) : rng_.below(4);
        const int gap = dense_ ? 0 : rng_.range(0, 3);
        long long stride = pick == 0   ? block + gap
                           : pick == 1 ? -(block + gap)
                           : pick == 2 ? 0
                                       : rng_.range(-block, block);
        if (kind == 1) {
          PMPI_Type_vector(count, block, static_cast<int>(stride), in, &out->type);
          what = "vector(" + std::to_string(count) + "," + std::to_string(block) + "," +
                 std::to_string(stride);
        } else {
          const MPI_Aint skew = !dense_ && rng_.chance(30) ? rng_.range(-3, 3) : 0;  // off the grid
          stride = stride * ext + skew;
          PMPI_Type_create_hvector(count, block, stride, in, &out->type);
          what = "hvector(" + std::to_string(count) + "," + std::to_string(block) + "," +
                 std::to_string(stride) + "B";
        }
        break;
      }
      case 3:
      case 4:
      case 5:
      case 6:
        what = indexed(kind, in, ext, &out->type);
        break;
      case 8:
        what = subarray(in, &out->type);
        break;
      case 9:
        what = darray(in, &out->type);
        break;
      case 10: {  // resized: negative lower bounds, enlarged (or shrunk) extents
        MPI_Aint tlb = 0, text = 0;
        PMPI_Type_get_true_extent(in, &tlb, &text);
        MPI_Aint below = rng_.range(0, 2) * std::max<MPI_Aint>(ext, 1) + rng_.range(0, 5);
        MPI_Aint extent = std::max<MPI_Aint>(1, text + rng_.range(-1, 16) + below);
        if (dense_) below = 0, extent = std::max<MPI_Aint>(1, text);  // the true bounds
        const MPI_Aint lb = tlb - below;
        PMPI_Type_create_resized(in, lb, extent, &out->type);
        what = "resized(lb " + std::to_string(lb) + ",extent " + std::to_string(extent);
        break;
      }
      default:
        PMPI_Type_dup(in, &out->type);
        what = "dup(";
        break;
    }
    out->desc = what + "," + inner.desc + ")";
    const MPI_Count inner_size = size_of(in);
    return inner_size == 0 || repeat(inner, size_of(out->type) / inner_size, out);
  }

  // indexed, hindexed, indexed_block, hindexed_block: displacements in
  // increasing, decreasing or shuffled order, sometimes overlapping.
  std::string indexed(int kind, MPI_Datatype in, MPI_Aint ext, MPI_Datatype* out) {
    const int count = rng_.range(1, 5);
    const bool block = kind >= 5, bytes = kind == 4 || kind == 6;
    std::vector<int> lens(static_cast<size_t>(count)), displs(lens.size());
    const int same = rng_.range(0, 3);
    int at = rng_.range(-4, 2);
    for (int i = 0; i < count; ++i) {
      lens[i] = block ? same : rng_.range(0, 3);
      displs[i] = at;
      at += lens[i] + (dense_ ? 0 : rng_.chance(20) ? -1 : rng_.range(0, 2));  // -1: overlap
    }
    const int order = rng_.below(3);
    if (order == 1) std::reverse(displs.begin(), displs.end());
    if (order == 2)
      for (int i = count - 1; i > 0; --i) std::swap(displs[i], displs[rng_.below(i + 1)]);
    std::vector<MPI_Aint> bdispls(displs.begin(), displs.end());
    for (MPI_Aint& d : bdispls) d *= ext;
    std::vector<long long> shown(displs.begin(), displs.end());
    if (kind == 3) PMPI_Type_indexed(count, lens.data(), displs.data(), in, out);
    if (kind == 4) PMPI_Type_create_hindexed(count, lens.data(), bdispls.data(), in, out);
    if (kind == 5) PMPI_Type_create_indexed_block(count, same, displs.data(), in, out);
    if (kind == 6) PMPI_Type_create_hindexed_block(count, same, bdispls.data(), in, out);
    if (bytes)
      for (size_t i = 0; i < shown.size(); ++i) shown[i] = bdispls[i];
    const char* names[] = {"indexed", "hindexed", "indexed_block", "hindexed_block"};
    return std::string(names[kind - 3]) + "(lens " +
           join(std::vector<long long>(lens.begin(), lens.end())) + ",displs " + join(shown);
  }

  std::string subarray(MPI_Datatype in, MPI_Datatype* out) {
    const int ndims = rng_.range(1, 3);
    std::vector<int> sizes(ndims), subsizes(ndims), starts(ndims);
    for (int d = 0; d < ndims; ++d) {
      sizes[d] = rng_.range(1, 5);
      subsizes[d] = rng_.range(1, sizes[d]);
      starts[d] = rng_.range(0, sizes[d] - subsizes[d]);
    }
    const bool fortran = rng_.chance(50);
    PMPI_Type_create_subarray(ndims, sizes.data(), subsizes.data(), starts.data(),
                              fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, in, out);
    auto l = [](const std::vector<int>& v) { return join({v.begin(), v.end()}); };
    return std::string("subarray(") + (fortran ? "F" : "C") + l(sizes) + l(subsizes) + l(starts);
  }

  std::string darray(MPI_Datatype in, MPI_Datatype* out) {
    const int ndims = rng_.range(1, 2), procs = rng_.range(1, 4), rank = rng_.below(procs);
    std::vector<int> gsizes(ndims), distribs(ndims), dargs(ndims), psizes(ndims, 1);
    psizes[rng_.below(ndims)] = procs;  // the other dimension, if any, undivided
    for (int d = 0; d < ndims; ++d) {
      gsizes[d] = rng_.range(1, 6);
      const int pick = psizes[d] == 1 ? rng_.below(3) : rng_.below(2);
      distribs[d] = pick == 0 ? MPI_DISTRIBUTE_BLOCK
                    : pick == 1 ? MPI_DISTRIBUTE_CYCLIC
                                : MPI_DISTRIBUTE_NONE;
      dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
      if (distribs[d] == MPI_DISTRIBUTE_CYCLIC && rng_.chance(50)) dargs[d] = rng_.range(1, 2);
    }
    const bool fortran = rng_.chance(50);
    PMPI_Type_create_darray(procs, rank, ndims, gsizes.data(), distribs.data(), dargs.data(),
                            psizes.data(), fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, in, out);
    auto l = [](const std::vector<int>& v) { return join({v.begin(), v.end()}); };
    return "darray(" + std::to_string(rank) + "/" + std::to_string(procs) + (fortran ? "F" : "C") +
           l(gsizes) + l(distribs) + l(dargs);
  }

  // A struct of mixed fields with holes, laid out in memory in an order
  // other than the one it lists them in (decreasing or shuffled) at times.
  bool structure(int depth, Node* out) {
    const int count = rng_.range(1, 4);
    std::vector<Node> fields;
    std::vector<int> lens(static_cast<size_t>(count));
    std::vector<MPI_Aint> displs(lens.size());
    std::vector<MPI_Datatype> types(lens.size());
    bool ok = true;
    for (int i = 0; i < count && ok; ++i) {
      fields.emplace_back();
      ok = node(rng_.chance(60) ? 0 : depth - 1, &fields.back());
      if (!ok) fields.pop_back();
      lens[i] = rng_.range(0, 3);
    }
    std::vector<int> order(static_cast<size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    const int shuffle = rng_.below(3);
    if (shuffle == 1) std::reverse(order.begin(), order.end());
    if (shuffle == 2)
      for (int i = count - 1; i > 0; --i) std::swap(order[i], order[rng_.below(i + 1)]);
    MPI_Aint at = rng_.range(-16, 8);
    for (int k = 0; k < count && ok; ++k) {
      const int i = order[k];
      MPI_Aint tlb = 0, text = 0;
      PMPI_Type_get_true_extent(fields[i].type, &tlb, &text);
      types[i] = fields[i].type;
      displs[i] = at - tlb;
      if (lens[i] > 0) at += (lens[i] - 1) * extent_of(fields[i].type) + text;
      if (!dense_) at += rng_.range(0, 9);  // a hole
    }
    if (ok) {
      PMPI_Type_create_struct(count, lens.data(), displs.data(), types.data(), &out->type);
      out->desc = "struct{";
      for (int i = 0; i < count && ok; ++i) {
        out->desc += (i ? "; " : "") + std::to_string(lens[i]) + "x" + fields[i].desc + "@" +
                     std::to_string(displs[i]);
        ok = repeat(fields[i], lens[i], out);
      }
      out->desc += "}";
      if (!ok) free_node(*out);
    }
    for (Node& f : fields) free_node(f);
    return ok && checked(out);
  }

  bool checked(Node* n) {
    MPI_Aint tlb = 0, text = 0;
    PMPI_Type_get_true_extent(n->type, &tlb, &text);
    if (size_of(n->type) <= kMaxSize && text <= kMaxTrueExtent && extent_of(n->type) > 0)
      return true;
    free_node(*n);
    return false;
  }

  Rng rng_;
  bool dense_ = false;
};

// The dense type of `signature`'s runs, in order.
MPI_Datatype flat_of(const Node& n) {
  std::vector<int> lens;
  std::vector<MPI_Aint> displs;
  std::vector<MPI_Datatype> types;
  MPI_Aint at = 0;
  for (const auto& run : n.signature) {
    lens.push_back(static_cast<int>(run.second));
    displs.push_back(at);
    types.push_back(run.first);
    at += run.second * extent_of(run.first);
  }
  MPI_Datatype flat, sized;
  PMPI_Type_create_struct(static_cast<int>(lens.size()), lens.data(), displs.data(), types.data(),
                          &flat);
  PMPI_Type_create_resized(flat, 0, std::max<MPI_Aint>(at, 1), &sized);  // no alignment padding
  PMPI_Type_free(&flat);
  PMPI_Type_commit(&sized);
  return sized;
}

}  // namespace

GenType generate(uint64_t seed, int index) {
  GenType g;
  // Every seventh type is predefined, with many elements: the case the
  // coded and lossy paths take.
  if (index % 7 == 3) {
    const MPI_Datatype kinds[] = {MPI_DOUBLE, MPI_FLOAT, MPI_INT};
    g.type = kinds[(index / 7) % 3];
    g.basic = g.type;
    g.predefined = true;
    g.lossy_allowed = g.type != MPI_INT;
    PMPI_Type_contiguous(1, g.type, &g.flat);
    PMPI_Type_commit(&g.flat);
    g.desc = g.type == MPI_DOUBLE ? "double" : g.type == MPI_FLOAT ? "float" : "int";
    return g;
  }
  Rng draws(mix(seed, static_cast<uint64_t>(index)));
  for (;;) {
    Generator gen(draws.next());
    Node n;
    if (!gen.node(3, &n)) continue;
    int combiner = MPI_COMBINER_NAMED, ni, na, nt;
    PMPI_Type_get_envelope(n.type, &ni, &na, &nt, &combiner);
    if (combiner == MPI_COMBINER_NAMED) continue;  // derived types only here
    PMPI_Type_commit(&n.type);
    g.type = n.type;
    g.desc = n.desc;
    g.flat = flat_of(n);
    if (n.signature.size() == 1) g.basic = n.signature[0].first;
    return g;
  }
}

void release(GenType& t) {
  PMPI_Type_free(&t.flat);
  if (!t.predefined) PMPI_Type_free(&t.type);
}

}  // namespace fuzz
