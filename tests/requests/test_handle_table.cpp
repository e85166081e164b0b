// The handle table of the request registry (requests/handle_table.h) against
// std::unordered_map: random inserts, replacements and removals over handles
// chosen to collide (few distinct values, so runs form and wrap around the
// table's end), as ints (MPICH's handles) and as pointers (Open MPI's),
// through growth. Every key is looked up after every step.
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "requests/handle_table.h"
#include "unit.h"

using namespace adacomp;

namespace {

template <typename Handle>
void against_map(const std::vector<Handle>& keys, unsigned seed, int steps) {
  HandleTable<Handle, int> table;
  std::unordered_map<Handle, int*> model;
  std::vector<int> values(steps);
  std::mt19937 rng(seed);
  for (int step = 0; step < steps; ++step) {
    const Handle h = keys[rng() % keys.size()];
    if (rng() % 3) {
      table.put(h, &values[step]);
      model[h] = &values[step];
    } else {
      auto it = model.find(h);
      EXPECT(table.take(h) == (it == model.end() ? nullptr : it->second));
      if (it != model.end()) model.erase(it);
    }
    EXPECT(table.size() == model.size());
    for (Handle k : keys) {
      auto it = model.find(k);
      EXPECT(table.find(k) == (it == model.end() ? nullptr : it->second));
    }
  }
  size_t visited = 0;
  table.each([&](Handle h, int* v) {
    ++visited;
    EXPECT(model.count(h) && model[h] == v);
  });
  EXPECT(visited == model.size());
}

}  // namespace

int main() {
  std::vector<int> ints;  // MPICH-like: sequential, with a common high part
  for (int i = 0; i < 150; ++i) ints.push_back(0x2c000000 | i);
  static char arena[200 * 64];  // Open MPI-like: aligned addresses
  std::vector<char*> pointers;
  for (int i = 0; i < 200; ++i) pointers.push_back(arena + 64 * i);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    against_map(ints, seed, 3000);
    against_map(pointers, seed, 3000);
    against_map(std::vector<int>(ints.begin(), ints.begin() + 40), seed, 2000);  // no growth
  }
  return unit::finish("handle_table");
}
