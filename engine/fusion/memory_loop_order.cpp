// Loop orders over memory addresses: whether a load reads what a store wrote, and how a node's
// loops are reordered to walk a buffer as another node does (Inductor's MemoryDep.normalize and
// the loop reordering of Scheduler._try_reorder_loops_for_candidates / pick_loop_order).

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "fxscope/fusion/memory_index.h"
#include "memory_digits.h"

namespace fxscope::fusion {

using detail::canonical;

bool MemoryDep::reads_as_written(const MemoryDep& write) const {
  // An indirect load reads addresses no store names ("memory deps did not match").
  if (opaque || write.opaque) return false;
  // Loops of other sizes are merged first (MemoryDep.normalize): the addresses decide.
  if (same_address(write)) return true;
  if (opaque || write.opaque || buffer != write.buffer || offset != write.offset || split != 0 ||
      write.split != 0) {
    return false;
  }
  // Further inner loops the address does not use: the innermost digit steps by nothing.
  if (terms.size() != write.terms.size() + 1 || terms.back().mult != 0) return false;
  const std::int64_t inner = terms.back().radix;
  for (std::size_t k = 0; k < write.terms.size(); ++k) {
    const IndexTerm& t = terms[k];
    if (t.place % inner != 0 || t.place / inner != write.terms[k].place ||
        t.radix != write.terms[k].radix || t.mult != write.terms[k].mult) {
      return false;
    }
  }
  return true;
}

namespace {

// The (radix, mult) digits of D's address, by stride, outermost first, adjacent ones merged.
std::vector<std::pair<std::int64_t, std::int64_t>> by_stride(const MemoryDep& d) {
  std::vector<IndexTerm> terms = d.terms;
  std::stable_sort(terms.begin(), terms.end(),
                   [](const IndexTerm& a, const IndexTerm& b) { return a.mult < b.mult; });
  std::vector<std::pair<std::int64_t, std::int64_t>> out;  // innermost first
  for (const IndexTerm& t : terms) {
    if (!out.empty() && t.mult == out.back().second * out.back().first) {
      out.back().first *= t.radix;
      continue;
    }
    out.push_back({t.radix, t.mult});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// The digits of D's address that step it, split at every stride in CUTS: stride -> (place, radix).
std::optional<std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>> split_at(
    const MemoryDep& d, const std::set<std::int64_t>& cuts) {
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> out;
  for (const IndexTerm& t : d.terms) {
    if (t.mult == 0) continue;
    const std::int64_t end = t.mult * t.radix;
    std::int64_t at = t.mult;
    for (auto c = cuts.upper_bound(at); at < end; ++c) {
      const std::int64_t next = c == cuts.end() || *c > end ? end : *c;
      if (next % at != 0 || at % t.mult != 0) return std::nullopt;
      if (!out.emplace(at, std::pair{t.place * (at / t.mult), next / at}).second) {
        return std::nullopt;
      }
      at = next;
    }
  }
  return out;
}

std::vector<IndexTerm> unused_digits(const MemoryDep& d) {
  std::vector<IndexTerm> out;
  for (const IndexTerm& t : d.terms) {
    if (t.mult == 0) out.push_back(t);
  }
  return out;  // outermost first, as the terms are
}

}  // namespace

bool same_stride_order(const MemoryDep& a, const MemoryDep& b) {
  if (a.opaque || b.opaque || a.buffer != b.buffer || a.offset != b.offset || a.split != b.split) {
    return false;
  }
  return by_stride(a) == by_stride(b);
}

std::vector<std::int64_t> loop_sizes(const MemoryDep& d) {
  // SizeVarAllocator._simplify_loops merges any two loops whose strides chain, not only
  // neighbours: a row index broadcast along a middle dim (a layer norm's mean read by its
  // output, n and h*w around c) merges its outer and inner loops.
  std::vector<std::int64_t> out;
  for (const auto& [radix, mult] : by_stride(d)) out.push_back(radix);
  return out;
}

std::optional<LoopOrder> loop_order_to_match(const MemoryDep& from, const MemoryDep& to) {
  if (!same_stride_order(from, to)) return std::nullopt;
  std::set<std::int64_t> cuts;
  for (const MemoryDep* d : {&from, &to}) {
    for (const IndexTerm& t : d->terms) {
      if (t.mult != 0) cuts.insert({t.mult, t.mult * t.radix});
    }
  }
  const auto a = split_at(from, cuts);
  const auto b = split_at(to, cuts);
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  LoopOrder order;
  for (const auto& [stride, digit] : *a) {
    const auto other = b->find(stride);
    if (other == b->end() || other->second.second != digit.second) return std::nullopt;
    order.push_back({digit.first, digit.second, other->second.first});
  }
  // Digits the address does not use pair up outermost first.
  const std::vector<IndexTerm> ua = unused_digits(from);
  const std::vector<IndexTerm> ub = unused_digits(to);
  if (ua.size() != ub.size()) return std::nullopt;
  for (std::size_t k = 0; k < ua.size(); ++k) {
    if (ua[k].radix != ub[k].radix) return std::nullopt;
    order.push_back({ua[k].place, ua[k].radix, ub[k].place});
  }
  return order;
}

MemoryDep reorder_loops(const MemoryDep& d, const LoopOrder& order) {
  if (d.opaque) return d;
  std::set<std::int64_t> cuts;
  for (const LoopPiece& p : order) cuts.insert({p.from, p.from * p.radix});
  MemoryDep out = d;
  out.terms.clear();
  std::int64_t numel = 1;
  for (const IndexTerm& t : d.terms) {
    numel *= t.radix;
    const std::int64_t end = t.place * t.radix;
    std::int64_t at = t.place;
    for (auto c = cuts.upper_bound(at); at < end; ++c) {
      const std::int64_t next = c == cuts.end() || *c > end ? end : *c;
      const auto piece = std::find_if(order.begin(), order.end(), [&](const LoopPiece& p) {
        return p.from <= at && next <= p.from * p.radix && at % p.from == 0;
      });
      if (piece == order.end() || next % at != 0) {
        out.opaque = true;
        out.terms.clear();
        return out;
      }
      out.terms.push_back({piece->to * (at / piece->from), next / at, t.mult * (at / t.place)});
      at = next;
    }
  }
  out.terms = canonical(std::move(out.terms), numel);
  return out;
}

}  // namespace fxscope::fusion
