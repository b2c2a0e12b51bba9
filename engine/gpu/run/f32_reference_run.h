#pragma once
// The f32 run of eager's graph (fxscope/gpu/f32_reference.h says why it is the yardstick).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/f32_reference.h"

namespace fxscope::gpu {

// Runs EAGER's graph widened, one op a kernel, on INPUTS (eager's own, widened here) and returns
// its outputs, telling SAY first; empty, and nothing said, when the graph holds no low-precision
// value. The error names what failed.
Result<std::vector<HostOutput>> run_f32_reference(
    const fusion::GraphFusion& eager, const std::vector<std::vector<std::byte>>& inputs,
    const ops::SymbolHints& hints, std::uint64_t seed, bool clusters,
    const EngineCompiler& compiler, cudaStream_t stream,
    const std::function<void(const std::string&)>& say);

}  // namespace fxscope::gpu
