// select_tiling (get_tiling_and_scores under config.triton.coalesce_tiling_analysis) weighs
// each loop variable by the bytes its loads and stores read contiguously along it
// (tiling_utils.analyze_memory_coalescing, coalesced_by_var); a variable other than the
// innermost winning makes a 2-D (y, x) tiling.

#include "pointwise_tiling.h"

#include <map>

namespace fxscope::fusion::detail {

std::int64_t pointwise_tiling(const std::vector<const std::vector<MemoryDep>*>& deps) {
  std::map<std::int64_t, std::int64_t> coalesced;  // digit place -> bytes
  for (const std::vector<MemoryDep>* list : deps) {
    for (const MemoryDep& d : *list) {
      if (d.opaque || d.split > 0) continue;
      for (const IndexTerm& t : d.terms) {
        if (t.mult == 1 && t.radix > 1) coalesced[t.place] += d.bytes;
      }
    }
  }
  std::int64_t best = 0;
  std::int64_t best_bytes = 0;
  for (const auto& [place, bytes] : coalesced) {
    if (bytes > best_bytes) {
      best = place;
      best_bytes = bytes;
    }
  }
  return best <= 1 ? 0 : best;
}

bool tiling_prevents_pointwise_fusion(const std::vector<MemoryDep>& reads1,
                                      const std::vector<MemoryDep>& writes1,
                                      const std::vector<MemoryDep>& reads2,
                                      const std::vector<MemoryDep>& writes2) {
  const std::int64_t t1 = pointwise_tiling({&reads1, &writes1});
  const std::int64_t t2 = pointwise_tiling({&reads2, &writes2});
  if (t1 == 0 && t2 == 0) return false;
  const std::int64_t t3 = pointwise_tiling({&reads1, &writes1, &reads2, &writes2});
  if (t1 != 0 && t2 != 0) return !(t1 == t2 && t2 == t3);
  return (t1 != 0 ? t1 : t2) != t3;
}

bool tiling_prevents_reduction_fusion(const std::vector<MemoryDep>& reads,
                                      const std::vector<MemoryDep>& writes, std::int64_t rnumel) {
  if (rnumel <= 1) return false;
  const std::int64_t t = pointwise_tiling({&reads, &writes});
  return t != 0 && t != rnumel;
}

}  // namespace fxscope::fusion::detail
