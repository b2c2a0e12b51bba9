#pragma once
// SIMDScheduling.select_tiling's choice for a pointwise kernel, as far as it bars fusion
// (simd.py, tiling_prevents_pointwise_fusion): a kernel whose loads and stores are mostly
// contiguous along another loop than the innermost one is tiled in 2-D, and two pointwise
// kernels fuse only if the tiling of the pair is the one of each 2-D side.

#include <cstdint>
#include <vector>

#include "fxscope/fusion/memory_index.h"

namespace fxscope::fusion::detail {

// 0 for a 1-D kernel; else the place of the loop digit most bytes are contiguous along.
std::int64_t pointwise_tiling(const std::vector<const std::vector<MemoryDep>*>& deps);

// SIMDScheduling.can_fuse for two pointwise kernels, each given by its loads and stores.
bool tiling_prevents_pointwise_fusion(const std::vector<MemoryDep>& reads1,
                                      const std::vector<MemoryDep>& writes1,
                                      const std::vector<MemoryDep>& reads2,
                                      const std::vector<MemoryDep>& writes2);

// SIMDScheduling.can_fuse for a pointwise kernel running inside a reduction's loop (numel x
// rnumel: a prologue or an epilogue), given by its loads and stores
// (config.triton.tiling_prevents_reduction_fusion): its own tiling must be 1-D or the
// reduction's rows by RNUMEL; a 2-D tiling cut elsewhere (a copy to channels-last) keeps it a
// kernel of its own.
bool tiling_prevents_reduction_fusion(const std::vector<MemoryDep>& reads,
                                      const std::vector<MemoryDep>& writes, std::int64_t rnumel);

}  // namespace fxscope::fusion::detail
