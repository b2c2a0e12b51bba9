#include "fxscope/gpu/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace fxscope::gpu {
namespace {

std::size_t round_up(std::size_t n, std::size_t align) {
  return (n + align - 1) / align * align;
}

struct Placed {
  std::size_t offset;
  std::size_t bytes;
  std::size_t last_step;
  bool pinned;
};

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLife>& buffers, std::size_t align) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Allocation happens in launch order; ties keep the larger buffer first so it takes the hole.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (buffers[a].first_step != buffers[b].first_step) {
      return buffers[a].first_step < buffers[b].first_step;
    }
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::vector<Placed> live;  // sorted by offset
  for (const std::size_t i : order) {
    const BufferLife& b = buffers[i];
    const std::size_t bytes = round_up(std::max<std::size_t>(b.bytes, 1), align);
    plan.total_bytes += bytes;
    // A buffer whose last reader ran before this one is written frees its bytes.
    std::erase_if(live, [&](const Placed& p) { return !p.pinned && p.last_step < b.first_step; });
    std::size_t offset = 0;
    std::size_t best = static_cast<std::size_t>(-1);
    std::size_t best_gap = static_cast<std::size_t>(-1);
    for (const Placed& p : live) {
      if (p.offset >= offset + bytes && p.offset - offset < best_gap) {
        best = offset;
        best_gap = p.offset - offset;
      }
      offset = std::max(offset, p.offset + p.bytes);
    }
    if (best == static_cast<std::size_t>(-1)) best = offset;
    plan.offsets[i] = best;
    plan.arena_bytes = std::max(plan.arena_bytes, best + bytes);
    const Placed placed{best, bytes, b.last_step, b.pinned};
    live.insert(
        std::upper_bound(live.begin(), live.end(), placed,
                         [](const Placed& x, const Placed& y) { return x.offset < y.offset; }),
        placed);
  }
  return plan;
}

}  // namespace fxscope::gpu
