// select_tiling (get_tiling_and_scores under config.triton.coalesce_tiling_analysis) weighs
// each loop variable by the bytes its loads and stores read contiguously along it
// (tiling_utils.analyze_memory_coalescing, coalesced_by_var); a variable other than the
// innermost winning makes a 2-D (y, x) tiling.

#include "pointwise_tiling.h"

#include <algorithm>
#include <map>
#include <set>

namespace fxscope::fusion::detail {

namespace {

// Where the kernel's loops are cut (Inductor merges two loops only where every load and store
// can merge them): the bounds of every canonical digit of DEPS.
std::set<std::int64_t> loop_cuts(const std::vector<const std::vector<MemoryDep>*>& deps) {
  std::set<std::int64_t> cuts;
  for (const std::vector<MemoryDep>* list : deps) {
    for (const MemoryDep& d : *list) {
      if (d.opaque) continue;
      for (const IndexTerm& t : d.terms) cuts.insert({t.place, t.place * t.radix});
    }
  }
  return cuts;
}

struct Coalesced {
  std::int64_t place = 0;  // 0: none
  bool symbolic = false;   // through a symbolic stride (MemoryDep.lone_mults)
};

// The loop find_coalesced_var picks for D: of the loops whose variable stands alone in the
// expanded index (a stride of 1, or a symbolic one with a constant term of 1), the outermost. A
// loop with a symbolic stride starts where the kernel's loops are cut (CUTS) inside one of D's
// digits, which may merge it with the loops inside.
Coalesced coalesced_loop(const MemoryDep& d, const std::set<std::int64_t>& cuts) {
  Coalesced c;
  for (const IndexTerm& t : d.terms) {
    if (t.radix <= 1 || t.mult <= 0) continue;
    if (t.mult == 1 && t.place > c.place) c = {t.place, false};
    for (const std::int64_t m : d.lone_mults) {
      if (m % t.mult != 0) continue;
      const std::int64_t q = t.place * (m / t.mult);
      if (q < t.place * t.radix && (q == t.place || cuts.contains(q)) && q > c.place) {
        c = {q, true};
      }
    }
  }
  return c;
}

struct Tiling {
  std::int64_t place = 0;  // 0: 1-D; else the place of the loop most bytes coalesce along
  bool symbolic = false;   // that loop won through a symbolic stride
};

Tiling tiling_of(const std::vector<const std::vector<MemoryDep>*>& deps) {
  const std::set<std::int64_t> cuts = loop_cuts(deps);
  std::map<std::int64_t, std::int64_t> coalesced;  // loop place -> bytes
  std::map<std::int64_t, bool> symbolic;
  for (const std::vector<MemoryDep>* list : deps) {
    for (const MemoryDep& d : *list) {
      if (d.opaque || d.split > 0) continue;
      const Coalesced c = coalesced_loop(d, cuts);
      if (c.place == 0) continue;
      coalesced[c.place] += d.bytes;
      symbolic[c.place] = symbolic[c.place] || c.symbolic;
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
  if (best <= 1) return {};
  return {best, symbolic[best]};
}

}  // namespace

std::int64_t pointwise_tiling(const std::vector<const std::vector<MemoryDep>*>& deps) {
  return tiling_of(deps).place;
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
  const Tiling t = tiling_of({&reads, &writes});
  // A tiling cut at a symbolic stride is Inductor's product of loop ranges, never structurally
  // the reduction's expanded (numel, rnumel): the pair does not fuse.
  return t.place != 0 && (t.place != rnumel || t.symbolic);
}

}  // namespace fxscope::fusion::detail
