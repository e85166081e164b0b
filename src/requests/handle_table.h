// A map from MPI handles (an int in MPICH, a pointer in Open MPI) to
// pointers, with no allocation per entry: open addressing, linear probing,
// deletion by backward shift. The library keeps such maps on the hot path of
// point-to-point (the registry of requests): std::unordered_map allocated
// and freed a node per request, about 150 of the 700 instructions the
// library added to a registered 512-byte receive in MPICH (callgrind).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace adacomp {

template <typename Handle>
uintptr_t handle_bits(Handle h) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<uintptr_t>(h);
  else
    return static_cast<uintptr_t>(h);
}

template <typename Handle, typename Value>
class HandleTable {
 public:
  // nullptr: absent (a null value cannot be stored).
  Value* find(Handle h) const {
    for (size_t i = home(h);; i = next(i)) {
      if (!slots_[i].value || slots_[i].handle == h) return slots_[i].value;
    }
  }
  // Inserts or replaces; `value` is not null.
  void put(Handle h, Value* value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    size_t i = home(h);
    while (slots_[i].value && slots_[i].handle != h) i = next(i);
    if (!slots_[i].value) ++size_;
    slots_[i] = {h, value};
  }
  // Removes h's entry and returns its value; nullptr if absent.
  Value* take(Handle h) {
    size_t hole = home(h);
    while (slots_[hole].value && slots_[hole].handle != h) hole = next(hole);
    Value* const found = slots_[hole].value;
    if (!found) return nullptr;
    // Close the gap: an entry further along the run moves back into the
    // hole unless its home lies cyclically in (hole, its slot].
    for (size_t j = next(hole); slots_[j].value; j = next(j)) {
      const size_t k = home(slots_[j].handle);
      const bool stays = hole < j ? (hole < k && k <= j) : (hole < k || k <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = {};
    --size_;
    return found;
  }
  size_t size() const { return size_; }
  template <class F>
  void each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.value) f(s.handle, s.value);
  }

 private:
  struct Slot {
    Handle handle{};
    Value* value = nullptr;
  };
  size_t next(size_t i) const { return (i + 1) & (slots_.size() - 1); }
  size_t home(Handle h) const {
    // Fibonacci hashing: handles are sequential ints or aligned pointers.
    return static_cast<size_t>((handle_bits(h) * 0x9E3779B97F4A7C15ull) >> 32) &
           (slots_.size() - 1);
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
      if (s.value) put(s.handle, s.value);
  }
  std::vector<Slot> slots_ = std::vector<Slot>(64);  // a power of two
  size_t size_ = 0;
};

}  // namespace adacomp
