#pragma once
// Execution plans for a finalized operation graph of cuDNN's backend API, in the order cuDNN's
// heuristics rank their engine configs: the instant list first, then the fallback list; engines
// that compile a kernel at run time (seconds each) only where no precompiled one plans the graph.
// fp32 graphs never get an engine whose numerics differ from plain fp32 (TF32 on tensor cores,
// inputs converted down, reduced-precision reduction): runs are compared with eager at 1e-3.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudnn/cudnn_descriptor.h"
#include "cudnn/cudnn_library.h"
#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct CudnnPlan {
  CudnnDescriptor plan;  // finalized
  std::int64_t workspace = 0;
  std::string engine;  // "graph engine 70 (instant heuristics)"
};

// Up to WANTED plans, best ranked first; the error sums up why there is none.
Result<std::vector<CudnnPlan>> cudnn_plans(const CudnnLibrary& lib, const CudnnDescriptor& graph,
                                           bool fp32, std::size_t wanted);

}  // namespace fxscope::gpu
