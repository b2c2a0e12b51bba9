#pragma once
// Device memory of one executed plan: every buffer a kernel writes gets an offset in one arena,
// and a buffer whose last reader has run gives its bytes to a later one (first fit over the
// freed holes), as a caching allocator would. Graph inputs and outputs live for the whole call.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fxscope::gpu {

// One buffer: its size and the steps (launch order) between its first write and its last read.
struct BufferLife {
  std::size_t bytes = 0;
  std::size_t first_step = 0;
  std::size_t last_step = 0;
  bool pinned = false;  // lives for the whole call (a graph output)
};

struct MemoryPlan {
  std::vector<std::size_t> offsets;  // per buffer, in the arena
  std::size_t arena_bytes = 0;       // the peak of the arena
  std::size_t total_bytes = 0;       // without reuse: the sum of all buffers
};

// Every offset is aligned to ALIGN bytes (256: what cuBLAS and vector loads want).
MemoryPlan plan_memory(const std::vector<BufferLife>& buffers, std::size_t align = 256);

}  // namespace fxscope::gpu
