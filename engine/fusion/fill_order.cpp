// ComputedBuffer.get_fill_order and scheduler.pick_loop_order, on the modelled addresses: each
// load's stride along each dim of the value, then the dims sorted so that the one most loads
// step through fastest is innermost.

#include "fill_order.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace fxscope::fusion::detail {
namespace {

// What a step of dim D (at PLACE in the flattened iteration) adds to DEP's address: the digit
// holding it, scaled to the dim's place; 0 where no digit holds it.
std::int64_t stride_along(const MemoryDep& dep, std::int64_t place, std::int64_t size) {
  for (const IndexTerm& t : dep.terms) {
    if (t.place <= 0 || place % t.place != 0) continue;
    if (place >= t.place && place * size <= t.place * t.radix) return t.mult * (place / t.place);
  }
  return 0;
}

}  // namespace

std::vector<std::int64_t> fill_order_strides(const std::vector<std::int64_t>& sizes,
                                             const std::vector<MemoryDep>& reads) {
  const std::size_t n = sizes.size();
  std::vector<std::int64_t> places(n, 1);
  for (std::size_t k = n; k-- > 1;) places[k - 1] = places[k] * sizes[k];
  std::vector<std::vector<std::int64_t>> strides;
  for (const MemoryDep& r : reads) {
    if (r.opaque || r.split > 0) continue;
    std::vector<std::int64_t> s(n);
    for (std::size_t d = 0; d < n; ++d) s[d] = std::llabs(stride_along(r, places[d], sizes[d]));
    strides.push_back(std::move(s));
  }
  if (strides.empty()) return {};
  // pick_loop_order: from the last dim to the first, stably sorted by index_cmp; size-1 dims go
  // last, then the dim that more loads step through more finely first, else the later dim.
  std::vector<std::size_t> order(n);
  std::iota(order.rbegin(), order.rend(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (sizes[a] == 1 || sizes[b] == 1) return sizes[a] != 1 && sizes[b] == 1;
    int a_first = 0;
    int b_first = 0;
    for (const auto& s : strides) {
      a_first += s[b] == 0 || s[a] < s[b];
      b_first += s[a] == 0 || s[b] < s[a];
    }
    if (a_first != b_first) return a_first > b_first;
    return a > b;
  });
  // FlexibleLayout.fill_ordered: the first dim of the order is innermost.
  std::vector<std::int64_t> out(n, 1);
  std::int64_t next = 1;
  for (const std::size_t d : order) {
    out[d] = next;
    next *= sizes[d];
  }
  return out;
}

}  // namespace fxscope::fusion::detail
