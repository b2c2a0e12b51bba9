#pragma once
// A group whose one kernel cannot store a padded copy of a value beside the rows of its
// reduction (Mixtral's router: the softmax over 4 experts, then its probabilities padded to 8
// for the grouped GEMM): the padding runs as a kernel of its own.

#include <optional>
#include <utility>

#include "fxscope/fusion/planner.h"
#include "fxscope/graph/graph.h"

namespace fxscope::codegen {

// GROUP with each constant_pad_nd output (and the views it reads, where nothing else in the group
// reads them) taken out, the value the pad reads stored instead; and the group of those pads,
// reading those values. nullopt where GROUP stores no constant_pad_nd.
std::optional<std::pair<fusion::KernelGroup, fusion::KernelGroup>> split_padded_outputs(
    const graph::Graph& graph, const fusion::KernelGroup& group);

}  // namespace fxscope::codegen
