#pragma once
// How the engine's reduction kernel lays a reduction's rows onto threads, in the one place both
// the code generator (codegen/reduction_kernel.cpp) and the cost model's shape classes
// (report/kernel_shape.cpp) read it.

#include <cstdint>
#include <vector>

namespace fxscope::ops {

// Whether the dims REDUCED (one flag a dim) of an input of SIZES lie inside every kept dim, dims
// of size 1 aside: a layer norm's last dim is, a batch norm's N, H and W of [N, C, H, W] are not.
bool reduces_trailing_dims(const std::vector<std::int64_t>& sizes,
                           const std::vector<bool>& reduced);

// From this many rows a reduction whose dims are not trailing runs one thread a row: adjacent
// rows' elements sit in adjacent threads, which coalesces.
inline constexpr std::int64_t kThreadPerRowMinRows = 4096;

inline bool one_thread_per_row(std::int64_t rows, bool trailing) {
  return !trailing && rows >= kThreadPerRowMinRows;
}

}  // namespace fxscope::ops
