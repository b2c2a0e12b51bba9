// The dependency lists a kernel's loads make (memory_index.h): their keys and deduplication.
#include <utility>

#include "fxscope/fusion/memory_index.h"

namespace fxscope::fusion {

std::vector<std::int64_t> load_key(const ValueLoad& load) {
  std::vector<std::int64_t> key{static_cast<std::int64_t>(load.value)};
  for (const IndexExpr& e : load.coords) {
    key.push_back(e.opaque ? -1 : e.offset);
    key.push_back(static_cast<std::int64_t>(e.terms.size()));
    for (const IndexTerm& t : e.terms) key.insert(key.end(), {t.place, t.radix, t.mult});
  }
  return key;
}

MemoryDep opaque_dep(std::int64_t buffer) {
  MemoryDep d;
  d.buffer = buffer;
  d.opaque = true;
  return d;
}

void add_dep(std::vector<MemoryDep>& deps, MemoryDep dep) {
  for (const MemoryDep& d : deps) {
    if (d.same_as(dep) || (d.opaque && dep.opaque && d.buffer == dep.buffer)) return;
  }
  deps.push_back(std::move(dep));
}

}  // namespace fxscope::fusion
