#pragma once
// An f32 run of eager's graph, the yardstick for low-precision modes. A bf16 or fp16 graph run
// op by op and the same graph fused round at different places, and through a deep network the
// two can drift apart by more than the dtype's tolerance with neither wrong (Swin-T's attention
// probabilities in a bf16 training step differ by up to 0.095). PyTorch judges its own compiled
// results so (torch/_dynamo/utils.py `same` with `fp64_ref`): a result passes when its
// root-mean-square distance to a higher-precision run is at most 3 times eager's (2 for an f32
// result of 1,000 elements or more under a tight tolerance) plus a tenth of the tolerance (an
// absolute slack: gradients of 1e-7 that rounding flips in sign pass by it).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/graph/graph.h"

namespace fxscope::gpu {

// GRAPH with every bf16 and f16 value computed and stored as f32; nullopt when it has none, or
// reads a value's bits as another dtype (a reinterpreting view). Random ops keep their dtype, so
// a dropout mask compares the same numbers as eager's.
std::optional<graph::Graph> widened_to_f32(const graph::Graph& graph);

// INPUTS (host bytes of graph_inputs(GRAPH)) with each bf16 or f16 input's elements as f32: the
// same values, exactly.
std::vector<std::vector<std::byte>> widened_inputs(const graph::Graph& graph,
                                                   std::vector<std::vector<std::byte>> inputs);

// How many times eager's distance to the higher-precision run a result of RESULT's dtype and
// sizes may stand from it under TOLERANCE, as torch._dynamo.utils.same allows: 3 for a bf16 or
// f16 result, and for one of under 1,000 elements, a 4-d one whose last two sizes are 1, or
// under a tolerance of 0.02 or more; 2 otherwise.
double same_multiplier(const graph::TensorMeta& result, const ops::SymbolHints& hints,
                       double tolerance);

// Whether ACTUAL, outside TOLERANCE of EXPECTED (eager's), is still within PyTorch's bound around
// REFERENCE (the f32 run): its root-mean-square distance to it at most same_multiplier times
// eager's, plus a tenth of the tolerance. DISTANCE and EAGER_DISTANCE are set to those two.
bool near_as_eager_to_reference(const HostOutput& expected, const HostOutput& actual,
                                const HostOutput& reference, double tolerance,
                                const ops::SymbolHints& hints, double& distance,
                                double& eager_distance);

}  // namespace fxscope::gpu
