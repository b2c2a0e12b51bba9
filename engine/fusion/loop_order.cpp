// pick_loop_order and the layouts and loop orders it decides (loop_order.h).

#include "fxscope/fusion/loop_order.h"

#include <algorithm>
#include <cstdlib>

namespace fxscope::fusion {

namespace {

int cmp(std::int64_t a, std::int64_t b) {
  return (a > b) - (a < b);
}

// CPython's list.sort on a short list: the first run (a strictly descending one reversed),
// then binary insertion of the rest. pick_loop_order's comparison need not be transitive, so
// the algorithm decides ties and cycles as Python's does.
template <class Less>
void python_sort(std::vector<std::size_t>& v, Less less) {
  const std::size_t n = v.size();
  if (n < 2) return;
  std::size_t run = 2;
  if (less(v[1], v[0])) {
    while (run < n && less(v[run], v[run - 1])) ++run;
    std::reverse(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(run));
  } else {
    while (run < n && !less(v[run], v[run - 1])) ++run;
  }
  for (std::size_t i = run; i < n; ++i) {
    const std::size_t pivot = v[i];
    std::size_t l = 0;
    std::size_t r = i;
    while (l < r) {
      const std::size_t p = l + (r - l) / 2;
      if (less(pivot, v[p])) {
        r = p;
      } else {
        l = p + 1;
      }
    }
    for (std::size_t k = i; k > l; --k) v[k] = v[k - 1];
    v[l] = pivot;
  }
}

}  // namespace

std::vector<std::size_t> pick_loop_order(const std::vector<std::vector<std::int64_t>>& strides,
                                         const std::vector<std::int64_t>& sizes) {
  const std::size_t n = sizes.size();
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = n - 1 - k;
  const auto index_cmp = [&](std::size_t a, std::size_t b) {
    if (sizes[a] == 1 || sizes[b] == 1) return cmp(sizes[a] == 1, sizes[b] == 1);
    std::int64_t a_first = 0;
    std::int64_t b_first = 0;
    for (const std::vector<std::int64_t>& sl : strides) {
      const std::int64_t sa = std::llabs(sl[a]);
      const std::int64_t sb = std::llabs(sl[b]);
      a_first += sb == 0 || sa < sb;
      b_first += sa == 0 || sb < sa;
    }
    if (a_first != b_first) return a_first > b_first ? -1 : 1;
    return cmp(static_cast<std::int64_t>(b), static_cast<std::int64_t>(a));
  };
  python_sort(order, [&](std::size_t a, std::size_t b) { return index_cmp(a, b) < 0; });
  return order;
}

std::vector<std::int64_t> dep_strides(const MemoryDep& dep, const std::vector<std::int64_t>& sizes,
                                      std::int64_t inner_numel) {
  if (dep.opaque) return {};
  std::vector<std::int64_t> out(sizes.size(), 0);
  std::int64_t place = std::max<std::int64_t>(inner_numel, 1);
  for (std::size_t k = sizes.size(); k-- > 0;) {
    if (sizes[k] > 1) {
      for (const IndexTerm& t : dep.terms) {
        if (t.place <= place && place < t.place * t.radix && place % t.place == 0) {
          out[k] = t.mult * (place / t.place);
        }
      }
    }
    place *= std::max<std::int64_t>(sizes[k], 1);
  }
  return out;
}

std::vector<std::int64_t> fill_ordered_strides(const std::vector<std::int64_t>& sizes,
                                               const std::vector<std::size_t>& fill_order) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  std::int64_t next = 1;
  for (const std::size_t k : fill_order) {
    strides[k] = next;
    next *= std::max<std::int64_t>(sizes[k], 1);
  }
  return strides;
}

LoopOrder loop_order_of(const std::vector<std::int64_t>& sizes,
                        const std::vector<std::size_t>& loop_order, std::int64_t inner_numel) {
  const std::int64_t inner = std::max<std::int64_t>(inner_numel, 1);
  std::vector<std::int64_t> from(sizes.size(), 1);
  std::int64_t place = inner;
  for (std::size_t k = sizes.size(); k-- > 0;) {
    from[k] = place;
    place *= std::max<std::int64_t>(sizes[k], 1);
  }
  LoopOrder order;
  if (inner > 1) order.push_back({1, inner, 1});
  std::int64_t to = inner;
  for (std::size_t j = loop_order.size(); j-- > 0;) {
    const std::size_t k = loop_order[j];
    if (sizes[k] <= 1) continue;
    order.push_back({from[k], sizes[k], to});
    to *= sizes[k];
  }
  return order;
}

}  // namespace fxscope::fusion
