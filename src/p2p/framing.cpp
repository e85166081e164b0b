#include "p2p/framing.h"

#include <cstdint>


#include "wire/frame.h"

namespace adacomp {

int make_framing_type(const void* header, const void* buf, MPI_Count count, MPI_Datatype type,
                      MPI_Datatype* out) {
  constexpr MPI_Count kChunk = MPI_Count{1} << 30;  // elements per block at most
  MPI_Aint extent = 0, lb = 0;
  MPI_Count size = 0;
  int rc = PMPI_Type_get_extent(type, &lb, &extent);
  if (rc == MPI_SUCCESS) rc = PMPI_Type_size_x(type, &size);
  // No data (a type of size 0, perhaps at MPI_BOTTOM): the header alone, so
  // that MPI does not take the user's null address for a buffer.
  if (size == 0) count = 0;
  MPI_Datatype chunk = MPI_DATATYPE_NULL;
  if (rc == MPI_SUCCESS && count >= kChunk)
    rc = PMPI_Type_contiguous(static_cast<int>(kChunk), type, &chunk);
  if (rc != MPI_SUCCESS) return rc;
  // header, whole chunks, the rest; empty blocks left out.
  MPI_Aint disp[3];
  int bl[3] = {static_cast<int>(kFrameHeaderBytes), static_cast<int>(count / kChunk),
               static_cast<int>(count % kChunk)};
  MPI_Datatype types[3] = {MPI_BYTE, chunk, type};
  PMPI_Get_address(header, &disp[0]);
  PMPI_Get_address(buf, &disp[1]);
  disp[2] = disp[1] + static_cast<MPI_Aint>(count / kChunk * kChunk) * extent;
  int n = 0;
  for (int i = 0; i < 3; ++i)
    if (bl[i] > 0) bl[n] = bl[i], disp[n] = disp[i], types[n++] = types[i];
  *out = MPI_DATATYPE_NULL;
  rc = PMPI_Type_create_struct(n, bl, disp, types, out);
  if (chunk != MPI_DATATYPE_NULL) PMPI_Type_free(&chunk);
  if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(out);
  if (rc != MPI_SUCCESS && *out != MPI_DATATYPE_NULL) PMPI_Type_free(out);
  return rc;
}

namespace {

// Two-way set-associative: a new key replaces the set's less recently used
// type.
struct Cache {
  struct Slot {
    const void* header = nullptr;
    const void* buf = nullptr;
    MPI_Count count = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Datatype framed = MPI_DATATYPE_NULL;
    bool matches(const void* h, const void* b, MPI_Count c, MPI_Datatype t) const {
      return framed != MPI_DATATYPE_NULL && header == h && buf == b && count == c && type == t;
    }
  };
  static constexpr size_t kSets = 32;
  Slot slots[kSets][2];
  bool recent[kSets] = {};  // which way of a set was used last
  void clear() {
    for (auto& set : slots)
      for (Slot& s : set)
        if (s.framed != MPI_DATATYPE_NULL) PMPI_Type_free(&s.framed), s = Slot{};
  }
  ~Cache() {
    int finalized = 1;
    PMPI_Finalized(&finalized);
    if (!finalized) clear();
  }
};
thread_local Cache t_cache;

uint64_t mix(uint64_t h) {  // MurmurHash3's finalizer
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

}  // namespace

int cached_framing_type(const void* header, const void* buf, MPI_Count count,
                        MPI_Datatype type, MPI_Datatype* out) {
  const uint64_t key = reinterpret_cast<uintptr_t>(header) ^
                       mix(reinterpret_cast<uintptr_t>(buf)) ^ mix(static_cast<uint64_t>(count));
  const size_t set = mix(key) % Cache::kSets;
  Cache::Slot* ways = t_cache.slots[set];
  int way = ways[0].matches(header, buf, count, type) ? 0
            : ways[1].matches(header, buf, count, type) ? 1
                                                        : -1;
  if (way < 0) {
    way = t_cache.recent[set] ? 0 : 1;
    MPI_Datatype t;
    int rc = make_framing_type(header, buf, count, type, &t);
    if (rc != MPI_SUCCESS) return rc;
    if (ways[way].framed != MPI_DATATYPE_NULL) PMPI_Type_free(&ways[way].framed);
    ways[way] = {header, buf, count, type, t};
  }
  t_cache.recent[set] = way == 1;
  *out = ways[way].framed;
  return MPI_SUCCESS;
}

void clear_framing_types() { t_cache.clear(); }

}  // namespace adacomp
